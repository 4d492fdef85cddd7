// Atomics: throughput by address pattern (global u32 / f32, shared u32) and dependent latency.
// Plain launches. Throughput counts per-thread operations: ops = grid * block * iters.
//
//   atom_global_u32(buf, naddr, iters, inc)   thread g adds `inc` to buf[g % naddr], iters times
//              (red.global.add.u32, no return -> REDG.E.ADD). naddr = 1, 32, 1024 or grid*block
//              (all distinct). Because naddr and inc are run-time values ptxas cannot prove the
//              address warp-uniform, so it does NOT aggregate the warp (no VOTEU/POPC/REDUX):
//              every lane's add reaches the memory system.
//   atom_global_u32_uniform(buf, iters)       the plain `atomicAdd(&x, 1)` case: provably uniform
//              address and constant 1 -> ptxas emits VOTEU.ANY + POPC + one REDG per warp. Shows
//              what ordinary code gets; ops still counted per thread.
//   atom_global_f32(buf, naddr, iters, inc)   red.global.add.f32 (never aggregated).
//   atom_shared_u32(out, naddr, iters, inc)   red.shared.add.u32 on s[tid % naddr] (ATOMS.ADD);
//              timed per block with clock64: out[3*b..] = t0, t1, smid.
//   atom_lat_global(buf, out, steps)          one thread: v = atom.global.add.u32 [buf], v — the
//              next add's operand is the previous return value (no arithmetic in between).
//   atom_lat_shared(out, steps)               the same on shared memory (ATOMS.ADD with return).

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

extern "C" __global__ void atom_global_u32(unsigned* buf, unsigned naddr, unsigned iters, unsigned inc) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = buf + (g % (naddr == 0 ? 1u : naddr));
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(inc) : "memory");
  }
  for (; i < iters; ++i) asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(inc) : "memory");
}

extern "C" __global__ void atom_global_u32_uniform(unsigned* buf, unsigned iters) {
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("red.global.add.u32 [%0], 1;" : : "l"(buf) : "memory");
  }
  for (; i < iters; ++i) asm volatile("red.global.add.u32 [%0], 1;" : : "l"(buf) : "memory");
}

extern "C" __global__ void atom_global_f32(float* buf, unsigned naddr, unsigned iters, float inc) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  float* p = buf + (g % (naddr == 0 ? 1u : naddr));
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(inc) : "memory");
  }
  for (; i < iters; ++i) asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(inc) : "memory");
}

#define ATOM_SMEM_WORDS 1024

extern "C" __global__ void atom_shared_u32(unsigned long long* out, unsigned naddr, unsigned iters, unsigned inc) {
  __shared__ unsigned s[ATOM_SMEM_WORDS];
  for (unsigned i = threadIdx.x; i < ATOM_SMEM_WORDS; i += blockDim.x) s[i] = 0;
  __syncthreads();
  const unsigned n = (naddr == 0 || naddr > ATOM_SMEM_WORDS) ? ATOM_SMEM_WORDS : naddr;
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(&s[threadIdx.x % n]));
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("red.shared.add.u32 [%0], %1;" : : "r"(a), "r"(inc) : "memory");
  }
  for (; i < iters; ++i) asm volatile("red.shared.add.u32 [%0], %1;" : : "r"(a), "r"(inc) : "memory");
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
  }
  if (s[threadIdx.x % n] == 0x5eedu) out[3 * gridDim.x] = 1;
}

extern "C" __global__ void atom_lat_global(unsigned* buf, unsigned long long* out, unsigned steps) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  // buf + laneid (= buf for the one running thread): not provably warp-uniform, so ptxas emits a
  // plain ATOMG instead of its run-time warp-aggregation sequence (VOTE/POPC/SHFL) for atom-with-
  // return on a uniform address.
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned* p = buf + lane;
  unsigned v = 1;
  for (int w = 0; w < 8; ++w) asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(v) : "l"(p) : "memory");
  out[3] = v;
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 8 <= steps; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(v) : "l"(p) : "memory");
  }
  for (; i < steps; ++i) asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(v) : "l"(p) : "memory");
  out[2] = v;
  const unsigned long long t1 = mb_clock64();
  out[0] = t1 - t0;
  out[1] = steps;
}

extern "C" __global__ void atom_lat_shared(unsigned long long* out, unsigned steps) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(&s[0]));
  unsigned v = 1;
  for (int w = 0; w < 8; ++w) asm volatile("atom.shared.add.u32 %0, [%1], %0;" : "+r"(v) : "r"(a) : "memory");
  out[3] = v;
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 8 <= steps; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("atom.shared.add.u32 %0, [%1], %0;" : "+r"(v) : "r"(a) : "memory");
  }
  for (; i < steps; ++i) asm volatile("atom.shared.add.u32 %0, [%1], %0;" : "+r"(v) : "r"(a) : "memory");
  out[2] = v;
  const unsigned long long t1 = mb_clock64();
  out[0] = t1 - t0;
  out[1] = steps;
}
