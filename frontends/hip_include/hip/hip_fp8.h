// kernsim's slim hip_fp8.h: 8-bit float types for gfx942 (FNUZ formats) and gfx950 (OCP formats).
//
//   __hip_fp8_e4m3_fnuz  bias 8, no infinities, one NaN (0x80), largest finite 240     (gfx942 MFMA)
//   __hip_fp8_e5m2_fnuz  bias 16, no infinities, one NaN (0x80), largest finite 57344  (gfx942 MFMA)
//   __hip_fp8_e4m3       bias 7, no infinities, NaN 0x7f/0xff, largest finite 448      (gfx950 MFMA, OCP)
//   __hip_fp8_e5m2       bias 15, IEEE-style infinities and NaNs, largest finite 57344 (gfx950 MFMA, OCP)
//
// Conversions are written out in integer arithmetic (round to nearest even; out-of-range values
// saturate to the largest finite value, as ROCm's default conversions do), so they mean the same
// on both targets. The raw byte is `__x`; the MFMA builtins take packed bytes.
#pragma once

#include <hip/hip_runtime.h>

__KS_HD float __ks_fp8_to_float(unsigned char b, int ebits, int mbits, int bias, bool fnuz) {
  const unsigned sign = b >> 7, e = (b >> mbits) & ((1u << ebits) - 1), m = b & ((1u << mbits) - 1);
  if (fnuz && b == 0x80) return __builtin_nanf("");
  if (!fnuz && ebits == 4 && (b & 0x7f) == 0x7f) return __builtin_nanf("");
  if (!fnuz && ebits == 5 && e == 31) return m ? __builtin_nanf("") : (sign ? -__builtin_inff() : __builtin_inff());
  float v = e == 0 ? __builtin_ldexpf((float)m, 1 - bias - mbits)
                   : __builtin_ldexpf((float)(m | (1u << mbits)), (int)e - bias - mbits);
  return sign ? -v : v;
}

__KS_HD unsigned char __ks_float_to_fp8(float f, int ebits, int mbits, int bias, bool fnuz) {
  const unsigned bits = __builtin_bit_cast(unsigned, f);
  const unsigned char sign = (unsigned char)((bits >> 24) & 0x80);
  // largest finite encoding: exponent field all ones except where that encodes inf/NaN
  const int emax_field = (!fnuz && ebits == 5) ? 30 : (1 << ebits) - 1;
  const unsigned mmax = (!fnuz && ebits == 4) ? (1u << mbits) - 2 : (1u << mbits) - 1;
  const unsigned char maxcode = (unsigned char)((emax_field << mbits) | mmax);
  if (f != f) return fnuz ? 0x80 : (unsigned char)(sign | (ebits == 4 ? 0x7f : 0x7e));
  float a = __builtin_fabsf(f);
  int ex = (int)((bits >> 23) & 0xff) - 127;  // exponent of |f| (very small for f32 subnormals)
  const int emin = 1 - bias;
  const int shift = (ex < emin ? emin : ex) - mbits;          // value of one step of the mantissa
  unsigned n = (unsigned)__builtin_rintf(__builtin_ldexpf(a, -shift));  // nearest even
  unsigned code;
  if (n < (1u << mbits) && ex < emin + 1) {
    code = n;  // subnormal (or zero); n == 2^m rounds up into the first normal binade below
  } else {
    int e = shift + mbits + bias;
    if (n >= (2u << mbits)) { n >>= 1; ++e; }
    if (n < (1u << mbits)) { e = 0; }
    code = (unsigned)(e << mbits) | (n & ((1u << mbits) - 1));
    if (e > emax_field || (e == emax_field && (n & ((1u << mbits) - 1)) > mmax)) code = maxcode;
  }
  if (a > __ks_fp8_to_float(maxcode, ebits, mbits, bias, fnuz)) code = maxcode;  // saturate (also +inf)
  if (fnuz && code == 0) return 0;  // FNUZ has no negative zero
  return (unsigned char)(sign | code);
}

#define __KS_FP8(type, E, M, B, FNUZ)                                                           \
  struct type {                                                                               \
    unsigned char __x;                                                                        \
    type() = default;                                                                         \
    __host__ __device__ type(float f) : __x(__ks_float_to_fp8(f, E, M, B, FNUZ)) {}          \
    __host__ __device__ type(double f) : __x(__ks_float_to_fp8((float)f, E, M, B, FNUZ)) {}  \
    __host__ __device__ operator float() const { return __ks_fp8_to_float(__x, E, M, B, FNUZ); } \
  };
__KS_FP8(__hip_fp8_e4m3_fnuz, 4, 3, 8, true)
__KS_FP8(__hip_fp8_e5m2_fnuz, 5, 2, 16, true)
__KS_FP8(__hip_fp8_e4m3, 4, 3, 7, false)
__KS_FP8(__hip_fp8_e5m2, 5, 2, 15, false)
#undef __KS_FP8

// pairs and quads (ROCm's __hip_fp8x2_* / __hip_fp8x4_*): the bytes of the elements in order,
// element 0 in the lowest byte; from and to float2 / float4, each element converted as the scalar
// type converts it
typedef unsigned short __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;
#define __KS_FP8X(type, scalar)                                                                                  \
  struct __align__(2) type##x2##_##scalar {                                                                      \
    __hip_fp8x2_storage_t __x;                                                                                   \
    type##x2##_##scalar() = default;                                                                             \
    __host__ __device__ type##x2##_##scalar(float2 f)                                                           \
        : __x((__hip_fp8x2_storage_t)(type##_##scalar(f.x).__x | (type##_##scalar(f.y).__x << 8))) {}           \
    __host__ __device__ operator float2() const {                                                                \
      type##_##scalar a, b;                                                                                      \
      a.__x = (unsigned char)(__x & 0xff);                                                                       \
      b.__x = (unsigned char)(__x >> 8);                                                                         \
      return float2((float)a, (float)b);                                                                         \
    }                                                                                                            \
  };                                                                                                             \
  struct __align__(4) type##x4##_##scalar {                                                                      \
    __hip_fp8x4_storage_t __x;                                                                                   \
    type##x4##_##scalar() = default;                                                                             \
    __host__ __device__ type##x4##_##scalar(float4 f)                                                           \
        : __x((__hip_fp8x4_storage_t)type##_##scalar(f.x).__x | ((__hip_fp8x4_storage_t)type##_##scalar(f.y).__x << 8) | \
              ((__hip_fp8x4_storage_t)type##_##scalar(f.z).__x << 16) |                                          \
              ((__hip_fp8x4_storage_t)type##_##scalar(f.w).__x << 24)) {}                                        \
    __host__ __device__ operator float4() const {                                                                \
      float r[4];                                                                                                \
      for (int i = 0; i < 4; ++i) {                                                                              \
        type##_##scalar e;                                                                                       \
        e.__x = (unsigned char)(__x >> (8 * i));                                                                 \
        r[i] = (float)e;                                                                                         \
      }                                                                                                          \
      return float4(r[0], r[1], r[2], r[3]);                                                                     \
    }                                                                                                            \
  };
__KS_FP8X(__hip_fp8, e4m3)
__KS_FP8X(__hip_fp8, e5m2)
__KS_FP8X(__hip_fp8, e4m3_fnuz)
__KS_FP8X(__hip_fp8, e5m2_fnuz)
#undef __KS_FP8X

typedef unsigned char __hip_fp8_storage_t;
