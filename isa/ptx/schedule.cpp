// Load hoisting: the instruction order ptxas gives a kernel, approximated on its PTX.
//
// ptxas schedules each basic block so that loads issue as early as their operands allow, which
// lets a warp have several loads in flight where the PTX has a load followed by its use. An
// in-order timing model of the PTX would otherwise charge one full latency per such load. This
// pass moves every load up within its basic block past instructions it does not depend on; it
// never crosses a store, atomic, barrier, fence, call, branch or clock read, so the program
// computes exactly what it computed before.
#include <algorithm>

#include "isa/ptx/decode.h"

namespace kernsim::isa::ptx {
namespace {

bool hoistable(const Inst& in) {
  if (in.op != Op::Ld || (in.flags & kReadsClock)) return false;
  if (in.space != Space::Global && in.space != Space::Generic && in.space != Space::Shared && in.space != Space::Const) return false;
  return in.addr.kind == AddrBase::Reg || in.addr.kind == AddrBase::Absolute;
}

// Instructions nothing moves across: memory writes, synchronisation, control flow, clocks.
bool fence_like(const Inst& in) {
  switch (in.op) {
    case Op::St: case Op::Atom: case Op::Red: case Op::CpAsync: case Op::CpAsyncCommit: case Op::CpAsyncWait:
    case Op::Stmatrix: case Op::WmmaStore: case Op::Bar: case Op::BarWarp: case Op::Membar: case Op::Call: case Op::Ret:
    case Op::Exit: case Op::Trap: case Op::Bra: case Op::BrxIdx: case Op::Nanosleep: case Op::Prefetch: case Op::Unsupported:
    case Op::MovFrameLocal:
      return true;
    default:
      return (in.flags & kReadsClock) != 0;
  }
}

bool is_reg(const Reg& r) { return r.bank != Bank::None; }

template <class F> void for_reads(const Program& p, const Inst& in, F f) {
  for (int k = 0; k < in.nsrc; ++k) f(p.regs[in.ops + in.ndst + k]);
  if (is_reg(in.guard)) f(in.guard);
  if (in.addr.kind == AddrBase::Reg && is_reg(in.addr.base)) f(in.addr.base);
  if (in.addr2.kind == AddrBase::Reg && is_reg(in.addr2.base)) f(in.addr2.base);
}

template <class F> void for_writes(const Program& p, const Inst& in, F f) {
  for (int k = 0; k < in.ndst; ++k) f(p.regs[in.ops + k]);
}

// May `x` (a load) move above `y`?
bool independent(const Program& p, const Inst& y, const Inst& x) {
  if (fence_like(y)) return false;
  if (y.op == Op::Ld && (y.flags & kBypassL1) && (x.flags & kBypassL1)) return false;  // keep volatile/.cg loads in order
  bool ok = true;
  for_writes(p, y, [&](const Reg& w) {
    for_reads(p, x, [&](const Reg& r) { ok = ok && !(w == r); });   // x reads what y writes
    for_writes(p, x, [&](const Reg& r) { ok = ok && !(w == r); });  // both write it
  });
  for_reads(p, y, [&](const Reg& r) {
    for_writes(p, x, [&](const Reg& w) { ok = ok && !(w == r); });  // y reads what x overwrites
  });
  return ok;
}

}  // namespace

void hoist_loads(Program& p) {
  const std::size_t n = p.insts.size();
  std::vector<char> leader(n + 1, 0);
  for (const Function& f : p.functions)
    if (f.first < n) leader[f.first] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const Inst& in = p.insts[i];
    if (in.op == Op::Bra && in.target >= 0) leader[static_cast<std::size_t>(in.target)] = 1;
    if (in.reconv >= 0 && static_cast<std::size_t>(in.reconv) < n) leader[static_cast<std::size_t>(in.reconv)] = 1;
    if (fence_like(in) && in.op != Op::St && in.op != Op::Atom && in.op != Op::Red) leader[i + 1] = 1;
  }
  for (const auto& table : p.branch_tables)
    for (std::uint32_t t : table) leader[t] = 1;
  std::size_t start = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (leader[j]) start = j;
    if (!hoistable(p.insts[j])) continue;
    std::size_t k = j;
    while (k > start && independent(p, p.insts[k - 1], p.insts[j])) --k;
    if (k < j) std::rotate(p.insts.begin() + static_cast<std::ptrdiff_t>(k), p.insts.begin() + static_cast<std::ptrdiff_t>(j),
                           p.insts.begin() + static_cast<std::ptrdiff_t>(j) + 1);
  }
}

// ptxas applies a floating-point negation or absolute value as an operand modifier of the
// instruction that reads it (FADD, FMUL, FFMA, FSETP, DADD, DFMA, MUFU take -x and |x|), so a
// neg/abs read only by such instructions becomes no machine instruction at all.
namespace {

bool takes_modifier(const Inst& in) {
  switch (in.op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Fma: case Op::Mad: case Op::Min: case Op::Max: case Op::Setp:
    case Op::Rcp: case Op::Rsqrt: case Op::Sqrt: case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos:
      return in.type == Ty::F32 || in.type == Ty::F64;
    default:
      return false;
  }
}

}  // namespace

void fold_operand_modifiers(Program& p) {
  for (Inst& m : p.insts) {
    if ((m.op != Op::Neg && m.op != Op::Abs) || (m.type != Ty::F32 && m.type != Ty::F64) || m.ndst != 1 || is_reg(m.guard)) continue;
    const Reg d = p.regs[m.ops];
    bool read = false, foldable = true;
    for (const Inst& u : p.insts) {
      if (u.func != m.func) continue;
      bool as_source = false, other = false;
      for (int k = 0; k < u.nsrc; ++k) as_source |= p.regs[u.ops + u.ndst + k] == d;
      other |= is_reg(u.guard) && u.guard == d;
      other |= u.addr.kind == AddrBase::Reg && u.addr.base == d;
      other |= u.addr2.kind == AddrBase::Reg && u.addr2.base == d;
      if (!as_source && !other) continue;
      read = true;
      if (other || !takes_modifier(u) || u.type != m.type) foldable = false;
    }
    if (read && foldable) m.flags |= kFoldedModifier;
  }
}

}  // namespace kernsim::isa::ptx
