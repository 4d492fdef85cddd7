// Warp-wide PTX instructions: shfl.sync, vote.sync, match.sync, redux.sync, elect.sync, movmatrix, activemask
// and the warp-level fences and waits (which have no functional effect in a lock-step warp).
#include <type_traits>

#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace P = isa::ptx;

void PtxCta::Impl::exec_warp(Warp& w, const Inst& in, std::uint32_t m) {
  switch (in.op) {
    case Op::Shfl: {
      if (m == 0) return;
      const std::uint32_t* A = row32(w, p.src(in, 0));
      const std::uint32_t* B = row32(w, p.src(in, 1));
      const std::uint32_t* C = row32(w, p.src(in, 2));
      std::array<std::uint32_t, 32> a{};
      for (int l = 0; l < 32; ++l) a[l] = A[l];  // snapshot: d may alias a
      const Reg d = p.dst(in, 0), pd = p.dst(in, 1);
      std::uint32_t* D = row32(w, d);
      std::uint32_t pbits = 0;
      // the lane loop for one mode (the mode chosen once per instruction, not per lane)
      auto lanes = [&](auto mode) {
        for_lanes(m, [&](int l) {
          const std::uint32_t b = B[l], c = C[l];
          const std::uint32_t segmask = (c >> 8) & 0x1f, cval = c & 0x1f;
          const std::int32_t lane = l;
          const std::int32_t max_lane = static_cast<std::int32_t>((static_cast<std::uint32_t>(lane) & segmask) | (cval & ~segmask));
          const std::int32_t min_lane = static_cast<std::int32_t>(static_cast<std::uint32_t>(lane) & segmask);
          std::int32_t j;
          bool ok;
          if constexpr (decltype(mode)::value == P::ShflMode::Up) {
            j = lane - static_cast<std::int32_t>(b);
            ok = j >= max_lane;
          } else if constexpr (decltype(mode)::value == P::ShflMode::Down) {
            j = lane + static_cast<std::int32_t>(b);
            ok = j <= max_lane;
          } else if constexpr (decltype(mode)::value == P::ShflMode::Bfly) {
            j = lane ^ static_cast<std::int32_t>(b);
            ok = j <= max_lane;
          } else {
            j = min_lane | static_cast<std::int32_t>(b & 0x1f & ~segmask);
            ok = j <= max_lane;
          }
          if (!ok || j < 0 || j > 31) j = lane;
          D[l] = a[j];
          pbits |= static_cast<std::uint32_t>(ok) << l;
        });
      };
      switch (static_cast<P::ShflMode>(in.sub)) {
        case P::ShflMode::Up: lanes(std::integral_constant<P::ShflMode, P::ShflMode::Up>{}); break;
        case P::ShflMode::Down: lanes(std::integral_constant<P::ShflMode, P::ShflMode::Down>{}); break;
        case P::ShflMode::Bfly: lanes(std::integral_constant<P::ShflMode, P::ShflMode::Bfly>{}); break;
        default: lanes(std::integral_constant<P::ShflMode, P::ShflMode::Idx>{}); break;
      }
      if (pd.bank == Bank::Pred) {
        std::uint32_t& pm = predr(w, pd);
        pm = (pm & ~m) | pbits;
      }
      return;
    }
    case Op::Vote: {
      std::uint32_t a = predr(w, p.src(in, 0));
      if (in.imm) a = ~a;
      const std::uint32_t member = m & row32(w, p.src(in, 1))[std::countr_zero(m | 1u)];
      const std::uint32_t t = a & member;
      const Reg d = p.dst(in, 0);
      switch (static_cast<P::VoteMode>(in.sub)) {
        case P::VoteMode::Ballot: for_lanes(m, [&](int l) { put(w, d, l, t); }); return;
        case P::VoteMode::All: { std::uint32_t& dm = predr(w, d); dm = (dm & ~m) | (t == member ? m : 0); return; }
        case P::VoteMode::Any: { std::uint32_t& dm = predr(w, d); dm = (dm & ~m) | (t != 0 ? m : 0); return; }
        case P::VoteMode::Uni: { std::uint32_t& dm = predr(w, d); dm = (dm & ~m) | ((t == 0 || t == member) ? m : 0); return; }
      }
      return;
    }
    case Op::Match: {
      const Reg a = p.src(in, 0);
      const std::uint32_t member = m & row32(w, p.src(in, 1))[std::countr_zero(m | 1u)];
      const Reg d = p.dst(in, 0), pd = p.dst(in, 1);
      std::array<std::uint64_t, 32> v{};
      for_lanes(member, [&](int l) { v[l] = get(w, a, l); });
      if (in.sub == 0) {  // any
        for_lanes(m, [&](int l) {
          std::uint32_t same = 0;
          for_lanes(member, [&](int j) { if (v[j] == v[l]) same |= 1u << j; });
          put(w, d, l, same);
        });
      } else {  // all
        bool all = true;
        int first = std::countr_zero(member | (1u << 31));
        for_lanes(member, [&](int j) { all = all && v[j] == v[first]; });
        for_lanes(m, [&](int l) { put(w, d, l, all ? member : 0); });
        if (pd.bank == Bank::Pred) { std::uint32_t& pm = predr(w, pd); pm = (pm & ~m) | (all ? m : 0); }
      }
      return;
    }
    case Op::Redux: {
      const Reg a = p.src(in, 0);
      const std::uint32_t member = m & row32(w, p.src(in, 1))[std::countr_zero(m | 1u)];
      const auto op = static_cast<P::AtomOp>(in.sub);
      const bool sgn = in.type == Ty::S32;
      std::uint32_t acc = op == P::AtomOp::And ? 0xffffffffu : 0;
      std::int64_t sacc = 0;
      bool first = true;
      for_lanes(member, [&](int l) {
        std::uint32_t x = static_cast<std::uint32_t>(get(w, a, l));
        switch (op) {
          case P::AtomOp::Add: acc += x; break;
          case P::AtomOp::And: acc &= x; break;
          case P::AtomOp::Or: acc |= x; break;
          case P::AtomOp::Xor: acc ^= x; break;
          case P::AtomOp::Min:
            if (sgn) sacc = first ? static_cast<std::int32_t>(x) : std::min<std::int64_t>(sacc, static_cast<std::int32_t>(x));
            else acc = first ? x : std::min(acc, x);
            break;
          case P::AtomOp::Max:
            if (sgn) sacc = first ? static_cast<std::int32_t>(x) : std::max<std::int64_t>(sacc, static_cast<std::int32_t>(x));
            else acc = first ? x : std::max(acc, x);
            break;
          default: break;
        }
        first = false;
      });
      if (sgn && (op == P::AtomOp::Min || op == P::AtomOp::Max)) acc = static_cast<std::uint32_t>(sacc);
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) { put(w, d, l, acc); });
      return;
    }
    case Op::Movmatrix: {
      // movmatrix.sync.aligned.m8n8.trans.b16: lane t holds row t/4, columns 2(t%4) and 2(t%4)+1
      // of an 8x8 matrix of b16 (low half first); afterwards it holds the same places of the
      // transpose, so its halves come from rows 2(t%4) and 2(t%4)+1, column t/4, of the original
      const std::uint32_t* A = row32(w, p.src(in, 0));
      std::array<std::uint32_t, 32> a{};
      for (int l = 0; l < 32; ++l) a[l] = A[l];  // snapshot: d may alias a
      auto elem = [&](int r, int c) { return (a[4 * r + c / 2] >> (16 * (c % 2))) & 0xffffu; };
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int t) { put(w, d, t, elem(2 * (t % 4), t / 4) | elem(2 * (t % 4) + 1, t / 4) << 16); });
      return;
    }
    case Op::ElectSync: {
      // the lowest-numbered executing lane of membermask leads: every executing lane gets its
      // lane id, the predicate is true in the leader only (no member lane executing: undefined
      // in PTX; nothing is written)
      const std::uint32_t member = m & row32(w, p.src(in, 0))[std::countr_zero(m | 1u)];
      if (member == 0) return;
      const std::uint32_t leader = static_cast<std::uint32_t>(std::countr_zero(member));
      const Reg d = p.dst(in, 0), pd = p.dst(in, 1);
      for_lanes(m, [&](int l) { put(w, d, l, leader); });
      if (pd.bank == Bank::Pred) {
        std::uint32_t& pm = predr(w, pd);
        pm = (pm & ~m) | (1u << leader);
      }
      return;
    }
    case Op::Activemask: {
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) { put(w, d, l, m); });
      return;
    }
    case Op::BarWarp:
    case Op::Membar:
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
      return;
    default:
      unsupported(in, std::string("`") + to_string(in.op) + "` in the warp path");
  }
}

}  // namespace kernsim::sim
