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

// The OCP Microscaling (MX) formats of block-scaled matrix products, decode only: the elements
// fp6 e2m3 (bias 1), fp6 e3m2 (bias 3) and fp4 e2m1 (bias 1), which have no infinities or NaNs,
// and the scales ue8m0 (2^(bits - 127), 0xff is NaN) and ue4m3 (e4m3 without its sign bit: bias 7,
// 0x7f is NaN). `bits` holds the value in its low bits.
enum class MxFormat { E2M3, E3M2, E2M1, UE8M0, UE4M3 };
double decode_mx(std::uint32_t bits, MxFormat fmt);

}  // namespace kernsim
