// Rounding into small floating-point formats; see float_format.h.
#include "base/float_format.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kernsim {
namespace {

struct Spec {
  int mant;        // explicit mantissa bits
  int exp_bits;
  int bias;
  bool has_inf;    // e4m3 has none (its top code is NaN only at mantissa 111)
  double max_finite;
};

Spec spec(FloatFormat f) {
  switch (f) {
    case FloatFormat::F32: return {23, 8, 127, true, 3.4028234663852886e38};
    case FloatFormat::F16: return {10, 5, 15, true, 65504.0};
    case FloatFormat::BF16: return {7, 8, 127, true, 3.3895313892515355e38};
    case FloatFormat::TF32: return {10, 8, 127, true, 3.4011621342146535e38};
    case FloatFormat::E4M3: return {3, 4, 7, false, 448.0};
    case FloatFormat::E5M2: return {2, 5, 15, true, 57344.0};
  }
  return {23, 8, 127, true, 3.4028234663852886e38};
}

double round_int(double r, RoundMode m, bool negative) {
  switch (m) {
    case RoundMode::NearestEven: return std::nearbyint(r);  // default FE_TONEAREST
    case RoundMode::TowardZero: return std::trunc(r);
    case RoundMode::Down: return negative ? std::ceil(r) : std::floor(r);   // r is |v| scaled
    case RoundMode::Up: return negative ? std::floor(r) : std::ceil(r);
    case RoundMode::NearestAway: return std::round(r);
  }
  return r;
}

std::uint32_t encode(double a, bool neg, FloatFormat f) {
  // a >= 0, representable in f
  Spec s = spec(f);
  std::uint32_t sign_bit = 1u << (s.mant + s.exp_bits);
  std::uint32_t sign = neg ? sign_bit : 0;
  if (f == FloatFormat::TF32) sign = neg ? 0x80000000u : 0;
  std::uint32_t bits;
  if (a == 0) {
    bits = 0;
  } else {
    int e;
    std::frexp(a, &e);          // a = m * 2^e, m in [0.5, 1)
    int exp = e - 1;            // a = 1.xxx * 2^exp
    int emin = 1 - s.bias;
    if (exp < emin) {           // subnormal
      double q = std::ldexp(a, s.bias - 1 + s.mant);
      bits = static_cast<std::uint32_t>(q);
    } else {
      double frac = std::ldexp(a, -exp) - 1.0;
      std::uint32_t m = static_cast<std::uint32_t>(std::ldexp(frac, s.mant));
      bits = (static_cast<std::uint32_t>(exp + s.bias) << s.mant) | m;
    }
  }
  if (f == FloatFormat::TF32) {
    float v = static_cast<float>(a);
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b | sign;
  }
  return bits | sign;
}

std::uint32_t inf_bits(FloatFormat f, bool neg) {
  Spec s = spec(f);
  std::uint32_t sign = neg ? (1u << (s.mant + s.exp_bits)) : 0;
  if (f == FloatFormat::TF32) return (neg ? 0x80000000u : 0) | 0x7f800000u;
  return sign | (((1u << s.exp_bits) - 1) << s.mant);
}

std::uint32_t nan_bits(FloatFormat f) {
  switch (f) {
    case FloatFormat::F32: case FloatFormat::TF32: return 0x7fffffffu;
    case FloatFormat::F16: return 0x7fffu;
    case FloatFormat::BF16: return 0x7fffu;
    case FloatFormat::E4M3: return 0x7fu;
    case FloatFormat::E5M2: return 0x7fu;
  }
  return 0;
}

}  // namespace

std::uint32_t round_to_format(double v, FloatFormat f, RoundMode mode, bool satfinite) {
  Spec s = spec(f);
  if (std::isnan(v)) return nan_bits(f);
  bool neg = std::signbit(v);
  double a = std::fabs(v);
  auto overflow = [&]() -> std::uint32_t {
    // which way does the rounding mode go at overflow?
    bool to_max = satfinite || !s.has_inf || mode == RoundMode::TowardZero || (mode == RoundMode::Down && !neg) ||
                  (mode == RoundMode::Up && neg);
    if (!s.has_inf && !satfinite && f == FloatFormat::E4M3) return nan_bits(f) | (neg ? 0x80u : 0);  // e4m3 overflow: NaN
    return to_max ? encode(s.max_finite, neg, f) : inf_bits(f, neg);
  };
  if (std::isinf(a)) return (satfinite || !s.has_inf) ? (satfinite ? encode(s.max_finite, neg, f) : nan_bits(f) | (neg ? 0x80u : 0)) : inf_bits(f, neg);
  if (a == 0) return encode(0, neg, f);
  int e;
  std::frexp(a, &e);
  int exp = e - 1;
  int emin = 1 - s.bias;
  int q_exp = (exp < emin ? emin : exp) - s.mant;  // exponent of one unit in the last place
  double r = std::ldexp(a, -q_exp);
  double ri = round_int(r, mode, neg);
  double rounded = std::ldexp(ri, q_exp);
  if (rounded > s.max_finite) return overflow();
  if (rounded == 0) return encode(0, neg, f);
  return encode(rounded, neg, f);
}

double decode_format(std::uint32_t bits, FloatFormat f) {
  if (f == FloatFormat::F32 || f == FloatFormat::TF32) {
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  Spec s = spec(f);
  bool neg = (bits >> (s.mant + s.exp_bits)) & 1u;
  std::uint32_t exp = (bits >> s.mant) & ((1u << s.exp_bits) - 1);
  std::uint32_t man = bits & ((1u << s.mant) - 1);
  double v;
  std::uint32_t top = (1u << s.exp_bits) - 1;
  if (f == FloatFormat::E4M3) {
    if (exp == top && man == (1u << s.mant) - 1) return std::numeric_limits<double>::quiet_NaN();
  } else if (exp == top) {
    if (man) return std::numeric_limits<double>::quiet_NaN();
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (exp == 0) v = std::ldexp(static_cast<double>(man), 1 - s.bias - s.mant);
  else v = std::ldexp(1.0 + std::ldexp(static_cast<double>(man), -s.mant), static_cast<int>(exp) - s.bias);
  return neg ? -v : v;
}

double decode_mx(std::uint32_t bits, MxFormat f) {
  switch (f) {
    case MxFormat::UE8M0:
      return (bits & 0xff) == 0xff ? std::numeric_limits<double>::quiet_NaN()
                                   : std::ldexp(1.0, static_cast<int>(bits & 0xff) - 127);
    case MxFormat::UE4M3:
      return decode_format(bits & 0x7f, FloatFormat::E4M3);  // e4m3 with a zero sign bit
    default:
      break;
  }
  const int ebits = f == MxFormat::E3M2 ? 3 : 2, mbits = f == MxFormat::E2M3 ? 3 : f == MxFormat::E3M2 ? 2 : 1;
  const int bias = f == MxFormat::E3M2 ? 3 : 1;
  const std::uint32_t sign = (bits >> (ebits + mbits)) & 1, e = (bits >> mbits) & ((1u << ebits) - 1),
                      m = bits & ((1u << mbits) - 1);
  const double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - bias - mbits)
                          : std::ldexp(static_cast<double>(m | (1u << mbits)), static_cast<int>(e) - bias - mbits);
  return sign ? -v : v;
}

}  // namespace kernsim
