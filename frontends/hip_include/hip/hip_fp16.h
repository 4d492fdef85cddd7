// kernsim's slim hip_fp16.h: __half and __half2 on clang's _Float16, for gfx942/gfx950 device code.
//
// Scalar arithmetic maps to the hardware's f16 instructions (v_add_f16, v_fma_f16, ...), __half2
// arithmetic to the packed ones (v_pk_add_f16, v_pk_fma_f16, v_pk_max_f16, ...). Conversions from
// float round to nearest even, overflowing to infinity, as __float2half does under ROCm.
#pragma once

#include <hip/hip_runtime.h>

typedef _Float16 __ks_half2_v __attribute__((ext_vector_type(2)));

struct __half {
  _Float16 __x;
  __half() = default;
  __host__ __device__ constexpr __half(_Float16 v) : __x(v) {}
  __host__ __device__ constexpr __half(float v) : __x((_Float16)v) {}
  __host__ __device__ constexpr __half(double v) : __x((_Float16)v) {}
  __host__ __device__ constexpr __half(int v) : __x((_Float16)v) {}
  __host__ __device__ constexpr __half(unsigned int v) : __x((_Float16)v) {}
  __host__ __device__ operator float() const { return (float)__x; }
  __host__ __device__ __half& operator+=(__half o) { __x += o.__x; return *this; }
  __host__ __device__ __half& operator-=(__half o) { __x -= o.__x; return *this; }
  __host__ __device__ __half& operator*=(__half o) { __x *= o.__x; return *this; }
  __host__ __device__ __half& operator/=(__half o) { __x /= o.__x; return *this; }
};

struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ constexpr __half2(__half a, __half b) : x(a), y(b) {}
};

typedef __half half;
typedef __half2 half2;

__KS_HD __ks_half2_v __ks_v2(__half2 a) { return __builtin_bit_cast(__ks_half2_v, a); }
__KS_HD __half2 __ks_h2(__ks_half2_v v) { return __builtin_bit_cast(__half2, v); }

// conversions
__KS_HD __half __float2half(float f) { return __half((_Float16)f); }
__KS_HD __half __float2half_rn(float f) { return __half((_Float16)f); }
__KS_HD __half __double2half(double d) { return __half((_Float16)d); }
__KS_HD float __half2float(__half h) { return (float)h.__x; }
__KS_HD __half __int2half_rn(int i) { return __half((_Float16)i); }
__KS_HD int __half2int_rz(__half h) { return (int)h.__x; }
__KS_HD short __half_as_short(__half h) { return __builtin_bit_cast(short, h); }
__KS_HD unsigned short __half_as_ushort(__half h) { return __builtin_bit_cast(unsigned short, h); }
__KS_HD __half __short_as_half(short s) { return __builtin_bit_cast(__half, s); }
__KS_HD __half __ushort_as_half(unsigned short s) { return __builtin_bit_cast(__half, s); }
__KS_HD __half2 __float2half2_rn(float f) { return __half2(__float2half(f), __float2half(f)); }
__KS_HD __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
__KS_HD __half2 __float22half2_rn(float2 f) { return __half2(__float2half(f.x), __float2half(f.y)); }
__KS_HD float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
__KS_HD __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__KS_HD __half2 __half2half2(__half a) { return __half2(a, a); }
__KS_HD __half __low2half(__half2 h) { return h.x; }
__KS_HD __half __high2half(__half2 h) { return h.y; }
__KS_HD float __low2float(__half2 h) { return __half2float(h.x); }
__KS_HD float __high2float(__half2 h) { return __half2float(h.y); }
__KS_HD __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__KS_HD __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }

// scalar arithmetic
__KS_HD __half __hadd(__half a, __half b) { return __half((_Float16)(a.__x + b.__x)); }
__KS_HD __half __hsub(__half a, __half b) { return __half((_Float16)(a.__x - b.__x)); }
__KS_HD __half __hmul(__half a, __half b) { return __half((_Float16)(a.__x * b.__x)); }
__KS_HD __half __hdiv(__half a, __half b) { return __half((_Float16)(a.__x / b.__x)); }
__KS_HD __half __hneg(__half a) { return __half((_Float16)(-a.__x)); }
__KS_HD __half __habs(__half a) { return __half(__builtin_fabsf16(a.__x)); }
__KS_HD __half __hfma(__half a, __half b, __half c) { return __half(__builtin_elementwise_fma(a.__x, b.__x, c.__x)); }
__KS_HD __half __hmax(__half a, __half b) { return __half(__builtin_elementwise_max(a.__x, b.__x)); }
__KS_HD __half __hmin(__half a, __half b) { return __half(__builtin_elementwise_min(a.__x, b.__x)); }
__KS_HD bool __heq(__half a, __half b) { return a.__x == b.__x; }
__KS_HD bool __hne(__half a, __half b) { return a.__x != b.__x; }
__KS_HD bool __hlt(__half a, __half b) { return a.__x < b.__x; }
__KS_HD bool __hle(__half a, __half b) { return a.__x <= b.__x; }
__KS_HD bool __hgt(__half a, __half b) { return a.__x > b.__x; }
__KS_HD bool __hge(__half a, __half b) { return a.__x >= b.__x; }
__KS_HD bool __hisnan(__half a) { return a.__x != a.__x; }

// packed arithmetic
__KS_HD __half2 __hadd2(__half2 a, __half2 b) { return __ks_h2(__ks_v2(a) + __ks_v2(b)); }
__KS_HD __half2 __hsub2(__half2 a, __half2 b) { return __ks_h2(__ks_v2(a) - __ks_v2(b)); }
__KS_HD __half2 __hmul2(__half2 a, __half2 b) { return __ks_h2(__ks_v2(a) * __ks_v2(b)); }
__KS_HD __half2 __h2div(__half2 a, __half2 b) { return __ks_h2(__ks_v2(a) / __ks_v2(b)); }
__KS_HD __half2 __hneg2(__half2 a) { return __ks_h2(-__ks_v2(a)); }
__KS_HD __half2 __habs2(__half2 a) { return __ks_h2(__builtin_elementwise_abs(__ks_v2(a))); }
__KS_HD __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __ks_h2(__builtin_elementwise_fma(__ks_v2(a), __ks_v2(b), __ks_v2(c))); }
__KS_HD __half2 __hmax2(__half2 a, __half2 b) { return __ks_h2(__builtin_elementwise_max(__ks_v2(a), __ks_v2(b))); }
__KS_HD __half2 __hmin2(__half2 a, __half2 b) { return __ks_h2(__builtin_elementwise_min(__ks_v2(a), __ks_v2(b))); }

// operators
__KS_HD __half operator+(__half a, __half b) { return __hadd(a, b); }
__KS_HD __half operator-(__half a, __half b) { return __hsub(a, b); }
__KS_HD __half operator*(__half a, __half b) { return __hmul(a, b); }
__KS_HD __half operator/(__half a, __half b) { return __hdiv(a, b); }
__KS_HD __half operator-(__half a) { return __hneg(a); }
__KS_HD bool operator==(__half a, __half b) { return __heq(a, b); }
__KS_HD bool operator!=(__half a, __half b) { return __hne(a, b); }
__KS_HD bool operator<(__half a, __half b) { return __hlt(a, b); }
__KS_HD bool operator<=(__half a, __half b) { return __hle(a, b); }
__KS_HD bool operator>(__half a, __half b) { return __hgt(a, b); }
__KS_HD bool operator>=(__half a, __half b) { return __hge(a, b); }
__KS_HD __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
__KS_HD __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
__KS_HD __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
__KS_HD __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }

// half-precision math on the float library (computed in float, rounded once)
__KS_DEV __half hexp(__half a) { return __float2half(expf(__half2float(a))); }
__KS_DEV __half hlog(__half a) { return __float2half(logf(__half2float(a))); }
__KS_DEV __half hsqrt(__half a) { return __float2half(sqrtf(__half2float(a))); }
__KS_DEV __half hrsqrt(__half a) { return __float2half(rsqrtf(__half2float(a))); }
__KS_DEV __half hexp2(__half a) { return __float2half(exp2f(__half2float(a))); }
__KS_DEV __half hexp10(__half a) { return __float2half(exp10f(__half2float(a))); }
__KS_DEV __half hlog2(__half a) { return __float2half(log2f(__half2float(a))); }
__KS_DEV __half hlog10(__half a) { return __float2half(log10f(__half2float(a))); }
__KS_DEV __half hrcp(__half a) { return __float2half(1.0f / __half2float(a)); }
__KS_DEV __half hsin(__half a) { return __float2half(sinf(__half2float(a))); }
__KS_DEV __half hcos(__half a) { return __float2half(cosf(__half2float(a))); }
// the __half2 forms apply the scalar function to each half (ROCm's h2exp, h2log2, ...)
#define __KS_H2_MATH(f2, f) \
  __KS_DEV __half2 f2(__half2 a) { return __half2(f(a.x), f(a.y)); }
__KS_H2_MATH(h2exp, hexp)
__KS_H2_MATH(h2exp2, hexp2)
__KS_H2_MATH(h2exp10, hexp10)
__KS_H2_MATH(h2log, hlog)
__KS_H2_MATH(h2log2, hlog2)
__KS_H2_MATH(h2log10, hlog10)
__KS_H2_MATH(h2sqrt, hsqrt)
__KS_H2_MATH(h2rsqrt, hrsqrt)
__KS_H2_MATH(h2rcp, hrcp)
__KS_H2_MATH(h2sin, hsin)
__KS_H2_MATH(h2cos, hcos)
#undef __KS_H2_MATH

// wave shuffles of halves ride on the 32-bit shuffles
__KS_DEV __half __shfl(__half v, int src, int width = warpSize) {
  return __ushort_as_half((unsigned short)__shfl((int)__half_as_ushort(v), src, width));
}
__KS_DEV __half __shfl_xor(__half v, int m, int width = warpSize) {
  return __ushort_as_half((unsigned short)__shfl_xor((int)__half_as_ushort(v), m, width));
}
__KS_DEV __half __shfl_down(__half v, unsigned int d, int width = warpSize) {
  return __ushort_as_half((unsigned short)__shfl_down((int)__half_as_ushort(v), d, width));
}
__KS_DEV __half __shfl_up(__half v, unsigned int d, int width = warpSize) {
  return __ushort_as_half((unsigned short)__shfl_up((int)__half_as_ushort(v), d, width));
}
__KS_DEV __half2 __shfl_xor(__half2 v, int m, int width = warpSize) {
  return __builtin_bit_cast(__half2, __shfl_xor(__builtin_bit_cast(int, v), m, width));
}
__KS_DEV __half2 __shfl_down(__half2 v, unsigned int d, int width = warpSize) {
  return __builtin_bit_cast(__half2, __shfl_down(__builtin_bit_cast(int, v), d, width));
}
