// Clock and SM-id reads shared by the microbenchmark kernels (cuda/*.cu). Inline PTX, so the
// kernel files need no CUDA header; the "memory" clobber keeps the compiler from moving loads
// and stores across a clock read.
#pragma once

static __device__ __forceinline__ __attribute__((unused)) unsigned long long mb_clock64() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  return t;
}
static __device__ __forceinline__ __attribute__((unused)) unsigned long long mb_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
  return t;
}
static __device__ __forceinline__ __attribute__((unused)) unsigned mb_smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
