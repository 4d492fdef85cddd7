// The NVIDIA GPU timing model: SMs of sub-partitions, each a warp scheduler with its pipe set;
// per-warp scoreboards and async copy groups; a barrier unit per CTA; CTA dispatch with occupancy
// limits; the memory hierarchy of memory_model/. NvidiaMachine::assemble() builds it from a
// DeviceSpec; the Sampler (sampler.h) drives it.
//
//   SM ─┬─ sub-partition × sm.sub_partitions ── warp scheduler (sm.warp_scheduler) ── PipeSet
//       │                                        (int_alu, int_mul, fp32, fp16, fp64, sfu, convert,
//       │                                         branch, tensor_*; tensor shares the math pipes)
//       ├─ tensor engine (wgmma.mma_async of all four sub-partitions, sm.wgmma_*)
//       ├─ warp slots × (blocks_per_sm × warps_per_block): Scoreboard, AsyncGroups (cp.async, wgmma)
//       ├─ CTA slots × blocks_per_sm: BarrierUnit, ClusterContext
//       ├─ DSMEM port: another CTA's shared memory over the SM-to-SM network
//       └─ memory front: NvMemorySystem (coalescer, L1/shared banks, L2 slice share, HBM)
//   chip: CtaDispatcher (round-robin to SMs, or whole clusters to the SMs of one GPC:
//         ClusterPlacer; DispatchClock), NvMemorySystem's L2/HBM/atomics
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "base/error.h"
#include "isa/ptx/ops.h"
#include "isa/ptx/program.h"
#include "memory_model/nvidia_memory.h"
#include "sim/timing/sampler.h"
#include "sim/timing/timing.h"
#include "sim/timing/units/async_engine.h"
#include "sim/timing/units/barrier_unit.h"
#include "sim/timing/units/completion.h"
#include "sim/timing/units/cta_dispatcher.h"
#include "sim/timing/units/mbarrier_times.h"
#include "sim/timing/units/pipe_set.h"
#include "sim/timing/units/scoreboard.h"
#include "sim/timing/units/tensor_engine.h"
#include "sim/timing/warp_scheduler.h"

namespace kernsim::sim {

namespace P = isa::ptx;
using isa::Unit;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNoMbarrier = 0xffffffffu;
constexpr int kWarpgroupWarps = 4;  // PTX ISA: a warpgroup is four contiguous warps of a CTA

// The pipe group of a unit (isa/ptx/ops.h): a value crossing between the FMA and ALU pipes pays
// sm.cross_pipe_latency_cycles.
std::uint8_t pipe_group(Unit u) { return static_cast<std::uint8_t>(P::pipe_group(u)); }

struct PipeTiming {
  double issue = 1, latency = 1;
};

// The timing descriptor of one static instruction, built once at assembly.
struct InstTiming {
  Unit unit = Unit::Nop;
  int alt = -1;                  // a second pipe it may use (integer add on the FMA pipe), or -1
  double busy[2] = {1, 1};       // issue cycles on unit / on alt
  double latency[2] = {1, 1};    // issue to dependent issue on unit / on alt
  double flops_per_lane = 0, flops_per_inst = 0;
  double engine_cycles = 0;      // wgmma.mma_async: its service on the SM's tensor engine
  int guard_issued = 0;          // FP32 instructions ptxas adds around a non-ftz MUFU (TimingDesc::guard_issued)
  std::uint8_t group[2] = {0, 0};  // pipe_group of unit / of alt (what its result carries)
  std::uint8_t first_group = 0;    // pipe_group of the pipe it is issued to first (alt when it has one)
  bool wgmma = false;              // wgmma.mma_async
  bool folded = false;             // P::kFoldedModifier: executes with no time (skip_folded)
  // the scoreboard entries it waits for (guard, sources, destinations, address bases, in that
  // order): dep_regs_[dep_begin, dep_end)
  std::uint32_t dep_begin = 0, dep_end = 0;
};

// What a scheduler reads of each of its warps on every pick. A sub-partition keeps those of its
// warps side by side (Sub::sched), so that its scan walks a few cache lines instead of one per warp.
struct SchedState {
  double dep_ready = 0;  // cached by refresh(): when the next instruction's operands are ready
  std::uint64_t age = 0;
  std::int8_t unit = 0, alt = -1;  // cached by refresh(): the next instruction's pipes (InstTiming)
  Stall dep_why = Stall::ExecutionDependency;
  bool live = false;
  bool at_barrier = false;
};

struct Sub;

// What every issue reads or writes comes first (two cache lines), the asynchronous state after.
struct Warp {
  SchedState* sched = nullptr;  // its entry in its sub-partition's Sub::sched
  Sub* home = nullptr;          // that sub-partition
  std::uint64_t bit = 0;        // its bit in home's masks (its index in Sub::sched)
  std::uint32_t pc = 0;         // next instruction
  int cta = -1;  // CTA slot
  int widx = 0;  // warp index inside its CTA
  int sub = 0;
  double ready = 0;  // in-order issue: not before
  bool ready_is_async = false;
  // asleep in a failing mbarrier.try_wait (MbarrierTimes wakes it at the phase's completion; its
  // ready time is the time limit, or never when it is stuck: PtxCta's rule, AsyncStep::stuck)
  bool asleep = false;
  bool last_past_l1 = false;  // the last global access went beyond L1
  double drain = 0;    // when its stores and reductions have been accepted
  double l2_load_done = 0;  // when its latest load that went beyond L1 returns (they return in issue order)
  Scoreboard sb;
  double sleep_floor = 0;  // when it could issue had it not slept
  AsyncGroups groups;  // cp.async
  AsyncGroups wgmma;   // wgmma.commit_group / wait_group
  AsyncGroups bulk;    // cp.async.bulk stores and reductions (bulk_group)
  // tcgen05: when the warp's tcgen05.mma so far complete (its commits arrive after), and when its
  // tcgen05.ld / tcgen05.st so far are done (tcgen05.wait::ld / ::st)
  double tc_done = 0, tmem_ld_done = 0, tmem_st_done = 0;
  std::uint32_t wgmmas_issued = 0;  // wgmma.mma_async issued so far (a warpgroup's warps count alike)
  // loads ptxas unrolled (Inst::batch > 1): executions so far and when the current group of
  // `batch` iterations began; the SASS issues a group's loads together
  std::vector<std::pair<std::uint32_t, double>> batch;
};

// The CTAs of one cluster in flight: where they run and what they share.
struct ClusterGroup {
  std::vector<std::pair<int, int>> slots;  // (SM, CTA slot) by rank
  ClusterContext context;
};

struct CtaSlot {
  std::unique_ptr<PtxCta> cta;
  std::uint64_t id = 0;
  bool active = false;
  int warps_left = 0;
  double start = 0;
  std::uint64_t insts = 0;
  BarrierUnit barrier;
  ClusterContext cluster;  // a launch without clusters: one per CTA
  MbarrierTimes mbars;     // its mbarriers' phases and sleeping warps
  std::shared_ptr<ClusterGroup> group;  // a launch with clusters: its cluster's
  ClusterContext& context() { return group ? group->context : cluster; }
};

// One sub-partition: its scheduler's state and its pipes.
// What every visit of the SM reads comes first, in one cache line.
struct alignas(64) Sub {
  explicit Sub(bool share) : pipes(share) {}
  double next = kInf;
  // its live warps and those of them waiting at a barrier, one bit per Sub::sched entry (kept by
  // set_live and set_at_barrier): the scan visits the others only
  std::uint64_t live = 0, at_barrier = 0;
  int last = -1;    // the warp that issued last (index into Sm::warps)
  int last_k = -1;  // and its index in `sched`
  // After a scan that found no warp to issue: the warp it would issue at `next` if none of its
  // warps changes before then (requeue, start_cta and abandon_in_flight forget it), or -1.
  int wake_warp = -1;
  std::vector<SchedState> sched;   // what the scheduler reads of its warps
  std::vector<int> warps;          // its warps (indices into Sm::warps), in the same order
  double idle_since = 0;
  Stall why = Stall::Idle;
  int wait_warp = -1;  // the warp it waits for, and that warp's next instruction
  std::uint32_t wait_pc = kNoPc;
  PipeSet pipes;
};

// A warp's SchedState::live and ::at_barrier, and its sub-partition's masks of them.
void set_live(Warp& w, bool v) {
  w.sched->live = v;
  w.home->live = v ? w.home->live | w.bit : w.home->live & ~w.bit;
}
void set_at_barrier(Warp& w, bool v) {
  w.sched->at_barrier = v;
  w.home->at_barrier = v ? w.home->at_barrier | w.bit : w.home->at_barrier & ~w.bit;
}

// Resident warps over time. A CTA's end is known when its last warp exits (stores still
// draining), ahead of other SMs' and its own later events, so changes are recorded and put in
// time order when the window closes.
class Residency {
 public:
  void change(double t, int delta) {
    changes_.push_back({t, delta});
    warps_ += delta;
  }
  int warps() const { return warps_; }
  void close(Listener& l, int sm, double end) {
    std::stable_sort(changes_.begin(), changes_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int warps = 0;
    double since = 0;
    for (const auto& [t, d] : changes_) {
      const double at = std::min(t, end);
      if (at > since && warps > 0) l.on_residency(sm, warps, since, at);
      since = std::max(since, at);
      warps += d;
    }
    if (end > since && warps > 0) l.on_residency(sm, warps, since, end);
    changes_.clear();
  }

 private:
  int warps_ = 0;
  std::vector<std::pair<double, int>> changes_;
};

// The SM's asynchronous global->shared copy path (cp.async, LDGSTS): each lane's copy goes
// through the memory pipeline as an L1-bypassing load and the shared-memory write port; the
// request completes onto the issuing warp's open async group.
class CpAsyncCopies final : public AsyncEngine {
 public:
  CpAsyncCopies(mem::NvMemorySystem& mem, int sm, double shared_bytes_per_wavefront) : mem_(mem), sm_(sm), wavefront_(shared_bytes_per_wavefront) {}
  const char* name() const override { return "cp.async"; }
  double can_accept_at(double now) const override { return now; }  // back-pressure comes from the memory pipeline
  AsyncAccepted accept(const AsyncRequest& r) override {
    const mem::MemTiming t = mem_.global(sm_, r.issue, r.addrs, r.mask, r.bytes_per_lane, mem::Access::LoadBypassL1, r.warp);
    const double wf = std::ceil(std::popcount(r.mask) * static_cast<double>(r.bytes_per_lane) / wavefront_);
    const double done = std::max(t.done, mem_.shared_wavefronts(sm_, r.issue, static_cast<std::uint32_t>(wf)));
    complete(r, done);
    return {t.accepted, done};
  }

 private:
  mem::NvMemorySystem& mem_;
  int sm_;
  double wavefront_;
};

// The SM's tensor memory accelerator (cp.async.bulk{.tensor}, cp.reduce.async.bulk{.tensor} and
// their prefetches): each request costs tma.issue_cycles of the engine; its global pieces go to
// the L2/HBM model as requests of 32 lanes x 16 bytes past L1; its bytes cross the shared-memory
// side at tma.bytes_per_cycle; it completes tma.latency_cycles after the later of the two (onto
// the mbarrier's transaction bytes or the warp's bulk group, which the caller records).
class TmaEngine final : public AsyncEngine {
 public:
  TmaEngine(mem::NvMemorySystem& mem, int sm, const device::Tma& t) : mem_(mem), sm_(sm), t_(t) {}
  const char* name() const override { return "TMA"; }
  double can_accept_at(double now) const override { return std::max(now, next_issue_); }
  void set_access(mem::Access kind) { kind_ = kind; }  // the next request's kind of global access
  AsyncAccepted accept(const AsyncRequest& r) override {
    const double start = can_accept_at(r.issue);
    next_issue_ = start + t_.issue_cycles;
    double mem_done = start;
    if (r.ranges)
      for (const auto& [addr, bytes] : *r.ranges) mem_done = std::max(mem_done, pieces(start, addr, bytes, r.warp));
    data_free_ = std::max(data_free_, start) + static_cast<double>(r.bytes) / t_.bytes_per_cycle;
    const double done = std::max(mem_done, data_free_) + t_.latency_cycles;
    complete(r, done);
    return {start, done};
  }

 private:
  static constexpr std::uint32_t kLaneBytes = 16, kLanes = 32;
  double pieces(double t, std::uint64_t addr, std::uint32_t bytes, int warp) {
    double done = t;
    std::array<std::uint64_t, kLanes> a{};
    for (std::uint32_t off = 0; off < bytes; off += kLanes * kLaneBytes) {
      const std::uint32_t n = std::min(kLanes, (bytes - off + kLaneBytes - 1) / kLaneBytes);
      for (std::uint32_t l = 0; l < n; ++l) a[l] = addr + off + l * kLaneBytes;
      const std::uint32_t mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
      done = std::max(done, mem_.global(sm_, t, a.data(), mask, kLaneBytes, kind_, warp).done);
    }
    return done;
  }
  mem::NvMemorySystem& mem_;
  int sm_;
  device::Tma t_;
  mem::Access kind_ = mem::Access::LoadBypassL1;
  double next_issue_ = 0, data_free_ = 0;
};

struct Sm {
  std::vector<Warp> warps;
  std::vector<CtaSlot> ctas;
  std::vector<Sub> subs;
  std::unique_ptr<AsyncEngine> copies;  // cp.async
  std::unique_ptr<TensorEngine> tensor;  // wgmma.mma_async of the four sub-partitions
  std::unique_ptr<TmaEngine> tma;       // cp.async.bulk{.tensor}
  std::unique_ptr<TensorEngine> tc;     // tcgen05.mma (parts with tensor memory only)
  double tmem_free = 0;                 // when its TMEM <-> register path takes the next tcgen05.ld/st
  double dsmem_free = 0;                // when its DSMEM port takes the next transfer
  double barrier_port = 0;              // when its barrier unit takes the next bar.sync arrival (any CTA's)
  double next = kInf;
  Residency residency;
};

class NvidiaMachine final : public SampledMachine {
 public:
  // writes_matter: the launch's outputs are wanted, so CTAs the warm-up runs must write what they write
  NvidiaMachine(const device::DeviceSpec& d, PtxKernel& k, const KernelResources& res, Listener& l, bool writes_matter)
      : d_(d), k_(k), p_(k.program()), res_(res), lis_(l), cluster_(static_cast<int>(k.dims().cluster_ctas())),
        writes_matter_(writes_matter) {}

  // set-up
  std::uint64_t grid_ctas() const override { return k_.dims().num_blocks(); }
  int part_units() const override { return static_cast<int>(d_.sm.count); }
  std::optional<std::uint64_t> probe_cta(std::uint64_t id, std::uint64_t max_insts) override;
  bool can_slice() const override { return true; }
  // with clusters, a slice is whole GPCs (slice_gpcs)
  int slice_units(int wanted) const override;
  double slice_share(int sms) const override;
  // a slice runs the first CTAs (clusters) of the grid: neighbouring CTAs that share data keep sharing it
  std::uint64_t slice_ctas(int sms) const override {
    const double items = static_cast<double>(grid_ctas() / static_cast<std::uint64_t>(cluster_));
    return static_cast<std::uint64_t>(cluster_) * std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(items * slice_share(sms))));
  }
  bool in_slice(std::uint64_t id) const override { return item_of(id) < slice_items_; }
  void assemble(int sms, double share, std::uint64_t ctas) override;
  std::string warm_up(std::uint64_t max_insts, bool previous_launch) override;
  bool warmed(std::uint64_t id) const override { return item_of(id) >= warm_begin_ && item_of(id) < warm_end_; }
  void start_dirty_l2() override { mem_->start_dirty(); }
  std::string slice_text(int sms) const override;
  std::uint64_t slots() const override { return slots_; }
  Occupancy occupancy() const override { return occ_; }
  void fill(double t) override;
  // running
  int units() const override { return nsms_; }
  double next_event(int s) const override { return sms_[static_cast<std::size_t>(s)].next; }
  double step(int s, double now) override;
  std::uint64_t work() const override { return timed_insts_; }
  double min_window_cycles() const override { return 0; }
  Progress checkpoint(double now) const override { return {now, timed_insts_, mem_->shared_busy_cycles(), 0}; }
  // a canceled cluster's CTAs (clusterlaunchcontrol) count as done: the canceling cluster did their work
  std::uint64_t ctas_done() const override { return ctas_done_ + ctas_canceled_; }
  std::uint64_t done_cta_insts() const override { return done_cta_insts_; }
  void stop() override { stop_ = true; }
  void hold() override { hold_ = true; }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> in_flight() const override;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> run_in_flight(const std::vector<std::uint64_t>& ids, std::uint64_t max_insts) override;
  void abandon_in_flight(double now, const std::vector<std::uint64_t>& keep) override;
  bool can_keep_in_flight() const override { return cluster_ == 1; }
  // closing
  double last_cta_end() const override { return last_end_; }
  void close_window(double end, bool stopped) override;
  double l2_dirty_bytes() const override { return 0; }
  double l2_capacity_bytes() const override { return static_cast<double>(d_.l2.bytes); }
  double l2_fill_bytes() const override { return mem_->l2_filled_bytes(); }
  double flush_at_end(double) override { return 0; }  // the L2 writes back on eviction
  void report_memory(Listener& l, double scale, double busy_scale) const override;
  bool reports_window() const override { return false; }
  void complete_started() override;
  void run_untimed(std::uint64_t id) override;
  std::array<std::uint32_t, 3> grid_dims() const override { return k_.dims().grid; }
  // with clusters: every CTA of the clusters never placed
  void for_each_queued(const std::function<void(std::uint64_t)>& f) override;
  // with clusters: the CTA's whole cluster, once, within `max_insts` per CTA
  bool probe_untimed(std::uint64_t id, std::uint64_t max_insts) override;
  double core_mhz() const override { return d_.clocks.core_mhz; }
  double tensor_busy_cycles() const override {
    double b = 0;
    for (const Sm& sm : sms_)
      if (sm.tensor) b += sm.tensor->busy_cycles();
    return b;
  }
  double launch_overhead_us() const override { return d_.launch.overhead_us; }
  const char* inst_noun() const override { return "warp"; }
  const char* cta_noun() const override { return "CTA"; }
  const char* unit_noun() const override { return "SMs"; }

 private:
  void describe_instructions();
  double wgmma_service(const P::Inst& in) const;
  // what ptxas's denormal guard adds to a non-ftz MUFU's chain (TimingDesc::guard_chain FP32
  // instructions): sm.mufu_guard_latency_cycles for the FSETP-FMUL-MUFU-FMUL guard of
  // ex2/lg2/rsqrt/sqrt (sfu_pipe.cu: the FSETP's predicate takes far longer than an FP32
  // result), FP32 latencies otherwise (rcp's guard; a device without the key)
  double guard_latency(int guard_chain) const {
    if (guard_chain == 3 && d_.sm.mufu_guard_latency_cycles > 0) return d_.sm.mufu_guard_latency_cycles;
    return guard_chain * pipe_[static_cast<int>(Unit::Fp32)].latency;
  }
  // What the slice and the warm-up count: clusters in a launch with clusters, else CTAs.
  std::uint64_t item_of(std::uint64_t id) const { return cluster_ > 1 ? k_.dims().cluster_of(id) : id; }
  std::uint64_t items() const { return grid_ctas() / static_cast<std::uint64_t>(cluster_); }
  std::vector<int> slice_gpcs(int wanted) const;
  std::string cluster_slice_text(int sms) const;
  void warm_item(std::uint64_t item);
  bool shares_lines(std::uint64_t max_insts);
  void record(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes);
  std::string replay_previous_launch(bool full, std::uint64_t max_insts);
  bool warm_warp(PtxCta& cta, int w);
  void launch_cta(int s, int slot, std::uint64_t id, double t) { start_cta(s, slot, id, k_.make_cta(id), t, nullptr); }
  void start_cta(int s, int slot, std::uint64_t id, std::unique_ptr<PtxCta> cta, double t, std::shared_ptr<ClusterGroup> group);
  void assemble_clusters();
  void launch_clusters(double t);
  void release_cluster_barrier(const CtaSlot& c, int s, int slot, double t_rel);
  double dsmem(int s, Sm& sm, std::uint32_t mask, std::uint32_t bytes, double now);
  void finish_cta(int s, int slot, double t, double next_start);
  void pick_and_issue(int s, Sm& sm, Sub& sub, int si, double now);
  void skip_folded(CtaSlot& c, Warp& w);
  void requeue(Sm& sm, CtaSlot& c, Warp& w);
  void refresh(Warp& w);
  int sb_index(P::Reg r) const;
  void issue(int s, Sm& sm, Sub& sub, int wi, double now);
  double execute(int s, Sm& sm, Warp& w, const P::Inst& in, const StepInfo& info, double now, double done, bool& from_mem);
  double sync_op(int s, Warp& w, const P::Inst& in, double done, double now, bool& from_mem);
  void after_step(Sm& sm, Warp& w, CtaSlot& c, const P::Inst& in, const StepInfo& info, double now);
  void warp_exited(int s, Sm& sm, Warp& w, double now);
  double memory(int s, Sm& sm, Warp& w, const P::Inst& in, const StepInfo& info, double now);
  double wmma_memory(int s, Warp& w, const CtaSlot& c, const P::Inst& in, const StepInfo& info, double now);
  double async_op(int s, Sm& sm, Warp& w, const P::Inst& in, double now);
  double tma_copy(Sm& sm, Warp& w, const AsyncStep& a, double now);
  double tcgen05_op(Sm& sm, Warp& w, const P::Inst& in, const AsyncStep& a, double now);
  double tc_service(const TcMma& m) const;
  Sm* pair_peer(Sm& sm, const Warp& w);
  void wake_sleepers(Sm& sm, CtaSlot& c, std::uint32_t addr);
  struct MbarTarget {
    int sm;
    CtaSlot* slot;
    std::uint32_t addr;
  };
  MbarTarget mbar_target(int s, CtaSlot& c, std::uint32_t addr);
  void sleep_on(CtaSlot& c, Warp& w, const AsyncStep& a, std::uint32_t addr, double now);
  void check_cta_deadlock(Sm& sm, CtaSlot& c, const Warp& w);
  double global(int s, Warp& w, double now, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, mem::Access kind);

  const device::DeviceSpec& d_;
  PtxKernel& k_;
  const P::Program& p_;
  KernelResources res_;
  Listener& lis_;
  Occupancy occ_;
  WarpPolicy policy_ = WarpPolicy::GreedyThenOldest;
  PipeTiming pipe_[PipeSet::kUnits];
  std::vector<InstTiming> itime_;
  std::vector<int> dep_regs_;  // InstTiming::dep_begin/dep_end
  double param_latency_ = 0;
  double tc_flops_ = 0;  // FLOP of the tcgen05.mma the instruction being issued handed over (for on_issue)
  int nsms_ = 0, wpb_ = 0;
  std::uint64_t slice_ctas_ = 0;                 // the CTAs the assembled SMs run
  std::uint64_t slice_items_ = 0;                // clusters (CTAs) 0..slice_items_-1: those CTAs
  std::uint64_t warm_begin_ = 0, warm_end_ = 0;  // the clusters (CTAs) the L2 warm-up ran
  bool writes_matter_ = false;
  const char* warm_why_ = "";                    // and why it stopped there, for slice_text (null: not run)
  std::vector<std::uint64_t>* record_lines_ = nullptr;  // where warm_warp records lines (shares_lines) instead of warming
  std::uint64_t slots_ = 0;                      // CTAs resident at once
  std::uint32_t n32_ = 0, n64_ = 0, npred_ = 0;
  std::vector<Sm> sms_;
  std::unique_ptr<mem::NvMemorySystem> mem_;
  RoundRobinToUnits queue_;
  int cluster_ = 1;  // CTAs per cluster
  ClusterPlacer placer_;
  DispatchClock dispatch_;
  std::uint64_t age_ = 0, ctas_done_ = 0, done_cta_insts_ = 0, ctas_canceled_ = 0;
  double last_end_ = 0;
  bool stop_ = false;
  bool hold_ = false;  // hold(): no CTA is started any more
  std::vector<CtaSlot> abandoned_;  // first-wave CTAs stopped for the second window
  std::vector<std::uint64_t> probed_;  // clusters the corner probe ran
};

// ---------------------------------------------------------------------------------------------
// assembly

// The SM as the device file describes it; see the diagram at the top of this file.
void NvidiaMachine::assemble(int sms, double share, std::uint64_t ctas) {
  nsms_ = sms;
  slice_ctas_ = ctas;
  slice_items_ = ctas / static_cast<std::uint64_t>(cluster_);
  policy_ = warp_policy(d_.sm.warp_scheduler);
  occ_ = compute_occupancy(d_, res_);
  wpb_ = occ_.warps_per_block;
  describe_instructions();
  // L1 gets what the shared-memory carveout leaves of the unified array (occupancy.h).
  mem_ = std::make_unique<mem::NvMemorySystem>(d_, nsms_, static_cast<std::uint64_t>(occ_.l1_bytes), share);
  // the CTAs the chip runs at once: a slice's L2 keeps lines CTAs of one chip wave share
  const double slots = static_cast<double>(nsms_) * static_cast<double>(occ_.blocks_per_unit);
  mem_->set_cta_layout(wpb_, static_cast<std::uint64_t>(std::llround(slots / std::max(share, 1e-9))));
  // the slice gets its share of the chip-wide dispatcher
  dispatch_ = DispatchClock(1, nsms_, d_.launch.cta_dispatch_cycles / share, d_.sm.block_launch_cycles);
  queue_ = RoundRobinToUnits(nsms_, ctas);
  slots_ = static_cast<std::uint64_t>(nsms_) * static_cast<std::uint64_t>(occ_.blocks_per_unit);
  if (cluster_ > 1) assemble_clusters();
  const int subs = static_cast<int>(std::max<std::int64_t>(1, d_.sm.sub_partitions));
  const std::size_t regs = n32_ + n64_ + npred_;
  sms_.resize(static_cast<std::size_t>(nsms_));
  const double wavefront = static_cast<double>(d_.shared.banks) * d_.shared.bank_width_bytes;
  for (auto& sm : sms_) {
    sm.copies = std::make_unique<CpAsyncCopies>(*mem_, static_cast<int>(&sm - sms_.data()), wavefront);
    sm.tensor = std::make_unique<TensorEngine>(d_.sm.wgmma_latency_cycles, kWarpgroupWarps);
    if (d_.tcgen05.tmem_columns > 0) sm.tc = std::make_unique<TensorEngine>(d_.tcgen05.mma_latency_cycles);
    sm.tma = std::make_unique<TmaEngine>(*mem_, static_cast<int>(&sm - sms_.data()), d_.tma);
    sm.subs.assign(static_cast<std::size_t>(subs), Sub(d_.sm.tensor_shares_math_pipes));
    sm.ctas.resize(static_cast<std::size_t>(occ_.blocks_per_unit));
    for (auto& c : sm.ctas) c.barrier = BarrierUnit(d_.sm.barrier_cycles_per_warp, d_.sm.barrier_latency_cycles);
    sm.warps.resize(static_cast<std::size_t>(occ_.blocks_per_unit * wpb_));
    for (std::size_t w = 0; w < sm.warps.size(); ++w) {
      sm.warps[w].sub = static_cast<int>(w % static_cast<std::size_t>(subs));
      sm.warps[w].sb.resize(regs);
      sm.subs[static_cast<std::size_t>(sm.warps[w].sub)].warps.push_back(static_cast<int>(w));
    }
    for (Sub& sub : sm.subs) {
      if (sub.warps.size() > 64)
        throw Error(ErrorKind::Internal, "kernsim bug: " + std::to_string(sub.warps.size()) + " warps on one scheduler (its masks hold 64)");
      sub.sched.assign(sub.warps.size(), SchedState{});
      for (std::size_t k = 0; k < sub.warps.size(); ++k) {
        Warp& w = sm.warps[static_cast<std::size_t>(sub.warps[k])];
        w.sched = &sub.sched[k];
        w.home = &sub;
        w.bit = std::uint64_t{1} << k;
      }
    }
  }
}

// Clusters start as a whole on the SMs of one GPC (topology.gpc_sms); one that no GPC can hold
// never runs, a launch error.
void NvidiaMachine::assemble_clusters() {
  std::vector<int> gpcs;
  std::int64_t sum = 0;
  for (std::int64_t n : d_.topology.gpc_sms) {
    gpcs.push_back(static_cast<int>(n));
    sum += n;
  }
  if (sum != d_.sm.count)
    throw Error(ErrorKind::DeviceFile, d_.name + ": topology.gpc_sms add up to " + std::to_string(sum) + " SMs, the part has " +
                                           std::to_string(d_.sm.count));
  if (nsms_ < d_.sm.count) gpcs = slice_gpcs(nsms_);  // a slice: whole GPCs
  placer_ = ClusterPlacer(gpcs, occ_.blocks_per_unit, cluster_, slice_items_);
  slots_ = static_cast<std::uint64_t>(placer_.capacity()) * static_cast<std::uint64_t>(cluster_);
  if (placer_.largest_gpc_slots() < cluster_) {
    const std::int64_t largest = *std::max_element(d_.topology.gpc_sms.begin(), d_.topology.gpc_sms.end());
    throw Error(ErrorKind::LaunchSpec, "cluster of " + std::to_string(cluster_) + " CTAs x " + std::to_string(res_.registers_per_thread) +
                                           " regs/" + std::to_string(res_.shared_per_block) + " B smem does not fit a GPC of " +
                                           std::to_string(largest) + " SMs (" + std::to_string(occ_.blocks_per_unit) + " such CTA" +
                                           (occ_.blocks_per_unit == 1 ? "" : "s") + " per SM, " + occ_.limiter + ") on " + d_.name);
  }
}

// Pipes from the device file (per scheduler), then one timing descriptor per static instruction.
void NvidiaMachine::describe_instructions() {
  auto set = [&](Unit u, const device::Pipe& pp) { pipe_[static_cast<int>(u)] = {std::max(1.0, pp.issue_cycles), std::max(1.0, pp.latency_cycles)}; };
  set(Unit::IntAlu, d_.pipes.int_alu);
  set(Unit::IntMul, d_.pipes.int_mul);
  set(Unit::Fp32, d_.pipes.fp32);
  set(Unit::Fp16, d_.pipes.fp16);
  set(Unit::Fp64, d_.pipes.fp64);
  set(Unit::Sfu, d_.pipes.sfu);
  set(Unit::Convert, d_.pipes.convert);
  set(Unit::Branch, d_.pipes.branch);
  set(Unit::TensorF16, d_.pipes.tensor_f16);
  set(Unit::TensorTf32, d_.pipes.tensor_tf32.issue_cycles > 0 ? d_.pipes.tensor_tf32 : d_.pipes.tensor_f16);
  set(Unit::TensorI8, d_.pipes.tensor_i8);
  set(Unit::TensorFp8, d_.pipes.tensor_fp8);
  set(Unit::TensorF64, d_.pipes.tensor_f64);
  param_latency_ = d_.pipes.int_alu.latency_cycles;
  for (const auto& f : p_.functions) {
    n32_ = std::max(n32_, f.n32);
    n64_ = std::max(n64_, f.n64);
    npred_ = std::max(npred_, f.npred);
  }
  itime_.assign(p_.insts.size(), InstTiming{});
  dep_regs_.clear();
  for (std::size_t i = 0; i < p_.insts.size(); ++i) {
    const P::Inst& in = p_.insts[i];
    const P::TimingDesc desc = P::timing_desc(in);  // the table's facts (isa/ptx/ops.h)
    InstTiming& t = itime_[i];
    t.unit = in.unit;
    t.alt = desc.alt_unit;  // an integer add may go to the FMA pipe (IMAD.IADD, VIADD)
    for (int k = 0; k < 2; ++k) {
      const int u = k == 0 ? static_cast<int>(in.unit) : t.alt;
      if (u < 0) continue;
      const PipeTiming& pt = pipe_[u];
      // a matrix instruction costs matrix_scale of its pipe's reference instruction
      const double n = isa::is_tensor(in.unit) ? desc.matrix_scale : in.weight;
      t.busy[k] = pt.issue * n;
      t.latency[k] = pt.latency + pt.issue * std::max(0.0, n - 1);
      if (desc.range_reduced) t.latency[k] += pipe_[static_cast<int>(Unit::Fp32)].latency;  // FMUL.RZ ahead, in the chain
      t.latency[k] += guard_latency(desc.guard_chain);  // denormal guards, in the chain
    }
    t.dep_begin = static_cast<std::uint32_t>(dep_regs_.size());
    auto dep = [&](P::Reg r) {
      if (const int idx = sb_index(r); idx >= 0) dep_regs_.push_back(idx);
    };
    if (in.guard.bank != P::Bank::None) dep(in.guard);
    for (int k = 0; k < in.nsrc; ++k) dep(p_.src(in, k));
    for (int k = 0; k < in.ndst; ++k) dep(p_.dst(in, k));
    if (in.addr.kind == P::AddrBase::Reg) dep(in.addr.base);
    if (in.addr2.kind == P::AddrBase::Reg) dep(in.addr2.base);
    t.dep_end = static_cast<std::uint32_t>(dep_regs_.size());
    t.flops_per_lane = desc.flops_per_lane;
    t.flops_per_inst = desc.flops_per_inst;
    t.guard_issued = desc.guard_issued;
    t.group[0] = pipe_group(in.unit);
    t.group[1] = t.alt >= 0 ? pipe_group(static_cast<Unit>(t.alt)) : 0;
    t.first_group = t.alt >= 0 ? t.group[1] : t.group[0];
    t.wgmma = in.op == P::Op::WgmmaMma;
    t.folded = (in.flags & P::kFoldedModifier) != 0;
    if (in.op == P::Op::WgmmaMma) {  // one issue slot; the math is the tensor engine's
      t.busy[0] = t.latency[0] = 1;
      t.engine_cycles = wgmma_service(in);
    }
  }
}

// A warp's quarter of a wgmma.mma_async on the SM's tensor engine (units/tensor_engine.h): its
// FLOP at the device's dense rate for the input type, or the shared-memory bytes it reads.
double NvidiaMachine::wgmma_service(const P::Inst& in) const {
  const P::Ty a = in.type2, b = static_cast<P::Ty>(in.shape[3]);
  const double n = in.shape[1], k = in.shape[2];
  auto bytes = [](P::Ty t) { return t == P::Ty::F16 || t == P::Ty::BF16 ? 2.0 : t == P::Ty::TF32 ? 4.0 : 1.0; };
  const double rate = a == P::Ty::F16 || a == P::Ty::BF16 ? d_.sm.wgmma_flops_per_cycle_f16
                      : a == P::Ty::TF32                  ? d_.sm.wgmma_flops_per_cycle_tf32
                      : a == P::Ty::S8 || a == P::Ty::U8  ? d_.sm.wgmma_flops_per_cycle_i8
                                                          : d_.sm.wgmma_flops_per_cycle_fp8;
  WgmmaWork w;
  w.flops = 2.0 * 16 * n * k;
  w.flops_per_cycle = rate;
  w.smem_bytes = (in.sub == 1 ? 0.0 : 16 * k * bytes(a)) + n * k * bytes(b) / 4;  // A's quarter (SS), a quarter of B
  w.smem_bytes_per_cycle = static_cast<double>(d_.shared.banks) * d_.shared.bank_width_bytes;
  return wgmma_service_cycles(w);
}

int NvidiaMachine::sb_index(P::Reg r) const {
  switch (r.bank) {
    case P::Bank::R32: return static_cast<int>(r.idx);
    case P::Bank::R64: return static_cast<int>(n32_ + r.idx);
    case P::Bank::Pred: return static_cast<int>(n32_ + n64_ + r.idx);
    default: return -1;
  }
}

// Untimed runs that need only the CTAs' instruction counts and global addresses (the work probes,
// the L2 warm-up, shares_lines) run the kernel's address slice (PtxKernel::set_addresses_only)
// while one of these lives: an SGEMM warm-up's FMAs, mma.syncs and data movement are skipped.
struct AddressesOnly {
  PtxKernel& k;
  AddressesOnly(PtxKernel& kernel, bool on) : k(kernel) { k.set_addresses_only(on); }
  ~AddressesOnly() { k.set_addresses_only(false); }
  AddressesOnly(const AddressesOnly&) = delete;
  AddressesOnly& operator=(const AddressesOnly&) = delete;
};

// A launch with clusters runs the cluster at the same place in the grid (its CTAs only run
// together) and counts its mean per CTA.
std::optional<std::uint64_t> NvidiaMachine::probe_cta(std::uint64_t id, std::uint64_t max_insts) {
  const AddressesOnly slice(k_, true);  // its writes are undone
  const std::uint64_t before = k_.warp_instructions();
  const std::uint64_t per = k_.dims().cluster_ctas();
  auto run = [&] {
    k_.memory().run_undone([&] {
      if (per > 1 || k_.dims().explicit_cluster)
        k_.make_cluster(id / per).front()->run();
      else
        k_.make_cta(id)->run();
    });
  };
  if (!probe_alone(k_, max_insts, run)) return std::nullopt;
  return (k_.warp_instructions() - before) / per;
}

// A slice's few CTAs would fetch the data all CTAs share (a GEMM operand, a table) from HBM at
// the slice's share of its bandwidth, a cost the chip pays once for every CTA. So the L2 starts
// as the next CTAs, run functionally (untimed), leave it. The L2 keeps what was used last, so
// those CTAs (as many as the slice has, after it) run from the last one back and stop once
// earlier ones could change nothing, or at one that spins waiting on CTAs that have not run (a
// decoupled look-back, or one that does not end within kProbeBudgets x `max_insts` instructions): that one is
// left to run later, and the warm-up stops.
// A launch with clusters warms with whole clusters (their CTAs run together), the last first.
std::string NvidiaMachine::warm_up(std::uint64_t max_insts, bool previous_launch) {
  warm_end_ = std::min(items(), 2 * slice_items_);
  warm_begin_ = warm_end_;
  bool full = false, alone = true;
  const bool skip = warm_end_ > slice_items_ && !shares_lines(max_insts);
  if (skip) warm_end_ = warm_begin_ = slice_items_;
  const AddressesOnly slice(k_, !writes_matter_);  // the warm-up's CTAs are not run again for outputs
  for (std::uint64_t id = warm_end_; !full && id-- > slice_items_;) {
    if (!(alone = probe_alone(k_, kProbeBudgets * max_insts, [&] { warm_item(id); }))) break;
    warm_begin_ = id;
    full = mem_->warm_cta_done();
  }
  warm_why_ = skip    ? nullptr
              : full  ? "until every L2 set was full"
              : !alone ? "up to one that cannot run alone"
                       : "all of them, the L2 never full";
  std::string note = previous_launch ? replay_previous_launch(full, max_insts) : std::string();
  mem_->warm_finish();
  return note;
}

// Whether CTAs of the launch read or write lines another CTA touches: the pairs of CTAs next to
// each other in x, y and z from CTA 0, two in the grid's middle, and the slice's last with the
// warm-up's first, each run functionally (writes undone) with its global lines recorded. The
// warm-up's lines matter to the slice only where it touches them: an L2 line it never uses is
// evicted first (the warm-up's lines are older than its fills) or expires with the use window
// (they count as used before its first fill). A launch whose CTAs share no line (a copy, an
// elementwise or a row-wise kernel) has the same time without the warm-up, which ran as many CTAs
// as the slice, functionally, for nothing. A CTA that cannot run alone counts as sharing.
bool NvidiaMachine::shares_lines(std::uint64_t max_insts) {
  if (cluster_ > 1) return true;
  const std::array<std::uint32_t, 3> g = k_.dims().grid;
  const std::uint64_t gx = g[0], gxy = std::uint64_t{g[0]} * g[1], n = items(), mid = n / 2;
  const std::pair<std::uint64_t, std::uint64_t> pairs[] = {
      {0, 1}, {0, gx}, {0, gxy}, {mid, mid + 1}, {slice_items_ - 1, slice_items_}};
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> lines;
  const AddressesOnly slice(k_, true);  // writes undone
  auto lines_of = [&](std::uint64_t id) -> const std::vector<std::uint64_t>* {
    if (auto it = lines.find(id); it != lines.end()) return &it->second;
    std::vector<std::uint64_t> v;
    record_lines_ = &v;
    bool alone = true;
    k_.memory().run_undone([&] { alone = probe_alone(k_, kProbeBudgets * max_insts, [&] { warm_item(id); }); });
    record_lines_ = nullptr;
    if (!alone) return nullptr;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return &(lines[id] = std::move(v));
  };
  for (const auto& [a, b] : pairs) {
    if (a == b || b >= n) continue;
    const std::vector<std::uint64_t>* la = lines_of(a);
    const std::vector<std::uint64_t>* lb = la ? lines_of(b) : nullptr;
    if (!la || !lb) return true;
    for (auto i = la->begin(), j = lb->begin(); i != la->end() && j != lb->end();) {
      if (*i == *j) return true;
      *i < *j ? ++i : ++j;
    }
  }
  return false;
}

// cache: warm. Before the CTAs of this launch (the slice's neighbours, already in the backfill)
// the L2 saw a whole previous run of the launch, the last CTAs last: they run again untimed, the
// last first and each with its writes undone (this launch's data stays as it was), until every
// L2 set is full, the grid is done, a CTA cannot run alone (it waits on CTAs before it), or
// kWarmReplayBudgets detail budgets of instructions ran.
std::string NvidiaMachine::replay_previous_launch(bool full, std::uint64_t max_insts) {
  const AddressesOnly slice(k_, true);  // writes undone
  const std::uint64_t start = k_.warp_instructions(), cap = max_insts * kWarmReplayBudgets;
  const std::uint64_t grid = items();
  std::uint64_t id = grid;
  bool alone = true;
  while (!full && alone && id > 0 && k_.warp_instructions() - start < cap) {
    k_.memory().run_undone([&] { alone = probe_alone(k_, kProbeBudgets * max_insts, [&] { warm_item(id - 1); }); });
    if (!alone) break;
    --id;
    full = mem_->warm_cta_done();
  }
  if (id == grid) return full ? "cache warm: the L2 was already full before a previous run's CTAs could add to it"
                              : "cache warm: the last CTA cannot run alone, the L2 starts cold";
  const std::string why = full ? "until every L2 set was full" : id == 0 ? "the whole grid" : !alone ? "up to one that cannot run alone" : "stopped at its instruction budget";
  return std::string("cache warm: the L2 as a previous run left it (") + (cluster_ > 1 ? "clusters " : "CTAs ") + std::to_string(id) + "-" + std::to_string(grid - 1) +
         " replayed untimed, the last first, writes undone: " + why + ")";
}

// Runs CTA (cluster) `item` functionally, its global accesses warming the L2 (warm_up); a
// cluster's CTAs take turns, as their warps do.
void NvidiaMachine::warm_item(std::uint64_t item) {
  std::vector<std::unique_ptr<PtxCta>> ctas;
  if (cluster_ > 1)
    ctas = k_.make_cluster(item);
  else
    ctas.push_back(k_.make_cta(item));
  for (bool progressed = true; progressed;) {
    progressed = false;
    // a round in which every warp only failed mbarrier waits and nothing was stored repeats
    // forever (a deadlock the timed run reports): the warm-up stops there
    bool only_failed_waits = true;
    const std::uint64_t stores = k_.memory().stores();
    for (auto& cta : ctas)
      for (int w = 0; w < cta->num_warps(); ++w) {
        if (cta->warp_done(w) || cta->warp_waiting(w)) continue;
        progressed = true;
        only_failed_waits &= warm_warp(*cta, w);
      }
    if (only_failed_waits && stores == k_.memory().stores()) break;
  }
}

// A slice of a launch with clusters: the first GPCs that hold a cluster (the device file's
// order) whose SMs add up to at most `wanted`, at least one of them. Which GPCs matters little:
// the slice's share is its share of the clusters in flight (slice_share).
std::vector<int> NvidiaMachine::slice_gpcs(int wanted) const {
  const int per_sm = compute_occupancy(d_, res_).blocks_per_unit;
  std::vector<int> gpcs;
  int sms = 0;
  for (std::int64_t n : d_.topology.gpc_sms) {
    if (n * per_sm < cluster_) continue;  // holds no cluster
    if (!gpcs.empty() && sms + n > wanted) break;
    gpcs.push_back(static_cast<int>(n));
    sms += static_cast<int>(n);
  }
  return gpcs;
}

int NvidiaMachine::slice_units(int wanted) const {
  if (cluster_ == 1) return wanted;
  const std::vector<int> gpcs = slice_gpcs(wanted);
  return std::accumulate(gpcs.begin(), gpcs.end(), 0);
}

// With clusters: the clusters the slice's GPCs hold at once over those the chip's hold.
double NvidiaMachine::slice_share(int sms) const {
  if (cluster_ == 1) return static_cast<double>(sms) / static_cast<double>(d_.sm.count);
  const int per_sm = compute_occupancy(d_, res_).blocks_per_unit;
  auto held = [&](const auto& gpcs) {
    std::int64_t n = 0;
    for (auto g : gpcs) n += static_cast<std::int64_t>(g) * per_sm / cluster_;
    return static_cast<double>(n);
  };
  const double chip = held(d_.topology.gpc_sms);
  return chip > 0 && sms < d_.sm.count ? held(slice_gpcs(sms)) / chip : 1.0;
}

// Outside the slice and its warm-up: the CTA, or its whole cluster once (at its first CTA).
void NvidiaMachine::run_untimed(std::uint64_t id) {
  if (cluster_ == 1) return k_.make_cta(id)->run();
  const std::uint64_t index = k_.dims().cluster_of(id);
  if (k_.dims().cluster_cta(index, 0) == id) k_.make_cluster(index).front()->run();
}

std::string NvidiaMachine::slice_text(int sms) const {
  if (cluster_ > 1) return cluster_slice_text(sms);
  const std::string head = "SM slice: " + std::to_string(sms) + " of " + std::to_string(d_.sm.count) + " SMs ran CTAs 0-" +
                           std::to_string(slice_ctas_ - 1) + " of " + std::to_string(grid_ctas()) +
                           " with that share of L2 and HBM bandwidth, atomics and dispatch";
  if (!warm_why_) return head + " (no L2 warm-up: CTAs next to each other share no line)";
  return head + " (L2 as the next " +
         std::to_string(warm_end_ - slice_ctas_) + " leave it: CTAs " + std::to_string(warm_begin_) + "-" +
         std::to_string(warm_end_ - 1) + " ran, the last first, " + warm_why_ + ")";
}

std::string NvidiaMachine::cluster_slice_text(int sms) const {
  const std::vector<int> gpcs = slice_gpcs(sms);
  std::string sizes;
  for (int g : gpcs) {
    if (!sizes.empty()) sizes += "+";
    sizes += std::to_string(g);
  }
  return "SM slice: " + std::to_string(sms) + " of " + std::to_string(d_.sm.count) + " SMs (" + std::to_string(gpcs.size()) + " GPC" +
         (gpcs.size() == 1 ? "" : "s") + " of " + sizes + " SMs, " + std::to_string(placer_.capacity()) +
         " clusters at once) ran clusters 0-" + std::to_string(slice_items_ - 1) + " of " + std::to_string(items()) + " (" +
         std::to_string(cluster_) + " CTAs each) with that share of L2 and HBM bandwidth, atomics and dispatch (L2 as the next " +
         std::to_string(warm_end_ - slice_items_) + " leave it: clusters " + std::to_string(warm_begin_) + "-" +
         std::to_string(warm_end_ - 1) + " ran, the last first, " + warm_why_ + ")";
}

// Up to 256 steps of warp w, its global loads and stores (and cp.async copies' global reads)
// warming the L2; true when it stopped at a failing mbarrier wait.
bool NvidiaMachine::warm_warp(PtxCta& cta, int w) {
  for (int n = 0; n < 256 && !cta.warp_done(w) && !cta.warp_waiting(w); ++n) {
    const P::Inst& in = p_.insts[cta.next_pc(w)];
    const StepInfo info = cta.step(w);
    if (info.async) {
      for (const MbarEvent& e : cta.async_step(w).mbar)
        if (e.what == MbarEvent::What::WaitFail) return true;
    }
    if (info.kind != StepInfo::Kind::Executed || !info.active) continue;
    const bool copy = in.op == P::Op::CpAsync;  // lane_addresses: the copy's global sources
    if ((in.op != P::Op::Ld && in.op != P::Op::St && !copy) || (info.space != P::Space::Global && info.space != P::Space::Generic)) continue;
    const std::uint32_t eb = copy ? static_cast<std::uint32_t>(in.shape[0])
                                  : static_cast<std::uint32_t>(std::max(1, P::ty_bits(in.type) / 8)) * std::max<std::uint32_t>(1, in.vec);
    if (record_lines_)
      record(cta.lane_addresses(w), info.active, eb);
    else
      mem_->warm(cta.lane_addresses(w), info.active, eb);
  }
  return false;
}

// shares_lines(): the lines of each lane's access of `bytes` (to its last byte) into record_lines_.
void NvidiaMachine::record(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes) {
  const std::uint64_t line = static_cast<std::uint64_t>(d_.l2.line_bytes);
  for (std::uint32_t m = mask; m; m &= m - 1) {
    const std::uint64_t a = addrs[std::countr_zero(m)];
    for (std::uint64_t l = a / line; l <= (a + std::max<std::uint32_t>(bytes, 1) - 1) / line; ++l)
      if (record_lines_->empty() || record_lines_->back() != l) record_lines_->push_back(l);
  }
}

// The first wave: each SM's first CTA in slot order, SM by SM.
void NvidiaMachine::fill(double t) {
  if (cluster_ > 1) {  // clusterlaunchcontrol.try_cancel takes the next cluster from the placer
    k_.set_canceller([this] {
      const std::optional<std::uint64_t> index = placer_.cancel();
      if (index) ctas_canceled_ += static_cast<std::uint64_t>(cluster_);
      return index;
    });
    return launch_clusters(t);
  }
  for (int slot = 0; slot < occ_.blocks_per_unit; ++slot)
    for (int s = 0; s < nsms_; ++s)
      if (!queue_.empty(s) && !sms_[static_cast<std::size_t>(s)].ctas[static_cast<std::size_t>(slot)].active)
        launch_cta(s, slot, queue_.next(s), t);
}

// ---------------------------------------------------------------------------------------------
// CTAs

// Every cluster a GPC has room for now, its CTAs together. A CTA ending on one SM starts a
// cluster on others: their next events move earlier, which the sampler learns from woken() (an
// SM with nothing to do had no event queued, and was never stepped again).
void NvidiaMachine::launch_clusters(double t) {
  for (std::uint64_t index = placer_.next_cluster();; index = placer_.next_cluster()) {
    const auto at = placer_.place();
    if (at.empty()) return;
    auto ctas = k_.make_cluster(index);
    auto group = std::make_shared<ClusterGroup>();
    group->slots = at;
    for (std::size_t r = 0; r < at.size(); ++r) {
      start_cta(at[r].first, at[r].second, k_.dims().cluster_cta(index, static_cast<std::uint32_t>(r)), std::move(ctas[r]), t, group);
      woken_.push_back(at[r].first);
    }
  }
}

void NvidiaMachine::start_cta(int s, int slot, std::uint64_t id, std::unique_ptr<PtxCta> cta, double t, std::shared_ptr<ClusterGroup> group) {
  Sm& sm = sms_[static_cast<std::size_t>(s)];
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(slot)];
  t = dispatch_.start(0, s, t);
  mem_->cta_started(s, slot, id);
  c.cta = std::move(cta);
  c.group = std::move(group);
  c.cta->set_smid(static_cast<std::uint32_t>(s));
  c.cta->set_ns_per_cycle(1e3 / d_.clocks.core_mhz);
  c.id = id;
  c.active = true;
  c.start = t;
  c.insts = 0;
  c.barrier.reset();
  if (!c.group) c.cluster.clear();  // a cluster's context is new with the cluster
  c.mbars.reset();
  c.warps_left = c.cta->num_warps();
  for (int wi = 0; wi < c.warps_left; ++wi) {
    Warp& w = sm.warps[static_cast<std::size_t>(slot * wpb_ + wi)];
    set_live(w, true);
    set_at_barrier(w, false);
    w.cta = slot;
    w.widx = wi;
    w.sched->age = age_++;
    w.ready = t;
    w.ready_is_async = false;
    w.sb.reset(t);
    w.groups.reset(t);
    w.wgmma.reset(t);
    w.bulk.reset(t);
    w.tc_done = w.tmem_ld_done = w.tmem_st_done = t;
    w.wgmmas_issued = 0;
    w.asleep = false;
    w.batch.assign(p_.n_batch_slots, {0u, 0.0});
    w.drain = t;
    w.l2_load_done = t;
    w.last_past_l1 = false;
    w.pc = c.cta->next_pc(wi);
    skip_folded(c, w);
    refresh(w);
    Sub& sub = sm.subs[static_cast<std::size_t>(w.sub)];
    sub.wake_warp = -1;
    sub.next = std::min(sub.next, t);
  }
  sm.residency.change(t, c.warps_left);
  sm.next = std::min(sm.next, t);
}

void NvidiaMachine::finish_cta(int s, int slot, double t, double next_start) {
  Sm& sm = sms_[static_cast<std::size_t>(s)];
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(slot)];
  lis_.on_cta(s, c.id, c.start, t);
  c.active = false;
  c.cta.reset();
  ++ctas_done_;
  done_cta_insts_ += c.insts;
  last_end_ = std::max(last_end_, t);
  sm.residency.change(t, -wpb_);
  if (cluster_ > 1) {
    c.group.reset();
    placer_.release(s, slot);
    if (!stop_ && !hold_) launch_clusters(next_start);
    return;
  }
  if (!stop_ && !hold_ && !queue_.empty(s)) launch_cta(s, slot, queue_.next(s), next_start);
}

// Stops every CTA in flight but those in `keep` (kept for a later functional completion) and
// clears the SMs' timing state, so that a second detailed window can start from fresh CTAs. An SM
// that keeps a CTA keeps its warps, their scoreboards and its tensor engines; its schedulers look
// at them again at `now`.
void NvidiaMachine::abandon_in_flight(double now, const std::vector<std::uint64_t>& keep) {
  for (int s = 0; s < nsms_; ++s) {
    Sm& sm = sms_[static_cast<std::size_t>(s)];
    bool kept = false;
    for (std::size_t slot = 0; slot < sm.ctas.size(); ++slot) {
      CtaSlot& c = sm.ctas[slot];
      if (!c.active) continue;
      if (std::find(keep.begin(), keep.end(), c.id) != keep.end()) {
        kept = true;
        continue;
      }
      sm.residency.change(now, -wpb_);
      if (cluster_ > 1) placer_.release(s, static_cast<int>(slot));
      abandoned_.push_back(std::move(c));
      c.cta.reset();
      c.group.reset();
      c.active = false;
      for (int wi = 0; wi < wpb_; ++wi) set_live(sm.warps[slot * static_cast<std::size_t>(wpb_) + static_cast<std::size_t>(wi)], false);
    }
    if (!kept) {
      sm.tensor->reset(now);  // the abandoned CTAs' queued wgmmas go with them
      if (sm.tc) sm.tc->reset(now);
      sm.tmem_free = now;
    }
    for (std::size_t si = 0; si < sm.subs.size(); ++si) {
      Sub& sub = sm.subs[si];
      if (now > sub.idle_since)  // close window A's interval
        lis_.on_stall({s, static_cast<int>(si), sub.why, sub.idle_since, now - sub.idle_since, sub.wait_warp, sub.wait_pc});
      sub.pipes.reset(now);
      sub.next = kept ? now : kInf;
      sub.wake_warp = -1;
      sub.idle_since = now;
      sub.last = sub.last_k = -1;
    }
    sm.next = kept ? now : kInf;
  }
}

void NvidiaMachine::for_each_queued(const std::function<void(std::uint64_t)>& f) {
  if (cluster_ == 1) return queue_.for_each_remaining(f);
  placer_.for_each_remaining([&](std::uint64_t index) {
    for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(cluster_); ++r) f(k_.dims().cluster_cta(index, r));
  });
}

bool NvidiaMachine::probe_untimed(std::uint64_t id, std::uint64_t max_insts) {
  if (cluster_ == 1) return probe_alone(k_, max_insts, [&] { k_.make_cta(id)->run(); });
  const std::uint64_t index = k_.dims().cluster_of(id);
  if (std::find(probed_.begin(), probed_.end(), index) != probed_.end()) return true;  // with another corner of it
  probed_.push_back(index);
  return probe_alone(k_, max_insts * static_cast<std::uint64_t>(cluster_), [&] { k_.make_cluster(index).front()->run(); });
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> NvidiaMachine::in_flight() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
  for (const auto& sm : sms_)
    for (const auto& c : sm.ctas)
      if (c.active) v.push_back({c.id, c.insts});
  return v;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> NvidiaMachine::run_in_flight(const std::vector<std::uint64_t>& ids, std::uint64_t max_insts) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
  const std::uint64_t first = k_.warp_instructions();
  for (auto& sm : sms_)
    for (auto& c : sm.ctas) {
      if (!c.active || !c.cta || std::find(ids.begin(), ids.end(), c.id) == ids.end()) continue;
      const std::uint64_t before = k_.warp_instructions(), used = before - first;
      if (used >= max_insts) return v;
      const bool ended = probe_alone(k_, max_insts - used, [&] { c.cta->run(); });
      v.push_back({c.id, k_.warp_instructions() - before});
      if (!ended) return v;
    }
  return v;
}

void NvidiaMachine::complete_started() {
  for (auto& c : abandoned_)
    if (c.cta) c.cta->run();
  for (auto& sm : sms_)
    for (auto& c : sm.ctas)
      if (c.active) c.cta->run();
  queue_.for_each_remaining([&](std::uint64_t id) {
    if (cluster_ == 1) k_.make_cta(id)->run();
  });
  if (cluster_ > 1) placer_.for_each_remaining([&](std::uint64_t index) { k_.make_cluster(index).front()->run(); });
  k_.set_canceller(nullptr);
}

void NvidiaMachine::close_window(double end, bool stopped) {
  for (int s = 0; s < nsms_; ++s) sms_[static_cast<std::size_t>(s)].residency.close(lis_, s, end);
  for (int s = 0; s < nsms_; ++s)
    for (std::size_t si = 0; si < sms_[static_cast<std::size_t>(s)].subs.size(); ++si) {
      const Sub& sub = sms_[static_cast<std::size_t>(s)].subs[si];
      if (end <= sub.idle_since) continue;
      const bool waiting = sub.why != Stall::Idle && stopped;
      lis_.on_stall({s, static_cast<int>(si), waiting ? sub.why : Stall::Idle, sub.idle_since, end - sub.idle_since, waiting ? sub.wait_warp : -1,
                     waiting ? sub.wait_pc : kNoPc});
    }
}

void NvidiaMachine::report_memory(Listener& l, double scale, double busy_scale) const {
  mem::MemCounters c = mem_->counters();
  if (scale != 1.0) c.scale(scale);
  l.on_memory(c, busy_scale * mem_->dram_busy_cycles(), busy_scale * mem_->l2_busy_cycles(), scale);
}

// ---------------------------------------------------------------------------------------------
// scheduling

// Recomputes when warp w's next instruction has its operands (not counting the pipe it needs,
// which other warps change). Called only when w's state changes: after it issues, when it is
// launched, when a barrier releases it.
void NvidiaMachine::refresh(Warp& w) {
  if (!w.sched->live) return;
  const InstTiming& it = itime_[w.pc];
  double t = w.ready;
  Stall why = w.ready_is_async ? Stall::AsyncWait : Stall::ExecutionDependency;
  const std::uint8_t group = it.first_group;  // the pipe it is issued to first
  const double cross = d_.sm.cross_pipe_latency_cycles;
  for (std::uint32_t k = it.dep_begin; k < it.dep_end; ++k) {
    const Scoreboard::Entry& e = w.sb.at(dep_regs_[k]);
    if (e.from_wgmma && it.wgmma) continue;  // chained on the tensor engine, in order
    double v = e.ready;
    if (e.pipe_group && group && e.pipe_group != group) v += cross;
    if (v > t) {
      t = v;
      why = e.from_memory ? Stall::MemoryDependency : e.from_wgmma ? Stall::AsyncWait : Stall::ExecutionDependency;
    }
  }
  w.sched->dep_ready = t;
  w.sched->dep_why = why;
  w.sched->unit = static_cast<std::int8_t>(it.unit);
  w.sched->alt = static_cast<std::int8_t>(it.alt);
}

double NvidiaMachine::step(int s, double now) {
  Sm& sm = sms_[static_cast<std::size_t>(s)];
  double sm_next = kInf;
  for (std::size_t si = 0; si < sm.subs.size(); ++si) {
    Sub& sub = sm.subs[si];
    if (sub.next <= now) pick_and_issue(s, sm, sub, static_cast<int>(si), now);
    if (stop_) return sm.next;
  }
  // after every scheduler's turn: an issue may have woken a warp of a scheduler served before it
  for (const Sub& sub : sm.subs) sm_next = std::min(sm_next, sub.next);
  sm.next = sm_next;
  return sm_next;
}

// The scheduler's choice among its warps (greedy-then-oldest), or why it issues nothing.
void NvidiaMachine::pick_and_issue(int s, Sm& sm, Sub& sub, int si, double now) {
  int best = -1, earliest_w = -1;
  std::uint64_t best_key = ~std::uint64_t{0};
  double earliest = kInf;
  Stall earliest_why = Stall::Idle;
  // when the warp could issue (its operands, then a free pipe) and why not earlier
  auto when = [&](const SchedState& x, Stall& why) {
    why = x.dep_why;
    double t = x.dep_ready;
    double pf = sub.pipes.free_at(static_cast<int>(x.unit));  // refresh() cached the pipes of its pc
    if (x.alt >= 0) pf = std::min(pf, sub.pipes.free_at(static_cast<int>(x.alt)));
    if (pf > t) { t = pf; why = Stall::PipeBusy; }
    return t;
  };
  // greedy: the warp that issued last has key 0, the least any warp has, so when it can issue
  // the scan could only choose it
  if (policy_ == WarpPolicy::GreedyThenOldest && sub.last >= 0) {
    const SchedState& x = sub.sched[static_cast<std::size_t>(sub.last_k)];
    Stall why;
    if (x.live && !x.at_barrier && when(x, why) <= now) best = sub.last;
  }
  // the warp the last scan found for this time, its warps unchanged since: the scan's choice
  if (best < 0 && sub.wake_warp >= 0 && now == sub.next) best = sub.wake_warp;
  sub.wake_warp = -1;
  // The scan skips what cannot change its answer: once a warp can issue, the warps it would win
  // against (the earliest time and the stall reasons matter only when none can); before that, a
  // warp whose operands come after now and after the earliest time so far (its time is at least
  // its operands'). Among the warps of the earliest time it keeps the one it would choose then.
  int wake = -1;
  std::uint64_t wake_key = ~std::uint64_t{0};
  const bool any_live = sub.live != 0, all_barrier = (sub.live & ~sub.at_barrier) == 0;
  for (std::uint64_t left = best >= 0 ? 0 : sub.live & ~sub.at_barrier; left; left &= left - 1) {
    const std::size_t k = static_cast<std::size_t>(std::countr_zero(left));
    const SchedState& x = sub.sched[k];
    if (best < 0 && x.dep_ready > now && x.dep_ready > earliest) continue;
    const int wi = sub.warps[k];
    const std::uint64_t key = warp_key(policy_, wi, sub.last, x.age);
    if (best >= 0 && key >= best_key) continue;
    Stall why;
    const double t = when(x, why);
    if (t <= now) {
      best_key = key;
      best = wi;
      if (key == 0) break;
    } else if (best < 0 && t < earliest) {
      earliest = t;
      earliest_why = why;
      earliest_w = wi;
      wake = wi;
      wake_key = key;
    } else if (best < 0 && t == earliest && key < wake_key) {
      wake = wi;
      wake_key = key;
    }
  }
  if (best >= 0) {
    if (now > sub.idle_since) lis_.on_stall({s, si, sub.why, sub.idle_since, now - sub.idle_since, sub.wait_warp, sub.wait_pc});
    issue(s, sm, sub, best, now);
    sub.last = best;
    sub.last_k = static_cast<int>(sm.warps[static_cast<std::size_t>(best)].sched - sub.sched.data());
    sub.idle_since = now + 1;
    sub.next = now + 1;
    return;
  }
  sub.next = earliest;
  sub.wake_warp = wake;
  sub.why = !any_live ? Stall::Idle : all_barrier ? Stall::Barrier : earliest_why;
  sub.wait_warp = sub.why == Stall::Idle || all_barrier ? -1 : earliest_w;
  sub.wait_pc = sub.wait_warp >= 0 ? sm.warps[static_cast<std::size_t>(sub.wait_warp)].pc : kNoPc;
}

// ---------------------------------------------------------------------------------------------
// issue

// Executes warp wi's next instruction functionally and times it: its pipe, its result's
// availability in the scoreboard, and what it does to barriers and the CTA's end.
void NvidiaMachine::issue(int s, Sm& sm, Sub& sub, int wi, double now) {
  Warp& w = sm.warps[static_cast<std::size_t>(wi)];
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  const std::uint32_t pc = w.pc;
  const P::Inst& in = p_.insts[pc];
  const InstTiming& it = itime_[pc];
  c.cta->set_clock(static_cast<std::uint64_t>(now));
  const StepInfo info = c.cta->step(w.widx);
  w.pc = info.next_pc;
  w.asleep = false;
  ++timed_insts_;
  ++c.insts;
  const int lanes = std::popcount(info.active);
  // an integer add goes to the FMA pipe (VIADD) unless that is busier
  const int k = it.alt >= 0 && sub.pipes.free_at(it.alt) <= sub.pipes.free_at(it.unit) ? 1 : 0;
  const Unit u = k ? static_cast<Unit>(it.alt) : it.unit;
  if (in.flags & P::kRangeReduced) sub.pipes.hold(Unit::Fp32, now + pipe_[static_cast<int>(Unit::Fp32)].issue);  // FMUL.RZ first
  if (it.guard_issued) sub.pipes.hold(Unit::Fp32, now + it.guard_issued * pipe_[static_cast<int>(Unit::Fp32)].issue);  // denormal guards
  sub.pipes.occupy(u, now, it.busy[k]);
  // a control transfer (a taken branch, the switch to another divergent path) holds the warp
  const bool transfer = info.kind == StepInfo::Kind::Executed && info.next_pc != pc + 1;
  w.ready = now + (transfer ? std::max(1.0, d_.sm.taken_branch_cycles) : 1.0);
  w.ready_is_async = false;
  bool from_mem = false;
  const double done = execute(s, sm, w, in, info, now, now + it.latency[k], from_mem);
  const std::uint8_t produced_by = from_mem ? 0 : it.group[k];
  // a wgmma's accumulators are the tensor engine's until it completes (`done`): wgmmas chained on
  // them are served in order (refresh), and any other reader waits for the completion, as the
  // wait ptxas injects before such a reader does (its C7517 note) when no wgmma.wait_group did
  const bool wgmma = in.op == P::Op::WgmmaMma;
  for (int i = 0; i < in.ndst; ++i)
    if (const int idx = sb_index(p_.dst(in, i)); idx >= 0) w.sb.write(idx, done, from_mem, wgmma ? 0 : produced_by, wgmma);
  lis_.on_issue({s, w.sub, wi, c.id, pc, in.unit, lanes, it.flops_per_lane * lanes + it.flops_per_inst + tc_flops_, it.busy[k], now});
  tc_flops_ = 0;
  after_step(sm, w, c, in, info, now);
  if (info.kind == StepInfo::Kind::Exited) warp_exited(s, sm, w, now);
}

// What memory and synchronisation instructions do beyond their pipe: returns when the result is
// available (`done` for plain arithmetic).
double NvidiaMachine::execute(int s, Sm& sm, Warp& w, const P::Inst& in, const StepInfo& info, double now, double done, bool& from_mem) {
  if (in.unit == Unit::Mem) {
    from_mem = true;
    const double t = memory(s, sm, w, in, info, now);
    if (in.op == P::Op::St || in.op == P::Op::Red || in.op == P::Op::WmmaStore || in.op == P::Op::Stmatrix) {
      w.drain = std::max(w.drain, t);  // fire and forget: only the CTA's end waits for it
      return now + 1;
    }
    return t;
  }
  if (in.unit == Unit::Sync) return sync_op(s, w, in, done, now, from_mem);
  if (in.op == P::Op::WgmmaMma) {  // to the tensor engine; completes onto the warp's open wgmma group
    AsyncRequest r;
    r.issue = now;
    r.work_cycles = itime_[static_cast<std::size_t>(&in - p_.insts.data())].engine_cycles;
    r.target = &w.wgmma.open_group();
    r.warp = static_cast<int>(&w - sm.warps.data());
    // the warpgroup's four warps issue one wgmma: its n-th of this CTA's warpgroup
    const CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
    r.op_key = ((c.id * 64 + static_cast<std::uint64_t>(w.widx / kWarpgroupWarps)) << 24 | (w.wgmmas_issued++ & 0xffffffu)) + 1;
    const double complete = sm.tensor->accept(r).done;
    // ptxas serialized this kernel's wgmmas (its C7514 note): the next waits for this one
    if (p_.wgmma_serialized && complete > w.ready) {
      w.ready = complete;
      w.ready_is_async = true;
    }
    return complete;  // when its accumulators hold the result
  }
  return done;
}

double NvidiaMachine::sync_op(int s, Warp& w, const P::Inst& in, double done, double now, bool& from_mem) {
  switch (in.op) {
    case P::Op::CpAsyncCommit: w.groups.commit(now); return done;
    case P::Op::WgmmaCommit: w.wgmma.commit(now); return done;
    case P::Op::WgmmaWait: {
      const double need = w.wgmma.wait(in.imm, now);
      if (need > w.ready) { w.ready = need; w.ready_is_async = true; }
      return done;
    }
    case P::Op::CpAsyncWait: {
      // wait until all but the newest `imm` groups are complete
      const double need = w.groups.wait(in.imm, now);
      if (need > w.ready) { w.ready = need; w.ready_is_async = true; }
      return done;
    }
    case P::Op::BarClusterArrive:  // .release: the warp's stores reach the cluster before its arrival counts
      w.ready = std::max(w.ready, w.drain);
      return done;
    case P::Op::Vote: return now + d_.sm.vote_latency_cycles;
    case P::Op::Redux: return now + d_.sm.redux_latency_cycles;
    case P::Op::Shfl: case P::Op::Match:  // through the shared-memory crossbar
      from_mem = false;
      return mem_->shared_wavefronts(s, now, 1);
    default: return done;
  }
}

// Barriers and folded instructions after a step; refreshes the warp's readiness.
void NvidiaMachine::after_step(Sm& sm, Warp& w, CtaSlot& c, const P::Inst& in, const StepInfo& info, double now) {
  if (in.op == P::Op::Bar) {  // arrivals count one by one: in the CTA, and in the SM's unit all its CTAs share
    double t = now;
    if (const double per = d_.sm.barrier_sm_cycles_per_arrival; per > 0) {
      t = std::max(now, sm.barrier_port);
      sm.barrier_port = t + per;
    }
    c.barrier.arrive(t);
  }
  if (info.kind == StepInfo::Kind::BarrierWait) {
    set_at_barrier(w, true);
    check_cta_deadlock(sm, c, w);  // the others may all sleep on mbarriers
  }
  if (info.released_barrier) {
    const double t_rel = c.barrier.release(now);
    for (int k = 0; k < wpb_; ++k) {
      Warp& o = sm.warps[static_cast<std::size_t>(w.cta * wpb_ + k)];
      if (!o.sched->live || !o.sched->at_barrier || c.cta->warp_waiting(o.widx)) continue;
      set_at_barrier(o, false);
      o.ready = std::max(o.ready, t_rel);
      requeue(sm, c, o);
    }
    set_at_barrier(w, false);
    w.ready = std::max(w.ready, t_rel);
  }
  if (info.released_cluster_barrier) {
    // the completing arrival (once its stores are out) and its kind: a .relaxed one has no fence
    const double last = std::max(now, w.drain);
    const double latency = !c.group                   ? d_.sm.cluster_barrier_one_cta_latency_cycles
                           : (in.flags & P::kRelaxed) ? d_.sm.cluster_barrier_relaxed_latency_cycles
                                                      : d_.sm.cluster_barrier_latency_cycles;
    release_cluster_barrier(c, static_cast<int>(&sm - sms_.data()), w.cta, last + latency);
    if (!c.cta->warp_waiting(w.widx)) {
      set_at_barrier(w, false);
      w.ready = std::max(w.ready, last + latency);
    }
  }
  if ((info.kind == StepInfo::Kind::Executed || info.released_barrier || info.released_cluster_barrier) && !w.sched->at_barrier) skip_folded(c, w);
  refresh(w);
}

// Warp w of CTA slot c may issue again from its ready time (a barrier released it, an mbarrier
// phase woke it): its scheduler, and the SM, look at it again then.
void NvidiaMachine::requeue(Sm& sm, CtaSlot& c, Warp& w) {
  skip_folded(c, w);
  refresh(w);
  Sub& sub = sm.subs[static_cast<std::size_t>(w.sub)];
  sub.wake_warp = -1;
  sub.next = std::min(sub.next, w.ready);
  sm.next = std::min(sm.next, sub.next);
}

// barrier.cluster completed: the waiting warps of every CTA of the cluster (on several SMs of
// the GPC; a CTA launched without clusters: its own) issue again at t_rel.
void NvidiaMachine::release_cluster_barrier(const CtaSlot& c, int own_sm, int own_slot, double t_rel) {
  const std::vector<std::pair<int, int>> slots = c.group ? c.group->slots : std::vector<std::pair<int, int>>{{own_sm, own_slot}};
  for (const auto& [s, slot] : slots) {
    Sm& sm = sms_[static_cast<std::size_t>(s)];
    CtaSlot& o = sm.ctas[static_cast<std::size_t>(slot)];
    if (!o.active || o.group != c.group) continue;
    for (int k = 0; k < wpb_; ++k) {
      Warp& x = sm.warps[static_cast<std::size_t>(slot * wpb_ + k)];
      if (!x.sched->live || !x.sched->at_barrier || o.cta->warp_waiting(x.widx)) continue;
      set_at_barrier(x, false);
      x.ready = std::max(x.ready, t_rel);
      requeue(sm, o, x);
    }
    woken_.push_back(s);
  }
}

// The CTA's work is done when its stores and reductions have been accepted and its outstanding
// loads have drained; its slot takes a new CTA sm.cta_turnover_cycles after its last warp exits.
void NvidiaMachine::warp_exited(int s, Sm& sm, Warp& w, double now) {
  set_live(w, false);
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  if (--c.warps_left != 0) return;
  double end = now + 1;
  for (int k = 0; k < wpb_; ++k) {
    const Warp& o = sm.warps[static_cast<std::size_t>(w.cta * wpb_ + k)];
    end = o.sb.latest(std::max(end, o.drain));
  }
  finish_cta(s, w.cta, end, std::max(end, now + 1 + d_.sm.cta_turnover_cycles));
}

// Instructions ptxas folds into their readers or into the instruction before them (a float
// neg/abs as an operand modifier, predicate logic into its comparison) execute with no time: the
// value is ready when its latest source is.
void NvidiaMachine::skip_folded(CtaSlot& c, Warp& w) {
  while (itime_[w.pc].folded) {
    const P::Inst& in = p_.insts[w.pc];
    int src = -1;
    for (int k = 0; k < in.nsrc; ++k)
      if (const int r = sb_index(p_.src(in, k)); r >= 0 && (src < 0 || w.sb.at(r).ready > w.sb.at(src).ready)) src = r;
    const int dst = sb_index(p_.dst(in, 0));
    const StepInfo info = c.cta->step(w.widx);
    w.pc = info.next_pc;
    ++timed_insts_;
    ++c.insts;
    if (dst >= 0) {
      if (src >= 0) w.sb.forward(dst, src);
      else w.sb.write(dst, w.ready, false, 0);
    }
    if (info.kind != StepInfo::Kind::Executed) break;
  }
}

// ---------------------------------------------------------------------------------------------
// memory front

// A global access; the warp cannot issue again until the SM's memory pipeline accepted it.
double NvidiaMachine::global(int s, Warp& w, double now, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, mem::Access kind) {
  const mem::MemTiming t = mem_->global(s, now, addrs, mask, bytes, kind, w.cta * wpb_ + w.widx);
  w.ready = std::max(w.ready, t.accepted + 1);
  w.last_past_l1 = t.past_l1;
  return t.done;
}

double NvidiaMachine::memory(int s, Sm& sm, Warp& w, const P::Inst& in, const StepInfo& info, double now) {
  const CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  const std::uint64_t* addrs = c.cta->lane_addresses(w.widx);
  const std::uint32_t mask = info.active;
  const std::uint32_t eb = static_cast<std::uint32_t>(std::max(1, P::ty_bits(in.type) / 8)) * std::max<std::uint32_t>(1, in.vec);
  // an LDS/STS with no lane on (ptxas's if-converted bodies) still takes the shared pipe for one
  // wavefront (smem_pipe.cu on the H100: 0.997 and 1.012 cycles per instruction per SM, as a
  // conflict-free access)
  const bool shared_access = (in.op == P::Op::Ld || in.op == P::Op::St || in.op == P::Op::Atom || in.op == P::Op::Red) && in.space == P::Space::Shared;
  if (!mask) return shared_access ? mem_->shared_wavefronts(s, now, 1) : now + 1;
  switch (in.op) {
    case P::Op::Ld: case P::Op::St: case P::Op::Atom: case P::Op::Red: {
      const bool atomic = in.op == P::Op::Atom || in.op == P::Op::Red;
      auto report = [&](mem::Level level, double done) {
        lis_.on_memory_access({s, w.cta * wpb_ + w.widx, static_cast<std::uint32_t>(&in - p_.insts.data()), level, in.op != P::Op::Ld, atomic, std::popcount(mask),
                               static_cast<std::uint32_t>(std::popcount(mask)) * eb, mem_->last_access_units(), now, done});
        return done;
      };
      // ATOMS.POPC.INC (kPopcInc) adds each word's lane count once: its lanes on one word are served together
      if (info.space == P::Space::Shared)
        return report(mem::Level::Shared, mem_->shared(s, now, addrs, mask, eb, atomic && !(in.flags & P::kPopcInc)));
      if (info.space == P::Space::SharedCluster) return report(mem::Level::Shared, dsmem(s, sm, mask, eb, now));
      if (info.space == P::Space::Param) return now + param_latency_;
      const mem::Access kind = atomic ? (P::ty_is_float(in.type) ? mem::Access::AtomicFloat : mem::Access::Atomic)
                               : in.op == P::Op::Ld ? ((in.flags & P::kBypassL1) ? mem::Access::LoadBypassL1 : mem::Access::Load)
                                                    : mem::Access::Store;
      // ptxas performs an integer atomic add on a warp-uniform address once per warp
      const std::uint32_t lanes = (in.flags & P::kWarpAggregated) ? (mask & (~mask + 1)) : mask;
      double done = global(s, w, now, addrs, lanes, eb, kind);
      if (in.batch > 1 && in.op == P::Op::Ld) {
        // ptxas unrolled this load's loop: the k-th load of a group of `batch` left with the
        // first, so its value is there one latency after the group began
        auto& [count, start] = w.batch[in.batch_slot];
        const std::uint32_t k = count++ % in.batch;
        if (k == 0) start = now;
        done = std::max(now + 1.0, std::min(done, start + (done - now) + k));
      }
      // a warp's loads that go beyond L1 return in issue order: an L2 hit behind the same warp's
      // HBM miss comes back with the miss (halo_latency.cu on the H100: 711 cycles against 294
      // alone, the miss 726; another warp's misses do not hold it: 285)
      if (in.op == P::Op::Ld && w.last_past_l1) {
        done = std::max(done, w.l2_load_done);
        w.l2_load_done = done;
      }
      return report(mem::Level::L1, done);
    }
    case P::Op::CpAsync: {  // handed to the SM's copy engine; the warp goes on once it took the request
      AsyncRequest r;
      r.issue = now;
      r.target = &w.groups.open_group();
      r.addrs = addrs;
      r.mask = mask;
      r.bytes_per_lane = static_cast<std::uint32_t>(in.shape[0]);
      r.bytes = static_cast<std::uint64_t>(std::popcount(mask)) * r.bytes_per_lane;
      r.warp = w.cta * wpb_ + w.widx;
      const AsyncAccepted a = sm.copies->accept(r);
      w.ready = std::max(w.ready, a.accepted + 1);
      return now + 1;
    }
    case P::Op::Ldmatrix: case P::Op::Stmatrix:
      return mem_->shared_wavefronts(s, now, static_cast<std::uint32_t>(in.shape[0]));
    case P::Op::WmmaLoad: case P::Op::WmmaStore:
      return wmma_memory(s, w, c, in, info, now);
    default:
      return P::is_async_op(in.op) ? async_op(s, sm, w, in, now) : now + 1;
  }
}

// mbarrier operations and bulk/tensor copies (sim/functional/ptx_async.cpp did them): a copy goes
// to the SM's TMA engine; every mbarrier the step touched records when the operation takes effect
// (a copy's bytes when the engine delivers them, anything else tma.mbarrier_arrive_cycles after
// issue); a completed phase wakes the warps asleep on it; a failing wait puts this warp to sleep
// until the phase completes. Returns when the result (a token, a wait's predicate) is there.
double NvidiaMachine::async_op(int s, Sm& sm, Warp& w, const P::Inst& in, double now) {
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  const AsyncStep& a = c.cta->async_step(w.widx);
  // clusterlaunchcontrol.try_cancel: its response lands launch.clc_response_cycles after issue
  const double copy_done = a.copy                          ? tma_copy(sm, w, a, now)
                           : in.op == P::Op::ClcTryCancel ? now + d_.launch.clc_response_cycles
                                                          : now;
  const bool tc = P::is_tcgen05_op(in.op);
  const double tc_result = tc ? tcgen05_op(sm, w, in, a, now) : 0;
  // tcgen05.commit's arrival takes effect when the warp's tcgen05.mma so far are complete
  const double commit_at = std::max(now, w.tc_done) + d_.tcgen05.commit_latency_cycles;
  if (in.op == P::Op::BulkCommit) w.bulk.commit(now);
  if (in.op == P::Op::BulkWait) {
    const double need = w.bulk.wait(in.imm, now);
    if (need > w.ready) { w.ready = need; w.ready_is_async = true; }
  }
  double result = now + d_.tma.mbarrier_arrive_cycles;
  std::uint32_t failed = kNoMbarrier;
  for (const MbarEvent& e : a.mbar) {
    if (e.what == MbarEvent::What::WaitOk) result = std::max(now, c.mbars.last_completion(e.addr)) + d_.tma.mbarrier_wake_cycles;
    else if (e.what == MbarEvent::What::WaitFail) failed = std::min(failed, e.addr);
    else {
      const MbarTarget t = mbar_target(s, c, e.addr);
      t.slot->mbars.record(t.addr, e.what == MbarEvent::What::CopyTx   ? copy_done
                                   : e.what == MbarEvent::What::Commit ? commit_at
                                                                       : now + d_.tma.mbarrier_arrive_cycles);
      if (!e.completed_phase) continue;
      wake_sleepers(sms_[static_cast<std::size_t>(t.sm)], *t.slot, t.addr);
      if (t.sm != s) woken_.push_back(t.sm);
    }
  }
  // try_wait suspends the thread until the phase it found complete has completed in time
  if (in.op == P::Op::MbarTryWait && failed == kNoMbarrier && result > w.ready) {
    w.ready = result;
    w.ready_is_async = true;
  }
  if (failed != kNoMbarrier && a.try_wait) {
    sleep_on(c, w, a, failed, now);
    check_cta_deadlock(sm, c, w);
  }
  return tc ? tc_result : result;
}

// tcgen05 (sim/functional/ptx_tcgen05.cpp did the work): each tcgen05.mma a lane issued goes to
// the SM's tensor engine (units/tensor_engine.h); tcgen05.ld/st move their bytes over the SM's
// TMEM <-> register path and are done a latency later; wait::ld/st hold the warp until its loads or
// stores are. Returns when the instruction's result is there (an ld's registers).
double NvidiaMachine::tcgen05_op(Sm& sm, Warp& w, const P::Inst& in, const AsyncStep& a, double now) {
  const device::Tcgen05& t = d_.tcgen05;
  auto hold = [&](double need) {
    if (need > w.ready) {
      w.ready = need;
      w.ready_is_async = true;
    }
  };
  switch (in.op) {
    case P::Op::Tcgen05Mma:
    case P::Op::Tcgen05Cp:     // a copy: no FLOP, its shared-memory bytes on the engine, as an SS mma's
    case P::Op::Tcgen05Shift:  // a shift: no FLOP, its tensor-memory bytes on the engine, as a TS mma's
      for (const TcMma& m : a.tc_mma) {
        AsyncRequest r;
        r.issue = now;
        r.work_cycles = tc_service(m);
        r.warp = static_cast<int>(&w - sm.warps.data());
        const double extra = m.a_tmem ? 0 : t.mma_smem_latency_cycles;  // A's read from shared memory
        double done = sm.tc->accept(r).done;
        if (Sm* peer = m.pair ? pair_peer(sm, w) : nullptr)  // the pair's other half, in step
          done = std::max(done, peer->tc->accept(r).done);
        w.tc_done = std::max(w.tc_done, done + extra);
        tc_flops_ += 2.0 * m.m * m.n * m.k;
      }
      w.drain = std::max(w.drain, w.tc_done);  // the CTA ends after its tensor work
      return now + 1;
    case P::Op::Tcgen05Ld:
    case P::Op::Tcgen05St: {
      sm.tmem_free = std::max(sm.tmem_free, now) + static_cast<double>(a.tmem_bytes) / t.tmem_bytes_per_cycle;
      const bool ld = in.op == P::Op::Tcgen05Ld;
      double& last = ld ? w.tmem_ld_done : w.tmem_st_done;
      last = std::max(last, sm.tmem_free + (ld ? t.ld_latency_cycles : t.st_latency_cycles));
      return ld ? last : now + 1;
    }
    case P::Op::Tcgen05WaitLd: hold(w.tmem_ld_done); return now + 1;
    case P::Op::Tcgen05WaitSt: hold(w.tmem_st_done); return now + 1;
    default: return now + 1;  // alloc/dealloc/relinquish, commit (its arrival is an mbarrier event), fences
  }
}

// The SM of the other CTA of a .cta_group::2 pair (the cluster rank differing in bit 0), or null
// when the warp's CTA is not in a cluster of a pair.
Sm* NvidiaMachine::pair_peer(Sm& sm, const Warp& w) {
  const CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  if (!c.group) return nullptr;
  const int s = static_cast<int>(&sm - sms_.data());
  const auto& slots = c.group->slots;
  for (std::size_t r = 0; r < slots.size(); ++r)
    if (slots[r].first == s && slots[r].second == w.cta)
      return (r ^ 1u) < slots.size() ? &sms_[static_cast<std::size_t>(slots[r ^ 1u].first)] : nullptr;
  return nullptr;
}

// Engine cycles of one tcgen05.mma: its FLOP (over at least tcgen05.mma_datapath_rows rows) at the
// kind's dense rate or, when longer, the shared-memory operand bytes it reads over the shared port
// (as wgmma's, units/tensor_engine.h).
double NvidiaMachine::tc_service(const TcMma& m) const {
  const device::Tcgen05& t = d_.tcgen05;
  const auto kind = static_cast<P::TcKind>(m.kind);
  WgmmaWork w;
  // an M = 64 mma uses half the datapath (PTX ISA Layout F): it takes as long as a full one. A CTA
  // pair's (.cta_group::2) runs half its rows on each SM's engine, in step (tcgen05_op puts it on
  // both), each reading its own halves of A and B. The 2x2 and 1x4 datapaths (Layout B: M = 128
  // pairs; Layouts E and G: .ws with M = 64 and 32) fill every lane with a block of D's columns
  const double rows = (m.pair ? m.m / 2.0 : m.m) * m.lane_blocks;
  w.flops = 2.0 * std::max<double>(rows, static_cast<double>(t.mma_datapath_rows)) * m.n / m.lane_blocks * m.k;
  if (m.sparse) w.flops /= 2;  // .sp: the datasheet's sparse rates are twice the dense ones (B200: 4.5 PF FP16)
  w.smem_bytes = m.smem_bytes;
  const bool f4 = kind == P::TcKind::Mxf4 || kind == P::TcKind::Mxf4nvf4;  // ::f8f6f4/mxf8f6f4: the fp8 rate
  w.flops_per_cycle = kind == P::TcKind::F16    ? t.mma_flops_per_cycle_f16
                      : kind == P::TcKind::Tf32 ? t.mma_flops_per_cycle_tf32
                      : kind == P::TcKind::I8   ? t.mma_flops_per_cycle_i8
                      : f4                      ? t.mma_flops_per_cycle_f4
                                                : t.mma_flops_per_cycle_f8f6f4;
  w.smem_bytes_per_cycle = static_cast<double>(d_.shared.banks) * d_.shared.bank_width_bytes;
  // tcgen05.shift moves rows within tensor memory: its bytes (read and written) over the TMEM path
  return std::max(wgmma_service_cycles(w), static_cast<double>(m.tmem_bytes) / t.tmem_bytes_per_cycle);
}

// A bulk or tensor copy through the TMA engine; stores and reductions complete onto the warp's
// bulk group. The warp may issue again once the engine took the request.
double NvidiaMachine::tma_copy(Sm& sm, Warp& w, const AsyncStep& a, double now) {
  const bool to_global = a.dir == P::BulkDir::SharedToGlobal && !a.prefetch;
  sm.tma->set_access(!to_global ? mem::Access::LoadBypassL1 : a.reduce ? mem::Access::Atomic : mem::Access::Store);
  AsyncRequest r;
  r.issue = now;
  r.bytes = a.bytes;
  r.ranges = &a.ranges;
  r.warp = w.cta * wpb_ + w.widx;
  if (to_global) r.target = &w.bulk.open_group();
  const AsyncAccepted acc = sm.tma->accept(r);
  w.ready = std::max(w.ready, acc.accepted + std::max(1.0, d_.tma.warp_issue_cycles));
  w.drain = std::max(w.drain, acc.done);  // the CTA ends after its copies land (stores too)
  return acc.done;
}

// The CTA whose mbarrier an event names: a shared::cluster address ((rank + 1) x
// kClusterRankStride + offset, a multicast's complete_tx or a remote arrive) names that rank's
// CTA, on its SM; a shared::cta offset the own CTA.
NvidiaMachine::MbarTarget NvidiaMachine::mbar_target(int s, CtaSlot& c, std::uint32_t addr) {
  if (addr < P::kClusterRankStride) return {s, &c, addr};
  const auto offset = static_cast<std::uint32_t>(addr % P::kClusterRankStride);
  const auto rank = static_cast<std::size_t>(addr / P::kClusterRankStride - 1);
  if (!c.group || rank >= c.group->slots.size()) return {s, &c, offset};  // a cluster of one (the functional side checked the rank)
  const auto [ts, slot] = c.group->slots[rank];
  return {ts, &sms_[static_cast<std::size_t>(ts)].ctas[static_cast<std::size_t>(slot)], offset};
}

// The phase of the mbarrier at `addr` completed: its sleepers may issue again.
void NvidiaMachine::wake_sleepers(Sm& sm, CtaSlot& c, std::uint32_t addr) {
  const double t = c.mbars.complete_phase(addr) + d_.tma.mbarrier_wake_cycles;
  for (int slot : c.mbars.wake(addr)) {
    Warp& o = sm.warps[static_cast<std::size_t>(slot)];
    if (!o.sched->live || !o.asleep) continue;  // it woke at its time limit and issued since
    o.asleep = false;
    o.ready = std::max(o.sleep_floor, t);
    o.ready_is_async = true;
    requeue(sm, c, o);
  }
}

// Warp w's try_wait on the mbarrier at `addr` failed: it sleeps until the phase completes or its
// time limit (the suspend-time hint, else tma.try_wait_limit_cycles); a stuck warp (it can only
// repeat the wait) sleeps until the phase completes.
void NvidiaMachine::sleep_on(CtaSlot& c, Warp& w, const AsyncStep& a, std::uint32_t addr, double now) {
  const double limit = a.hint_ns ? a.hint_ns * d_.clocks.core_mhz / 1e3 : d_.tma.try_wait_limit_cycles;
  w.asleep = true;
  w.sleep_floor = w.ready;
  w.ready = a.stuck ? kInf : std::max(w.ready, now + limit);
  w.ready_is_async = true;
  c.mbars.sleep(addr, w.cta * wpb_ + w.widx);
}

// When every live warp of w's CTA waits at a barrier or sleeps, stuck, on an mbarrier, nothing
// can wake any of them.
void NvidiaMachine::check_cta_deadlock(Sm& sm, CtaSlot& c, const Warp& w) {
  bool any_asleep = false;
  for (int k = 0; k < wpb_; ++k) {
    const Warp& o = sm.warps[static_cast<std::size_t>(w.cta * wpb_ + k)];
    if (!o.sched->live) continue;
    const bool stuck = o.asleep && o.ready == kInf;
    if (!o.sched->at_barrier && !stuck) return;
    any_asleep |= stuck;
  }
  if (any_asleep) c.cta->mbarrier_deadlock();
}

// Another CTA's shared memory (distributed shared memory): the SM's DSMEM port moves the lanes'
// bytes at shared.dsmem_bytes_per_cycle, the data arriving shared.dsmem_latency_cycles later.
double NvidiaMachine::dsmem(int, Sm& sm, std::uint32_t mask, std::uint32_t bytes, double now) {
  const double transfer = static_cast<double>(std::popcount(mask)) * bytes / d_.shared.dsmem_bytes_per_cycle;
  const double start = std::max(now, sm.dsmem_free);
  sm.dsmem_free = start + transfer;
  return sm.dsmem_free + d_.shared.dsmem_latency_cycles;
}

// A wmma fragment moves as ptxas's machine loads/stores in the mma.sync layout: each covers 8
// strided lines x 4 lanes x `wb` bytes; lane_addresses() are the first one's, the others are 8
// lines or 4 x wb bytes further on.
double NvidiaMachine::wmma_memory(int s, Warp& w, const CtaSlot& c, const P::Inst& in, const StepInfo& info, double now) {
  const std::uint64_t* addrs = c.cta->lane_addresses(w.widx);
  const std::uint32_t mask = info.active;
  const int M = in.shape[0], N = in.shape[1], K = in.shape[2];
  const int rows = in.sub == 0 ? M : in.sub == 1 ? K : M, cols = in.sub == 0 ? K : N;
  const bool col_major = (in.flags & P::kTrans) != 0;
  const int strided = col_major ? cols : rows, contiguous = col_major ? rows : cols;
  const int e = std::max(1, P::ty_bits(in.type) / 8), wb = P::wmma_access_width(in.sub, in.type);
  const int n_lines = std::max(1, strided / 8), n_cols = std::max(1, contiguous * e / (4 * wb));
  const std::uint64_t pitch = c.cta->fragment_pitch(w.widx);
  const mem::Access kind = in.op == P::Op::WmmaLoad ? mem::Access::Load : mem::Access::Store;
  const std::uint32_t b = static_cast<std::uint32_t>(wb);
  std::array<std::uint64_t, 32> a{};
  double done = now + 1;
  for (int i = 0; i < n_lines; ++i)
    for (int j = 0; j < n_cols; ++j) {
      const std::uint64_t off = static_cast<std::uint64_t>(i) * 8 * pitch + static_cast<std::uint64_t>(j) * 4 * b;
      for (int l = 0; l < 32; ++l) a[static_cast<std::size_t>(l)] = addrs[l] + off;
      done = std::max(done, info.space == P::Space::Shared ? mem_->shared(s, now, a.data(), mask, b, false)
                                                           : global(s, w, now, a.data(), mask, b, kind));
    }
  return done;
}

}  // namespace

TimingResult time_ptx_kernel(const device::DeviceSpec& dev, PtxKernel& kernel, const KernelResources& res, const TimingOptions& opts,
                             Listener& listener) {
  if (dev.vendor != device::Vendor::Nvidia)
    throw Error(ErrorKind::Unsupported, "PTX kernels run on NVIDIA devices; " + dev.name + " is an AMD part");
  NvidiaMachine machine(dev, kernel, res, listener, opts.complete_functionally);
  TimingResult r = Sampler(machine, opts, listener).run();
  at_load_clock(r, dev);
  return r;
}

// The launch was timed at clocks.core_mhz (the wgmma clock, at_tensor_clock); the part's clock
// under its tensor load (the engines' busy share of every SM of the part) is wgmma_load_mhz(load).
// The share b of its SMs' time the engines were busy moves with the SM clock, the rest (memory,
// whose clocks do not follow the SM's) stays: T' = T (1 - b + b c / c').
void at_load_clock(TimingResult& r, const device::DeviceSpec& dev) {
  const double c2 = r.tensor_busy_fraction >= 0 ? device::wgmma_load_mhz(dev, r.tensor_busy_fraction) : 0.0;
  if (c2 <= 0) return;
  const double b = r.tensor_busy_sm_fraction, c1 = dev.clocks.core_mhz;
  r.kernel_us *= 1.0 - b + b * c1 / c2;
  r.cycles = r.kernel_us * c2;
  r.time_us = r.kernel_us + r.launch_us;
  r.clock_mhz = c2;
}

}  // namespace kernsim::sim
