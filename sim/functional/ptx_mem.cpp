// PTX memory instructions: ld/st in every state space, atomics and reductions, cp.async,
// ldmatrix/stmatrix. Every lane's address is checked (bounds, alignment, read-only) before any
// byte is written, so a faulting instruction corrupts nothing.
#include <cmath>
#include <cstdio>

#include "base/float16.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace P = isa::ptx;
using P::AddrBase;
using P::AtomOp;

namespace {
std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
int elem_bytes(Ty t) { return std::max(1, P::ty_bits(t) / 8); }
}  // namespace

std::uint64_t PtxCta::Impl::lane_address(Warp& w, const P::Addr& a, int lane) {
  switch (a.kind) {
    case AddrBase::Reg: return get(w, a.base, lane) + static_cast<std::uint64_t>(a.offset);
    case AddrBase::Absolute: return static_cast<std::uint64_t>(a.offset);
    case AddrBase::FrameLocal: return w.frames.back().local_base + static_cast<std::uint64_t>(a.offset);
    case AddrBase::FrameParam: return w.frames.back().param_base + static_cast<std::uint64_t>(a.offset);
  }
  return 0;
}

void PtxCta::Impl::warp_addresses(Warp& w, const P::Addr& a, std::uint32_t m) {
  const std::uint64_t off = static_cast<std::uint64_t>(a.offset);
  if (a.base.bank == Bank::R64) {
    const std::uint64_t* B = row64(w, a.base);
    for_lanes(m, [&](int l) { w.addrs[l] = B[l] + off; });
  } else if (a.base.bank == Bank::R32 || a.base.bank == Bank::C32 || a.base.bank == Bank::S32) {
    const std::uint32_t* B = row32(w, a.base);
    for_lanes(m, [&](int l) { w.addrs[l] = B[l] + off; });
  } else {
    for_lanes(m, [&](int l) { w.addrs[l] = lane_address(w, a, l); });
  }
}

std::uint8_t* PtxCta::Impl::resolve(Warp& w, const Inst& in, Space space, std::uint64_t addr, std::uint32_t bytes,
                                    int lane, bool write, Space* resolved) {
  if (bytes > 1 && (addr % bytes) != 0)
    fault(w, in, lane, "misaligned " + std::to_string(bytes) + "-byte access at " + hex(addr));
  if (space == Space::Generic) {
    if (addr >= P::kSharedWindow && addr < P::kSharedWindow + P::kWindowSize) {
      addr -= P::kSharedWindow;
      space = addr >= P::kClusterRankStride ? Space::SharedCluster : Space::Shared;
    }
    else if (addr >= P::kLocalWindow && addr < P::kLocalWindow + P::kWindowSize) { space = Space::Local; addr -= P::kLocalWindow; }
    else if (addr >= P::kParamWindow && addr < P::kParamWindow + P::kWindowSize) { space = Space::Param; addr -= P::kParamWindow; }
    else space = Space::Global;
  }
  if (space == Space::SharedCluster) {  // distributed shared memory: CTA (addr / stride - 1) of the cluster
    if (addr >= P::kClusterRankStride && addr / P::kClusterRankStride - 1 != rank) {
      if (resolved) *resolved = space;
      return cluster_shared(w, in, lane, static_cast<std::uint32_t>(addr / P::kClusterRankStride - 1), addr % P::kClusterRankStride, bytes, write);
    }
    space = Space::Shared;  // the executing CTA's own
    addr %= P::kClusterRankStride;
  }
  if (resolved) *resolved = space;
  switch (space) {
    case Space::Global:
    case Space::Const: {
      Allocation* a = k.memory().find(addr, bytes);
      if (!a) {
        if (addr == 0 || addr < 4096) fault(w, in, lane, "null pointer " + std::string(write ? "write" : "read") + " at " + hex(addr));
        fault(w, in, lane, std::string(write ? "write" : "read") + " of " + std::to_string(bytes) + " bytes at " + hex(addr) +
                               " is out of bounds: " + k.memory().describe(addr, bytes));
      }
      if (write && a->read_only) fault(w, in, lane, "write to read-only " + a->label + " at " + hex(addr));
      if (write) k.memory().note_write(a->data() + (addr - a->base), bytes);
      return a->data() + (addr - a->base);
    }
    case Space::Shared:
      if (addr + bytes > shared.size() || addr >= shared.size())
        fault(w, in, lane, std::string(write ? "write" : "read") + " of " + std::to_string(bytes) + " bytes at shared address " +
                               hex(addr) + " is out of bounds: the CTA has " + std::to_string(shared.size()) +
                               " bytes of shared memory (" + std::to_string(p.static_shared_bytes) + " static + " +
                               std::to_string(k.dims().dynamic_shared) + " dynamic)");
      return shared.data() + addr;
    case Space::Local: {
      auto& loc = w.lm().local[lane];
      if (addr + bytes > loc.size() || addr >= loc.size())
        fault(w, in, lane, std::string(write ? "write" : "read") + " of " + std::to_string(bytes) + " bytes at local address " +
                               hex(addr) + " is outside the thread's " + std::to_string(loc.size()) + "-byte local frame");
      return loc.data() + addr;
    }
    case Space::Param: {
      if (write) fault(w, in, lane, "write to kernel parameter space at " + hex(addr));
      const auto& prm = k.params();
      if (addr + bytes > prm.size())
        fault(w, in, lane, "read of " + std::to_string(bytes) + " bytes at parameter offset " + std::to_string(addr) +
                               " beyond the " + std::to_string(prm.size()) + "-byte parameter block");
      return const_cast<std::uint8_t*>(prm.data()) + addr;
    }
    default: break;
  }
  fault(w, in, lane, "unsupported state space");
}

std::uint8_t* PtxCta::Impl::resolve_run(Warp& w, const Inst& in, Space space, std::uint64_t addr, std::uint32_t bytes,
                                        std::uint32_t count, int lane, bool write, Space* resolved) {
  Space first = space;
  std::uint8_t* p0 = resolve(w, in, space, addr, bytes, lane, write, &first);
  if (resolved) *resolved = first;
  if (count <= 1) return p0;
  const std::uint64_t run = std::uint64_t{bytes} * count;
  switch (first) {
    case Space::Global:
    case Space::Const: {  // a generic global address is the global address
      if (!k.memory().find(addr, run)) return nullptr;
      if (write) k.memory().note_write(p0, static_cast<std::uint32_t>(run));
      return p0;
    }
    case Space::Shared:
      return p0 + run <= shared.data() + shared.size() ? p0 : nullptr;
    default:
      return nullptr;
  }
}

namespace {

// Pointer into the per-lane param area of the current frame.
std::uint8_t* frame_param(PtxCta::Impl& c, Warp& w, const Inst& in, int lane, std::uint64_t off, std::uint32_t bytes) {
  auto& a = w.lm().params[lane];
  if (off + bytes > a.size()) c.fault(w, in, lane, "param access outside the call frame");
  return a.data() + off;
}

std::uint64_t load_extend(const std::uint8_t* src, Ty t) {
  switch (P::ty_bits(t)) {
    case 8: return P::ty_is_signed(t) ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(*src))) : *src;
    case 16: {
      std::uint16_t v;
      std::memcpy(&v, src, 2);
      return P::ty_is_signed(t) ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int16_t>(v))) : v;
    }
    case 32: {
      std::uint32_t v;
      std::memcpy(&v, src, 4);
      return P::ty_is_signed(t) ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(v))) : v;
    }
    default: {
      std::uint64_t v;
      std::memcpy(&v, src, 8);
      return v;
    }
  }
}

template <class T> T rd(const std::uint8_t* p) { T v; std::memcpy(&v, p, sizeof(T)); return v; }
template <class T> void wr(std::uint8_t* p, T v) { std::memcpy(p, &v, sizeof(T)); }

}  // namespace

std::uint64_t atomic_rmw(std::uint8_t* ptr, Ty t, AtomOp op, std::uint64_t b, std::uint64_t c) {
  const int bits = P::ty_bits(t);
  if (t == Ty::F32) {
    float old = rd<float>(ptr);
    float v = from32<float>(static_cast<std::uint32_t>(b));
    float r = old;
    switch (op) {
      case AtomOp::Add: r = old + v; break;
      case AtomOp::Min: r = std::fmin(old, v); break;
      case AtomOp::Max: r = std::fmax(old, v); break;
      case AtomOp::Exch: r = v; break;
      default: break;
    }
    wr(ptr, r);
    return to32(old);
  }
  if (t == Ty::F64) {
    double old = rd<double>(ptr), v = from64<double>(b), r = old;
    if (op == AtomOp::Add) r = old + v;
    else if (op == AtomOp::Min) r = std::fmin(old, v);
    else if (op == AtomOp::Max) r = std::fmax(old, v);
    else if (op == AtomOp::Exch) r = v;
    wr(ptr, r);
    return to64(old);
  }
  if (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2) {
    const bool bf = t == Ty::BF16 || t == Ty::BF16x2;
    const int n = (t == Ty::F16x2 || t == Ty::BF16x2) ? 2 : 1;
    std::uint32_t old = n == 2 ? rd<std::uint32_t>(ptr) : rd<std::uint16_t>(ptr);
    std::uint32_t out = 0;
    for (int h = 0; h < n; ++h) {
      std::uint16_t o = static_cast<std::uint16_t>(old >> (16 * h)), v = static_cast<std::uint16_t>(b >> (16 * h));
      float x = bf ? bf16_to_float(o) : half_to_float(o), y = bf ? bf16_to_float(v) : half_to_float(v);
      float r = op == AtomOp::Add ? x + y : op == AtomOp::Min ? std::fmin(x, y) : op == AtomOp::Max ? std::fmax(x, y) : y;
      std::uint16_t rb = bf ? float_to_bf16(r) : float_to_half(r);
      out |= static_cast<std::uint32_t>(rb) << (16 * h);
    }
    if (n == 2) wr(ptr, out);
    else wr(ptr, static_cast<std::uint16_t>(out));
    return old;
  }
  auto apply = [&](auto old, auto bv, auto cv) {
    using T = decltype(old);
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case AtomOp::Add: return static_cast<T>(static_cast<U>(old) + static_cast<U>(bv));
      case AtomOp::Min: return std::min(old, bv);
      case AtomOp::Max: return std::max(old, bv);
      case AtomOp::Inc: return static_cast<T>(static_cast<U>(old) >= static_cast<U>(bv) ? 0 : static_cast<U>(old) + 1);
      case AtomOp::Dec: return static_cast<T>((static_cast<U>(old) == 0 || static_cast<U>(old) > static_cast<U>(bv)) ? static_cast<U>(bv) : static_cast<U>(old) - 1);
      case AtomOp::And: return static_cast<T>(old & bv);
      case AtomOp::Or: return static_cast<T>(old | bv);
      case AtomOp::Xor: return static_cast<T>(old ^ bv);
      case AtomOp::Exch: return bv;
      case AtomOp::Cas: return old == bv ? cv : old;
    }
    return old;
  };
  if (bits == 64) {
    if (P::ty_is_signed(t)) {
      std::int64_t old = rd<std::int64_t>(ptr);
      wr(ptr, apply(old, static_cast<std::int64_t>(b), static_cast<std::int64_t>(c)));
      return static_cast<std::uint64_t>(old);
    }
    std::uint64_t old = rd<std::uint64_t>(ptr);
    wr(ptr, apply(old, b, c));
    return old;
  }
  if (P::ty_is_signed(t)) {
    std::int32_t old = rd<std::int32_t>(ptr);
    wr(ptr, apply(old, static_cast<std::int32_t>(b), static_cast<std::int32_t>(c)));
    return static_cast<std::uint32_t>(old);
  }
  std::uint32_t old = rd<std::uint32_t>(ptr);
  wr(ptr, apply(old, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(c)));
  return old;
}

Space PtxCta::Impl::exec_mem(Warp& w, const Inst& in, std::uint32_t m) {
  Space resolved = in.space;
  switch (in.op) {
    case Op::Ld:
    case Op::St: {
      const bool is_ld = in.op == Op::Ld;
      const int eb = elem_bytes(in.type);
      const std::uint32_t bytes = static_cast<std::uint32_t>(eb * in.vec);
      std::array<std::uint8_t*, 32> ptrs;  // set for every lane of m before use (not zeroed: this is the hot path)
      const bool frame_param_access = in.addr.kind == AddrBase::FrameParam;
      // 1) addresses and checks for every lane
      if (!frame_param_access && in.addr.kind == AddrBase::Reg && (in.space == Space::Global || in.space == Space::Generic) &&
          m == kFullMask) {
        // fast path: the whole warp inside one global allocation
        warp_addresses(w, in.addr, kFullMask);
        // four independent chains of compare-and-select (one would be 64 dependent steps)
        std::array<std::uint64_t, 4> los, his;
        los.fill(~std::uint64_t{0});
        his.fill(0);
        for (int l = 0; l < 32; l += 4)
          for (int j = 0; j < 4; ++j) {
            los[j] = std::min(los[j], w.addrs[l + j]);
            his[j] = std::max(his[j], w.addrs[l + j]);
          }
        const std::uint64_t lo = std::min(std::min(los[0], los[1]), std::min(los[2], los[3]));
        const std::uint64_t hi = std::max(std::max(his[0], his[1]), std::max(his[2], his[3]));
        // the lanes' span is one allocation; a lazy one fills only the pages the lanes reach
        Allocation* al =
            (lo >= P::kGlobalBase && hi < P::kLocalWindow) ? k.memory().find_unfilled(lo, hi - lo + bytes) : nullptr;
        if (al && al->lazy() && !no_transfer) [[unlikely]] {
          if (hi - lo < 4 * al->page)  // a coalesced access: its span at once
            al->materialize(lo - al->base, hi - lo + bytes);
          else
            for (int l = 0; l < 32; ++l) al->materialize(w.addrs[l] - al->base, bytes);
        }
        bool aligned = true;
        if (bytes > 1) {
          if ((bytes & (bytes - 1)) == 0) {  // every PTX access size: a mask, not a division per lane
            std::uint64_t mis = 0;
            for (int l = 0; l < 32; ++l) mis |= w.addrs[l];
            aligned = (mis & (bytes - 1)) == 0;
          } else {
            for (int l = 0; l < 32; ++l) aligned &= (w.addrs[l] % bytes) == 0;
          }
        }
        if (al && aligned && !(!is_ld && al->read_only)) {
          for (int l = 0; l < 32; ++l) ptrs[l] = al->data() + (w.addrs[l] - al->base);
          if (!is_ld && k.memory().journaling())
            for (int l = 0; l < 32; ++l) k.memory().note_write(ptrs[l], bytes);
          resolved = Space::Global;
        } else {
          for (int l = 0; l < 32; ++l) ptrs[l] = resolve(w, in, in.space, w.addrs[l], bytes, l, !is_ld, &resolved);
        }
      } else if (!frame_param_access && in.space == Space::Shared && in.addr.kind == AddrBase::Reg) {
        // shared memory: one range check for the warp when every lane is in bounds and aligned
        warp_addresses(w, in.addr, m);
        std::uint64_t lo = ~std::uint64_t{0}, hi = 0, mis = 0;
        for_lanes(m, [&](int l) { lo = std::min(lo, w.addrs[l]); hi = std::max(hi, w.addrs[l]); mis |= w.addrs[l] & (bytes - 1); });
        if (mis == 0 && hi + bytes <= shared.size()) {
          for_lanes(m, [&](int l) { ptrs[l] = shared.data() + w.addrs[l]; });
          resolved = Space::Shared;
        } else {
          for_lanes(m, [&](int l) { ptrs[l] = resolve(w, in, in.space, w.addrs[l], bytes, l, !is_ld, &resolved); });
        }
      } else {
        for_lanes(m, [&](int l) {
          std::uint64_t a = lane_address(w, in.addr, l);
          w.addrs[l] = a;
          if (frame_param_access) { ptrs[l] = frame_param(*this, w, in, l, a, bytes); resolved = Space::Param; }
          else ptrs[l] = resolve(w, in, in.space, a, bytes, l, !is_ld, &resolved);
        });
      }
      // 2) the transfer
      if (no_transfer) return resolved;
      if (is_ld) {
        for (int i = 0; i < in.vec; ++i) {
          const Reg d = p.dst(in, i);
          if (d.bank == Bank::None) continue;
          if (d.bank == Bank::R32 && eb == 4) {
            std::uint32_t* D = row32(w, d);
            for_lanes(m, [&](int l) { std::memcpy(&D[l], ptrs[l] + 4 * i, 4); });
          } else if (d.bank == Bank::R64 && eb == 8) {
            std::uint64_t* D = row64(w, d);
            for_lanes(m, [&](int l) { std::memcpy(&D[l], ptrs[l] + 8 * i, 8); });
          } else if (d.bank == Bank::Pred) {
            for_lanes(m, [&](int l) { put(w, d, l, ptrs[l][eb * i] != 0); });
          } else {
            for_lanes(m, [&](int l) { put(w, d, l, load_extend(ptrs[l] + eb * i, in.type)); });
          }
        }
      } else {
        for (int i = 0; i < in.vec; ++i) {
          const Reg s = p.src(in, i);
          if (s.bank == Bank::R32 || s.bank == Bank::C32 || s.bank == Bank::S32) {
            const std::uint32_t* S = row32(w, s);
            for_lanes(m, [&](int l) { std::memcpy(ptrs[l] + eb * i, &S[l], static_cast<std::size_t>(std::min(eb, 4))); });
          } else {
            for_lanes(m, [&](int l) {
              std::uint64_t v = get(w, s, l);
              std::memcpy(ptrs[l] + eb * i, &v, static_cast<std::size_t>(eb));
            });
          }
        }
      }
      return resolved;
    }
    case Op::Atom:
    case Op::Red: {
      const int eb = elem_bytes(in.type);
      const auto op = static_cast<AtomOp>(in.sub);
      std::array<std::uint8_t*, 32> ptrs{};
      for_lanes(m, [&](int l) {
        std::uint64_t a = lane_address(w, in.addr, l);
        w.addrs[l] = a;
        ptrs[l] = resolve(w, in, in.space, a, static_cast<std::uint32_t>(eb), l, true, &resolved);
        if (resolved == Space::Local || resolved == Space::Param)
          fault(w, in, l, "atomic on " + std::string(to_string(resolved)) + " memory");
      });
      const Reg d = in.op == Op::Atom ? p.dst(in, 0) : Reg{};
      const Reg b = p.src(in, 0);
      const Reg c = in.nsrc > 1 ? p.src(in, 1) : Reg{};
      // lanes in order: deterministic
      for_lanes(m, [&](int l) {
        std::uint64_t old = atomic_rmw(ptrs[l], in.type, op, get(w, b, l), c.bank == Bank::None ? 0 : get(w, c, l));
        if (d.bank != Bank::None) put(w, d, l, old);
      });
      return resolved;
    }
    case Op::CpAsync: {
      const std::uint32_t size = static_cast<std::uint32_t>(in.shape[0]);
      const std::uint32_t* srcsize = row32(w, p.src(in, 0));
      std::array<std::uint8_t*, 32> dp{}, sp{};
      for_lanes(m, [&](int l) {
        std::uint64_t da = lane_address(w, in.addr, l), sa = lane_address(w, in.addr2, l);
        w.addrs[l] = sa;
        Space r1, r2;
        dp[l] = resolve(w, in, Space::Shared, da, size, l, true, &r1);
        std::uint32_t n = std::min(size, srcsize[l]);
        sp[l] = n ? resolve(w, in, Space::Global, sa, size, l, false, &r2) : nullptr;
      });
      for_lanes(m, [&](int l) {
        std::uint32_t n = std::min(size, srcsize[l]);
        if (n) std::memcpy(dp[l], sp[l], n);
        if (n < size) std::memset(dp[l] + n, 0, size - n);
      });
      return Space::Global;
    }
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
    case Op::Prefetch:
      return Space::Global;
    case Op::Ldmatrix:
    case Op::Stmatrix: {
      // m8n8 b16 matrices: thread t names row (t%8) of matrix (t/8); each thread holds, per
      // matrix, the pair of elements at (row t/4, cols 2(t%4), 2(t%4)+1) — transposed with .trans.
      const int nm = in.shape[0];
      const bool trans = in.flags & P::kTrans;
      std::array<std::uint8_t*, 32> rows{};
      const int addr_lanes = 8 * nm;
      for (int t = 0; t < addr_lanes; ++t) {
        if (!((m >> t) & 1)) fault(w, in, t, std::string(to_string(in.op)) + " needs lane " + std::to_string(t) + " active to supply a row address");
        std::uint64_t a = lane_address(w, in.addr, t);
        w.addrs[t] = a;
        rows[t] = resolve(w, in, in.space == Space::Generic ? Space::Generic : Space::Shared, a, 16, t, in.op == Op::Stmatrix, &resolved);
      }
      for (int mi = 0; mi < nm; ++mi) {
        for (int t = 0; t < 32; ++t) {
          if (!((m >> t) & 1)) continue;
          std::uint16_t* e[2];
          for (int j = 0; j < 2; ++j) {
            int r = trans ? 2 * (t % 4) + j : t / 4;
            int col = trans ? t / 4 : 2 * (t % 4) + j;
            e[j] = reinterpret_cast<std::uint16_t*>(rows[mi * 8 + r] + 2 * col);
          }
          if (in.op == Op::Ldmatrix) {
            std::uint16_t lo, hi;
            std::memcpy(&lo, e[0], 2);
            std::memcpy(&hi, e[1], 2);
            put(w, p.dst(in, mi), t, static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16));
          } else {
            std::uint32_t v = static_cast<std::uint32_t>(get(w, p.src(in, mi), t));
            std::uint16_t lo = static_cast<std::uint16_t>(v), hi = static_cast<std::uint16_t>(v >> 16);
            std::memcpy(e[0], &lo, 2);
            std::memcpy(e[1], &hi, 2);
          }
        }
      }
      return resolved;
    }
    default:
      unsupported(in, std::string("`") + to_string(in.op) + "` in the memory path");
  }
}

}  // namespace kernsim::sim
