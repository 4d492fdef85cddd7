// kernsim::sim::RangeScoreboard — the results one wave is still computing, as register ranges.
//
// AMD's VALU and SALU results are ready about one issue interval after issue, so few are pending
// at a time; a short list of them stays in cache where a per-register array for 300 CUs' waves
// would not. Memory results are not scoreboarded on AMD (s_waitcnt orders them: WaitCounters).
// An MFMA's result reaches another MFMA's accumulator input earlier than other readers
// (cu.mfma_read_extra_cycles later for those).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kernsim::sim {

struct RegRange {
  std::uint16_t first = 0, count = 0;  // scoreboard indices
  bool overlaps(const RegRange& o) const { return first < o.first + o.count && o.first < first + count; }
  bool contains(const RegRange& o) const { return o.first >= first && o.first + o.count <= first + count; }
};

class RangeScoreboard {
 public:
  void reset(double t) {
    pending_.clear();
    horizon_ = t;
  }
  // An instruction issued at `now` writes `writes` at `when`. Results written by now, and older
  // results of the registers written again, are forgotten; a result ready before the wave can
  // issue again (`next_issue`) is not kept.
  void write(const RegRange* writes, int n, double when, bool mfma, double now, double next_issue) {
    if (n == 0) return;
    if (!pending_.empty())
      pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                    [&](const Pending& p) {
                                      if (p.ready <= now) return true;
                                      for (int r = 0; r < n; ++r)
                                        if (writes[r].contains(p.regs)) return true;
                                      return false;
                                    }),
                     pending_.end());
    if (when <= next_issue) return;
    for (int r = 0; r < n; ++r) pending_.push_back({writes[r], mfma, when});
    horizon_ = std::max(horizon_, when);
  }
  // When `reads` are available to an instruction that could issue at `t`; read `acc` is an
  // MFMA's accumulator input, which takes an MFMA's result `forward` cycles early. Sets `waited`
  // when a pending result delayed it.
  double ready(const RegRange* reads, int n, int acc, double forward, double t, bool& waited) const {
    if (horizon_ <= t) return t;
    for (const Pending& p : pending_) {
      if (p.ready <= t) continue;
      for (int r = 0; r < n; ++r) {
        if (!reads[r].overlaps(p.regs)) continue;
        const double v = (r == acc && p.mfma) ? p.ready - forward : p.ready;
        if (v > t) {
          t = v;
          waited = true;
        }
      }
    }
    return t;
  }

 private:
  struct Pending {
    RegRange regs;
    bool mfma = false;  // written by an MFMA (accumulator forwarding)
    double ready = 0;
  };
  std::vector<Pending> pending_;
  double horizon_ = 0;  // no pending result is later than this
};

}  // namespace kernsim::sim
