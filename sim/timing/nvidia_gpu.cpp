// The NVIDIA GPU timing model: SMs of sub-partitions with warp schedulers, pipes with issue
// intervals and latencies, scoreboards, barriers, CTA dispatch with occupancy limits, and the
// memory hierarchy of memory_model/. build_machine() assembles it from a DeviceSpec.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

#include "base/error.h"
#include "isa/ptx/program.h"
#include "memory_model/nvidia_memory.h"
#include "sim/timing/timing.h"
#include "sim/timing/warp_scheduler.h"

namespace kernsim::sim {

namespace P = isa::ptx;
using isa::Unit;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kUnits = static_cast<int>(Unit::kCount);

struct PipeTiming {
  double issue = 1, latency = 1;
};

// FLOPs one warp instruction performs (FMA = 2), for achieved-FLOP/s figures.
double flops_of(const P::Inst& in, int lanes) {
  const bool fl = P::ty_is_float(in.type);
  switch (in.op) {
    case P::Op::Fma: case P::Op::Mad:
      if (!fl) return 0;
      return 2.0 * lanes * ((in.type == P::Ty::F16x2 || in.type == P::Ty::BF16x2) ? 2 : 1);
    case P::Op::Add: case P::Op::Sub: case P::Op::Mul: case P::Op::Min: case P::Op::Max: case P::Op::Div:
    case P::Op::Rcp: case P::Op::Sqrt: case P::Op::Rsqrt: case P::Op::Ex2: case P::Op::Lg2: case P::Op::Sin: case P::Op::Cos:
      if (!fl) return 0;
      return 1.0 * lanes * ((in.type == P::Ty::F16x2 || in.type == P::Ty::BF16x2) ? 2 : 1);
    case P::Op::Mma: case P::Op::WmmaMma:
      return 2.0 * in.shape[0] * in.shape[1] * in.shape[2];
    default: return 0;
  }
}

// Canonical FLOPs of the matrix instruction each tensor pipe's timing refers to.
double canonical_flops(Unit u) {
  switch (u) {
    case Unit::TensorF16: return 2.0 * 16 * 8 * 16;
    case Unit::TensorTf32: return 2.0 * 16 * 8 * 8;
    case Unit::TensorI8: return 2.0 * 16 * 8 * 32;
    case Unit::TensorFp8: return 2.0 * 16 * 8 * 32;
    case Unit::TensorF64: return 2.0 * 8 * 8 * 4;
    default: return 1;
  }
}

// FMA pipe (FFMA, IMAD, VIADD, HFMA2) = 1, ALU pipe (LOP3, SHF, IADD3, FMNMX) = 2, other = 0:
// a value crossing from one to the other pays sm.cross_pipe_latency_cycles.
int pipe_group(Unit u) {
  switch (u) {
    case Unit::Fp32: case Unit::Fp16: case Unit::IntMul: return 1;
    case Unit::IntAlu: return 2;
    default: return 0;
  }
}

struct Warp {
  bool live = false;
  bool at_barrier = false;
  int cta = -1;          // CTA slot
  int widx = 0;          // warp index inside its CTA
  int sub = 0;
  std::uint64_t age = 0;
  double ready = 0;      // in-order issue: not before
  bool ready_is_async = false;
  std::vector<double> sb;          // scoreboard: when each register's value is available
  std::vector<std::uint8_t> sb_mem; // 1 if the pending value comes from memory
  std::vector<std::uint8_t> sb_pipe; // the pipe group that produced it (pipe_group)
  double open_group = 0;           // cp.async: completion of the uncommitted group
  double drain = 0;                // when its stores and reductions have been accepted
  std::vector<double> groups;      // committed cp.async groups
  // loads ptxas unrolled (Inst::batch > 1): executions so far and when the current group of
  // `batch` iterations began; the SASS issues a group's loads together
  std::vector<std::pair<std::uint32_t, double>> batch;
  // cached for the scheduler: when the next instruction's operands are ready, and its unit
  double dep_ready = 0;
  std::uint32_t pc = 0;  // next instruction
  int unit = 0;
  int alt_unit = -1;     // a second pipe the instruction may use (integer add on the FMA pipe)
  Stall dep_why = Stall::ExecutionDependency;
};

struct CtaSlot {
  std::unique_ptr<PtxCta> cta;
  std::uint64_t id = 0;
  bool active = false;
  int warps_left = 0;
  double start = 0;
  std::uint64_t insts = 0;
  double bar_free = 0;  // when the CTA's barrier has counted the arrivals so far
};

struct Sub {
  double pipe_free[kUnits] = {};
  std::vector<int> warps;
  int last = -1;
  double next = kInf;
  double idle_since = 0;
  Stall why = Stall::Idle;
  int wait_warp = -1;              // the warp it waits for, and that warp's next instruction
  std::uint32_t wait_pc = kNoPc;
};

struct Sm {
  std::vector<Warp> warps;
  std::vector<CtaSlot> ctas;
  std::vector<Sub> subs;
  double next = kInf;
  int resident_warps = 0;                               // after the changes recorded so far
  std::vector<std::pair<double, int>> residency_changes;  // (time, warps added); times come out of order
  double last_cta_start = -1e30;
  std::vector<std::uint64_t> queue;  // CTAs assigned to this SM, in order
  std::size_t queue_pos = 0;
};

class NvidiaGpu {
 public:
  NvidiaGpu(const device::DeviceSpec& d, PtxKernel& k, const KernelResources& res, const TimingOptions& o, Listener& l)
      : d_(d), k_(k), p_(k.program()), opts_(o), lis_(l) {}

  TimingResult run();

 private:
  void build_machine();
  void assign_ctas();
  void launch_cta(int s, int slot, std::uint64_t id, double t);
  void finish_cta(int s, int slot, double t, double next_start);  // t: its work done; next_start: its slot free again
  void step_sm(int s, double now);
  void skip_folded(CtaSlot& c, Warp& w);
  void refresh(Sm& sm, Warp& w);
  int alt_unit_of(const P::Inst& in) const;
  void issue(int s, Sm& sm, Sub& sub, int wi, double now);
  double memory(int s, Sm& sm, Warp& w, const P::Inst& in, const StepInfo& info, double now);
  // A global access; the warp cannot issue again until the SM's memory pipeline accepted it.
  double global(int s, Warp& w, double now, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes,
                mem::Access kind) {
    mem::MemTiming t = mem_->global(s, now, addrs, mask, bytes, kind, w.cta * wpb_ + w.widx);
    w.ready = std::max(w.ready, t.accepted + 1);
    return t.done;
  }
  int sb_index(P::Reg r) const;
  void set_residency(Sm& sm, int s, double now, int delta);
  void close_residency(Sm& sm, int s, double end);  // reports the recorded changes up to `end`, in time order
  bool simulate(std::uint64_t budget, double& now);
  double steady_rate(std::size_t from, double now) const;
  double work_per_cta();
  void restart_from_next_wave(double now);

  const device::DeviceSpec& d_;
  PtxKernel& k_;
  const P::Program& p_;
  TimingOptions opts_;
  Listener& lis_;
  KernelResources res_;
  Occupancy occ_;
  PipeTiming pipe_[kUnits];
  double barrier_latency_ = 0, launch_cycles_ = 0, param_latency_ = 0;
  double dispatch_cycles_ = 0, next_dispatch_ = 0;  // chip-wide CTA dispatcher
  int nsms_ = 0, subs_per_sm_ = 4, wpb_ = 0;
  // SM slice: the model runs nsms_ of the part's SMs on the first n_ctas_ CTAs, with that
  // share of every chip-wide resource (see run())
  double share_ = 1.0;
  std::uint64_t n_ctas_ = 0;
  void choose_slice();
  void warm_l2(std::uint64_t from, std::uint64_t to);
  std::uint64_t warm_end_ = 0;    // the L2 is warmed as CTAs [n_ctas_, warm_end_) leave it,
  std::uint64_t warm_begin_ = 0;  // for which CTAs [warm_begin_, warm_end_) ran functionally
  std::uint32_t n32_ = 0, n64_ = 0, npred_ = 0;
  std::vector<Sm> sms_;
  std::unique_ptr<mem::NvMemorySystem> mem_;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> pq_;
  std::uint64_t age_ = 0;
  std::uint64_t timed_insts_ = 0;
  std::uint64_t ctas_done_ = 0, ctas_started_ = 0;
  std::uint64_t done_cta_insts_ = 0;
  double last_end_ = 0;
  bool stop_ = false;
  // checkpoints: time, timed warp instructions, and the busy time of the most loaded shared
  // resource (L2, HBM, an atomic unit) so far
  struct Progress {
    double t;
    std::uint64_t insts;
    double shared_busy;
  };
  std::vector<Progress> progress_;
  std::vector<CtaSlot> abandoned_;  // first-wave CTAs stopped for the second window
  bool debug_cta_ = std::getenv("KERNSIM_DEBUG_CTA") != nullptr;
  long trace_cta_ = std::getenv("KERNSIM_TRACE_CTA") ? std::atol(std::getenv("KERNSIM_TRACE_CTA")) : -1;
 public:
  void set_resources(const KernelResources& r) { res_ = r; }
};

void NvidiaGpu::build_machine() {
  // Pipes from the device file (per scheduler): issue interval and dependent latency.
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
  pipe_[static_cast<int>(Unit::Nop)] = {1, 1};
  pipe_[static_cast<int>(Unit::Mem)] = {1, 1};
  pipe_[static_cast<int>(Unit::Sync)] = {1, 1};
  barrier_latency_ = d_.sm.barrier_latency_cycles;
  param_latency_ = d_.pipes.int_alu.latency_cycles;
  launch_cycles_ = d_.sm.block_launch_cycles;
  dispatch_cycles_ = d_.launch.cta_dispatch_cycles;

  subs_per_sm_ = static_cast<int>(std::max<std::int64_t>(1, d_.sm.sub_partitions));
  occ_ = compute_occupancy(d_, res_);
  wpb_ = occ_.warps_per_block;
  for (const auto& f : p_.functions) {
    n32_ = std::max(n32_, f.n32);
    n64_ = std::max(n64_, f.n64);
    npred_ = std::max(npred_, f.npred);
  }
  // L1 gets what the shared-memory carveout leaves of the unified array.
  const std::int64_t l1_bytes = std::max<std::int64_t>(0, d_.l1.bytes - occ_.shared_used_per_unit);
  mem_ = std::make_unique<mem::NvMemorySystem>(d_, nsms_, static_cast<std::uint64_t>(l1_bytes), share_);
  dispatch_cycles_ /= share_;  // the slice gets its share of the dispatcher
  sms_.resize(static_cast<std::size_t>(nsms_));
  for (auto& sm : sms_) {
    sm.subs.resize(static_cast<std::size_t>(subs_per_sm_));
    sm.ctas.resize(static_cast<std::size_t>(occ_.blocks_per_unit));
    sm.warps.resize(static_cast<std::size_t>(occ_.blocks_per_unit * wpb_));
    for (std::size_t w = 0; w < sm.warps.size(); ++w) {
      sm.warps[w].sub = static_cast<int>(w % static_cast<std::size_t>(subs_per_sm_));
      sm.warps[w].sb.assign(n32_ + n64_ + npred_, 0.0);
      sm.warps[w].sb_mem.assign(n32_ + n64_ + npred_, 0);
      sm.warps[w].sb_pipe.assign(n32_ + n64_ + npred_, 0);
      sm.subs[static_cast<std::size_t>(sm.warps[w].sub)].warps.push_back(static_cast<int>(w));
    }
  }
}

// CTAs go to SMs round-robin, as the hardware's dispatcher spreads a grid; each SM then runs
// its list in order as slots free up.
void NvidiaGpu::assign_ctas() {
  const std::uint64_t n = n_ctas_;
  for (std::uint64_t c = 0; c < n; ++c) sms_[static_cast<std::size_t>(c % static_cast<std::uint64_t>(nsms_))].queue.push_back(c);
}

int NvidiaGpu::sb_index(P::Reg r) const {
  switch (r.bank) {
    case P::Bank::R32: return static_cast<int>(r.idx);
    case P::Bank::R64: return static_cast<int>(n32_ + r.idx);
    case P::Bank::Pred: return static_cast<int>(n32_ + n64_ + r.idx);
    default: return -1;
  }
}

// Resident warps change when CTAs start and end; a CTA's end is known when its last warp exits
// (stores still draining), ahead of other SMs' and its own later events, so the changes are
// recorded and put in time order when the window closes (close_residency).
void NvidiaGpu::set_residency(Sm& sm, int, double now, int delta) {
  sm.residency_changes.push_back({now, delta});
  sm.resident_warps += delta;
}

void NvidiaGpu::close_residency(Sm& sm, int s, double end) {
  auto& ch = sm.residency_changes;
  std::stable_sort(ch.begin(), ch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  int warps = 0;
  double since = 0;
  for (const auto& [t, d] : ch) {
    const double at = std::min(t, end);
    if (at > since && warps > 0) lis_.on_residency(s, warps, since, at);
    since = std::max(since, at);
    warps += d;
  }
  if (end > since && warps > 0) lis_.on_residency(s, warps, since, end);
  ch.clear();
}

void NvidiaGpu::launch_cta(int s, int slot, std::uint64_t id, double t) {
  Sm& sm = sms_[static_cast<std::size_t>(s)];
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(slot)];
  // the chip-wide dispatcher hands out one CTA per dispatch interval; an SM starts CTAs no
  // closer together than its launch interval
  t = std::max({t, next_dispatch_, sm.last_cta_start + launch_cycles_});
  next_dispatch_ = t + dispatch_cycles_;
  sm.last_cta_start = t;
  c.cta = k_.make_cta(id);
  c.cta->set_smid(static_cast<std::uint32_t>(s));
  c.cta->set_ns_per_cycle(1e3 / d_.clocks.core_mhz);
  c.id = id;
  c.active = true;
  c.start = t;
  c.insts = 0;
  c.bar_free = 0;
  c.warps_left = c.cta->num_warps();
  ++ctas_started_;
  for (int wi = 0; wi < c.warps_left; ++wi) {
    Warp& w = sm.warps[static_cast<std::size_t>(slot * wpb_ + wi)];
    w.live = true;
    w.at_barrier = false;
    w.cta = slot;
    w.widx = wi;
    w.age = age_++;
    w.ready = t;
    w.ready_is_async = false;
    std::fill(w.sb.begin(), w.sb.end(), t);
    std::fill(w.sb_mem.begin(), w.sb_mem.end(), 0);
    std::fill(w.sb_pipe.begin(), w.sb_pipe.end(), 0);
    w.groups.clear();
    w.batch.assign(p_.n_batch_slots, {0u, 0.0});
    w.open_group = t;
    w.drain = t;
    w.pc = c.cta->next_pc(wi);
    skip_folded(c, w);
    refresh(sm, w);
    Sub& sub = sm.subs[static_cast<std::size_t>(w.sub)];
    sub.next = std::min(sub.next, t);
  }
  set_residency(sm, s, t, c.warps_left);
  sm.next = std::min(sm.next, t);
}

void NvidiaGpu::finish_cta(int s, int slot, double t, double next_start) {
  Sm& sm = sms_[static_cast<std::size_t>(s)];
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(slot)];
  lis_.on_cta(s, c.id, c.start, t);
  if (debug_cta_ && (ctas_done_ < 10 || ctas_done_ % 1000 == 0))
    std::fprintf(stderr, "cta %llu sm %d start %.0f end %.0f insts %llu dram+%.0f l2+%.0f l1+%.0f\n", static_cast<unsigned long long>(c.id), s, c.start, t,
                 static_cast<unsigned long long>(c.insts), mem_->dram_free_at() - t, mem_->l2_free_at() - t, mem_->l1_free_at(s) - t);
  c.active = false;
  c.cta.reset();
  ++ctas_done_;
  done_cta_insts_ += c.insts;
  last_end_ = std::max(last_end_, t);
  set_residency(sm, s, t, -wpb_);
  if (!stop_ && sm.queue_pos < sm.queue.size()) launch_cta(s, slot, sm.queue[sm.queue_pos++], next_start);
}

// Recomputes when warp w's next instruction has its operands (not counting the unit it needs,
// which other warps change). Called only when w's state changes: after it issues, when it is
// launched, when a barrier releases it.
void NvidiaGpu::refresh(Sm& sm, Warp& w) {
  if (!w.live) return;
  const P::Inst& in = p_.insts[w.pc];
  double t = w.ready;
  Stall why = w.ready_is_async ? Stall::AsyncWait : Stall::ExecutionDependency;
  const int alt = alt_unit_of(in);
  const int group = pipe_group(alt >= 0 ? static_cast<Unit>(alt) : in.unit);  // the pipe it is issued to first
  auto dep = [&](P::Reg r) {
    int i = sb_index(r);
    if (i < 0) return;
    double v = w.sb[static_cast<std::size_t>(i)];
    const int from = w.sb_pipe[static_cast<std::size_t>(i)];
    if (from && group && from != group) v += d_.sm.cross_pipe_latency_cycles;
    if (v > t) {
      t = v;
      why = w.sb_mem[static_cast<std::size_t>(i)] ? Stall::MemoryDependency : Stall::ExecutionDependency;
    }
  };
  if (in.guard.bank != P::Bank::None) dep(in.guard);
  for (int i = 0; i < in.nsrc; ++i) dep(p_.src(in, i));
  for (int i = 0; i < in.ndst; ++i) dep(p_.dst(in, i));
  if (in.addr.kind == P::AddrBase::Reg) dep(in.addr.base);
  if (in.addr2.kind == P::AddrBase::Reg) dep(in.addr2.base);
  w.dep_ready = t;
  w.dep_why = why;
  w.unit = static_cast<int>(in.unit);
  w.alt_unit = alt;
}

// Integer add/subtract/move issue to the ALU pipe (IADD3/MOV) or, when that is busy, to the
// FMA pipe as IMAD.IADD/IMAD.MOV — ptxas balances the two, and microbenchmarks show an add
// next to a LOP3 costs no extra ALU cycles.
int NvidiaGpu::alt_unit_of(const P::Inst& in) const {
  if (in.unit != Unit::IntAlu || P::ty_bits(in.type) > 32) return -1;
  if (in.op == P::Op::Add || in.op == P::Op::Sub || in.op == P::Op::Mov) return static_cast<int>(Unit::IntMul);
  return -1;
}

double NvidiaGpu::memory(int s, Sm& sm, Warp& w, const P::Inst& in, const StepInfo& info, double now) {
  const CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  const std::uint64_t* addrs = c.cta->lane_addresses(w.widx);
  const std::uint32_t mask = info.active;
  const std::uint32_t eb = static_cast<std::uint32_t>(std::max(1, P::ty_bits(in.type) / 8)) * std::max<std::uint32_t>(1, in.vec);
  if (!mask) return now + 1;
  switch (in.op) {
    case P::Op::Ld:
    case P::Op::St:
    case P::Op::Atom:
    case P::Op::Red: {
      const bool atomic = in.op == P::Op::Atom || in.op == P::Op::Red;
      const bool write = in.op != P::Op::Ld;
      const int wslot = w.cta * wpb_ + w.widx;
      const std::uint32_t pc = static_cast<std::uint32_t>(&in - p_.insts.data());
      auto report = [&](mem::Level level, double done) {
        lis_.on_memory_access({s, wslot, pc, level, write, atomic, std::popcount(mask), static_cast<std::uint32_t>(std::popcount(mask)) * eb,
                               mem_->last_access_units(), now, done});
        return done;
      };
      switch (info.space) {
        case P::Space::Shared: return report(mem::Level::Shared, mem_->shared(s, now, addrs, mask, eb, atomic));
        case P::Space::Param: return now + param_latency_;
        default: {
          mem::Access kind = atomic ? (P::ty_is_float(in.type) ? mem::Access::AtomicFloat : mem::Access::Atomic)
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
          return report(mem::Level::L1, done);
        }
      }
    }
    case P::Op::CpAsync: {
      const std::uint32_t size = static_cast<std::uint32_t>(in.shape[0]);
      double done = global(s, w, now, addrs, mask, size, mem::Access::LoadBypassL1);
      const double lanes = std::popcount(mask);
      const double wf = std::ceil(lanes * size / (static_cast<double>(d_.shared.banks) * d_.shared.bank_width_bytes));
      done = std::max(done, mem_->shared_wavefronts(s, now, static_cast<std::uint32_t>(wf)));
      w.open_group = std::max(w.open_group, done);
      return now + 1;
    }
    case P::Op::Ldmatrix:
    case P::Op::Stmatrix:
      return mem_->shared_wavefronts(s, now, static_cast<std::uint32_t>(in.shape[0]));
    case P::Op::WmmaLoad:
    case P::Op::WmmaStore: {
      // the fragment moves as ptxas's machine loads/stores in the mma.sync layout: each covers 8
      // strided lines x 4 lanes x `wb` bytes; lane_addresses() are the first one's, the others
      // are 8 lines or 4 x wb bytes further on
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
    default:
      return now + 1;
  }
}

void NvidiaGpu::issue(int s, Sm& sm, Sub& sub, int wi, double now) {
  Warp& w = sm.warps[static_cast<std::size_t>(wi)];
  CtaSlot& c = sm.ctas[static_cast<std::size_t>(w.cta)];
  const std::uint32_t pc = w.pc;
  const P::Inst& in = p_.insts[pc];
  c.cta->set_clock(static_cast<std::uint64_t>(now));
  StepInfo info = c.cta->step(w.widx);
  w.pc = info.next_pc;
  ++timed_insts_;
  ++c.insts;
  const int lanes = std::popcount(info.active);
  int u = static_cast<int>(in.unit);
  // an integer add goes to the FMA pipe (VIADD, as ptxas emits on sm_90) unless that is busier
  if (const int alt = alt_unit_of(in); alt >= 0 && sub.pipe_free[alt] <= sub.pipe_free[u]) u = alt;
  double busy = pipe_[u].issue * in.weight;
  double lat = pipe_[u].latency + pipe_[u].issue * (in.weight - 1);
  if (isa::is_tensor(in.unit)) {
    const double scale = 2.0 * in.shape[0] * in.shape[1] * in.shape[2] / canonical_flops(in.unit);
    busy = pipe_[u].issue * scale;
    lat = pipe_[u].latency + pipe_[u].issue * std::max(0.0, scale - 1);
  }
  if (in.flags & P::kRangeReduced) {  // FMUL.RZ on the FMA pipe first, in the chain
    const int f = static_cast<int>(Unit::Fp32);
    sub.pipe_free[f] = std::max(sub.pipe_free[f], now + pipe_[f].issue);
    lat += pipe_[f].latency;
  }
  sub.pipe_free[u] = now + busy;
  if (d_.sm.tensor_shares_math_pipes) {
    // a matrix instruction and the FMA/ALU pipes' instructions hold each other's pipes (the
    // double-precision DMMA is left out: no measurement)
    static constexpr Unit kMath[] = {Unit::IntAlu, Unit::IntMul, Unit::Fp32, Unit::Fp16};
    static constexpr Unit kMatrix[] = {Unit::TensorF16, Unit::TensorTf32, Unit::TensorI8, Unit::TensorFp8};
    const Unit uu = static_cast<Unit>(u);
    auto hold = [&](const auto& pipes) {
      for (Unit o : pipes) sub.pipe_free[static_cast<int>(o)] = std::max(sub.pipe_free[static_cast<int>(o)], now + busy);
    };
    if (isa::is_math(uu)) hold(kMatrix);
    else if (isa::is_tensor(uu) && uu != Unit::TensorF64) hold(kMath);
  }
  w.ready = now + 1;
  w.ready_is_async = false;
  double done = now + lat;
  bool from_mem = false;
  if (in.unit == Unit::Mem) {
    done = memory(s, sm, w, in, info, now);
    from_mem = true;
    if (in.op == P::Op::St || in.op == P::Op::Red || in.op == P::Op::WmmaStore || in.op == P::Op::Stmatrix) {
      w.drain = std::max(w.drain, done);  // fire and forget: only the CTA's end waits for it
      done = now + 1;
    }
  } else if (in.unit == Unit::Sync) {
    if (in.op == P::Op::CpAsyncCommit) {
      w.groups.push_back(w.open_group);
      w.open_group = now;
    } else if (in.op == P::Op::CpAsyncWait) {
      // wait until all but the newest `imm` groups are complete
      double need = now;
      const std::size_t keep = in.imm;
      if (in.imm == 0) need = std::max(need, w.open_group);
      for (std::size_t g = 0; g + keep < w.groups.size(); ++g) need = std::max(need, w.groups[g]);
      if (w.groups.size() > keep) w.groups.erase(w.groups.begin(), w.groups.end() - static_cast<std::ptrdiff_t>(keep));
      if (need > w.ready) { w.ready = need; w.ready_is_async = true; }
    } else if (in.op == P::Op::Vote) {
      done = now + d_.sm.vote_latency_cycles;
    } else if (in.op == P::Op::Redux) {
      done = now + d_.sm.redux_latency_cycles;
    } else if (in.op == P::Op::Shfl || in.op == P::Op::Match) {  // through the shared-memory crossbar
      done = mem_->shared_wavefronts(s, now, 1);
      from_mem = false;
    }
  }
  const std::uint8_t produced_by = static_cast<std::uint8_t>(from_mem ? 0 : pipe_group(static_cast<Unit>(u)));
  for (int i = 0; i < in.ndst; ++i) {
    int idx = sb_index(p_.dst(in, i));
    if (idx >= 0) {
      w.sb[static_cast<std::size_t>(idx)] = done;
      w.sb_mem[static_cast<std::size_t>(idx)] = from_mem ? 1 : 0;
      w.sb_pipe[static_cast<std::size_t>(idx)] = produced_by;
    }
  }
  lis_.on_issue({s, w.sub, wi, c.id, pc, in.unit, lanes, flops_of(in, lanes), busy, now});
  if (trace_cta_ >= 0 && c.id == static_cast<std::uint64_t>(trace_cta_))
    std::fprintf(stderr, "trace w%d pc %u %s line %u t %.0f done %.0f ready %.0f\n", w.widx, static_cast<unsigned>(&in - p_.insts.data()),
                 P::to_string(in.op), in.line, now, done, w.ready);

  if (in.op == P::Op::Bar) c.bar_free = std::max(now, c.bar_free) + d_.sm.barrier_cycles_per_warp;  // arrivals count one by one
  if (info.kind == StepInfo::Kind::BarrierWait) w.at_barrier = true;
  if (info.released_barrier) {
    const double t_rel = std::max(now, c.bar_free) + barrier_latency_;
    for (int k = 0; k < wpb_; ++k) {
      Warp& o = sm.warps[static_cast<std::size_t>(w.cta * wpb_ + k)];
      if (!o.live || !o.at_barrier) continue;
      if (c.cta->warp_waiting(o.widx)) continue;
      o.at_barrier = false;
      o.ready = std::max(o.ready, t_rel);
      skip_folded(c, o);
      refresh(sm, o);
      Sub& os = sm.subs[static_cast<std::size_t>(o.sub)];
      os.next = std::min(os.next, o.ready);
    }
    w.at_barrier = false;
    w.ready = std::max(w.ready, t_rel);
  }
  if ((info.kind == StepInfo::Kind::Executed || info.released_barrier) && !w.at_barrier) skip_folded(c, w);
  refresh(sm, w);
  if (info.kind == StepInfo::Kind::Exited) {
    w.live = false;
    if (--c.warps_left == 0) {
      // The CTA's work is done when its stores and reductions have been accepted; its slot
      // takes a new CTA sm.cta_turnover_cycles after its last warp exits, and not before that.
      double end = now + 1;
      for (int k = 0; k < wpb_; ++k) {
        const Warp& o = sm.warps[static_cast<std::size_t>(w.cta * wpb_ + k)];
        end = std::max(end, o.drain);
        for (double v : o.sb) end = std::max(end, v);  // outstanding loads/stores drain first
      }
      finish_cta(s, w.cta, end, std::max(end, now + 1 + d_.sm.cta_turnover_cycles));
    }
  }
}

// Instructions ptxas folds into their readers (a float neg/abs as an operand modifier) execute
// with no time: the value is ready when its source is.
void NvidiaGpu::skip_folded(CtaSlot& c, Warp& w) {
  while (p_.insts[w.pc].flags & P::kFoldedModifier) {
    const P::Inst& in = p_.insts[w.pc];
    const int src = sb_index(p_.src(in, 0)), dst = sb_index(p_.dst(in, 0));
    const StepInfo info = c.cta->step(w.widx);
    w.pc = info.next_pc;
    ++timed_insts_;
    ++c.insts;
    if (dst >= 0) {
      w.sb[static_cast<std::size_t>(dst)] = src >= 0 ? w.sb[static_cast<std::size_t>(src)] : w.ready;
      w.sb_mem[static_cast<std::size_t>(dst)] = src >= 0 ? w.sb_mem[static_cast<std::size_t>(src)] : 0;
      w.sb_pipe[static_cast<std::size_t>(dst)] = src >= 0 ? w.sb_pipe[static_cast<std::size_t>(src)] : 0;
    }
    if (info.kind != StepInfo::Kind::Executed) break;
  }
}

void NvidiaGpu::step_sm(int s, double now) {
  Sm& sm = sms_[static_cast<std::size_t>(s)];
  double sm_next = kInf;
  for (std::size_t si = 0; si < sm.subs.size(); ++si) {
    Sub& sub = sm.subs[si];
    if (sub.next > now) {
      sm_next = std::min(sm_next, sub.next);
      continue;
    }
    int best = -1;
    std::uint64_t best_key = ~std::uint64_t{0};
    double earliest = kInf;
    Stall earliest_why = Stall::Idle;
    int earliest_w = -1;
    bool any_live = false, all_barrier = true;
    for (int wi : sub.warps) {
      Warp& w = sm.warps[static_cast<std::size_t>(wi)];
      if (!w.live) continue;
      any_live = true;
      if (w.at_barrier) continue;
      all_barrier = false;
      Stall why = w.dep_why;
      double t = w.dep_ready;
      double pf = sub.pipe_free[w.unit];
      if (w.alt_unit >= 0) pf = std::min(pf, sub.pipe_free[w.alt_unit]);
      if (pf > t) { t = pf; why = Stall::PipeBusy; }
      if (t <= now) {
        std::uint64_t key = GreedyThenOldest::key(wi, sub.last, w.age);
        if (key < best_key) { best_key = key; best = wi; }
        if (key == 0) break;
      } else if (t < earliest) {
        earliest = t;
        earliest_why = why;
        earliest_w = wi;
      }
    }
    if (best >= 0) {
      if (now > sub.idle_since) lis_.on_stall({s, static_cast<int>(si), sub.why, sub.idle_since, now - sub.idle_since, sub.wait_warp, sub.wait_pc});
      issue(s, sm, sub, best, now);
      sub.last = best;
      sub.idle_since = now + 1;
      sub.next = now + 1;
    } else {
      sub.next = earliest;
      sub.why = !any_live ? Stall::Idle : all_barrier ? Stall::Barrier : earliest_why;
      sub.wait_warp = sub.why == Stall::Idle || all_barrier ? -1 : earliest_w;
      sub.wait_pc = sub.wait_warp >= 0 ? sm.warps[static_cast<std::size_t>(sub.wait_warp)].pc : kNoPc;
    }
    if (stop_) return;
    sm_next = std::min(sm_next, sub.next);
  }
  sm.next = sm_next;
}

// Simulates until `budget` more warp instructions are timed (or everything is done); returns
// false when the budget ran out first.
bool NvidiaGpu::simulate(std::uint64_t budget, double& now) {
  const std::uint64_t limit = opts_.full ? ~std::uint64_t{0} : timed_insts_ + budget;
  const std::uint64_t check_every = 4096;
  std::uint64_t next_check = timed_insts_ + check_every;
  while (!pq_.empty()) {
    auto [t, s] = pq_.top();
    pq_.pop();
    Sm& sm = sms_[static_cast<std::size_t>(s)];
    if (t != sm.next) continue;  // stale
    now = t;
    step_sm(s, t);
    if (sm.next < kInf) pq_.push({sm.next, s});
    if (timed_insts_ >= next_check) {
      next_check += check_every;
      progress_.push_back({now, timed_insts_, mem_->shared_busy_cycles()});
      if (timed_insts_ >= limit) return false;
    }
  }
  return true;
}

// Warp instructions per cycle over the second half of the checkpoints since `from`. Posted
// work (stores, write-backs) can queue at a shared resource beyond the window's end; the
// window's rate is therefore bounded by what the busiest shared resource could serve in it.
double NvidiaGpu::steady_rate(std::size_t from, double now) const {
  const std::size_t n = progress_.size() - from;
  const Progress* a = &progress_[from];
  Progress b{now, timed_insts_, mem_->shared_busy_cycles()};
  if (n >= 4) {
    a = &progress_[from + n / 2];
    b = progress_.back();
  }
  const double span = std::max(b.t - a->t, b.shared_busy - a->shared_busy);
  return span > 0 ? static_cast<double>(b.insts - a->insts) / span : 0.0;
}

// Work per CTA, from CTAs that completed under timing or, failing that, from a few in-flight
// CTAs finished functionally (they are the sample; nothing is timed).
double NvidiaGpu::work_per_cta() {
  if (ctas_done_ >= 4) return static_cast<double>(done_cta_insts_) / static_cast<double>(ctas_done_);
  double sum = static_cast<double>(done_cta_insts_);
  std::uint64_t counted = ctas_done_;
  int finished = 0;
  auto finish = [&](CtaSlot& c) {
    if (!c.active || !c.cta || finished >= 4) return;
    const std::uint64_t before = k_.warp_instructions();
    c.cta->run();
    sum += static_cast<double>(c.insts + (k_.warp_instructions() - before));
    ++finished;
    ++counted;
  };
  for (auto& c : abandoned_) finish(c);
  for (auto& sm : sms_)
    for (auto& c : sm.ctas) finish(c);
  return counted ? sum / static_cast<double>(counted) : 1.0;
}

// Stops every CTA in flight (kept for a later functional completion) and clears the SMs'
// timing state, so that a second detailed window can start from fresh CTAs.
void NvidiaGpu::restart_from_next_wave(double now) {
  for (int s = 0; s < nsms_; ++s) {
    Sm& sm = sms_[static_cast<std::size_t>(s)];
    set_residency(sm, s, now, -sm.resident_warps);
    for (auto& c : sm.ctas)
      if (c.active) abandoned_.push_back(std::move(c));
    for (auto& c : sm.ctas) c = CtaSlot{};
    for (auto& w : sm.warps) w.live = false;
    for (std::size_t si = 0; si < sm.subs.size(); ++si) {
      Sub& sub = sm.subs[si];
      if (now > sub.idle_since)  // close window A's interval
        lis_.on_stall({s, static_cast<int>(si), sub.why, sub.idle_since, now - sub.idle_since, sub.wait_warp, sub.wait_pc});
      std::fill(std::begin(sub.pipe_free), std::end(sub.pipe_free), now);
      sub.next = kInf;
      sub.idle_since = now;
      sub.last = -1;
    }
    sm.next = kInf;
  }
  pq_ = {};
  for (int slot = 0; slot < occ_.blocks_per_unit; ++slot)
    for (int s = 0; s < nsms_; ++s) {
      Sm& sm = sms_[static_cast<std::size_t>(s)];
      if (sm.queue_pos < sm.queue.size()) launch_cta(s, slot, sm.queue[sm.queue_pos++], now);
    }
  for (int s = 0; s < nsms_; ++s)
    if (sms_[static_cast<std::size_t>(s)].next < kInf) pq_.push({sms_[static_cast<std::size_t>(s)].next, s});
}

// SM slice. A launch too large to time every CTA in detail is timed on a slice of the chip: k
// of its SMs, with k/N of the L2 and HBM bandwidth, atomic throughput and CTA dispatch rate
// (the L2 keeps its capacity), running the first k/N of the grid's CTAs. The slice goes through the same waves as
// the whole chip and sees the same contention per SM, so its time is the kernel's time, with
// every phase of every CTA timed (a window of instructions would miss later phases). k is
// chosen so that the slice's work fits the detail budget, measured by running one CTA ahead
// of time (its writes undone afterwards). Kernels whose neighbouring CTAs share data keep
// that sharing: the slice's CTAs are contiguous.
void NvidiaGpu::choose_slice() {
  const std::uint64_t total = k_.dims().num_blocks();
  nsms_ = static_cast<int>(d_.sm.count);
  n_ctas_ = total;
  if (opts_.full || total < 2 * static_cast<std::uint64_t>(nsms_)) return;
  GlobalMemory& gm = k_.memory();
  gm.begin_journal();
  const std::uint64_t before = k_.warp_instructions();
  try {
    k_.make_cta(total / 2)->run();
  } catch (...) {
    gm.rollback();
    throw;
  }
  gm.rollback();
  const double per_cta = static_cast<double>(k_.warp_instructions() - before);
  const double work = per_cta * static_cast<double>(total);
  if (work <= static_cast<double>(opts_.detail_budget)) return;
  const double n = static_cast<double>(d_.sm.count);
  const int k = std::clamp(static_cast<int>(std::ceil(n * static_cast<double>(opts_.detail_budget) / work)), 1, nsms_);
  if (k >= nsms_) return;
  nsms_ = k;
  share_ = static_cast<double>(k) / n;
  n_ctas_ = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(total) * share_)));
}

// A slice's few CTAs would fetch the data that all CTAs share (a GEMM operand, a table) from
// HBM at the slice's share of its bandwidth, a cost the chip pays once for every CTA. So the L2
// starts as the next CTAs after the slice's, run functionally (untimed), leave it, as the rest
// of the chip would have. The L2 keeps what was used last, so those CTAs run from the last one
// back and stop once earlier ones could change nothing (every L2 set full).
void NvidiaGpu::warm_l2(std::uint64_t from, std::uint64_t to) {
  warm_begin_ = to;
  for (std::uint64_t id = to; id-- > from;) {
    warm_begin_ = id;
    auto cta = k_.make_cta(id);
    const int nw = cta->num_warps();
    for (bool progressed = true; progressed && !cta->done();) {
      progressed = false;
      for (int w = 0; w < nw; ++w)
        for (int n = 0; n < 256 && !cta->warp_done(w) && !cta->warp_waiting(w); ++n) {
          const P::Inst& in = p_.insts[cta->next_pc(w)];
          const StepInfo info = cta->step(w);
          progressed = true;
          if (info.kind != StepInfo::Kind::Executed || !info.active) continue;
          if ((in.op != P::Op::Ld && in.op != P::Op::St) || (info.space != P::Space::Global && info.space != P::Space::Generic)) continue;
          const std::uint32_t eb = static_cast<std::uint32_t>(std::max(1, P::ty_bits(in.type) / 8)) * std::max<std::uint32_t>(1, in.vec);
          mem_->warm(cta->lane_addresses(w), info.active, eb);
        }
    }
    if (mem_->warm_cta_done()) break;
  }
  mem_->warm_finish();
}

TimingResult NvidiaGpu::run() {
  choose_slice();
  build_machine();
  if (share_ < 1.0) {
    warm_end_ = std::min(k_.dims().num_blocks(), 2 * n_ctas_);
    warm_l2(n_ctas_, warm_end_);
  }
  assign_ctas();
  TimingResult r;
  r.occupancy = occ_;
  r.sms_simulated = nsms_;
  r.ctas_total = n_ctas_;
  const std::uint64_t slots = static_cast<std::uint64_t>(nsms_) * static_cast<std::uint64_t>(occ_.blocks_per_unit);
  // first wave
  for (int slot = 0; slot < occ_.blocks_per_unit; ++slot)
    for (int s = 0; s < nsms_; ++s) {
      Sm& sm = sms_[static_cast<std::size_t>(s)];
      if (sm.queue_pos < sm.queue.size()) launch_cta(s, slot, sm.queue[sm.queue_pos++], 0);
    }
  for (int s = 0; s < nsms_; ++s)
    if (sms_[static_cast<std::size_t>(s)].next < kInf) pq_.push({sms_[static_cast<std::size_t>(s)].next, s});

  // Window A: from the start of the kernel, caches cold.
  double now = 0;
  const std::uint64_t budget_a = opts_.detail_budget / 2;
  bool finished = simulate(budget_a, now);
  const double rate_a = finished ? 0.0 : steady_rate(0, now);
  const std::uint64_t timed_a = timed_insts_;
  bool two_windows = false;
  double t_a = now, rate_b = 0;
  if (!finished && r.ctas_total > slots && ctas_done_ < slots / 2) {
    // The first wave is still running: its rate is the cold one (every CTA fetches its data
    // from HBM at the same time). Window B times fresh CTAs of the next wave, with the caches
    // as the first wave left them, for the rate of the rest of the kernel.
    two_windows = true;
    restart_from_next_wave(now);
    const std::size_t from = progress_.size();
    progress_.push_back({now, timed_insts_, mem_->shared_busy_cycles()});
    finished = simulate(opts_.detail_budget - budget_a, now);
    rate_b = steady_rate(from, now);
  } else if (!finished) {
    finished = simulate(opts_.detail_budget - budget_a, now);
    // One wave (grid-stride loops): every CTA ends at about the same time, and its last phase
    // (a final reduction, atomics on one address) is unlike the steady loop the window saw.
    // Give it a second budget to reach the end before extrapolating.
    if (!finished && r.ctas_total <= slots) finished = simulate(opts_.detail_budget, now);
  }
  stop_ = !finished;
  if (std::getenv("KERNSIM_DEBUG_PROGRESS"))
    for (const auto& p : progress_)
      std::fprintf(stderr, "progress %.0f cycles %llu insts shared-busy %.0f\n", p.t, static_cast<unsigned long long>(p.insts), p.shared_busy);

  // close residency and stall intervals
  const double end_detailed = stop_ ? now : last_end_;
  for (int s = 0; s < nsms_; ++s) close_residency(sms_[static_cast<std::size_t>(s)], s, end_detailed);
  for (int s = 0; s < nsms_; ++s)
    for (std::size_t si = 0; si < sms_[static_cast<std::size_t>(s)].subs.size(); ++si) {
      Sub& sub = sms_[static_cast<std::size_t>(s)].subs[si];
      if (end_detailed > sub.idle_since) {
        const bool waiting = sub.why != Stall::Idle && stop_;
        lis_.on_stall({s, static_cast<int>(si), waiting ? sub.why : Stall::Idle, sub.idle_since, end_detailed - sub.idle_since,
                       waiting ? sub.wait_warp : -1, waiting ? sub.wait_pc : kNoPc});
      }
    }
  {
    // a slice's traffic stands for its share of the chip's
    mem::MemCounters c = mem_->counters();
    if (share_ < 1.0) c.scale(1.0 / share_);
    lis_.on_memory(c, mem_->dram_busy_cycles(), mem_->l2_busy_cycles());
  }
  r.warp_insts_timed = timed_insts_;
  r.ctas_timed = ctas_done_;
  if (!stop_ && !two_windows) {
    r.cycles = last_end_;
    r.warp_insts_estimated = static_cast<double>(timed_insts_);
    r.sampled_fraction = 1.0;
    r.sampling_note = "every CTA timed in detail";
  } else {
    const double per_cta = work_per_cta();
    const double total = per_cta * static_cast<double>(r.ctas_total);
    r.extrapolated = true;
    r.warp_insts_estimated = total;
    r.sampled_fraction = total > 0 ? std::min(1.0, static_cast<double>(timed_insts_) / total) : 1;
    if (two_windows) {
      // first wave at the cold rate, the rest at the warm rate of window B
      const double wave1 = per_cta * static_cast<double>(std::min<std::uint64_t>(slots, r.ctas_total));
      const double t_wave1 = rate_a > 0 ? wave1 / rate_a : t_a;
      const double rest = std::max(0.0, total - wave1);
      r.cycles = t_wave1 + (rate_b > 0 ? rest / rate_b : 0.0);
      r.sampling_note = "two windows: the first wave from the start (" + std::to_string(timed_a) + " warp instructions, cold) and the next wave (" +
                        std::to_string(timed_insts_ - timed_a) + ", warm) of ~" + std::to_string(static_cast<std::uint64_t>(total)) +
                        "; extrapolated at their steady rates";
    } else {
      const double rate = steady_rate(0, now);
      const double remaining = std::max(0.0, total - static_cast<double>(timed_insts_));
      r.cycles = now + (rate > 0 ? remaining / rate : 0);
      r.sampling_note = "timed " + std::to_string(timed_insts_) + " of ~" + std::to_string(static_cast<std::uint64_t>(total)) +
                        " warp instructions in detail (" + std::to_string(ctas_done_) + " of " + std::to_string(r.ctas_total) +
                        " CTAs completed), extrapolated at the steady-state rate";
    }
  }
  if ((stop_ || two_windows) && opts_.complete_functionally) {
    // outputs must be whole: finish every started CTA and run the rest, untimed
    for (auto& c : abandoned_)
      if (c.cta) c.cta->run();
    for (auto& sm : sms_) {
      for (auto& c : sm.ctas)
        if (c.active) c.cta->run();
      for (; sm.queue_pos < sm.queue.size(); ++sm.queue_pos) k_.make_cta(sm.queue[sm.queue_pos])->run();
    }
  }
  if (n_ctas_ < k_.dims().num_blocks()) {
    const std::string slice = "SM slice: " + std::to_string(nsms_) + " of " + std::to_string(d_.sm.count) + " SMs ran CTAs 0-" +
                              std::to_string(n_ctas_ - 1) + " of " + std::to_string(k_.dims().num_blocks()) +
                              " with that share of L2 and HBM bandwidth, atomics and dispatch (L2 as the next " +
                              std::to_string(warm_end_ - n_ctas_) + " leave it: CTAs " + std::to_string(warm_begin_) + "-" +
                              std::to_string(warm_end_ - 1) + " ran, the last first, until every L2 set was full)";
    r.sampling_note = slice + (r.extrapolated ? "; " + r.sampling_note : "");
    r.extrapolated = true;
    r.warp_insts_estimated /= share_;
    r.sampled_fraction *= share_;
    r.ctas_total = k_.dims().num_blocks();
    if (opts_.complete_functionally)  // the CTAs beyond the slice and its warm-up, untimed
      for (std::uint64_t c = n_ctas_; c < k_.dims().num_blocks(); ++c)
        if (c < warm_begin_ || c >= warm_end_) k_.make_cta(c)->run();
  }
  r.kernel_us = r.cycles / d_.clocks.core_mhz;
  r.launch_us = d_.launch.overhead_us;
  r.time_us = r.kernel_us + r.launch_us;
  return r;
}

}  // namespace

TimingResult time_ptx_kernel(const device::DeviceSpec& dev, PtxKernel& kernel, const KernelResources& res,
                             const TimingOptions& opts, Listener& listener) {
  if (dev.vendor != device::Vendor::Nvidia)
    throw Error(ErrorKind::Unsupported, "PTX kernels run on NVIDIA devices; " + dev.name + " is an AMD part");
  NvidiaGpu gpu(dev, kernel, res, opts, listener);
  gpu.set_resources(res);
  return gpu.run();
}

}  // namespace kernsim::sim
