// kernsim::sim::MbarrierTimes — when the phases of one CTA's mbarriers complete, and which warps
// sleep in a failing mbarrier wait until then.
//
// The functional model decides which operation completes a phase (the last arrival, the last
// transaction bytes of a copy); the timing model records when each operation of the current
// phase happens (an arrival at its issue plus the arrive latency, a copy's bytes when its engine
// delivers them), and the phase completes at the latest of them. A warp whose wait fails sleeps
// here and wakes when the phase completes; a wait that succeeds has its result no earlier than
// the completion of the phase it waited for. Keyed by the barrier's shared-memory offset; a
// cluster's barriers will live in its ClusterContext the same way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace kernsim::sim {

class MbarrierTimes {
 public:
  void reset() { bars_.clear(); }
  // An operation of the current phase of the barrier at `addr` takes effect at `t`.
  void record(std::uint32_t addr, double t) {
    Bar& b = bars_[addr];
    b.latest = std::max(b.latest, t);
  }
  // The current phase completed with the operation recorded last: returns when, and starts the
  // next phase there.
  double complete_phase(std::uint32_t addr) {
    Bar& b = bars_[addr];
    b.completed = b.latest;
    return b.completed;
  }
  // When its latest phase completed (0 when none has).
  double last_completion(std::uint32_t addr) const {
    auto it = bars_.find(addr);
    return it == bars_.end() ? 0 : it->second.completed;
  }
  // Warp slot `warp` sleeps in a failing wait on the barrier at `addr`.
  void sleep(std::uint32_t addr, int warp) { bars_[addr].sleepers.push_back(warp); }
  // The warps sleeping on it (the phase completed); they are forgotten here.
  std::vector<int> wake(std::uint32_t addr) {
    auto it = bars_.find(addr);
    if (it == bars_.end()) return {};
    std::vector<int> w;
    w.swap(it->second.sleepers);
    return w;
  }

 private:
  struct Bar {
    double latest = 0, completed = 0;
    std::vector<int> sleepers;
  };
  std::map<std::uint32_t, Bar> bars_;
};

}  // namespace kernsim::sim
