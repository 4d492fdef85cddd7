// IEEE binary16 and bfloat16 conversions, bit-exact, round-to-nearest-even unless stated.
//
// Used for buffer initialisation and by the functional simulators' f16/bf16 semantics; the
// conversions handle subnormals, infinities and NaNs like the hardware's cvt.rn.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace kernsim {

inline float bits_to_float(std::uint32_t b) { return std::bit_cast<float>(b); }
inline std::uint32_t float_to_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t man = h & 0x3ff;
  if (exp == 0) {
    if (man == 0) return bits_to_float(sign);
    // subnormal: value = man * 2^-24
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  if (exp == 31) return bits_to_float(sign | 0x7f800000u | (man << 13));
  return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

// Round to nearest even; overflow -> inf; NaN stays NaN (quiet).
inline std::uint16_t float_to_half(float f) {
  std::uint32_t x = float_to_bits(f);
  std::uint32_t sign = (x >> 16) & 0x8000;
  std::uint32_t exp = (x >> 23) & 0xff;
  std::uint32_t man = x & 0x7fffff;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);
    man |= 0x800000;
    int shift = 14 - e;
    std::uint32_t half_man = man >> shift;
    std::uint32_t rem = man & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_man & 1))) ++half_man;
    return static_cast<std::uint16_t>(sign | half_man);
  }
  std::uint32_t h = sign | (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  std::uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;  // may carry into exponent: correct
  return static_cast<std::uint16_t>(h);
}

inline float bf16_to_float(std::uint16_t b) { return bits_to_float(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t x = float_to_bits(f);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<std::uint16_t>((x >> 16) | 0x40);  // quiet NaN
  std::uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return static_cast<std::uint16_t>(x >> 16);
}

}  // namespace kernsim
