// The instruction classes the timing model distinguishes, shared by every ISA.
//
// Each decoded instruction names the pipe it occupies; the device file gives each pipe an issue
// interval and a latency (device::Pipes). Memory and synchronisation instructions are timed by
// the memory model and the barrier logic instead of a pipe latency.
#pragma once

#include <cstdint>

namespace kernsim::isa {

enum class Unit : std::uint8_t {
  IntAlu,
  IntMul,
  Fp32,
  Fp16,
  Fp64,
  Sfu,
  Convert,
  Branch,
  TensorF16,
  TensorTf32,
  TensorI8,
  TensorFp8,
  TensorF64,
  Scalar,   // AMD scalar ALU
  Mem,      // loads, stores, atomics (timed by the memory model)
  Sync,     // barriers, fences, warp-synchronous shuffles
  Nop,      // costs an issue slot only
  kCount
};

const char* to_string(Unit u);

// The matrix pipes (mma/wmma, MFMA), and the FMA/ALU pipes of ordinary arithmetic.
inline bool is_tensor(Unit u) {
  return u == Unit::TensorF16 || u == Unit::TensorTf32 || u == Unit::TensorI8 || u == Unit::TensorFp8 || u == Unit::TensorF64;
}
inline bool is_math(Unit u) { return u == Unit::IntAlu || u == Unit::IntMul || u == Unit::Fp32 || u == Unit::Fp16; }

}  // namespace kernsim::isa
