// Rounding of real values into the floating-point formats GPUs use (f32, f16, bf16, tf32, fp8
// e4m3/e5m2), with every IEEE rounding mode and saturation. One mechanism for all formats, used by
// conversion semantics of both ISAs.
#pragma once

#include <cstdint>

namespace kernsim {

enum class FloatFormat { F32, F16, BF16, TF32, E4M3, E5M2 };
enum class RoundMode { NearestEven, TowardZero, Down, Up, NearestAway };

// Rounds `v` (exact source value) to `fmt` and returns the encoded bits (low bits of the
// result; TF32 is returned as an f32 bit pattern with the low 13 bits zero). `satfinite` clamps
// out-of-range values (and infinities) to the largest finite value, NaN stays NaN.
std::uint32_t round_to_format(double v, FloatFormat fmt, RoundMode mode, bool satfinite = false);
// Decodes bits of `fmt` to a double (exact).
double decode_format(std::uint32_t bits, FloatFormat fmt);

}  // namespace kernsim
