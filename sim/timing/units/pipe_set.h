// kernsim::sim::PipeSet — the execution pipes of one scheduler (sub-partition): when each pipe
// can take its next instruction.
//
// A pipe is busy for an instruction's issue interval (device file: pipes.*.issue_cycles). On
// parts where matrix instructions and the FMA/ALU pipes hold each other
// (sm.tensor_shares_math_pipes, measured on the H200), an instruction on one side holds the
// other side's pipes for its issue interval too.
#pragma once

#include <algorithm>
#include <array>

#include "isa/unit.h"

namespace kernsim::sim {

class PipeSet {
 public:
  static constexpr int kUnits = static_cast<int>(isa::Unit::kCount);

  explicit PipeSet(bool tensor_shares_math = false) : share_(tensor_shares_math) {}
  double free_at(isa::Unit u) const { return free_[index(u)]; }
  double free_at(int u) const { return free_[static_cast<std::size_t>(u)]; }
  void reset(double t) { free_.fill(t); }
  // Unit u takes an instruction at `now` that keeps it busy for `busy` cycles.
  void occupy(isa::Unit u, double now, double busy) {
    free_[index(u)] = now + busy;
    if (!share_) return;
    // the double-precision DMMA is left out: no measurement
    static constexpr isa::Unit kMath[] = {isa::Unit::IntAlu, isa::Unit::IntMul, isa::Unit::Fp32, isa::Unit::Fp16};
    static constexpr isa::Unit kMatrix[] = {isa::Unit::TensorF16, isa::Unit::TensorTf32, isa::Unit::TensorI8,
                                            isa::Unit::TensorFp8};
    if (isa::is_math(u))
      hold(kMatrix, now + busy);
    else if (isa::is_tensor(u) && u != isa::Unit::TensorF64)
      hold(kMath, now + busy);
  }
  // Unit u is busy until at least `until` (a helper instruction ahead of the real one).
  void hold(isa::Unit u, double until) { free_[index(u)] = std::max(free_[index(u)], until); }

 private:
  static std::size_t index(isa::Unit u) { return static_cast<std::size_t>(u); }
  template <class L>
  void hold(const L& units, double until) {
    for (isa::Unit o : units) hold(o, until);
  }
  std::array<double, kUnits> free_{};
  bool share_ = false;
};

}  // namespace kernsim::sim
