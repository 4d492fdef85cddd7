// The sampling driver (sampler.h): slice, windows, steady rates, extrapolation and functional
// completion, written once for every machine.
#include "sim/timing/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/timing/units/event_queue.h"

namespace kernsim::sim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Checkpoints of a window: every this many timed instructions (sampling.h's steady rate reads them).
constexpr std::uint64_t kCheckpointInsts = 4096;
// CTAs whose work is averaged before the rest of the grid is estimated from it (work_per_cta).
constexpr std::uint64_t kWorkSampleCtas = 8;
constexpr double kGoldenRatioFraction = 0.6180339887498949;
// The convergence stop (Sampler::converged): a window's steady rate has converged when the rates
// of its last three quarters agree within this fraction with the last half's, the span the
// steady rate is read from (sampling.h rate_converged) ...
constexpr double kRateTolerance = 0.02;
// ... tested once the window has timed this many instructions per resident warp (a span of a
// few of a typical loop's iterations in every warp, so that warps that started together and
// still run in step cannot make two halves agree by chance)
constexpr std::uint64_t kConvergeInstsPerWarp = 256;
// ... and at least this share of the detail budget (a quarter: half a window of two): a slow drift
// (an L2 that fills over a long loop) moves little between the quarters of a short window
constexpr std::uint64_t kConvergeBudgetShare = 4;
// ... in a launch whose estimated work is more than this many times what the budget times: a
// slice is sized to the budget in whole SMs and overruns it by a few per cent, and its last
// per cents are extrapolated when it does (its waves' structure is timed, not extrapolated)
constexpr double kBeyondBudget = 2.0;
// The tail stop (Sampler::may_skip_to_tail): a window of a launch the budget would time to its end
// may stop on a converged rate once this many waves of CTAs (the slots of the machine) have
// completed, so that the CTAs no longer start together as the first wave did ...
constexpr std::uint64_t kTailWaves = 2;
// ... when the CTAs' work is alike: the CTAs work_per_cta() ran, and the mean of those the window
// completed, within this fraction of their mean
constexpr double kAlikeWork = 0.02;
// A CTA in flight at window A's end is long (Sampler::long_in_flight) when it has more than this
// many mean CTAs' work left; looked for when the CTAs work_per_cta() ran differ (the largest less
// the smallest) by more than kVariedWork means
constexpr double kLongWork = 2.0;
constexpr double kVariedWork = 1.0;
}  // namespace

// SM slice. k is chosen so that the slice's work fits the detail budget, measured by running
// one CTA ahead of time (its writes undone). The slice goes through the same waves as the whole
// chip and sees the same contention per SM, so its time is the kernel's time with every phase of
// every CTA timed (a window of instructions would miss later phases). Kernels whose
// neighbouring CTAs share data keep that sharing: the slice's CTAs are contiguous.
void Sampler::choose_slice() {
  const std::uint64_t total = m_.grid_ctas();
  units_ = m_.part_units();
  ctas_ = total;
  if (opts_.full || !m_.can_slice() || total < 2 * static_cast<std::uint64_t>(units_)) return;
  // the middle CTA, or CTA 0 where the middle one cannot end alone; neither: no slice
  std::optional<std::uint64_t> probed = m_.probe_cta(total / 2, kProbeBudgets * opts_.detail_budget);
  if (!probed) probed = m_.probe_cta(0, kProbeBudgets * opts_.detail_budget);
  if (!probed) return;
  const double per_cta = static_cast<double>(*probed);
  const double work = per_cta * static_cast<double>(total);
  if (work <= static_cast<double>(opts_.detail_budget)) return;
  const double n = static_cast<double>(m_.part_units());
  const int wanted =
      std::clamp(static_cast<int>(std::ceil(n * static_cast<double>(opts_.detail_budget) / work)), 1, units_);
  const int k = m_.slice_units(wanted);  // the machine's whole granules, within the budget where one is
  if (k >= units_ || m_.slice_share(k) >= 1.0) return;
  units_ = k;
  share_ = m_.slice_share(k);
  ctas_ = m_.slice_ctas(k);
}

// Simulates until `budget` more units of work are done and the window has lasted the machine's
// minimum (or everything is done); returns false when the budget ran out first.
bool Sampler::simulate(std::uint64_t budget, double& now) {
  const double min_end = now + m_.min_window_cycles();
  const std::uint64_t limit = opts_.full ? ~std::uint64_t{0} : m_.work() + budget;
  std::uint64_t next_check = m_.timed_insts() + kCheckpointInsts;
  EventQueue pq;
  m_.woken().clear();  // what fill() woke: every unit is queued below
  for (int u = 0; u < m_.units(); ++u)
    if (m_.next_event(u) < kInf) pq.push({m_.next_event(u), u});
  while (!pq.empty()) {
    const auto [t, u] = pq.top();
    if (t != m_.next_event(u)) {  // stale
      pq.pop();
      continue;
    }
    now = t;
    const double next = m_.step(u, t);
    if (next < kInf)
      pq.replace_top({next, u});
    else
      pq.pop();
    if (std::vector<int>& woken = m_.woken(); !woken.empty()) [[unlikely]] {
      for (int v : woken)
        if (v != u && m_.next_event(v) < kInf) pq.push({m_.next_event(v), v});
      woken.clear();
    }
    if (m_.timed_insts() >= next_check) {
      next_check += kCheckpointInsts;
      progress_.push_back(m_.checkpoint(now));
      if (m_.work() >= limit && now >= min_end) return false;
      if (now >= min_end && converged()) return false;
    }
  }
  return true;
}

// A launch whose work is beyond what the detail budget can time is extrapolated at its windows'
// steady rates however long they run; a window of one stops as soon as its rate has converged
// (sampling.h rate_converged, within kRateTolerance), once it has timed kConvergeInstsPerWarp
// instructions per resident warp and a kConvergeBudgetShare-th of the budget. Whether the launch
// is beyond the budget (its estimated work more than kBeyondBudget times the budget, two budgets
// for a grid of one wave) is decided at the first converged rate, so that a launch the budget
// times to its end pays for no estimate and runs as before (the estimate, work_per_cta(), is
// the one the extrapolation uses, made earlier).
bool Sampler::converged() {
  if (!may_converge_ || opts_.full) return false;
  if (!settled_from_ && share_ * m_.l2_capacity_bytes() <= m_.l2_fill_bytes()) settled_from_ = progress_.size() - 1;
  const bool steady = converged_since(window_from_, kConvergeInstsPerWarp);
  const bool settled_steady = settled_from_ && !two_windows_ && converged_since(*settled_from_, 0);
  if (!steady && !settled_steady) return false;
  if (!beyond_budget_) {
    const double allowed = static_cast<double>(opts_.detail_budget) * (ctas_ <= m_.slots() ? 2.0 : 1.0);
    beyond_budget_ = work_per_cta() * static_cast<double>(ctas_) > kBeyondBudget * allowed;
  }
  if (*beyond_budget_ ? !steady : !(settled_steady && may_skip_to_tail())) return false;
  tail_stop_ = !*beyond_budget_;
  converged_ = true;
  ++windows_converged_;
  return true;
}

// Whether the rate of the checkpoints since `from` has converged (sampling.h rate_converged), once
// they span `per_warp` instructions per resident warp and a kConvergeBudgetShare-th of the budget
// (the tail stop asks for no instructions per warp: its kTailWaves completed waves keep warps that
// started together from agreeing by chance).
bool Sampler::converged_since(std::size_t from, std::uint64_t per_warp) const {
  const std::size_t n = progress_.size() - from;
  const std::uint64_t least = std::max(per_warp * resident_warps_, opts_.detail_budget / kConvergeBudgetShare);
  return n * kCheckpointInsts >= least && rate_converged(progress_, from, kRateTolerance);
}

// The tail stop. A launch the budget times to its end (an SM slice, a grid of many small CTAs)
// spends most of the budget on CTAs like those already timed. Its window may stop on a converged
// rate when what is left is more of the same: kTailWaves waves of CTAs have completed (the CTAs no
// longer start together as the first wave did), at least a wave of CTAs has not started, and the
// CTAs' work is alike (kAlikeWork). The CTAs in flight then run to their ends in the drain, a tail
// like the launch's own (CTAs in flight, none left to start), and the CTAs not started are
// extrapolated at the converged rate (extrapolate).
bool Sampler::may_skip_to_tail() {
  if (two_windows_ || window_from_ != 0) return false;
  const std::uint64_t slots = m_.slots(), done = m_.ctas_done();
  if (done < kTailWaves * slots) return false;
  const std::uint64_t started = done + m_.in_flight().size();
  if (started >= ctas_ || ctas_ - started < slots) return false;
  const double mean = work_per_cta();
  if (!(mean > 0) || per_cta_spread_ > kAlikeWork) return false;
  const double done_mean = static_cast<double>(m_.done_cta_insts()) / static_cast<double>(done);
  if (std::abs(done_mean - mean) > kAlikeWork * mean) return false;
  queued_at_stop_ = ctas_ - started;
  return true;
}

// A window the tail stop ended (may_skip_to_tail) is short: its span before the L2 settled (no
// evictions, no write-backs yet) is a good part of it, and the shared resources' busy share over
// the whole window understates the steady one the rest of the launch runs at (a copy's HBM 59%
// busy where its settled span has it bound). The factor that brings the window's share to the
// settled span's, never below 1; 1 for every other window.
double Sampler::steady_busy_scale() const {
  if (!tail_stop_ || !settled_from_ || progress_.empty()) return 1.0;
  const Progress& a = progress_[*settled_from_];
  const Progress& b = progress_.back();
  if (!(b.t > a.t) || !(b.t > 0) || !(b.shared_busy > 0)) return 1.0;
  const double steady = (b.shared_busy - a.shared_busy) / (b.t - a.t);
  const double whole = b.shared_busy / b.t;
  return std::max(1.0, steady / whole);
}

// Window A from the start; window B on fresh CTAs of the next wave when the first wave is still
// running at A's end; a grid of one wave (grid-stride loops), whose CTAs all end at about the
// same time in a last phase unlike the steady loop, gets a second budget to reach its end.
void Sampler::run_windows(double& now) {
  const std::uint64_t budget_a = opts_.detail_budget / 2;
  resident_warps_ = m_.slots() * static_cast<std::uint64_t>(m_.occupancy().warps_per_block);
  finished_ = simulate(budget_a, now);
  for (int k = 0; k < 2 && !finished_; ++k) rate_a_[k] = steady_rate(progress_, 0, m_.checkpoint(now), k == 1);
  timed_a_ = m_.timed_insts();
  t_a_ = now;
  const std::uint64_t slots = m_.slots();
  if (!finished_ && ctas_ > slots && m_.ctas_done() < slots / 2 &&
      !first_wave_ends_within(opts_.detail_budget - budget_a)) {
    two_windows_ = true;
    beyond_budget_ = true;  // extrapolated in any case
    kept_ = long_in_flight();
    m_.abandon_in_flight(now, kept_);
    m_.fill(now);
    const std::size_t from = progress_.size();
    window_from_ = from;
    converged_ = false;
    progress_.push_back(m_.checkpoint(now));
    finished_ = simulate(opts_.detail_budget - budget_a, now);
    for (int k = 0; k < 2; ++k) rate_b_[k] = steady_rate(progress_, from, m_.checkpoint(now), k == 1);
  } else if (!finished_ && !converged_) {
    finished_ = simulate(opts_.detail_budget - budget_a, now);
    if (!finished_ && !converged_ && ctas_ <= slots) finished_ = simulate(opts_.detail_budget, now);
  }
}

// Whether window A, run on with the rest of the budget (`left`), reaches the end of the first
// wave: the first wave's work (work_per_cta() for each slot) less what A has timed is within it.
// Window B then has no reason to run: it would abandon CTAs nearly done, start a wave of fresh CTAs
// in step that the chip starts as the first wave's end, and run fewer CTAs beside them than the
// chip does when the slice holds less than two waves.
bool Sampler::first_wave_ends_within(std::uint64_t left) {
  const double wave1 = work_per_cta() * static_cast<double>(std::min(m_.slots(), ctas_));
  return wave1 - static_cast<double>(m_.timed_insts()) <= static_cast<double>(left);
}

// The CTAs in flight at window A's end that window B keeps running (a power-law SpMV's long
// rows): abandoned, a CTA far longer than the rest is neither timed nor seen by the floor, and the
// launch ends with the grid's mean work, long before that CTA would (one 20,000-step chase in CTA
// 0 among CTAs of FMAs: 31.6 us sampled against 453.9 us --full). Kept, it runs on beside window
// B's CTAs and then alone in the drain, whose floor covers it (drain_floor). Looked for only when
// the CTAs' work varies (the CTAs work_per_cta() ran differ by more than kVariedWork means): each
// CTA in flight is run ahead alone (its writes undone) up to what it has timed plus kLongWork mean
// CTAs' work, within kProbeBudgets detail budgets in all; one that reaches that bound (or cannot
// end alone) is kept.
std::vector<std::uint64_t> Sampler::long_in_flight() {
  std::vector<std::uint64_t> keep;
  const double mean = work_per_cta();
  if (!m_.can_keep_in_flight() || !(mean > 0) || !(per_cta_spread_ > kVariedWork)) return keep;
  const auto extra = static_cast<std::uint64_t>(kLongWork * mean) + 1;
  std::uint64_t used = 0;
  for (const auto& [id, timed] : m_.in_flight()) {
    const std::uint64_t bound = timed + extra;
    if (used + bound > kProbeBudgets * opts_.detail_budget) break;
    const std::optional<std::uint64_t> w = m_.probe_cta(id, bound);
    used += w ? *w : bound;
    if (!w) keep.push_back(id);
  }
  return keep;
}

// Work per CTA from kWorkSampleCtas CTAs spread over the grid (golden-ratio steps, so a grid
// whose work repeats with some period is not sampled in step with it), each run ahead
// functionally with its writes undone. Not from the CTAs the windows completed: those are the
// short ones first (a causal attention's first query blocks), and their mean underestimates.
double Sampler::work_per_cta() {
  if (per_cta_ >= 0) return per_cta_;
  per_cta_ = mean_cta_work();
  return per_cta_;
}

double Sampler::mean_cta_work() {
  const std::uint64_t grid = m_.grid_ctas();
  const std::uint64_t n = std::min<std::uint64_t>(kWorkSampleCtas, grid);
  double sum = 0, least = std::numeric_limits<double>::infinity(), most = 0;
  std::uint64_t ended = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const double f = std::fmod(static_cast<double>(k) * kGoldenRatioFraction, 1.0);
    const auto id = std::min(grid - 1, static_cast<std::uint64_t>(f * static_cast<double>(grid)));
    if (const std::optional<std::uint64_t> w = m_.probe_cta(id, kProbeBudgets * opts_.detail_budget)) {
      sum += static_cast<double>(*w);
      least = std::min(least, static_cast<double>(*w));
      most = std::max(most, static_cast<double>(*w));
      ++ended;
    }
  }
  per_cta_spread_ = kInf;  // unknown unless the sampled CTAs ended
  if (ended) {
    const double mean = sum / static_cast<double>(ended);
    if (ended == n && mean > 0) per_cta_spread_ = (most - least) / mean;
    return mean;
  }
  // none could end alone (each waits on others): the CTAs the timed run completed
  const std::uint64_t done = m_.ctas_done();
  if (done) return static_cast<double>(m_.done_cta_insts()) / static_cast<double>(done);
  // nothing ended anywhere: CTA 0 alone under the launch's own limits, so a CTA that never ends is
  // the launch's fault (the instruction or wall-time limit, or a proven endless loop), never a time
  return static_cast<double>(*m_.probe_cta(0, 0));
}

// The kernel's time from the windows' rates (window_end_: where they ended). At the served rate the
// dirty L2 lines left at the end are written back after it; at the committed rate every write-back
// is already paid for; the kernel takes the longer.
void Sampler::extrapolate(TimingResult& r, double dirty, double flush) {
  const double per_cta = work_per_cta();
  const double total = per_cta * static_cast<double>(r.ctas_total);
  const double now = window_end_.t, in_windows = static_cast<double>(window_end_.insts);
  const double timed = static_cast<double>(m_.timed_insts());  // the drain's too
  r.extrapolated = true;
  r.warp_insts_estimated = total;
  r.sampled_fraction = total > 0 ? std::min(1.0, timed / total) : 1;
  double cycles[2];
  for (int k = 0; k < 2; ++k) {
    if (two_windows_) {
      const double wave1 = per_cta * static_cast<double>(std::min<std::uint64_t>(m_.slots(), r.ctas_total));
      const double t_wave1 = rate_a_[k] > 0 ? wave1 / rate_a_[k] : t_a_;
      cycles[k] = t_wave1 + (rate_b_[k] > 0 ? std::max(0.0, total - wave1) / rate_b_[k] : 0.0);
    } else if (tail_stop_ && drain_cycles_ >= 0) {  // the CTAs not started, then the drain's tail
      const double rate = steady_rate(progress_, *settled_from_, window_end_, k == 1);
      const double queued = per_cta * static_cast<double>(queued_at_stop_);
      cycles[k] = now + (rate > 0 ? queued / rate : 0) + drain_cycles_;
    } else {
      const double rate = steady_rate(progress_, 0, window_end_, k == 1);
      cycles[k] = now + (rate > 0 ? std::max(0.0, total - in_windows) / rate : 0);
    }
  }
  // the L2 holds the dirty lines of the whole kernel at its end, as far as they fit
  const double dirty_end = std::min(m_.l2_capacity_bytes(), dirty * total / std::max(1.0, timed));
  const double flush_end = dirty > 0 ? flush * std::max(dirty, dirty_end) / dirty : 0.0;
  r.cycles = std::max(cycles[0] + flush_end, cycles[1]);
  const std::string bound =
      cycles[1] > cycles[0] + flush_end ? "; bounded by the write-backs its dirty lines commit HBM to" : "";
  const std::string inst = std::string(m_.inst_noun()) + " instructions";
  if (two_windows_)
    r.sampling_note = "two windows: the first wave of " + std::string(m_.cta_noun()) + "s from the start (" +
                      std::to_string(timed_a_) + " " + inst + ", cold) and the next wave (" +
                      std::to_string(m_.timed_insts() - timed_a_) + ", warm) of ~" +
                      std::to_string(static_cast<std::uint64_t>(total)) + "; extrapolated at their steady rates" +
                      bound;
  else
    r.sampling_note = "timed " + std::to_string(m_.timed_insts()) + " of ~" +
                      std::to_string(static_cast<std::uint64_t>(total)) + " " + inst + " in detail (" +
                      std::to_string(m_.ctas_done()) + " of " + std::to_string(r.ctas_total) + " " + m_.cta_noun() +
                      "s completed), extrapolated at the steady-state rate" + bound;
  if (windows_converged_)
    r.sampling_note += std::string("; ") + (windows_converged_ > 1 ? "both windows" : "the window") +
                       " stopped once the steady rate had converged (the rates of its last three quarters within " +
                       std::to_string(static_cast<int>(std::lround(kRateTolerance * 100))) + "% of the last half's)";
  if (tail_stop_ && drain_cycles_ >= 0)
    r.sampling_note += "; the " + std::to_string(queued_at_stop_) + " " + m_.cta_noun() +
                       "s not yet started extrapolated at that rate, the ones in flight run to their ends";
}

// A floor for the CTAs still in flight when the windows end (a power-law SpMV's longest rows, one
// thread each, run for 6x the rest of the kernel): the rate of the whole slice extrapolates the
// work, but those CTAs end when their own slow warps do. They run on, timed, with no CTA started
// any more, within a quarter of the detail budget; with fewer CTAs beside them than on the chip
// they meet less contention, so when they end is a lower bound on the kernel's end. When the
// budget runs out first, the kernel ends no earlier than the drain did, nor than the projected
// end of a CTA that still had more than twice a mean CTA's work left (project_in_flight). Moves
// `now` to the drain's end.
double Sampler::drain_floor(double& now) {
  m_.hold();
  may_converge_ = false;  // the drain runs to its own ends
  // the long CTAs kept from window A run on alone: window B's CTAs are extrapolated, and beside
  // them the kept CTAs' rate over the drain's second half would be that of their first steps
  if (!kept_.empty()) m_.abandon_in_flight(now, kept_);
  const std::size_t from = progress_.size();
  const std::uint64_t half = std::max<std::uint64_t>(1, opts_.detail_budget / 8);
  bool ended = simulate(half, now);
  double floor = now;
  if (!ended) {
    const auto mid = m_.in_flight();
    const double t_mid = now;
    ended = simulate(half, now);
    floor = ended ? now : std::max(now, project_in_flight(mid, t_mid, now));
  }
  if (ended) floor = m_.last_cta_end();
  if (ended && tail_stop_) drain_cycles_ = std::max(0.0, floor - window_end_.t);
  progress_.resize(from);
  return floor;
}

// A CTA is long when it has timed more than a mean CTA's work or than the CTAs that completed did
// on average: a chain of dependent loads times few instructions, and the sampled mean holds the
// long CTAs it happened to sample (a power-law SpMV's CTA 0).
double Sampler::long_cta_threshold() {
  double threshold = work_per_cta();
  if (const std::uint64_t done = m_.ctas_done())
    threshold = std::min(threshold, static_cast<double>(m_.done_cta_insts()) / static_cast<double>(done));
  return threshold;
}

// The end of the CTAs in flight that hold far more work than the rest: each CTA's instructions
// left at its own rate over the second half of the drain (a CTA left with one slow warp: that
// warp's rate). Only long CTAs (long_cta_threshold) are run on (functionally) to count what they
// have left, and only those with more than twice a mean CTA's work left count: in a grid of like
// CTAs none has (and running them all would cost a functional pass over the rest of a one-wave
// grid, where none has completed), and a CTA the scheduler held back in the drain would otherwise
// project far beyond its end. In the slice's tail (all_started_: every CTA started, at most half
// the slots it filled hold one; a one-wave grid's CTAs are all in flight) every CTA in flight is
// run on and projected, and when each has a rate (all_projected_) the last of their ends is the
// kernel's: what is left is their work, not an estimate of the grid's (8 CTAs' mean, with a long
// CTA among them, inflated it); when one has none, the long ones' ends are the floor, as outside
// the tail.
double Sampler::project_in_flight(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& mid, double t_mid,
                                  double now) {
  if (now <= t_mid) return now;
  const double mean = work_per_cta(), threshold = long_cta_threshold();
  const auto at_end = m_.in_flight();
  std::vector<std::uint64_t> run_on;
  for (const auto& [id, insts] : at_end)
    if (all_started_ || static_cast<double>(insts) > threshold) run_on.push_back(id);
  const auto left = m_.run_in_flight(run_on, kProbeBudgets * opts_.detail_budget);
  all_projected_ = all_started_ && left.size() == at_end.size();
  double end = now, end_long = now;  // of every CTA run on; of the long ones with much work left
  for (const auto& [id, n] : left) {
    left_in_flight_ += static_cast<double>(n);
    const auto a = std::find_if(mid.begin(), mid.end(), [&](const auto& p) { return p.first == id; });
    const auto b = std::find_if(at_end.begin(), at_end.end(), [&](const auto& p) { return p.first == id; });
    if (a == mid.end() || b == at_end.end() || b->second <= a->second) {
      all_projected_ = false;
      continue;
    }
    const double rate = static_cast<double>(b->second - a->second) / (now - t_mid);
    end = std::max(end, now + static_cast<double>(n) / rate);
    if (static_cast<double>(b->second) > threshold && static_cast<double>(n) > 2.0 * mean)
      end_long = std::max(end_long, now + static_cast<double>(n) / rate);
  }
  return all_projected_ ? end : end_long;
}

// A slice's result stands for the whole grid; the CTAs beyond the slice and its warm-up run
// untimed when outputs are wanted.
void Sampler::finish_slice(TimingResult& r) {
  const std::uint64_t grid = m_.grid_ctas();
  if (share_ >= 1.0) return;
  const std::string slice = m_.slice_text(units_);
  r.sampling_note = slice + (r.extrapolated ? "; " + r.sampling_note : "");
  r.extrapolated = true;
  r.warp_insts_estimated /= share_;
  r.sampled_fraction *= share_;
  r.ctas_total = grid;
  if (opts_.complete_functionally)
    for (std::uint64_t c = 0; c < grid; ++c)
      if (!m_.in_slice(c) && !m_.warmed(c)) m_.run_untimed(c);
}

// A sampled run leaves CTAs that never ran, and a fault in them would go unseen; bounds are crossed
// most often at the grid's edges. Without functional completion, the grid's corner CTAs (at most
// eight) that never started run untimed, each within a bound on its instructions: eight times the
// mean of the CTAs that completed, at least an eighth of the detail budget. One that reaches the
// bound or spins as an endless loop (alone, it may wait on CTAs that never ran) is counted as open,
// not as a fault.
void Sampler::probe_corners(TimingResult& r) {
  if (opts_.complete_functionally || r.ctas_timed >= r.ctas_total) return;
  const std::array<std::uint32_t, 3> g = m_.grid_dims();
  std::vector<std::uint64_t> corners;
  for (int k = 0; k < 8; ++k) {
    const std::uint64_t x = (k & 1) ? g[0] - 1 : 0, y = (k & 2) ? g[1] - 1 : 0, z = (k & 4) ? g[2] - 1 : 0;
    const std::uint64_t id = x + std::uint64_t{g[0]} * (y + std::uint64_t{g[1]} * z);
    if (std::find(corners.begin(), corners.end(), id) == corners.end()) corners.push_back(id);
  }
  std::vector<std::uint64_t> unrun;
  for (std::uint64_t id : corners)
    if (share_ < 1.0 && !m_.in_slice(id) && !m_.warmed(id)) unrun.push_back(id);
  m_.for_each_queued([&](std::uint64_t id) {
    if (std::find(corners.begin(), corners.end(), id) != corners.end()) unrun.push_back(id);
  });
  const std::uint64_t done = m_.ctas_done();
  const std::uint64_t mean = done ? m_.done_cta_insts() / done : 0;
  const std::uint64_t bound = std::max(8 * mean, opts_.detail_budget / 8);
  for (std::uint64_t id : unrun) (m_.probe_untimed(id, bound) ? r.ctas_probed : r.ctas_probe_open) += 1;
}

TimingResult Sampler::run() {
  choose_slice();
  m_.assemble(units_, share_, ctas_);
  std::string warm;
  if (share_ < 1.0 || opts_.warm_l2) warm = m_.warm_up(opts_.detail_budget, opts_.warm_l2);
  if (opts_.dirty_l2) m_.start_dirty_l2();
  m_.fill(0);
  TimingResult r;
  r.occupancy = m_.occupancy();
  r.sms_simulated = units_;
  r.ctas_total = ctas_;
  double now = 0;
  run_windows(now);
  // nothing left to do with CTAs of the window unfinished: the machine lost them (an SM whose
  // event it never queued); a time without them would be wrong without saying so
  if (finished_ && !two_windows_ && m_.ctas_done() < ctas_)
    throw Error(ErrorKind::Internal, "kernsim bug: " + std::to_string(ctas_ - m_.ctas_done()) + " of " +
                                         std::to_string(ctas_) + " " + m_.cta_noun() + "s never finished, and no " +
                                         m_.unit_noun() + " had anything left to do");
  window_end_ = m_.checkpoint(now);
  if (!finished_ && !two_windows_) {
    const std::size_t running = m_.in_flight().size();
    all_started_ = m_.ctas_done() + running >= ctas_ && 2 * running <= std::min(m_.slots(), ctas_);
  }
  double floor = finished_ ? 0.0 : drain_floor(now);
  // the drain ran the slice's last CTAs to their ends (none was left to start): every CTA of it was
  // timed, and its end is the kernel's, not an extrapolation of a work estimate (8 CTAs' mean: one
  // long CTA among them doubles it)
  if (!finished_ && !two_windows_ && m_.ctas_done() >= ctas_) finished_ = true;
  if (!finished_) m_.stop();
  const double end = finished_ ? m_.last_cta_end() : now;
  m_.close_window(end, !finished_);
  const double dirty = m_.l2_dirty_bytes();
  const double flush = m_.flush_at_end(end);
  if (m_.reports_window()) lis_.on_window(std::max(1.0, end + flush));
  r.warp_insts_timed = m_.timed_insts();
  r.ctas_timed = m_.ctas_done();
  if (finished_ && !two_windows_) {
    r.cycles = end + flush;
    r.warp_insts_estimated = static_cast<double>(m_.timed_insts());
    r.sampled_fraction = 1.0;
    r.sampling_note = std::string("every ") + m_.cta_noun() + " timed in detail";
  } else {
    extrapolate(r, dirty, flush);
    if (all_projected_) {
      r.cycles = floor;
      r.warp_insts_estimated = static_cast<double>(r.warp_insts_timed) + left_in_flight_;
      r.sampled_fraction = static_cast<double>(r.warp_insts_timed) / std::max(1.0, r.warp_insts_estimated);
      r.sampling_note = std::string("every ") + m_.cta_noun() + " started; timed " +
                        std::to_string(r.warp_insts_timed) + " " + m_.inst_noun() + " instructions, and the " +
                        m_.cta_noun() +
                        "s in flight at the drain's end ended at their own rates (the work they had left counted by "
                        "running them on)";
    } else if (floor > r.cycles) {
      r.cycles = floor;
      r.sampling_note += std::string("; ended no earlier than the ") + m_.cta_noun() +
                         "s in flight at the windows' end (run on, timed, with none started)";
    }
  }
  // the counters stand for the whole kernel on every part and in every mode: a slice's traffic for
  // 1/share of the chip's, a window's for the work extrapolated over the work it timed
  double scale = share_ < 1.0 ? 1.0 / share_ : 1.0;
  if (r.extrapolated && r.warp_insts_timed > 0)
    scale *= r.warp_insts_estimated / static_cast<double>(r.warp_insts_timed);
  m_.report_memory(lis_, scale, steady_busy_scale());
  if ((!finished_ || two_windows_) && opts_.complete_functionally) m_.complete_started();
  finish_slice(r);
  probe_corners(r);
  if (!warm.empty()) r.sampling_note += "; " + warm;
  if (const double busy = m_.tensor_busy_cycles(); busy > 0 && r.warp_insts_timed > 0 && r.cycles > 0) {
    const double launch_busy = busy / static_cast<double>(r.warp_insts_timed) * r.warp_insts_estimated;
    const double sms = static_cast<double>(m_.part_units());
    r.tensor_busy_fraction = std::min(1.0, launch_busy / (sms * r.cycles));
    r.tensor_busy_sm_fraction =
        std::min(1.0, launch_busy / (std::min(sms, static_cast<double>(r.ctas_total)) * r.cycles));
  }
  r.kernel_us = r.cycles / m_.core_mhz();
  r.launch_us = m_.launch_overhead_us();
  r.time_us = r.kernel_us + r.launch_us;
  return r;
}

}  // namespace kernsim::sim
