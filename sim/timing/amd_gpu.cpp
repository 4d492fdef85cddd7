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
// the same program. Sampling follows the NVIDIA model: workgroups are timed in detail until a
// budget of wave instructions is spent, then the rest is extrapolated at the steady rate
// (sim/timing/sampling.h), from a second window of fresh workgroups when the first wave of
// workgroups is still running.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
#include "sim/timing/sampling.h"
#include "sim/timing/timing.h"

namespace kernsim::sim {

namespace A = isa::amdgcn;
using isa::Unit;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRealtimeMhz = 100;  // s_memrealtime's constant clock on gfx9 (REFCLK)
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

struct RegRange {
  std::uint16_t first = 0, count = 0;  // scoreboard indices
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
  // Scoreboard: the register ranges whose results are still being computed (VALU and SALU results
  // are ready one issue interval after issue, so few are pending at a time; a list of them stays
  // in cache where a per-register array for 300 CUs' waves would not).
  struct Pending {
    RegRange regs;
    bool mfma = false;  // written by an MFMA (accumulator forwarding)
    double ready = 0;
  };
  std::vector<Pending> pending;
  double horizon = 0;             // no pending result is later than this
  std::vector<double> vm;         // vector memory completions, in issue order (in-order decrement)
  std::size_t vm_head = 0;
  std::vector<double> lgkm_lds;   // LDS completions (in order)
  std::vector<double> lgkm_other; // scalar memory and flat completions (any order)
  double drain = 0;               // last completion of its memory operations
};

struct WgSlot {
  std::unique_ptr<AmdWorkgroup> wg;
  std::uint64_t id = 0;
  bool active = false;
  int waves_left = 0;
  double start = 0;
  std::uint64_t insts = 0;
  std::vector<int> waves;  // CU wave indices of its waves
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
  double last_wg_start = -1e30;
};

// Counts of outstanding operations: when at most `n` of `times` (completion times) are left.
double when_at_most(std::vector<double>& scratch, std::size_t n) {
  if (scratch.size() <= n) return 0;
  const std::size_t k = scratch.size() - n - 1;
  std::nth_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k), scratch.end());
  return scratch[k];
}

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

class AmdGpu {
 public:
  AmdGpu(const device::DeviceSpec& d, AmdKernel& k, const AmdResources& res, const TimingOptions& o, Listener& l)
      : d_(d), k_(k), p_(k.program()), res_(res), opts_(o), lis_(l) {}

  TimingResult run();

 private:
  void build_machine();
  ITime describe(const A::Inst& in) const;
  void resolve_mfma(std::uint32_t pc, ITime& t);
  const device::Pipe& pipe_of(Unit u) const;
  RegRange range_of(const A::Operand& o) const;
  // the machine
  void launch_wg(int c, int slot, std::uint64_t id, double t);
  void finish_wg(int c, int slot, double t);
  void refresh(Wave& w);
  double unit_free(const Cu& cu, const Simd& s, const Wave& w, Stall& why) const;
  double opportunity(const Simd& s, double t) const;
  void step_cu(int c, double now);
  void issue(int c, Cu& cu, Simd& s, int wi, double now);
  AmdPlacement placement(int c, int simd, int k) const;
  void memory(int c, Cu& cu, Wave& w, const A::Inst& in, const ITime& it, double now);
  void set_residency(Cu& cu, int c, double now, int delta);
  // sampling
  bool simulate(std::uint64_t budget, double& now);
  Progress checkpoint(double now) const { return {now, timed_insts_, mem_->shared_busy_cycles(false), mem_->shared_busy_cycles(true)}; }
  double work_per_wg();
  void restart_from_next_wave(double now);
  void first_fill(double t);

  const device::DeviceSpec& d_;
  AmdKernel& k_;
  const A::Program& p_;
  AmdResources res_;
  TimingOptions opts_;
  Listener& lis_;
  AmdOccupancy occ_;
  std::vector<ITime> itime_;
  int ncus_ = 0, nxcd_ = 1, cus_per_xcd_ = 1, nsimd_ = 4, wpb_ = 0, slots_per_simd_ = 8;
  int vgpr_base_ = 128, agpr_base_ = 128;  // scoreboard numbering: SGPRs, then VGPRs, then AGPRs
  double interval_ = 4, barrier_latency_ = 0, launch_cycles_ = 0, dispatch_cycles_ = 0;
  std::vector<double> next_dispatch_;  // per XCD: its workgroup manager's next dispatch
  double sleep_unit_ = 64, mfma_extra_ = 0, sl1_lat_ = 0, l1_lat_ = 0;
  std::size_t vm_max_ = 63, lgkm_max_ = 15;
  std::uint64_t scratch_stride_ = 0;  // bytes of swizzled scratch per wave slot
  std::vector<Cu> cus_;
  std::unique_ptr<mem::AmdMemorySystem> mem_;
  std::unique_ptr<XcdRoundRobin> dispatch_;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> pq_;
  std::uint64_t age_ = 0, timed_insts_ = 0, wgs_done_ = 0, done_wg_insts_ = 0;
  double last_end_ = 0, drain_ = 0;
  bool stop_ = false;
  std::vector<Progress> progress_;
  std::vector<WgSlot> abandoned_;
  std::vector<double> tmp_;
  std::uint64_t a1_[64] = {}, swz_[64] = {};
  std::uint64_t active_ = 0;  // exec mask of the instruction issuing
  std::uint64_t events_ = 0, visits_ = 0, idle_visits_ = 0;
};

// ---------------------------------------------------------------------------------------------
// assembly

const device::Pipe& AmdGpu::pipe_of(Unit u) const {
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

RegRange AmdGpu::range_of(const A::Operand& o) const {
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

ITime AmdGpu::describe(const A::Inst& in) const {
  using O = A::Op;
  ITime t;
  auto read = [&](RegRange r) {
    if (r.count && t.nreads < 8) t.reads[t.nreads++] = r;
  };
  auto write = [&](RegRange r) {
    if (r.count && t.nwrites < 2) t.writes[t.nwrites++] = r;
  };
  const RegRange exec{static_cast<std::uint16_t>(A::kSgprExec), 2}, vcc{static_cast<std::uint16_t>(A::kSgprVcc), 2};
  auto alu = [&](Kind k, Port p) {
    t.kind = k;
    t.port = p;
    const device::Pipe& pp = pipe_of(in.unit);
    t.busy = pp.issue_cycles;
    t.latency = pp.latency_cycles;
    for (int i = 0; i < in.nsrc; ++i) read(range_of(in.src[i]));
    for (int i = 0; i < in.ndst; ++i) write(range_of(in.dst[i]));
  };
  switch (in.fmt) {
    case A::Fmt::Vop1: case A::Fmt::Vop2: case A::Fmt::Vopc: case A::Fmt::Vop3: case A::Fmt::Vop3p:
      if (in.op == O::v_nop) {
        t.kind = Kind::Valu;
        t.port = Port::Valu;
        t.busy = d_.pipes.int_alu.issue_cycles;
        return t;
      }
      alu(Kind::Valu, Port::Valu);
      read(exec);
      t.flops = valu_flops(in);
      return t;
    case A::Fmt::Mfma:
      t.kind = Kind::Mfma;
      t.port = Port::Valu;
      for (int i = 0; i < in.nsrc; ++i) {
        if (i == 2) t.mfma_src_c = t.nreads;
        read(range_of(in.src[i]));
      }
      read(exec);
      for (int i = 0; i < in.ndst; ++i) write(range_of(in.dst[i]));
      t.flops = 2.0 * in.mfma.m * in.mfma.n * in.mfma.k * std::max<int>(1, in.mfma.blocks);
      return t;  // cycles resolve at first issue (resolve_mfma)
    case A::Fmt::Sop1: case A::Fmt::Sop2: case A::Fmt::Sopk: case A::Fmt::Sopc:
      if (in.unit == Unit::Branch) {  // s_setpc, s_swappc, s_call
        alu(Kind::Branch, Port::Branch);
        return t;
      }
      alu(Kind::Salu, Port::Salu);
      return t;
    case A::Fmt::Sopp:
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
          if (in.op == O::s_cbranch_vccz || in.op == O::s_cbranch_vccnz) read(vcc);
          if (in.op == O::s_cbranch_execz || in.op == O::s_cbranch_execnz) read(exec);
          return t;
        case O::s_set_gpr_idx_off: case O::s_set_gpr_idx_mode:
          alu(Kind::Salu, Port::Salu);
          return t;
        // hints and messages handled in the instruction buffer (no effect on a compute kernel's timing)
        case O::s_sendmsg: case O::s_icache_inv: case O::s_incperflevel: case O::s_decperflevel: case O::s_ttracedata:
        case O::s_code_end:
          t.kind = Kind::NoEffect;
          return t;
        default:
          break;
      }
      break;
    case A::Fmt::Smem:
      t.port = Port::Salu;
      switch (in.op) {
        case O::s_load: t.kind = Kind::Smem; break;
        case O::s_store: t.kind = Kind::SmemStore; break;
        case O::s_memtime: case O::s_memrealtime: t.kind = Kind::Clock; return t;
        case O::s_dcache_wb: case O::s_dcache_inv: case O::s_dcache_wb_vol: case O::s_dcache_inv_vol:
          t.kind = Kind::ScalarCacheOp;
          return t;
        default: break;
      }
      if (t.kind == Kind::Smem || t.kind == Kind::SmemStore) {
        for (int i = 0; i < in.nsrc; ++i) read(range_of(in.src[i]));
        return t;
      }
      break;
    case A::Fmt::Ds:
      t.kind = Kind::Lds;
      t.port = Port::Lds;
      for (int i = 0; i < in.nsrc; ++i) read(range_of(in.src[i]));
      read(exec);
      return t;
    case A::Fmt::Flat: case A::Fmt::Global: case A::Fmt::Scratch: case A::Fmt::Mubuf:
      t.port = Port::Vmem;
      if (in.op == O::vmem) {
        t.kind = Kind::Vmem;
        for (int i = 0; i < in.nsrc; ++i) read(range_of(in.src[i]));
        read(exec);
        return t;
      }
      if (in.op == O::buffer_wbl2) { t.kind = Kind::L2WriteBack; return t; }
      if (in.op == O::buffer_inv || in.op == O::buffer_wbinvl1 || in.op == O::buffer_wbinvl1_vol) { t.kind = Kind::L1Invalidate; return t; }
      break;
    default:
      break;
  }
  throw Error(ErrorKind::Unsupported, "the AMD timing model does not time " + p_.describe(in) + " (" + A::to_string(in.op) + ", format " +
                                          A::to_string(in.fmt) + ")");
}

// MFMA timing comes from the device file's table, keyed by the mnemonic (f8f6f4 forms by whether
// an operand is an 8-bit format: cbsz/blgp 0-1 = fp8/bf8, 2-3 = fp6/bf6, 4 = fp4).
void AmdGpu::resolve_mfma(std::uint32_t pc, ITime& t) {
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

void AmdGpu::build_machine() {
  ncus_ = static_cast<int>(d_.sm.count);
  nxcd_ = static_cast<int>(std::max<std::int64_t>(1, d_.topology.dies));
  cus_per_xcd_ = static_cast<int>(d_.topology.units_per_die);
  if (cus_per_xcd_ <= 0 || static_cast<std::int64_t>(cus_per_xcd_) * nxcd_ != d_.sm.count)
    throw Error(ErrorKind::DeviceFile, d_.file.string() + ": topology.dies x topology.units_per_die (" + std::to_string(nxcd_) + " x " +
                                           std::to_string(cus_per_xcd_) + ") must equal cu.count (" + std::to_string(d_.sm.count) + ")");
  nsimd_ = static_cast<int>(std::max<std::int64_t>(1, d_.sm.sub_partitions));
  interval_ = std::max(1.0, d_.sm.issue_interval_cycles);
  barrier_latency_ = d_.sm.barrier_latency_cycles;
  launch_cycles_ = d_.sm.block_launch_cycles;
  dispatch_cycles_ = d_.launch.cta_dispatch_cycles;
  sleep_unit_ = d_.sm.sleep_unit_cycles;
  mfma_extra_ = d_.sm.mfma_read_extra_cycles;
  sl1_lat_ = d_.scalar_l1.hit_latency_cycles;
  l1_lat_ = d_.l1.hit_latency_cycles;
  vm_max_ = static_cast<std::size_t>(std::max<std::int64_t>(1, d_.sm.vm_counter_max));
  lgkm_max_ = static_cast<std::size_t>(std::max<std::int64_t>(1, d_.sm.lgkm_counter_max));
  occ_ = compute_amd_occupancy(d_, res_);
  wpb_ = occ_.warps_per_block;
  slots_per_simd_ = occ_.waves_per_simd;
  // scoreboard numbering: SGPRs in hardware numbering, then the VGPRs and AGPRs the code names
  vgpr_base_ = A::kSgprFileSize;
  agpr_base_ = vgpr_base_ + std::max(p_.max_vgpr, k_.vgprs());
  itime_.resize(p_.insts.size());
  for (std::size_t i = 0; i < p_.insts.size(); ++i) {
    const A::Inst& in = p_.insts[i];
    if (in.op == A::Op::Unknown || in.op == A::Op::Invalid || in.fmt == A::Fmt::None) continue;  // executing it is the functional model's error
    itime_[i] = describe(in);
  }
  scratch_stride_ = ((static_cast<std::uint64_t>(k_.private_bytes()) + 3) / 4) * 4 * 64;
  mem_ = std::make_unique<mem::AmdMemorySystem>(d_, ncus_, cus_per_xcd_);
  cus_.resize(static_cast<std::size_t>(ncus_));
  for (auto& cu : cus_) {
    cu.simds.resize(static_cast<std::size_t>(nsimd_));
    for (int s = 0; s < nsimd_; ++s) cu.simds[static_cast<std::size_t>(s)].phase = interval_ * s / nsimd_;
    cu.wgs.resize(static_cast<std::size_t>(occ_.blocks_per_unit));
    cu.waves.resize(static_cast<std::size_t>(nsimd_ * slots_per_simd_));
    for (std::size_t w = 0; w < cu.waves.size(); ++w) {
      cu.waves[w].pending.reserve(16);
      cu.waves[w].simd = static_cast<int>(w) / slots_per_simd_;
    }
  }
  dispatch_ = std::make_unique<XcdRoundRobin>(nxcd_, k_.dims().num_blocks());
  next_dispatch_.assign(static_cast<std::size_t>(nxcd_), 0.0);
}

// ---------------------------------------------------------------------------------------------
// workgroups

void AmdGpu::set_residency(Cu& cu, int c, double now, int delta) {
  if (now > cu.resident_since) lis_.on_residency(c, cu.resident, cu.resident_since, now);
  cu.resident_since = now;
  cu.resident += delta;
}

void AmdGpu::launch_wg(int c, int slot, std::uint64_t id, double t) {
  Cu& cu = cus_[static_cast<std::size_t>(c)];
  WgSlot& g = cu.wgs[static_cast<std::size_t>(slot)];
  // each XCD's workgroup manager hands out one workgroup per dispatch interval; a CU starts
  // workgroups no closer together than its launch interval
  double& nd = next_dispatch_[static_cast<std::size_t>(c / cus_per_xcd_)];
  t = std::max({t, nd, cu.last_wg_start + launch_cycles_});
  nd = t + dispatch_cycles_;
  cu.last_wg_start = t;
  g.wg = k_.make_workgroup(id);
  g.id = id;
  g.active = true;
  g.start = t;
  g.insts = 0;
  g.waves_left = g.wg->num_waves();
  g.waves.clear();
  for (int wi = 0; wi < g.waves_left; ++wi) {
    // the SIMD with the fewest resident waves (the lowest-numbered on ties) takes the wave
    int best = -1;
    std::size_t fewest = ~std::size_t{0};
    for (int s = 0; s < nsimd_; ++s) {
      const std::size_t n = cu.simds[static_cast<std::size_t>(s)].waves.size();
      if (n < fewest && n < static_cast<std::size_t>(slots_per_simd_)) { fewest = n; best = s; }
    }
    if (best < 0) throw Error(ErrorKind::Internal, "kernsim bug: no free wave slot on a CU the occupancy said had room");
    int widx = -1;
    for (int k = 0; k < slots_per_simd_; ++k) {
      const int cand = best * slots_per_simd_ + k;
      if (!cu.waves[static_cast<std::size_t>(cand)].live &&
          std::find(g.waves.begin(), g.waves.end(), cand) == g.waves.end()) {
        bool taken = false;
        for (int other : cu.simds[static_cast<std::size_t>(best)].waves) taken |= other == cand;
        if (!taken) { widx = cand; break; }
      }
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
    w.pending.clear();
    w.horizon = t;
    w.vm.clear();
    w.vm_head = 0;
    w.lgkm_lds.clear();
    w.lgkm_other.clear();
    w.drain = t;
    w.pc = g.wg->next_pc(wi);
    g.wg->place(wi, placement(c, best, widx - best * slots_per_simd_));
    refresh(w);
    g.waves.push_back(widx);
    Simd& s = cu.simds[static_cast<std::size_t>(best)];
    s.waves.push_back(widx);
    s.next = std::min(s.next, opportunity(s, t));
  }
  set_residency(cu, c, t, g.waves_left);
  for (const auto& s : cu.simds) cu.next = std::min(cu.next, s.next);
}

// What HW_ID and XCC_ID report for a wave on CU c, SIMD simd, wave slot k: the CU's XCD, and its
// index within the XCD spread over HW_ID's CU_ID (4 bits), SH_ID (1) and SE_ID (2) fields. The
// device file does not say how an XCD's CUs divide into shader engines and arrays, so this split
// is kernsim's; it gives every CU of the part a distinct (XCC_ID, SE_ID, SH_ID, CU_ID).
AmdPlacement AmdGpu::placement(int c, int simd, int k) const {
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

void AmdGpu::finish_wg(int c, int slot, double t) {
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
  if (!stop_ && !dispatch_->empty(xcd)) launch_wg(c, slot, dispatch_->next(xcd), t);
}

// ---------------------------------------------------------------------------------------------
// issue

double AmdGpu::opportunity(const Simd& s, double t) const {
  if (t == kInf) return kInf;
  const double k = std::ceil((t - kEps - s.phase) / interval_);
  return s.phase + std::max(0.0, k) * interval_;
}

// When the wave's next instruction has its operands and its wait counters allow it (not counting
// the units other waves occupy). Called only when the wave's state changes.
void AmdGpu::refresh(Wave& w) {
  if (!w.live) return;
  const A::Inst& in = p_.insts[w.pc];
  const ITime& it = itime_[w.pc];
  double t = w.ready;
  Stall why = w.ready_why;
  if (w.horizon > t) {
    for (const Wave::Pending& p : w.pending) {
      if (p.ready <= t) continue;
      for (int r = 0; r < it.nreads; ++r) {
        const RegRange rr = it.reads[r];
        if (rr.first >= p.regs.first + p.regs.count || p.regs.first >= rr.first + rr.count) continue;
        const double v = (r == it.mfma_src_c && p.mfma) ? p.ready - mfma_extra_ : p.ready;  // accumulator forwarding
        if (v > t) { t = v; why = Stall::ExecutionDependency; }
      }
    }
  }
  auto outstanding = [&](const std::vector<double>& v, std::size_t from) {
    for (std::size_t i = from; i < v.size(); ++i)
      if (v[i] > w.ready) tmp_.push_back(v[i]);
  };
  auto need = [&](double v) {
    if (v > t) { t = v; why = Stall::MemoryDependency; }
  };
  if (it.kind == Kind::Waitcnt) {
    tmp_.clear();
    outstanding(w.vm, w.vm_head);
    need(when_at_most(tmp_, in.wait_vm));
    tmp_.clear();
    outstanding(w.lgkm_lds, 0);
    outstanding(w.lgkm_other, 0);
    need(when_at_most(tmp_, in.wait_lgkm));
  } else if (it.kind == Kind::Vmem || it.kind == Kind::L2WriteBack || it.kind == Kind::L1Invalidate) {
    tmp_.clear();
    outstanding(w.vm, w.vm_head);
    need(when_at_most(tmp_, vm_max_ - 1));  // a full counter stalls the issue
  } else if (it.kind == Kind::Lds || it.kind == Kind::Smem || it.kind == Kind::SmemStore || it.kind == Kind::Clock ||
             it.kind == Kind::ScalarCacheOp) {
    tmp_.clear();
    outstanding(w.lgkm_lds, 0);
    outstanding(w.lgkm_other, 0);
    need(when_at_most(tmp_, lgkm_max_ - 1));
  }
  w.dep_ready = t;
  w.dep_why = why;
}

// When the functional unit the wave's next instruction needs is free.
double AmdGpu::unit_free(const Cu& cu, const Simd& s, const Wave& w, Stall& why) const {
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

void AmdGpu::step_cu(int c, double now) {
  Cu& cu = cus_[static_cast<std::size_t>(c)];
  double cu_next = kInf;
  int order[64];
  for (int si = 0; si < nsimd_; ++si) {
    Simd& s = cu.simds[static_cast<std::size_t>(si)];
    if (s.next > now) {
      cu_next = std::min(cu_next, s.next);
      continue;
    }
    // waves in arbitration order
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
    int issued = 0;
    double earliest = kInf;
    Stall earliest_why = Stall::Idle;
    int earliest_w = -1;
    for (int i = 0; i < n; ++i) {
      Wave& w = cu.waves[static_cast<std::size_t>(order[i])];
      double t = w.dep_ready;
      Stall why = w.dep_why;
      Stall uwhy;
      const double uf = unit_free(cu, s, w, uwhy);
      if (uf > t) { t = uf; why = uwhy; }
      const ITime& it = itime_[w.pc];
      const unsigned bit = it.port == Port::Internal ? 0u : 1u << static_cast<unsigned>(it.port);
      if (t <= now + kEps && (used & bit)) { t = now + interval_; why = Stall::PipeBusy; }
      if (t > now + kEps) {
        if (t < earliest) { earliest = t; earliest_why = why; earliest_w = order[i]; }
        continue;
      }
      if (!issued && now > s.idle_since) lis_.on_stall({c, si, s.why, s.idle_since, now - s.idle_since, s.wait_wave, s.wait_pc});
      issue(c, cu, s, order[i], now);
      used |= bit;
      ++issued;
      if (stop_) return;
    }
    ++visits_;
    if (!issued) ++idle_visits_;
    if (issued) {
      s.idle_since = now + interval_;
      s.next = now + interval_;
    } else {
      s.next = std::max(opportunity(s, earliest), now + interval_);
      s.why = !any_live ? Stall::Idle : all_barrier ? Stall::Barrier : earliest_why;
      s.wait_wave = s.why == Stall::Idle || all_barrier ? -1 : earliest_w;
      s.wait_pc = s.wait_wave >= 0 ? cu.waves[static_cast<std::size_t>(s.wait_wave)].pc : kNoPc;
    }
    // the CU may have launched a workgroup on another SIMD while issuing
    cu_next = std::min(cu_next, s.next);
  }
  for (const auto& s : cu.simds) cu_next = std::min(cu_next, s.next);
  cu.next = cu_next;
}

void AmdGpu::issue(int c, Cu& cu, Simd& s, int wi, double now) {
  Wave& w = cu.waves[static_cast<std::size_t>(wi)];
  WgSlot& g = cu.wgs[static_cast<std::size_t>(w.slot)];
  const std::uint32_t pc = w.pc;
  const A::Inst& in = p_.insts[pc];
  ITime& it = itime_[pc];
  if (it.kind == Kind::Mfma && !it.resolved) resolve_mfma(pc, it);
  if (it.kind == Kind::Clock)  // s_memtime / s_memrealtime read the model's clock at issue
    k_.set_clock(static_cast<std::uint64_t>(now), static_cast<std::uint64_t>(now * kRealtimeMhz / d_.clocks.core_mhz));
  const AmdStepInfo info = g.wg->step(w.widx);
  ++timed_insts_;
  ++g.insts;
  const int lanes = info.vector ? std::popcount(info.active) : 1;
  active_ = info.active;
  w.ready = now + interval_;  // one instruction per wave per issue opportunity
  w.ready_why = Stall::ExecutionDependency;
  double busy = 0;
  auto set_writes = [&](double when, bool mfma) {
    if (it.nwrites == 0) return;
    // forget results written by now, and older results of the registers written again
    auto& pv = w.pending;
    if (!pv.empty())
      pv.erase(std::remove_if(pv.begin(), pv.end(),
                              [&](const Wave::Pending& p) {
                                if (p.ready <= now) return true;
                                for (int r = 0; r < it.nwrites; ++r)
                                  if (p.regs.first >= it.writes[r].first &&
                                      p.regs.first + p.regs.count <= it.writes[r].first + it.writes[r].count)
                                    return true;
                                return false;
                              }),
               pv.end());
    if (when <= now + interval_) return;  // ready before this wave can issue again
    for (int r = 0; r < it.nwrites; ++r) pv.push_back({it.writes[r], mfma, when});
    w.horizon = std::max(w.horizon, when);
  };
  double flops = 0;
  switch (it.kind) {
    case Kind::Valu:
      busy = it.busy;
      s.valu_free = now + it.busy;
      set_writes(now + it.latency, false);
      flops = it.flops * lanes;
      break;
    case Kind::Salu:
      busy = it.busy;
      s.salu_free = now + it.busy;
      set_writes(now + it.latency, false);
      break;
    case Kind::Branch:
      busy = it.busy;
      s.branch_free = now + it.busy;
      w.ready = std::max(w.ready, now + it.latency);  // the wave fetches from the target
      set_writes(now + it.latency, false);
      break;
    case Kind::Mfma:
      busy = it.busy;
      s.xdl_free = now + it.busy;
      s.valu_free = std::max(s.valu_free, now + it.valu_block);
      set_writes(now + it.latency, true);
      flops = it.flops;
      break;
    case Kind::Nop:
      w.ready = now + interval_ * (1 + (sopp_imm(in) & 0xf));
      break;
    case Kind::Sleep:
      w.ready = now + interval_ + sleep_unit_ * (sopp_imm(in) & 0x7f);
      w.ready_why = Stall::Idle;
      break;
    case Kind::Setprio:
      w.prio = sopp_imm(in) & 3;
      break;
    case Kind::Waitcnt: case Kind::Barrier: case Kind::Endpgm: case Kind::NoEffect:
      break;
    default:
      memory(c, cu, w, in, it, now);
      break;
  }
  lis_.on_issue({c, w.simd, wi, g.id, pc, in.unit, lanes, flops, busy, now});
  w.pc = info.next_pc;

  if (info.kind == AmdStepInfo::Kind::BarrierWait) w.at_barrier = true;
  if (info.released_barrier) {
    const double t_rel = now + barrier_latency_;
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
  if (info.kind == AmdStepInfo::Kind::Exited) {
    w.live = false;
    drain_ = std::max(drain_, w.drain);
    if (--g.waves_left == 0) finish_wg(c, w.slot, now + interval_);
    return;
  }
  refresh(w);
}

// Memory instructions: the memory model says when the data is back (or the write acknowledged)
// and when the CU's pipeline takes the next one; the wait counters record the completions.
void AmdGpu::memory(int c, Cu& cu, Wave& w, const A::Inst& in, const ITime& it, double now) {
  WgSlot& g = cu.wgs[static_cast<std::size_t>(w.slot)];
  const std::uint64_t* addrs = g.wg->lane_addresses(w.widx);
  auto push_vm = [&](double done) {
    const double eff = w.vm.size() > w.vm_head ? std::max(done, w.vm.back()) : done;  // decremented in issue order
    // drop completed entries so the list stays short
    while (w.vm_head < w.vm.size() && w.vm[w.vm_head] <= now) ++w.vm_head;
    if (w.vm_head > 64) {
      w.vm.erase(w.vm.begin(), w.vm.begin() + static_cast<std::ptrdiff_t>(w.vm_head));
      w.vm_head = 0;
    }
    w.vm.push_back(eff);
    w.drain = std::max(w.drain, eff);
  };
  auto prune = [&](std::vector<double>& v) { v.erase(std::remove_if(v.begin(), v.end(), [&](double x) { return x <= now; }), v.end()); };
  auto push_lds = [&](double done) {
    prune(w.lgkm_lds);
    w.lgkm_lds.push_back(w.lgkm_lds.empty() ? done : std::max(done, w.lgkm_lds.back()));
    w.drain = std::max(w.drain, done);
  };
  auto push_other = [&](double done) {
    prune(w.lgkm_other);
    w.lgkm_other.push_back(done);
    w.drain = std::max(w.drain, done);
  };
  const A::MemOp& m = in.mem;
  switch (it.kind) {
    case Kind::Smem: {
      const double done = mem_->scalar_load(c, now, addrs[0], m.bytes);
      push_other(done);
      return;
    }
    case Kind::SmemStore: {
      push_other(mem_->scalar_store(c, now, addrs[0], m.bytes));
      return;
    }
    case Kind::Clock: case Kind::ScalarCacheOp:
      if (in.op == A::Op::s_dcache_inv || in.op == A::Op::s_dcache_inv_vol) mem_->invalidate_scalar(c);
      push_other(now + sl1_lat_);
      return;
    case Kind::L2WriteBack: {
      const double done = mem_->write_back_l2(mem_->xcd_of(c), now);
      cu.vmem_free = std::max(cu.vmem_free, now + interval_);
      push_vm(done);
      return;
    }
    case Kind::L1Invalidate:
      mem_->invalidate_l1(c);
      cu.vmem_free = std::max(cu.vmem_free, now + interval_);
      push_vm(now + l1_lat_);
      return;
    case Kind::Lds: {
      const std::uint64_t mask = active_;  // every lane the instruction ran under takes part
      mem::LdsAccess kind = m.kind == A::MemKind::Load    ? mem::LdsAccess::Load
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
      push_lds(mem_->lds(c, w.simd, now, addrs, a1, mask, m.bytes, kind).done);
      return;
    }
    case Kind::Vmem: {
      std::uint64_t global = 0, lds = 0, scratch = 0;
      g.wg->lane_spaces(w.widx, global, lds, scratch);
      const mem::AmdAccess kind = m.kind == A::MemKind::Store   ? mem::AmdAccess::Store
                                  : m.kind == A::MemKind::Atomic ? (m.is_float ? mem::AmdAccess::AtomicFloat : mem::AmdAccess::Atomic)
                                  : in.glc                      ? mem::AmdAccess::LoadBypassL1
                                                                : mem::AmdAccess::Load;
      double done = now + interval_, accepted = now;
      if (global) {
        const mem::AmdMemTiming mt = mem_->vector(c, now, addrs, global, m.bytes, kind);
        done = std::max(done, mt.done);
        accepted = std::max(accepted, mt.accepted);
      }
      if (scratch) {
        // scratch is swizzled per wave: dword i of every lane's private segment is contiguous
        const int wslot = static_cast<int>(&w - cu.waves.data());
        const std::uint64_t base = (std::uint64_t{0xE000} << 32) + (static_cast<std::uint64_t>(c) * cu.waves.size() + static_cast<std::uint64_t>(wslot)) * scratch_stride_;
        for (std::uint32_t off = 0; off < m.bytes; off += 4) {
          for (std::uint64_t mm = scratch; mm;) {
            const int l = std::countr_zero(mm);
            mm &= mm - 1;
            const std::uint64_t a = addrs[l] + off;
            swz_[l] = base + (a / 4) * 256 + static_cast<std::uint64_t>(l) * 4 + (a % 4);
          }
          const mem::AmdMemTiming mt = mem_->vector(c, now, swz_, scratch, std::min<std::uint32_t>(4, m.bytes - off), kind);
          done = std::max(done, mt.done);
          accepted = std::max(accepted, mt.accepted);
        }
      }
      if (lds) {  // flat accesses that resolved to the LDS
        const mem::AmdMemTiming mt = mem_->lds(c, w.simd, now, addrs, nullptr, lds, m.bytes,
                                               kind == mem::AmdAccess::Store ? mem::LdsAccess::Store
                                               : (kind == mem::AmdAccess::Atomic || kind == mem::AmdAccess::AtomicFloat)
                                                   ? mem::LdsAccess::AtomicReturn
                                                   : mem::LdsAccess::Load);
        done = std::max(done, mt.done);
      }
      cu.vmem_free = std::max(cu.vmem_free, accepted);
      push_vm(done);
      if (m.space == A::Space::Flat) push_other(done);  // flat counts in lgkmcnt too
      return;
    }
    default:
      throw Error(ErrorKind::Internal, "kernsim bug: AMD memory() called for " + p_.describe(in));
  }
}

// ---------------------------------------------------------------------------------------------
// sampling driver

// Simulates until `budget` more wave instructions are timed and the window has lasted a few memory
// round trips (a shorter window sees only the burst of issue before the first loads return), or
// until everything is done; returns false when the budget ran out first.
bool AmdGpu::simulate(std::uint64_t budget, double& now) {
  constexpr double kMinWindowRoundTrips = 4;
  const double min_end = now + kMinWindowRoundTrips * d_.dram.latency_cycles;
  // The budget counts simulation work: a wave instruction, or kLinesPerInstruction cache lines its
  // memory accesses look up (a gather of 64 lines costs the simulator as much as several
  // instructions).
  constexpr std::uint64_t kLinesPerInstruction = 2;
  auto work = [&] { return timed_insts_ + mem_->lines_looked_up() / kLinesPerInstruction; };
  const std::uint64_t limit = opts_.full ? ~std::uint64_t{0} : work() + budget;
  const std::uint64_t check_every = 4096;
  std::uint64_t next_check = timed_insts_ + check_every;
  while (!pq_.empty()) {
    auto [t, c] = pq_.top();
    pq_.pop();
    Cu& cu = cus_[static_cast<std::size_t>(c)];
    if (t != cu.next) continue;  // stale
    now = t;
    ++events_;
    step_cu(c, t);
    if (cu.next < kInf) pq_.push({cu.next, c});
    if (timed_insts_ >= next_check) {
      next_check += check_every;
      progress_.push_back(checkpoint(now));
      if (work() >= limit && now >= min_end) return false;
    }
  }
  return true;
}

double AmdGpu::work_per_wg() {
  if (wgs_done_ >= 4) return static_cast<double>(done_wg_insts_) / static_cast<double>(wgs_done_);
  double sum = static_cast<double>(done_wg_insts_);
  std::uint64_t counted = wgs_done_;
  int finished = 0;
  auto finish = [&](WgSlot& g) {
    if (!g.active || !g.wg || finished >= 4) return;
    const std::uint64_t before = k_.wave_instructions();
    g.wg->run();
    sum += static_cast<double>(g.insts + (k_.wave_instructions() - before));
    ++finished;
    ++counted;
  };
  for (auto& g : abandoned_) finish(g);
  for (auto& cu : cus_)
    for (auto& g : cu.wgs) finish(g);
  return counted ? sum / static_cast<double>(counted) : 1.0;
}

void AmdGpu::first_fill(double t) {
  for (int slot = 0; slot < occ_.blocks_per_unit; ++slot)
    for (int i = 0; i < cus_per_xcd_; ++i)
      for (int x = 0; x < nxcd_; ++x) {
        const int c = x * cus_per_xcd_ + i;
        if (!dispatch_->empty(x)) launch_wg(c, slot, dispatch_->next(x), t);
      }
  for (int c = 0; c < ncus_; ++c)
    if (cus_[static_cast<std::size_t>(c)].next < kInf) pq_.push({cus_[static_cast<std::size_t>(c)].next, c});
}

// Stops every workgroup in flight (kept for a later functional completion) and clears the CUs'
// timing state, so that a second detailed window can start from fresh workgroups.
void AmdGpu::restart_from_next_wave(double now) {
  for (int c = 0; c < ncus_; ++c) {
    Cu& cu = cus_[static_cast<std::size_t>(c)];
    set_residency(cu, c, now, -cu.resident);
    for (auto& g : cu.wgs)
      if (g.active) abandoned_.push_back(std::move(g));
    for (auto& g : cu.wgs) g = WgSlot{};
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
  pq_ = {};
  first_fill(now);
}

TimingResult AmdGpu::run() {
  build_machine();
  TimingResult r;
  r.occupancy = occ_;
  r.ctas_total = k_.dims().num_blocks();
  const std::uint64_t slots = static_cast<std::uint64_t>(ncus_) * static_cast<std::uint64_t>(occ_.blocks_per_unit);
  first_fill(0);

  // Window A: from the start of the kernel, caches cold.
  double now = 0;
  const std::uint64_t budget_a = opts_.detail_budget / 2;
  bool finished = simulate(budget_a, now);
  // steady rates bounded by the shared resources' served work, and by the work committed to them
  double rate_a[2] = {0, 0}, rate_b[2] = {0, 0};
  for (int k = 0; k < 2 && !finished; ++k) rate_a[k] = steady_rate(progress_, 0, checkpoint(now), k == 1);
  const std::uint64_t timed_a = timed_insts_;
  bool two_windows = false;
  double t_a = now;
  if (!finished && r.ctas_total > slots && wgs_done_ < slots / 2) {
    // The first wave of workgroups is still running: its rate is the cold one. Window B times
    // fresh workgroups of the next wave, with the caches as the first wave left them.
    two_windows = true;
    restart_from_next_wave(now);
    const std::size_t from = progress_.size();
    progress_.push_back(checkpoint(now));
    finished = simulate(opts_.detail_budget - budget_a, now);
    for (int k = 0; k < 2; ++k) rate_b[k] = steady_rate(progress_, from, checkpoint(now), k == 1);
  } else if (!finished) {
    finished = simulate(opts_.detail_budget - budget_a, now);
  }
  stop_ = !finished;
  if (std::getenv("KERNSIM_DEBUG_PROGRESS"))
    std::fprintf(stderr, "events %llu simd visits %llu idle %llu insts %llu\n", (unsigned long long)events_, (unsigned long long)visits_,
                 (unsigned long long)idle_visits_, (unsigned long long)timed_insts_);
  if (std::getenv("KERNSIM_DEBUG_PROGRESS"))
    for (const auto& pr : progress_)
      std::fprintf(stderr, "progress %.0f cycles %llu insts shared-busy %.0f\n", pr.t, static_cast<unsigned long long>(pr.insts), pr.shared_busy);

  const double end_detailed = stop_ ? now : std::max(last_end_, drain_);
  for (int c = 0; c < ncus_; ++c) set_residency(cus_[static_cast<std::size_t>(c)], c, end_detailed, 0);
  for (int c = 0; c < ncus_; ++c)
    for (int si = 0; si < nsimd_; ++si) {
      Simd& s = cus_[static_cast<std::size_t>(c)].simds[static_cast<std::size_t>(si)];
      if (end_detailed > s.idle_since)
      {
        const bool waiting = s.why != Stall::Idle && stop_;
        lis_.on_stall({c, si, waiting ? s.why : Stall::Idle, s.idle_since, end_detailed - s.idle_since, waiting ? s.wait_wave : -1,
                       waiting ? s.wait_pc : kNoPc});
      }
    }
  // The kernel's end releases its writes to the device: dirty L2 lines of every XCD are written
  // back (the XCDs' L2s are not coherent with each other).
  const double flush_from = stop_ ? now : end_detailed;
  const double dirty = static_cast<double>(mem_->l2_dirty_bytes());
  const double flush = std::max(0.0, mem_->write_back_l2(-1, flush_from) - flush_from);
  lis_.on_memory(mem_->counters(), mem_->dram_busy_cycles(), mem_->l2_busy_cycles());
  lis_.on_window(std::max(1.0, end_detailed + flush));
  r.warp_insts_timed = timed_insts_;
  r.ctas_timed = wgs_done_;
  if (!stop_ && !two_windows) {
    r.cycles = end_detailed + flush;
    r.warp_insts_estimated = static_cast<double>(timed_insts_);
    r.sampled_fraction = 1.0;
    r.sampling_note = "every workgroup timed in detail";
  } else {
    const double per_wg = work_per_wg();
    const double total = per_wg * static_cast<double>(r.ctas_total);
    r.extrapolated = true;
    r.warp_insts_estimated = total;
    r.sampled_fraction = total > 0 ? std::min(1.0, static_cast<double>(timed_insts_) / total) : 1;
    // At the served rate the dirty lines left at the end are written back after it; at the
    // committed rate every write-back is already paid for. The kernel takes the longer.
    const double remaining = std::max(0.0, total - static_cast<double>(timed_insts_));
    double cycles[2];
    for (int k = 0; k < 2; ++k) {
      if (two_windows) {
        const double wave1 = per_wg * static_cast<double>(std::min<std::uint64_t>(slots, r.ctas_total));
        const double t_wave1 = rate_a[k] > 0 ? wave1 / rate_a[k] : t_a;
        cycles[k] = t_wave1 + (rate_b[k] > 0 ? std::max(0.0, total - wave1) / rate_b[k] : 0.0);
      } else {
        const double rate = steady_rate(progress_, 0, checkpoint(now), k == 1);
        cycles[k] = now + (rate > 0 ? remaining / rate : 0);
      }
    }
    // the L2s hold the dirty lines of the whole kernel at its end, as far as they fit
    const double capacity = static_cast<double>(d_.l2.bytes * d_.l2.instances);
    const double dirty_end = std::min(capacity, dirty * total / std::max(1.0, static_cast<double>(timed_insts_)));
    const double flush_end = dirty > 0 ? flush * std::max(dirty, dirty_end) / dirty : 0.0;
    r.cycles = std::max(cycles[0] + flush_end, cycles[1]);
    const std::string bound = cycles[1] > cycles[0] + flush_end ? "; bounded by the write-backs its dirty lines commit HBM to" : "";
    if (two_windows)
      r.sampling_note = "two windows: the first wave of workgroups from the start (" + std::to_string(timed_a) +
                        " wave instructions, cold) and the next wave (" + std::to_string(timed_insts_ - timed_a) + ", warm) of ~" +
                        std::to_string(static_cast<std::uint64_t>(total)) + "; extrapolated at their steady rates" + bound;
    else
      r.sampling_note = "timed " + std::to_string(timed_insts_) + " of ~" + std::to_string(static_cast<std::uint64_t>(total)) +
                        " wave instructions in detail (" + std::to_string(wgs_done_) + " of " + std::to_string(r.ctas_total) +
                        " workgroups completed), extrapolated at the steady-state rate" + bound;
  }
  if ((stop_ || two_windows) && opts_.complete_functionally) {
    // outputs must be whole: finish every started workgroup and run the rest, untimed
    for (auto& g : abandoned_)
      if (g.wg) g.wg->run();
    for (auto& cu : cus_)
      for (auto& g : cu.wgs)
        if (g.active) g.wg->run();
    dispatch_->for_each_remaining([&](std::uint64_t id) { k_.make_workgroup(id)->run(); });
  }
  r.kernel_us = r.cycles / d_.clocks.core_mhz;
  r.launch_us = d_.launch.overhead_us;
  r.time_us = r.kernel_us + r.launch_us;
  return r;
}

}  // namespace

TimingResult time_amd_kernel(const device::DeviceSpec& dev, AmdKernel& kernel, const AmdResources& res, const TimingOptions& opts,
                             Listener& listener) {
  if (dev.vendor != device::Vendor::Amd)
    throw Error(ErrorKind::Unsupported, "AMDGCN kernels run on AMD devices; " + dev.name + " is an NVIDIA part");
  AmdGpu gpu(dev, kernel, res, opts, listener);
  return gpu.run();
}

}  // namespace kernsim::sim
