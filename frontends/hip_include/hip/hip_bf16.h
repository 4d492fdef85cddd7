// kernsim's slim hip_bf16.h: __hip_bfloat16 on clang's __bf16, for gfx942/gfx950 device code.
//
// Conversions from float round to nearest even (NaN stays NaN); arithmetic is computed in float
// and rounded once to bf16, as ROCm's bf16 operators do. gfx950 has bf16 conversion instructions;
// on gfx942 LLVM expands the rounding into integer operations.
#pragma once

#include <hip/hip_runtime.h>

struct __hip_bfloat16 {
  __bf16 data;
  __hip_bfloat16() = default;
  __host__ __device__ constexpr __hip_bfloat16(__bf16 v) : data(v) {}
  __host__ __device__ constexpr __hip_bfloat16(float v) : data((__bf16)v) {}
  __host__ __device__ constexpr __hip_bfloat16(double v) : data((__bf16)(float)v) {}
  __host__ __device__ constexpr __hip_bfloat16(int v) : data((__bf16)(float)v) {}
  __host__ __device__ operator float() const { return (float)data; }
};

struct __align__(4) __hip_bfloat162 {
  __hip_bfloat16 x, y;
  __hip_bfloat162() = default;
  __host__ __device__ constexpr __hip_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) : x(a), y(b) {}
};

typedef __hip_bfloat16 hip_bfloat16;

__KS_HD __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16((__bf16)f); }
__KS_HD __hip_bfloat16 __double2bfloat16(double d) { return __hip_bfloat16((__bf16)(float)d); }
__KS_HD float __bfloat162float(__hip_bfloat16 b) { return (float)b.data; }
__KS_HD unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return __builtin_bit_cast(unsigned short, b); }
__KS_HD __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __builtin_bit_cast(__hip_bfloat16, u); }
__KS_HD __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return __hip_bfloat162(__float2bfloat16(a), __float2bfloat16(b)); }
__KS_HD float2 __bfloat1622float2(__hip_bfloat162 h) { return make_float2(__bfloat162float(h.x), __bfloat162float(h.y)); }

#define __KS_BF_OP(name, expr)                                                    \
  __KS_HD __hip_bfloat16 name(__hip_bfloat16 a, __hip_bfloat16 b) {               \
    float x = __bfloat162float(a), y = __bfloat162float(b);                       \
    return __float2bfloat16(expr);                                                \
  }
__KS_BF_OP(__hadd, x + y)
__KS_BF_OP(__hsub, x - y)
__KS_BF_OP(__hmul, x * y)
__KS_BF_OP(__hdiv, x / y)
__KS_BF_OP(__hmax, __builtin_fmaxf(x, y))
__KS_BF_OP(__hmin, __builtin_fminf(x, y))
#undef __KS_BF_OP
__KS_HD __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __float2bfloat16(__builtin_fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
}
__KS_HD __hip_bfloat16 __hneg(__hip_bfloat16 a) { return __ushort_as_bfloat16(__bfloat16_as_ushort(a) ^ 0x8000u); }
__KS_HD __hip_bfloat162 __hadd2(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
__KS_HD __hip_bfloat162 __hmul2(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
__KS_HD __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
  return __hip_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

__KS_HD __hip_bfloat16 __habs(__hip_bfloat16 a) { return __ushort_as_bfloat16(__bfloat16_as_ushort(a) & 0x7fffu); }

// conversions and pairs under ROCm's names
__KS_HD __hip_bfloat162 __float22bfloat162_rn(float2 f) { return __hip_bfloat162(__float2bfloat16(f.x), __float2bfloat16(f.y)); }
__KS_HD __hip_bfloat162 __float2bfloat162_rn(float f) { return __hip_bfloat162(__float2bfloat16(f), __float2bfloat16(f)); }
__KS_HD __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) { return __hip_bfloat162(a, a); }
__KS_HD __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat162(a, b); }
__KS_HD __hip_bfloat16 __low2bfloat16(__hip_bfloat162 h) { return h.x; }
__KS_HD __hip_bfloat16 __high2bfloat16(__hip_bfloat162 h) { return h.y; }
__KS_HD float __low2float(__hip_bfloat162 h) { return __bfloat162float(h.x); }
__KS_HD float __high2float(__hip_bfloat162 h) { return __bfloat162float(h.y); }

// pairs: each half by the scalar operation (one rounding per element, as the scalar forms)
#define __KS_BF2_OP(name2, name)                                                                      \
  __KS_HD __hip_bfloat162 name2(__hip_bfloat162 a, __hip_bfloat162 b) {                                \
    return __hip_bfloat162(name(a.x, b.x), name(a.y, b.y));                                           \
  }
__KS_BF2_OP(__hsub2, __hsub)
__KS_BF2_OP(__h2div, __hdiv)
__KS_BF2_OP(__hmax2, __hmax)
__KS_BF2_OP(__hmin2, __hmin)
#undef __KS_BF2_OP
__KS_HD __hip_bfloat162 __hneg2(__hip_bfloat162 a) { return __hip_bfloat162(__hneg(a.x), __hneg(a.y)); }
__KS_HD __hip_bfloat162 __habs2(__hip_bfloat162 a) { return __hip_bfloat162(__habs(a.x), __habs(a.y)); }

// bf16 math under ROCm's names: computed in float by the float library, rounded once
#define __KS_BF_MATH(name, name2, f)                                                                  \
  __KS_DEV __hip_bfloat16 name(__hip_bfloat16 a) { return __float2bfloat16(f(__bfloat162float(a))); } \
  __KS_DEV __hip_bfloat162 name2(__hip_bfloat162 a) { return __hip_bfloat162(name(a.x), name(a.y)); }
__KS_BF_MATH(hexp, h2exp, expf)
__KS_BF_MATH(hexp2, h2exp2, exp2f)
__KS_BF_MATH(hexp10, h2exp10, exp10f)
__KS_BF_MATH(hlog, h2log, logf)
__KS_BF_MATH(hlog2, h2log2, log2f)
__KS_BF_MATH(hlog10, h2log10, log10f)
__KS_BF_MATH(hsqrt, h2sqrt, sqrtf)
__KS_BF_MATH(hrsqrt, h2rsqrt, rsqrtf)
__KS_BF_MATH(hsin, h2sin, sinf)
__KS_BF_MATH(hcos, h2cos, cosf)
#undef __KS_BF_MATH
__KS_DEV __hip_bfloat16 hrcp(__hip_bfloat16 a) { return __float2bfloat16(1.0f / __bfloat162float(a)); }
__KS_DEV __hip_bfloat162 h2rcp(__hip_bfloat162 a) { return __hip_bfloat162(hrcp(a.x), hrcp(a.y)); }

__KS_HD __hip_bfloat162 operator+(__hip_bfloat162 a, __hip_bfloat162 b) { return __hadd2(a, b); }
__KS_HD __hip_bfloat162 operator-(__hip_bfloat162 a, __hip_bfloat162 b) { return __hsub2(a, b); }
__KS_HD __hip_bfloat162 operator*(__hip_bfloat162 a, __hip_bfloat162 b) { return __hmul2(a, b); }
__KS_HD __hip_bfloat162 operator/(__hip_bfloat162 a, __hip_bfloat162 b) { return __h2div(a, b); }

__KS_HD __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
__KS_HD __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
__KS_HD __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
__KS_HD __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
__KS_HD __hip_bfloat16 operator-(__hip_bfloat16 a) { return __hneg(a); }
__KS_HD bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
__KS_HD bool operator>(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
__KS_HD bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
