// Shared by the wgmma and tcgen05 tests: the values the float MMA inputs take, their bits in each
// operand format (hand-encoded, not computed by kernsim's converters), and an f16 decoder.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace kernsim::test {

inline constexpr double kMmaVals[] = {0, 0.5, 1, 1.5, 2, 3};

struct MmaEncoding {
  const char* type;
  int bytes;
  std::uint32_t bits[6];  // kMmaVals in this format
  std::uint32_t sign;
};

inline constexpr MmaEncoding kMmaEncodings[] = {
    {"f16", 2, {0x0000, 0x3800, 0x3c00, 0x3e00, 0x4000, 0x4200}, 0x8000},
    {"bf16", 2, {0x0000, 0x3f00, 0x3f80, 0x3fc0, 0x4000, 0x4040}, 0x8000},
    {"tf32", 4, {0x00000000, 0x3f000000, 0x3f800000, 0x3fc00000, 0x40000000, 0x40400000}, 0x80000000u},
    {"e4m3", 1, {0x00, 0x30, 0x38, 0x3c, 0x40, 0x44}, 0x80},
    {"e5m2", 1, {0x00, 0x38, 0x3c, 0x3e, 0x40, 0x42}, 0x80},
    // OCP MX fp6/fp4 (tcgen05 .kind::f8f6f4 and the block-scaled kinds): bits in the low 6 or 4
    {"e2m3", 1, {0x00, 0x04, 0x08, 0x0c, 0x10, 0x14}, 0x20},  // 0.5 is subnormal: 4/8
    {"e3m2", 1, {0x00, 0x08, 0x0c, 0x0e, 0x10, 0x12}, 0x20},
    {"e2m1", 1, {0x0, 0x1, 0x2, 0x3, 0x4, 0x5}, 0x8},  // 0.5 is subnormal: 1/2
};

// The encoding of a float operand type, or nullptr (integer types).
inline const MmaEncoding* mma_encoding(const std::string& t) {
  for (const MmaEncoding& e : kMmaEncodings)
    if (t == e.type) return &e;
  return nullptr;
}

inline double f16_value(std::uint32_t h) {  // sign, 5-bit exponent, 10-bit mantissa
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

}  // namespace kernsim::test
