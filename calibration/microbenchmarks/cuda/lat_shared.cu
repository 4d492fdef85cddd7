// Shared-memory microbenchmarks: dependent-load latency and bank conflicts (latency and
// throughput), timed with clock64() in the kernel. Plain launches: no buffers but the output.
//
//   smem_lat_chase  one thread, `steps` dependent ld.shared (a pure chase: the loaded word is the
//                   next address; SASS: back-to-back LDS with no arithmetic).
//   smem_bank       every lane of every warp re-loads its own word at lane*stride_words; steps is
//                   rounded up to a multiple of 32 (chains=1) or 8 (chains=4) by the loop.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

// Shared-window byte address of a generic pointer into __shared__ memory.
static __device__ __forceinline__ unsigned smem_addr(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

// One dependent shared load: the loaded word is the shared address of the next load.
static __device__ __forceinline__ unsigned lds_chase(unsigned a) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}

#define SMEM_WORDS 4096  // 16 KiB of static shared memory per block

// Shared-memory load latency: thread 0 chases `steps` dependent ld.shared through a ring of
// SMEM_WORDS/stride_words nodes (node i holds the address of node i+1). One LDS per step, no
// arithmetic. Launch with one block of >= 32 threads. out: [0] cycles, [1] steps, [2] sink.
extern "C" __global__ void smem_lat_chase(unsigned long long* out, unsigned stride_words, unsigned steps) {
  __shared__ unsigned s[SMEM_WORDS];
  const unsigned stride = (stride_words == 0 || stride_words > SMEM_WORDS) ? 1u : stride_words;
  const unsigned nodes = SMEM_WORDS / stride;
  for (unsigned i = threadIdx.x; i < nodes; i += blockDim.x) {
    unsigned n = (i + 1 == nodes) ? 0u : i + 1;
    s[i * stride] = smem_addr(&s[n * stride]);
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned a = smem_addr(&s[0]);
  for (int w = 0; w < 64; ++w) a = lds_chase(a);  // warm-up (instruction cache, pipeline)
  out[3] = a;
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 32 <= steps; i += 32) {
#pragma unroll
    for (int u = 0; u < 32; ++u) a = lds_chase(a);
  }
  for (; i < steps; ++i) a = lds_chase(a);
  out[2] = a;
  const unsigned long long t1 = mb_clock64();
  out[0] = t1 - t0;
  out[1] = steps;
}

// Bank conflicts. Lane l of every warp owns word l*stride_words (mod SMEM_WORDS), which holds its
// own address, so each lane re-loads the same word: a warp-wide LDS touches 32 words spaced
// stride_words apart -> an n-way conflict with n = min(stride, 32) for power-of-two strides.
//   chains == 1: one dependent chain per thread -> cycles per access = latency incl. conflicts
//                (run one warp for the clean latency).
//   chains == 4: four independent chains per thread -> with many warps this is the throughput
//                (cycles per warp-wide LDS per SM = per-SM span / warp-LDS count).
// out (u64): [3*b+0] t0, [3*b+1] t1, [3*b+2] smid for block b; [3*gridDim.x] sink.
extern "C" __global__ void smem_bank(unsigned long long* out, unsigned stride_words, unsigned chains, unsigned steps) {
  __shared__ unsigned s[SMEM_WORDS];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned w = (lane * stride_words) & (SMEM_WORDS - 1);
  for (unsigned i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x) s[i] = smem_addr(&s[i]);
  __syncthreads();
  // The four chains start from loaded values (all equal to a0 at run time) so that the compiler
  // cannot prove them identical and merge them into one.
  unsigned a0 = smem_addr(&s[w]);
  unsigned a1 = lds_chase(a0);
  unsigned a2 = lds_chase(a1);
  unsigned a3 = lds_chase(a2);
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
  if (chains >= 4) {
    for (unsigned i = 0; i < steps; i += 8) {
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        a0 = lds_chase(a0);
        a1 = lds_chase(a1);
        a2 = lds_chase(a2);
        a3 = lds_chase(a3);
      }
    }
  } else {
    for (unsigned i = 0; i < steps; i += 32) {
#pragma unroll
      for (int u = 0; u < 32; ++u) a0 = lds_chase(a0);
    }
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
  }
  if ((a0 ^ a1 ^ a2 ^ a3) == 0x5eedu) out[3 * gridDim.x] = a0;
}
