// Atomics on AMD CDNA: throughput by address pattern (global u32 / f32, LDS u32) and dependent
// latency. The HIP twin of ../cuda/atomics.cu (same kernel names, arguments, out[] layouts).
// Throughput counts per-lane operations: ops = grid * block * iters.
//
//   atom_global_u32(buf, naddr, iters, inc)   lane g adds `inc` to buf[g % naddr], iters times with
//              global_atomic_add (no return). The address count is a run-time value, so the
//              compiler's atomic optimizer cannot combine the wave's lanes: every lane's add
//              reaches the memory system.
//   atom_global_u32_uniform(buf, iters)       the plain atomicAdd(&x, 1) case, left to the compiler
//              (which may reduce the wave to one atomic); ops still counted per lane.
//   atom_global_f32(buf, naddr, iters, inc)   global_atomic_add_f32 (no return).
//   atom_shared_u32(out, naddr, iters, inc)   ds_add_u32 on s[tid % naddr]; timed per workgroup:
//              out[3*b..] = t0, t1, CU id.
//   atom_lat_global(buf, out, steps)          one lane: v = atomic add with return (sc0) of v.
//   atom_lat_shared(out, steps)               the same on LDS (ds_add_rtn_u32).
#include <hip/hip_runtime.h>

#include "mb_helpers.h"  // mb_clock64, mb_realtime, mb_smid

typedef __attribute__((address_space(3))) unsigned lds_u32;
static __device__ __forceinline__ unsigned lds_addr(const unsigned* p) {
  return static_cast<unsigned>(reinterpret_cast<unsigned long>((const lds_u32*)p));
}

extern "C" __global__ void atom_global_u32(unsigned* buf, unsigned naddr, unsigned iters, unsigned inc) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = buf + (g % (naddr == 0 ? 1u : naddr));
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("global_atomic_add %0, %1, off" : : "v"(p), "v"(inc) : "memory");
  }
  for (; i < iters; ++i) asm volatile("global_atomic_add %0, %1, off" : : "v"(p), "v"(inc) : "memory");
  asm volatile("s_waitcnt vmcnt(0)" : : : "memory");
}

extern "C" __global__ void atom_global_u32_uniform(unsigned* buf, unsigned iters) {
  for (unsigned i = 0; i < iters; ++i) __hip_atomic_fetch_add(buf, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

extern "C" __global__ void atom_global_f32(float* buf, unsigned naddr, unsigned iters, float inc) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  float* p = buf + (g % (naddr == 0 ? 1u : naddr));
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("global_atomic_add_f32 %0, %1, off" : : "v"(p), "v"(inc) : "memory");
  }
  for (; i < iters; ++i) asm volatile("global_atomic_add_f32 %0, %1, off" : : "v"(p), "v"(inc) : "memory");
  asm volatile("s_waitcnt vmcnt(0)" : : : "memory");
}

#define ATOM_SMEM_WORDS 1024

extern "C" __global__ void atom_shared_u32(unsigned long long* out, unsigned naddr, unsigned iters, unsigned inc) {
  __shared__ unsigned s[ATOM_SMEM_WORDS];
  for (unsigned i = threadIdx.x; i < ATOM_SMEM_WORDS; i += blockDim.x) s[i] = 0;
  __syncthreads();
  const unsigned n = (naddr == 0 || naddr > ATOM_SMEM_WORDS) ? ATOM_SMEM_WORDS : naddr;
  const unsigned a = lds_addr(&s[threadIdx.x % n]);
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 8 <= iters; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("ds_add_u32 %0, %1" : : "v"(a), "v"(inc) : "memory");
  }
  for (; i < iters; ++i) asm volatile("ds_add_u32 %0, %1" : : "v"(a), "v"(inc) : "memory");
  asm volatile("s_waitcnt lgkmcnt(0)" : : : "memory");
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
  }
  if (s[threadIdx.x % n] == 0x5eedu) out[3 * gridDim.x] = 1;
}

static __device__ __forceinline__ unsigned atom_rtn(unsigned* p, unsigned v) {
  unsigned r;
  asm volatile("global_atomic_add %0, %1, %2, off sc0\n\ts_waitcnt vmcnt(0)" : "=v"(r) : "v"(p), "v"(v) : "memory");
  return r;
}

extern "C" __global__ void atom_lat_global(unsigned* buf, unsigned long long* out, unsigned steps) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  unsigned* p = buf;
  unsigned v = 1;
  for (int w = 0; w < 8; ++w) v = atom_rtn(p, v);
  out[3] = v;
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 8 <= steps; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) v = atom_rtn(p, v);
  }
  for (; i < steps; ++i) v = atom_rtn(p, v);
  const unsigned long long t1 = mb_clock64();
  out[2] = v;
  out[0] = t1 - t0;
  out[1] = steps;
}

static __device__ __forceinline__ unsigned lds_atom_rtn(unsigned a, unsigned v) {
  unsigned r;
  asm volatile("ds_add_rtn_u32 %0, %1, %2\n\ts_waitcnt lgkmcnt(0)" : "=v"(r) : "v"(a), "v"(v) : "memory");
  return r;
}

extern "C" __global__ void atom_lat_shared(unsigned long long* out, unsigned steps) {
  __shared__ unsigned s[64];
  if (threadIdx.x < 64) s[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned a = lds_addr(&s[0]);
  unsigned v = 1;
  for (int w = 0; w < 8; ++w) v = lds_atom_rtn(a, v);
  out[3] = v;
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 8 <= steps; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) v = lds_atom_rtn(a, v);
  }
  for (; i < steps; ++i) v = lds_atom_rtn(a, v);
  const unsigned long long t1 = mb_clock64();
  out[2] = v;
  out[0] = t1 - t0;
  out[1] = steps;
}
