// kernsim's CUDA-on-AMD port: force-included (after __kernsim_hip_prelude.h) when a CUDA source
// (.cu) is compiled for an AMD part (gfx942, gfx950) as HIP (clang -x hip). CUDA code sees its
// device built-ins without including anything, so this header brings kernsim's HIP runtime
// header (threadIdx, __syncthreads, atomics, the wave functions, math) and the CUDA spellings
// that differ from HIP's. The headers next to it (cuda_runtime.h, cuda_fp16.h, cuda_bf16.h, ...)
// stand in for the CUDA toolkit's, which are never read on this path. docs/cuda_on_amd.md.
//
// What the port does not change: the wave is 64 lanes. warpSize is 64, __activemask() and
// __ballot_sync() return 64-bit masks, the *_sync functions take 64-bit masks, and a shuffle's
// default width is 64. Code that assumes 32 lanes keeps that assumption; kernsim's frontend names
// the places it finds (warnings warp32-*).
#pragma once

#include <hip/hip_runtime.h>

// nvcc defines __CUDACC__ for every CUDA translation unit and sources test it to pick their
// device code; __CUDA_ARCH__ is not defined (as under HIP): it names an NVIDIA architecture.
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __KERNSIM_CUDA_PORT__ 1

// ---------------------------------------------------------------------------- device functions

// __syncwarp(mask): the wave executes in lockstep; a workgroup-scope fence orders its memory
// accesses as CUDA's warp barrier does.
__KS_DEV void __syncwarp(unsigned long long) {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "wavefront");
}

// A lane mask narrower than 64 bits given to a *_sync function (a 32-bit literal, a variable, a
// kernel or function parameter, a struct member, a value read through a pointer, a mask built at
// run time such as (1u << n) - 1): these overloads take it, widen it as before, and clang's
// diagnose_if puts the warning below on the call's line; kernsim's frontend reads it from the
// compiler's output as `warp32-mask` (docs/cuda_on_amd.md). A signed constant -1 widens to every
// lane and is not warned.
#define __KS_MASK32_CHECK                                                                  \
  __attribute__((diagnose_if(!__is_signed(M) || !__builtin_constant_p(mask) || mask != -1, \
                             "kernsim-warp32-mask: a lane mask narrower than 64 bits", "warning")))
#define __KS_MASK32 template <class M, typename __ks_vec_if<(sizeof(M) < 8), int>::type = 0>
__KS_MASK32 __KS_DEV void __syncwarp(M mask) __KS_MASK32_CHECK {
  __syncwarp((unsigned long long)mask);
}
__KS_MASK32 __KS_DEV unsigned long long __ballot_sync(M mask, int p) __KS_MASK32_CHECK {
  return __ballot_sync((unsigned long long)mask, p);
}
__KS_MASK32 __KS_DEV int __any_sync(M mask, int p) __KS_MASK32_CHECK {
  return __any_sync((unsigned long long)mask, p);
}
__KS_MASK32 __KS_DEV int __all_sync(M mask, int p) __KS_MASK32_CHECK {
  return __all_sync((unsigned long long)mask, p);
}
#define __KS_SHFL_MASK32(name, Arg)                                                 \
  template <class M, class T, typename __ks_vec_if<(sizeof(M) < 8), int>::type = 0> \
  __KS_DEV T name(M mask, T v, Arg a, int width = warpSize) __KS_MASK32_CHECK {     \
    return name((unsigned long long)mask, v, a, width);                             \
  }
__KS_SHFL_MASK32(__shfl_sync, int)
__KS_SHFL_MASK32(__shfl_up_sync, unsigned int)
__KS_SHFL_MASK32(__shfl_down_sync, unsigned int)
__KS_SHFL_MASK32(__shfl_xor_sync, int)
#undef __KS_SHFL_MASK32
#undef __KS_MASK32
#undef __KS_MASK32_CHECK

// CUDA's __popc and __ffs take 32-bit words, and CUDA code hands them __ballot_sync's result to
// count or find voting lanes. Here a ballot is 64 bits (unsigned long long): an unsigned 64-bit
// argument is taken whole, so that every lane of the wave counts (other arguments keep the 32-bit
// functions of hip_runtime.h).
template <bool B>
struct __ks_enable_if {};
template <>
struct __ks_enable_if<true> {
  typedef int type;
};
template <class T, typename __ks_enable_if<(sizeof(T) == 8 && ((T)-1 > (T)0))>::type = 0>
__KS_DEV int __popc(T x) {
  return __builtin_popcountll(x);
}
template <class T, typename __ks_enable_if<(sizeof(T) == 8 && ((T)-1 > (T)0))>::type = 0>
__KS_DEV int __ffs(T x) {
  return x == 0 ? 0 : __builtin_ctzll(x) + 1;
}

// cache-hinted loads and stores: ordinary accesses on AMD hardware
template <class T>
__KS_DEV T __ldca(const T* p) {
  return *p;
}
template <class T>
__KS_DEV T __ldcg(const T* p) {
  return *p;
}
template <class T>
__KS_DEV T __ldcs(const T* p) {
  return *p;
}
template <class T>
__KS_DEV T __ldlu(const T* p) {
  return *p;
}
template <class T>
__KS_DEV T __ldcv(const T* p) {
  return *p;
}
template <class T>
__KS_DEV void __stwb(T* p, T v) {
  *p = v;
}
template <class T>
__KS_DEV void __stcg(T* p, T v) {
  *p = v;
}
template <class T>
__KS_DEV void __stcs(T* p, T v) {
  *p = v;
}
template <class T>
__KS_DEV void __stwt(T* p, T v) {
  *p = v;
}

// ---------------------------------------------------------------------------- runtime API spellings
// Host code only has to type-check (kernsim compiles the device side): CUDA's names are HIP's.

typedef hipError_t cudaError_t;
typedef hipError_t cudaError;
typedef hipMemcpyKind cudaMemcpyKind;
typedef hipStream_t cudaStream_t;
typedef hipEvent_t cudaEvent_t;
typedef hipDeviceProp_t cudaDeviceProp;
static constexpr hipError_t cudaSuccess = hipSuccess;
static constexpr hipError_t cudaErrorInvalidValue = hipErrorInvalidValue;
static constexpr hipError_t cudaErrorMemoryAllocation = hipErrorOutOfMemory;
static constexpr hipMemcpyKind cudaMemcpyHostToHost = hipMemcpyHostToHost;
static constexpr hipMemcpyKind cudaMemcpyHostToDevice = hipMemcpyHostToDevice;
static constexpr hipMemcpyKind cudaMemcpyDeviceToHost = hipMemcpyDeviceToHost;
static constexpr hipMemcpyKind cudaMemcpyDeviceToDevice = hipMemcpyDeviceToDevice;
static constexpr hipMemcpyKind cudaMemcpyDefault = hipMemcpyDefault;

#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaMallocManaged hipMallocManaged
#define cudaMallocHost hipHostMalloc
#define cudaFreeHost hipHostFree
#define cudaMemcpyToSymbol hipMemcpyToSymbol
#define cudaMemcpyFromSymbol hipMemcpyFromSymbol
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamCreate hipStreamCreate
#define cudaStreamDestroy hipStreamDestroy
#define cudaEventCreate hipEventCreate
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventDestroy hipEventDestroy
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetErrorString hipGetErrorString
#define cudaSetDevice hipSetDevice
#define cudaGetDevice hipGetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceReset hipDeviceReset
#define cudaLaunchKernel hipLaunchKernel
