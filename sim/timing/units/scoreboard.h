// kernsim::sim::Scoreboard — when each register of one warp holds its value.
//
// An in-order issue model stalls an instruction until the registers it reads (and writes) are
// available. Each entry records when its pending value arrives, whether it comes from memory
// (the stall is then a memory dependency) and the pipe group that produced it (a value crossing
// between the FMA and ALU pipes arrives a cycle later on the H200: sm.cross_pipe_latency_cycles).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kernsim::sim {

class Scoreboard {
 public:
  struct Entry {
    double ready = 0;
    bool from_memory = false;
    std::uint8_t pipe_group = 0;  // 0: neither the FMA nor the ALU pipe
    bool from_wgmma = false;      // a wgmma's accumulator: other wgmmas chain on it, every other reader waits
  };

  void resize(std::size_t registers) { e_.assign(registers, Entry{}); }
  // Every register available at t (a warp starting).
  void reset(double t) { std::fill(e_.begin(), e_.end(), Entry{t, false, 0, false}); }
  const Entry& at(int reg) const { return e_[static_cast<std::size_t>(reg)]; }
  void write(int reg, double ready, bool from_memory, std::uint8_t pipe_group, bool from_wgmma = false) {
    e_[static_cast<std::size_t>(reg)] = {ready, from_memory, pipe_group, from_wgmma};
  }
  // dst gets src's pending value as it is (an instruction folded into its reader).
  void forward(int dst, int src) { e_[static_cast<std::size_t>(dst)] = e_[static_cast<std::size_t>(src)]; }
  // When the last pending value arrives (outstanding loads drain before a CTA ends).
  double latest(double floor) const {
    for (const Entry& x : e_) floor = std::max(floor, x.ready);
    return floor;
  }

 private:
  std::vector<Entry> e_;
};

}  // namespace kernsim::sim
