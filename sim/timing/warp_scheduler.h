// Warp-scheduling policies: which eligible warp a scheduler issues from. Small classes; the
// machine picks one in its assembly function.
#pragma once

#include <cstdint>

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

}  // namespace kernsim::sim
