// Floating-point helpers of the AMD semantics: f16/bf16/fp8 encodings (FNUZ on gfx942, OCP on
// gfx950), IEEE-mode min/max, clamp and output modifiers, value classes.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "base/float16.h"
#include "base/float_format.h"

namespace kernsim::sim::amd {

inline std::uint16_t to_half(double v) { return static_cast<std::uint16_t>(round_to_format(v, FloatFormat::F16, RoundMode::NearestEven)); }
inline float from_half(std::uint32_t h) { return half_to_float(static_cast<std::uint16_t>(h)); }
inline std::uint16_t to_bf16(double v) { return static_cast<std::uint16_t>(round_to_format(v, FloatFormat::BF16, RoundMode::NearestEven)); }
inline float from_bf16(std::uint32_t b) { return bf16_to_float(static_cast<std::uint16_t>(b)); }

// fma(a, b, c) for floats, correctly rounded, without an FMA instruction or a libm call: the
// product is exact in double; the sum is rounded to double with round-to-odd (TwoSum gives the
// error, and an inexact even result moves one ulp toward it), and double has more than two bits
// beyond float's precision, so the final rounding to float is the correctly rounded fma.
inline float fma32(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  const double cd = c;
  double s = p + cd;
  if (!std::isfinite(s)) return static_cast<float>(s);
  const double bb = s - p;
  const double e = (p - (s - bb)) + (cd - bb);
  std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  if (e != 0 && !(bits & 1)) {
    bits += ((e > 0) == (s > 0)) ? 1 : static_cast<std::uint64_t>(-1);
    s = std::bit_cast<double>(bits);
  }
  return static_cast<float>(s);
}

// IEEE-mode minimum / maximum: a NaN operand yields the other operand; -0 < +0.
template <class T>
inline T ieee_min(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? a : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T>
inline T ieee_max(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? a : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class T>
inline T med3(T a, T b, T c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return ieee_min(ieee_min(a, b), c);
  T mx = ieee_max(ieee_max(a, b), c);
  if (mx == a) return ieee_max(b, c);
  if (mx == b) return ieee_max(a, c);
  return ieee_max(a, b);
}

// The value classes of v_cmp_class: bit 0 signaling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
inline int value_class(double v, bool quiet_nan, bool denormal) {
  if (std::isnan(v)) return quiet_nan ? 1 : 0;
  const bool neg = std::signbit(v);
  if (std::isinf(v)) return neg ? 2 : 9;
  if (v == 0) return neg ? 5 : 6;
  if (denormal) return neg ? 4 : 7;
  return neg ? 3 : 8;
}

// 8-bit floats. gfx942 uses the FNUZ encodings (no infinities, one NaN 0x80, no -0): e4m3 bias 8,
// e5m2 bias 16. gfx950 uses the OCP encodings: e4m3 bias 7 (NaN 0x7f/0xff, no inf), e5m2 bias 15
// (IEEE-style inf and NaN).
struct Fp8Format {
  int ebits, mbits, bias;
  bool fnuz;
};
inline Fp8Format fp8_format(bool ocp, bool e5m2) {
  if (e5m2) return ocp ? Fp8Format{5, 2, 15, false} : Fp8Format{5, 2, 16, true};
  return ocp ? Fp8Format{4, 3, 7, false} : Fp8Format{4, 3, 8, true};
}

inline float fp8_decode(std::uint32_t byte, Fp8Format f) {
  const std::uint32_t b = byte & 0xff;
  const std::uint32_t sign = b >> 7, e = (b >> f.mbits) & ((1u << f.ebits) - 1), m = b & ((1u << f.mbits) - 1);
  if (f.fnuz && b == 0x80) return std::nanf("");
  if (!f.fnuz && f.ebits == 4 && (b & 0x7f) == 0x7f) return std::nanf("");
  if (!f.fnuz && f.ebits == 5 && e == 31) return m ? std::nanf("") : (sign ? -INFINITY : INFINITY);
  float v = e == 0 ? std::ldexp(static_cast<float>(m), 1 - f.bias - f.mbits)
                   : std::ldexp(static_cast<float>(m | (1u << f.mbits)), static_cast<int>(e) - f.bias - f.mbits);
  return sign ? -v : v;
}

// Round to nearest even. Out of range: `saturate` gives the largest finite value; otherwise NaN
// (formats without infinity) or infinity (OCP e5m2).
inline std::uint32_t fp8_encode(float x, Fp8Format f, bool saturate) {
  const std::uint32_t sign = std::signbit(x) ? 0x80u : 0u;
  const std::uint32_t emax = (!f.fnuz && f.ebits == 5) ? 30u : (1u << f.ebits) - 1;
  const std::uint32_t mmax = (!f.fnuz && f.ebits == 4) ? (1u << f.mbits) - 2 : (1u << f.mbits) - 1;
  const std::uint32_t maxcode = (emax << f.mbits) | mmax;
  const std::uint32_t nan = f.fnuz ? 0x80u : (f.ebits == 4 ? (sign | 0x7fu) : (sign | 0x7eu));
  if (std::isnan(x)) return nan;
  const double a = std::fabs(static_cast<double>(x));
  const double maxval = fp8_decode(maxcode, f);
  // the rounding boundary above the largest finite value: halfway to the next step
  const double step = std::ldexp(1.0, static_cast<int>(emax) - f.bias - f.mbits);
  if (a >= maxval + step / 2 || std::isinf(a)) {
    if (saturate) return sign | maxcode;
    if (!f.fnuz && f.ebits == 5) return sign | 0x7cu;
    return nan;
  }
  int ex;
  std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
  int e = ex - 1;      // a in [2^e, 2^(e+1))
  const int emin = 1 - f.bias;
  if (a == 0 || e < emin) e = emin;
  const double q = std::nearbyint(std::ldexp(a, f.mbits - e));  // steps of 2^(e - mbits), nearest even
  std::uint32_t n = static_cast<std::uint32_t>(q);
  std::uint32_t code;
  if (n >= (2u << f.mbits)) {  // rounded up into the next binade
    n >>= 1;
    ++e;
  }
  if (n < (1u << f.mbits)) code = n;  // subnormal or zero
  else code = (static_cast<std::uint32_t>(e + f.bias) << f.mbits) | (n & ((1u << f.mbits) - 1));
  if (code > maxcode) return saturate ? (sign | maxcode) : nan;
  if (f.fnuz && code == 0) return 0;  // no negative zero
  return sign | code;
}

}  // namespace kernsim::sim::amd
