// Clock and CU-id reads shared by the HIP microbenchmark kernels (hip/*.hip), the twin of
// cuda/mb_helpers.cuh. Inline asm that waits for its own result; the "memory" clobber keeps the
// compiler from moving loads and stores across a clock read.
#pragma once

#include <hip/hip_runtime.h>

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
