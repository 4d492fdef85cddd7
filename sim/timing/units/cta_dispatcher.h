// kernsim::sim::CtaDispatcher — which SM/CU runs which CTA (workgroup), and when it may start.
//
// Two policies, one per vendor's hardware as documented:
// - RoundRobinToUnits (NVIDIA): CTA i goes to SM i mod N, as the dispatcher spreads a grid; each
//   SM runs its list in order as slots free up.
// - XcdRoundRobin (AMD, amd_policies.h): workgroup i goes to XCD i mod X, whose CUs take them
//   in order.
// - ClusterPlacer (NVIDIA thread-block clusters): the CTAs of a cluster start together on SMs of
//   one GPC (device file topology.gpc_sms), each in a free slot; a GPC with room for the next
//   cluster takes it, the GPCs tried in turn. Launches without clusters keep RoundRobinToUnits:
//   NVIDIA does not document the order in which its dispatcher visits SMs and GPCs.
// The start time: a chip-wide (or per-XCD) dispatcher hands out one CTA per dispatch interval,
// and a unit starts CTAs no closer together than its launch interval.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace kernsim::sim {

class DispatchClock {
 public:
  // `unit_holds_dispatcher`: a unit still inside its launch interval holds the dispatcher until
  // it can start the CTA (NVIDIA, as calibrated on the H200); otherwise (AMD) the workgroup
  // manager hands the workgroup over and serves the next request at once, and only that CU
  // waits out its launch interval (wave creation and register initialisation are the CU's).
  DispatchClock() = default;
  DispatchClock(int domains, int units, double dispatch_cycles, double launch_cycles, bool unit_holds_dispatcher = true)
      : next_(static_cast<std::size_t>(domains), 0.0),
        last_(static_cast<std::size_t>(units), -1e30),
        dispatch_(dispatch_cycles),
        launch_(launch_cycles),
        hold_(unit_holds_dispatcher) {}
  // The start of a CTA that unit `u` of dispatch domain `d` could start at `t` (calls come in
  // the order of their `t`).
  double start(int d, int u, double t) {
    double& nd = next_[static_cast<std::size_t>(d)];
    double& last = last_[static_cast<std::size_t>(u)];
    const double handed = hold_ ? std::max({t, nd, last + launch_}) : std::max(t, nd);
    nd = handed + dispatch_;
    t = std::max(handed, last + launch_);
    last = t;
    return t;
  }

 private:
  std::vector<double> next_;  // per domain: its next dispatch
  std::vector<double> last_;  // per unit: its last CTA start
  double dispatch_ = 0, launch_ = 0;
  bool hold_ = true;
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

// Where the CTAs of each cluster run. SMs are numbered GPC by GPC (GPC 0's first); a cluster's
// CTAs go to the SMs of its GPC with the most free slots (the lowest-numbered first), so they
// spread over the GPC's SMs before two share one.
class ClusterPlacer {
 public:
  ClusterPlacer() = default;
  ClusterPlacer(const std::vector<int>& gpc_sms, int slots_per_sm, int cluster_ctas, std::uint64_t clusters)
      : slots_(slots_per_sm), size_(cluster_ctas), clusters_(clusters) {
    int first = 0;
    for (int n : gpc_sms) {
      gpcs_.push_back({first, n});
      first += n;
    }
    free_.assign(static_cast<std::size_t>(first), slots_per_sm);
    busy_.assign(static_cast<std::size_t>(first) * static_cast<std::size_t>(slots_per_sm), false);
  }
  // The most CTAs one GPC holds: a cluster larger than that never runs.
  int largest_gpc_slots() const {
    int m = 0;
    for (const auto& g : gpcs_) m = std::max(m, g.second * slots_);
    return m;
  }
  // The clusters all GPCs hold at once.
  int capacity() const {
    int n = 0;
    for (const auto& g : gpcs_) n += g.second * slots_ / size_;
    return n;
  }
  bool empty() const { return next_ >= clusters_; }
  std::uint64_t next_cluster() const { return next_; }
  // Places the next cluster when a GPC has room: the (SM, slot) of each of its CTAs by rank;
  // empty when no GPC has room now (or no cluster is left).
  std::vector<std::pair<int, int>> place() {
    std::vector<std::pair<int, int>> at;
    if (empty()) return at;
    for (std::size_t k = 0; k < gpcs_.size(); ++k) {
      const std::size_t g = (cursor_ + k) % gpcs_.size();
      if (free_in(g) < size_) continue;
      for (int c = 0; c < size_; ++c) at.push_back(take(g));
      cursor_ = (g + 1) % gpcs_.size();
      ++next_;
      return at;
    }
    return at;
  }
  void release(int sm, int slot) {
    busy_[index(sm, slot)] = false;
    ++free_[static_cast<std::size_t>(sm)];
  }
  // Clusters never placed (a run stopped early), for functional completion.
  template <class F>
  void for_each_remaining(F&& f) {
    while (next_ < clusters_) f(next_++);  // a cluster f runs may cancel the next (cancel())
  }
  // clusterlaunchcontrol.try_cancel: the next cluster is never placed; its index, or nothing when
  // every cluster was placed or canceled.
  std::optional<std::uint64_t> cancel() {
    if (empty()) return std::nullopt;
    return next_++;
  }

 private:
  std::size_t index(int sm, int slot) const {
    return static_cast<std::size_t>(sm) * static_cast<std::size_t>(slots_) + static_cast<std::size_t>(slot);
  }
  int free_in(std::size_t g) const {
    int n = 0;
    for (int s = gpcs_[g].first; s < gpcs_[g].first + gpcs_[g].second; ++s) n += free_[static_cast<std::size_t>(s)];
    return n;
  }
  std::pair<int, int> take(std::size_t g) {
    int best = gpcs_[g].first;
    for (int s = gpcs_[g].first; s < gpcs_[g].first + gpcs_[g].second; ++s)
      if (free_[static_cast<std::size_t>(s)] > free_[static_cast<std::size_t>(best)]) best = s;
    int slot = 0;
    while (busy_[index(best, slot)]) ++slot;
    busy_[index(best, slot)] = true;
    --free_[static_cast<std::size_t>(best)];
    return {best, slot};
  }

  std::vector<std::pair<int, int>> gpcs_;  // first SM, SMs
  std::vector<int> free_;                  // per SM: free slots
  std::vector<bool> busy_;                 // per SM and slot
  int slots_ = 0, size_ = 1;
  std::uint64_t clusters_ = 0, next_ = 0;
  std::size_t cursor_ = 0;
};

}  // namespace kernsim::sim
