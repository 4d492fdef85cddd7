// kernsim::sim::Sampler — the one sampling driver both vendors' machines run under.
//
// A launch too large to time every CTA (workgroup) in detail is timed on part of the work and
// extrapolated. The sampler decides how, the same way for every part:
// - SM/CU slice: when the grid's work exceeds the detail budget and the machine can model a
//   share of the chip's shared resources, k of the part's N SMs run the first k/N of the CTAs
//   with k/N of the L2/HBM bandwidth, atomics and dispatch; the L2 starts as the CTAs after the
//   slice leave it (run functionally, the last first, until every L2 set is full).
// - Windows: window A times the kernel from its start (caches cold). When the first wave is
//   still running at the end of A and the rest of the budget cannot time it to its end, window B
//   times fresh CTAs of the next wave with the caches as A left them (CTAs of A far longer than
//   the rest keep running through B and the drain); a grid of one wave gets a second budget to
//   reach its end.
// - Steady-state rate: instructions per cycle over the second half of a window's checkpoints,
//   bounded by the busiest shared resource's served work and by the work committed to it
//   (sampling.h).
// - Extrapolation: the work per CTA (the mean of a few CTAs spread over the grid, run ahead
//   with their writes undone) times the CTAs, at the windows' rates; dirty L2 data the kernel's
//   end writes back scales with the work.
// - A floor: the CTAs still in flight when the windows end run on, timed, with no CTA started any
//   more; the kernel ends no earlier than they do (their own ends, a lower bound).
// - Functional completion: when outputs are wanted, every CTA not timed runs untimed.
//
// A machine (NvidiaMachine, AmdMachine) offers the small interface below; it knows its units
// and memory system, the sampler knows none of them.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "sim/timing/listener.h"
#include "sim/timing/sampling.h"
#include "sim/timing/timing.h"

namespace kernsim::sim {

// What the sampler drives. Event times are core cycles; "work" is the machine's measure of
// simulation effort the detail budget counts (at least the timed warp instructions).
class SampledMachine {
 public:
  virtual ~SampledMachine() = default;

  // --- set-up
  virtual std::uint64_t grid_ctas() const = 0;
  virtual int part_units() const = 0;  // SMs/CUs of the part
  // Warp instructions of CTA `id` run functionally on its own, its writes undone (the slice's
  // size and the extrapolation's work per CTA come from it), within `max_insts` instructions:
  // nothing when it reached them or spun as an endless loop (a CTA that waits on its predecessor,
  // as decoupled look-back scans do, cannot end alone). `max_insts` 0: no bound but the launch's own
  // limits, and every fault, an endless loop included, propagates.
  virtual std::optional<std::uint64_t> probe_cta(std::uint64_t id, std::uint64_t max_insts) = 0;
  virtual bool can_slice() const = 0;
  // The units of the largest slice the machine can build within `wanted` units, or of its
  // smallest slice when none fits (AMD: whole XCDs, each with its own L2; NVIDIA with clusters:
  // whole GPCs, so that clusters are placed as on the chip).
  virtual int slice_units(int wanted) const = 0;
  // The share of the chip's work and shared resources a slice of `units` stands for: units / N,
  // or, with clusters, the slice's share of the clusters the chip runs at once (a GPC may hold
  // fewer CTAs than its SMs could, and a slice must go through the same waves as the chip).
  virtual double slice_share(int units) const { return static_cast<double>(units) / static_cast<double>(part_units()); }
  // The CTAs a slice of `units` runs: how many, and whether CTA `id` is one of them (NVIDIA: the
  // first CTAs, or the first clusters, of the grid; AMD: the workgroups the dispatcher sends to
  // the slice's XCDs).
  virtual std::uint64_t slice_ctas(int units) const = 0;
  virtual bool in_slice(std::uint64_t id) const = 0;
  // Assembles the machine: `units` SMs/CUs with `share` of the chip-wide resources, running the
  // slice's `ctas` CTAs.
  virtual void assemble(int units, double share, std::uint64_t ctas) = 0;
  // The warm-up of the cache the slice shares with the rest of the chip: some CTAs outside the
  // slice run functionally (untimed), the last first, and what they leave in that cache is where
  // the slice starts; it stops once earlier CTAs could change nothing, or once it has run
  // `max_insts` instructions (the detail budget: a warm-up costs no more than the timing it
  // serves; NVIDIA's, as many CTAs as the budget-sized slice, stays within it). `warmed`: whether the
  // warm-up ran CTA `id`. `slice_text` says in words what the slice of `units` ran, for the
  // sampling note.
  // `previous_launch` (TimingOptions::warm_l2): older than what the slice's neighbours leave,
  // the cache holds what a previous run of the whole launch left in it: the grid is replayed
  // untimed, the last CTA first, its writes undone, until the cache is full, a CTA cannot run
  // alone, or the replay has run `max_insts` x kWarmReplayBudgets instructions; returns what it
  // did, in words, for the sampling note. A machine that cannot replay throws Unsupported naming
  // the option.
  virtual std::string warm_up(std::uint64_t max_insts, bool previous_launch) = 0;
  virtual bool warmed(std::uint64_t id) const = 0;
  // TimingOptions::dirty_l2: after the warm-up, the cache the slice shares with the chip starts
  // full of another buffer's dirty lines (a flush that wrote); a part whose kernels end by
  // writing their caches back (AMD) starts clean whatever the flush did, and ignores it.
  virtual void start_dirty_l2() = 0;
  virtual std::string slice_text(int units) const = 0;
  virtual std::uint64_t slots() const = 0;  // CTAs resident at once on the assembled machine
  virtual Occupancy occupancy() const = 0;
  // Starts the first wave of CTAs at `t` (also used for window B).
  virtual void fill(double t) = 0;

  // --- running
  virtual int units() const = 0;
  virtual double next_event(int unit) const = 0;  // kInf when it has nothing to do
  // Runs `unit`'s events at `now`; returns its next event (the sampler's loop, once per event).
  virtual double step(int unit, double now) = 0;
  // Units other than the stepped one whose next event the step moved earlier (a cluster barrier
  // releasing warps on other SMs, a cluster started on other SMs when a CTA ended): the machine
  // appends them, the sampler reads and clears them after each step (not virtual: read once per
  // event).
  std::vector<int>& woken() { return woken_; }
  std::uint64_t timed_insts() const { return timed_insts_; }  // read once per event: not virtual
  virtual std::uint64_t work() const = 0;
  // A window lasts at least this long (a shorter one sees only the burst before the first loads return).
  virtual double min_window_cycles() const = 0;
  virtual Progress checkpoint(double now) const = 0;
  virtual std::uint64_t ctas_done() const = 0;
  virtual std::uint64_t done_cta_insts() const = 0;
  virtual void stop() = 0;  // no CTA is started any more
  // The CTAs in flight run on (step() goes on), but no CTA is started any more (the drain of
  // Sampler::drain_floor).
  virtual void hold() = 0;
  // The CTAs in flight: (linear id, instructions timed so far), in the machine's order.
  virtual std::vector<std::pair<std::uint64_t, std::uint64_t>> in_flight() const = 0;
  // Runs the CTAs in flight whose ids are in `ids` to their ends functionally (untimed; they are
  // done for a later complete_started), within `max_insts` instructions in all: (linear id, the
  // instructions it had left), at least that many when the bound stopped it or it spun on CTAs
  // that never ran (the CTAs after one the bound stopped are left out).
  virtual std::vector<std::pair<std::uint64_t, std::uint64_t>> run_in_flight(const std::vector<std::uint64_t>& ids,
                                                                             std::uint64_t max_insts) = 0;
  // Stops every CTA in flight but those in `keep` (kept for a later functional completion) and
  // clears the units' timing state, so that window B starts from fresh CTAs; the CTAs in `keep`
  // run on in their slots (only where can_keep_in_flight()).
  virtual void abandon_in_flight(double now, const std::vector<std::uint64_t>& keep) = 0;
  virtual bool can_keep_in_flight() const { return false; }

  // --- closing
  virtual double last_cta_end() const = 0;  // when the last completed CTA's work was done
  // Closes the window at `end`: residency and stall intervals go to the listener.
  virtual void close_window(double end, bool stopped) = 0;
  virtual double l2_dirty_bytes() const = 0;
  virtual double l2_capacity_bytes() const = 0;
  // Bytes the cache the slice shares with the chip (the L2) has filled since the timed run began
  // (read misses, write allocations); negative where the machine does not count them (the
  // sampler's tail stop, which waits until the L2 has filled its capacity once, stays off).
  virtual double l2_fill_bytes() const { return -1; }
  // The kernel's end writes dirty L2 data back from `t`; returns how long that takes (0 when the
  // part's L2 writes back on eviction only).
  virtual double flush_at_end(double t) = 0;
  // `busy_scale` multiplies the shared resources' busy cycles: a window that stopped on its tail
  // reports their busy share over its steady span, not over a span its cold start dilutes
  virtual void report_memory(Listener& l, double scale, double busy_scale) const = 0;
  virtual bool reports_window() const = 0;  // its schedulers issue several instructions a cycle
  virtual void complete_started() = 0;      // finishes in-flight, abandoned and queued CTAs untimed
  virtual void run_untimed(std::uint64_t id) = 0;
  // The corner probe of a sampled run that leaves CTAs unrun (Sampler::probe_corners): the grid's
  // extent; the CTAs still queued (called once, at the end: it empties the queue); one CTA (in a cluster launch, its
  // cluster, once) run untimed within `max_insts` instructions per CTA, true when it ran to its end, false when it
  // reached the bound or spun as an endless loop (alone, it may wait on CTAs that never ran). A fault in it is the
  // launch's fault.
  virtual std::array<std::uint32_t, 3> grid_dims() const = 0;
  virtual void for_each_queued(const std::function<void(std::uint64_t)>& f) = 0;
  virtual bool probe_untimed(std::uint64_t id, std::uint64_t max_insts) = 0;
  virtual double core_mhz() const = 0;
  virtual double launch_overhead_us() const = 0;
  // Cycles the units' wgmma tensor engines were busy over the timed run (0: none, or no engine).
  virtual double tensor_busy_cycles() const { return 0; }
  virtual const char* inst_noun() const = 0;  // "warp" / "wave"
  virtual const char* cta_noun() const = 0;   // "CTA" / "workgroup"
  virtual const char* unit_noun() const = 0;  // "SMs" / "CUs"

 protected:
  std::uint64_t timed_insts_ = 0;  // instructions timed in detail so far
  std::vector<int> woken_;         // see woken()
};

// A CTA run alone (a probe of its work, a warm-up) may run this many detail budgets before it
// counts as one that cannot end alone (it spins on other CTAs in a way the endless-loop detector
// does not see).
inline constexpr std::uint64_t kProbeBudgets = 8;

// How many detail budgets a warm-L2 replay (warm_up's previous_launch) may run untimed.
inline constexpr std::uint64_t kWarmReplayBudgets = 10;

// Runs `run` (one CTA, untimed) with the kernel's instructions bounded by `max_insts`: true when it
// ends, false when it reaches the bound or spins as an endless loop. Other faults propagate.
// `max_insts` 0: no bound but the launch's own limits, and every fault propagates.
template <class Kernel, class Run>
bool probe_alone(Kernel& k, std::uint64_t max_insts, Run&& run) {
  if (max_insts == 0) {
    run();
    return true;
  }
  struct Uncap {
    Kernel& k;
    ~Uncap() { k.uncap(); }
  } uncap{k};
  k.cap_instructions(max_insts);
  try {
    run();
  } catch (const EndlessLoop&) {
    return false;
  } catch (const ProbeStopped&) {
    return false;
  }
  return true;
}

class Sampler {
 public:
  Sampler(SampledMachine& m, const TimingOptions& o, Listener& l) : m_(m), opts_(o), lis_(l) {}
  TimingResult run();

 private:
  void choose_slice();
  bool simulate(std::uint64_t budget, double& now);
  bool converged();
  bool converged_since(std::size_t from, std::uint64_t per_warp) const;
  void run_windows(double& now);
  bool first_wave_ends_within(std::uint64_t left);
  std::vector<std::uint64_t> long_in_flight();
  void extrapolate(TimingResult& r, double dirty, double flush);
  double drain_floor(double& now);
  double project_in_flight(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& mid, double t_mid, double now);
  double long_cta_threshold();
  double work_per_cta();
  double mean_cta_work();
  bool may_skip_to_tail();
  double steady_busy_scale() const;  // busy_scale for report_memory
  void finish_slice(TimingResult& r);
  void probe_corners(TimingResult& r);

  SampledMachine& m_;
  TimingOptions opts_;
  Listener& lis_;
  // the slice
  int units_ = 0;
  double share_ = 1.0;
  std::uint64_t ctas_ = 0;
  // the windows
  std::vector<Progress> progress_;
  std::uint64_t timed_a_ = 0;
  double t_a_ = 0;
  bool two_windows_ = false, finished_ = false;
  double rate_a_[2] = {0, 0}, rate_b_[2] = {0, 0};
  Progress window_end_;        // where the windows ended (before the drain)
  double per_cta_ = -1;        // work_per_cta(), once computed
  double per_cta_spread_ = 0;  // (largest - smallest) / mean of the CTAs work_per_cta() averaged
  // the convergence stop (converged()): whether it may stop the window being timed (not the
  // drain), where that window's checkpoints begin, whether the launch's work is beyond what the
  // budget can time (decided at the first converged rate), how many windows stopped on it
  bool may_converge_ = true;
  std::size_t window_from_ = 0;
  std::uint64_t resident_warps_ = 0;
  std::optional<bool> beyond_budget_;
  bool converged_ = false;
  int windows_converged_ = 0;
  // the tail stop (may_skip_to_tail): the window of a launch the budget would time to its end
  // stopped on a converged rate with CTAs still queued; the CTAs never started then, and the
  // drain's length when it ran the CTAs in flight to their ends (-1: it did not)
  bool tail_stop_ = false;
  std::optional<std::size_t> settled_from_;  // the first checkpoint after the L2 filled its capacity
  std::uint64_t queued_at_stop_ = 0;
  // every CTA had started by the windows' end (none was queued), so the work left is the CTAs in
  // flight's, counted by running them on (drain_floor): their projected ends are the kernel's
  bool all_started_ = false;
  bool all_projected_ = false;
  double left_in_flight_ = 0;  // the instructions the CTAs run on in the drain had left
  double drain_cycles_ = -1;
  // the long CTAs window A left in flight that window B and the drain keep running (long_in_flight)
  std::vector<std::uint64_t> kept_;
};

}  // namespace kernsim::sim
