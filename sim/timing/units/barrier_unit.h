// kernsim::sim::BarrierUnit — one CTA's barrier (bar.sync / s_barrier) timing.
//
// Arrivals are counted one by one (sm.barrier_cycles_per_warp each); the last arrival releases
// the waiting warps sm.barrier_latency_cycles after the count is done. Which warps wait and when
// the barrier completes is the functional model's decision; this unit says when.
#pragma once

#include <algorithm>

namespace kernsim::sim {

class BarrierUnit {
 public:
  BarrierUnit() = default;
  BarrierUnit(double cycles_per_arrival, double release_latency)
      : per_arrival_(cycles_per_arrival), latency_(release_latency) {}
  void reset() { counted_ = 0; }
  void arrive(double now) { counted_ = std::max(now, counted_) + per_arrival_; }
  // When the warps released at `now` may issue again.
  double release(double now) const { return std::max(now, counted_) + latency_; }

 private:
  double per_arrival_ = 0, latency_ = 0;
  double counted_ = 0;  // when the arrivals so far have been counted
};

}  // namespace kernsim::sim
