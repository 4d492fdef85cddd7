// kernsim::isa::ptx — what each PTX opcode is, from the table isa/ptx/ops.def: its operand form,
// pipe, machine-instruction count, timing class, asynchronous-copy role, whether code may move
// across it, its FLOPs and the state space it works on; and the per-instruction facts derived
// from the row and a decoded Inst (the pipe its type selects, FLOPs over the active lanes, the
// second pipe an integer add may use, the tensor-pipe scale of a matrix instruction). The
// decoder, the ptxas passes and the timing model all ask here; none keeps its own list of ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isa/ptx/program.h"

namespace kernsim::isa::ptx {

// How decode.cpp reads an instruction's operands (one parse function per form).
enum class Form : std::uint8_t {
  Alu,         // d, sources as the row's srcs string says
  Sources,     // sources only (srcs), no destination
  DstPred,     // d[|p], sources (srcs): a value and an optional predicate destination
  Compare,     // setp/set: d[|q], a, b[, {!}c] with a comparison and a boolean operation
  Mov,         // mov: registers, immediates, symbols, vector pack/unpack
  Policy,      // createpolicy: an opaque handle
  Cvt,         // cvt: d, a (or d, a, b into a packed pair)
  Cvta,        // cvta: d, a (an address or a local symbol)
  LdSt,        // ld/st: data registers and an address
  Atomic,      // atom/red: [d,] address, a[, b]
  CpAsync,     // cp.async: [shared], [global], size[, src-size]
  WaitGroup,   // cp.async.wait_group N
  Ldmatrix,    // ldmatrix/stmatrix
  Barrier,     // bar/barrier: [d,] id[, count][, {!}p]
  Vote,        // vote: d, {!}p[, membermask]
  Bra,         // bra label
  BrxIdx,      // brx.idx index, table
  Call,        // call (rets), func, (args)
  NoOperands,  // operands, if any, are ignored (fences, prefetches, ret, exit)
  Mma,         // mma: D, A, B, C register lists, shape and types
  Wmma,        // wmma.load/store/mma
  Wgmma,       // wgmma.mma_async: D list, A descriptor or register list, B descriptor, scale-d, immediates
  Mbarrier,    // mbarrier.*: [d,] [mbar][, count|tx|state|parity][, hint]; cp.async.mbarrier.arrive [mbar]
  Bulk,        // cp.async.bulk / cp.reduce.async.bulk / cp.async.bulk.prefetch: [dst], [src], size[, [mbar]]
  BulkTensor,  // cp.async.bulk.tensor / cp.reduce.async.bulk.tensor / prefetch: [dst], [tmap, {coords}], [mbar]
  Tensormap,   // tensormap.replace.tile.field [map], {ord,} value; tensormap.cp_fenceproxy [global], [shared], size
  Tcgen05,     // tcgen05.* (sm_100a): alloc/dealloc/relinquish, mma, commit, ld/st, wait, fence
  Clc,         // clusterlaunchcontrol.try_cancel [resp], [mbar]; .query_cancel d, resp (a .b128 register)
  Derived,     // never selected by mnemonic: another form produces it
};

// How an instruction's type moves it off the row's default pipe (unit_of in ops.cpp).
enum class UnitRule : std::uint8_t {
  Fixed,           // always the row's unit
  IntOrFloat,      // float types run on their float pipe (f64 -> Fp64, f16/bf16 -> Fp16, else Fp32)
  Float,           // always the float pipe of its type
  MinMax,          // f32 FMNMX runs on the ALU pipe; f64/f16 on their float pipes; integers on the ALU
  Transcendental,  // MUFU; f64 in the double pipe; IEEE rcp/sqrt.f32 a sequence on the FMA pipe
  Compare,         // the compare type's pipe (setp's type, set's second type)
  Convert,         // float conversions on the conversion pipe (Fp64 if either side is f64), integer ones on the ALU
  Matrix,          // the tensor pipe of the A/B type (Inst::type2)
};

// How many machine instructions ptxas emits for one (Inst::weight).
enum class Expand : std::uint8_t {
  One,
  Int64Pair,       // 64-bit integer: two 32-bit halves (add, sub, shifts)
  IntMul64,        // 64-bit integer multiply: 3
  IntMad,          // 64-bit integer mad: 4; mad.hi: 2
  Divide,          // a software sequence: integer 20 (64-bit 40), f64 20, f32 10 (.approx 2, .full 3)
  Transcendental,  // f64: a DP sequence of 14 (.approx 2); IEEE rcp/sqrt.f32: 8
  Compare64,       // a 64-bit integer compare: 2
};

// How the timing model times it.
enum class Lat : std::uint8_t {
  Pipe,      // the pipe's latency and issue interval (times Inst::weight)
  Matrix,    // the tensor pipe's, scaled by the shape (matrix_scale)
  Memory,    // the memory model
  WarpSync,  // a warp-synchronous exchange: a fixed latency or the shared-memory crossbar
  Barrier,   // waits for other warps or outstanding copies
  Control,   // branches, calls, returns
  Issue,     // an issue slot only
};

// Its role in cp.async's asynchronous groups.
enum class Async : std::uint8_t { None, Copy, Commit, Wait };

// FLOPs per lane of a float type (packed x2 types do two); Matrix: 2*m*n*k per warp instruction.
enum class Flops : std::uint8_t { None, One, Two, Matrix };

// Where its state space (Inst::space) comes from.
enum class SpaceFrom : std::uint8_t {
  None,      // it has none (Space::Generic)
  Modifier,  // the instruction's .global/.shared/... modifier (generic without one)
  Shared,    // always shared memory
};

// Whether its result can differ between the lanes of a warp (uniformity analysis).
enum class Lanes : std::uint8_t {
  Sources,  // varies when a source (or the guard) varies
  Loaded,   // a load: varies when its address does (and for frame-local/param data)
  Varying,  // may differ in every lane whatever the sources (atomics, shuffles, matrix fragments)
  Uniform,  // the same in every lane (vote, redux, activemask)
};

// One row of ops.def.
struct OpInfo {
  Op op;
  const char* mnemonic;
  Form form;
  const char* srcs;
  Unit unit;
  UnitRule unit_rule;
  bool dual;
  Expand expand;
  Lat lat;
  Async async;
  bool fence;
  Flops flops;
  SpaceFrom space;
  Lanes lanes;
};

const OpInfo& op_info(Op op);
// The mbarrier, bulk-copy and tensor-copy instructions (the consecutive rows MbarInit ..
// TensorPrefetch of ops.def), executed by sim/functional/ptx_async.cpp, and the tcgen05 ones.
// The tcgen05 instructions (the consecutive rows Tcgen05Alloc .. Tcgen05Fence), executed by
// sim/functional/ptx_tcgen05.cpp on the same asynchronous path.
inline bool is_tcgen05_op(Op op) { return op >= Op::Tcgen05Alloc && op <= Op::Tcgen05Fence; }
inline bool is_async_op(Op op) {
  return (op >= Op::MbarInit && op <= Op::TensorPrefetch) || is_tcgen05_op(op) || op == Op::ClcTryCancel ||
         op == Op::ClcQuery;
}
int num_ops();  // rows of ops.def: Op values are 0 .. num_ops() - 1

// What a PTX opcode's leading dotted parts select: a row (or another spelling of one, with the
// flags that spelling implies), or an instruction kernsim knows and does not implement
// (`unsupported` names it). `parts` is the opcode's dotted parts, as ast::Instr::parts.
struct Mnemonic {
  Op op = Op::Unsupported;
  Form form = Form::Derived;
  const char* srcs = "";
  std::uint32_t flags = 0;
  const char* unsupported = nullptr;
};
const Mnemonic* find_mnemonic(const std::vector<std::string>& parts);
const Mnemonic* find_mnemonic(std::string_view dotted);  // "cp.async.wait_group"

// Tensor memory columns one CTA of `p` allocates: the sum of its tcgen05.alloc counts (an upper
// bound: allocations in a loop count once, deallocations are ignored), capped at the device's
// `device_columns`; a count held in a register counts as all of them. 0 without tcgen05.alloc.
std::int64_t tmem_columns_requested(const Program& p, std::int64_t device_columns);

// ---- facts of one decoded instruction (from its row, its type and its modifiers) --------------

// The pipe it occupies (the row's unit and unit rule); decode stores it in Inst::unit.
Unit unit_of(const Inst& in);
// Machine instructions ptxas emits for it (the row's expand rule); decode stores it in Inst::weight.
int machine_insts(const Inst& in);
// Nothing may be moved across it: the row's fence column, or it reads a clock.
bool fence_like(const Inst& in);
// FLOPs one warp instruction performs with `lanes` active lanes (FMA = 2; packed f16x2/bf16x2
// twice; mma/wmma.mma 2*m*n*k whatever the lanes), for achieved-FLOP/s figures.
double flops(const Inst& in, int lanes);
// A second pipe it may issue to when that one is no busier than Inst::unit: an integer add,
// subtract or move of 32 bits or less goes to the FMA pipe as IMAD.IADD/IMAD.MOV.
std::optional<Unit> alt_unit(const Inst& in);

// The FMA pipe (FFMA, IMAD, HFMA2) and the ALU pipe (IADD3, LOP3, SHF, FMNMX) of an SM
// sub-partition; a value crossing from one to the other pays the device's cross-pipe latency.
enum class PipeGroup : std::uint8_t { None = 0, Fma = 1, Alu = 2 };
PipeGroup pipe_group(Unit u);

// FLOPs of the matrix instruction each tensor pipe's device timing refers to (mma.m16n8k16 for
// f16/bf16, m16n8k8 tf32, m16n8k32 int8/fp8, m8n8k4 f64); 1 for other units.
double canonical_flops(Unit u);
// A matrix instruction's shape relative to its pipe's reference instruction: how many of those
// it costs (2*m*n*k / canonical_flops(unit)); 1 for anything else.
double matrix_scale(const Inst& in);

// The timing facts of one instruction, computed once per instruction of a program (nothing in
// them depends on the execution): what nvidia_gpu.cpp needs per issue.
struct TimingDesc {
  Unit unit = Unit::Nop;
  std::int8_t alt_unit = -1;          // alt_unit(), -1 when none
  PipeGroup group = PipeGroup::None;  // pipe_group(unit)
  PipeGroup first_group = PipeGroup::None;  // pipe_group of the pipe it tries first (the alt unit when it has one)
  double flops_per_lane = 0;          // flops(in, lanes) = flops_per_lane * lanes + flops_per_inst
  double flops_per_inst = 0;
  double matrix_scale = 1;            // matrix_scale()
  Lat lat = Lat::Pipe;
  Async async = Async::None;
  int weight = 1;                     // Inst::weight
  bool range_reduced = false;         // kRangeReduced: an FMUL.RZ on the FMA pipe first
  // kDenormGuarded: FP32-pipe instructions ptxas puts around the MUFU (denormal inputs scaled
  // into range and the result scaled back): how many are in the value's dependency chain, and
  // how many issue in all (denorm_guard_ops())
  int guard_chain = 0;
  int guard_issued = 0;
  bool folded = false;                // kFoldedModifier: no machine instruction
  bool warp_aggregated = false;       // kWarpAggregated: one atomic per warp
};
TimingDesc timing_desc(const Inst& in);
std::vector<TimingDesc> timing_descs(const Program& p);  // one per Program::insts

}  // namespace kernsim::isa::ptx
