// kernsim's slim HIP runtime header for device compilation (clang -x hip -nogpuinc).
//
// kernsim compiles only the device side of a HIP translation unit, for gfx942 (MI300X) and
// gfx950 (MI355X), both wave64. This header gives device code what <hip/hip_runtime.h> gives it
// under ROCm — the function qualifiers, threadIdx/blockIdx/blockDim/gridDim, __syncthreads,
// atomics, wave-level functions with 64-bit masks, the math library, vector types — written on
// clang's AMDGPU builtins and the ROCm device library (ocml/ockl) entry points that kernsim links.
// Host code of a whole translation unit (main, hipMalloc, <<<>>> launches) only has to type-check:
// the host API is declared here and never defined.
//
// gridDim and blockDim read the code-object-v5 hidden kernel arguments (kernsim compiles with
// -mcode-object-version=5): hidden_block_count_{x,y,z} are the first three dwords of the implicit
// argument block, hidden_group_size_{x,y,z} the 16-bit fields at byte 12.
#pragma once

#if !defined(__HIP__)
#error "kernsim's hip_runtime.h is for HIP device compilation (clang -x hip)"
#endif

#include <stddef.h>
#include <stdint.h>

// ---------------------------------------------------------------------------- qualifiers

#include "__kernsim_hip_prelude.h"  // __global__, __device__, __host__, __shared__, ... (also force-included)
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds_1__(t) __attribute__((amdgpu_flat_work_group_size(1, t)))
#define __launch_bounds_2__(t, m) __attribute__((amdgpu_flat_work_group_size(1, t)))
#define __ks_lb_pick(_1, _2, name, ...) name
#define __launch_bounds__(...) __ks_lb_pick(__VA_ARGS__, __launch_bounds_2__, __launch_bounds_1__, )(__VA_ARGS__)
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_KERNEL_NAME(...) __VA_ARGS__

#ifndef __HIP_MEMORY_SCOPE_WAVEFRONT
#define __HIP_MEMORY_SCOPE_SINGLETHREAD 1
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif

#define __KS_DEV static __device__ inline __attribute__((always_inline))
#define __KS_HD static __host__ __device__ inline __attribute__((always_inline))

static constexpr int warpSize = 64;

#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif  // gfx942 and gfx950 run HIP kernels as wave64

// ---------------------------------------------------------------------------- vector types
//
// float2, int4, ... are classes, as ROCm's HIP documents them (HIP_vector_type<T, N>): components
// x, y, z, w; for N = 1, 2, 4 a union member `data` of the native clang vector type
// (HIP_vector_type<T, N>::Native_vec_); constructors from N components (`int4(a, b, c, d)`, also
// as a braced list `{a, b}`, each converted to T), a broadcasting explicit constructor from one
// scalar, and from a Native_vec_; component-wise arithmetic, bitwise and compound operators, with
// a scalar on either side. Trivially copyable with a trivial default constructor, so that they
// can be __shared__ arrays, bit_cast and reinterpret_cast like CUDA's structs. The three-component
// types have no `data` (12 bytes for float3, as in CUDA and HIP). MFMA builtins take clang's
// vector types: pass `v.data`.

template <bool B, class T = void>
struct __ks_vec_if {};
template <class T>
struct __ks_vec_if<true, T> {
  typedef T type;
};

template <class T, unsigned N>
struct __ks_vec_base;
template <class T>
struct __ks_vec_base<T, 1> {
  typedef T Native_vec_ __attribute__((ext_vector_type(1)));
  union {
    Native_vec_ data;
    struct {
      T x;
    };
  };
};
template <class T>
struct __ks_vec_base<T, 2> {
  typedef T Native_vec_ __attribute__((ext_vector_type(2)));
  union {
    Native_vec_ data;
    struct {
      T x, y;
    };
  };
};
template <class T>
struct __ks_vec_base<T, 3> {
  T x, y, z;
};
template <class T>
struct __ks_vec_base<T, 4> {
  typedef T Native_vec_ __attribute__((ext_vector_type(4)));
  union {
    Native_vec_ data;
    struct {
      T x, y, z, w;
    };
  };
};

template <class T, unsigned N>
struct HIP_vector_type : __ks_vec_base<T, N> {
  typedef T value_type;
  HIP_vector_type() = default;
  template <class... U, typename __ks_vec_if<(sizeof...(U) == N && N > 1), int>::type = 0>
  __host__ __device__ constexpr HIP_vector_type(U... u) : __ks_vec_base<T, N>{} {
    const T c[N] = {static_cast<T>(u)...};
    for (unsigned i = 0; i < N; ++i) (*this)[i] = c[i];
  }
  template <class U, typename __ks_vec_if<(N > 1 && !__is_class(U)), int>::type = 0>
  __host__ __device__ constexpr explicit HIP_vector_type(U u) : __ks_vec_base<T, N>{} {
    for (unsigned i = 0; i < N; ++i) (*this)[i] = static_cast<T>(u);
  }
  template <class U, typename __ks_vec_if<(N == 1 && !__is_class(U)), int>::type = 0>
  __host__ __device__ constexpr HIP_vector_type(U u) : __ks_vec_base<T, N>{} {
    (*this)[0] = static_cast<T>(u);
  }
  template <unsigned M = N, typename __ks_vec_if<(M != 3), int>::type = 0>
  __host__ __device__ constexpr HIP_vector_type(typename __ks_vec_base<T, M>::Native_vec_ v) : __ks_vec_base<T, N>{} {
    this->data = v;
  }
  __host__ __device__ constexpr T& operator[](unsigned i) { return (&this->x)[i]; }
  __host__ __device__ constexpr const T& operator[](unsigned i) const { return (&this->x)[i]; }
};

#define __KS_VEC_OP(op)                                                                                    \
  template <class T, unsigned N>                                                                          \
  __host__ __device__ inline HIP_vector_type<T, N>& operator op##=(HIP_vector_type<T, N>& a,              \
                                                                   const HIP_vector_type<T, N>& b) {      \
    for (unsigned i = 0; i < N; ++i) a[i] op## = b[i];                                                    \
    return a;                                                                                             \
  }                                                                                                       \
  template <class T, unsigned N, class U, typename __ks_vec_if<!__is_class(U), int>::type = 0>         \
  __host__ __device__ inline HIP_vector_type<T, N>& operator op##=(HIP_vector_type<T, N>& a, U b) {       \
    for (unsigned i = 0; i < N; ++i) a[i] op## = static_cast<T>(b);                                       \
    return a;                                                                                             \
  }                                                                                                       \
  template <class T, unsigned N>                                                                          \
  __host__ __device__ inline HIP_vector_type<T, N> operator op(HIP_vector_type<T, N> a,                   \
                                                               const HIP_vector_type<T, N>& b) {          \
    return a op## = b;                                                                                    \
  }                                                                                                       \
  template <class T, unsigned N, class U, typename __ks_vec_if<!__is_class(U), int>::type = 0>         \
  __host__ __device__ inline HIP_vector_type<T, N> operator op(HIP_vector_type<T, N> a, U b) {            \
    return a op## = b;                                                                                    \
  }                                                                                                       \
  template <class T, unsigned N, class U, typename __ks_vec_if<!__is_class(U), int>::type = 0>         \
  __host__ __device__ inline HIP_vector_type<T, N> operator op(U a, const HIP_vector_type<T, N>& b) {     \
    HIP_vector_type<T, N> r(a);                                                                           \
    return r op## = b;                                                                                    \
  }
__KS_VEC_OP(+)
__KS_VEC_OP(-)
__KS_VEC_OP(*)
__KS_VEC_OP(/)
__KS_VEC_OP(%)
__KS_VEC_OP(&)
__KS_VEC_OP(|)
__KS_VEC_OP(^)
__KS_VEC_OP(<<)
__KS_VEC_OP(>>)
#undef __KS_VEC_OP
template <class T, unsigned N>
__host__ __device__ inline HIP_vector_type<T, N> operator-(HIP_vector_type<T, N> a) {
  for (unsigned i = 0; i < N; ++i) a[i] = -a[i];
  return a;
}
template <class T, unsigned N>
__host__ __device__ inline HIP_vector_type<T, N> operator+(HIP_vector_type<T, N> a) {
  return a;
}
template <class T, unsigned N>
__host__ __device__ inline HIP_vector_type<T, N> operator~(HIP_vector_type<T, N> a) {
  for (unsigned i = 0; i < N; ++i) a[i] = ~a[i];
  return a;
}
template <class T, unsigned N>
__host__ __device__ inline bool operator==(const HIP_vector_type<T, N>& a, const HIP_vector_type<T, N>& b) {
  for (unsigned i = 0; i < N; ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}
template <class T, unsigned N>
__host__ __device__ inline bool operator!=(const HIP_vector_type<T, N>& a, const HIP_vector_type<T, N>& b) {
  return !(a == b);
}

#define __KS_VEC(T, name)                                                                        \
  typedef HIP_vector_type<T, 1> name##1;                                                         \
  typedef HIP_vector_type<T, 2> name##2;                                                         \
  typedef HIP_vector_type<T, 3> name##3;                                                         \
  typedef HIP_vector_type<T, 4> name##4;                                                         \
  __KS_HD name##1 make_##name##1(T a) { return name##1(a); }                                     \
  __KS_HD name##2 make_##name##2(T a, T b) { return name##2(a, b); }                             \
  __KS_HD name##3 make_##name##3(T a, T b, T c) { return name##3(a, b, c); }                     \
  __KS_HD name##4 make_##name##4(T a, T b, T c, T d) { return name##4(a, b, c, d); }

__KS_VEC(float, float)
__KS_VEC(double, double)
__KS_VEC(int, int)
__KS_VEC(unsigned int, uint)
__KS_VEC(short, short)
__KS_VEC(unsigned short, ushort)
__KS_VEC(signed char, char)
__KS_VEC(unsigned char, uchar)
__KS_VEC(long, long)
__KS_VEC(unsigned long, ulong)
__KS_VEC(long long, longlong)
__KS_VEC(unsigned long long, ulonglong)
#undef __KS_VEC

struct dim3 {
  unsigned int x, y, z;
  constexpr __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

// ---------------------------------------------------------------------------- built-in variables

#define __KS_IMPLICIT_U32(off) (((const __attribute__((address_space(4))) unsigned int*)__builtin_amdgcn_implicitarg_ptr())[(off)])

#define __KS_COORD(type, fx, fy, fz)                                        \
  struct type {                                                             \
    __declspec(property(get = __get_x)) unsigned int x;                     \
    __declspec(property(get = __get_y)) unsigned int y;                     \
    __declspec(property(get = __get_z)) unsigned int z;                     \
    static __device__ __forceinline__ unsigned int __get_x() { return fx; } \
    static __device__ __forceinline__ unsigned int __get_y() { return fy; } \
    static __device__ __forceinline__ unsigned int __get_z() { return fz; } \
    __device__ operator dim3() const { return dim3(fx, fy, fz); }          \
    type() = delete;                                                        \
    type(const type&) = delete;                                             \
  };

__KS_COORD(__ks_threadIdx_t, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
           __builtin_amdgcn_workitem_id_z())
__KS_COORD(__ks_blockIdx_t, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
           __builtin_amdgcn_workgroup_id_z())
__KS_COORD(__ks_blockDim_t, __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
           __builtin_amdgcn_workgroup_size_z())
__KS_COORD(__ks_gridDim_t, __KS_IMPLICIT_U32(0), __KS_IMPLICIT_U32(1), __KS_IMPLICIT_U32(2))
#undef __KS_COORD

extern const __device__ __attribute__((weak)) __ks_threadIdx_t threadIdx;
extern const __device__ __attribute__((weak)) __ks_blockIdx_t blockIdx;
extern const __device__ __attribute__((weak)) __ks_blockDim_t blockDim;
extern const __device__ __attribute__((weak)) __ks_gridDim_t gridDim;

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

// ---------------------------------------------------------------------------- synchronisation

__KS_DEV void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__KS_DEV void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__KS_DEV void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__KS_DEV void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }
__KS_DEV void __syncwarp() {}

// assert() in device code traps (s_trap), which kernsim reports as a fault of the kernel.
extern "C" __device__ __attribute__((noreturn, weak)) void __assert_fail(const char*, const char*, unsigned int, const char*) {
  __builtin_trap();
}

// ---------------------------------------------------------------------------- atomics (device scope)

#define __KS_ATOM2(name, builtin, T)                                             \
  __KS_DEV T name(T* p, T v) { return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); } \
  __KS_DEV T name##_system(T* p, T v) { return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM); } \
  __KS_DEV T name##_block(T* p, T v) { return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP); }

#define __KS_ATOM_INT(T)                                   \
  __KS_ATOM2(atomicAdd, __hip_atomic_fetch_add, T)         \
  __KS_ATOM2(atomicSub, __hip_atomic_fetch_sub, T)         \
  __KS_ATOM2(atomicMin, __hip_atomic_fetch_min, T)         \
  __KS_ATOM2(atomicMax, __hip_atomic_fetch_max, T)         \
  __KS_ATOM2(atomicAnd, __hip_atomic_fetch_and, T)         \
  __KS_ATOM2(atomicOr, __hip_atomic_fetch_or, T)           \
  __KS_ATOM2(atomicXor, __hip_atomic_fetch_xor, T)         \
  __KS_ATOM2(atomicExch, __hip_atomic_exchange, T)         \
  __KS_DEV T atomicCAS(T* p, T cmp, T v) {                 \
    __hip_atomic_compare_exchange_strong(p, &cmp, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); \
    return cmp;                                            \
  }

__KS_ATOM_INT(int)
__KS_ATOM_INT(unsigned int)
__KS_ATOM_INT(unsigned long long)
__KS_ATOM_INT(long long)
__KS_ATOM2(atomicAdd, __hip_atomic_fetch_add, float)
__KS_ATOM2(atomicAdd, __hip_atomic_fetch_add, double)
__KS_ATOM2(atomicSub, __hip_atomic_fetch_sub, float)
__KS_ATOM2(atomicMin, __hip_atomic_fetch_min, float)
__KS_ATOM2(atomicMax, __hip_atomic_fetch_max, float)
__KS_ATOM2(atomicExch, __hip_atomic_exchange, float)
__KS_ATOM2(atomicExch, __hip_atomic_exchange, double)
#undef __KS_ATOM_INT
#undef __KS_ATOM2

// atomicInc: ((old >= v) ? 0 : old + 1); atomicDec: ((old == 0 || old > v) ? v : old - 1)
__KS_DEV unsigned int atomicInc(unsigned int* p, unsigned int v) { return __builtin_amdgcn_atomic_inc32(p, v, __ATOMIC_RELAXED, "agent"); }
__KS_DEV unsigned int atomicDec(unsigned int* p, unsigned int v) { return __builtin_amdgcn_atomic_dec32(p, v, __ATOMIC_RELAXED, "agent"); }

// ---------------------------------------------------------------------------- integer intrinsics

__KS_DEV int __popc(unsigned int x) { return __builtin_popcount(x); }
__KS_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__KS_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
__KS_DEV int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__KS_DEV int __ffs(int x) { return x == 0 ? 0 : __builtin_ctz((unsigned int)x) + 1; }
__KS_DEV int __ffs(unsigned int x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
__KS_DEV int __ffsll(long long x) { return x == 0 ? 0 : __builtin_ctzll((unsigned long long)x) + 1; }
__KS_DEV int __ffsll(unsigned long long x) { return x == 0 ? 0 : __builtin_ctzll(x) + 1; }
__KS_DEV unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__KS_DEV unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__KS_DEV unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a * b) >> 32); }
__KS_DEV int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__KS_DEV unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
__KS_DEV long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
__KS_DEV int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
__KS_DEV unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
__KS_DEV unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned int r = 0;
  for (int k = 0; k < 4; ++k) r |= (unsigned int)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
__KS_DEV unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) << (s & 31) >> 32);
}
__KS_DEV unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) << (s > 32 ? 32 : s) >> 32);
}
__KS_DEV unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}
__KS_DEV unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> (s > 32 ? 32 : s));
}
__KS_DEV unsigned int __sad(int a, int b, unsigned int c) { return c + (unsigned int)(a > b ? a - b : b - a); }
__KS_DEV unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }

#define __KS_MINMAX(T)                                 \
  __KS_DEV T min(T a, T b) { return a < b ? a : b; }   \
  __KS_DEV T max(T a, T b) { return a > b ? a : b; }
__KS_MINMAX(int)
__KS_MINMAX(unsigned int)
__KS_MINMAX(long long)
__KS_MINMAX(unsigned long long)
__KS_MINMAX(long)
__KS_MINMAX(unsigned long)
#undef __KS_MINMAX
__KS_DEV float min(float a, float b) { return __builtin_fminf(a, b); }
__KS_DEV float max(float a, float b) { return __builtin_fmaxf(a, b); }
__KS_DEV double min(double a, double b) { return __builtin_fmin(a, b); }
__KS_DEV double max(double a, double b) { return __builtin_fmax(a, b); }
__KS_DEV unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__KS_DEV unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------- wave-level functions

__KS_DEV unsigned int __lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
__KS_DEV unsigned long long __ballot(int p) { return __builtin_amdgcn_ballot_w64(p != 0); }
__KS_DEV unsigned long long __ballot64(int p) { return __builtin_amdgcn_ballot_w64(p != 0); }
__KS_DEV unsigned long long __activemask() { return __builtin_amdgcn_ballot_w64(1); }
__KS_DEV int __any(int p) { return __builtin_amdgcn_ballot_w64(p != 0) != 0; }
__KS_DEV int __all(int p) { return __builtin_amdgcn_ballot_w64(p != 0) == __builtin_amdgcn_ballot_w64(1); }
__KS_DEV unsigned long long __ballot_sync(unsigned long long mask, int p) { return __ballot(p) & mask; }
__KS_DEV int __any_sync(unsigned long long mask, int p) { return (__ballot(p) & mask) != 0; }
__KS_DEV int __all_sync(unsigned long long mask, int p) { return (__ballot(p) & mask) == (mask & __activemask()); }

// Lane index arithmetic of the shuffles (width a power of two <= 64, as in CUDA and HIP):
// a lane reads from a lane of its own width-sized segment, or keeps its own value.
__KS_DEV int __ks_shfl_idx(int src, int width) {
  int self = (int)__lane_id();
  return (self & ~(width - 1)) + (src & (width - 1));
}
__KS_DEV int __ks_shfl_up_idx(unsigned int delta, int width) {
  int self = (int)__lane_id();
  int j = (self & (width - 1)) - (int)delta;
  return j < 0 ? self : self - (int)delta;
}
__KS_DEV int __ks_shfl_down_idx(unsigned int delta, int width) {
  int self = (int)__lane_id();
  int j = (self & (width - 1)) + (int)delta;
  return j >= width ? self : self + (int)delta;
}
__KS_DEV int __ks_shfl_xor_idx(int mask, int width) {
  int self = (int)__lane_id();
  int j = self ^ mask;
  return (j & ~(width - 1)) != (self & ~(width - 1)) ? self : j;
}
__KS_DEV int __ks_bperm(int lane, int v) { return __builtin_amdgcn_ds_bpermute(lane << 2, v); }

#define __KS_SHFL_32(T)                                                                                         \
  __KS_DEV T __shfl(T v, int src, int width = warpSize) {                                                       \
    return __builtin_bit_cast(T, __ks_bperm(__ks_shfl_idx(src, width), __builtin_bit_cast(int, v)));            \
  }                                                                                                              \
  __KS_DEV T __shfl_up(T v, unsigned int d, int width = warpSize) {                                             \
    return __builtin_bit_cast(T, __ks_bperm(__ks_shfl_up_idx(d, width), __builtin_bit_cast(int, v)));           \
  }                                                                                                              \
  __KS_DEV T __shfl_down(T v, unsigned int d, int width = warpSize) {                                           \
    return __builtin_bit_cast(T, __ks_bperm(__ks_shfl_down_idx(d, width), __builtin_bit_cast(int, v)));         \
  }                                                                                                              \
  __KS_DEV T __shfl_xor(T v, int m, int width = warpSize) {                                                     \
    return __builtin_bit_cast(T, __ks_bperm(__ks_shfl_xor_idx(m, width), __builtin_bit_cast(int, v)));          \
  }
#define __KS_SHFL_64(T)                                                                                         \
  __KS_DEV T __ks_bperm64(int lane, T v) {                                                                      \
    int2 p = __builtin_bit_cast(int2, v);                                                                       \
    p.x = __ks_bperm(lane, p.x);                                                                                \
    p.y = __ks_bperm(lane, p.y);                                                                                \
    return __builtin_bit_cast(T, p);                                                                            \
  }                                                                                                              \
  __KS_DEV T __shfl(T v, int src, int width = warpSize) { return __ks_bperm64(__ks_shfl_idx(src, width), v); }  \
  __KS_DEV T __shfl_up(T v, unsigned int d, int width = warpSize) { return __ks_bperm64(__ks_shfl_up_idx(d, width), v); } \
  __KS_DEV T __shfl_down(T v, unsigned int d, int width = warpSize) { return __ks_bperm64(__ks_shfl_down_idx(d, width), v); } \
  __KS_DEV T __shfl_xor(T v, int m, int width = warpSize) { return __ks_bperm64(__ks_shfl_xor_idx(m, width), v); }
__KS_SHFL_32(int)
__KS_SHFL_32(unsigned int)
__KS_SHFL_32(float)
__KS_SHFL_64(double)
__KS_SHFL_64(long long)
__KS_SHFL_64(unsigned long long)
__KS_SHFL_64(long)
__KS_SHFL_64(unsigned long)
#undef __KS_SHFL_32
#undef __KS_SHFL_64

// The *_sync forms take a 64-bit lane mask; every lane named in it must take part (as in CUDA),
// which on AMD hardware is the case when the whole wave executes the call.
template <class T> __KS_DEV T __shfl_sync(unsigned long long, T v, int src, int width = warpSize) { return __shfl(v, src, width); }
template <class T> __KS_DEV T __shfl_up_sync(unsigned long long, T v, unsigned int d, int width = warpSize) { return __shfl_up(v, d, width); }
template <class T> __KS_DEV T __shfl_down_sync(unsigned long long, T v, unsigned int d, int width = warpSize) { return __shfl_down(v, d, width); }
template <class T> __KS_DEV T __shfl_xor_sync(unsigned long long, T v, int m, int width = warpSize) { return __shfl_xor(v, m, width); }

// ---------------------------------------------------------------------------- math library

#define __KS_OCML1(f) extern "C" __device__ float __ocml_##f##_f32(float); extern "C" __device__ double __ocml_##f##_f64(double);
#define __KS_OCML2(f) extern "C" __device__ float __ocml_##f##_f32(float, float); extern "C" __device__ double __ocml_##f##_f64(double, double);
__KS_OCML1(exp) __KS_OCML1(exp2) __KS_OCML1(exp10) __KS_OCML1(expm1) __KS_OCML1(log) __KS_OCML1(log2) __KS_OCML1(log10)
__KS_OCML1(log1p) __KS_OCML1(sin) __KS_OCML1(cos) __KS_OCML1(tan) __KS_OCML1(asin) __KS_OCML1(acos) __KS_OCML1(atan)
__KS_OCML1(sinh) __KS_OCML1(cosh) __KS_OCML1(tanh) __KS_OCML1(asinh) __KS_OCML1(acosh) __KS_OCML1(atanh) __KS_OCML1(erf)
__KS_OCML1(erfc) __KS_OCML1(erfinv) __KS_OCML1(cbrt) __KS_OCML1(rsqrt) __KS_OCML1(sqrt) __KS_OCML1(lgamma) __KS_OCML1(tgamma)
__KS_OCML1(sinpi) __KS_OCML1(cospi) __KS_OCML1(rcbrt)
__KS_OCML2(atan2) __KS_OCML2(pow) __KS_OCML2(fmod) __KS_OCML2(hypot) __KS_OCML2(remainder) __KS_OCML2(fdim)
#undef __KS_OCML1
#undef __KS_OCML2
extern "C" __device__ float __ocml_native_exp_f32(float);
extern "C" __device__ float __ocml_native_log_f32(float);
extern "C" __device__ float __ocml_native_sin_f32(float);
extern "C" __device__ float __ocml_native_cos_f32(float);
extern "C" __device__ float __ocml_sincos_f32(float, __attribute__((address_space(5))) float*);
extern "C" __device__ double __ocml_sincos_f64(double, __attribute__((address_space(5))) double*);

#define __KS_M1(name, fname, impl_f, impl_d)                  \
  __KS_DEV float fname(float x) { return impl_f(x); }         \
  __KS_DEV float name(float x) { return impl_f(x); }          \
  __KS_DEV double name(double x) { return impl_d(x); }
#define __KS_M2(name, fname, impl_f, impl_d)                            \
  __KS_DEV float fname(float x, float y) { return impl_f(x, y); }       \
  __KS_DEV float name(float x, float y) { return impl_f(x, y); }        \
  __KS_DEV double name(double x, double y) { return impl_d(x, y); }
#define __KS_OC1(name) __KS_M1(name, name##f, __ocml_##name##_f32, __ocml_##name##_f64)
#define __KS_OC2(name) __KS_M2(name, name##f, __ocml_##name##_f32, __ocml_##name##_f64)
__KS_OC1(exp) __KS_OC1(exp2) __KS_OC1(exp10) __KS_OC1(expm1) __KS_OC1(log) __KS_OC1(log2) __KS_OC1(log10) __KS_OC1(log1p)
__KS_OC1(sin) __KS_OC1(cos) __KS_OC1(tan) __KS_OC1(asin) __KS_OC1(acos) __KS_OC1(atan) __KS_OC1(sinh) __KS_OC1(cosh)
__KS_OC1(tanh) __KS_OC1(asinh) __KS_OC1(acosh) __KS_OC1(atanh) __KS_OC1(erf) __KS_OC1(erfc) __KS_OC1(erfinv) __KS_OC1(cbrt)
__KS_OC1(rsqrt) __KS_OC1(lgamma) __KS_OC1(tgamma) __KS_OC1(sinpi) __KS_OC1(cospi) __KS_OC1(rcbrt)
__KS_OC2(atan2) __KS_OC2(pow) __KS_OC2(fmod) __KS_OC2(hypot) __KS_OC2(remainder) __KS_OC2(fdim)
__KS_M1(sqrt, sqrtf, __builtin_sqrtf, __builtin_sqrt)
__KS_M1(fabs, fabsf, __builtin_fabsf, __builtin_fabs)
__KS_M1(floor, floorf, __builtin_floorf, __builtin_floor)
__KS_M1(ceil, ceilf, __builtin_ceilf, __builtin_ceil)
__KS_M1(trunc, truncf, __builtin_truncf, __builtin_trunc)
__KS_M1(round, roundf, __builtin_roundf, __builtin_round)
__KS_M1(rint, rintf, __builtin_rintf, __builtin_rint)
__KS_M1(nearbyint, nearbyintf, __builtin_nearbyintf, __builtin_nearbyint)
__KS_M2(fmin, fminf, __builtin_fminf, __builtin_fmin)
__KS_M2(fmax, fmaxf, __builtin_fmaxf, __builtin_fmax)
__KS_M2(copysign, copysignf, __builtin_copysignf, __builtin_copysign)
#undef __KS_OC1
#undef __KS_OC2
#undef __KS_M1
#undef __KS_M2
__KS_DEV float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__KS_DEV float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__KS_DEV double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
__KS_DEV float ldexpf(float x, int e) { return __builtin_ldexpf(x, e); }
__KS_DEV double ldexp(double x, int e) { return __builtin_ldexp(x, e); }
__KS_DEV float powif(float x, int e) { return __builtin_powif(x, e); }
__KS_DEV void sincosf(float x, float* s, float* c) {
  float cv;
  *s = __ocml_sincos_f32(x, (__attribute__((address_space(5))) float*)&cv);
  *c = cv;
}
__KS_DEV void sincos(double x, double* s, double* c) {
  double cv;
  *s = __ocml_sincos_f64(x, (__attribute__((address_space(5))) double*)&cv);
  *c = cv;
}
__KS_DEV int abs(int x) { return x < 0 ? -x : x; }
__KS_DEV long long llabs(long long x) { return x < 0 ? -x : x; }
__KS_DEV bool isnan(float x) { return __builtin_isnan(x); }
__KS_DEV bool isnan(double x) { return __builtin_isnan(x); }
__KS_DEV bool isinf(float x) { return __builtin_isinf(x); }
__KS_DEV bool isinf(double x) { return __builtin_isinf(x); }
__KS_DEV bool isfinite(float x) { return __builtin_isfinite(x); }
__KS_DEV bool isfinite(double x) { return __builtin_isfinite(x); }
__KS_DEV bool signbit(float x) { return __builtin_signbit(x); }
__KS_DEV bool signbit(double x) { return __builtin_signbit(x); }

// Fast intrinsics: the hardware's approximate instructions (v_exp_f32, v_log_f32, v_rcp_f32, ...).
__KS_DEV float __expf(float x) { return __builtin_amdgcn_exp2f(x * 1.44269504088896340736f); }
__KS_DEV float __exp10f(float x) { return __builtin_amdgcn_exp2f(x * 3.32192809488736234787f); }
__KS_DEV float __logf(float x) { return __builtin_amdgcn_logf(x) * 0.69314718055994530942f; }
__KS_DEV float __log2f(float x) { return __builtin_amdgcn_logf(x); }
__KS_DEV float __log10f(float x) { return __builtin_amdgcn_logf(x) * 0.30102999566398119521f; }
__KS_DEV float __sinf(float x) { return __ocml_native_sin_f32(x); }
__KS_DEV float __cosf(float x) { return __ocml_native_cos_f32(x); }
__KS_DEV float __tanf(float x) { return __ocml_native_sin_f32(x) * __builtin_amdgcn_rcpf(__ocml_native_cos_f32(x)); }
__KS_DEV float __powf(float x, float y) { return __builtin_amdgcn_exp2f(y * __builtin_amdgcn_logf(x)); }
__KS_DEV float __fdividef(float x, float y) { return x * __builtin_amdgcn_rcpf(y); }
__KS_DEV float __frcp_rn(float x) { return 1.0f / x; }
__KS_DEV float __fsqrt_rn(float x) { return __builtin_sqrtf(x); }
__KS_DEV float __frsqrt_rn(float x) { return __builtin_amdgcn_rsqf(x); }
__KS_DEV float __saturatef(float x) { return __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f); }
__KS_DEV float __fadd_rn(float a, float b) { return a + b; }
__KS_DEV float __fmul_rn(float a, float b) { return a * b; }
__KS_DEV float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__KS_DEV double __dadd_rn(double a, double b) { return a + b; }
__KS_DEV double __dmul_rn(double a, double b) { return a * b; }
__KS_DEV double __fma_rn(double a, double b, double c) { return __builtin_fma(a, b, c); }
__KS_DEV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__KS_DEV unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__KS_DEV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__KS_DEV float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__KS_DEV long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__KS_DEV double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__KS_DEV int __float2int_rn(float x) { return (int)__builtin_rintf(x); }
__KS_DEV int __float2int_rz(float x) { return (int)x; }
__KS_DEV int __float2int_rd(float x) { return (int)__builtin_floorf(x); }
__KS_DEV int __float2int_ru(float x) { return (int)__builtin_ceilf(x); }
__KS_DEV float __int2float_rn(int x) { return (float)x; }

// More of the math library (ocml entry points), conversions and CUDA-compatible helpers.
#define __KS_OCML1(f) extern "C" __device__ float __ocml_##f##_f32(float); extern "C" __device__ double __ocml_##f##_f64(double);
__KS_OCML1(ncdf) __KS_OCML1(ncdfinv) __KS_OCML1(erfcinv) __KS_OCML1(erfcx) __KS_OCML1(logb) __KS_OCML1(tanpi) __KS_OCML1(j0)
__KS_OCML1(j1) __KS_OCML1(y0) __KS_OCML1(y1)
#undef __KS_OCML1
extern "C" __device__ int __ocml_ilogb_f32(float);
extern "C" __device__ int __ocml_ilogb_f64(double);
extern "C" __device__ float __ocml_frexp_f32(float, __attribute__((address_space(5))) int*);
extern "C" __device__ double __ocml_frexp_f64(double, __attribute__((address_space(5))) int*);
extern "C" __device__ float __ocml_modf_f32(float, __attribute__((address_space(5))) float*);
extern "C" __device__ double __ocml_modf_f64(double, __attribute__((address_space(5))) double*);
extern "C" __device__ float __ocml_sincospi_f32(float, __attribute__((address_space(5))) float*);
extern "C" __device__ double __ocml_sincospi_f64(double, __attribute__((address_space(5))) double*);
extern "C" __device__ float __ocml_nextafter_f32(float, float);
extern "C" __device__ double __ocml_nextafter_f64(double, double);
extern "C" __device__ float __ocml_rhypot_f32(float, float);
extern "C" __device__ double __ocml_rhypot_f64(double, double);
extern "C" __device__ float __ocml_len3_f32(float, float, float);
extern "C" __device__ double __ocml_len3_f64(double, double, double);
extern "C" __device__ float __ocml_rlen3_f32(float, float, float);
extern "C" __device__ double __ocml_rlen3_f64(double, double, double);
extern "C" __device__ float __ocml_len4_f32(float, float, float, float);
extern "C" __device__ double __ocml_len4_f64(double, double, double, double);
extern "C" __device__ float __ocml_rlen4_f32(float, float, float, float);
extern "C" __device__ double __ocml_rlen4_f64(double, double, double, double);
extern "C" __device__ float __ocml_scalbn_f32(float, int);
extern "C" __device__ double __ocml_scalbn_f64(double, int);

#define __KS_F1(name, fname, impl)                                   \
  __KS_DEV float fname(float x) { return impl##_f32(x); }            \
  __KS_DEV double name(double x) { return impl##_f64(x); }
__KS_F1(normcdf, normcdff, __ocml_ncdf) __KS_F1(normcdfinv, normcdfinvf, __ocml_ncdfinv) __KS_F1(erfcinv, erfcinvf, __ocml_erfcinv)
__KS_F1(erfcx, erfcxf, __ocml_erfcx) __KS_F1(logb, logbf, __ocml_logb) __KS_F1(tanpi, tanpif, __ocml_tanpi) __KS_F1(j0, j0f, __ocml_j0)
__KS_F1(j1, j1f, __ocml_j1) __KS_F1(y0, y0f, __ocml_y0) __KS_F1(y1, y1f, __ocml_y1)
#undef __KS_F1
__KS_DEV int ilogbf(float x) { return __ocml_ilogb_f32(x); }
__KS_DEV int ilogb(double x) { return __ocml_ilogb_f64(x); }
__KS_DEV float frexpf(float x, int* e) {
  int t;
  float r = __ocml_frexp_f32(x, (__attribute__((address_space(5))) int*)&t);
  *e = t;
  return r;
}
__KS_DEV double frexp(double x, int* e) {
  int t;
  double r = __ocml_frexp_f64(x, (__attribute__((address_space(5))) int*)&t);
  *e = t;
  return r;
}
__KS_DEV float modff(float x, float* ip) {
  float t;
  float r = __ocml_modf_f32(x, (__attribute__((address_space(5))) float*)&t);
  *ip = t;
  return r;
}
__KS_DEV double modf(double x, double* ip) {
  double t;
  double r = __ocml_modf_f64(x, (__attribute__((address_space(5))) double*)&t);
  *ip = t;
  return r;
}
__KS_DEV void sincospif(float x, float* s, float* c) {
  float cv;
  *s = __ocml_sincospi_f32(x, (__attribute__((address_space(5))) float*)&cv);
  *c = cv;
}
__KS_DEV void sincospi(double x, double* s, double* c) {
  double cv;
  *s = __ocml_sincospi_f64(x, (__attribute__((address_space(5))) double*)&cv);
  *c = cv;
}
__KS_DEV float nextafterf(float x, float y) { return __ocml_nextafter_f32(x, y); }
__KS_DEV double nextafter(double x, double y) { return __ocml_nextafter_f64(x, y); }
__KS_DEV float rhypotf(float x, float y) { return __ocml_rhypot_f32(x, y); }
__KS_DEV double rhypot(double x, double y) { return __ocml_rhypot_f64(x, y); }
__KS_DEV float norm3df(float a, float b, float c) { return __ocml_len3_f32(a, b, c); }
__KS_DEV double norm3d(double a, double b, double c) { return __ocml_len3_f64(a, b, c); }
__KS_DEV float rnorm3df(float a, float b, float c) { return __ocml_rlen3_f32(a, b, c); }
__KS_DEV double rnorm3d(double a, double b, double c) { return __ocml_rlen3_f64(a, b, c); }
__KS_DEV float norm4df(float a, float b, float c, float d) { return __ocml_len4_f32(a, b, c, d); }
__KS_DEV double norm4d(double a, double b, double c, double d) { return __ocml_len4_f64(a, b, c, d); }
__KS_DEV float rnorm4df(float a, float b, float c, float d) { return __ocml_rlen4_f32(a, b, c, d); }
__KS_DEV double rnorm4d(double a, double b, double c, double d) { return __ocml_rlen4_f64(a, b, c, d); }
__KS_DEV float scalbnf(float x, int n) { return __ocml_scalbn_f32(x, n); }
__KS_DEV double scalbn(double x, int n) { return __ocml_scalbn_f64(x, n); }
__KS_DEV float fdividef(float x, float y) { return x / y; }

// conversions (round to nearest even unless the name says otherwise; the rounding-mode variants
// that need another float mode (_rd/_ru of arithmetic) are left out and fail to compile by name)
__KS_DEV unsigned int __float2uint_rn(float x) { return (unsigned int)__builtin_rintf(x); }
__KS_DEV unsigned int __float2uint_rz(float x) { return (unsigned int)x; }
__KS_DEV unsigned int __float2uint_rd(float x) { return (unsigned int)__builtin_floorf(x); }
__KS_DEV unsigned int __float2uint_ru(float x) { return (unsigned int)__builtin_ceilf(x); }
__KS_DEV long long __float2ll_rn(float x) { return (long long)__builtin_rintf(x); }
__KS_DEV long long __float2ll_rz(float x) { return (long long)x; }
__KS_DEV unsigned long long __float2ull_rn(float x) { return (unsigned long long)__builtin_rintf(x); }
__KS_DEV unsigned long long __float2ull_rz(float x) { return (unsigned long long)x; }
__KS_DEV int __double2int_rn(double x) { return (int)__builtin_rint(x); }
__KS_DEV int __double2int_rz(double x) { return (int)x; }
__KS_DEV unsigned int __double2uint_rz(double x) { return (unsigned int)x; }
__KS_DEV long long __double2ll_rn(double x) { return (long long)__builtin_rint(x); }
__KS_DEV long long __double2ll_rz(double x) { return (long long)x; }
__KS_DEV float __double2float_rn(double x) { return (float)x; }
__KS_DEV float __uint2float_rn(unsigned int x) { return (float)x; }
__KS_DEV float __ll2float_rn(long long x) { return (float)x; }
__KS_DEV float __ull2float_rn(unsigned long long x) { return (float)x; }
__KS_DEV double __int2double_rn(int x) { return (double)x; }
__KS_DEV double __uint2double_rn(unsigned int x) { return (double)x; }
__KS_DEV double __ll2double_rn(long long x) { return (double)x; }
__KS_DEV int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__KS_DEV int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__KS_DEV double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);
}

// integer helpers
__KS_DEV int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
__KS_DEV int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
__KS_DEV unsigned int __uhadd(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a + b) >> 1); }
__KS_DEV unsigned int __urhadd(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a + b + 1) >> 1); }

// loads through the read-only path: an ordinary load on AMD hardware
template <class T> __KS_DEV T __ldg(const T* p) { return *p; }

// workgroup votes (ockl's workgroup reductions, which synchronise the workgroup like __syncthreads)
extern "C" __device__ int __ockl_wgred_add_i32(int);
extern "C" __device__ int __ockl_wgred_and_i32(int);
extern "C" __device__ int __ockl_wgred_or_i32(int);
__KS_DEV int __syncthreads_count(int p) { return __ockl_wgred_add_i32(p != 0); }
__KS_DEV int __syncthreads_and(int p) { return __ockl_wgred_and_i32(p != 0); }
__KS_DEV int __syncthreads_or(int p) { return __ockl_wgred_or_i32(p != 0); }

// clocks: clock64 reads the shader clock (s_memtime), wall_clock64 the constant 100 MHz clock
// (s_memrealtime); kernsim's functional run reports its own instruction count for both
__KS_DEV long long clock64() { return (long long)__builtin_readcyclecounter(); }
__KS_DEV long long __clock64() { return clock64(); }
__KS_DEV long clock() { return (long)clock64(); }
__KS_DEV long long wall_clock64() { return (long long)__builtin_amdgcn_s_memrealtime(); }

// a trap: reported by kernsim as a fault of the kernel
__KS_DEV void __trap() { __builtin_trap(); }

// ---------------------------------------------------------------------------- host API (declarations)
// Enough of the HIP runtime API for a whole translation unit's host code to type-check; kernsim
// never compiles host code for execution, so nothing here is defined.

typedef enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2, hipErrorUnknown = 999 } hipError_t;
typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
} hipMemcpyKind;
typedef enum hipMemoryType {  // ROCm 6's values
  hipMemoryTypeUnregistered = 0,
  hipMemoryTypeHost = 1,
  hipMemoryTypeDevice = 2,
  hipMemoryTypeManaged = 3,
  hipMemoryTypeArray = 10,
  hipMemoryTypeUnified = 11
} hipMemoryType;
typedef enum hipFuncAttribute {
  hipFuncAttributeMaxDynamicSharedMemorySize = 8,
  hipFuncAttributePreferredSharedMemoryCarveout = 9,
  hipFuncAttributeMax
} hipFuncAttribute;
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;

__host__ hipError_t hipMalloc(void** p, size_t bytes);
template <class T> __host__ hipError_t hipMalloc(T** p, size_t bytes) { return hipMalloc((void**)p, bytes); }
__host__ hipError_t hipFree(void* p);
__host__ hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind);
__host__ hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind, hipStream_t s = 0);
__host__ hipError_t hipMemset(void* dst, int value, size_t bytes);
__host__ hipError_t hipDeviceSynchronize();
__host__ hipError_t hipStreamSynchronize(hipStream_t s);
__host__ hipError_t hipStreamCreate(hipStream_t* s);
__host__ hipError_t hipStreamDestroy(hipStream_t s);
__host__ hipError_t hipEventCreate(hipEvent_t* e);
__host__ hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = 0);
__host__ hipError_t hipEventSynchronize(hipEvent_t e);
__host__ hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b);
__host__ hipError_t hipEventDestroy(hipEvent_t e);
__host__ hipError_t hipGetLastError();
__host__ hipError_t hipPeekAtLastError();
__host__ const char* hipGetErrorString(hipError_t e);
__host__ hipError_t hipSetDevice(int d);
__host__ hipError_t hipGetDevice(int* d);
__host__ hipError_t hipGetDeviceCount(int* n);
__host__ hipError_t hipDeviceReset();
__host__ hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value);
__host__ hipError_t hipMallocManaged(void** p, size_t bytes, unsigned int flags = 1);
template <class T> __host__ hipError_t hipMallocManaged(T** p, size_t bytes, unsigned int flags = 1) { return hipMallocManaged((void**)p, bytes, flags); }
__host__ hipError_t hipHostMalloc(void** p, size_t bytes, unsigned int flags = 0);
template <class T> __host__ hipError_t hipHostMalloc(T** p, size_t bytes, unsigned int flags = 0) { return hipHostMalloc((void**)p, bytes, flags); }
__host__ hipError_t hipHostFree(void* p);
__host__ hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t s = 0);
__host__ hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset = 0, hipMemcpyKind kind = hipMemcpyHostToDevice);
__host__ hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset = 0, hipMemcpyKind kind = hipMemcpyDeviceToHost);
typedef struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate, major, minor, multiProcessorCount;
  int l2CacheSize, maxSharedMemoryPerMultiProcessor, memoryBusWidth, memoryClockRate;
  char gcnArchName[256];
} hipDeviceProp_t;
__host__ hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device);
extern "C" __host__ hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, hipStream_t stream = 0);
extern "C" __host__ hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, hipStream_t* stream);
extern "C" __host__ hipError_t hipConfigureCall(dim3 grid, dim3 block, size_t shared = 0, hipStream_t stream = 0);
extern "C" __host__ hipError_t hipLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared, hipStream_t stream);

#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) kernel<<<(grid), (block), (shared), (stream)>>>(__VA_ARGS__)

#undef __KS_IMPLICIT_U32
