// The PTX opcode table (isa/ptx/ops.def) as data, the mnemonic lookup, and the per-instruction
// facts derived from a row and a decoded Inst: its pipe, machine-instruction count, FLOPs, the
// second pipe it may use and its tensor-pipe scale.
#include "isa/ptx/ops.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace kernsim::isa::ptx {
namespace {

constexpr OpInfo kOps[] = {
#define KS_PTX(op, mnemonic, form, srcs, unit, unit_rule, dual, expand, lat, async, fence, flops, space, lanes)                  \
  OpInfo{Op::op,          mnemonic,     Form::form,       srcs,           Unit::unit,         UnitRule::unit_rule, dual,          \
         Expand::expand,  Lat::lat,     Async::async,     fence,          Flops::flops,       SpaceFrom::space,    Lanes::lanes},
#include "isa/ptx/ops.def"
#undef KS_PTX
};
constexpr int kNumOps = static_cast<int>(sizeof(kOps) / sizeof(kOps[0]));

// Row i describes Op i: the enum and the table come from the same rows, in order.
constexpr bool rows_in_order() {
  for (int i = 0; i < kNumOps; ++i)
    if (static_cast<int>(kOps[i].op) != i) return false;
  return true;
}
static_assert(rows_in_order(), "ops.def: row order and Op enum disagree");

const std::unordered_map<std::string_view, Mnemonic>& mnemonics() {
  static const std::unordered_map<std::string_view, Mnemonic> table = [] {
    std::unordered_map<std::string_view, Mnemonic> t;
    for (const OpInfo& r : kOps)
      if (r.form != Form::Derived) t.emplace(r.mnemonic, Mnemonic{r.op, r.form, r.srcs, 0, nullptr});
#define KS_PTX(...)
#define KS_PTX_ALIAS(mnemonic, op, form, srcs, flags) t.emplace(mnemonic, Mnemonic{Op::op, Form::form, srcs, flags, nullptr});
#define KS_PTX_UNSUPPORTED(mnemonic, what) t.emplace(mnemonic, Mnemonic{Op::Unsupported, Form::Derived, "", 0, what});
#include "isa/ptx/ops.def"
#undef KS_PTX_UNSUPPORTED
#undef KS_PTX_ALIAS
#undef KS_PTX
    return t;
  }();
  return table;
}

// The longest mnemonic in the table has five dotted parts (cp.reduce.async.bulk.tensor).
constexpr std::size_t kMaxMnemonicParts = 5;

bool is_packed(Ty t) { return t == Ty::F16x2 || t == Ty::BF16x2 || t == Ty::F32x2; }

Unit float_unit(Ty t) {
  if (t == Ty::F64) return Unit::Fp64;
  if (t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2) return Unit::Fp16;
  return Unit::Fp32;
}

// setp compares its own type; set.dtype.stype compares its second.
Ty compare_type(const Inst& in) { return in.op == Op::Set ? in.type2 : in.type; }

bool ieee_rcp_sqrt(const Inst& in) { return !(in.flags & kApprox) && (in.op == Op::Rcp || in.op == Op::Sqrt); }

}  // namespace

const OpInfo& op_info(Op op) { return kOps[static_cast<int>(op)]; }
int num_ops() { return kNumOps; }

const char* to_string(Op op) { return op_info(op).mnemonic; }

const Mnemonic* find_mnemonic(std::string_view dotted) {
  const auto& t = mnemonics();
  auto it = t.find(dotted);
  return it == t.end() ? nullptr : &it->second;
}

const Mnemonic* find_mnemonic(const std::vector<std::string>& parts) {
  // the longest run of leading parts that names a row: "bar.warp.sync" before "bar"
  for (std::size_t n = std::min(parts.size(), kMaxMnemonicParts); n > 0; --n) {
    std::string key = parts[0];
    for (std::size_t i = 1; i < n; ++i) key += "." + parts[i];
    if (const Mnemonic* m = find_mnemonic(key)) return m;
  }
  return nullptr;
}

Unit unit_of(const Inst& in) {
  const OpInfo& r = op_info(in.op);
  const Ty t = in.type;
  switch (r.unit_rule) {
    case UnitRule::Fixed: return r.unit;
    case UnitRule::IntOrFloat: return ty_is_float(t) ? float_unit(t) : r.unit;
    case UnitRule::Float: return float_unit(t);
    case UnitRule::MinMax:
      // FMNMX runs on the ALU pipe (16 lanes per scheduler: the CUDA guide's 64 FP32 min/max per
      // SM per clock on sm_90), not the FMA pipe; doubles and halves keep their pipes
      return t == Ty::F32 ? Unit::IntAlu : ty_is_float(t) ? float_unit(t) : r.unit;
    case UnitRule::Transcendental:
      if (t == Ty::F64) return Unit::Fp64;
      return ieee_rcp_sqrt(in) ? Unit::Fp32 : r.unit;
    case UnitRule::Compare: {
      const Ty c = compare_type(in);
      return ty_is_float(c) ? float_unit(c) : Unit::IntAlu;
    }
    case UnitRule::Convert:
      if (!ty_is_float(in.type) && !ty_is_float(in.type2)) return Unit::IntAlu;
      return in.type == Ty::F64 || in.type2 == Ty::F64 ? Unit::Fp64 : Unit::Convert;
    case UnitRule::Matrix: {
      const Ty a = in.type2;
      if (a == Ty::F16 || a == Ty::BF16) return Unit::TensorF16;
      if (a == Ty::TF32) return Unit::TensorTf32;
      if (a == Ty::S8 || a == Ty::U8) return Unit::TensorI8;
      if (a == Ty::E4M3 || a == Ty::E5M2) return Unit::TensorFp8;
      if (a == Ty::F64) return Unit::TensorF64;
      return Unit::TensorF16;
    }
  }
  return r.unit;
}

int machine_insts(const Inst& in) {
  // .f32x2 (FADD2/FMUL2/FFMA2): two FP32 operations a lane; the B200's FP32 rate (75 TFLOPS =
  // 128 lanes per SM) is that of one a lane, so one counts as two on the FP32 pipe (estimated).
  if (in.type == Ty::F32x2) return 2;
  const bool integer = !ty_is_float(in.type);
  const bool wide = ty_bits(in.type) == 64;
  switch (op_info(in.op).expand) {
    case Expand::One: return 1;
    case Expand::Int64Pair: return integer && wide ? 2 : 1;
    case Expand::IntMul64: return integer && wide ? 3 : 1;
    case Expand::IntMad: return integer && (wide || (in.flags & kHi)) ? (wide ? 4 : 2) : 1;
    case Expand::Divide:
      if (integer) return wide ? 40 : 20;
      if (in.type == Ty::F64) return 20;
      if (in.flags & kApprox) return 2;
      if (in.flags & kFull) return 3;
      return 10;
    case Expand::Transcendental:
      if (in.type == Ty::F64) return (in.flags & kApprox) ? 2 : 14;
      return ieee_rcp_sqrt(in) ? 8 : 1;
    case Expand::Compare64: {
      const Ty c = compare_type(in);
      return !ty_is_float(c) && ty_bits(c) == 64 ? 2 : 1;
    }
  }
  return 1;
}

bool fence_like(const Inst& in) { return op_info(in.op).fence || (in.flags & kReadsClock) != 0; }

double flops(const Inst& in, int lanes) {
  const double per_lane = is_packed(in.type) ? 2 : 1;
  switch (op_info(in.op).flops) {
    case Flops::None: return 0;
    case Flops::One: return ty_is_float(in.type) ? 1.0 * lanes * per_lane : 0;
    case Flops::Two: return ty_is_float(in.type) ? 2.0 * lanes * per_lane : 0;
    case Flops::Matrix:  // a wgmma's four warps each issue it: a quarter each
      return 2.0 * in.shape[0] * in.shape[1] * in.shape[2] / (in.op == Op::WgmmaMma ? 4 : 1);
  }
  return 0;
}

std::optional<Unit> alt_unit(const Inst& in) {
  if (!op_info(in.op).dual || in.unit != Unit::IntAlu || ty_bits(in.type) > 32) return std::nullopt;
  return Unit::IntMul;
}

PipeGroup pipe_group(Unit u) {
  switch (u) {
    case Unit::Fp32: case Unit::Fp16: case Unit::IntMul: return PipeGroup::Fma;
    case Unit::IntAlu: return PipeGroup::Alu;
    default: return PipeGroup::None;
  }
}

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

double matrix_scale(const Inst& in) {
  if (!is_tensor(in.unit)) return 1;
  return 2.0 * in.shape[0] * in.shape[1] * in.shape[2] / canonical_flops(in.unit);
}

TimingDesc timing_desc(const Inst& in) {
  const OpInfo& r = op_info(in.op);
  TimingDesc d;
  d.unit = in.unit;
  const std::optional<Unit> alt = alt_unit(in);
  d.alt_unit = alt ? static_cast<std::int8_t>(*alt) : std::int8_t{-1};
  d.group = pipe_group(in.unit);
  d.first_group = pipe_group(alt ? *alt : in.unit);
  if (r.flops == Flops::Matrix) d.flops_per_inst = flops(in, 0);
  else d.flops_per_lane = flops(in, 1);
  d.matrix_scale = matrix_scale(in);
  d.lat = r.lat;
  d.async = r.async;
  d.weight = in.weight;
  d.range_reduced = (in.flags & kRangeReduced) != 0;
  if (in.flags & kDenormGuarded) {
    // read off ptxas 13.0's SASS for sm_90a (docs/timing.md): ex2/lg2/rsqrt/sqrt are FSETP, a
    // predicated FMUL, the MUFU, a predicated FMUL (FADD for lg2), all in one chain; rcp is
    // IMAD.MOV, two FSETP, two FSEL, FMUL, MUFU.RCP, FMUL with FSETP-FSEL-FSEL-FMUL ahead of it
    d.guard_chain = in.op == Op::Rcp ? 5 : 3;
    d.guard_issued = in.op == Op::Rcp ? 7 : 3;
  }
  d.folded = (in.flags & kFoldedModifier) != 0;
  d.warp_aggregated = (in.flags & kWarpAggregated) != 0;
  return d;
}

std::vector<TimingDesc> timing_descs(const Program& p) {
  std::vector<TimingDesc> out;
  out.reserve(p.insts.size());
  for (const Inst& in : p.insts) out.push_back(timing_desc(in));
  return out;
}

std::int64_t tmem_columns_requested(const Program& p, std::int64_t device_columns) {
  std::int64_t sum = 0;
  for (const Inst& in : p.insts) {
    if (in.op != Op::Tcgen05Alloc) continue;
    const Reg r = p.src(in, 0);
    if (r.bank != Bank::C32) return device_columns;
    sum += p.c32[std::size_t{r.idx} * 32];
  }
  return std::min(sum, device_columns);
}

}  // namespace kernsim::isa::ptx
