// The fast tier's functional sample of a PTX launch; see fast_profile.h.
#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/error.h"
#include "cost_model/fast_profile.h"
#include "isa/ptx/ops.h"
#include "sim/functional/global_memory.h"

namespace kernsim::cost {
namespace {

namespace P = isa::ptx;
using isa::Unit;

// A set of sector numbers (open addressing, linear probing): the sample's hot lookup, several
// times cheaper than std::unordered_set. Sector 0 is never a device address (kernsim's global
// memory starts far above it), so 0 marks an empty slot.
class SectorSet {
 public:
  SectorSet() { slots_.assign(1024, 0); }
  // true when `s` was not in the set
  bool insert(std::uint64_t s) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = hash(s);
    while (slots_[i] != 0) {
      if (slots_[i] == s) return false;
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i] = s;
    ++size_;
    return true;
  }
  std::size_t size() const { return size_; }
  void clear() {
    slots_.assign(1024, 0);
    size_ = 0;
  }
  template <class F>
  void for_each(F&& f) const {
    for (std::uint64_t s : slots_)
      if (s) f(s);
  }

 private:
  std::size_t hash(std::uint64_t s) const {
    return static_cast<std::size_t>((s * 0x9E3779B97F4A7C15ull) >> 20) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, 0);
    size_ = 0;
    for (std::uint64_t s : old)
      if (s) insert(s);
  }
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
};

// A time on a warp's dependent path with the loads beyond L1 it waited for: compared at the
// nominal miss latency, so the path predict() prices is the one that is longest at that latency.
struct PathTime {
  double t = 0;      // cycles, misses at 0
  float misses = 0;  // loads beyond L1 on the path
};

// The profile's fields that add up over a CTA's instructions (the sampler sums them per CTA,
// scales a cut CTA's and divides by the CTAs sampled).
std::vector<double*> additive_fields(KernelProfile& p) {
  std::vector<double*> f = {
      &p.warp_insts,        &p.thread_insts, &p.issue_slots,           &p.flops,           &p.alt_busy,
      &p.load_insts,        &p.store_insts,  &p.atomic_insts,          &p.load_sectors,    &p.store_sectors,
      &p.load_lines,        &p.store_lines,  &p.store_partial_sectors, &p.atomic_requests, &p.shared_insts,
      &p.shared_wavefronts, &p.barriers,     &p.atomic_float_share};
  for (auto& u : p.unit_insts) f.push_back(&u);
  for (auto& u : p.unit_busy) f.push_back(&u);
  return f;
}

using Wide = __int128;

// How many consecutive k >= 0 keep `cmp(x + k * d, b)` true (Lt, Le, Gt, Ge, Ne, Eq after
// normalisation); -1 when that never ends or cannot be told.
Wide passes(P::Cmp c, Wide x, Wide d, Wide b) {
  switch (c) {
    case P::Cmp::Lt:
      return x >= b ? 0 : d <= 0 ? -1 : (b - x + d - 1) / d;
    case P::Cmp::Le:
      return x > b ? 0 : d <= 0 ? -1 : (b - x) / d + 1;
    case P::Cmp::Gt:
      return x <= b ? 0 : d >= 0 ? -1 : (x - b - d - 1) / -d;
    case P::Cmp::Ge:
      return x < b ? 0 : d >= 0 ? -1 : (x - b) / -d + 1;
    case P::Cmp::Ne:
      if (x == b) return 0;
      if (d == 0 || (b - x) % d != 0 || (b - x) / d < 0) return -1;
      return (b - x) / d;
    case P::Cmp::Eq:
      return x != b ? 0 : d == 0 ? -1 : 1;
    default:
      return -1;
  }
}

// A compare as the loop sees it: unsigned spellings as plain order (the operands are extended
// by their type), negated when the branch is taken on false, mirrored when the operand that
// moves is the second.
P::Cmp loop_cmp(P::Cmp c, bool negate, bool mirror) {
  switch (c) {
    case P::Cmp::Lo:
      c = P::Cmp::Lt;
      break;
    case P::Cmp::Ls:
      c = P::Cmp::Le;
      break;
    case P::Cmp::Hi:
      c = P::Cmp::Gt;
      break;
    case P::Cmp::Hs:
      c = P::Cmp::Ge;
      break;
    default:
      break;
  }
  auto flip = [](P::Cmp x, P::Cmp a, P::Cmp b) { return x == a ? b : x == b ? a : x; };
  if (negate) c = flip(flip(flip(c, P::Cmp::Lt, P::Cmp::Ge), P::Cmp::Le, P::Cmp::Gt), P::Cmp::Eq, P::Cmp::Ne);
  if (mirror) c = flip(flip(c, P::Cmp::Lt, P::Cmp::Gt), P::Cmp::Le, P::Cmp::Ge);
  return c;
}

class CtaSampler {
 public:
  CtaSampler(sim::PtxKernel& k, const device::DeviceSpec& dev, const sim::Occupancy& occ)
      : k_(k), d_(dev), p_(k.program()), descs_(P::timing_descs(p_)) {
    for (const auto& f : p_.functions) {
      n32_ = std::max(n32_, f.n32);
      n64_ = std::max(n64_, f.n64);
      npred_ = std::max(npred_, f.npred);
    }
    sector_ = std::max<std::int64_t>(1, dev.l1.sector_bytes);
    line_ = std::max<std::int64_t>(sector_, dev.l1.line_bytes);
    nominal_miss_ = 0.5 * (dev.l2.hit_latency_cycles + dev.dram.latency_cycles);
    // the L1 a CTA has: what the shared-memory carveout leaves (occupancy.h), shared by the resident CTAs
    l1_share_bytes_ = static_cast<double>(occ.l1_bytes) / std::max(1, occ.blocks_per_unit);
    for (auto& a : k.memory().allocations()) bases_.push_back({a->base, a->size});
    find_counted_loops();
  }

  // Executes CTA `id` and adds what it asked for to `p`; returns its warp instructions. Past
  // `cap` warp instructions (0: no cap), a CTA whose unfinished warps are all in counted loops
  // leaves them early: each warp's loop variable jumps to its exit value at the loop's next test,
  // and the work the CTA did up to then counts again for the iterations it skipped.
  std::uint64_t run(std::uint64_t id, KernelProfile& p, std::uint64_t& hot_address, std::uint64_t cap) {
    auto cta = k_.make_cta(id);
    const int nw = cta->num_warps();
    p.warps_per_cta = nw;
    const std::size_t nregs = n32_ + n64_ + npred_;
    ready_.assign(static_cast<std::size_t>(nw) * nregs, PathTime{});
    clock_.assign(static_cast<std::size_t>(nw), PathTime{});
    waiting_.clear();
    reads_.clear();
    writes_.clear();
    atomics_.clear();
    rereads_ = 0;
    recent_store_lines_.assign(static_cast<std::size_t>(nw), {});
    warp_steps_.assign(static_cast<std::size_t>(nw), 0);
    seen_.assign(static_cast<std::size_t>(nw) * loops_.size(), LoopSeen{});
    force_.clear();
    cut_failed_ = false;
    extra_rb_.assign(bases_.size(), 0);
    extra_wb_.assign(bases_.size(), 0);
    extra_atomics_ = 0;
    const KernelProfile before = p;
    std::uint64_t steps = 0, next_check = cap;
    double l1_hits = 0, l1_hit_lines = 0;
    Snapshot seg = snapshot(p, l1_hits, l1_hit_lines, steps), cut;
    bool cutting = false;
    while (!cta->done()) {
      bool progress = false;
      for (int w = 0; w < nw; ++w) {
        // a warp runs until it waits at a barrier, ends, or (a spinning wait) has had a turn
        for (int turn = 0; turn < 4096 && !cta->warp_done(w) && !cta->warp_waiting(w); ++turn) {
          const sim::StepInfo info = cta->step(w);
          ++steps;
          ++warp_steps_[static_cast<std::size_t>(w)];
          progress = true;
          account(*cta, w, nw, info, nregs, p, l1_hits, l1_hit_lines);
          if (info.kind == sim::StepInfo::Kind::Executed && loop_of_setp_[info.pc] >= 0) note_loop(*cta, w, info);
          if (cutting && (follow_cut(*cta, w, info), pending() == 0)) {
            finish_cut(seg, cut, p, l1_hits, l1_hit_lines);
            cutting = false;
            seg = snapshot(p, l1_hits, l1_hit_lines, steps);
            next_check = steps + cap;
          }
          if (info.async && !cta->async_step(w).mbar.empty() &&
              cta->async_step(w).mbar.back().what == sim::MbarEvent::What::WaitFail)
            break;
        }
        if (cap > 0 && !cutting && !cut_failed_ && steps >= next_check) {
          if (plan_cut(*cta, nw, seg)) {
            cut = snapshot(p, l1_hits, l1_hit_lines, steps);
            cutting = true;
          } else {
            next_check = steps + std::max<std::uint64_t>(1, cap / 4);
          }
        }
      }
      if (!progress && !cta->done()) cta->mbarrier_deadlock();
    }
    if (cutting) finish_cut(seg, cut, p, l1_hits, l1_hit_lines);
    const double atomics_ran = p.atomic_insts - before.atomic_insts - extra_atomics_;
    // the CTA's path ends with its latest warp
    PathTime end{};
    for (const PathTime& c : clock_)
      if (at_nominal(c) > at_nominal(end)) end = c;
    p.path_cycles += end.t;
    p.path_miss_loads += end.misses;
    // its footprint per buffer, and the L1 it has for reuse
    std::vector<double> rb, wb;
    buffer_bytes(rb, wb);
    double foot = 0;
    for (std::size_t i = 0; i < bases_.size(); ++i) {
      rb[i] = std::min(rb[i] + extra_rb_[i], static_cast<double>(bases_[i].second));
      wb[i] = std::min(wb[i] + extra_wb_[i], static_cast<double>(bases_[i].second));
      foot += rb[i];
    }
    const double keep = foot > l1_share_bytes_ && foot > 0 ? l1_share_bytes_ / foot : 1.0;
    p.l1_hit_sectors += l1_hits * keep;
    p.l1_hit_lines += l1_hit_lines * keep;
    p.reread_sectors += rereads_;
    if (p.buffers.size() != bases_.size()) {
      p.buffers.assign(bases_.size(), BufferUse{});
      for (std::size_t i = 0; i < bases_.size(); ++i) p.buffers[i].size_bytes = static_cast<double>(bases_[i].second);
    }
    for (std::size_t i = 0; i < bases_.size(); ++i) {
      p.buffers[i].read_bytes_per_cta += rb[i];
      p.buffers[i].write_bytes_per_cta += wb[i];
    }
    std::uint64_t hot_ops = 0;
    hot_address = 0;
    for (const auto& [a, n] : atomics_)
      if (n > hot_ops || (n == hot_ops && a < hot_address)) {
        hot_ops = n;
        hot_address = a;
      }
    // a cut CTA's hottest address: as often again as the atomics its cuts counted again
    p.atomic_hot_address_ops += static_cast<double>(hot_ops) * (atomics_ran > 0 ? 1 + extra_atomics_ / atomics_ran : 1);
    std::unordered_set<std::uint64_t> lines;
    for (const auto& [a, n] : atomics_) lines.insert(a / static_cast<std::uint64_t>(line_));
    p.atomic_lines = std::max(p.atomic_lines, static_cast<double>(lines.size()));
    atomic_sets_.emplace_back();
    for (const auto& [a, n] : atomics_) atomic_sets_.back().push_back(a);
    std::sort(atomic_sets_.back().begin(), atomic_sets_.back().end());
    return steps;
  }

  double nominal_miss() const { return nominal_miss_; }
  // The share of the later sampled CTAs' atomic addresses the first one used too.
  double atomic_overlap() const {
    if (atomic_sets_.size() < 2 || atomic_sets_[0].empty()) return 0;
    double common = 0, total = 0;
    for (std::size_t i = 1; i < atomic_sets_.size(); ++i)
      for (std::uint64_t a : atomic_sets_[i]) {
        total += 1;
        common += std::binary_search(atomic_sets_[0].begin(), atomic_sets_[0].end(), a) ? 1 : 0;
      }
    return total > 0 ? common / total : 0;
  }

  // ---- counted loops: cutting a long CTA short ------------------------------------------------
  // A loop the sampler can count: the instructions from a backward branch's target to the last
  // backward branch to it, and a conditional branch in them with one way out of the loop, its
  // predicate written by an integer `setp` of two sources inside the loop (clang's loops: the
  // test at the bottom going back, or a test leaving the loop before an unconditional branch).
  struct LoopCond {
    std::uint32_t head = 0, end = 0, setp = 0, branch = 0;
    bool continue_on_taken = true;  // the loop goes on when the branch is taken (else when it falls through)
    bool negate = false;            // the loop goes on while the setp's compare is false
  };
  // A warp's two latest executions of a loop's test: both sources (lowest active lane), and the
  // warp's instruction count at each.
  struct LoopSeen {
    Wide x[2][2] = {};
    std::uint64_t at[2] = {};
    int seen = 0;
  };
  // What the CTA had done at a point: where a segment between cuts starts, and where it is cut.
  struct Snapshot {
    KernelProfile p;
    double l1_hits = 0, l1_hit_lines = 0, rereads = 0;
    std::vector<PathTime> clock;
    std::vector<double> rb, wb;
    std::uint64_t steps = 0;
    std::vector<std::uint64_t> warp_steps;
  };

  void find_counted_loops() {
    loop_of_setp_.assign(p_.insts.size(), -1);
    std::vector<std::int64_t> end_of(p_.insts.size(), -1);  // per loop head: its last backward branch
    for (std::uint32_t e = 0; e < p_.insts.size(); ++e) {
      const P::Inst& br = p_.insts[e];
      if (br.op == P::Op::Bra && br.target >= 0 && static_cast<std::uint32_t>(br.target) <= e)
        end_of[static_cast<std::size_t>(br.target)] = e;
    }
    for (std::uint32_t h = 0; h < p_.insts.size(); ++h) {
      if (end_of[h] < 0) continue;
      const std::uint32_t e = static_cast<std::uint32_t>(end_of[h]);
      auto inside = [&](std::int64_t pc) { return pc >= h && pc <= e; };
      for (std::uint32_t c = h; c <= e; ++c) {
        const P::Inst& br = p_.insts[c];
        if (br.op != P::Op::Bra || br.guard.bank != P::Bank::Pred) continue;
        const bool taken_in = inside(br.target);
        const P::Inst* next = c + 1 < p_.insts.size() ? &p_.insts[c + 1] : nullptr;
        const bool fall_in =
            c < e && !(next && next->op == P::Op::Bra && next->guard.bank == P::Bank::None && !inside(next->target));
        if (taken_in == fall_in) continue;
        add_loop_test(h, e, c, taken_in);
      }
    }
  }

  // The setp that wrote branch c's predicate inside the loop, when it is one the sampler can count.
  void add_loop_test(std::uint32_t h, std::uint32_t e, std::uint32_t c, bool continue_on_taken) {
    const P::Inst& br = p_.insts[c];
    for (std::int64_t j = static_cast<std::int64_t>(c) - 1; j >= h; --j) {
      const P::Inst& in = p_.insts[static_cast<std::size_t>(j)];
      bool writes = false;
      for (int d = 0; d < in.ndst; ++d) writes |= p_.regs[in.ops + static_cast<std::uint32_t>(d)] == br.guard;
      if (!writes) continue;
      if (in.op == P::Op::Setp && p_.regs[in.ops] == br.guard && in.nsrc == 2 && in.boolop == P::BoolOp::None &&
          !P::ty_is_float(in.type) && P::ty_bits(in.type) <= 64 && loop_of_setp_[static_cast<std::size_t>(j)] < 0) {
        loop_of_setp_[static_cast<std::size_t>(j)] = static_cast<int>(loops_.size());
        loops_.push_back(
            {h, e, static_cast<std::uint32_t>(j), c, continue_on_taken, br.guard_neg != !continue_on_taken});
      }
      return;
    }
  }

  // A register's value in one lane, extended by the compare's type.
  Wide value(const sim::PtxCta& cta, int w, P::Reg r, int lane, P::Ty ty) const {
    const std::uint64_t bits = cta.lane_value(w, r, lane);
    const int n = std::max(1, std::min(64, P::ty_bits(ty)));
    const std::uint64_t mask = n == 64 ? ~0ull : (1ull << n) - 1;
    const std::uint64_t v = bits & mask;
    if (P::ty_is_signed(ty) && n < 64 && (v >> (n - 1)) & 1) return static_cast<Wide>(v) - (static_cast<Wide>(1) << n);
    if (P::ty_is_signed(ty) && n == 64) return static_cast<Wide>(static_cast<std::int64_t>(v));
    return static_cast<Wide>(v);
  }

  void note_loop(const sim::PtxCta& cta, int w, const sim::StepInfo& info) {
    if (!info.active) return;
    const int l = loop_of_setp_[info.pc];
    LoopSeen& s = seen_[static_cast<std::size_t>(w) * loops_.size() + static_cast<std::size_t>(l)];
    const P::Inst& in = p_.insts[info.pc];
    const int lane = std::countr_zero(info.active);
    for (int k = 0; k < 2; ++k) {
      s.x[0][k] = s.x[1][k];
      s.x[1][k] = value(cta, w, p_.regs[in.ops + in.ndst + static_cast<std::uint32_t>(k)], lane, in.type);
    }
    s.at[0] = s.at[1];
    s.at[1] = warp_steps_[static_cast<std::size_t>(w)];
    ++s.seen;
  }

  // The loop's test as the warp's loop variable sees it: which source moves, by how much per
  // iteration, and the compare; false when both or neither move.
  bool loop_motion(const LoopSeen& s, const LoopCond& L, int& var, Wide& d, P::Cmp& c) const {
    const Wide d0 = s.x[1][0] - s.x[0][0], d1 = s.x[1][1] - s.x[0][1];
    if ((d0 != 0) == (d1 != 0)) return false;
    var = d0 != 0 ? 0 : 1;
    d = var == 0 ? d0 : d1;
    c = loop_cmp(p_.insts[L.setp].cmp, L.negate, var == 1);
    return true;
  }

  // The instructions the CTA's unfinished warps have left, from the counted loops each is in
  // (the outermost that counts: the largest estimate); false when a warp is in none. Sets
  // force_ to the loop each warp leaves early.
  bool plan_cut(const sim::PtxCta& cta, int nw, const Snapshot& seg) {
    double left = 0;
    std::vector<int> force(static_cast<std::size_t>(nw), -1);
    std::vector<double> again(static_cast<std::size_t>(nw), 0);
    for (int w = 0; w < nw; ++w) {
      if (cta.warp_done(w)) continue;
      const std::uint32_t pc = cta.next_pc(w);
      double best = -1;
      for (std::size_t l = 0; l < loops_.size(); ++l) {
        const LoopCond& L = loops_[l];
        const LoopSeen& s = seen_[static_cast<std::size_t>(w) * loops_.size() + l];
        int var = 0;
        Wide d = 0;
        P::Cmp c{};
        if (pc < L.head || pc > L.end || s.seen < 2 || s.at[1] <= s.at[0] || !loop_motion(s, L, var, d, c)) continue;
        const Wide n = passes(c, s.x[1][var], d, s.x[1][1 - var]);
        if (n < 0) continue;
        const double est = static_cast<double>(n) * static_cast<double>(s.at[1] - s.at[0]) -
                           static_cast<double>(warp_steps_[static_cast<std::size_t>(w)] - s.at[1]);
        if (est > best) {
          best = est;
          force[static_cast<std::size_t>(w)] = static_cast<int>(l);
        }
      }
      if (best < 0) return false;
      left += best;
      const std::uint64_t ran = warp_steps_[static_cast<std::size_t>(w)] - seg.warp_steps[static_cast<std::size_t>(w)];
      again[static_cast<std::size_t>(w)] = best / static_cast<double>(std::max<std::uint64_t>(1, ran));
    }
    force_ = std::move(force);
    warp_again_ = std::move(again);
    cut_again_ = left / static_cast<double>(std::max<std::uint64_t>(1, steps_now(nw) - seg.steps));
    return true;
  }

  // After warp w's step: at the test of the loop it leaves early, its loop variable takes (in
  // every lane about to test) the value that ends the loop; a cut that did not end it is void.
  void follow_cut(sim::PtxCta& cta, int w, const sim::StepInfo& info) {
    int& f = force_[static_cast<std::size_t>(w)];
    const int l = f;
    if (l == -1) return;
    const LoopCond& Lx = loops_[static_cast<std::size_t>(l <= -3 ? -3 - l : l)];
    const std::uint32_t next = cta.next_pc(w);
    if (cta.warp_done(w) || next < Lx.head || next > Lx.end) {  // it left the loop (by itself, or as set)
      // before its test was set, the warp ended the loop by itself or stepped out of the loop's
      // range (code placed after it, still inside the loop): then the iterations it was to skip are
      // not known to be skipped, and the cut counts nothing again
      if (l >= 0) cut_failed_ = true;
      f = -1;
      return;
    }
    if (l <= -3) {  // the loop's variable was set: its test must leave the loop
      const LoopCond& L = loops_[static_cast<std::size_t>(-3 - l)];
      if (info.pc == L.branch && info.kind == sim::StepInfo::Kind::Executed) {
        const bool taken = info.active && static_cast<std::int64_t>(info.next_pc) == p_.insts[L.branch].target;
        if (taken == L.continue_on_taken) cut_failed_ = true;
        force_[static_cast<std::size_t>(w)] = -1;
      }
      return;
    }
    if (l < 0) return;
    const LoopCond& L = loops_[static_cast<std::size_t>(l)];
    if (info.kind != sim::StepInfo::Kind::Exited && cta.next_pc(w) == L.setp) {
      const LoopSeen& s = seen_[static_cast<std::size_t>(w) * loops_.size() + static_cast<std::size_t>(l)];
      const P::Inst& in = p_.insts[L.setp];
      int var = 0;
      Wide d = 0;
      P::Cmp c{};
      const P::Reg xr = p_.regs[in.ops + in.ndst + static_cast<std::uint32_t>(s.x[1][0] != s.x[0][0] ? 0 : 1)];
      if (!loop_motion(s, L, var, d, c) || (xr.bank != P::Bank::R32 && xr.bank != P::Bank::R64)) {
        cut_failed_ = true;  // it goes on as it is: the cut counts nothing again
        f = -1;
        return;
      }
      const P::Reg br = p_.regs[in.ops + in.ndst + static_cast<std::uint32_t>(1 - var)];
      for (std::uint32_t m = cta.next_mask(w); m; m &= m - 1) {
        const int lane = std::countr_zero(m);
        const Wide x = value(cta, w, xr, lane, in.type), b = value(cta, w, br, lane, in.type);
        const Wide n = passes(c, x, d, b);
        if (n >= 0) cta.set_lane_value(w, xr, lane, static_cast<std::uint64_t>(x + n * d));
      }
      force_[static_cast<std::size_t>(w)] = -3 - l;  // tested next: the branch must fall through
      return;
    }
  }

  // Per buffer, the bytes of the CTA's distinct read and written sectors.
  void buffer_bytes(std::vector<double>& rb, std::vector<double>& wb) const {
    rb.assign(bases_.size(), 0);
    wb.assign(bases_.size(), 0);
    reads_.for_each([&](std::uint64_t s) {
      if (int b = buffer_of(s * static_cast<std::uint64_t>(sector_)); b >= 0)
        rb[static_cast<std::size_t>(b)] += static_cast<double>(sector_);
    });
    writes_.for_each([&](std::uint64_t s) {
      if (int b = buffer_of(s * static_cast<std::uint64_t>(sector_)); b >= 0)
        wb[static_cast<std::size_t>(b)] += static_cast<double>(sector_);
    });
  }

  Snapshot snapshot(const KernelProfile& p, double l1_hits, double l1_hit_lines, std::uint64_t steps) const {
    Snapshot x{p, l1_hits, l1_hit_lines, rereads_, clock_, {}, {}, steps, warp_steps_};
    buffer_bytes(x.rb, x.wb);
    return x;
  }
  std::uint64_t steps_now(int nw) const {
    std::uint64_t n = 0;
    for (int w = 0; w < nw; ++w) n += warp_steps_[static_cast<std::size_t>(w)];
    return n;
  }
  int pending() const {
    int n = 0;
    for (int f : force_) n += f != -1;
    return n;
  }

  // Every warp has left the loop it was cut in: what the CTA did from the segment's start to the
  // cut counts again (cut_again_ times; each warp's path by its own share), unless a warp went
  // round again.
  void finish_cut(const Snapshot& seg, const Snapshot& cut, KernelProfile& p, double& l1_hits, double& l1_hit_lines) {
    force_.clear();
    if (cut_failed_) return;
    const double again = cut_again_;
    KernelProfile a = cut.p, b = seg.p;
    const std::vector<double*> now = additive_fields(p), at_cut = additive_fields(a), start = additive_fields(b);
    for (std::size_t i = 0; i < now.size(); ++i) *now[i] += again * (*at_cut[i] - *start[i]);
    extra_atomics_ += again * (cut.p.atomic_insts - seg.p.atomic_insts);
    l1_hits += again * (cut.l1_hits - seg.l1_hits);
    l1_hit_lines += again * (cut.l1_hit_lines - seg.l1_hit_lines);
    rereads_ += again * (cut.rereads - seg.rereads);
    for (std::size_t i = 0; i < bases_.size(); ++i) {
      extra_rb_[i] += again * (cut.rb[i] - seg.rb[i]);
      extra_wb_[i] += again * (cut.wb[i] - seg.wb[i]);
    }
    // warps take turns of up to 4096 instructions, so each was cut at its own point
    for (std::size_t w = 0; w < clock_.size() && w < warp_again_.size(); ++w) {
      clock_[w].t += warp_again_[w] * (cut.clock[w].t - seg.clock[w].t);
      clock_[w].misses += static_cast<float>(warp_again_[w] * (cut.clock[w].misses - seg.clock[w].misses));
    }
    p.complete = false;
  }

 private:
  double at_nominal(const PathTime& x) const { return x.t + x.misses * nominal_miss_; }
  PathTime later(const PathTime& a, const PathTime& b) const { return at_nominal(a) >= at_nominal(b) ? a : b; }

  int reg_index(P::Reg r) const {
    switch (r.bank) {
      case P::Bank::R32:
        return static_cast<int>(r.idx);
      case P::Bank::R64:
        return static_cast<int>(n32_ + r.idx);
      case P::Bank::Pred:
        return static_cast<int>(n32_ + n64_ + r.idx);
      default:
        return -1;
    }
  }

  int buffer_of(std::uint64_t addr) const {
    auto it = std::upper_bound(bases_.begin(), bases_.end(), addr,
                               [](std::uint64_t a, const auto& b) { return a < b.first; });
    if (it == bases_.begin()) return -1;
    --it;
    return addr - it->first < it->second ? static_cast<int>(it - bases_.begin()) : -1;
  }

  // Shared-memory wavefronts of one access: the most distinct words one bank serves, at least
  // the bytes over the banks' width; atomics on one address serialise.
  double shared_wavefronts(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t eb, bool atomic) const {
    const std::int64_t banks = std::max<std::int64_t>(1, d_.shared.banks),
                       width = std::max<std::int64_t>(1, d_.shared.bank_width_bytes);
    std::uint64_t words[32];
    int n = 0;
    for (std::uint32_t m = mask; m; m &= m - 1)
      words[n++] = addrs[std::countr_zero(m)] / static_cast<std::uint64_t>(width);
    std::sort(words, words + n);
    int per_bank[64] = {};
    int same = 1, most_same = n ? 1 : 0;
    for (int i = 0; i < n; ++i) {
      if (i > 0 && words[i] == words[i - 1]) {
        most_same = std::max(most_same, ++same);
        continue;
      }
      same = 1;
      ++per_bank[words[i] % static_cast<std::uint64_t>(std::min<std::int64_t>(banks, 64))];
    }
    int worst = 0;
    for (int b : per_bank) worst = std::max(worst, b);
    const double bytes_min = std::ceil(static_cast<double>(n) * eb / static_cast<double>(banks * width));
    return std::max({1.0, static_cast<double>(worst) * std::max(1.0, eb / static_cast<double>(width)), bytes_min,
                     atomic ? static_cast<double>(most_same) : 0.0});
  }

  // One executed step: counts, memory, and the warp's dependent path.
  void account(sim::PtxCta& cta, int w, int nw, const sim::StepInfo& info, std::size_t nregs, KernelProfile& p,
               double& l1_hits, double& l1_hit_lines) {
    if (info.kind == sim::StepInfo::Kind::Exited && !info.released_barrier) return;
    const P::Inst& in = p_.insts[info.pc];
    const P::TimingDesc& desc = descs_[info.pc];
    warp_ = w;
    PathTime* regs = ready_.data() + static_cast<std::size_t>(w) * nregs;
    PathTime& clk = clock_[static_cast<std::size_t>(w)];
    const int lanes = std::popcount(info.active);
    if (info.kind != sim::StepInfo::Kind::Exited) {
      p.warp_insts += 1;
      p.thread_insts += lanes;
      const int u = static_cast<int>(in.unit);
      const double scale = isa::is_tensor(in.unit) ? desc.matrix_scale : std::max(1, desc.weight);
      const double busy = pipe(in.unit).issue_cycles * scale;
      p.unit_insts[static_cast<std::size_t>(u)] += 1;
      if (desc.alt_unit >= 0)
        p.alt_busy += busy;
      else
        p.unit_busy[static_cast<std::size_t>(u)] += busy;
      p.issue_slots += desc.folded ? 0 : std::max(1, desc.weight);
      p.flops += desc.flops_per_lane * lanes + desc.flops_per_inst;
    }
    // the warp issues when its sources are ready (in order)
    PathTime t = clk;
    auto src = [&](P::Reg r) {
      if (int i = reg_index(r); i >= 0) t = later(t, regs[i]);
    };
    if (in.guard.bank != P::Bank::None) src(in.guard);
    for (int s = 0; s < in.nsrc; ++s) src(p_.regs[in.ops + in.ndst + static_cast<std::uint32_t>(s)]);
    if (in.addr.base.bank != P::Bank::None) src(in.addr.base);
    double lat = 1;
    bool miss = false;
    retouch_miss_ = 0;
    switch (desc.lat) {
      case P::Lat::Pipe: {
        const device::Pipe& pp = pipe(in.unit);
        lat = pp.latency_cycles + pp.issue_cycles * std::max(0, desc.weight - 1);
        if (desc.range_reduced) lat += d_.pipes.fp32.latency_cycles;
        // denormal guards: sm.mufu_guard_latency_cycles (measured) for FSETP-FMUL-MUFU-FMUL, else FP32 latencies
        lat += desc.guard_chain == 3 && d_.sm.mufu_guard_latency_cycles > 0
                   ? d_.sm.mufu_guard_latency_cycles
                   : desc.guard_chain * d_.pipes.fp32.latency_cycles;
        break;
      }
      case P::Lat::Matrix: {
        const device::Pipe& pp = pipe(in.unit);
        lat = pp.latency_cycles + pp.issue_cycles * std::max(0.0, desc.matrix_scale - 1);
        break;
      }
      case P::Lat::WarpSync:
        lat = d_.sm.vote_latency_cycles;
        break;
      case P::Lat::Control:
        lat = d_.pipes.branch.latency_cycles;
        break;
      case P::Lat::Memory:
        lat = memory(cta, w, in, info, p, l1_hits, l1_hit_lines, miss);
        break;
      default:
        break;
    }
    // ptxas issues `batch` iterations' copies of an unrolled loop's load together: each waits
    // a batch's share of the latency
    const double share = in.batch > 1 ? 1.0 / in.batch : 1.0;
    PathTime done = t;
    if (miss)
      done.misses += static_cast<float>(share);
    else
      done.t += std::max(1.0, lat * (desc.lat == P::Lat::Memory ? share * (1 - retouch_miss_) : 1.0));
    done.misses += static_cast<float>(share * retouch_miss_);
    for (int dd = 0; dd < in.ndst; ++dd)
      if (int i = reg_index(p_.regs[in.ops + static_cast<std::uint32_t>(dd)]); i >= 0) regs[i] = done;
    clk = t;
    clk.t += 1;  // one issue slot
    // barriers: the waiting warps leave together, after the last arrival
    if (info.kind == sim::StepInfo::Kind::BarrierWait) waiting_.push_back(w);
    if (info.released_barrier) {
      PathTime last = clk;
      for (int o : waiting_) last = later(last, clock_[static_cast<std::size_t>(o)]);
      last.t += d_.sm.barrier_latency_cycles + d_.sm.barrier_cycles_per_warp * nw;
      for (int o : waiting_) clock_[static_cast<std::size_t>(o)] = last;
      clk = last;
      waiting_.clear();
      p.barriers += 1;
    }
  }

  const device::Pipe& pipe(Unit u) const {
    switch (u) {
      case Unit::IntAlu:
        return d_.pipes.int_alu;
      case Unit::IntMul:
        return d_.pipes.int_mul;
      case Unit::Fp32:
        return d_.pipes.fp32;
      case Unit::Fp16:
        return d_.pipes.fp16;
      case Unit::Fp64:
        return d_.pipes.fp64;
      case Unit::Sfu:
        return d_.pipes.sfu;
      case Unit::Convert:
        return d_.pipes.convert;
      case Unit::Branch:
        return d_.pipes.branch;
      case Unit::TensorF16:
        return d_.pipes.tensor_f16;
      case Unit::TensorTf32:
        return d_.pipes.tensor_tf32.issue_cycles > 0 ? d_.pipes.tensor_tf32 : d_.pipes.tensor_f16;
      case Unit::TensorI8:
        return d_.pipes.tensor_i8;
      case Unit::TensorFp8:
        return d_.pipes.tensor_fp8;
      case Unit::TensorF64:
        return d_.pipes.tensor_f64;
      default:
        return issue_only_;
    }
  }

  // A global access's sectors and lines, its L1 reuse and footprint. Returns whether it reached
  // beyond L1 (a load that waits for L2 or HBM).
  bool global(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t eb, bool load, bool bypass,
              KernelProfile& p, double& l1_hits, double& l1_hit_lines) {
    // the sectors the active lanes touch, with the bytes each brings to them
    std::pair<std::uint64_t, std::uint32_t> piece[64];
    int np = 0;
    const std::uint64_t sb = static_cast<std::uint64_t>(sector_);
    for (std::uint32_t m = mask; m; m &= m - 1) {
      const std::uint64_t a = addrs[std::countr_zero(m)];
      for (std::uint64_t s = a / sb; s <= (a + eb - 1) / sb && np < 64; ++s) {
        const std::uint64_t from = std::max(a, s * sb), to = std::min(a + eb, (s + 1) * sb);
        piece[np++] = {s, static_cast<std::uint32_t>(to - from)};
      }
    }
    std::sort(piece, piece + np);
    std::uint64_t sec[64];
    std::uint32_t secbytes[64];
    int n = 0;
    for (int i = 0; i < np; ++i) {
      if (n > 0 && sec[n - 1] == piece[i].first) {
        secbytes[n - 1] +=
            piece[i].second;  // lanes writing the same bytes count them again: an upper bound, capped below
        continue;
      }
      sec[n] = piece[i].first;
      secbytes[n++] = piece[i].second;
    }
    const std::uint64_t per_line = static_cast<std::uint64_t>(line_ / sector_);
    int lines = 0, missed_lines = 0;
    bool line_missed = false;
    for (int i = 0; i < n; ++i) {
      const bool new_line = i == 0 || sec[i] / per_line != sec[i - 1] / per_line;
      if (new_line) {
        if (i > 0 && line_missed) ++missed_lines;
        ++lines;
        line_missed = false;
      }
      if (load) {
        const bool again = !reads_.insert(sec[i]);
        if (again && !bypass)
          l1_hits += 1;
        else
          line_missed = true;
        if (again) rereads_ += 1;
      } else {
        writes_.insert(sec[i]);
      }
    }
    if (n > 0 && line_missed) ++missed_lines;
    if (load) {
      p.load_sectors += n;
      p.load_lines += lines;
      l1_hit_lines += lines - missed_lines;
    } else {
      // a warp's stores to a line among its latest store_combine_lines join the earlier request
      auto& recent = recent_store_lines_[static_cast<std::size_t>(warp_)];
      bool joined = false;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t line = sec[i] / per_line;
        if (i == 0 || sec[i - 1] / per_line != line) {
          joined = std::find(recent.begin(), recent.end(), line) != recent.end();
          if (joined) continue;
          p.store_lines += 1;
          recent.push_back(line);
          if (recent.size() > static_cast<std::size_t>(std::max<std::int64_t>(0, d_.l1.store_combine_lines)))
            recent.erase(recent.begin());
        }
        if (joined) continue;
        p.store_sectors += 1;
        if (secbytes[i] < static_cast<std::uint32_t>(sector_)) p.store_partial_sectors += 1;
      }
    }
    // re-reads hit while the CTA's footprint fits its share of L1; beyond, in proportion
    if (load && missed_lines == 0 && n > 0) {
      const double foot = static_cast<double>(reads_.size()) * static_cast<double>(sector_);
      retouch_miss_ = foot > l1_share_bytes_ ? 1 - l1_share_bytes_ / foot : 0;
    }
    return load && missed_lines > 0;
  }

  double memory(sim::PtxCta& cta, int w, const P::Inst& in, const sim::StepInfo& info, KernelProfile& p,
                double& l1_hits, double& l1_hit_lines, bool& miss) {
    if (!info.active) return 1;
    const std::uint64_t* addrs = cta.lane_addresses(w);
    const std::uint32_t eb =
        static_cast<std::uint32_t>(std::max(1, P::ty_bits(in.type) / 8)) * std::max<std::uint32_t>(1, in.vec);
    switch (in.op) {
      case P::Op::Ld:
      case P::Op::St:
      case P::Op::Atom:
      case P::Op::Red: {
        const bool atomic = in.op == P::Op::Atom || in.op == P::Op::Red;
        if (info.space == P::Space::Param) return d_.pipes.int_alu.latency_cycles;
        if (info.space == P::Space::Shared || info.space == P::Space::SharedCluster) {
          const double wf = shared_wavefronts(addrs, info.active, eb, atomic);
          p.shared_insts += 1;
          p.shared_wavefronts += wf;
          return d_.shared.latency_cycles + d_.shared.conflict_latency_cycles * (wf - 1);
        }
        if (info.space == P::Space::Local) {  // the thread's stack: through L1, mostly hits
          p.load_sectors += in.op == P::Op::Ld ? 1 : 0;
          return d_.l1.hit_latency_cycles;
        }
        if (atomic) {
          const std::uint32_t lanes =
              (in.flags & P::kWarpAggregated) ? (info.active & (~info.active + 1)) : info.active;
          std::uint64_t seen[32];
          int n = 0;
          for (std::uint32_t m = lanes; m; m &= m - 1) {
            const std::uint64_t a = addrs[std::countr_zero(m)];
            ++atomics_[a];
            seen[n++] = a / static_cast<std::uint64_t>(sector_);
            writes_.insert(a / static_cast<std::uint64_t>(sector_));
          }
          std::sort(seen, seen + n);
          p.atomic_insts += 1;
          p.atomic_requests += static_cast<double>(std::unique(seen, seen + n) - seen);
          if (P::ty_is_float(in.type)) p.atomic_float_share += 1;
          return d_.l2.atomic_latency_cycles;
        }
        const bool load = in.op == P::Op::Ld;
        if (load)
          p.load_insts += 1;
        else
          p.store_insts += 1;
        miss = global(addrs, info.active, eb, load, (in.flags & P::kBypassL1) != 0, p, l1_hits, l1_hit_lines);
        return load ? d_.l1.hit_latency_cycles : 1;
      }
      case P::Op::CpAsync: {  // global -> shared through L2 (the data is waited for at wait_group)
        const std::uint32_t bytes = static_cast<std::uint32_t>(std::max<std::int16_t>(1, in.shape[0]));
        p.load_insts += 1;
        global(addrs, info.active, bytes, true, true, p, l1_hits, l1_hit_lines);
        p.shared_wavefronts += std::ceil(std::popcount(info.active) * bytes /
                                         static_cast<double>(d_.shared.banks * d_.shared.bank_width_bytes));
        return 1;
      }
      case P::Op::Ldmatrix:
      case P::Op::Stmatrix:
        p.shared_insts += 1;
        p.shared_wavefronts += std::max<std::int16_t>(1, in.shape[0]);
        return d_.shared.latency_cycles;
      case P::Op::WmmaLoad:
      case P::Op::WmmaStore: {
        // a fragment of 16x16 elements: its lines at the fragment's pitch
        const bool load = in.op == P::Op::WmmaLoad;
        if (info.space == P::Space::Shared) {
          p.shared_insts += 1;
          p.shared_wavefronts += 4;
          return d_.shared.latency_cycles;
        }
        if (load)
          p.load_insts += 1;
        else
          p.store_insts += 1;
        miss = global(addrs, info.active, eb, load, false, p, l1_hits, l1_hit_lines);
        return load ? d_.l1.hit_latency_cycles : 1;
      }
      default:
        if (P::is_async_op(in.op)) {
          const sim::AsyncStep& a = cta.async_step(w);
          if (a.copy) {
            for (const auto& [addr, bytes] : a.ranges) {
              for (std::uint64_t s = addr / static_cast<std::uint64_t>(sector_);
                   s <= (addr + bytes - 1) / static_cast<std::uint64_t>(sector_); ++s) {
                (a.dir == P::BulkDir::GlobalToShared ? reads_ : writes_).insert(s);
                (a.dir == P::BulkDir::GlobalToShared ? p.load_sectors : p.store_sectors) += 1;
              }
            }
            p.shared_wavefronts += std::ceil(static_cast<double>(a.bytes) /
                                             static_cast<double>(d_.shared.banks * d_.shared.bank_width_bytes));
          }
          return d_.tma.mbarrier_arrive_cycles;
        }
        return 1;
    }
  }

  sim::PtxKernel& k_;
  const device::DeviceSpec& d_;
  const P::Program& p_;
  std::vector<P::TimingDesc> descs_;
  std::uint32_t n32_ = 0, n64_ = 0, npred_ = 0;
  std::int64_t sector_ = 32, line_ = 128;
  double nominal_miss_ = 0, l1_share_bytes_ = 0;
  device::Pipe issue_only_{1, 1};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> bases_;  // allocations (base, size), sorted
  std::vector<PathTime> ready_, clock_;
  std::vector<int> waiting_;
  SectorSet reads_, writes_;                                    // sectors
  double rereads_ = 0;                                          // load sectors the CTA had read before
  double retouch_miss_ = 0;                                     // the last load re-read only: the chance L1 had lost it
  int warp_ = 0;                                                // the warp being accounted
  std::vector<std::vector<std::uint64_t>> recent_store_lines_;  // per warp: its latest store lines
  std::unordered_map<std::uint64_t, std::uint64_t> atomics_;    // address -> operations
  std::vector<std::vector<std::uint64_t>> atomic_sets_;         // per sampled CTA: its atomic addresses, sorted
  std::vector<LoopCond> loops_;                                 // the program's counted loops
  std::vector<int> loop_of_setp_;                               // per instruction: the loop it tests, or -1
  std::vector<LoopSeen> seen_;                                  // per warp and loop
  std::vector<std::uint64_t> warp_steps_;                       // per warp: its instructions so far
  std::vector<int> force_;          // per warp once cut: the loop it leaves (>= 0), has left (<= -3: -3 - loop), or -1
  std::vector<double> warp_again_;  // per warp once cut: its instructions left over those it ran in the segment
  double cut_again_ = 0;            // the CTA's: instructions left over those of the segment
  std::vector<double> extra_rb_, extra_wb_;  // per buffer: bytes the cuts counted again
  double extra_atomics_ = 0;                 // atomics the cuts counted again
  bool cut_failed_ = false;                  // a warp went round a loop it was to leave: the CTA ran whole
};

}  // namespace

KernelProfile profile_ptx(sim::PtxKernel& kernel, const device::DeviceSpec& dev, const sim::Occupancy& occ,
                          const SampleOptions& opts) {
  if (kernel.dims().cluster_ctas() > 1)
    throw Error(ErrorKind::NotImplemented,
                "the fast tier does not sample thread-block cluster launches yet (use --tier detailed)");
  CtaSampler s(kernel, dev, occ);
  KernelProfile p;
  const std::uint64_t n = kernel.dims().num_blocks();
  const int want = static_cast<int>(std::min<std::uint64_t>(n, static_cast<std::uint64_t>(std::max(1, opts.max_ctas))));
  std::uint64_t spent = 0;
  std::vector<std::uint64_t> hot;
  for (int i = 0; i < want; ++i) {
    if (i > 0 && spent >= opts.budget) break;
    const std::uint64_t id = n * static_cast<std::uint64_t>(i) / static_cast<std::uint64_t>(want);
    std::uint64_t h = 0;
    spent += s.run(id, p, h, opts.cta_budget);
    hot.push_back(h);
    ++p.ctas_sampled;
  }
  // per CTA
  const double c = p.ctas_sampled;
  for (double* x : additive_fields(p)) *x /= c;
  for (double* x : {&p.l1_hit_sectors, &p.l1_hit_lines, &p.atomic_hot_address_ops, &p.path_cycles, &p.path_miss_loads,
                    &p.reread_sectors})
    *x /= c;
  p.atomic_float_share = p.atomic_insts > 0 ? p.atomic_float_share / p.atomic_insts : 0;
  for (auto& b : p.buffers) {
    b.read_bytes_per_cta /= c;
    b.write_bytes_per_cta /= c;
  }
  // atomics on addresses the sampled CTAs share (histogram bins, a sum) serialise chip-wide
  p.atomic_hot_shared = s.atomic_overlap() >= 0.5;
  p.nominal_miss_cycles = s.nominal_miss();
  p.warp_insts_executed = static_cast<double>(spent);
  return p;
}

}  // namespace kernsim::cost
