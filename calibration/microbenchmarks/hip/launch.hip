// Launch overhead and workgroup dispatch on AMD CDNA. The HIP twin of ../cuda/launch.cu.
//
//   k_empty           an empty kernel (event time of an empty launch; grids of many workgroups give
//                     the dispatch rate)
//   k_one_block(out)  one workgroup writing 256 words
//   cta_stamp(out)    every workgroup records [shader clock at entry, CU id]: per CU the gap
//                     between consecutive workgroup starts
#include <hip/hip_runtime.h>

#ifndef KERNSIM_MB_HELPERS
#define KERNSIM_MB_HELPERS
// Shader-clock and constant-clock reads as inline asm that waits for its own result, with a memory
// clobber so the compiler moves no load or store across a clock read.
static __device__ __forceinline__ __attribute__((unused)) unsigned long long mb_clock64() {
  unsigned long long t;
  asm volatile("s_memtime %0\n\ts_waitcnt lgkmcnt(0)" : "=s"(t) : : "memory");
  return t;
}
static __device__ __forceinline__ __attribute__((unused)) unsigned long long mb_realtime() {
  unsigned long long t;
  asm volatile("s_memrealtime %0\n\ts_waitcnt lgkmcnt(0)" : "=s"(t) : : "memory");
  return t;
}
// A CU-unique id: XCC_ID (hwreg 20) and HW_ID's SE/SH/CU fields (hwreg 4).
static __device__ __forceinline__ __attribute__((unused)) unsigned mb_smid() {
  const unsigned hw = __builtin_amdgcn_s_getreg(4 | (0 << 6) | (31 << 11));
  const unsigned xcc = __builtin_amdgcn_s_getreg(20 | (0 << 6) | (3 << 11));
  return (xcc << 8) | (((hw >> 13) & 7u) << 5) | (((hw >> 12) & 1u) << 4) | ((hw >> 8) & 15u);
}
#endif

extern "C" __global__ void k_empty() {}

extern "C" __global__ void k_one_block(unsigned* out) { out[threadIdx.x] = threadIdx.x; }

extern "C" __global__ void cta_stamp(unsigned long long* out) {
  if (threadIdx.x == 0) {
    out[2ull * blockIdx.x + 0] = mb_clock64();
    out[2ull * blockIdx.x + 1] = mb_smid();
  }
}
