// The AMD CDNA3/CDNA4 GPU timing model: CUs of four SIMDs served by one sequencer, wave64
// instructions issued per category, wait counters, MFMA passes, barriers, workgroup dispatch
// across XCDs with occupancy limits, and the memory hierarchy of memory_model/amd_memory.
// build_machine() assembles it from a DeviceSpec.
//
// The sequencer (per ROCm's CDNA pipeline description) visits one SIMD per cycle, round-robin, so
// a SIMD has an issue opportunity every cu.issue_interval_cycles; there it issues at most one
// instruction per wave and one per category — VALU (MFMA included), VMEM, SALU/SMEM, LDS,
// branch — while s_nop, s_waitcnt, s_barrier, s_setprio and s_sleep are handled in the
// instruction buffer without a functional unit. Waves are picked by s_setprio priority, then age.
//
// Register dependencies: VALU and SALU results are scoreboarded (an instruction issues once its
// sources are written). Memory results are not: as on the hardware, only s_waitcnt orders them.
// Each wave keeps the completion times of its vector memory operations (vmcnt, decremented in
// issue order) and of its LDS (in order) and scalar memory operations (out of order; lgkmcnt);
// s_waitcnt stalls until few enough are outstanding, and a wave whose counter is full stalls at
// issue. An MFMA occupies its SIMD's matrix core for the instruction's cycles and blocks the SIMD's
// VALU for its co-execution delay; its result is ready for another MFMA's accumulator at once,
// for other readers cu.mfma_read_extra_cycles later.
//
// Instructions execute functionally when they issue (AmdWorkgroup::step), so timing and data see
// the same program. The Sampler (sampler.h) drives the machine, as it drives the NVIDIA one.
//
//   CU ─┬─ SIMD × cu.simds: wave slots, ports (VALU + matrix core, SALU, branch), issue phase
//       ├─ sequencer: one SIMD per cycle, waves by OldestFirstByPriority; one per port per visit
//       ├─ wave slots: RangeScoreboard (VALU/SALU results), WaitCounters (vmcnt, lgkmcnt)
//       ├─ workgroup slots: BarrierUnit
//       └─ memory front: AmdMemorySystem (texture addresser, L1, LDS ports and banks, scalar L1)
//   chip: XCDs, each a workgroup dispatcher (XcdRoundRobin, DispatchClock) and its L2; MALL, HBM
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "base/error.h"
#include "isa/amdgcn/program.h"
#include "memory_model/amd_memory.h"
#include "sim/functional/amd_exec.h"
#include "sim/timing/amd_occupancy.h"
#include "sim/timing/amd_policies.h"
#include "sim/timing/sampler.h"
#include "sim/timing/timing.h"
#include "sim/timing/units/barrier_unit.h"
#include "sim/timing/units/cta_dispatcher.h"
#include "sim/timing/units/range_scoreboard.h"
#include "sim/timing/units/wait_counters.h"

namespace kernsim::sim {

namespace A = isa::amdgcn;
using isa::Unit;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Times are doubles (memory completions are fractional); readiness within this of an issue
// opportunity counts as ready at it.
constexpr double kEps = 1e-6;

// Issue categories of the sequencer; Internal instructions take no functional unit.
enum class Port : std::uint8_t { Valu, Vmem, Salu, Lds, Branch, Internal };

// What the timing model does with an instruction, decided once per static instruction.
enum class Kind : std::uint8_t {
  Valu, Salu, Mfma, Vmem, Lds, Smem, SmemStore, Waitcnt, Barrier, Nop, Sleep, Setprio, Branch, Endpgm,
  L2WriteBack, L1Invalidate, ScalarCacheOp, Clock, NoEffect
};

// Timing descriptor of one static instruction (flat array indexed like Program::insts).
struct ITime {
  Kind kind = Kind::NoEffect;
  Port port = Port::Internal;
  double busy = 0;      // cycles its unit is busy (VALU, SALU, branch; MFMA: matrix core)
  double latency = 0;   // issue to dependent issue (scoreboarded results)
  double valu_block = 0;  // MFMA: cycles the SIMD's VALU cannot issue
  double flops = 0;     // per active lane (VALU) or per instruction (MFMA)
  std::uint8_t nreads = 0, nwrites = 0;
  RegRange reads[8];
  RegRange writes[2];
  std::uint8_t mfma_src_c = 0xff;  // index in reads[] of an MFMA's accumulator input
  bool resolved = false;           // MFMA shapes resolve at first issue
};

struct Wave {
  bool live = false, at_barrier = false;
  int slot = -1;   // workgroup slot on the CU
  int widx = 0;    // wave within its workgroup
  int simd = 0;
  int prio = 0;
  std::uint64_t age = 0;
  std::uint32_t pc = 0;
  double ready = 0;               // in-order issue: not before
  Stall ready_why = Stall::ExecutionDependency;
  double dep_ready = 0;           // operands and wait counters, for the next instruction
  Stall dep_why = Stall::ExecutionDependency;
  RangeScoreboard sb;             // VALU/SALU results still being computed
  WaitCounters counters;          // outstanding memory operations (vmcnt, lgkmcnt)
};

struct WgSlot {
  std::unique_ptr<AmdWorkgroup> wg;
  std::uint64_t id = 0;
  bool active = false;
  int waves_left = 0;
  double start = 0;
  std::uint64_t insts = 0;
  std::vector<int> waves;  // CU wave indices of its waves
  BarrierUnit barrier;
};

struct Simd {
  std::vector<int> waves;  // CU wave indices resident on this SIMD
  double valu_free = 0, xdl_free = 0, salu_free = 0, branch_free = 0;
  double phase = 0;        // issue opportunities at phase + k * interval
  double next = kInf;
  double idle_since = 0;
  Stall why = Stall::Idle;
  int wait_wave = -1;              // the wave it waits for, and that wave's next instruction
  std::uint32_t wait_pc = kNoPc;
};

struct Cu {
  std::vector<Wave> waves;
  std::vector<WgSlot> wgs;
  std::vector<Simd> simds;
  double vmem_free = 0;              // the texture addresser takes the next instruction
  double next = kInf;
  int resident = 0;
  double resident_since = 0;
};

int sopp_imm(const A::Inst& in) {
  if (in.nsrc > 0 && in.src[0].kind == A::Kind::Imm) return static_cast<int>(in.src[0].imm & 0xffff);
  return in.simm & 0xffff;
}

double valu_flops(const A::Inst& in) {
  using O = A::Op;
  switch (in.op) {
    case O::v_fma_f32: case O::v_fmac_f32: case O::v_mac_f32: case O::v_mad_f32: case O::v_fmamk_f32: case O::v_fmaak_f32:
    case O::v_madmk_f32: case O::v_madak_f32: case O::v_mad_legacy_f32: case O::v_fma_mix_f32: case O::v_mad_mix_f32:
    case O::v_fma_f64: case O::v_fmac_f64: case O::v_fma_f16: case O::v_mac_f16: case O::v_mad_f16: case O::v_madmk_f16:
    case O::v_madak_f16: case O::v_fma_mixlo_f16: case O::v_fma_mixhi_f16: case O::v_mad_mixlo_f16: case O::v_mad_mixhi_f16:
    case O::v_pk_add_f32: case O::v_pk_mul_f32: case O::v_pk_add_f16: case O::v_pk_mul_f16: case O::v_pk_min_f16: case O::v_pk_max_f16:
      return 2;
    case O::v_pk_fma_f32: case O::v_pk_fma_f16: case O::v_pk_fmac_f16: case O::v_dot2_f32_f16: case O::v_dot2c_f32_f16:
    case O::v_dot2_f32_bf16: case O::v_dot2c_f32_bf16:
      return 4;
    case O::v_add_f32: case O::v_sub_f32: case O::v_subrev_f32: case O::v_mul_f32: case O::v_mul_legacy_f32: case O::v_min_f32:
    case O::v_max_f32: case O::v_add_f64: case O::v_mul_f64: case O::v_min_f64: case O::v_max_f64: case O::v_add_f16:
    case O::v_sub_f16: case O::v_subrev_f16: case O::v_mul_f16: case O::v_min_f16: case O::v_max_f16: case O::v_exp_f32:
    case O::v_log_f32: case O::v_rcp_f32: case O::v_rsq_f32: case O::v_sqrt_f32: case O::v_sin_f32: case O::v_cos_f32:
    case O::v_rcp_f64: case O::v_rsq_f64: case O::v_sqrt_f64:
      return 1;
    default:
      return 0;
  }
}

class AmdMachine final : public SampledMachine {
 public:
  AmdMachine(const device::DeviceSpec& d, AmdKernel& k, const AmdResources& res, Listener& l)
      : d_(d), k_(k), p_(k.program()), res_(res), lis_(l) {}

  // set-up: a CU slice is whole XCDs (each with its own L2) and their share of the MALL, fabric
  // and HBM; it runs the workgroups the dispatcher sends to its XCDs
  std::uint64_t grid_ctas() const override { return k_.dims().num_blocks(); }
  int part_units() const override { return static_cast<int>(d_.sm.count); }
  std::optional<std::uint64_t> probe_cta(std::uint64_t id, std::uint64_t max_insts) override;
  bool can_slice() const override { return true; }
  int slice_units(int wanted) const override { return std::max(slice_granule(), wanted / slice_granule() * slice_granule()); }
  std::uint64_t slice_ctas(int units) const override;
  bool in_slice(std::uint64_t id) const override { return static_cast<int>(id % static_cast<std::uint64_t>(part_xcds())) < nxcd_; }
  void assemble(int units, double share, std::uint64_t ctas) override;
  std::string warm_up(std::uint64_t max_insts, bool previous_launch) override;
  void warm_workgroup(std::uint64_t id, bool previous);
  std::string replay_previous_launch(std::uint64_t max_insts);
  bool warmed(std::uint64_t id) const override { return id >= warm_begin_ && warm_xcd(id); }
  // a kernel's end writes every XCD's dirty L2 lines back (flush_at_end): the flush leaves them clean
  void start_dirty_l2() override {}
  std::string slice_text(int units) const override;
  std::uint64_t slots() const override { return static_cast<std::uint64_t>(ncus_) * static_cast<std::uint64_t>(occ_.blocks_per_unit); }
  Occupancy occupancy() const override { return occ_; }
  void fill(double t) override;
  // running
  int units() const override { return ncus_; }
  double next_event(int c) const override { return cus_[static_cast<std::size_t>(c)].next; }
  double step(int c, double now) override;
  // The budget counts simulation work: a wave instruction, or kLinesPerInstruction cache lines
  // its memory accesses look up (a gather of 64 lines costs the simulator as much as several
  // instructions).
  std::uint64_t work() const override { return timed_insts_ + mem_->lines_looked_up() / kLinesPerInstruction; }
  // A few memory round trips: a shorter window sees only the burst of issue before the first loads return.
  double min_window_cycles() const override { return kMinWindowRoundTrips * d_.dram.latency_cycles; }
  Progress checkpoint(double now) const override { return {now, timed_insts_, mem_->shared_busy_cycles(false), mem_->shared_busy_cycles(true)}; }
  std::uint64_t ctas_done() const override { return wgs_done_; }
  std::uint64_t done_cta_insts() const override { return done_wg_insts_; }
  void stop() override { stop_ = true; }
  void hold() override { hold_ = true; }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> in_flight() const override;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> run_in_flight(const std::vector<std::uint64_t>& ids, std::uint64_t max_insts) override;
  void abandon_in_flight(double now, const std::vector<std::uint64_t>& keep) override;
  // closing
  double last_cta_end() const override { return std::max(last_end_, drain_); }
  void close_window(double end, bool stopped) override;
  double l2_dirty_bytes() const override { return static_cast<double>(mem_->l2_dirty_bytes()); }
  double l2_capacity_bytes() const override { return static_cast<double>(d_.l2.bytes * d_.l2.instances) * share_; }
  // The kernel's end releases its writes to the device: dirty L2 lines of every XCD are written
  // back (the XCDs' L2s are not coherent with each other).
  double flush_at_end(double t) override { return std::max(0.0, mem_->write_back_l2(-1, t) - t); }
  void report_memory(Listener& l, double scale, double busy_scale) const override {
    mem::MemCounters c = mem_->counters();
    if (scale != 1.0) c.scale(scale);
    l.on_memory(c, busy_scale * mem_->dram_busy_cycles(), busy_scale * mem_->l2_busy_cycles(), scale);
  }
  bool reports_window() const override { return true; }
  void complete_started() override;
  void run_untimed(std::uint64_t id) override { k_.make_workgroup(id)->run(); }
  std::array<std::uint32_t, 3> grid_dims() const override { return k_.dims().grid; }
  void for_each_queued(const std::function<void(std::uint64_t)>& f) override { dispatch_->for_each_remaining(f); }
  bool probe_untimed(std::uint64_t id, std::uint64_t max_insts) override {
    return probe_alone(k_, max_insts, [&] { k_.make_workgroup(id)->run(); });
  }
  double core_mhz() const override { return d_.clocks.core_mhz; }
  double launch_overhead_us() const override { return d_.launch.overhead_us; }
  const char* inst_noun() const override { return "wave"; }
  const char* cta_noun() const override { return "workgroup"; }
  const char* unit_noun() const override { return "CUs"; }

 private:
  int part_xcds() const { return static_cast<int>(std::max<std::int64_t>(1, d_.topology.dies)); }
  int slice_granule() const { return static_cast<int>(std::max<std::int64_t>(1, d_.topology.units_per_die)); }  // an XCD's CUs
  // the XCDs whose workgroups warm the MALL up: as many as the slice has, the next ones
  bool warm_xcd(std::uint64_t id) const {
    const int x = static_cast<int>(id % static_cast<std::uint64_t>(part_xcds()));
    return x >= nxcd_ && x - nxcd_ < nxcd_;
  }
  static constexpr double kMinWindowRoundTrips = 4;
  static constexpr std::uint64_t kLinesPerInstruction = 2;
  void describe_instructions();
  ITime describe(const A::Inst& in) const;
  ITime describe_vector(const A::Inst& in) const;
  ITime describe_scalar(const A::Inst& in) const;
  ITime describe_memory(const A::Inst& in) const;
  void resolve_mfma(std::uint32_t pc, ITime& t);
  const device::Pipe& pipe_of(Unit u) const;
  RegRange range_of(const A::Operand& o) const;
  // the machine
  void launch_wg(int c, int slot, std::uint64_t id, double t);
  void place_wave(int c, Cu& cu, WgSlot& g, int slot, int wi, double t);
  void finish_wg(int c, int slot, double t);
  void refresh(Wave& w);
  double unit_free(const Cu& cu, const Simd& s, const Wave& w, Stall& why) const;
  double opportunity(const Simd& s, double t) const;
  void arbitrate(int c, Cu& cu, Simd& s, int si, double now);
  void issue(int c, Cu& cu, Simd& s, int wi, double now);
  double execute(int c, Cu& cu, Simd& s, Wave& w, const A::Inst& in, const ITime& it, double now);
  void release_barrier(Cu& cu, Wave& w, WgSlot& g, const AmdStepInfo& info, double now);
  AmdPlacement placement(int c, int simd, int k) const;
  void memory(int c, Cu& cu, Wave& w, const A::Inst& in, const ITime& it, double now);
  double lds_access(int c, Wave& w, const A::Inst& in, const std::uint64_t* addrs, double now);
  double vector_access(int c, Cu& cu, Wave& w, const A::Inst& in, const std::uint64_t* addrs, double now);
  void set_residency(Cu& cu, int c, double now, int delta);

  const device::DeviceSpec& d_;
  AmdKernel& k_;
  const A::Program& p_;
  AmdResources res_;
  Listener& lis_;
  AmdOccupancy occ_;
  std::vector<ITime> itime_;
  int ncus_ = 0, cus_per_xcd_ = 1, nsimd_ = 4, wpb_ = 0, slots_per_simd_ = 8;
  int nxcd_ = std::numeric_limits<int>::max();  // XCDs assembled (the slice's; all of them before assemble())
  double share_ = 1.0;
  std::uint64_t warm_begin_ = std::numeric_limits<std::uint64_t>::max();  // the first workgroup the MALL warm-up ran
  int vgpr_base_ = 128, agpr_base_ = 128;  // scoreboard numbering: SGPRs, then VGPRs, then AGPRs
  double interval_ = 4;
  DispatchClock dispatch_clock_;  // per XCD: its workgroup manager
  double sleep_unit_ = 64, mfma_extra_ = 0, sl1_lat_ = 0, l1_lat_ = 0;
  std::size_t vm_max_ = 63, lgkm_max_ = 15;
  std::uint64_t scratch_stride_ = 0;  // bytes of swizzled scratch per wave slot
  std::vector<Cu> cus_;
  std::unique_ptr<mem::AmdMemorySystem> mem_;
  std::unique_ptr<XcdRoundRobin> dispatch_;
  std::uint64_t age_ = 0, wgs_done_ = 0, done_wg_insts_ = 0;
  double last_end_ = 0, drain_ = 0;
  bool stop_ = false;
  bool hold_ = false;  // hold(): no workgroup is started any more
  std::vector<WgSlot> abandoned_;
  // a SIMD's waves in arbitration order (scratch, one slot per wave slot of a SIMD: written through
  // a pointer, as a vector's push_back and size() cost the hot loop 2% of the simulation)
  std::vector<int> order_;
  std::uint64_t a1_[64] = {}, swz_[64] = {};
  std::uint64_t active_ = 0;  // exec mask of the instruction issuing
};

// ---------------------------------------------------------------------------------------------
// assembly

const device::Pipe& AmdMachine::pipe_of(Unit u) const {
  switch (u) {
    case Unit::IntAlu: return d_.pipes.int_alu;
    case Unit::IntMul: return d_.pipes.int_mul;
    case Unit::Fp32: return d_.pipes.fp32;
    case Unit::Fp16: return d_.pipes.fp16;
    case Unit::Fp64: return d_.pipes.fp64;
    case Unit::Sfu: return d_.pipes.sfu;
    case Unit::Convert: return d_.pipes.convert;
    case Unit::Branch: return d_.pipes.branch;
    case Unit::Scalar: return d_.pipes.scalar;
    default: break;
  }
  throw Error(ErrorKind::Internal, std::string("kernsim bug: no AMD pipe for unit ") + isa::to_string(u));
}

RegRange AmdMachine::range_of(const A::Operand& o) const {
  const int n = std::max<int>(1, o.regs);
  switch (o.kind) {
    case A::Kind::Sgpr:
      if (o.reg >= A::kSgprFileSize) return {};
      return {o.reg, static_cast<std::uint16_t>(std::min(n, A::kSgprFileSize - o.reg))};
    case A::Kind::Vgpr: return {static_cast<std::uint16_t>(vgpr_base_ + o.reg), static_cast<std::uint16_t>(n)};
    case A::Kind::Agpr: return {static_cast<std::uint16_t>(agpr_base_ + o.reg), static_cast<std::uint16_t>(n)};
    case A::Kind::Vccz: return {static_cast<std::uint16_t>(A::kSgprVcc), 2};
    case A::Kind::Execz: return {static_cast<std::uint16_t>(A::kSgprExec), 2};
    default: return {};
  }
}

void add_read(ITime& t, RegRange r) {
  if (r.count && t.nreads < 8) t.reads[t.nreads++] = r;
}
void add_write(ITime& t, RegRange r) {
  if (r.count && t.nwrites < 2) t.writes[t.nwrites++] = r;
}
const RegRange kExecRange{static_cast<std::uint16_t>(A::kSgprExec), 2}, kVccRange{static_cast<std::uint16_t>(A::kSgprVcc), 2};

// What the timing model does with one static instruction, by its format.
ITime AmdMachine::describe(const A::Inst& in) const {
  switch (in.fmt) {
    case A::Fmt::Vop1: case A::Fmt::Vop2: case A::Fmt::Vopc: case A::Fmt::Vop3: case A::Fmt::Vop3p: case A::Fmt::Mfma:
      return describe_vector(in);
    case A::Fmt::Sop1: case A::Fmt::Sop2: case A::Fmt::Sopk: case A::Fmt::Sopc: case A::Fmt::Sopp:
      return describe_scalar(in);
    case A::Fmt::Smem: case A::Fmt::Ds: case A::Fmt::Flat: case A::Fmt::Global: case A::Fmt::Scratch: case A::Fmt::Mubuf:
      return describe_memory(in);
    default:
      break;
  }
  throw Error(ErrorKind::Unsupported, "the AMD timing model does not time " + p_.describe(in) + " (" + A::to_string(in.op) + ", format " +
                                          A::to_string(in.fmt) + ")");
}

ITime AmdMachine::describe_vector(const A::Inst& in) const {
  ITime t;
  if (in.fmt == A::Fmt::Mfma) {
    t.kind = Kind::Mfma;
    t.port = Port::Valu;
    for (int i = 0; i < in.nsrc; ++i) {
      if (i == 2) t.mfma_src_c = t.nreads;
      add_read(t, range_of(in.src[i]));
    }
    add_read(t, kExecRange);
    for (int i = 0; i < in.ndst; ++i) add_write(t, range_of(in.dst[i]));
    t.flops = 2.0 * in.mfma.m * in.mfma.n * in.mfma.k * std::max<int>(1, in.mfma.blocks);
    return t;  // cycles resolve at first issue (resolve_mfma)
  }
  t.kind = Kind::Valu;
  t.port = Port::Valu;
  if (in.op == A::Op::v_nop) {
    t.busy = d_.pipes.int_alu.issue_cycles;
    return t;
  }
  const device::Pipe& pp = pipe_of(in.unit);
  t.busy = pp.issue_cycles;
  t.latency = pp.latency_cycles;
  for (int i = 0; i < in.nsrc; ++i) add_read(t, range_of(in.src[i]));
  for (int i = 0; i < in.ndst; ++i) add_write(t, range_of(in.dst[i]));
  add_read(t, kExecRange);
  t.flops = valu_flops(in);
  return t;
}

ITime AmdMachine::describe_scalar(const A::Inst& in) const {
  using O = A::Op;
  ITime t;
  auto alu = [&](Kind k, Port p) {
    t.kind = k;
    t.port = p;
    const device::Pipe& pp = pipe_of(in.unit);
    t.busy = pp.issue_cycles;
    t.latency = pp.latency_cycles;
    for (int i = 0; i < in.nsrc; ++i) add_read(t, range_of(in.src[i]));
    for (int i = 0; i < in.ndst; ++i) add_write(t, range_of(in.dst[i]));
    return t;
  };
  if (in.fmt != A::Fmt::Sopp) return in.unit == Unit::Branch ? alu(Kind::Branch, Port::Branch) : alu(Kind::Salu, Port::Salu);  // s_setpc, s_swappc, s_call
  switch (in.op) {
    case O::s_endpgm: t.kind = Kind::Endpgm; return t;
    case O::s_waitcnt: t.kind = Kind::Waitcnt; return t;
    case O::s_barrier: t.kind = Kind::Barrier; return t;
    case O::s_nop: t.kind = Kind::Nop; return t;
    case O::s_sleep: t.kind = Kind::Sleep; return t;
    case O::s_setprio: t.kind = Kind::Setprio; return t;
    case O::s_branch: case O::s_cbranch_scc0: case O::s_cbranch_scc1: case O::s_cbranch_vccz: case O::s_cbranch_vccnz:
    case O::s_cbranch_execz: case O::s_cbranch_execnz: case O::s_trap:
      t.kind = Kind::Branch;
      t.port = Port::Branch;
      t.busy = d_.pipes.branch.issue_cycles;
      t.latency = d_.pipes.branch.latency_cycles;
      if (in.op == O::s_cbranch_vccz || in.op == O::s_cbranch_vccnz) add_read(t, kVccRange);
      if (in.op == O::s_cbranch_execz || in.op == O::s_cbranch_execnz) add_read(t, kExecRange);
      return t;
    case O::s_set_gpr_idx_off: case O::s_set_gpr_idx_mode:
      return alu(Kind::Salu, Port::Salu);
    // hints and messages handled in the instruction buffer (no effect on a compute kernel's timing)
    case O::s_sendmsg: case O::s_icache_inv: case O::s_incperflevel: case O::s_decperflevel: case O::s_ttracedata: case O::s_code_end:
      t.kind = Kind::NoEffect;
      return t;
    default:
      break;
  }
  throw Error(ErrorKind::Unsupported, "the AMD timing model does not time " + p_.describe(in) + " (" + A::to_string(in.op) + ", format " +
                                          A::to_string(in.fmt) + ")");
}

ITime AmdMachine::describe_memory(const A::Inst& in) const {
  using O = A::Op;
  ITime t;
  auto reads = [&] {
    for (int i = 0; i < in.nsrc; ++i) add_read(t, range_of(in.src[i]));
  };
  if (in.fmt == A::Fmt::Smem) {
    t.port = Port::Salu;
    switch (in.op) {
      case O::s_load: t.kind = Kind::Smem; reads(); return t;
      case O::s_store: t.kind = Kind::SmemStore; reads(); return t;
      case O::s_memtime: case O::s_memrealtime: t.kind = Kind::Clock; return t;
      case O::s_dcache_wb: case O::s_dcache_inv: case O::s_dcache_wb_vol: case O::s_dcache_inv_vol: t.kind = Kind::ScalarCacheOp; return t;
      default: break;
    }
  } else if (in.fmt == A::Fmt::Ds) {
    t.kind = Kind::Lds;
    t.port = Port::Lds;
    reads();
    add_read(t, kExecRange);
    return t;
  } else {
    t.port = Port::Vmem;
    if (in.op == O::vmem) {
      t.kind = Kind::Vmem;
      reads();
      add_read(t, kExecRange);
      return t;
    }
    if (in.op == O::buffer_wbl2) { t.kind = Kind::L2WriteBack; return t; }
    if (in.op == O::buffer_inv || in.op == O::buffer_wbinvl1 || in.op == O::buffer_wbinvl1_vol) { t.kind = Kind::L1Invalidate; return t; }
  }
  throw Error(ErrorKind::Unsupported, "the AMD timing model does not time " + p_.describe(in) + " (" + A::to_string(in.op) + ", format " +
                                          A::to_string(in.fmt) + ")");
}

// MFMA timing comes from the device file's table, keyed by the mnemonic (f8f6f4 forms by whether
// an operand is an 8-bit format: cbsz/blgp 0-1 = fp8/bf8, 2-3 = fp6/bf6, 4 = fp4).
void AmdMachine::resolve_mfma(std::uint32_t pc, ITime& t) {
  const A::Inst& in = p_.insts[pc];
  const std::string& text = p_.text[in.text];
  std::string mn = text.substr(0, text.find(' '));
  std::string key;
  if (mn.rfind("v_mfma_scale_", 0) == 0) key = mn.substr(13);
  else if (mn.rfind("v_mfma_", 0) == 0) key = mn.substr(7);
  if (key.size() > 4 && key.compare(key.size() - 4, 4, "_e64") == 0) key.resize(key.size() - 4);
  if (key.find("f8f6f4") != std::string::npos) key += (in.mfma.cbsz <= 1 || in.mfma.blgp <= 1) ? "_f8" : "_f6f4";
  int idx = -1;
  for (int i = 0; i < device::kNumMfmaShapes; ++i)
    if (key == device::kMfmaShapes[i]) idx = i;
  if (idx < 0)
    throw Error(ErrorKind::Unsupported, "the AMD timing model has no MFMA shape `" + key + "` for " + p_.describe(in) +
                                            " (the device-file schema lists the shapes it times)");
  if (!d_.provenance.count("mfma." + key + ".cycles"))
    throw Error(ErrorKind::DeviceFile, d_.file.string() + ": no timing for " + mn + " (" + p_.describe(in) + "): the device file lacks `mfma." +
                                           key + ".cycles` and `mfma." + key + ".valu_blocked_cycles`");
  const device::MfmaTiming& m = d_.mfma[static_cast<std::size_t>(idx)];
  t.busy = m.cycles;
  t.valu_block = m.valu_blocked_cycles;
  t.latency = m.cycles + mfma_extra_;
  t.resolved = true;
}

// The CU as the device file describes it; see the diagram at the top of this file.
void AmdMachine::assemble(int units, double share, std::uint64_t) {
  cus_per_xcd_ = static_cast<int>(d_.topology.units_per_die);
  if (cus_per_xcd_ <= 0 || static_cast<std::int64_t>(cus_per_xcd_) * part_xcds() != d_.sm.count)
    throw Error(ErrorKind::DeviceFile, d_.file.string() + ": topology.dies x topology.units_per_die (" + std::to_string(part_xcds()) + " x " +
                                           std::to_string(cus_per_xcd_) + ") must equal cu.count (" + std::to_string(d_.sm.count) + ")");
  ncus_ = units;
  nxcd_ = units / cus_per_xcd_;
  share_ = share;
  nsimd_ = static_cast<int>(std::max<std::int64_t>(1, d_.sm.sub_partitions));
  interval_ = std::max(1.0, d_.sm.issue_interval_cycles);
  sleep_unit_ = d_.sm.sleep_unit_cycles;
  mfma_extra_ = d_.sm.mfma_read_extra_cycles;
  sl1_lat_ = d_.scalar_l1.hit_latency_cycles;
  l1_lat_ = d_.l1.hit_latency_cycles;
  vm_max_ = static_cast<std::size_t>(std::max<std::int64_t>(1, d_.sm.vm_counter_max));
  lgkm_max_ = static_cast<std::size_t>(std::max<std::int64_t>(1, d_.sm.lgkm_counter_max));
  occ_ = compute_amd_occupancy(d_, res_);
  wpb_ = occ_.warps_per_block;
  slots_per_simd_ = occ_.waves_per_simd;
  order_.assign(static_cast<std::size_t>(slots_per_simd_), 0);  // a SIMD's waves (place_wave keeps them within its slots)
  describe_instructions();
  scratch_stride_ = ((static_cast<std::uint64_t>(k_.private_bytes()) + 3) / 4) * 4 * 64;
  mem_ = std::make_unique<mem::AmdMemorySystem>(d_, ncus_, cus_per_xcd_, share);
  cus_.resize(static_cast<std::size_t>(ncus_));
  for (auto& cu : cus_) {
    cu.simds.resize(static_cast<std::size_t>(nsimd_));
    for (int s = 0; s < nsimd_; ++s) cu.simds[static_cast<std::size_t>(s)].phase = interval_ * s / nsimd_;
    cu.wgs.resize(static_cast<std::size_t>(occ_.blocks_per_unit));
    for (auto& g : cu.wgs) g.barrier = BarrierUnit(0, d_.sm.barrier_latency_cycles);
    cu.waves.resize(static_cast<std::size_t>(nsimd_ * slots_per_simd_));
    for (std::size_t w = 0; w < cu.waves.size(); ++w) cu.waves[w].simd = static_cast<int>(w) / slots_per_simd_;
  }
  dispatch_ = std::make_unique<XcdRoundRobin>(part_xcds(), k_.dims().num_blocks(), nxcd_);
  dispatch_clock_ = DispatchClock(nxcd_, ncus_, d_.launch.cta_dispatch_cycles, d_.sm.block_launch_cycles, false);
}

void AmdMachine::describe_instructions() {
  // scoreboard numbering: SGPRs in hardware numbering, then the VGPRs and AGPRs the code names
  vgpr_base_ = A::kSgprFileSize;
  agpr_base_ = vgpr_base_ + std::max(p_.max_vgpr, k_.vgprs());
  itime_.resize(p_.insts.size());
  for (std::size_t i = 0; i < p_.insts.size(); ++i) {
    const A::Inst& in = p_.insts[i];
    if (in.op == A::Op::Unknown || in.op == A::Op::Invalid || in.fmt == A::Fmt::None) continue;  // executing it is the functional model's error
    itime_[i] = describe(in);
  }
}

std::uint64_t AmdMachine::slice_ctas(int units) const {
  const auto x = static_cast<std::uint64_t>(part_xcds());
  const auto k = static_cast<std::uint64_t>(units / slice_granule());
  return grid_ctas() / x * k + std::min(grid_ctas() % x, k);
}

std::optional<std::uint64_t> AmdMachine::probe_cta(std::uint64_t id, std::uint64_t max_insts) {
  const std::uint64_t before = k_.wave_instructions();
  auto run = [&] { k_.memory().run_undone([&] { k_.make_workgroup(id)->run(); }); };
  if (!probe_alone(k_, max_insts, run)) return std::nullopt;
  return k_.wave_instructions() - before;
}

// A slice's XCDs would fetch the data every workgroup shares (a GEMM operand, a table) from HBM
// at the slice's share of its bandwidth, where on the chip the first XCD to read a line brings it
// into the MALL for the others. So the MALL starts as the workgroups of as many other XCDs as
// the slice has leave it: run functionally (untimed), the last first, until every MALL set is
// full or they have run `max_insts` wave instructions (one XCD's work can be many times the
// budget). The slice's L2s need no warm-up: only the slice's own workgroups use them.
std::string AmdMachine::warm_up(std::uint64_t max_insts, bool previous_launch) {
  const std::uint64_t grid = grid_ctas();
  const std::uint64_t start = k_.wave_instructions();
  warm_begin_ = grid;
  for (std::uint64_t id = grid; id-- > 0 && k_.wave_instructions() - start < max_insts;) {
    if (!warm_xcd(id)) continue;
    // a workgroup that spins on others that have not run (a decoupled look-back) or does not end
    // within kProbeBudgets x `max_insts` ends the warm-up; it runs later
    if (!probe_alone(k_, kProbeBudgets * max_insts, [&] { warm_workgroup(id, false); })) break;
    warm_begin_ = id;
    if (mem_->warm_workgroup_done()) break;
  }
  return previous_launch ? replay_previous_launch(max_insts) : std::string();
}

// cache: warm. Older than what the slice's neighbours leave, the caches hold what a previous run
// of the launch left: the slice's workgroups run again untimed, the last first and each with its
// writes undone, their lines going into their XCD's L2 (clean: that kernel's end wrote them back)
// and what they loaded into the MALL, until every L2 and the MALL are full, the grid is done, a
// workgroup cannot run alone, or kWarmReplayBudgets detail budgets of instructions ran. The vL1Ds
// start cold (a kernel's start invalidates them).
std::string AmdMachine::replay_previous_launch(std::uint64_t max_insts) {
  const std::uint64_t start = k_.wave_instructions(), cap = max_insts * kWarmReplayBudgets;
  std::uint64_t id = grid_ctas(), last = id, replayed = 0;
  bool alone = true, full = false;
  while (!full && id > 0 && k_.wave_instructions() - start < cap) {
    if (!in_slice(--id)) continue;
    k_.memory().run_undone([&] { alone = probe_alone(k_, kProbeBudgets * max_insts, [&] { warm_workgroup(id, true); }); });
    if (!alone) break;
    ++replayed;
    last = id;
    full = mem_->replay_workgroup_done(static_cast<int>(id % static_cast<std::uint64_t>(part_xcds())));
  }
  if (replayed == 0) return "cache warm: the last workgroup cannot run alone, the caches start cold";
  const std::string why = full ? "until every L2 and the MALL were full" : !alone ? "up to one that cannot run alone" : id == 0 ? "the whole grid" : "stopped at its instruction budget";
  return "cache warm: the L2s and MALL as a previous run left them (" + std::to_string(replayed) + " workgroups from " + std::to_string(last) +
         " to the last replayed untimed, the last first, writes undone: " + why + ")";
}

// Runs workgroup `id` functionally, its global loads warming the MALL (warm_up); `previous`: its
// global loads and stores replaying a previous launch into its L2 and the MALL.
void AmdMachine::warm_workgroup(std::uint64_t id, bool previous) {
  auto wg = k_.make_workgroup(id);
  const int nw = wg->num_waves();
  for (bool progressed = true; progressed && !wg->done();) {
    progressed = false;
    for (int w = 0; w < nw; ++w)
      for (int n = 0; n < 256 && !wg->wave_done(w) && !wg->wave_waiting(w); ++n) {
        const AmdStepInfo info = wg->step(w);
        progressed = true;
        if (info.kind != AmdStepInfo::Kind::Executed || !(info.spaces & AmdStepInfo::kGlobal)) continue;
        const A::Inst& in = p_.insts[info.pc];
        // a previous launch's atomics left no line in the L2 (it gives its copy up to the
        // memory-side atomic units)
        const bool store = in.mem.kind == A::MemKind::Store;
        if (itime_[info.pc].kind != Kind::Vmem || (store && !previous) || (previous && in.mem.kind == A::MemKind::Atomic)) continue;
        std::uint64_t global = 0, lds = 0, scratch = 0;
        wg->lane_spaces(w, global, lds, scratch);
        if (previous)
          mem_->replay(wg->lane_addresses(w), global, in.mem.bytes, !store);
        else
          mem_->warm(wg->lane_addresses(w), global, in.mem.bytes);
      }
  }
}

std::string AmdMachine::slice_text(int units) const {
  const int x = part_xcds();
  std::uint64_t warmed_n = 0;
  for (std::uint64_t id = warm_begin_; id < grid_ctas(); ++id) warmed_n += warmed(id) ? 1 : 0;
  const std::string xcds = nxcd_ == 1 ? "XCD 0" : "XCDs 0-" + std::to_string(nxcd_ - 1);
  const std::string others = nxcd_ == 1 ? "XCD " + std::to_string(nxcd_) : "XCDs " + std::to_string(nxcd_) + "-" + std::to_string(2 * nxcd_ - 1);
  return "CU slice: " + std::to_string(units) + " of " + std::to_string(d_.sm.count) + " CUs (" + xcds + " of " + std::to_string(x) +
         ", each XCD with its own L2) ran the " + std::to_string(slice_ctas(units)) + " of " + std::to_string(grid_ctas()) +
         " workgroups dispatched to them (workgroup i goes to XCD i mod " + std::to_string(x) +
         ") with that share of MALL capacity and bandwidth, HBM bandwidth and atomics (MALL as " + std::to_string(warmed_n) +
         " workgroups of " + others + " leave it: they ran, the last first, stopping once every MALL set was full or they had run the detail budget)";
}

// The first round: workgroup slots in order, each XCD's CUs in turn, XCD by XCD.
void AmdMachine::fill(double t) {
  for (int slot = 0; slot < occ_.blocks_per_unit; ++slot)
    for (int i = 0; i < cus_per_xcd_; ++i)
      for (int x = 0; x < nxcd_; ++x) {
        const int c = x * cus_per_xcd_ + i;
        if (!dispatch_->empty(x)) launch_wg(c, slot, dispatch_->next(x), t);
      }
}

// ---------------------------------------------------------------------------------------------
// workgroups

void AmdMachine::set_residency(Cu& cu, int c, double now, int delta) {
  if (now > cu.resident_since) lis_.on_residency(c, cu.resident, cu.resident_since, now);
  cu.resident_since = now;
  cu.resident += delta;
}

void AmdMachine::launch_wg(int c, int slot, std::uint64_t id, double t) {
  Cu& cu = cus_[static_cast<std::size_t>(c)];
  WgSlot& g = cu.wgs[static_cast<std::size_t>(slot)];
  // each XCD's workgroup manager hands out one workgroup per dispatch interval; a CU starts
  // workgroups no closer together than its launch interval
  t = dispatch_clock_.start(c / cus_per_xcd_, c, t);
  g.wg = k_.make_workgroup(id);
  g.id = id;
  g.active = true;
  g.start = t;
  g.insts = 0;
  g.waves_left = g.wg->num_waves();
  g.waves.clear();
  for (int wi = 0; wi < g.waves_left; ++wi) place_wave(c, cu, g, slot, wi, t);
  set_residency(cu, c, t, g.waves_left);
  for (const auto& s : cu.simds) cu.next = std::min(cu.next, s.next);
}

// The SIMD with the fewest resident waves (the lowest-numbered on ties) takes wave wi.
void AmdMachine::place_wave(int c, Cu& cu, WgSlot& g, int slot, int wi, double t) {
  int best = -1;
  std::size_t fewest = ~std::size_t{0};
  for (int s = 0; s < nsimd_; ++s) {
    const std::size_t n = cu.simds[static_cast<std::size_t>(s)].waves.size();
    if (n < fewest && n < static_cast<std::size_t>(slots_per_simd_)) { fewest = n; best = s; }
  }
  if (best < 0) throw Error(ErrorKind::Internal, "kernsim bug: no free wave slot on a CU the occupancy said had room");
  int widx = -1;
  for (int k = 0; k < slots_per_simd_ && widx < 0; ++k) {
    const int cand = best * slots_per_simd_ + k;
    if (cu.waves[static_cast<std::size_t>(cand)].live || std::find(g.waves.begin(), g.waves.end(), cand) != g.waves.end()) continue;
    const auto& sw = cu.simds[static_cast<std::size_t>(best)].waves;
    if (std::find(sw.begin(), sw.end(), cand) == sw.end()) widx = cand;
  }
  Wave& w = cu.waves[static_cast<std::size_t>(widx)];
  w.live = true;
  w.at_barrier = false;
  w.slot = slot;
  w.widx = wi;
  w.simd = best;
  w.prio = 0;
  w.age = age_++;
  w.ready = t;
  w.ready_why = Stall::ExecutionDependency;
  w.sb.reset(t);
  w.counters.reset(t);
  w.pc = g.wg->next_pc(wi);
  g.wg->place(wi, placement(c, best, widx - best * slots_per_simd_));
  refresh(w);
  g.waves.push_back(widx);
  Simd& s = cu.simds[static_cast<std::size_t>(best)];
  s.waves.push_back(widx);
  s.next = std::min(s.next, opportunity(s, t));
}

// What HW_ID and XCC_ID report for a wave on CU c, SIMD simd, wave slot k: the CU's XCD, and its
// index within the XCD spread over HW_ID's CU_ID (4 bits), SH_ID (1) and SE_ID (2) fields. The
// device file does not say how an XCD's CUs divide into shader engines and arrays, so this split
// is kernsim's; it gives every CU of the part a distinct (XCC_ID, SE_ID, SH_ID, CU_ID).
AmdPlacement AmdMachine::placement(int c, int simd, int k) const {
  AmdPlacement p;
  const auto local = static_cast<std::uint32_t>(c % cus_per_xcd_);
  p.xcc = static_cast<std::uint32_t>(c / cus_per_xcd_);
  p.cu = local & 0xfu;
  p.sh = (local >> 4) & 1u;
  p.se = local >> 5;
  p.simd = static_cast<std::uint32_t>(simd);
  p.slot = static_cast<std::uint32_t>(k);
  return p;
}

void AmdMachine::finish_wg(int c, int slot, double t) {
  Cu& cu = cus_[static_cast<std::size_t>(c)];
  WgSlot& g = cu.wgs[static_cast<std::size_t>(slot)];
  lis_.on_cta(c, g.id, g.start, t);
  for (int wi : g.waves) {
    Wave& w = cu.waves[static_cast<std::size_t>(wi)];
    auto& sw = cu.simds[static_cast<std::size_t>(w.simd)].waves;
    sw.erase(std::remove(sw.begin(), sw.end(), wi), sw.end());
  }
  g.active = false;
  g.wg.reset();
  ++wgs_done_;
  done_wg_insts_ += g.insts;
  last_end_ = std::max(last_end_, t);
  set_residency(cu, c, t, -static_cast<int>(g.waves.size()));
  const int xcd = c / cus_per_xcd_;
  if (!stop_ && !hold_ && !dispatch_->empty(xcd)) launch_wg(c, slot, dispatch_->next(xcd), t);
}

// ---------------------------------------------------------------------------------------------
// issue

double AmdMachine::opportunity(const Simd& s, double t) const {
  if (t == kInf) return kInf;
  const double k = std::ceil((t - kEps - s.phase) / interval_);
  return s.phase + std::max(0.0, k) * interval_;
}

// When the wave's next instruction has its operands and its wait counters allow it (not counting
// the units other waves occupy). Called only when the wave's state changes.
void AmdMachine::refresh(Wave& w) {
  if (!w.live) return;
  const A::Inst& in = p_.insts[w.pc];
  const ITime& it = itime_[w.pc];
  Stall why = w.ready_why;
  bool waited = false;
  double t = w.sb.ready(it.reads, it.nreads, it.mfma_src_c, mfma_extra_, w.ready, waited);
  if (waited) why = Stall::ExecutionDependency;
  auto need = [&](double v) {
    if (v > t) { t = v; why = Stall::MemoryDependency; }
  };
  switch (it.kind) {
    case Kind::Waitcnt:
      need(w.counters.vm_at_most(in.wait_vm, w.ready));
      need(w.counters.lgkm_at_most(in.wait_lgkm, w.ready));
      break;
    case Kind::Vmem: case Kind::L2WriteBack: case Kind::L1Invalidate:
      need(w.counters.vm_at_most(vm_max_ - 1, w.ready));  // a full counter stalls the issue
      break;
    case Kind::Lds: case Kind::Smem: case Kind::SmemStore: case Kind::Clock: case Kind::ScalarCacheOp:
      need(w.counters.lgkm_at_most(lgkm_max_ - 1, w.ready));
      break;
    default:
      break;
  }
  w.dep_ready = t;
  w.dep_why = why;
}

// When the functional unit the wave's next instruction needs is free.
double AmdMachine::unit_free(const Cu& cu, const Simd& s, const Wave& w, Stall& why) const {
  const ITime& it = itime_[w.pc];
  why = Stall::PipeBusy;
  switch (it.kind) {
    case Kind::Valu: return s.valu_free;
    case Kind::Mfma: return std::max(s.valu_free, s.xdl_free);
    case Kind::Salu: return s.salu_free;
    case Kind::Branch: return s.branch_free;
    case Kind::Vmem: case Kind::L2WriteBack: case Kind::L1Invalidate: return cu.vmem_free;
    // LDS instructions queue at the SIMD pair's port and at the banks (FIFO servers in the memory
    // model) rather than holding the issue until the port is idle: a SIMD issues at most one per
    // opportunity and a wave keeps at most lgkm_counter_max in flight, which bounds the queue.
    // (Holding the issue made a port faster than one instruction per issue interval unreachable:
    // the pair's other SIMD, one cycle out of phase, found it busy at every opportunity.)
    case Kind::Lds: return 0;
    default: return 0;
  }
}

double AmdMachine::step(int c, double now) {
  Cu& cu = cus_[static_cast<std::size_t>(c)];
  for (int si = 0; si < nsimd_; ++si) {
    Simd& s = cu.simds[static_cast<std::size_t>(si)];
    if (s.next > now) continue;
    arbitrate(c, cu, s, si, now);
    if (stop_) return cu.next;
  }
  // the CU's next event, read once every SIMD had its turn (issuing may have launched a
  // workgroup, which only moves SIMDs' next events earlier)
  double cu_next = kInf;
  for (const auto& s : cu.simds) cu_next = std::min(cu_next, s.next);
  cu.next = cu_next;
  return cu_next;
}

// One issue opportunity of SIMD s: its waves in arbitration order, at most one instruction per
// wave and one per port; or why it issues nothing.
void AmdMachine::arbitrate(int c, Cu& cu, Simd& s, int si, double now) {
  if (s.waves.size() > order_.size()) order_.resize(s.waves.size());
  int* const order = order_.data();
  int n = 0;
  bool any_live = false, all_barrier = true;
  for (int wi : s.waves) {
    const Wave& w = cu.waves[static_cast<std::size_t>(wi)];
    if (!w.live) continue;
    any_live = true;
    if (w.at_barrier) continue;
    all_barrier = false;
    order[n++] = wi;
  }
  std::sort(order, order + n, [&](int a, int b) {
    const Wave& x = cu.waves[static_cast<std::size_t>(a)];
    const Wave& y = cu.waves[static_cast<std::size_t>(b)];
    return OldestFirstByPriority::key(x.prio, x.age) < OldestFirstByPriority::key(y.prio, y.age);
  });
  unsigned used = 0;
  int issued = 0, earliest_w = -1;
  double earliest = kInf;
  Stall earliest_why = Stall::Idle;
  for (int i = 0; i < n; ++i) {
    const int wi = order[i];
    Wave& w = cu.waves[static_cast<std::size_t>(wi)];
    double t = w.dep_ready;
    Stall why = w.dep_why, uwhy;
    const double uf = unit_free(cu, s, w, uwhy);
    if (uf > t) { t = uf; why = uwhy; }
    const ITime& it = itime_[w.pc];
    const unsigned bit = it.port == Port::Internal ? 0u : 1u << static_cast<unsigned>(it.port);
    if (t <= now + kEps && (used & bit)) { t = now + interval_; why = Stall::PipeBusy; }
    if (t > now + kEps) {
      if (t < earliest) { earliest = t; earliest_why = why; earliest_w = wi; }
      continue;
    }
    if (!issued && now > s.idle_since) lis_.on_stall({c, si, s.why, s.idle_since, now - s.idle_since, s.wait_wave, s.wait_pc});
    issue(c, cu, s, wi, now);
    used |= bit;
    ++issued;
    if (stop_) return;
  }
  if (issued) {
    s.idle_since = now + interval_;
    s.next = now + interval_;
    return;
  }
  s.next = std::max(opportunity(s, earliest), now + interval_);
  s.why = !any_live ? Stall::Idle : all_barrier ? Stall::Barrier : earliest_why;
  s.wait_wave = s.why == Stall::Idle || all_barrier ? -1 : earliest_w;
  s.wait_pc = s.wait_wave >= 0 ? cu.waves[static_cast<std::size_t>(s.wait_wave)].pc : kNoPc;
}

// Executes wave wi's next instruction functionally and times it.
void AmdMachine::issue(int c, Cu& cu, Simd& s, int wi, double now) {
  Wave& w = cu.waves[static_cast<std::size_t>(wi)];
  WgSlot& g = cu.wgs[static_cast<std::size_t>(w.slot)];
  const std::uint32_t pc = w.pc;
  const A::Inst& in = p_.insts[pc];
  ITime& it = itime_[pc];
  if (it.kind == Kind::Mfma && !it.resolved) resolve_mfma(pc, it);
  if (it.kind == Kind::Clock)  // s_memtime / s_memrealtime read the model's clock at issue
    k_.set_clock(static_cast<std::uint64_t>(now), static_cast<std::uint64_t>(now * d_.clocks.realtime_mhz / d_.clocks.core_mhz));
  const AmdStepInfo info = g.wg->step(w.widx);
  ++timed_insts_;
  ++g.insts;
  const int lanes = info.vector ? std::popcount(info.active) : 1;
  active_ = info.active;
  w.ready = now + interval_;  // one instruction per wave per issue opportunity
  w.ready_why = Stall::ExecutionDependency;
  const double busy = execute(c, cu, s, w, in, it, now);
  const double flops = it.kind == Kind::Valu ? it.flops * lanes : it.kind == Kind::Mfma ? it.flops : 0.0;
  lis_.on_issue({c, w.simd, wi, g.id, pc, in.unit, lanes, flops, busy, now});
  w.pc = info.next_pc;
  if (info.kind == AmdStepInfo::Kind::BarrierWait) w.at_barrier = true;
  if (info.released_barrier) release_barrier(cu, w, g, info, now);
  if (info.kind == AmdStepInfo::Kind::Exited) {
    w.live = false;
    drain_ = std::max(drain_, w.counters.drain());
    if (--g.waves_left == 0) finish_wg(c, w.slot, now + interval_);
    return;
  }
  refresh(w);
}

// What the instruction does to its SIMD's ports, its wave and the memory system; returns the
// cycles its unit is busy.
double AmdMachine::execute(int c, Cu& cu, Simd& s, Wave& w, const A::Inst& in, const ITime& it, double now) {
  auto writes = [&](double when, bool mfma) { w.sb.write(it.writes, it.nwrites, when, mfma, now, now + interval_); };
  switch (it.kind) {
    case Kind::Valu:
      s.valu_free = now + it.busy;
      writes(now + it.latency, false);
      return it.busy;
    case Kind::Salu:
      s.salu_free = now + it.busy;
      writes(now + it.latency, false);
      return it.busy;
    case Kind::Branch:
      s.branch_free = now + it.busy;
      w.ready = std::max(w.ready, now + it.latency);  // the wave fetches from the target
      writes(now + it.latency, false);
      return it.busy;
    case Kind::Mfma:
      s.xdl_free = now + it.busy;
      s.valu_free = std::max(s.valu_free, now + it.valu_block);
      writes(now + it.latency, true);
      return it.busy;
    case Kind::Nop:
      w.ready = now + interval_ * (1 + (sopp_imm(in) & 0xf));
      return 0;
    case Kind::Sleep:
      w.ready = now + interval_ + sleep_unit_ * (sopp_imm(in) & 0x7f);
      w.ready_why = Stall::Idle;
      return 0;
    case Kind::Setprio:
      w.prio = sopp_imm(in) & 3;
      return 0;
    case Kind::Waitcnt: case Kind::Barrier: case Kind::Endpgm: case Kind::NoEffect:
      return 0;
    default:
      memory(c, cu, w, in, it, now);
      return 0;
  }
}

// The waves a completed barrier releases may issue the barrier unit's latency later.
void AmdMachine::release_barrier(Cu& cu, Wave& w, WgSlot& g, const AmdStepInfo& info, double now) {
  const double t_rel = g.barrier.release(now);
  for (int wj : g.waves) {
    Wave& o = cu.waves[static_cast<std::size_t>(wj)];
    if (!o.live || !o.at_barrier || g.wg->wave_waiting(o.widx)) continue;
    o.at_barrier = false;
    o.ready = std::max(o.ready, t_rel);
    o.ready_why = Stall::Barrier;
    refresh(o);
    Simd& os = cu.simds[static_cast<std::size_t>(o.simd)];
    os.next = std::min(os.next, opportunity(os, o.ready));
  }
  if (info.kind != AmdStepInfo::Kind::Exited) {
    w.at_barrier = false;
    w.ready = std::max(w.ready, t_rel);
    w.ready_why = Stall::Barrier;
  }
}

// Memory instructions: the memory model says when the data is back (or the write acknowledged)
// and when the CU's pipeline takes the next one; the wait counters record the completions.
void AmdMachine::memory(int c, Cu& cu, Wave& w, const A::Inst& in, const ITime& it, double now) {
  WgSlot& g = cu.wgs[static_cast<std::size_t>(w.slot)];
  const std::uint64_t* addrs = g.wg->lane_addresses(w.widx);
  WaitCounters& wc = w.counters;
  const A::MemOp& m = in.mem;
  switch (it.kind) {
    case Kind::Smem: wc.push_other(now, mem_->scalar_load(c, now, addrs[0], m.bytes)); return;
    case Kind::SmemStore: wc.push_other(now, mem_->scalar_store(c, now, addrs[0], m.bytes)); return;
    case Kind::Clock: case Kind::ScalarCacheOp:
      if (in.op == A::Op::s_dcache_inv || in.op == A::Op::s_dcache_inv_vol) mem_->invalidate_scalar(c);
      wc.push_other(now, now + sl1_lat_);
      return;
    case Kind::L2WriteBack: {
      const double done = mem_->write_back_l2(mem_->xcd_of(c), now);
      cu.vmem_free = std::max(cu.vmem_free, now + interval_);
      wc.push_vm(now, done);
      return;
    }
    case Kind::L1Invalidate:
      mem_->invalidate_l1(c);
      cu.vmem_free = std::max(cu.vmem_free, now + interval_);
      wc.push_vm(now, now + l1_lat_);
      return;
    case Kind::Lds: case Kind::Vmem: {
      // for the views: the lines (vector) or wavefronts (LDS) the access took
      const mem::MemCounters& mc = mem_->counters();
      const std::uint64_t before = it.kind == Kind::Lds ? mc.shared_wavefronts : mc.requests[static_cast<int>(mem::Level::L1)];
      const double done = it.kind == Kind::Lds ? lds_access(c, w, in, addrs, now) : vector_access(c, cu, w, in, addrs, now);
      if (it.kind == Kind::Lds) wc.push_lds(now, done);
      const std::uint64_t after = it.kind == Kind::Lds ? mc.shared_wavefronts : mc.requests[static_cast<int>(mem::Level::L1)];
      const int lanes = std::popcount(active_);
      lis_.on_memory_access({c, static_cast<int>(&w - cu.waves.data()), static_cast<std::uint32_t>(&in - p_.insts.data()),
                             it.kind == Kind::Lds ? mem::Level::Shared : mem::Level::L1, m.kind == A::MemKind::Store, m.kind == A::MemKind::Atomic,
                             lanes, static_cast<std::uint32_t>(lanes) * m.bytes, static_cast<std::uint32_t>(after - before), now, done});
      return;
    }
    default:
      throw Error(ErrorKind::Internal, "kernsim bug: AMD memory() called for " + p_.describe(in));
  }
}

double AmdMachine::lds_access(int c, Wave& w, const A::Inst& in, const std::uint64_t* addrs, double now) {
  const A::MemOp& m = in.mem;
  const std::uint64_t mask = active_;  // every lane the instruction ran under takes part
  const mem::LdsAccess kind = m.kind == A::MemKind::Load    ? mem::LdsAccess::Load
                              : m.kind == A::MemKind::Store ? mem::LdsAccess::Store
                              : m.kind == A::MemKind::Atomic ? (m.returns ? mem::LdsAccess::AtomicReturn : mem::LdsAccess::Atomic)
                                                              : mem::LdsAccess::Permute;
  const std::uint64_t* a1 = nullptr;
  if (m.two) {
    const std::uint64_t unit = static_cast<std::uint64_t>(m.bytes) * (m.st64 ? 64u : 1u);
    for (int l = 0; l < 64; ++l)
      a1_[l] = addrs[l] - static_cast<std::uint64_t>(static_cast<std::uint32_t>(in.offset)) * unit +
               static_cast<std::uint64_t>(static_cast<std::uint32_t>(in.offset1)) * unit;
    a1 = a1_;
  }
  return mem_->lds(c, w.simd, now, addrs, a1, mask, m.bytes, kind).done;
}

// A vector memory instruction's lanes split by the space their addresses resolved to: global,
// scratch (swizzled per wave: dword i of every lane's private segment is contiguous) and, for
// flat accesses, the LDS.
double AmdMachine::vector_access(int c, Cu& cu, Wave& w, const A::Inst& in, const std::uint64_t* addrs, double now) {
  const A::MemOp& m = in.mem;
  std::uint64_t global = 0, lds = 0, scratch = 0;
  cu.wgs[static_cast<std::size_t>(w.slot)].wg->lane_spaces(w.widx, global, lds, scratch);
  const mem::AmdAccess kind = m.kind == A::MemKind::Store   ? mem::AmdAccess::Store
                              : m.kind == A::MemKind::Atomic ? (m.is_float ? mem::AmdAccess::AtomicFloat : mem::AmdAccess::Atomic)
                              : in.glc                      ? mem::AmdAccess::LoadBypassL1
                                                            : mem::AmdAccess::Load;
  double done = now + interval_, accepted = now;
  auto take = [&](const mem::AmdMemTiming& mt) {
    done = std::max(done, mt.done);
    accepted = std::max(accepted, mt.accepted);
  };
  if (global) take(mem_->vector(c, now, addrs, global, m.bytes, kind));
  if (scratch) {
    const int wslot = static_cast<int>(&w - cu.waves.data());
    const std::uint64_t base = (std::uint64_t{0xE000} << 32) + (static_cast<std::uint64_t>(c) * cu.waves.size() + static_cast<std::uint64_t>(wslot)) * scratch_stride_;
    for (std::uint32_t off = 0; off < m.bytes; off += 4) {
      for (std::uint64_t mm = scratch; mm;) {
        const int l = std::countr_zero(mm);
        mm &= mm - 1;
        const std::uint64_t a = addrs[l] + off;
        swz_[l] = base + (a / 4) * 256 + static_cast<std::uint64_t>(l) * 4 + (a % 4);
      }
      take(mem_->vector(c, now, swz_, scratch, std::min<std::uint32_t>(4, m.bytes - off), kind));
    }
  }
  if (lds) {  // flat accesses that resolved to the LDS
    const bool atomic = kind == mem::AmdAccess::Atomic || kind == mem::AmdAccess::AtomicFloat;
    const mem::LdsAccess lk = kind == mem::AmdAccess::Store ? mem::LdsAccess::Store : atomic ? mem::LdsAccess::AtomicReturn : mem::LdsAccess::Load;
    done = std::max(done, mem_->lds(c, w.simd, now, addrs, nullptr, lds, m.bytes, lk).done);
  }
  if (in.lds_dma) {  // the loaded bytes go on into the LDS (booked at issue: the banks serve in request order)
    const std::uint64_t base = cu.wgs[static_cast<std::size_t>(w.slot)].wg->lds_dma_base(w.widx);
    const std::uint64_t slot = m.bytes <= 4 ? 4 : 16;
    for (int l = 0; l < 64; ++l) swz_[l] = base + static_cast<std::uint64_t>(l) * slot;
    done = std::max(done, mem_->lds(c, w.simd, now, swz_, nullptr, global, m.bytes, mem::LdsAccess::DmaWrite).done);
  }
  cu.vmem_free = std::max(cu.vmem_free, accepted);
  w.counters.push_vm(now, done);
  if (m.space == A::Space::Flat) w.counters.push_other(now, done);  // flat counts in lgkmcnt too
  return done;
}

// ---------------------------------------------------------------------------------------------
// the sampler's interface

// Stops every workgroup in flight (kept for a later functional completion) and clears the CUs'
// timing state, so that a second detailed window can start from fresh workgroups.
void AmdMachine::abandon_in_flight(double now, const std::vector<std::uint64_t>& /*keep: can_keep_in_flight() is false*/) {
  for (int c = 0; c < ncus_; ++c) {
    Cu& cu = cus_[static_cast<std::size_t>(c)];
    set_residency(cu, c, now, -cu.resident);
    for (auto& g : cu.wgs)
      if (g.active) abandoned_.push_back(std::move(g));
    for (auto& g : cu.wgs) {
      g.wg.reset();
      g.active = false;
      g.waves.clear();
    }
    for (auto& w : cu.waves) w.live = false;
    for (auto& s : cu.simds) {
      s.waves.clear();
      s.valu_free = s.xdl_free = s.salu_free = s.branch_free = now;
      s.next = kInf;
      s.idle_since = now;
    }
    cu.vmem_free = now;
    cu.next = kInf;
  }
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> AmdMachine::in_flight() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
  for (const auto& cu : cus_)
    for (const auto& g : cu.wgs)
      if (g.active) v.push_back({g.id, g.insts});
  return v;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> AmdMachine::run_in_flight(const std::vector<std::uint64_t>& ids, std::uint64_t max_insts) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
  const std::uint64_t first = k_.wave_instructions();
  for (auto& cu : cus_)
    for (auto& g : cu.wgs) {
      if (!g.active || !g.wg || std::find(ids.begin(), ids.end(), g.id) == ids.end()) continue;
      const std::uint64_t before = k_.wave_instructions(), used = before - first;
      if (used >= max_insts) return v;
      const bool ended = probe_alone(k_, max_insts - used, [&] { g.wg->run(); });
      v.push_back({g.id, k_.wave_instructions() - before});
      if (!ended) return v;
    }
  return v;
}

void AmdMachine::complete_started() {
  for (auto& g : abandoned_)
    if (g.wg) g.wg->run();
  for (auto& cu : cus_)
    for (auto& g : cu.wgs)
      if (g.active) g.wg->run();
  dispatch_->for_each_remaining([&](std::uint64_t id) { k_.make_workgroup(id)->run(); });
}

void AmdMachine::close_window(double end, bool stopped) {
  for (int c = 0; c < ncus_; ++c) set_residency(cus_[static_cast<std::size_t>(c)], c, end, 0);
  for (int c = 0; c < ncus_; ++c)
    for (int si = 0; si < nsimd_; ++si) {
      const Simd& s = cus_[static_cast<std::size_t>(c)].simds[static_cast<std::size_t>(si)];
      if (end <= s.idle_since) continue;
      const bool waiting = s.why != Stall::Idle && stopped;
      lis_.on_stall({c, si, waiting ? s.why : Stall::Idle, s.idle_since, end - s.idle_since, waiting ? s.wait_wave : -1, waiting ? s.wait_pc : kNoPc});
    }
}

}  // namespace

TimingResult time_amd_kernel(const device::DeviceSpec& dev, AmdKernel& kernel, const AmdResources& res, const TimingOptions& opts,
                             Listener& listener) {
  if (dev.vendor != device::Vendor::Amd)
    throw Error(ErrorKind::Unsupported, "AMDGCN kernels run on AMD devices; " + dev.name + " is an NVIDIA part");
  AmdMachine machine(dev, kernel, res, listener);
  return Sampler(machine, opts, listener).run();
}

}  // namespace kernsim::sim
