// Warp-scheduling policies: which eligible warp a scheduler issues from. Small classes; the
// device file names the one a part uses (sm.warp_scheduler) and the machine's assembly function
// picks it.
#pragma once

#include <cstdint>
#include <string>

namespace kernsim::sim {

// Greedy-then-oldest: keep issuing from the warp that issued last while it can; otherwise the
// oldest eligible warp (the policy NVIDIA schedulers are reported to approximate).
struct GreedyThenOldest {
  // Lower key = preferred. `last` is the previously issued warp of this scheduler.
  static std::uint64_t key(int warp, int last, std::uint64_t age) { return warp == last ? 0 : 1 + age; }
};

// Loose round-robin: the warp after the last issued one comes first.
struct LooseRoundRobin {
  static std::uint64_t key(int warp, int last, std::uint64_t /*age*/) {
    return static_cast<std::uint64_t>((warp - last - 1 + 4096) % 4096);
  }
};

enum class WarpPolicy : std::uint8_t { GreedyThenOldest, LooseRoundRobin };

// The policy sm.warp_scheduler names (the loader accepts only these names).
inline WarpPolicy warp_policy(const std::string& name) {
  return name == "loose_round_robin" ? WarpPolicy::LooseRoundRobin : WarpPolicy::GreedyThenOldest;
}

// Lower key = preferred; 0 is the best any warp can have.
inline std::uint64_t warp_key(WarpPolicy p, int warp, int last, std::uint64_t age) {
  return p == WarpPolicy::LooseRoundRobin ? LooseRoundRobin::key(warp, last, age)
                                          : GreedyThenOldest::key(warp, last, age);
}

}  // namespace kernsim::sim
