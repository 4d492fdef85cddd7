// kernsim::sim::PtxKernel / PtxCta — SIMT execution of a decoded PTX kernel on real data.
//
// A warp runs 32 lanes in lock-step with a reconvergence stack: a divergent branch splits the
// warp, and the halves meet again at the branch's immediate post-dominator (precomputed by the
// decoder). Barriers really wait for the CTA's threads; shared memory is per CTA; every memory
// access is bounds- and alignment-checked before anything is written.
//
// step() executes one warp instruction and says what happened (StepInfo): the functional
// driver calls it in a loop; the timing model calls it when its scheduler issues the warp, so
// both see exactly the same execution (execution-driven, no trace files).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isa/ptx/address_slice.h"
#include "isa/ptx/program.h"
#include "sim/functional/global_memory.h"

namespace kernsim::sim {

struct LaunchDims {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t dynamic_shared = 0;
  // Thread-block clusters (sm_90): the CTAs of one cluster run together and reach each other's
  // shared memory. The grid is a whole number of clusters (the launch checks it).
  std::array<std::uint32_t, 3> cluster{1, 1, 1};
  bool explicit_cluster = false;  // %is_explicit_cluster: launched with cluster dimensions
  std::uint32_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  std::uint64_t num_blocks() const { return std::uint64_t{grid[0]} * grid[1] * grid[2]; }
  std::uint32_t cluster_ctas() const { return cluster[0] * cluster[1] * cluster[2]; }
  std::uint64_t num_clusters() const { return num_blocks() / cluster_ctas(); }
  // The linear id of CTA `rank` (x fastest, as %cluster_ctarank) of cluster `index` (clusters
  // numbered x fastest over the grid of clusters).
  std::uint64_t cluster_cta(std::uint64_t index, std::uint32_t rank) const;
  // The index of the cluster CTA `cta_linear` belongs to (the inverse of cluster_cta).
  std::uint64_t cluster_of(std::uint64_t cta_linear) const;
};

struct ExecOptions {
  std::uint64_t max_warp_instructions = 4'000'000'000ull;  // per launch
  std::uint32_t num_sms = 0;                              // %nsmid: the device's sm.count (the launch sets it)
  // %nwarpid: the device's warp slots per SM (DeviceSpec::sm.max_warps); the launcher sets it,
  // the default is the H200's (calibration/devices/h200.yaml) for callers without a device
  std::uint32_t max_warps_per_sm = 64;
  std::string kernel_name;                                // for messages (demangled if known)
  // Tensor memory columns per SM (tcgen05, DeviceSpec::tcgen05.tmem_columns); 0: the part has none,
  // and tcgen05.alloc stops with its name
  std::uint32_t tmem_columns = 0;
  // Wall-clock limit (RL scoring): past it the launch fails with KernelFault. 0 = none.
  double wall_time_limit_s = 0;
};

// What a step did to mbarriers and to the SM's copy engine (sim/functional/ptx_async.cpp), for the
// timing model: each mbarrier a lane touched (consecutive lanes on the same one are one event)
// and whether that completed its phase; a bulk or tensor copy's bytes and the global ranges it
// reads or writes. Valid after a step whose StepInfo::async is set, until the warp's next one.
struct MbarEvent {
  // Commit: tcgen05.commit's arrival, which takes effect when the thread's tcgen05.mma complete
  enum class What : std::uint8_t { Init, Arrive, Tx, CopyTx, WaitOk, WaitFail, Commit, Other };
  What what = What::Other;
  std::uint32_t addr = 0;        // the mbarrier's shared-memory offset
  bool completed_phase = false;  // this operation completed the barrier's current phase
};
// One tcgen05.mma a thread issued (the tensor engine's work).
struct TcMma {
  std::uint8_t kind = 0;  // isa::ptx::TcKind
  std::uint16_t m = 0, n = 0, k = 0;
  bool a_tmem = false;    // A from tensor memory (else shared memory)
  bool pair = false;      // .cta_group::2: the work of a CTA pair, half of it on each CTA's SM
  std::uint8_t lane_blocks = 1;  // D's columns split over 1, 2 or 4 blocks of lanes (Layouts B, E, G: the
                                 // whole datapath busy for M < 128 rows per SM), else 1
  std::uint32_t smem_bytes = 0;  // bytes it reads from shared memory (A unless in TMEM, and B)
  std::uint32_t tmem_bytes = 0;  // bytes it moves within tensor memory, read and written (tcgen05.shift)
  bool sparse = false;           // tcgen05.mma.sp: 2 m n k FLOP of the dense product in the time of half of them
};
struct AsyncStep {
  std::vector<MbarEvent> mbar;
  std::vector<TcMma> tc_mma;              // tcgen05.mma issued by the step's lanes
  std::uint64_t tmem_bytes = 0;           // tcgen05.ld/st: bytes moved between TMEM and registers
  bool copy = false;                      // a bulk/tensor copy, reduction or prefetch
  isa::ptx::BulkDir dir = isa::ptx::BulkDir::GlobalToShared;
  bool prefetch = false, reduce = false;
  std::uint64_t bytes = 0;                // moved into or out of shared memory
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ranges;  // global (address, bytes) pieces, in order
  // a failing wait: whether it was try_wait (which may suspend the thread) with its suspend-time
  // hint in ns (0: none), and whether the warp is stuck (PtxCta::run's rule: its state repeats
  // that of its previous failing wait and nothing was stored since, so only another warp or an
  // engine can end the wait)
  bool try_wait = false, stuck = false;
  std::uint32_t hint_ns = 0;
  void clear() {
    try_wait = stuck = false;
    hint_ns = 0;
    mbar.clear();
    tc_mma.clear();
    tmem_bytes = 0;
    copy = prefetch = reduce = false;
    bytes = 0;
    ranges.clear();
  }
};

struct StepInfo {
  enum class Kind : std::uint8_t {
    Executed,     // an instruction ran (possibly with no active lanes under its guard)
    BarrierWait,  // the warp arrived at a barrier and now waits
    Exited,       // the warp has no live threads left
  };
  Kind kind = Kind::Executed;
  std::uint32_t pc = 0;
  std::uint32_t active = 0;          // lanes that executed (after the guard)
  isa::ptx::Space space = isa::ptx::Space::Generic;  // resolved space of a memory access
  bool released_barrier = false;     // this step completed a barrier: other warps may run again
  bool async = false;                // an mbarrier or bulk/tensor-copy instruction: see PtxCta::async_step
  bool released_cluster_barrier = false;  // it completed barrier.cluster: warps of every CTA of the cluster may run again
  std::uint32_t next_pc = 0;         // the warp's next instruction (valid unless Exited)
};

class PtxKernel;
struct ClusterState;

class PtxCta {
 public:
  PtxCta(PtxKernel& kernel, std::uint64_t cta_linear, std::shared_ptr<ClusterState> cluster = nullptr, std::uint32_t rank = 0);
  ~PtxCta();
  PtxCta(const PtxCta&) = delete;
  PtxCta& operator=(const PtxCta&) = delete;

  int num_warps() const;
  bool warp_done(int w) const;
  bool warp_waiting(int w) const;   // at a barrier (bar.sync or barrier.cluster.wait)
  bool done() const;
  StepInfo step(int w);             // execute one instruction of warp w (must not be done/waiting)
  // Runs every warp to completion (functional mode); a CTA of a cluster runs its whole cluster,
  // whose CTAs take turns while one waits on a cluster barrier or a value another writes.
  void run();
  std::uint32_t next_pc(int w) const;          // instruction warp w issues next
  std::uint32_t next_mask(int w) const;        // the lanes that issue it (before its guard)
  const std::uint64_t* lane_addresses(int w) const;  // addresses of its last memory instruction
  // A register's bits in one lane of warp w (any bank, zero-extended), and a write of one (R32,
  // R64, Pred): the fast tier's sampler reads loop bounds and ends a sampled loop early.
  std::uint64_t lane_value(int w, isa::ptx::Reg r, int lane) const;
  void set_lane_value(int w, isa::ptx::Reg r, int lane, std::uint64_t v);
  // wmma.load/store: lane_addresses() are those of the first machine access of the fragment in
  // the mma.sync register layout (see wmma_access_width); this is the pitch of its strided lines
  std::uint64_t fragment_pitch(int w) const;
  // what warp w's last mbarrier or bulk/tensor-copy instruction did (StepInfo::async)
  const AsyncStep& async_step(int w) const;
  // every live warp waits for an mbarrier phase or at a barrier, and nothing is in flight that
  // could complete one (the timing model parks waiting warps): a KernelFault naming each wait
  [[noreturn]] void mbarrier_deadlock() const;
  std::array<std::uint32_t, 3> cta_id() const;
  std::uint64_t linear_id() const;
  std::uint32_t shared_bytes() const;
  void set_clock(std::uint64_t cycle) { clock_ = cycle; }
  void set_ns_per_cycle(double ns) { ns_per_cycle_ = ns; }
  void set_smid(std::uint32_t sm) { smid_ = sm; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::uint64_t clock_ = 0;
  double ns_per_cycle_ = 1;
  std::uint32_t smid_ = 0;
  friend struct Impl;
};

// Where %globaltimer starts: 2023-11-14 22:13:20 UTC in nanoseconds since the Unix epoch (a real
// part's global timer reads the wall clock, about 1.7e18 then). Fixed, so that runs are
// deterministic; the simulated time of the launch is added to it.
inline constexpr std::uint64_t kGlobalTimerStartNs = 1'700'000'000'000'000'000ull;

class PtxKernel {
 public:
  PtxKernel(const isa::ptx::Program& program, GlobalMemory& memory, LaunchDims dims, std::vector<std::uint8_t> params,
            ExecOptions options);
  const isa::ptx::Program& program() const { return prog_; }
  GlobalMemory& memory() { return mem_; }
  const LaunchDims& dims() const { return dims_; }
  const ExecOptions& options() const { return opts_; }
  const std::vector<std::uint8_t>& params() const { return params_; }

  // Functional mode: every CTA (every cluster), in order.
  void run_all();
  // A CTA of a launch without clusters.
  std::unique_ptr<PtxCta> make_cta(std::uint64_t cta_linear);
  // The CTAs of cluster `index`, by rank, sharing their distributed shared memory and cluster
  // barrier (a launch without clusters: the one CTA `index`).
  std::vector<std::unique_ptr<PtxCta>> make_cluster(std::uint64_t index);

  // clusterlaunchcontrol.try_cancel: cancels the first cluster not yet launched and returns its
  // index, or nothing when none is left or nothing launches clusters now (a probe of one cluster
  // runs its own work only). run_all() cancels from its own order; the timing model from its
  // dispatcher (set_canceller), which then never launches the cluster.
  std::optional<std::uint64_t> cancel_cluster() { return canceller_ ? canceller_() : std::nullopt; }
  void set_canceller(std::function<std::optional<std::uint64_t>()> f) { canceller_ = std::move(f); }

  std::uint64_t warp_instructions() const { return warp_insts_; }
  std::uint64_t thread_instructions() const { return thread_insts_; }
  void count(std::uint32_t active_lanes);
  // Bounds the instructions of what runs next (a probe of one CTA): past `more` of them it throws
  // ProbeStopped; uncap() restores the launch's limit.
  void cap_instructions(std::uint64_t more);
  void uncap() { limit_ = opts_.max_warp_instructions; }
  // Progress: the steps of warps that are not suspected of an endless loop (SpinWatch in
  // ptx_impl.h), counted as all steps less the suspects' so that the common step pays nothing.
  void note_suspect_step() { ++suspect_insts_; }
  // Runs that need only the kernel's control flow and global addresses (an L2 warm-up, a work
  // probe; isa::ptx::address_slice): while on, instructions outside the address slice are skipped
  // and loads and stores it does not need form and check their addresses but move no data. The
  // instruction counts, branches and addresses are those of a full run. Memory the skipped stores
  // would have written keeps its old contents, so only runs whose writes do not matter (undone,
  // or outputs not wanted) may use it. Returns whether it is on (off where the analysis does not
  // apply: calls).
  bool set_addresses_only(bool on);
  bool addresses_only() const { return addresses_only_; }
  isa::ptx::SliceRole slice_role(std::uint32_t pc) const { return roles_[pc]; }
  std::uint64_t progress() const { return warp_insts_ - suspect_insts_; }

 private:
  const isa::ptx::Program& prog_;
  GlobalMemory& mem_;
  LaunchDims dims_;
  std::vector<std::uint8_t> params_;
  ExecOptions opts_;
  std::uint64_t warp_insts_ = 0, thread_insts_ = 0, suspect_insts_ = 0;
  std::uint64_t limit_ = 0;  // the instruction count past which count() stops the run
  bool addresses_only_ = false, sliced_ = false;
  std::vector<isa::ptx::SliceRole> roles_;  // address_slice(prog_), made at the first set_addresses_only(true)
  std::function<std::optional<std::uint64_t>()> canceller_;
  [[noreturn]] void over_limit() const;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

// Maps the program's statics into memory (with initialisers). Call once per launch before
// constructing PtxKernel.
void map_program_statics(const isa::ptx::Program& program, GlobalMemory& memory);

}  // namespace kernsim::sim
