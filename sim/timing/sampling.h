// Sampling arithmetic for the timing models: checkpoints of a detailed window and the steady
// instruction rate they imply.
//
// A detailed window records, every few thousand instructions, the time, the instructions timed so
// far and the busy time of the most loaded shared resource (an L2 channel, HBM, an atomic unit).
// The steady rate is taken over the second half of the window (the ramp-up excluded) and bounded
// by what the busiest shared resource could serve in it: posted work (stores, write-backs) can
// queue at a shared resource beyond the window's end, and a rate that ignored that backlog would
// extrapolate to a kernel faster than its memory system.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kernsim::sim {

struct Progress {
  double t = 0;
  std::uint64_t insts = 0;
  double shared_busy = 0;
  // the same counting work committed but not yet served (dirty lines a write-back L2 holds and
  // must write back once); 0 for models without such work
  double committed_busy = 0;
};

// Instructions per cycle from checkpoint a to b, bounded by the busiest shared resource's served
// (or, `committed`, committed) work in that span.
inline double rate_between(const Progress& a, const Progress& b, bool committed = false) {
  const double busy = committed ? b.committed_busy - a.committed_busy : b.shared_busy - a.shared_busy;
  const double span = std::max(b.t - a.t, busy);
  return span > 0 ? static_cast<double>(b.insts - a.insts) / span : 0.0;
}

// Whether the steady rate of the checkpoints since `from` has converged: the rate over their
// second half (the span steady_rate reads), served and committed, agrees within `tolerance` of
// itself with the rates of each half of that span and of the quarter before it. A rate that
// still climbs or falls (caches warming, a phase change) differs between these spans by about
// its drift over a quarter of the window; one whose spans agree extrapolates with an error of
// that order.
inline bool rate_converged(const std::vector<Progress>& progress, std::size_t from, double tolerance) {
  const std::size_t n = progress.size() - from;
  if (n < 8) return false;
  const Progress& q = progress[from + n / 4];
  const Progress& a = progress[from + n / 2];
  const Progress& m = progress[from + (n / 2 + n) / 2];
  const Progress& b = progress.back();
  for (bool committed : {false, true}) {
    const double half = rate_between(a, b, committed);
    if (!(half > 0)) return false;
    for (const double part : {rate_between(q, a, committed), rate_between(a, m, committed), rate_between(m, b, committed)})
      if (std::abs(part - half) > tolerance * half) return false;
  }
  return true;
}

// Instructions per cycle over the second half of the checkpoints since `from`, ending at `now`
// when fewer than four checkpoints exist. `committed`: bound by the committed work instead (the
// rate a kernel that must eventually write back what it dirtied can sustain).
inline double steady_rate(const std::vector<Progress>& progress, std::size_t from, const Progress& now, bool committed = false) {
  const std::size_t n = progress.size() - from;
  const Progress* a = &progress[from];
  Progress b = now;
  if (n >= 4) {
    a = &progress[from + n / 2];
    b = progress.back();
  }
  const double busy = committed ? b.committed_busy - a->committed_busy : b.shared_busy - a->shared_busy;
  const double span = std::max(b.t - a->t, busy);
  return span > 0 ? static_cast<double>(b.insts - a->insts) / span : 0.0;
}

}  // namespace kernsim::sim
