// Policies of the AMD timing model: small classes the machine picks in its assembly function.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kernsim::sim {

// Wave arbitration on one SIMD: higher s_setprio priority first, then the oldest wave (the
// sequencer's age order).
struct OldestFirstByPriority {
  // Lower key = preferred.
  static std::uint64_t key(int priority, std::uint64_t age) { return (static_cast<std::uint64_t>(3 - (priority & 3)) << 56) | age; }
};

// Workgroup dispatch on multi-XCD parts: workgroup i goes to XCD i mod (number of XCDs); each XCD
// hands its workgroups, in order, to its CUs as they have room (the first round round-robin over
// the XCD's CUs).
class XcdRoundRobin {
 public:
  // `used`: the first XCDs a CU slice has (the others' workgroups are not dispatched here).
  XcdRoundRobin(int xcds, std::uint64_t workgroups, int used)
      : queues_(static_cast<std::size_t>(std::min(xcds, used))), pos_(queues_.size(), 0) {
    for (std::uint64_t i = 0; i < workgroups; ++i) {
      const auto x = static_cast<std::size_t>(i % static_cast<std::uint64_t>(xcds));
      if (x < queues_.size()) queues_[x].push_back(i);
    }
  }
  bool empty(int xcd) const { return pos_[static_cast<std::size_t>(xcd)] >= queues_[static_cast<std::size_t>(xcd)].size(); }
  std::uint64_t next(int xcd) { return queues_[static_cast<std::size_t>(xcd)][pos_[static_cast<std::size_t>(xcd)]++]; }
  // Workgroups not dispatched yet, in dispatch order per XCD.
  template <class F>
  void for_each_remaining(F&& f) {
    for (std::size_t x = 0; x < queues_.size(); ++x)
      for (; pos_[x] < queues_[x].size(); ++pos_[x]) f(queues_[x][pos_[x]]);
  }

 private:
  std::vector<std::vector<std::uint64_t>> queues_;
  std::vector<std::size_t> pos_;
};

}  // namespace kernsim::sim
