// The passes that make a decoded PTX program look like what ptxas makes of it, and the one
// function that runs them in order (apply_ptxas_passes, ptxas_passes.h). Each pass changes only
// the order of a basic block's instructions (load sinking: moves loads from a block into the
// then-part that follows it), or per-instruction marks the timing model reads, or (if-conversion)
// turns a branch around a short body into predicates on the body; none changes what the program
// computes.
//
// Load hoisting: ptxas schedules each basic block so that loads issue as early as their operands
// allow, which lets a warp have several loads in flight where the PTX has a load followed by its
// use. An in-order timing model of the PTX would otherwise charge one full latency per such load.
// This pass moves every load up within its basic block past instructions it does not depend on;
// it never crosses an instruction the table marks fence-like (stores, atomics, barriers, fences,
// calls, branches) or a clock read, so the program computes exactly what it computed before; the
// one exception is a plain store to another state space than the load's (st.local or st.shared
// before an ld.global: PTX's .global, .shared, .local and .const windows never overlap), which
// ptxas's SASS issues after the loads below it. clang keeps a tile loaded to registers in a local
// array (ld.global; st.local; ld.global; st.shared; ...): in PTX order each store waited for its
// load before the next load issued, one latency per load where the SASS has all of them in
// flight (hgemm_mma_tn of the grown set: eight LDG before the first STL/STS; sgemm_f4_128: three
// LDG before its four STS).
// A load whose address is computed after an instruction it does not depend on (the PTX computes
// each address just before its load, between the uses of earlier loads) takes its address
// arithmetic with it: the integer instructions its address depends on move up first, as far as
// their own operands allow, as ptxas schedules them. Without that, a loop that sums products of
// loads (ld, fma, add addr, ld, fma, ...) kept one load in flight per warp where its SASS has all
// of them (the naive SGEMM's eight LDGs before its four FFMAs: one latency per iteration, not four).
#include "isa/ptx/ptxas_passes.h"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>

#include "isa/ptx/ops.h"

namespace kernsim::isa::ptx {
namespace {

bool hoistable(const Inst& in) {
  if (in.op != Op::Ld || (in.flags & kReadsClock)) return false;
  if (in.space != Space::Global && in.space != Space::Generic && in.space != Space::Shared && in.space != Space::Const) return false;
  return in.addr.kind == AddrBase::Reg || in.addr.kind == AddrBase::Absolute;
}

bool is_reg(const Reg& r) { return r.bank != Bank::None; }

// A plain (weak, not volatile or scoped) st to an explicit state space.
bool plain_store(const Inst& in) {
  if (in.op != Op::St || (in.flags & (kBypassL1 | kClusterSpace | kReadsClock))) return false;
  return in.space == Space::Global || in.space == Space::Shared || in.space == Space::Local;
}

// May a load from `load_space` move above the store `y`? Only a plain store to another explicit
// state space than the load's (they cannot overlap); a generic load may read any of them.
bool passes_store(const Inst& y, Space load_space) {
  if (!plain_store(y) || load_space == Space::Generic || load_space == Space::SharedCluster) return false;
  return y.space != load_space;
}

// Instruction indices that start a basic block (branch targets, reconvergence points, the
// instruction after a fence-like one, function entries): the blocks hoist_loads, sink_loads and
// fold_predicate_logic work in. For hoist_loads (`split_at_stores` false) a plain store does not
// end a block: whether a load may pass it is decided per load (passes_store).
std::vector<char> block_leaders(const Program& p, bool split_at_stores = true) {
  const std::size_t n = p.insts.size();
  std::vector<char> leader(n + 1, 0);
  for (const Function& f : p.functions)
    if (f.first < n) leader[f.first] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const Inst& in = p.insts[i];
    if (in.op == Op::Bra && in.target >= 0) leader[static_cast<std::size_t>(in.target)] = 1;
    if (in.reconv >= 0 && static_cast<std::size_t>(in.reconv) < n) leader[static_cast<std::size_t>(in.reconv)] = 1;
    if (fence_like(in) && (split_at_stores || !plain_store(in))) leader[i + 1] = 1;  // branches are fence-like too
  }
  for (const auto& table : p.branch_tables)
    for (std::uint32_t t : table) leader[t] = 1;
  return leader;
}

template <class F> void for_reads(const Program& p, const Inst& in, F f) {
  for (int k = 0; k < in.nsrc; ++k) f(p.regs[in.ops + in.ndst + k]);
  if (is_reg(in.guard)) f(in.guard);
  if (in.addr.kind == AddrBase::Reg && is_reg(in.addr.base)) f(in.addr.base);
  if (in.addr2.kind == AddrBase::Reg && is_reg(in.addr2.base)) f(in.addr2.base);
}

template <class F> void for_writes(const Program& p, const Inst& in, F f) {
  for (int k = 0; k < in.ndst; ++k) f(p.regs[in.ops + k]);
}

// Address arithmetic a load may take up with it: integer instructions with no side effects.
bool address_arith(const Inst& in) {
  if (fence_like(in) || in.op == Op::Ld || in.ndst < 1) return false;
  return in.unit == Unit::IntAlu || in.unit == Unit::IntMul || in.unit == Unit::Nop;
}

// May `x` (a load or its address arithmetic) move above `y`? `load_space`: the space of the load
// `x` is or computes the address of (Generic: no store may be passed).
bool independent(const Program& p, const Inst& y, const Inst& x, Space load_space = Space::Generic) {
  if (fence_like(y) && !passes_store(y, load_space)) return false;
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

// The address arithmetic of the load at j within its block [start, j): the instructions that
// compute a register its address (or guard) reads, transitively, back to the first producer that
// is not address arithmetic (a load, a fence-like instruction: nothing above it can move past it).
// Positions in increasing order.
void address_slice(const Program& p, std::size_t start, std::size_t j, std::vector<std::size_t>& slice) {
  slice.clear();
  std::vector<Reg> need;
  for_reads(p, p.insts[j], [&](const Reg& r) { need.push_back(r); });
  for (std::size_t i = j; i-- > start;) {
    const Inst& y = p.insts[i];
    if (fence_like(y) && !passes_store(y, p.insts[j].space)) break;
    bool feeds = false;
    for_writes(p, y, [&](const Reg& w) { feeds = feeds || std::find(need.begin(), need.end(), w) != need.end(); });
    if (!feeds) continue;
    if (!address_arith(y)) break;
    slice.push_back(i);
    for_reads(p, y, [&](const Reg& r) { need.push_back(r); });
  }
  // a predicated load (if_convert) keeps the value its destination had where the guard is off:
  // the move that sets that default goes up with it (ptxas sets it early), or the load could not
  // pass it
  const Inst& ld = p.insts[j];
  if (is_reg(ld.guard))
    for_writes(p, ld, [&](const Reg& d) {
      for (std::size_t i = j; i-- > start;) {
        const Inst& y = p.insts[i];
        bool writes = false;
        for_writes(p, y, [&](const Reg& w) { writes = writes || w == d; });
        if (!writes) continue;
        if (y.op == Op::Mov && address_arith(y) && !is_reg(y.guard) && std::find(slice.begin(), slice.end(), i) == slice.end())
          slice.push_back(i);
        break;
      }
    });
  std::sort(slice.begin(), slice.end());
}

// Removes the instructions marked in `gone`, renumbering branch targets, reconvergence points,
// branch tables and function ranges (a removed instruction's index becomes its successor's).
void erase_insts(Program& p, const std::vector<char>& gone) {
  const std::size_t n = p.insts.size();
  std::vector<std::int64_t> where(n + 1);
  std::int64_t kept = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    where[i] = kept;
    if (i < n && !gone[i]) ++kept;
  }
  auto renumber = [&](std::int32_t& x) {
    if (x >= 0 && static_cast<std::size_t>(x) <= n) x = static_cast<std::int32_t>(where[static_cast<std::size_t>(x)]);
  };
  std::vector<Inst> out;
  out.reserve(static_cast<std::size_t>(kept));
  for (std::size_t i = 0; i < n; ++i) {
    if (gone[i]) continue;
    Inst in = p.insts[i];
    if (in.op == Op::Bra || in.op == Op::BrxIdx) renumber(in.target);
    renumber(in.reconv);
    out.push_back(in);
  }
  p.insts = std::move(out);
  for (auto& table : p.branch_tables)
    for (std::uint32_t& t : table) t = static_cast<std::uint32_t>(where[std::min<std::size_t>(t, n)]);
  for (Function& f : p.functions) {
    f.first = static_cast<std::uint32_t>(where[std::min<std::size_t>(f.first, n)]);
    f.end = static_cast<std::uint32_t>(where[std::min<std::size_t>(f.end, n)]);
  }
}

}  // namespace

void hoist_loads(Program& p) {
  const std::size_t n = p.insts.size();
  const std::vector<char> leader = block_leaders(p, false);
  // moves insts[j] up past what it does not depend on (a store only where a load of `space` may pass it)
  auto raise = [&](std::size_t start, std::size_t j, Space space) {
    std::size_t k = j;
    while (k > start && independent(p, p.insts[k - 1], p.insts[j], space)) --k;
    if (k < j) std::rotate(p.insts.begin() + static_cast<std::ptrdiff_t>(k), p.insts.begin() + static_cast<std::ptrdiff_t>(j),
                           p.insts.begin() + static_cast<std::ptrdiff_t>(j) + 1);
  };
  std::size_t start = 0;
  std::vector<std::size_t> slice;
  for (std::size_t j = 0; j < n; ++j) {
    if (leader[j]) start = j;
    if (!hoistable(p.insts[j])) continue;
    address_slice(p, start, j, slice);
    const Space space = p.insts[j].space;
    for (std::size_t q : slice) raise(start, q, space);  // earliest first: moving one never moves a later one
    raise(start, j, space);
  }
}

// If-conversion: ptxas turns a conditional skip of a short body (`@p bra J; body; J:`, or laid
// out the other way round, `@p bra T; bra.uni J; T: body; J:`) into the body with every
// instruction predicated (on !p, or on p for the second form) and no branch, so every warp issues
// the body's instructions, those whose lanes all skip it with no lane on, in the block around it.
// Which bodies ptxas predicates (predicated_body), read off ptxas 13.0 SASS for sm_90a:
//  - shared-memory accesses and arithmetic, at most kSharedBodyMax instructions: scan_blelloch's
//    up- and down-sweep bodies (`if (tid < d) { temp[bi] += temp[ai]; }`: 10 PTX instructions, 8
//    predicated SASS ones) and reduce_shared_f32's tree step; ncu's instruction count of
//    scan_blelloch_16M (86.0 M warp instructions) is the SASS's with every warp issuing every body;
//  - loads from memory other than shared (global, generic, local, constant) with arithmetic and
//    other loads, no stores, barriers or branches, at most kLoadBodyMax instructions: a
//    bounds-checked load (`x = i < n ? a[i] : 0`) is a predicated LDG that issues with the loads
//    before and after it (the register-blocked SGEMM of the grown set loads its tiles through four
//    of them: four latencies per K step in PTX order, where its SASS has the four LDGs issued
//    together).
// Bodies with global stores keep their branch: transpose_tiled's LDS + STG body and the marching
// stencils' halo loads stay branches in the SASS (the tile's one LDG + STS body is predicated
// there, a case this pass leaves alone). Every body is straight-line, entered only through the
// branch, unguarded, and writes no p. The branches go in one of two ways. A load body's branch
// (and the second form's bra.uni) is erased: the body joins the block around it, so that hoisting
// issues its loads with the loads before it, which is why ptxas predicates them. A shared body's
// branches fold into jumps to the next instruction (kFoldedModifier: no machine instruction, no
// time, still the end of a block), and its own trailing `bra.uni J` folds too (ptxas lays the
// join out after the body); erasing them instead (the SASS has the predicated LDS in the block
// after the barrier, its address computed before it) moves 18 of the grown set's 164 predictions
// by up to 6% through the sampler's instruction counts and the blocks hoisting sees (MAPE 11.370%
// -> 11.357%), so it waits for a change that is measured as one.
namespace {

constexpr std::size_t kSharedBodyMax = 12;
constexpr std::size_t kLoadBodyMax = 8;

enum class Body { None, Shared, Load };

bool shared_access(const Inst& in) { return (in.op == Op::Ld || in.op == Op::St) && in.space == Space::Shared; }

// Arithmetic with a result, or a plain shared-memory ld/st.
bool shared_body_inst(const Inst& in) {
  if (in.op == Op::Ld || in.op == Op::St) return in.space == Space::Shared && !(in.flags & kBypassL1);
  return !fence_like(in) && in.ndst >= 1 && (is_math(in.unit) || in.unit == Unit::Nop || in.unit == Unit::Fp64 || in.unit == Unit::Convert);
}

// Anything but a store, barrier, fence, clock read or branch.
bool load_body_inst(const Inst& in) { return !fence_like(in) && in.op != Op::Bra && in.op != Op::BrxIdx; }

bool memory_load(const Inst& in) { return in.op == Op::Ld && in.space != Space::Shared && in.space != Space::Param; }

void fold_into_jump(Inst& b, std::size_t next) {
  b.guard = Reg{};
  b.guard_neg = false;
  b.target = static_cast<std::int32_t>(next);
  b.reconv = static_cast<std::int32_t>(next);
  b.flags |= kFoldedModifier;
}

// Which kind of body [first, last) is under the skip's predicate `guard`, if ptxas predicates it.
Body predicated_body(const Program& p, std::size_t first, std::size_t last, const Reg& guard) {
  bool shared_ok = true, load_ok = true, any_shared = false, any_load = false;
  for (std::size_t i = first; i < last; ++i) {
    const Inst& in = p.insts[i];
    bool writes_guard = false;
    for_writes(p, in, [&](const Reg& w) { writes_guard = writes_guard || w == guard; });
    if (writes_guard || is_reg(in.guard)) return Body::None;
    shared_ok = shared_ok && shared_body_inst(in);
    load_ok = load_ok && load_body_inst(in);
    any_shared = any_shared || shared_access(in);
    any_load = any_load || memory_load(in);
  }
  if (shared_ok && any_shared && last - first <= kSharedBodyMax) return Body::Shared;
  if (load_ok && any_load && last - first <= kLoadBodyMax) return Body::Load;
  return Body::None;
}

// Where the body from `first` to `join` ends: at the join, or at its own unguarded `bra.uni join`
// (`last`); false when a branch or the function's end comes first, or it is longer than any body
// ptxas predicates (a join laid out before `first` is only reached through such a bra.uni).
bool body_end(const Program& p, const Function& f, std::size_t first, std::size_t join, std::size_t& last) {
  for (last = first; last < f.end && last - first <= std::max(kSharedBodyMax, kLoadBodyMax); ++last) {
    if (last == join) return last > first;
    const Inst& in = p.insts[last];
    if (in.op == Op::Bra || in.op == Op::BrxIdx)
      return in.op == Op::Bra && !is_reg(in.guard) && in.target == static_cast<std::int32_t>(join) && last > first;
  }
  return false;
}

// Whether nothing but the branch at `from` enters the body [first, last) or lands on a removed
// branch between `from` and `first`: no branch target, table entry or reconvergence point inside.
bool entered_only_by(const Program& p, const Function& f, std::size_t from, std::size_t first, std::size_t last) {
  auto inside = [&](std::int64_t t) { return t > static_cast<std::int64_t>(from) && t < static_cast<std::int64_t>(last) && t != static_cast<std::int64_t>(first); };
  for (std::size_t i = f.first; i < f.end; ++i) {
    const Inst& in = p.insts[i];
    if (in.op == Op::Bra && (inside(in.target) || (in.target == static_cast<std::int32_t>(first) && i != from))) return false;
    if (in.op == Op::BrxIdx)
      for (std::uint32_t t : p.branch_tables[in.imm])
        if (inside(t) || t == first) return false;
    if (in.reconv >= 0 && (inside(in.reconv) || (in.reconv == static_cast<std::int32_t>(first) && i != from))) return false;
  }
  return true;
}

}  // namespace

int if_convert_skips(Program& p) {
  std::vector<char> gone(p.insts.size(), 0);
  int converted = 0;
  for (const Function& f : p.functions)
    for (std::size_t j = f.first; j + 2 < f.end; ++j) {
      const Inst& b = p.insts[j];
      if (b.op != Op::Bra || !is_reg(b.guard) || b.target < 0 || b.target == static_cast<std::int32_t>(j) || b.target == static_cast<std::int32_t>(j + 1))
        continue;
      const Inst& next = p.insts[j + 1];
      // `@p bra T; bra.uni J; T: body; J:` : the body runs where p holds
      const bool around = b.target == static_cast<std::int32_t>(j + 2) && next.op == Op::Bra && !is_reg(next.guard) && next.target > b.target;
      const std::size_t first = around ? j + 2 : j + 1;
      std::size_t last = 0;
      if (!body_end(p, f, first, static_cast<std::size_t>(around ? next.target : b.target), last)) continue;
      const Body kind = predicated_body(p, first, last, b.guard);
      if (kind == Body::None || !entered_only_by(p, f, j, first, last)) continue;
      for (std::size_t i = first; i < last; ++i) {
        p.insts[i].guard = b.guard;
        p.insts[i].guard_neg = around ? b.guard_neg : !b.guard_neg;
      }
      if (kind == Body::Shared) {  // the branches fold into jumps to the next instruction (see above)
        fold_into_jump(p.insts[j], j + 1);
        if (around) fold_into_jump(p.insts[j + 1], j + 2);
        if (p.insts[last].op == Op::Bra) p.insts[last].flags |= kFoldedModifier;
      } else {
        gone[j] = 1;
        if (around) gone[j + 1] = 1;
      }
      j = last;
      ++converted;
    }
  if (converted) erase_insts(p, gone);
  return converted;
}

// Load sinking: a load whose value only the then-part of an if reads (`@p bra join; then...;
// join:`) is issued by ptxas in the then-part, after the branch, not before it: clang hoists loads
// that every case of a switch reads above the switch's range check (its default reads none), and
// ptxas's SASS loads them after that check, which waits for the loaded case number, so a warp
// makes two round trips to memory where the PTX has all three loads in flight together
// (switch_ops of the grown set: half the H200's time in kernsim). The loads move to the start of
// the then-part, in their order; the program computes what it computed (lanes that branch past
// never read them).
namespace {

// Moves the instructions at `moved` (increasing, all in [from, j)) to just after position j,
// keeping their order and every other instruction's, and renumbers branch targets,
// reconvergence points and branch tables.
void move_after(Program& p, std::size_t from, std::size_t j, const std::vector<std::size_t>& moved) {
  std::vector<std::size_t> order;  // new position -> old index, over [from, j]
  for (std::size_t i = from; i <= j; ++i)
    if (std::find(moved.begin(), moved.end(), i) == moved.end()) order.push_back(i);
  order.insert(order.end(), moved.begin(), moved.end());
  std::vector<std::int64_t> where(p.insts.size());
  for (std::size_t i = 0; i < where.size(); ++i) where[i] = static_cast<std::int64_t>(i);
  std::vector<Inst> copy;
  for (std::size_t i : order) copy.push_back(p.insts[i]);
  for (std::size_t k = 0; k < order.size(); ++k) {
    where[order[k]] = static_cast<std::int64_t>(from + k);
    p.insts[from + k] = copy[k];
  }
  auto renumber = [&](std::int32_t& x) {
    if (x >= 0 && static_cast<std::size_t>(x) < where.size()) x = static_cast<std::int32_t>(where[static_cast<std::size_t>(x)]);
  };
  for (Inst& in : p.insts) {
    if (in.op == Op::Bra || in.op == Op::BrxIdx) renumber(in.target);
    renumber(in.reconv);
  }
  for (auto& table : p.branch_tables)
    for (std::uint32_t& t : table) {
      auto x = static_cast<std::int32_t>(t);
      renumber(x);
      t = static_cast<std::uint32_t>(x);
    }
}

}  // namespace

void sink_loads(Program& p) {
  const std::vector<char> leader = block_leaders(p);
  for (const Function& f : p.functions)
    for (std::size_t j = f.first; j + 1 < f.end; ++j) {
      const Inst& b = p.insts[j];
      if (b.op != Op::Bra || !is_reg(b.guard) || b.target < 0 || b.target != b.reconv) continue;
      const std::size_t then_first = j + 1, join = static_cast<std::size_t>(b.target);
      if (join <= then_first || join > f.end) continue;
      // the then-part is entered only from the branch: nothing else jumps into [then_first, join)
      bool closed = true;
      for (std::size_t i = f.first; i < f.end && closed; ++i) {
        const Inst& in = p.insts[i];
        const bool inside = i >= then_first && i < join;
        if (in.op == Op::Bra && in.target >= 0 && !inside && i != j)
          closed = static_cast<std::size_t>(in.target) < then_first || static_cast<std::size_t>(in.target) >= join;
        if (in.op == Op::BrxIdx && !inside)
          for (std::uint32_t t : p.branch_tables[in.imm]) closed = closed && (t < then_first || t >= join);
      }
      if (!closed) continue;
      std::size_t start = j;
      while (start > f.first && !leader[start]) --start;
      std::vector<std::size_t> moved;
      for (std::size_t i = start; i < j; ++i) {
        const Inst& ld = p.insts[i];
        if (!hoistable(ld) || is_reg(ld.guard) || ld.ndst < 1) continue;
        bool ok = true;
        // nothing after it in the block is fence-like, writes what it reads or writes, or reads
        // what it writes; its values are read only in the then-part
        for (std::size_t k = i + 1; k < j && ok; ++k) ok = independent(p, ld, p.insts[k]) && independent(p, p.insts[k], ld);
        for_writes(p, ld, [&](const Reg& d) {
          for (std::size_t k = f.first; k < f.end && ok; ++k) {
            if (k == i || (k >= then_first && k < join)) continue;
            for_reads(p, p.insts[k], [&](const Reg& r) { ok = ok && !(r == d); });
          }
        });
        if (ok) moved.push_back(i);
      }
      if (!moved.empty()) move_after(p, moved.front(), j, moved);
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

// Predicate logic: ptxas folds two PTX patterns into the instruction before them. A comparison
// takes a predicate operand and a boolean op (ISETP/FSETP ... .AND P1: PTX's setp.cmp.and), so an
// and/or/xor.pred of a setp's result, read by nothing else, is no machine instruction; and LOP3
// writes a predicate (the result compared with zero), so a setp.eq/ne of an and/or/xor/not/lop3
// result against 0, read by nothing else, is none either. Found on collatz_4M of the grown set:
// its loop is 10 PTX instructions, 7 on the ALU pipe, and 8 SASS instructions, 4 on the ALU pipe
// (LOP3 P0 for and + setp.ne; ISETP, ISETP and BRA P0, P1 for setp, setp, and.pred, bra).
namespace {

bool is_zero_constant(const Program& p, const Reg& r) {
  if (r.bank == Bank::C32) {
    const std::size_t at = std::size_t{r.idx} * 32;
    return at < p.c32.size() && std::all_of(p.c32.begin() + static_cast<std::ptrdiff_t>(at),
                                             p.c32.begin() + static_cast<std::ptrdiff_t>(at + 32), [](std::uint32_t v) { return v == 0; });
  }
  if (r.bank == Bank::C64) {
    const std::size_t at = std::size_t{r.idx} * 32;
    return at < p.c64.size() && std::all_of(p.c64.begin() + static_cast<std::ptrdiff_t>(at),
                                             p.c64.begin() + static_cast<std::ptrdiff_t>(at + 32), [](std::uint64_t v) { return v == 0; });
  }
  return false;
}

// One destination register (a setp's optional second predicate absent).
bool single_dst(const Program& p, const Inst& in) { return in.ndst == 1 || (in.ndst == 2 && !is_reg(p.dst(in, 1))); }

bool is_logic(const Inst& in) {
  return (in.op == Op::And || in.op == Op::Or || in.op == Op::Xor || in.op == Op::Not || in.op == Op::Lop3) && in.type != Ty::Pred;
}

}  // namespace

void fold_predicate_logic(Program& p) {
  const std::vector<char> leader = block_leaders(p);
  for (const Function& f : p.functions) {
    // per register of the function: how often it is read and written, and its one writer
    std::map<std::pair<Bank, std::uint32_t>, std::pair<int, int>> reads_writes;
    std::map<std::pair<Bank, std::uint32_t>, std::size_t> writer;
    for (std::size_t i = f.first; i < f.end; ++i) {
      for_reads(p, p.insts[i], [&](const Reg& r) { ++reads_writes[{r.bank, r.idx}].first; });
      for_writes(p, p.insts[i], [&](const Reg& r) {
        if (!is_reg(r)) return;
        ++reads_writes[{r.bank, r.idx}].second;
        writer[{r.bank, r.idx}] = i;
      });
    }
    // the one writer of `r`, when `r` is read once (by the instruction at `reader`) and that writer
    // is in the reader's basic block, unguarded
    auto sole_feeder = [&](const Reg& r, std::size_t reader) -> const Inst* {
      if (r.bank != Bank::Pred && r.bank != Bank::R32 && r.bank != Bank::R64) return nullptr;
      const auto rw = reads_writes.find({r.bank, r.idx});
      if (rw == reads_writes.end() || rw->second != std::pair{1, 1}) return nullptr;
      const std::size_t w = writer[{r.bank, r.idx}];
      if (w >= reader) return nullptr;
      for (std::size_t k = w + 1; k <= reader; ++k)
        if (leader[k]) return nullptr;
      const Inst& in = p.insts[w];
      return is_reg(in.guard) || (in.flags & kFoldedModifier) ? nullptr : &in;
    };
    for (std::size_t i = f.first; i < f.end; ++i) {
      Inst& m = p.insts[i];
      if (is_reg(m.guard) || !single_dst(p, m) || m.nsrc != 2) continue;
      bool fold = false;
      if ((m.op == Op::And || m.op == Op::Or || m.op == Op::Xor) && m.type == Ty::Pred)
        for (int k = 0; k < 2 && !fold; ++k) {
          const Inst* w = sole_feeder(p.src(m, k), i);
          fold = w && w->op == Op::Setp && w->boolop == BoolOp::None && single_dst(p, *w);
        }
      if (m.op == Op::Setp && m.boolop == BoolOp::None && (m.cmp == Cmp::Eq || m.cmp == Cmp::Ne) && !ty_is_float(m.type) &&
          is_zero_constant(p, p.src(m, 1))) {
        const Inst* w = sole_feeder(p.src(m, 0), i);
        fold = w && is_logic(*w);
      }
      if (fold) m.flags |= kFoldedModifier;
    }
  }
}

// Uniform datapath: ptxas computes values that are the same in every lane of a warp once, in
// uniform registers, and performs an integer atomic add on a warp-uniform address once per warp
// (the warp's lanes' values summed first).
void mark_uniform_addresses(Program& p) {
  for (const Function& f : p.functions) {
    // registers of this function that may differ between lanes
    std::vector<char> varying(static_cast<std::size_t>(f.n32 + f.n64 + f.npred), 0);
    auto idx = [&](const Reg& r) -> int {
      switch (r.bank) {
        case Bank::R32: return static_cast<int>(r.idx);
        case Bank::R64: return static_cast<int>(f.n32 + r.idx);
        case Bank::Pred: return static_cast<int>(f.n32 + f.n64 + r.idx);
        default: return -1;
      }
    };
    auto special_varies = [&](const Reg& r) {
      if (r.bank != Bank::S32 && r.bank != Bank::S64) return false;
      const std::string& n = r.bank == Bank::S32 ? p.special_names32[r.idx] : p.special_names64[r.idx];
      return n.rfind("%tid", 0) == 0 || n == "%laneid" || n.rfind("%lanemask", 0) == 0;
    };
    auto varies = [&](const Reg& r) {
      int i = idx(r);
      return (i >= 0 && varying[static_cast<std::size_t>(i)]) || special_varies(r);
    };
    auto addr_varies = [&](const Inst& in) { return in.addr.kind == AddrBase::Reg && varies(in.addr.base); };
    bool changed = true;
    while (changed) {
      changed = false;
      for (std::uint32_t i = f.first; i < f.end; ++i) {
        const Inst& in = p.insts[i];
        bool v = in.guard.bank != Bank::None && varies(in.guard);
        for (int k = 0; k < in.nsrc && !v; ++k) v = varies(p.regs[in.ops + in.ndst + k]);
        switch (op_info(in.op).lanes) {
          case Lanes::Sources: break;
          case Lanes::Loaded: v = v || (in.space != Space::Param && addr_varies(in)) || in.addr.kind == AddrBase::FrameLocal ||
                                  in.addr.kind == AddrBase::FrameParam; break;
          case Lanes::Varying: v = true; break;
          case Lanes::Uniform: v = false; break;  // same result in every lane
        }
        if (!v) continue;
        for (int k = 0; k < in.ndst; ++k) {
          int d = idx(p.regs[in.ops + k]);
          if (d >= 0 && !varying[static_cast<std::size_t>(d)]) {
            varying[static_cast<std::size_t>(d)] = 1;
            changed = true;
          }
        }
      }
    }
    for (std::uint32_t i = f.first; i < f.end; ++i) {
      Inst& in = p.insts[i];
      const bool mem = in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red;
      if (!mem || in.addr.kind == AddrBase::FrameLocal || in.addr.kind == AddrBase::FrameParam) continue;
      if (addr_varies(in)) continue;
      in.flags |= kUniformAddress;
      const bool int_add = static_cast<AtomOp>(in.sub) == AtomOp::Add && !ty_is_float(in.type);
      if ((in.op == Op::Atom || in.op == Op::Red) && int_add) in.flags |= kWarpAggregated;
    }
  }
}

// Shared increments: ptxas compiles a shared-memory atomic add of the constant 1 whose result
// nothing reads (`atomicAdd(&hist[bin], 1u)`) to ATOMS.POPC.INC, which adds the number of lanes on
// each word once (read off ptxas 13.0 SASS for sm_90a: histogram_shared and hist_pow_shared of
// the grown set; an add of a run-time value is ATOMS.ADD, one lane after another per word).
void mark_shared_increments(Program& p) {
  auto is_one = [&](const Reg& r) {
    if (r.bank != Bank::C32) return false;
    const std::size_t at = std::size_t{r.idx} * 32;
    return at < p.c32.size() && std::all_of(p.c32.begin() + static_cast<std::ptrdiff_t>(at),
                                             p.c32.begin() + static_cast<std::ptrdiff_t>(at + 32), [](std::uint32_t v) { return v == 1; });
  };
  for (const Function& f : p.functions)
    for (std::uint32_t i = f.first; i < f.end; ++i) {
      Inst& in = p.insts[i];
      if ((in.op != Op::Atom && in.op != Op::Red) || in.space != Space::Shared || static_cast<AtomOp>(in.sub) != AtomOp::Add) continue;
      if (ty_is_float(in.type) || ty_bits(in.type) != 32 || in.nsrc != 1 || !is_one(p.src(in, 0))) continue;
      bool read = false;
      if (in.op == Op::Atom && is_reg(p.dst(in, 0)))
        for (std::uint32_t k = f.first; k < f.end && !read; ++k)
          for_reads(p, p.insts[k], [&](const Reg& r) { read = read || r == p.dst(in, 0); });
      if (!read) in.flags |= kPopcInc;
    }
}

namespace {

bool is_global_load(const Inst& in) {
  return in.op == Op::Ld && (in.space == Space::Global || in.space == Space::Generic) && in.addr.kind == AddrBase::Reg;
}

}  // namespace

// Loop unrolling: see ptxas_passes.h.
int mark_unrolled_loads(Program& p, const std::vector<int>& sass_loop_loads, const std::vector<int>& sass_loop_load_bytes) {
  if (p.functions.empty()) return 0;
  const Function& f = p.functions[0];
  // innermost PTX loops of the kernel function: backward branches, [header, latch]
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops;
  for (std::uint32_t i = f.first; i < f.end; ++i) {
    const Inst& in = p.insts[i];
    if (in.op == Op::Bra && in.target >= static_cast<std::int32_t>(f.first) && static_cast<std::uint32_t>(in.target) <= i)
      loops.push_back({static_cast<std::uint32_t>(in.target), i});
  }
  std::sort(loops.begin(), loops.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> inner;
  for (std::size_t a = 0; a < loops.size(); ++a) {
    bool contains = false;
    for (std::size_t b = 0; b < loops.size() && !contains; ++b)
      contains = b != a && loops[b] != loops[a] && loops[b].first >= loops[a].first && loops[b].second <= loops[a].second;
    if (!contains) inner.push_back(loops[a]);
  }
  auto reg_index = [&](const Reg& r) -> int {
    switch (r.bank) {
      case Bank::R32: return static_cast<int>(r.idx);
      case Bank::R64: return static_cast<int>(f.n32 + r.idx);
      case Bank::Pred: return static_cast<int>(f.n32 + f.n64 + r.idx);
      default: return -1;
    }
  };
  // Which SASS loop is which PTX loop: ptxas may lay the loops out in another order, so a
  // SASS loop matches a PTX loop when it loads a whole multiple of the PTX loop's loads and,
  // where the widths are known, the same multiple of its bytes per lane. Each PTX loop takes the
  // first such SASS loop from where the previous match left off (then from the start).
  const std::size_t nsass = sass_loop_loads.size();
  const bool widths = sass_loop_load_bytes.size() == nsass;
  std::vector<char> used(nsass, 0);
  auto factor_of = [&](std::size_t j, int ptx_loads, int ptx_bytes) {
    const int n = sass_loop_loads[j];
    if (used[j] || n <= 0 || n % ptx_loads) return 0;
    const int f = n / ptx_loads;
    if (widths && sass_loop_load_bytes[j] != f * ptx_bytes) return 0;
    return f;
  };
  std::size_t cursor = 0;
  int unrolled = 0;
  for (const auto& [h, l] : inner) {
    int ptx_loads = 0, ptx_bytes = 0;
    for (std::uint32_t i = h; i <= l; ++i)
      if (is_global_load(p.insts[i])) {
        ++ptx_loads;
        ptx_bytes += std::max(1, ty_bits(p.insts[i].type) / 8) * std::max<int>(1, p.insts[i].vec);
      }
    if (!ptx_loads) continue;
    std::size_t j = nsass;
    for (std::size_t k = 0; k < nsass && j == nsass; ++k) {
      const std::size_t c = (cursor + k) % nsass;
      if (factor_of(c, ptx_loads, ptx_bytes)) j = c;
    }
    if (j == nsass) continue;  // no SASS loop like it: assume nothing
    const int factor = factor_of(j, ptx_loads, ptx_bytes);
    used[j] = 1;
    cursor = j + 1;
    // a remainder loop ptxas keeps after the unrolled one carries the PTX loop's own count
    if (factor > 1 && cursor < nsass && factor_of(cursor, ptx_loads, ptx_bytes) == 1) used[cursor++] = 1;
    if (factor < 2) continue;
    ++unrolled;
    for (std::uint32_t i = h; i <= l; ++i) {
      Inst& ld = p.insts[i];
      if (!is_global_load(ld)) continue;
      // registers that depend on this load's value anywhere in the loop (around the back edge too)
      std::vector<char> tainted(static_cast<std::size_t>(f.n32 + f.n64 + f.npred), 0);
      for (int k = 0; k < ld.ndst; ++k)
        if (int d = reg_index(p.regs[ld.ops + k]); d >= 0) tainted[static_cast<std::size_t>(d)] = 1;
      for (bool changed = true; changed;) {
        changed = false;
        for (std::uint32_t j = h; j <= l; ++j) {
          const Inst& in = p.insts[j];
          bool t = false;
          for (int k = 0; k < in.nsrc && !t; ++k)
            if (int x = reg_index(p.regs[in.ops + in.ndst + k]); x >= 0) t = tainted[static_cast<std::size_t>(x)];
          if (!t && (in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom) && in.addr.kind == AddrBase::Reg)
            if (int x = reg_index(in.addr.base); x >= 0) t = tainted[static_cast<std::size_t>(x)];
          if (!t) continue;
          for (int k = 0; k < in.ndst; ++k)
            if (int d = reg_index(p.regs[in.ops + k]); d >= 0 && !tainted[static_cast<std::size_t>(d)]) {
              tainted[static_cast<std::size_t>(d)] = 1;
              changed = true;
            }
        }
      }
      const int base = reg_index(ld.addr.base);
      if (base >= 0 && tainted[static_cast<std::size_t>(base)]) continue;  // its address comes from its own value
      ld.batch = static_cast<std::uint8_t>(std::min(factor, 255));
      ld.batch_slot = p.n_batch_slots++;
    }
  }
  return unrolled;
}

// Vector shared loads: ptxas merges scalar shared loads of one base register at consecutive
// offsets into one LDS.64/LDS.128 when it can prove the address aligned to the vector's size
// (known trailing zero bits of the base: a symbol's alignment, multiplications and shifts of the
// thread index), as it does for clang's PTX of a float4 read from shared memory (`float4 a =
// *(float4*)&As[k][ty * 4]` becomes four ld.shared.b32 at +0, +4, +8, +12; the SASS has one
// LDS.128). Timed as four loads they cost four LSU issues and, where 32 lanes read 16 words 16
// bytes apart, four two-way bank conflicts where LDS.128 has two wavefronts (sgemm_f4_64 of the
// grown set: 64 ld.shared.b32 per K step, 16 LDS.128 in its SASS). The merged load takes the
// first load's place; the others go.
namespace {

// Known trailing zero bits of each 32/64-bit register of one function, from a fixed point over
// its definitions (every register starts at "all zero bits known" and falls to what every
// definition guarantees).
class KnownZeros {
 public:
  KnownZeros(const Program& p, const Function& f) : p_(p) {
    for (std::uint32_t i = f.first; i < f.end; ++i)
      for_writes(p, p.insts[i], [&](const Reg& r) {
        if (r.bank == Bank::R32 || r.bank == Bank::R64) tz_[key(r)] = bits(r);
      });
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t i = f.first; i < f.end; ++i) {
        const Inst& in = p.insts[i];
        for (int k = 0; k < in.ndst; ++k) {
          const Reg& d = p.regs[in.ops + k];
          auto it = tz_.find(key(d));
          if (it == tz_.end()) continue;
          const int v = std::min(in.ndst == 1 ? transfer(in) : 0, bits(d));
          if (v < it->second) {
            it->second = v;
            changed = true;
          }
        }
      }
    }
  }

  int of(const Reg& r) const {
    if (r.bank == Bank::C32 || r.bank == Bank::C64) {
      int z = 64;
      for (int lane = 0; lane < 32; ++lane) {
        const std::uint64_t v = constant_lane(r, lane).value_or(1);
        z = std::min(z, v == 0 ? bits(r) : std::countr_zero(v));
      }
      return z;
    }
    const auto it = tz_.find(key(r));
    return it == tz_.end() ? 0 : it->second;
  }

 private:
  static std::pair<Bank, std::uint32_t> key(const Reg& r) { return {r.bank, r.idx}; }
  static int bits(const Reg& r) { return r.bank == Bank::R32 || r.bank == Bank::C32 ? 32 : 64; }

  // Lane `lane`'s value of a constant register (C32/C64), or nothing for any other register or a
  // lane the program's constant table does not hold.
  std::optional<std::uint64_t> constant_lane(const Reg& c, int lane) const {
    const std::size_t at = std::size_t{c.idx} * 32 + static_cast<std::size_t>(lane);
    if (c.bank == Bank::C32 && at < p_.c32.size()) return p_.c32[at];
    if (c.bank == Bank::C64 && at < p_.c64.size()) return p_.c64[at];
    return std::nullopt;
  }

  int transfer(const Inst& in) const {
    if (ty_is_float(in.type) && in.op != Op::Mov) return 0;
    auto s = [&](int k) { return k < in.nsrc ? of(p_.src(in, k)) : 0; };
    switch (in.op) {
      case Op::Mov: case Op::Cvt: case Op::Cvta: return in.nsrc == 1 && !ty_is_float(in.type2) ? s(0) : 0;
      case Op::Add: case Op::Sub: case Op::Or: case Op::Xor: return std::min(s(0), s(1));
      case Op::And: return std::max(s(0), s(1));
      case Op::Mul: return (in.flags & kHi) ? 0 : s(0) + s(1);
      case Op::Mad: return (in.flags & kHi) ? 0 : std::min(s(0) + s(1), s(2));
      case Op::Shl: {
        const std::optional<std::uint64_t> v = constant_lane(p_.src(in, 1), 0);
        return s(0) + static_cast<int>(std::min<std::uint64_t>(v.value_or(0), 64));
      }
      default: return 0;
    }
  }

  const Program& p_;
  std::map<std::pair<Bank, std::uint32_t>, int> tz_;
};

bool scalar_shared_load(const Inst& in) {
  const int bytes = ty_bits(in.type) / 8;
  return in.op == Op::Ld && in.space == Space::Shared && in.vec == 1 && in.ndst == 1 && in.nsrc == 0 &&
         in.addr.kind == AddrBase::Reg && is_reg(in.addr.base) && !is_reg(in.guard) &&
         !(in.flags & (kBypassL1 | kClusterSpace | kReadsClock)) && (bytes == 4 || bytes == 8);
}

// The followers of the scalar shared load at `i` that ptxas merges with it into one vector of
// `bytes` (positions in offset order, the load itself first), or empty.
std::vector<std::size_t> vector_group(const Program& p, const std::vector<char>& leader, std::size_t end, std::size_t i, int bytes,
                                      const KnownZeros& kz) {
  const Inst& head = p.insts[i];
  const int w = ty_bits(head.type) / 8, n = bytes / w;
  if (n < 2 || head.addr.offset % bytes != 0 || kz.of(head.addr.base) < std::countr_zero(static_cast<unsigned>(bytes))) return {};
  std::vector<std::size_t> group(static_cast<std::size_t>(n), 0);
  group[0] = i;
  int found = 1;
  std::vector<Reg> dsts{p.dst(head, 0)};
  for (std::size_t j = i + 1; j < end && !leader[j] && found < n; ++j) {
    const Inst& y = p.insts[j];
    if (fence_like(y)) break;
    bool base_written = false;
    for_writes(p, y, [&](const Reg& r) { base_written = base_written || r == head.addr.base; });
    const std::int64_t k = (y.addr.offset - head.addr.offset) / w;
    if (scalar_shared_load(y) && y.type == head.type && y.addr.base == head.addr.base && y.flags == head.flags &&
        (y.addr.offset - head.addr.offset) % w == 0 && k > 0 && k < n && group[static_cast<std::size_t>(k)] == 0) {
      const Reg d = p.dst(y, 0);
      bool clear = !(d == head.addr.base) && std::find(dsts.begin(), dsts.end(), d) == dsts.end();
      for (std::size_t q = i + 1; q < j && clear; ++q) {  // nothing between reads or writes it (it is written at i now)
        for_reads(p, p.insts[q], [&](const Reg& r) { clear = clear && !(r == d); });
        for_writes(p, p.insts[q], [&](const Reg& r) { clear = clear && !(r == d); });
      }
      if (clear) {
        group[static_cast<std::size_t>(k)] = j;
        dsts.push_back(d);
        ++found;
      }
    }
    if (base_written) break;
  }
  return found == n ? group : std::vector<std::size_t>{};
}

}  // namespace

void merge_shared_loads(Program& p) {
  const std::vector<char> leader = block_leaders(p);
  std::vector<char> gone(p.insts.size(), 0);
  bool any = false;
  for (const Function& f : p.functions) {
    const KnownZeros kz(p, f);
    for (std::size_t i = f.first; i < f.end; ++i) {
      if (gone[i] || !scalar_shared_load(p.insts[i])) continue;
      std::vector<std::size_t> group = vector_group(p, leader, f.end, i, 16, kz);
      if (group.empty() && ty_bits(p.insts[i].type) == 32) group = vector_group(p, leader, f.end, i, 8, kz);
      if (group.empty()) continue;
      Inst& head = p.insts[i];
      const auto ops = static_cast<std::uint32_t>(p.regs.size());
      for (std::size_t q : group) p.regs.push_back(p.dst(p.insts[q], 0));
      head.ops = ops;
      head.ndst = head.vec = static_cast<std::uint8_t>(group.size());
      for (std::size_t k = 1; k < group.size(); ++k) gone[group[k]] = 1;
      any = true;
    }
  }
  if (any) erase_insts(p, gone);
}

// Range reduction: ptxas puts an FMUL.RZ (x / 2 pi) ahead of the MUFU.SIN/COS of a sin/cos.f32,
// in its dependency chain.
void mark_range_reduction(Program& p) {
  for (Inst& in : p.insts)
    if ((in.op == Op::Sin || in.op == Op::Cos) && in.type == Ty::F32) in.flags |= kRangeReduced;
}

// Denormal guards: ex2/lg2/rsqrt/sqrt/rcp.approx.f32 without .ftz must handle denormal inputs
// and results, which MUFU flushes; ptxas compares the input with the range limit (FSETP), scales
// it (a predicated FMUL), and scales the MUFU's result back (FMUL or FADD) — FP32 instructions in
// the value's dependency chain (Triton's exp is ex2.approx.f32; clang's __expf with -ftz not).
void mark_denormal_guards(Program& p) {
  for (Inst& in : p.insts) {
    const bool sfu = in.op == Op::Ex2 || in.op == Op::Lg2 || in.op == Op::Rsqrt || in.op == Op::Sqrt || in.op == Op::Rcp;
    if (sfu && in.type == Ty::F32 && (in.flags & kApprox) && !(in.flags & kFtz)) in.flags |= kDenormGuarded;
  }
}

// The order: if-conversion first (it changes which instructions a warp issues, not their order;
// the folded branch still ends a block, so the body stays a block for hoisting), then hoisting
// and sinking, because they are the only passes that move instructions
// (the others mark them, and the marks travel with them; unrolled loads are numbered in their
// final order); sinking after hoisting, so that a load hoisted to the top of its block can still
// go down into the then-part that alone reads it.
// Folding and the uniform datapath look at whole functions, range reduction at single
// instructions: their order among themselves does not matter. Unrolling comes last: it needs the
// loops as they are after hoisting (hoisting never moves an instruction out of its block, so
// loops keep their loads) and the SASS's loop facts, which only a launch with ptxas output has.
void apply_ptxas_passes(Program& p, const SassLoops& sass) {
  if_convert_skips(p);
  merge_shared_loads(p);
  hoist_loads(p);
  sink_loads(p);
  fold_operand_modifiers(p);
  fold_predicate_logic(p);
  mark_uniform_addresses(p);
  mark_shared_increments(p);
  mark_range_reduction(p);
  mark_denormal_guards(p);
  if (!sass.loads.empty()) mark_unrolled_loads(p, sass.loads, sass.load_bytes);
  p.wgmma_serialized = sass.wgmma_serialized;
}

}  // namespace kernsim::isa::ptx
