// LDS (shared memory) microbenchmarks on AMD CDNA: dependent-load latency and bank conflicts
// (latency and throughput), timed with the shader clock. The HIP twin of ../cuda/lat_shared.cu:
// same kernel names, arguments and out[] layouts (a "warp" is a wave64 here).
//
//   smem_lat_chase  one lane, `steps` dependent ds_read_b32 (the loaded word is the next LDS
//                   address; each followed by s_waitcnt lgkmcnt(0), nothing else).
//   smem_bank       lane l of every wave re-loads its own word at l*stride_words: a wave-wide
//                   ds_read_b32 touches 64 words stride apart -> an n-way conflict on 32 banks.
#include <hip/hip_runtime.h>

#include "mb_helpers.h"  // mb_clock64, mb_realtime, mb_smid

typedef __attribute__((address_space(3))) unsigned lds_u32;

// LDS byte address of a pointer into __shared__ memory.
static __device__ __forceinline__ unsigned lds_addr(const unsigned* p) {
  return static_cast<unsigned>(reinterpret_cast<unsigned long>((const lds_u32*)p));
}

// One dependent LDS load: the loaded word is the LDS address of the next load.
static __device__ __forceinline__ unsigned lds_chase(unsigned a) {
  unsigned v;
  asm volatile("ds_read_b32 %0, %1\n\ts_waitcnt lgkmcnt(0)" : "=v"(v) : "v"(a) : "memory");
  return v;
}

// Four independent loads in flight, one wait: the throughput form.
static __device__ __forceinline__ void lds_chase4(unsigned& a0, unsigned& a1, unsigned& a2, unsigned& a3) {
  asm volatile(
      "ds_read_b32 %0, %0\n\tds_read_b32 %1, %1\n\tds_read_b32 %2, %2\n\tds_read_b32 %3, %3\n\ts_waitcnt lgkmcnt(0)"
      : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3)
      :
      : "memory");
}

#define SMEM_WORDS 4096  // 16 KiB of LDS per workgroup

// out: [0] cycles, [1] steps, [2] sink, [3] warm-up sink. Launch one workgroup of >= 64 lanes.
extern "C" __global__ void smem_lat_chase(unsigned long long* out, unsigned stride_words, unsigned steps) {
  __shared__ unsigned s[SMEM_WORDS];
  const unsigned stride = (stride_words == 0 || stride_words > SMEM_WORDS) ? 1u : stride_words;
  const unsigned nodes = SMEM_WORDS / stride;
  for (unsigned i = threadIdx.x; i < nodes; i += blockDim.x) {
    unsigned n = (i + 1 == nodes) ? 0u : i + 1;
    s[i * stride] = lds_addr(&s[n * stride]);
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned a = lds_addr(&s[0]);
  for (int w = 0; w < 64; ++w) a = lds_chase(a);
  out[3] = a;
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 32 <= steps; i += 32) {
#pragma unroll
    for (int u = 0; u < 32; ++u) a = lds_chase(a);
  }
  for (; i < steps; ++i) a = lds_chase(a);
  const unsigned long long t1 = mb_clock64();
  out[2] = a;
  out[0] = t1 - t0;
  out[1] = steps;
}

// chains == 1: one dependent chain per lane (run one wave: the latency with conflicts);
// chains == 4: four loads in flight per lane (many waves: the throughput).
// out (u64): [3*b+0] t0, [3*b+1] t1, [3*b+2] CU id of workgroup b; [3*gridDim.x] sink.
extern "C" __global__ void smem_bank(unsigned long long* out, unsigned stride_words, unsigned chains, unsigned steps) {
  __shared__ unsigned s[SMEM_WORDS];
  const unsigned lane = threadIdx.x & 63u;
  const unsigned w = (lane * stride_words) & (SMEM_WORDS - 1);
  for (unsigned i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x) s[i] = lds_addr(&s[i]);
  __syncthreads();
  unsigned a0 = lds_addr(&s[w]);
  unsigned a1 = lds_chase(a0);
  unsigned a2 = lds_chase(a1);
  unsigned a3 = lds_chase(a2);
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
  if (chains >= 4) {
    for (unsigned i = 0; i < steps; i += 8) {
#pragma unroll
      for (int u = 0; u < 8; ++u) lds_chase4(a0, a1, a2, a3);
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
