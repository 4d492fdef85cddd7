// PTX mbarriers, bulk copies (cp.async.bulk, cp.reduce.async.bulk) and their groups, executed per
// thread, lanes in order, as the PTX ISA's "mbarrier" and "cp.async.bulk" sections define them.
// Copies move their data when they are issued and complete their transaction bytes on the
// mbarrier at once; the timing model (sim/timing/nvidia_machine.cpp) times the same events.
//
// The mbarrier object is 64 bits of shared memory in kernsim's own encoding (the hardware's is
// opaque; docs/status.md):
//   bits  0-19 pending arrivals of the current phase     bits 20-39 expected arrivals per phase
//   bits 40-60 tx-count (21-bit two's complement)          bit  61    the current phase's parity
//   bit  63    initialised (mbarrier.init sets it, mbarrier.inval and zeroed memory clear it)
// A state token (mbarrier.arrive's result) has bit 63 set, bit 61 the phase the arrival was in
// and bits 0-19 the pending arrivals it left (mbarrier.pending_count reads them).
#include <cstdio>

#include "isa/ptx/ops.h"
#include "sim/functional/ptx_impl.h"
#include "sim/functional/tensor_map.h"

namespace kernsim::sim {

namespace P = isa::ptx;
using P::BulkDir;

namespace {

constexpr std::uint64_t kValid = 1ull << 63;
constexpr std::uint32_t kMaxCount = (1u << 20) - 1;  // arrival counts and |tx-count| (PTX ISA)
constexpr std::int32_t kMaxTx = (1 << 20) - 1;

struct Mbar {
  std::uint32_t pending = 0, expected = 0;
  std::int32_t tx = 0;
  std::uint32_t phase = 0;
  bool valid = false;
};

Mbar unpack(std::uint64_t v) {
  Mbar m;
  m.valid = (v & kValid) != 0;
  m.pending = static_cast<std::uint32_t>(v & 0xfffff);
  m.expected = static_cast<std::uint32_t>((v >> 20) & 0xfffff);
  std::uint32_t t = static_cast<std::uint32_t>((v >> 40) & 0x1fffff);
  m.tx = (t & 0x100000) ? static_cast<std::int32_t>(t) - (1 << 21) : static_cast<std::int32_t>(t);
  m.phase = static_cast<std::uint32_t>((v >> 61) & 1);
  return m;
}

std::uint64_t pack(const Mbar& m) {
  return kValid | m.pending | (std::uint64_t{m.expected} << 20) |
         ((std::uint64_t{static_cast<std::uint32_t>(m.tx)} & 0x1fffff) << 40) | (std::uint64_t{m.phase} << 61);
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string describe(const Mbar& m) {
  return "phase " + std::to_string(m.phase) + ", " + std::to_string(m.pending) + " of " + std::to_string(m.expected) +
         " arrivals pending, tx-count " + std::to_string(m.tx);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// shared memory of the cluster

std::uint8_t* PtxCta::Impl::cluster_shared(Warp& w, const Inst& in, std::uint64_t addr, std::uint32_t bytes, int lane) {
  if (addr < shared.size() && addr + bytes <= shared.size()) return shared.data() + addr;
  if (addr < shared.size())
    fault(w, in, lane,
          std::to_string(bytes) + " bytes at shared::cluster address " + hex(addr) + " overrun the CTA's " +
              std::to_string(shared.size()) + " bytes of shared memory");
  if (addr < P::kClusterRankStride)
    fault(w, in, lane,
          std::to_string(bytes) + " bytes at shared::cluster address " + hex(addr) + " are outside the CTA's " +
              std::to_string(shared.size()) + " bytes of shared memory");
  // another CTA of the cluster (mapa's encoding: (rank + 1) x kClusterRankStride + offset)
  return cluster_shared(w, in, lane, static_cast<std::uint32_t>(addr / P::kClusterRankStride - 1),
                        addr % P::kClusterRankStride, bytes, true);
}

namespace {

// One lane's mbarrier: where it is (checked: shared memory, 8-byte aligned, in bounds) and its
// state; write() stores it back and notes the store (a change other warps may wait for).
class MbarRef {
 public:
  MbarRef(PtxCta::Impl& c, Warp& w, const Inst& in, int lane) : c_(c), w_(w), in_(in), lane_(lane) {
    addr_ = c.lane_address(w, in.addr, lane);
    w.addrs[lane] = addr_;
    if (addr_ % 8) c.fault(w, in, lane, "mbarrier address " + hex(addr_) + " is not 8-byte aligned");
    if (in.space == Space::Generic) {
      if (addr_ < P::kSharedWindow || addr_ >= P::kSharedWindow + P::kWindowSize)
        c.fault(
            w, in, lane,
            "mbarrier address " + hex(addr_) + " is not in shared memory (the generic address of an mbarrier must be)");
      addr_ -= P::kSharedWindow;
    }
    ptr_ = (in.flags & P::kClusterSpace) ? c.cluster_shared(w, in, addr_, 8, lane)
                                         : c.resolve(w, in, Space::Shared, addr_, 8, lane, true, nullptr);
    std::uint64_t v;
    std::memcpy(&v, ptr_, 8);
    m_ = unpack(v);
  }
  Mbar& state() { return m_; }
  std::uint32_t addr() const { return static_cast<std::uint32_t>(addr_); }
  void require_valid() {
    if (!m_.valid)
      c_.fault(
          w_, in_, lane_,
          "the mbarrier at shared address " + hex(addr_) + " is not initialised (mbarrier.init) or was invalidated");
  }
  void write() {
    const std::uint64_t v = pack(m_);
    std::memcpy(ptr_, &v, 8);
    c_.k.memory().note_store();
  }
  void clear() {
    std::memset(ptr_, 0, 8);
    c_.k.memory().note_store();
  }
  // completes the phase when no arrival and no transaction byte is outstanding
  bool try_complete() {
    if (m_.pending != 0 || m_.tx != 0) return false;
    m_.phase ^= 1u;
    m_.pending = m_.expected;
    return true;
  }
  void add_tx(std::int64_t bytes) {
    const std::int64_t t = m_.tx + bytes;
    if (t > kMaxTx || t < -kMaxTx)
      c_.fault(w_, in_, lane_,
               "the mbarrier at shared address " + hex(addr_) + " would hold tx-count " + std::to_string(t) +
                   " (the PTX range is -(2^20-1) .. 2^20-1)");
    m_.tx = static_cast<std::int32_t>(t);
  }
  [[noreturn]] void fault(const std::string& what) {
    c_.fault(w_, in_, lane_, what + " (mbarrier at shared address " + hex(addr_) + ": " + describe(m_) + ")");
  }

 private:
  PtxCta::Impl& c_;
  Warp& w_;
  const Inst& in_;
  int lane_;
  std::uint64_t addr_ = 0;
  std::uint8_t* ptr_ = nullptr;
  Mbar m_;
};

void note(Warp& w, MbarEvent::What what, std::uint32_t addr, bool completed) {
  auto& ev = w.async.mbar;
  if (!ev.empty() && ev.back().addr == addr && ev.back().what == what) {
    ev.back().completed_phase |= completed;
    return;
  }
  ev.push_back({what, addr, completed});
}

// An arrive-on operation of `count` arrivals, after `tx` expected transaction bytes.
std::uint64_t arrive(MbarRef& b, const Inst& in, std::uint32_t count, std::uint32_t tx, bool& completed) {
  Mbar& m = b.state();
  if (count == 0 || count > kMaxCount) b.fault("arrival count " + std::to_string(count) + " outside 1 .. 2^20-1");
  if (in.sub & P::kMbarExpectTx) b.add_tx(tx);
  if (in.op == Op::MbarArriveDrop) {
    if (count > m.expected) b.fault("arrive_drop of " + std::to_string(count) + " exceeds the expected arrivals");
    m.expected -= count;
  }
  if (count > m.pending) b.fault(std::to_string(count) + " arrivals exceed the pending ones");
  const std::uint32_t phase = m.phase;
  m.pending -= count;
  const std::uint64_t token = kValid | (std::uint64_t{phase} << 61) | m.pending;
  if ((in.sub & P::kMbarNoComplete) && m.pending == 0 && m.tx == 0)
    b.fault("mbarrier.arrive.noComplete would complete the phase (undefined behaviour in PTX)");
  completed = b.try_complete();
  return token;
}

// The lanes in order: init, arrive, transaction counts, waits, inval; pending_count reads a token.
void exec_mbarrier_lane(PtxCta::Impl& c, Warp& w, const Inst& in, int l, bool& any_failed) {
  const auto& p = c.p;
  if (in.op == Op::MbarPendingCount) {
    c.put(w, p.dst(in, 0), l, c.get(w, p.src(in, 0), l) & 0xfffff);
    return;
  }
  MbarRef b(c, w, in, l);
  Mbar& m = b.state();
  bool completed = false;
  switch (in.op) {
    case Op::MbarInit: {
      const std::uint64_t n = c.get(w, p.src(in, 0), l);
      if (n == 0 || n > kMaxCount) b.fault("mbarrier.init count " + std::to_string(n) + " outside 1 .. 2^20-1");
      m = Mbar{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), 0, 0, true};
      b.write();
      return note(w, MbarEvent::What::Init, b.addr(), false);
    }
    case Op::MbarInval:
      b.clear();
      return note(w, MbarEvent::What::Other, b.addr(), false);
    default:
      break;
  }
  b.require_valid();
  switch (in.op) {
    case Op::MbarArrive:
    case Op::MbarArriveDrop: {
      const std::uint64_t token = arrive(b, in, static_cast<std::uint32_t>(c.get(w, p.src(in, 0), l)),
                                         static_cast<std::uint32_t>(c.get(w, p.src(in, 1), l)), completed);
      c.put(w, p.dst(in, 0), l, token);
      b.write();
      return note(w, MbarEvent::What::Arrive, b.addr(), completed);
    }
    case Op::CpAsyncMbarArrive:  // the thread's cp.async copies are complete (functional copies are)
      if (in.sub & P::kMbarNoInc) {
        if (m.pending == 0) b.fault("cp.async.mbarrier.arrive.noinc with no pending arrival");
        --m.pending;
        completed = b.try_complete();
      }
      b.write();
      return note(w, MbarEvent::What::Arrive, b.addr(), completed);
    case Op::MbarExpectTx:
    case Op::MbarCompleteTx: {
      const std::int64_t bytes = static_cast<std::int64_t>(c.get(w, p.src(in, 0), l) & 0xffffffffu);
      b.add_tx(in.op == Op::MbarExpectTx ? bytes : -bytes);
      if (in.op == Op::MbarCompleteTx) completed = b.try_complete();
      b.write();
      return note(w, MbarEvent::What::Tx, b.addr(), completed);
    }
    case Op::MbarTestWait:
    case Op::MbarTryWait: {
      const std::uint64_t s = c.get(w, p.src(in, 0), l);
      if (!(in.sub & P::kMbarParity) && !(s & kValid))
        b.fault("the state operand " + hex(s) + " is not a token of mbarrier.arrive");
      const std::uint32_t phase =
          (in.sub & P::kMbarParity) ? static_cast<std::uint32_t>(s & 1) : static_cast<std::uint32_t>((s >> 61) & 1);
      const bool ok = m.phase != phase;  // the phase with that parity has completed
      c.put(w, p.dst(in, 0), l, ok ? 1 : 0);
      if (!ok && !any_failed) {
        w.mbar_addr = b.addr();
        w.async.try_wait = in.op == Op::MbarTryWait;
        if (in.sub & P::kMbarHint) w.async.hint_ns = static_cast<std::uint32_t>(c.get(w, p.src(in, 1), l));
      }
      any_failed |= !ok;
      return note(w, ok ? MbarEvent::What::WaitOk : MbarEvent::What::WaitFail, b.addr(), false);
    }
    default:
      c.unsupported(in, std::string("`") + to_string(in.op) + "` in the mbarrier path");
  }
}

// A failing wait blocks the warp for the functional driver (PtxCta::run runs the others); it is
// stuck when its state repeats that of its previous failing wait with nothing stored between.
void mbar_wait_failed(PtxCta::Impl& c, Warp& w, std::uint32_t pc) {
  SpinWatch& s = w.mbar_watch;
  const std::uint64_t stores = c.k.memory().stores();
  w.mbar_stuck = s.pc == pc && s.stores == stores && same_state(w, s);
  if (!w.mbar_stuck) {
    s.pc = pc;
    s.stores = stores;
    snapshot(w, s);
  }
  w.mbar_blocked = true;
  w.async.stuck = w.mbar_stuck;
  w.spin.yield = true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// bulk copies

namespace {

void check_bulk(PtxCta::Impl& c, Warp& w, const Inst& in, int l, std::uint64_t dst, std::uint64_t src,
                std::uint32_t size) {
  if (size % 16) c.fault(w, in, l, "bulk copy size " + std::to_string(size) + " is not a multiple of 16 bytes");
  if (dst % 16) c.fault(w, in, l, "bulk copy destination " + hex(dst) + " is not 16-byte aligned");
  if (src % 16) c.fault(w, in, l, "bulk copy source " + hex(src) + " is not 16-byte aligned");
}

// The address of the copy's mbarrier operand: source 1 (cp.async.bulk) or the one after the
// coordinates (tensor copies), plus Inst::imm.
std::uint64_t mbar_operand(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  return c.get(w, c.p.src(in, in.op == Op::BulkCopy || in.op == Op::BulkReduce ? 1 : in.shape[0]), l) + in.imm;
}

// complete_tx of `bytes` on the mbarrier at `addr`: the destination CTA's barrier (a
// shared::cluster address when `cluster`, else one of the own CTA's shared memory).
void complete_tx_at(PtxCta::Impl& c, Warp& w, const Inst& in, int l, std::uint64_t addr, bool cluster,
                    std::uint64_t bytes) {
  Inst m = in;
  m.op = Op::MbarCompleteTx;
  m.addr = {P::AddrBase::Absolute, {}, static_cast<std::int64_t>(addr)};
  m.space = Space::Shared;
  m.flags = cluster ? (in.flags | P::kClusterSpace) : (in.flags & ~P::kClusterSpace);
  MbarRef b(c, w, m, l);
  b.require_valid();
  b.add_tx(-static_cast<std::int64_t>(bytes));
  const bool done = b.try_complete();
  b.write();
  note(w, MbarEvent::What::CopyTx, b.addr(), done);
}

// The destination's mbarrier: complete_tx of `bytes` (the destination CTA's barrier).
void complete_tx(PtxCta::Impl& c, Warp& w, const Inst& in, int l, std::uint64_t bytes) {
  complete_tx_at(c, w, in, l, mbar_operand(c, w, in, l), (in.flags & P::kClusterSpace) != 0, bytes);
}

void reduce_into(PtxCta::Impl& c, Warp& w, const Inst& in, int l, std::uint8_t* dst, const std::uint8_t* src,
                 std::uint32_t size, Ty t) {
  const std::uint32_t eb = static_cast<std::uint32_t>(std::max(1, P::ty_bits(t) / 8));
  if (size % eb)
    c.fault(w, in, l, "bulk reduction size " + std::to_string(size) + " is not a multiple of the element size");
  for (std::uint32_t i = 0; i < size; i += eb) {
    std::uint64_t v = 0;
    std::memcpy(&v, src + i, eb);
    atomic_rmw(dst + i, t, static_cast<P::AtomOp>(in.sub), v, 0);
  }
}

// The CTA ranks of a multicast's ctaMask (source `i`), checked against the cluster.
std::uint32_t cta_mask(PtxCta::Impl& c, Warp& w, const Inst& in, int l, int i) {
  const std::uint32_t mask = static_cast<std::uint32_t>(c.get(w, c.p.src(in, i), l)) & 0xffffu;
  if (mask >> c.cluster_size())
    c.fault(w, in, l,
            "multicast ctaMask " + hex(mask) + " names a CTA rank the cluster of " + std::to_string(c.cluster_size()) +
                " does not have");
  return mask;
}

// cp.async.bulk .multicast::cluster: `size` bytes from global `src` to CTA-relative offset `dst`
// in every CTA of the ctaMask, each completing its mbarrier at the same offset.
void multicast_bulk(PtxCta::Impl& c, Warp& w, const Inst& in, int l, std::uint64_t dst, std::uint64_t src,
                    std::uint32_t size) {
  const std::uint32_t ranks = cta_mask(c, w, in, l, 2);
  const std::uint8_t* s = c.resolve_run(w, in, Space::Global, src, 1, size, l, false, nullptr);
  if (!s) c.fault(w, in, l, "the " + std::to_string(size) + "-byte bulk copy from " + hex(src) + " leaves its memory");
  const std::uint64_t bar = mbar_operand(c, w, in, l) % P::kClusterRankStride;
  for (std::uint32_t r = 0; r < c.cluster_size(); ++r) {
    if (!(ranks >> r & 1u)) continue;
    std::memmove(c.cluster_shared(w, in, l, r, dst % P::kClusterRankStride, size, true), s, size);
    c.k.memory().note_store();
    complete_tx_at(c, w, in, l, (r + 1) * P::kClusterRankStride + bar, true, size);
  }
  AsyncStep& a = w.async;
  a.bytes += size;
  a.ranges.push_back({src, size});
}

void exec_bulk_lane(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  const std::uint32_t size = static_cast<std::uint32_t>(c.get(w, c.p.src(in, 0), l));
  AsyncStep& a = w.async;
  a.copy = true;
  a.reduce = in.op == Op::BulkReduce;
  if (in.op == Op::BulkPrefetch) {
    const std::uint64_t src = c.lane_address(w, in.addr2, l);
    check_bulk(c, w, in, l, 0, src, size);
    c.resolve(w, in, Space::Global, src, 1, l, false, nullptr);
    if (size) c.resolve(w, in, Space::Global, src + size - 1, 1, l, false, nullptr);
    a.prefetch = true;
    a.ranges.push_back({src, size});
    return;
  }
  const auto dir = static_cast<BulkDir>(in.shape[0]);
  a.dir = dir;
  const std::uint64_t dst = c.lane_address(w, in.addr, l), src = c.lane_address(w, in.addr2, l);
  w.addrs[l] = dir == BulkDir::SharedToGlobal ? dst : src;
  check_bulk(c, w, in, l, dst, src, size);
  if (size == 0) return;
  if (in.shape[2]) return multicast_bulk(c, w, in, l, dst, src, size);
  const bool to_global = dir == BulkDir::SharedToGlobal;
  std::uint8_t* d = to_global ? c.resolve_run(w, in, Space::Global, dst, 1, size, l, true, nullptr)
                    : (in.flags & P::kClusterSpace)
                        ? c.cluster_shared(w, in, dst, size, l)
                        : c.resolve_run(w, in, Space::Shared, dst, 1, size, l, true, nullptr);
  const Space from = dir == BulkDir::GlobalToShared ? Space::Global : Space::Shared;
  const std::uint8_t* s = c.resolve_run(w, in, from, src, 1, size, l, false, nullptr);
  if (!d || !s)
    c.fault(
        w, in, l,
        "the " + std::to_string(size) + "-byte bulk copy from " + hex(src) + " to " + hex(dst) + " leaves its memory");
  if (a.reduce)
    reduce_into(c, w, in, l, d, s, size, in.type3);
  else
    std::memmove(d, s, size);
  c.k.memory().note_store();
  a.bytes += size;
  if (dir != BulkDir::SharedToCluster) a.ranges.push_back({to_global ? dst : src, size});
  if (!to_global) complete_tx(c, w, in, l, size);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// tensor copies (TMA, tile mode)

namespace {

// The 128-byte tensor map the instruction names (a kernel parameter or its generic address).
TensorMap read_tensor_map(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  const std::uint64_t a = c.lane_address(w, in.addr2, l);
  if (a % 64) c.fault(w, in, l, "the tensor map at " + hex(a) + " is not 64-byte aligned");
  const Space sp = in.shape[3] == static_cast<std::int16_t>(Space::Param) ? Space::Param : Space::Generic;
  const std::uint8_t* p0 = c.resolve(w, in, sp, a, 1, l, false, nullptr);
  const std::uint8_t* p1 = c.resolve(w, in, sp, a + TensorMap::kBytes - 1, 1, l, false, nullptr);
  if (p1 != p0 + TensorMap::kBytes - 1)
    c.fault(w, in, l, "the 128-byte tensor map at " + hex(a) + " is not in one piece of memory");
  const std::optional<TensorMap> m = decode_tensor_map(p0);
  if (!m)
    c.fault(
        w, in, l,
        "the operand at " + hex(a) + " is no tensor map kernsim made (pass it as a launch-spec `tensor_map` argument)");
  if (const std::string why = check_tensor_map(*m); !why.empty())
    c.fault(w, in, l, "the tensor map at " + hex(a) + " is invalid: " + why);
  if (m->rank != in.shape[0])
    c.fault(
        w, in, l,
        "a " + std::to_string(in.shape[0]) + "d tensor copy with a rank-" + std::to_string(m->rank) + " tensor map");
  return *m;
}

// The PTX type of a tensor map's elements (a tensor reduction's operation type).
Ty element_type(const TensorMap& m) {
  switch (m.dtype) {
    case TmapType::U8:
      return Ty::U8;
    case TmapType::U16:
      return Ty::U16;
    case TmapType::U32:
      return Ty::U32;
    case TmapType::I32:
      return Ty::S32;
    case TmapType::U64:
      return Ty::U64;
    case TmapType::I64:
      return Ty::S64;
    case TmapType::F16:
      return Ty::F16;
    case TmapType::BF16:
      return Ty::BF16;
    case TmapType::F64:
      return Ty::F64;
    default:
      return Ty::F32;  // f32, f32_ftz, tf32, tf32_ftz
  }
}

// The fill of an out-of-bounds element: zeros, or (oob_fill nan_request_zero_fma, float types) the
// type's canonical NaN.
void oob_fill(const TensorMap& m, std::uint8_t* d) {
  const int eb = m.elem_bytes();
  std::memset(d, 0, static_cast<std::size_t>(eb));
  if (m.oob != TmapOobFill::NanRequestZeroFma) return;
  const std::uint64_t nan = eb == 2 ? 0x7fff : eb == 4 ? 0x7fffffffu : 0x7fffffffffffffffull;
  std::memcpy(d, &nan, static_cast<std::size_t>(eb));
}

// Every element of the box, innermost dimension fastest: f(shared offset before the swizzle,
// global byte offset or -1 when out of bounds).
template <class F>
void for_box(const TensorMap& m, const std::array<std::int64_t, 5>& coord, F&& f) {
  std::array<std::uint32_t, 5> n{1, 1, 1, 1, 1}, i{};
  std::uint64_t total = 1;
  for (int d = 0; d < m.rank; ++d) total *= (n[d] = m.box_elems(d));
  const std::uint64_t eb = static_cast<std::uint64_t>(m.elem_bytes());
  for (std::uint64_t lin = 0; lin < total; ++lin) {
    std::int64_t g = 0;
    bool in = true;
    for (int d = 0; d < m.rank; ++d) {
      const std::int64_t x = coord[d] + static_cast<std::int64_t>(i[d]) * m.estride[d];
      in = in && x >= 0 && x < static_cast<std::int64_t>(m.dims[d]);
      g += x * static_cast<std::int64_t>(m.strides[d]);
    }
    f(lin * eb, in ? g : -1);
    for (int d = 0; d < m.rank && ++i[d] == n[d]; ++d) i[d] = 0;
  }
}

// The global pieces a box touches, merged where contiguous (for the timing model).
class Ranges {
 public:
  Ranges(AsyncStep& a, std::uint64_t base) : a_(a), base_(base) {}
  void add(std::int64_t g, int eb) {
    if (g != end_) flush();
    if (start_ < 0) start_ = g;
    end_ = g + eb;
  }
  void flush() {
    if (start_ >= 0)
      a_.ranges.push_back({base_ + static_cast<std::uint64_t>(start_), static_cast<std::uint32_t>(end_ - start_)});
    start_ = -1;
  }

 private:
  AsyncStep& a_;
  std::uint64_t base_;
  std::int64_t start_ = -1, end_ = -1;
};

// The 128-byte tensor-map object at `a` in `space` (checked: 128-byte aligned, in one piece).
std::uint8_t* tensor_map_object(PtxCta::Impl& c, Warp& w, const Inst& in, int l, Space space, std::uint64_t a,
                                bool write) {
  if (a % 128) c.fault(w, in, l, "the tensor-map object at " + hex(a) + " is not 128-byte aligned");
  std::uint8_t* p0 = c.resolve(w, in, space, a, 1, l, write, nullptr);
  const std::uint8_t* p1 = c.resolve(w, in, space, a + TensorMap::kBytes - 1, 1, l, write, nullptr);
  if (p1 != p0 + TensorMap::kBytes - 1)
    c.fault(w, in, l, "the 128-byte tensor-map object at " + hex(a) + " is not in one piece of memory");
  return p0;
}

// tensormap.replace: one field of a map a kernel builds; tensormap.cp_fenceproxy: its copy to
// global memory (the fence is a no-op: functional memory is coherent).
void exec_tensormap_lane(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  if (in.op == Op::TensormapCopy) {
    if (c.get(w, c.p.src(in, 0), l) != TensorMap::kBytes) c.fault(w, in, l, "tensormap.cp_fenceproxy copies 128 bytes");
    std::uint8_t* d = tensor_map_object(c, w, in, l, Space::Global, c.lane_address(w, in.addr, l), true);
    const std::uint8_t* s = tensor_map_object(c, w, in, l, Space::Shared, c.lane_address(w, in.addr2, l), false);
    std::memcpy(d, s, TensorMap::kBytes);
    c.k.memory().note_store();
    return;
  }
  std::uint8_t* m = tensor_map_object(c, w, in, l, in.space, c.lane_address(w, in.addr, l), true);
  const int ord = static_cast<int>(c.get(w, c.p.src(in, 0), l));
  if (ord < 0 || ord >= TensorMap::kMaxRank)
    c.fault(w, in, l, "tensor-map dimension " + std::to_string(ord) + " (0 to 4 exist)");
  const auto f = static_cast<P::TmapField>(in.sub);
  if (f == P::TmapField::GlobalStride && ord > 3)
    c.fault(w, in, l, "tensor-map stride ordinal " + std::to_string(ord) + " (0 to 3 exist)");
  if (!replace_field(m, f, ord, c.get(w, c.p.src(in, 1), l)))
    c.unsupported(in, "the tensor-map field swizzle_atomicity (sm_100)");
  c.k.memory().note_store();
}

// A tile load multicast to the CTAs of `ranks` (a ctaMask), at CTA-relative offset `sh` in each.
void multicast_box(PtxCta::Impl& c, Warp& w, const Inst& in, int l, const TensorMap& m,
                   const std::array<std::int64_t, 5>& coord, const std::uint8_t* gbase, std::uint64_t sh,
                   std::uint32_t ranks, Ranges& ranges) {
  const int eb = m.elem_bytes();
  for_box(m, coord, [&](std::uint64_t off, std::int64_t g) {
    if (g >= 0) ranges.add(g, eb);
    const std::uint64_t s_off = swizzle_offset(sh + off, m.swizzle);
    for (std::uint32_t r = 0; r < c.cluster_size(); ++r) {
      if (!(ranks >> r & 1u)) continue;
      std::uint8_t* sp = c.cluster_shared(w, in, l, r, s_off, static_cast<std::uint32_t>(eb), true);
      if (g >= 0)
        std::memcpy(sp, gbase + g, static_cast<std::size_t>(eb));
      else
        oob_fill(m, sp);
    }
  });
  ranges.flush();
  c.k.memory().note_store();
}

void exec_tensor_lane(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  const TensorMap m = read_tensor_map(c, w, in, l);
  std::array<std::int64_t, 5> coord{};
  for (int d = 0; d < m.rank; ++d) coord[d] = static_cast<std::int32_t>(c.get(w, c.p.src(in, d), l));
  AsyncStep& a = w.async;
  a.copy = true;
  a.prefetch = in.op == Op::TensorPrefetch;
  a.reduce = in.op == Op::TensorReduce;
  const bool load = static_cast<BulkDir>(in.shape[1]) == BulkDir::GlobalToShared && !a.prefetch;
  a.dir = load || a.prefetch ? BulkDir::GlobalToShared : BulkDir::SharedToGlobal;
  // .multicast::cluster: the box goes to the same CTA-relative offset in every CTA of ctaMask,
  // and so does the complete_tx on its mbarrier
  const std::uint32_t multicast = in.shape[2] ? cta_mask(c, w, in, l, m.rank + 1) : 0;
  std::uint8_t* gbase = c.resolve_run(w, in, Space::Global, m.address, 1, static_cast<std::uint32_t>(m.extent_bytes()),
                                      l, !load && !a.prefetch, nullptr);
  if (!gbase) c.fault(w, in, l, "the tensor map's tensor at " + hex(m.address) + " leaves its buffer");
  const std::uint64_t sh = a.prefetch ? 0 : c.lane_address(w, in.addr, l);
  if (!a.prefetch && sh % 128) c.fault(w, in, l, "the shared-memory box at " + hex(sh) + " is not 128-byte aligned");
  const int eb = m.elem_bytes();
  Ranges ranges(a, m.address);
  if (multicast) {
    multicast_box(c, w, in, l, m, coord, gbase, sh % P::kClusterRankStride, multicast, ranges);
    a.bytes += m.box_bytes();
    const std::uint64_t bar = mbar_operand(c, w, in, l) % P::kClusterRankStride;
    for (std::uint32_t r = 0; r < c.cluster_size(); ++r)
      if (multicast >> r & 1u) complete_tx_at(c, w, in, l, (r + 1) * P::kClusterRankStride + bar, true, m.box_bytes());
    return;
  }
  for_box(m, coord, [&](std::uint64_t off, std::int64_t g) {
    if (g >= 0) ranges.add(g, eb);
    if (a.prefetch) return;
    const std::uint64_t s_addr = swizzle_offset(sh + off, m.swizzle);
    std::uint8_t* sp = (in.flags & P::kClusterSpace)
                           ? c.cluster_shared(w, in, s_addr, static_cast<std::uint32_t>(eb), l)
                           : c.resolve(w, in, Space::Shared, s_addr, static_cast<std::uint32_t>(eb), l, load, nullptr);
    if (load) {
      if (g >= 0)
        std::memcpy(sp, gbase + g, static_cast<std::size_t>(eb));
      else
        oob_fill(m, sp);
    } else if (g >= 0) {
      if (a.reduce)
        reduce_into(c, w, in, l, gbase + g, sp, static_cast<std::uint32_t>(eb), element_type(m));
      else
        std::memcpy(gbase + g, sp, static_cast<std::size_t>(eb));
    }
  });
  ranges.flush();
  if (a.prefetch) return;
  c.k.memory().note_store();
  a.bytes += m.box_bytes();
  if (load) complete_tx(c, w, in, l, m.box_bytes());
}

// clusterlaunchcontrol.try_cancel: asks the launch to cancel the first cluster not yet launched
// (PtxKernel::cancel_cluster) and writes the 16-byte response at [addr] (with
// .multicast::cluster::all at that offset in every CTA of the cluster), completing 16 bytes of tx
// on the mbarrier there. The response is opaque in the PTX ISA; kernsim's is the first CTA's
// %ctaid x, y, z of the canceled cluster in bytes 0-11 and 1 in bytes 12-15; a request that
// canceled nothing has 0xffffffff for x, y, z (the ISA leaves them undefined) and 0. Without
// .shared::cta both addresses are generic and must name shared memory.
void exec_clc_try_cancel(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  const LaunchDims& dims = c.k.dims();
  if (c.clc_failed_seen)
    c.fault(w, in, l,
            "clusterlaunchcontrol.try_cancel after this CTA observed a failed request (undefined in the PTX ISA: "
            "stop asking once a response says nothing was canceled)");
  if (!dims.explicit_cluster && dims.cluster_ctas() == 1)
    c.unsupported(in, "clusterlaunchcontrol.try_cancel in a launch without clusters (kernsim cancels clusters)");
  std::array<std::uint32_t, 4> resp{~0u, ~0u, ~0u, 0};
  if (const std::optional<std::uint64_t> idx = c.k.cancel_cluster()) {
    const std::uint64_t id = dims.cluster_cta(*idx, 0);
    resp = {static_cast<std::uint32_t>(id % dims.grid[0]), static_cast<std::uint32_t>(id / dims.grid[0] % dims.grid[1]),
            static_cast<std::uint32_t>(id / (std::uint64_t{dims.grid[0]} * dims.grid[1])), 1};
  }
  std::uint64_t addr = c.lane_address(w, in.addr, l), bar = mbar_operand(c, w, in, l);
  if (in.space == Space::Generic)
    for (std::uint64_t* a : {&addr, &bar}) {
      if (*a < P::kSharedWindow || *a >= P::kSharedWindow + P::kWindowSize)
        c.fault(w, in, l, "clusterlaunchcontrol.try_cancel: generic address " + hex(*a) + " is not shared memory");
      *a -= P::kSharedWindow;
    }
  if (addr % 16)
    c.fault(w, in, l, "clusterlaunchcontrol.try_cancel response address " + hex(addr) + " is not 16-byte aligned");
  if (!in.sub) {
    std::memcpy(c.resolve(w, in, Space::Shared, addr, 16, l, true, nullptr), resp.data(), 16);
    c.k.memory().note_store();
    return complete_tx_at(c, w, in, l, bar, false, 16);
  }
  for (std::uint32_t r = 0; r < c.cluster_size(); ++r) {
    std::memcpy(c.cluster_shared(w, in, l, r, addr % P::kClusterRankStride, 16, true), resp.data(), 16);
    complete_tx_at(c, w, in, l, (r + 1) * P::kClusterRankStride + bar % P::kClusterRankStride, true, 16);
  }
  c.k.memory().note_store();
}

// clusterlaunchcontrol.query_cancel of a response (the two halves of a .b128 register).
void exec_clc_query(PtxCta::Impl& c, Warp& w, const Inst& in, int l) {
  const std::uint64_t lo = c.get(w, c.p.src(in, 0), l), hi = c.get(w, c.p.src(in, 1), l);
  const bool canceled = (hi >> 32) & 1;
  if (!canceled) c.clc_failed_seen = true;
  if (in.shape[0] == 0) return c.put(w, c.p.dst(in, 0), l, canceled ? 1 : 0);
  const std::uint32_t xyz[3] = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32),
                                static_cast<std::uint32_t>(hi)};
  if (in.shape[0] < 4) return c.put(w, c.p.dst(in, 0), l, xyz[in.shape[0] - 1]);
  for (int i = 0; i < 3; ++i) c.put(w, c.p.dst(in, i), l, xyz[i]);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Space PtxCta::Impl::exec_async(Warp& w, const Inst& in, std::uint32_t m) {
  w.async.clear();
  switch (P::op_info(in.op).form) {
    case P::Form::Mbarrier: {
      bool failed = false;
      for_lanes(m, [&](int l) { exec_mbarrier_lane(*this, w, in, l, failed); });
      if (failed) mbar_wait_failed(*this, w, static_cast<std::uint32_t>(w.stack.back().pc - 1));
      return Space::Shared;
    }
    case P::Form::Bulk:
      for_lanes(m, [&](int l) { exec_bulk_lane(*this, w, in, l); });
      return Space::Global;
    case P::Form::BulkTensor:
      for_lanes(m, [&](int l) { exec_tensor_lane(*this, w, in, l); });
      return Space::Global;
    case P::Form::Tensormap:
      for_lanes(m, [&](int l) { exec_tensormap_lane(*this, w, in, l); });
      return Space::Global;
    case P::Form::Tcgen05:
      return exec_tcgen05(w, in, m);
    case P::Form::Clc:
      for_lanes(m, [&](int l) {
        if (in.op == Op::ClcTryCancel)
          exec_clc_try_cancel(*this, w, in, l);
        else
          exec_clc_query(*this, w, in, l);
      });
      return Space::Shared;
    case P::Form::NoOperands:
    case P::Form::WaitGroup:
      return Space::Global;  // bulk groups: functional copies are complete
    default:
      break;
  }
  unsupported(in, std::string("`") + to_string(in.op) + "` in the asynchronous-copy path");
}

// ---------------------------------------------------------------------------------------------
// tcgen05.commit (the rest of tcgen05 is in ptx_tcgen05.cpp)

// The thread's tcgen05.mma are performed when issued, so the arrival happens now; the timing model
// takes its time from the tensor engine (MbarEvent::What::Commit).
void PtxCta::Impl::tcgen05_commit_lane(Warp& w, const Inst& in, int l) {
  const std::uint64_t bar = get(w, p.src(in, 0), l) + in.imm;
  auto arrive_at = [&](std::uint64_t addr, bool cluster, Space space) {
    Inst m = in;
    m.op = Op::MbarArrive;
    m.sub = 0;
    m.addr = {P::AddrBase::Absolute, {}, static_cast<std::int64_t>(addr)};
    m.space = space;
    m.flags = cluster ? (in.flags | P::kClusterSpace) : (in.flags & ~P::kClusterSpace);
    MbarRef b(*this, w, m, l);
    b.require_valid();
    bool completed = false;
    arrive(b, m, 1, 0, completed);
    b.write();
    note(w, MbarEvent::What::Commit, b.addr(), completed);
  };
  if (!(in.sub & P::kTcMulticast)) return arrive_at(bar, (in.flags & P::kClusterSpace) != 0, in.space);
  std::uint64_t off = bar;
  if (in.space == Space::Generic && off >= P::kSharedWindow && off < P::kSharedWindow + P::kWindowSize)
    off -= P::kSharedWindow;
  off %= P::kClusterRankStride;
  const std::uint32_t mask = cta_mask(*this, w, in, l, 1);
  for (std::uint32_t r = 0; r < cluster_size(); ++r)
    if (mask >> r & 1u) arrive_at((r + 1) * P::kClusterRankStride + off, true, Space::Shared);
}

}  // namespace kernsim::sim
