// kernsim::sim::CtaDispatcher — which SM/CU runs which CTA (workgroup), and when it may start.
//
// Two policies, one per vendor's hardware as documented:
// - RoundRobinToUnits (NVIDIA): CTA i goes to SM i mod N, as the dispatcher spreads a grid; each
//   SM runs its list in order as slots free up.
// - XcdRoundRobin (AMD, amd_policies.h): workgroup i goes to XCD i mod X, whose CUs take them
//   in order.
// The start time: a chip-wide (or per-XCD) dispatcher hands out one CTA per dispatch interval,
// and a unit starts CTAs no closer together than its launch interval.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kernsim::sim {

class DispatchClock {
 public:
  DispatchClock() = default;
  DispatchClock(int domains, int units, double dispatch_cycles, double launch_cycles)
      : next_(static_cast<std::size_t>(domains), 0.0),
        last_(static_cast<std::size_t>(units), -1e30),
        dispatch_(dispatch_cycles),
        launch_(launch_cycles) {}
  // The start of a CTA that unit `u` of dispatch domain `d` could start at `t`.
  double start(int d, int u, double t) {
    double& nd = next_[static_cast<std::size_t>(d)];
    double& last = last_[static_cast<std::size_t>(u)];
    t = std::max({t, nd, last + launch_});
    nd = t + dispatch_;
    last = t;
    return t;
  }

 private:
  std::vector<double> next_;  // per domain: its next dispatch
  std::vector<double> last_;  // per unit: its last CTA start
  double dispatch_ = 0, launch_ = 0;
};

class RoundRobinToUnits {
 public:
  RoundRobinToUnits() = default;
  RoundRobinToUnits(int units, std::uint64_t ctas)
      : q_(static_cast<std::size_t>(units)), pos_(static_cast<std::size_t>(units), 0) {
    for (std::uint64_t c = 0; c < ctas; ++c)
      q_[static_cast<std::size_t>(c % static_cast<std::uint64_t>(units))].push_back(c);
  }
  bool empty(int u) const { return pos_[static_cast<std::size_t>(u)] >= q_[static_cast<std::size_t>(u)].size(); }
  std::uint64_t next(int u) { return q_[static_cast<std::size_t>(u)][pos_[static_cast<std::size_t>(u)]++]; }
  template <class F>
  void for_each_remaining(F&& f) {
    for (std::size_t u = 0; u < q_.size(); ++u)
      for (; pos_[u] < q_[u].size(); ++pos_[u]) f(q_[u][pos_[u]]);
  }

 private:
  std::vector<std::vector<std::uint64_t>> q_;
  std::vector<std::size_t> pos_;
};

}  // namespace kernsim::sim
