// tcgen05 (sm_100a): tensor memory and the 5th-generation tensor core, as the PTX ISA's "TensorCore
// 5th Generation Family Instructions" define them, for .cta_group::1 and CTA pairs (.cta_group::2:
// alloc/dealloc/relinquish per CTA, the M = 256 mma over both CTAs' shared and tensor memory; see
// tc_mma_lane and docs/tcgen05.md).
//
// Tensor memory (TMEM) is per CTA here: 128 lanes x the device's columns (tcgen05.tmem_columns) of
// 32 bits, made at the first tcgen05.alloc. Allocations are powers of two of at least 32 columns,
// placed first-fit at a multiple of their size; an allocation that cannot be placed would block
// for ever on hardware (nothing else frees the CTA's columns) and is a named fault here. Other CTAs
// on the same SM compete for the same columns on hardware; the timing model limits residency so
// that the resident CTAs' allocations fit (sim/timing/occupancy.cpp).
//
// tcgen05.mma has single-thread semantics: every active lane issues one MxNxK product. kernsim
// performs it when it is issued, reading shared memory and TMEM then and writing D into TMEM; a
// correct kernel does not touch its operands or D before the tcgen05.commit that tracks it has
// arrived on its mbarrier, so it cannot tell the difference. tcgen05.commit arrives (count 1) on
// its mbarrier at once (ptx_async.cpp); the timing model puts that arrival at the tensor engine's
// completion. tcgen05.ld/st move data at once as well, and wait::ld/st have nothing left to wait
// for.
//
// Layouts (PTX ISA "Data Path Layout Organization", "Matrix fragments" of tcgen05.ld/st):
//   D and A in TMEM, M = 128 (Layout D): row r in lane r; M = 64 (Layout F): rows 16q..16q+15 in
//   lanes 32q + base .. 32q + base + 15 (base 0 or 16). D's column n at the address's column + n,
//   one element per 32-bit cell (a 16-bit D in the low half); A's K elements packed into cells
//   (two 16-bit or four 8-bit elements per cell, the lower k in the lower bits).
//   tcgen05.ld/st, thread t, register r of repeat i (columns relative to the address's):
//     .32x32b   lane t, column i
//     .16x64b   lane t/4 + 8(t%2), column 2i + (t/2)%2
//     .16x128b  register 2i+j: lane t/4 + 8j, column 4i + t%4
//     .16x256b  register 4i+j: lane t/4 + 8(j/2), column 8i + 2(t%4) + j%2
//     .16x32bx2 lane t%16, column i (+ immHalfSplitoff for t >= 16)
//   lanes relative to the address's lane, which a warp must take within its quarter of the lanes
//   (warp index % 4 reaches lanes 32(index % 4) .. +31). .pack::16b/.unpack::16b: each register
//   holds the low 16 bits of two adjacent cells (the lower column in its low half).
//
// Narrow types: fp6 (e2m3, e3m2) and fp4 (e2m1) operands of .kind::f8f6f4 and ::mxf8f6f4 take one
// byte position each, as fp8 does, and sit 16 to a 16-byte unit of shared memory, packed at its
// start (matrix_smem.h: padded_subbyte); .kind::mxf4/mxf4nvf4 pack two e2m1 to a byte (the lower k
// in the low nibble), K = 64, in shared memory and in TMEM (eight to a cell). They are K-major
// only; fp6/fp4 A of ::f8f6f4/mxf8f6f4 is not read from TMEM here (the ISA gives their 8-bit
// containers only as figures).
//
// Block scaling (.block_scale, kinds mxf8f6f4/mxf4/mxf4nvf4, M = 128): every K block of 32 (16 for
// .scale_vec::4X) elements of a row of A and a column of B is multiplied by its ue8m0 or ue4m3
// factor from TMEM. Row r's factors are in lane r % 128, column r / 32 from the scale address, in
// the bytes from the descriptor's scale factor ID up (the 32 x 4 x 4-byte chunks, duplicated in
// the four lane quarters, that Triton and CUTLASS write; the Triton tl.dot_scaled launches of
// calibration/validation/b200 agree with their numpy references under this reading).
//
// Numbers as in wgmma (ptx_wgmma.cpp): exact products, added one k at a time in f32 with
// round-to-nearest-even; integers exactly, wrapping (or saturating) to s32.
#include <algorithm>
#include <cmath>

#include "sim/functional/matrix_smem.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace P = isa::ptx;
using P::TcKind;
using P::TcShape;

namespace {

using namespace matrix_smem;

constexpr std::uint32_t kLanes = 128;     // TMEM lanes of a CTA (PTX ISA 9.7.16.1)
constexpr std::uint32_t kWarpLanes = 32;  // lanes one warp of a warpgroup reaches
constexpr std::uint32_t kAllocUnit = 32;  // columns: the unit of tcgen05.alloc

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The sm_100 shared memory descriptor (PTX ISA "Shared memory descriptor"). Returns why it cannot
// be used, or an empty string.
std::string decode_desc100(std::uint64_t d, SmemMatrix& m, bool& unsupported) {
  m.start = static_cast<std::uint32_t>(d & 0x3fff) << 4;
  m.lbo = static_cast<std::uint32_t>((d >> 16) & 0x3fff) << 4;
  m.sbo = static_cast<std::uint32_t>((d >> 32) & 0x3fff) << 4;
  m.base_offset = static_cast<std::uint32_t>((d >> 49) & 0x7);
  const unsigned version = (d >> 46) & 0x7, lbo_mode = (d >> 52) & 1, mode = (d >> 61) & 0x7;
  unsupported = false;
  if (version != 1) return "bits 46-48 are " + std::to_string(version) + ", the PTX ISA's fixed value is 0b001";
  switch (mode) {
    case 0:
      m.width = 16;
      break;
    case 2:
      m.width = 128;
      break;
    case 4:
      m.width = 64;
      break;
    case 6:
      m.width = 32;
      break;
    case 1:
      unsupported = true;
      return "the 128-byte swizzle with 32-byte atomicity (swizzle mode 1)";
    default:
      return "swizzle mode " + std::to_string(mode) + " is invalid (3, 5 and 7 are)";
  }
  unsupported = true;
  if (lbo_mode) return "the absolute leading-dimension address mode (bit 52)";
  if (m.base_offset != 0 && m.width != 16) return "a non-zero matrix base offset in a swizzled mode";
  unsupported = false;
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Space PtxCta::Impl::exec_tcgen05(Warp& w, const Inst& in, std::uint32_t mask) {
  w.async.clear();
  const int lane0 = std::countr_zero(mask | (1u << 31));
  if (in.shape[0] == 2) {
    if (cluster_size() % 2 != 0)
      fault(w, in, lane0,
            ".cta_group::2 needs a launch with clusters of an even number of CTAs (CTA pairs); this launch has "
            "clusters of " +
                std::to_string(cluster_size()));
  }
  if (!mask) return Space::Shared;
  const bool collective = in.op != Op::Tcgen05Mma && in.op != Op::Tcgen05Commit && in.op != Op::Tcgen05Cp &&
                          in.op != Op::Tcgen05Shift && in.op != Op::Tcgen05Fence;
  if (collective && (mask != kFullMask || w.valid != kFullMask))
    fault(w, in, std::countr_zero(~mask | 1u),
          std::string(to_string(in.op)) + " .sync.aligned needs all 32 lanes of the warp active");
  switch (in.op) {
    case Op::Tcgen05Alloc:
      tmem_alloc(w, in);
      break;
    case Op::Tcgen05Dealloc:
      tmem_dealloc(w, in);
      break;
    case Op::Tcgen05Relinquish:
      tmem.relinquished = true;
      break;
    case Op::Tcgen05Mma:
      for_lanes(mask, [&](int l) { tc_mma_lane(w, in, l); });
      break;
    case Op::Tcgen05Commit:
      for_lanes(mask, [&](int l) { tcgen05_commit_lane(w, in, l); });
      break;
    case Op::Tcgen05Cp:
      for_lanes(mask, [&](int l) { tc_cp_lane(w, in, l); });
      break;
    case Op::Tcgen05Shift:
      for_lanes(mask, [&](int l) { tc_shift_lane(w, in, l); });
      break;
    case Op::Tcgen05Ld:
    case Op::Tcgen05St:
      tmem_ld_st(w, in);
      break;
    default:
      break;  // wait::ld/st (loads and stores are complete), fences
  }
  return Space::Shared;
}

// The value of source `i` in the first lane, the same in every lane of the warp (collectives).
std::uint64_t PtxCta::Impl::tc_uniform(Warp& w, const Inst& in, int i, const char* what) {
  const std::uint64_t v = get(w, p.src(in, i), 0);
  for (int l = 1; l < 32; ++l)
    if (get(w, p.src(in, i), l) != v)
      fault(w, in, l, std::string(to_string(in.op)) + ": " + what + " differs between the lanes of the warp");
  return v;
}

// The CTA's tensor memory, made at the first use.
TensorMemory& PtxCta::Impl::tmem_state(Warp& w, const Inst& in) {
  if (tmem.columns == 0) {
    const std::uint32_t cols = k.options().tmem_columns;
    if (cols == 0) unsupported(in, "tensor memory on this device (its device file has no tcgen05.tmem_columns)");
    if (cols % kAllocUnit || cols > 0xffff)
      fault(w, in, 0,
            "the device's tcgen05.tmem_columns (" + std::to_string(cols) + ") is not a multiple of 32 below 65536");
    tmem.columns = cols;
    tmem.cells.assign(std::size_t{kLanes} * cols, 0);
  }
  return tmem;
}

void PtxCta::Impl::tmem_alloc(Warp& w, const Inst& in) {
  TensorMemory& t = tmem_state(w, in);
  const std::uint64_t n = tc_uniform(w, in, 0, "nCols");
  if (n < kAllocUnit || n > t.columns || (n & (n - 1)))
    fault(w, in, 0,
          "tcgen05.alloc of " + std::to_string(n) + " columns: nCols must be a power of two in 32.." +
              std::to_string(t.columns));
  if (t.relinquished) fault(w, in, 0, "tcgen05.alloc after the CTA executed tcgen05.relinquish_alloc_permit");
  std::uint32_t held = 0, at = t.columns;
  for (const auto& a : t.allocs) held += a.second;
  for (std::uint32_t c = 0; c + n <= t.columns && at == t.columns; c += static_cast<std::uint32_t>(n)) {
    bool free = true;
    for (const auto& a : t.allocs) free &= c + n <= a.first || a.first + a.second <= c;
    if (free) at = c;
  }
  if (at == t.columns)
    fault(w, in, 0,
          "tensor memory over-allocation: tcgen05.alloc of " + std::to_string(n) + " columns while the CTA holds " +
              std::to_string(held) + " of the SM's " + std::to_string(t.columns) +
              " (on hardware the allocation would wait for ever)");
  t.allocs.push_back({at, static_cast<std::uint32_t>(n)});
  // the address (lane 0, the first column) goes to shared memory at [dst]
  const std::uint64_t dst = lane_address(w, in.addr, 0);
  w.addrs.fill(dst);
  std::uint8_t* ptr =
      resolve(w, in, in.space == Space::Generic ? Space::Generic : Space::Shared, dst, 4, 0, true, nullptr);
  std::memcpy(ptr, &at, 4);
  k.memory().note_store();
}

void PtxCta::Impl::tmem_dealloc(Warp& w, const Inst& in) {
  TensorMemory& t = tmem_state(w, in);
  const std::uint64_t taddr = tc_uniform(w, in, 0, "taddr"), n = tc_uniform(w, in, 1, "nCols");
  auto it = std::find_if(t.allocs.begin(), t.allocs.end(), [&](const auto& a) { return a.first == (taddr & 0xffff); });
  if ((taddr >> 16) != 0 || it == t.allocs.end())
    fault(w, in, 0,
          "tcgen05.dealloc of tensor memory address " + hex(taddr) + ", which no tcgen05.alloc of this CTA returned");
  if (it->second != n)
    fault(w, in, 0,
          "tcgen05.dealloc of " + std::to_string(n) + " columns at " + hex(taddr) + ", which was allocated with " +
              std::to_string(it->second));
  t.allocs.erase(it);
}

// Columns [col, col + n) are allocated by the CTA; faults naming `what` otherwise.
void PtxCta::Impl::tmem_check(Warp& w, const Inst& in, int lane, std::uint32_t col, std::uint32_t n, const char* what,
                              const Impl* owner) {
  const TensorMemory& t = owner ? owner->tmem : tmem;
  std::uint32_t covered = 0;
  for (std::uint32_t c = col; c < col + n; ++c)
    for (const auto& a : t.allocs)
      if (c >= a.first && c < a.first + a.second) {
        ++covered;
        break;
      }
  if (covered != n)
    fault(w, in, lane,
          std::string(to_string(in.op)) + ": " + what + " uses tensor memory columns " + std::to_string(col) + ".." +
              std::to_string(col + n - 1) + ", not all of them allocated by " +
              (owner && owner != this ? "the peer CTA (rank " + std::to_string(owner->rank) + ")" : "this CTA"));
}

// The CTA of a .cta_group::2 pair that holds half h of the operation (h 0: the even rank, 1: the
// odd one; PTX ISA: the peer CTA's %cluster_ctarank differs in bit 0); this CTA for .cta_group::1.
PtxCta::Impl& PtxCta::Impl::pair_cta(Warp& w, const Inst& in, int l, int h) {
  if (in.shape[0] != 2) return *this;
  const std::uint32_t r = (rank & ~1u) + static_cast<std::uint32_t>(h);
  Impl* c = cluster ? cluster->members[r] : nullptr;
  if (!c)
    fault(w, in, l,
          std::string(to_string(in.op)) + " .cta_group::2: the pair's CTA of rank " + std::to_string(r) +
              " has exited (its shared and tensor memory are gone)");
  return *c;
}

namespace {

// The TMEM lane of row r of an M-row operand (D, or A in TMEM) whose address names lane `base`, in
// block j of `nb` lane blocks. One block: M = 128 (Layout D, and each CTA's half of Layout A) puts
// row r in lane r, M = 64 (Layout F, half the datapath) rows 16q..16q+15 in lanes 32q..32q+15.
// Several blocks (the "2x2" and "1x4" datapaths: Layout B, M = 128 pairs with 64 rows per CTA;
// Layouts E and G, .ws with M = 64 and 32): block j of D's columns is in lanes M j .. M j + M - 1,
// row r in lane M j + r. A in TMEM is read by each block from its own lanes (the datapath lane that
// makes a row of D reads A from the same lane; CUTLASS's UMMA "Duplicated" TMEM allocation for
// 2-SM M = 128 TS copies A into each block for that reason).
std::uint32_t row_lane(int m, int nb, std::uint32_t base, int r, int j = 0) {
  const auto ur = static_cast<std::uint32_t>(r);
  if (m == 128 || nb > 1) return base + ur + static_cast<std::uint32_t>(m * j);
  return base + kWarpLanes * (ur / 16) + ur % 16;
}

Ty f16_kind_type(unsigned v) {
  return v == 0 ? Ty::F16 : v == 1 ? Ty::BF16 : Ty::None;
}
// The f8f6f4 operand types of the instruction descriptor (E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5).
Ty f8f6f4_type(unsigned v) {
  static const Ty t[] = {Ty::E4M3, Ty::E5M2, Ty::None, Ty::E2M3, Ty::E3M2, Ty::E2M1, Ty::None, Ty::None};
  return t[v & 7];
}

}  // namespace

// The instruction descriptor `v` of a .kind (PTX ISA tables "Instruction descriptor format"),
// checked against the kind and the shapes .cta_group::1 allows.
TcDesc PtxCta::Impl::tc_idesc(Warp& w, const Inst& in, int l, std::uint32_t v) {
  auto bad = [&](const std::string& why) {
    fault(w, in, l, "tcgen05.mma instruction descriptor " + hex(v) + ": " + why);
  };
  const auto kind = static_cast<TcKind>(in.shape[1]);
  if (in.sub & P::kTcBlockScale) return tc_idesc_scaled(w, in, l, v);
  TcDesc d;
  const unsigned dt = (v >> 4) & 3, at = (v >> 7) & 7, bt = (v >> 10) & 7;
  d.sparse = in.sub & P::kTcSparse, d.selector = static_cast<int>(v & 3);
  if (static_cast<bool>(v & (1u << 2)) != d.sparse)
    bad(d.sparse ? "tcgen05.mma.sp needs the sparsity bit (bit 2) set"
                 : "the sparsity bit is set (sparse A needs tcgen05.mma.sp)");
  d.ws = in.sub & P::kTcWs;
  if ((v >> 30) && !d.ws) bad("bits 30-31 (the B-reuse shift of .ws) must be 0 without .ws");
  d.sat = (v >> 3) & 1;
  d.neg_a = (v >> 13) & 1;
  d.neg_b = (v >> 14) & 1;
  d.mn_a = (v >> 15) & 1;
  d.mn_b = (v >> 16) & 1;
  d.n = static_cast<int>((v >> 17) & 0x3f) << 3;
  d.m = static_cast<int>((v >> 24) & 0x1f) << 4;
  switch (kind) {
    case TcKind::F16:
      d.a = f16_kind_type(at), d.b = f16_kind_type(bt),
      d.d = dt == 0   ? Ty::F16
            : dt == 1 ? Ty::F32
                      : Ty::None,
      d.k = 16;
      if (d.a == Ty::None || d.a != d.b || d.d == Ty::None || (d.d == Ty::F16 && d.a != Ty::F16))
        bad(".kind::f16 takes f16 x f16 -> f16/f32 or bf16 x bf16 -> f32 (dtype " + std::to_string(dt) + ", atype " +
            std::to_string(at) + ", btype " + std::to_string(bt) + ")");
      break;
    case TcKind::Tf32:
      d.a = d.b = Ty::TF32, d.d = Ty::F32, d.k = 8;
      if (at != 2 || bt != 2 || dt != 1) bad(".kind::tf32 takes atype = btype = 2 (tf32) and dtype 1 (f32)");
      break;
    case TcKind::F8f6f4:
      d.a = f8f6f4_type(at), d.b = f8f6f4_type(bt), d.d = dt == 0 ? Ty::F16 : dt == 1 ? Ty::F32 : Ty::None, d.k = 32;
      if (d.a == Ty::None || d.b == Ty::None || d.d == Ty::None)
        bad(".kind::f8f6f4 takes e4m3/e5m2/e2m3/e3m2/e2m1 (atype/btype 0, 1, 3, 4, 5) -> f16/f32 (dtype 0/1)");
      break;
    default:
      bad("kernsim bug: a block-scaled kind without .block_scale");
    case TcKind::I8:
      d.a = at == 1 ? Ty::S8 : at == 0 ? Ty::U8 : Ty::None, d.b = bt == 1 ? Ty::S8 : bt == 0 ? Ty::U8 : Ty::None;
      d.d = Ty::S32, d.k = 32;
      if (d.a == Ty::None || d.b == Ty::None || dt != 2)
        bad(".kind::i8 takes s8/u8 (atype/btype 1/0) -> s32 (dtype 2)");
      if (d.neg_a || d.neg_b) bad(".kind::i8 has no negation");
      break;
  }
  if (kind != TcKind::I8 && d.sat) bad("the saturate bit is for .kind::i8");
  if (d.sparse) {  // tcgen05.mma.sp: the logical K doubles (A holds half of each row's elements)
    if ((kind == TcKind::F8f6f4 || kind == TcKind::I8) && d.selector != 0)
      bad("the sparsity selector must be 0 for .kind::f8f6f4 and .kind::i8");
    if (d.selector != 0)
      unsupported(in, std::string("tcgen05.mma.sp ") + (kind == TcKind::F16 ? ".kind::f16" : ".kind::tf32") +
                          " with sparsity selector " + std::to_string(d.selector) +
                          " (which metadata sub-columns it selects the ISA gives only as a figure)");
    if (d.ws) {  // .ws.sp (PTX ISA shape table): N 64 or 128; f16/tf32/f8f6f4/i8 as the dense .ws
      if (d.n != 64 && d.n != 128) bad("N = " + std::to_string(d.n) + ": tcgen05.mma.ws.sp takes 64 or 128");
    } else if (d.m != 128 * in.shape[0])  // pairs: M = 256 (Layout A), each CTA's 128 rows as one CTA's
      unsupported(in, "tcgen05.mma.sp with M = " + std::to_string(d.m) +
                          " and .cta_group::" + std::to_string(in.shape[0]) +
                          " (the metadata layouts of data path Layouts C and F: the ISA gives them only as figures)");
    d.k *= 2;
  }
  if (d.ws) {  // PTX ISA table "Various combinations of .kind and shapes", rows with .ws
    if (d.m != 32 && d.m != 64 && d.m != 128) bad("M = " + std::to_string(d.m) + ": .ws takes 32, 64 or 128");
    if (d.n != 64 && d.n != 128 && d.n != 256) bad("N = " + std::to_string(d.n) + ": .ws takes 64, 128 or 256");
    return d;
  }
  if (in.shape[0] == 2) {  // a CTA pair: M 256 (Layout A, 128 rows in each CTA) or 128 (Layout B, 64)
    if (d.m != 128 && d.m != 256) bad("M = " + std::to_string(d.m) + ": .cta_group::2 takes 128 or 256");
    if (d.n < 32 || d.n > 256 || d.n % 16)
      bad("N = " + std::to_string(d.n) + " is not legal with .cta_group::2 (32..256 in steps of 16)");
    return d;
  }
  if (d.m != 64 && d.m != 128) bad("M = " + std::to_string(d.m) + ": .cta_group::1 takes 64 or 128");
  const bool n_ok = kind == TcKind::I8
                        ? (d.n >= 8 && d.n <= 24 && d.n % 8 == 0) || (d.n >= 32 && d.n <= 256 && d.n % 16 == 0)
                        : d.n >= 8 && d.n <= 256 && d.n % 8 == 0;
  if (!n_ok)
    bad("N = " + std::to_string(d.n) + " is not legal (" +
        (kind == TcKind::I8 ? "8, 16, 24, 32..256 in steps of 16" : "8..256 in steps of 8") + ")");
  return d;
}

// The instruction descriptor of a block-scaled kind (PTX ISA tables "Instruction descriptor format
// for .kind::mxf8f6f4" and "... for .kind::mxf4 and .kind::mxf4nvf4"): D is f32, M is bits 27-28
// (M >> 7), the scale factor IDs are bits 4-5 (B) and 29-30 (A), the scale type bit 23 (ue8m0 1,
// ue4m3 0); checked against the .scale_vec of the instruction (Table "Valid combinations of
// scale_vectorsize with types and MMA-Kind").
TcDesc PtxCta::Impl::tc_idesc_scaled(Warp& w, const Inst& in, int l, std::uint32_t v) {
  auto bad = [&](const std::string& why) {
    fault(w, in, l, "tcgen05.mma instruction descriptor " + hex(v) + ": " + why);
  };
  const auto kind = static_cast<TcKind>(in.shape[1]);
  const bool fp4 = kind != TcKind::Mxf8f6f4;
  TcDesc d;
  d.sparse = in.sub & P::kTcSparse;  // the sparsity selector (bits 0-1) is "assumed to be 0" for these kinds
  if (static_cast<bool>(v & (1u << 2)) != d.sparse)
    bad(d.sparse ? "tcgen05.mma.sp needs the sparsity bit (bit 2) set"
                 : "the sparsity bit is set (sparse A needs tcgen05.mma.sp)");
  if (v & (fp4 ? 0x07001048u : 0x87000048u) || (!d.sparse && (v & 3))) bad("a reserved bit is set");
  if (fp4 && (v >> 31))
    unsupported(in,
                "tcgen05.mma .kind::mxf4/mxf4nvf4 with K = 96 (instruction descriptor bit 31; the PTX ISA allows it on "
                "sm_103a only, with .cta_group::2 and M = 256)");
  d.neg_a = (v >> 13) & 1, d.neg_b = (v >> 14) & 1, d.mn_a = (v >> 15) & 1, d.mn_b = (v >> 16) & 1;
  d.n = static_cast<int>((v >> 17) & 0x3f) << 3;
  d.m = static_cast<int>((v >> 27) & 3) << 7;
  d.d = Ty::F32, d.scales = in.shape[2], d.ue4m3 = !((v >> 23) & 1);
  d.sf_b_id = static_cast<int>((v >> 4) & 3), d.sf_a_id = static_cast<int>((v >> 29) & 3);
  const unsigned at = (v >> 7) & 7, bt = (v >> 10) & (fp4 ? 3 : 7);
  if (fp4) {
    d.a = at == 1 ? Ty::E2M1 : Ty::None, d.b = bt == 1 ? Ty::E2M1 : Ty::None, d.k = 64, d.packed = true;
    if (d.a == Ty::None || d.b == Ty::None) bad(".kind::mxf4/mxf4nvf4 take e2m1 (atype = btype = 1)");
    if (d.mn_a || d.mn_b) bad(".kind::mxf4/mxf4nvf4 take K-major A and B only (transpose bits 0)");
  } else {
    d.a = f8f6f4_type(at), d.b = f8f6f4_type(bt), d.k = 32;
    if (d.a == Ty::None || d.b == Ty::None) bad(".kind::mxf8f6f4 takes e4m3/e5m2/e2m3/e3m2/e2m1 (0, 1, 3, 4, 5)");
  }
  if (d.ue4m3 && (kind != TcKind::Mxf4nvf4 || d.scales != 4))
    bad("ue4m3 scale factors (bit 23 clear) are for .kind::mxf4nvf4 with .scale_vec::4X only");
  const int step = d.scales;  // the scale factor IDs a .scale_vec allows: 1X 0..3, 2X 0 or 2, 4X 0
  if (d.sf_a_id % step || d.sf_b_id % step)
    bad("scale factor IDs A " + std::to_string(d.sf_a_id) + ", B " + std::to_string(d.sf_b_id) +
        " with .scale_vec::" + std::to_string(d.scales) + "X (which takes multiples of " + std::to_string(step) + ")");
  if (d.sparse) {  // .sp: the logical K doubles; the scale vectors keep their count (M x 1 for 1X "for all
                   // supported values of K"), so each factor covers twice the elements
    if (d.m != 128 * in.shape[0])
      unsupported(in, "tcgen05.mma.sp with .block_scale, M = " + std::to_string(d.m) + " and .cta_group::" +
                          std::to_string(in.shape[0]) + " (the metadata layouts of data path Layouts C and F)");
    d.k *= 2;
  }
  if (in.shape[0] == 2) {  // a CTA pair: M = 256 (the 4x1 datapath); each CTA's factors in its own TMEM
    if (d.m != 128 && d.m != 256)
      bad("M = " + std::to_string(d.m) + ": the block-scaled kinds with .cta_group::2 take 128 or 256");
    if (d.n < 32 || d.n > 256 || d.n % 16)
      bad("N = " + std::to_string(d.n) + " is not legal with .cta_group::2 (32..256 in steps of 16)");
    return d;
  }
  if (d.m != 128) bad("M = " + std::to_string(d.m) + ": the block-scaled kinds with .cta_group::1 take 128");
  if (d.n < 8 || d.n > 256 || d.n % 8) bad("N = " + std::to_string(d.n) + " is not legal (8..256 in steps of 8)");
  return d;
}

// The scale factors of `rows` rows of A (or columns of B) from the TMEM address in sources
// `src`, `src`+1: d.scales per row, as doubles, row-major. The layout Triton and CUTLASS write
// (PTX ISA "Block Scaling": the scales duplicated in all four 32-lane partitions): row r's
// factors are in lane r % 128, column r / 32 from the address's, bytes id .. id + d.scales - 1
// (the lower K block in the lower byte). `half` (the 2x2 datapath's B: M = 128 CTA pairs): the
// columns 0 .. half - 1 as rows 0 .. half - 1 are in lanes 0..63, the columns half .. 2 half - 1
// in lanes 64..127 (column n: lane 64 (n / half) + (n % half) % 32, column (n % half) / 32, each
// duplicated in the next 32 lanes), the lane blocks of D's columns they scale: the layout of
// CUTLASS's ScaleFactorDuplicated2by2 TMEM fragment for SFB (mma_traits_sm100_frag.hpp).
std::vector<double> PtxCta::Impl::tc_scales(Warp& w, const Inst& in, int l, const TcDesc& d, int src, int rows, int id,
                                            const Impl& c, int half) {
  const TensorMemory& tmem = c.tmem;
  const auto taddr = static_cast<std::uint32_t>(get(w, p.src(in, src), l) + get(w, p.src(in, src + 1), l));
  const char* what = src == 8 || src == 10 && (in.sub & P::kTcSparse) ? "scale-A" : "scale-B";
  if (taddr >> 16)
    fault(w, in, l,
          std::string("tcgen05.mma: the ") + what + " address names TMEM lane " + std::to_string(taddr >> 16) +
              "; scale factors start at lane 0");
  const std::uint32_t col = taddr & 0xffff, cols = (static_cast<std::uint32_t>(half ? half : rows) + 31) / 32;
  tmem_check(w, in, l, col, cols, what, &c);
  std::vector<double> v(static_cast<std::size_t>(rows * d.scales));
  for (int r = 0; r < rows; ++r)
    for (int s = 0; s < d.scales; ++s) {
      const auto ur = static_cast<std::uint32_t>(half ? r % half : r),
                 blk = half ? static_cast<std::uint32_t>(r / half) : 0;
      const std::uint32_t lane = half ? 64 * blk + ur % 32 : ur % kLanes;
      const std::uint32_t cell = tmem.cells[std::size_t{lane} * tmem.columns + col + ur / 32];
      const std::uint32_t byte = (cell >> (8 * (id + s))) & 0xff;
      v[static_cast<std::size_t>(r * d.scales + s)] = decode_mx(byte, d.ue4m3 ? MxFormat::UE4M3 : MxFormat::UE8M0);
    }
  return v;
}

// Rows of A (M of one CTA) from CTA c's tensor memory at `ta` (8-bit and wider types: K elements
// packed into cells, the lower k in the lower bits), as values.
void PtxCta::Impl::tc_a_from_tmem(Warp& w, const Inst& in, int l, const TcDesc& d, const Impl& c, std::uint32_t ta,
                                  int M, int nb, double* f, std::int32_t* iv) {
  const int K = d.k, eba = elem_bytes(d.a);
  // .kind::mxf4/mxf4nvf4: "two 4-bit floating point type elements ... packed in an 8-bit container"
  // and the containers "contiguously packed in a 32-bit Tensor Memory word" (PTX ISA "Packing format
  // used for matrix A by .kind::mxf4 and .kind::mxf4nvf4 in Tensor Memory"): eight e2m1 to a cell,
  // the lower k in the lower nibble, as in shared memory. fp6/fp4 of the other kinds take an 8-bit
  // container each whose bit positions the ISA gives only as figures.
  // fp6 of ::f8f6f4/mxf8f6f4 sits in the lower 6 bits of its 8-bit container (the container the
  // ISA's text defines for mma .kind::f8f6f4, "Packing format ... of the sub-byte types", and where
  // tcgen05.cp's .b8x16.b6x16_p32 decompression puts it). fp4 e2m1 is "in the central 4 bits" for
  // mma.sync, while the decompression of .b4x16_p64 (ldmatrix's, which tcgen05.cp shares) leaves it
  // in the lower 4 (CUTLASS's SM120 traits shift it by two for that reason): which one tcgen05.mma
  // reads from TMEM the ISA gives only as a figure, so e2m1 A in TMEM stops by name.
  if (d.a == Ty::E2M1 && !d.packed)
    unsupported(in,
                std::string("tcgen05.mma with e2m1 A of .kind::f8f6f4/mxf8f6f4 in tensor memory (whether its 8-bit "
                            "container holds it in the central or the lower 4 bits the ISA gives only as a figure)"));
  const std::uint32_t a_lane = ta >> 16, a_col = ta & 0xffff, per = d.packed ? 8 : 4 / static_cast<std::uint32_t>(eba);
  if (M == 128 || nb > 1 ? a_lane != 0 : a_lane != 0 && a_lane != 16)
    fault(w, in, l,
          "tcgen05.mma: A's address names TMEM lane " + std::to_string(a_lane) + "; M = " + std::to_string(M) +
              (M == 128 || nb > 1 ? " needs lane 0" : " needs lane 0 or 16"));
  tmem_check(w, in, l, a_col, static_cast<std::uint32_t>(K) / per, "A", &c);
  const TensorMemory& t = c.tmem;
  for (int j = 0; j < nb; ++j)  // each lane block's copy of A (row_lane)
    for (int r = 0; r < M; ++r)
      for (int k = 0; k < K; ++k) {
        const std::uint32_t cell = t.cells[std::size_t{row_lane(M, nb, a_lane, r, j)} * t.columns + a_col +
                                           static_cast<std::uint32_t>(k) / per];
        const std::uint32_t bits =
            per == 1 ? cell : (cell >> (32 / per * (static_cast<std::uint32_t>(k) % per))) & ((1u << (32 / per)) - 1);
        const double v = elem_value(P::ty_bits(d.a) == 6 ? bits & 0x3fu : bits, d.a);
        f[(j * M + r) * K + k] = d.neg_a ? -v : v;
        iv[(j * M + r) * K + k] = static_cast<std::int32_t>(v);
      }
}

// tcgen05.mma.sp (PTX ISA "Sparse Matrices"): row r of A holds K / 2 of its K elements; chunk q of
// four (f16, f8f6f4, i8: 2:4) has two, compressed elements 2q and 2q + 1, at the positions its
// metadata nibble names (two 2-bit indices, the first in the low bits; the ISA lists the 7
// meaningful nibbles, any other is a named fault: "undefined behavior"); a chunk of two tf32 (1:2)
// has one, compressed element q, first (nibble 0b0100) or second (0b1110: the ISA's only two
// meaningful values, the indices of 16-bit halves); ::mxf4/mxf4nvf4 (4:8 in pairs, K 128) keep two of
// the four two-element sub-chunks of each chunk of eight, the nibble's indices naming the sub-chunks
// (its metadata as the 8-bit kinds', a nibble per chunk). The metadata is in TMEM at sources 8-9, as
// CUTLASS's tmem_e_frg lays it out (the ISA draws it only as figures): 8-bit kinds (K 64) row r in
// lane r, 64 bits from the address's column, chunk q at bit 4q; .kind::f16 (K 32) and ::tf32 (K 16:
// the same nibbles, two bits a tf32) rows r and r + 8 (r % 16 < 8) share lanes: chunk q of row
// 16 i + 8 j + r0 is at lane 16 i + r0 + 8 (q / 4), bit 16 j + 4 (q % 4) of one column.
void PtxCta::Impl::tc_sparse_expand(Warp& w, const Inst& in, int l, const TcDesc& d, const Impl& c, int M,
                                    std::uint32_t lane_base, const double* cf, const std::int32_t* ci, double* f,
                                    std::int32_t* iv) {
  const auto taddr = static_cast<std::uint32_t>(get(w, p.src(in, 8), l) + get(w, p.src(in, 9), l));
  if (taddr >> 16)
    fault(w, in, l,
          "tcgen05.mma.sp: the metadata address names TMEM lane " + std::to_string(taddr >> 16) +
              "; M = 128 needs lane 0");
  const std::uint32_t col0 = taddr & 0xffff;
  const auto kind = static_cast<TcKind>(in.shape[1]);
  const bool f16 = kind == TcKind::F16 || kind == TcKind::Tf32, tf32 = kind == TcKind::Tf32, pairs = d.packed;
  tmem_check(w, in, l, col0, f16 ? 1 : 2, "the sparsity metadata", &c);
  // chunk size (half of each chunk is kept); ::mxf4/mxf4nvf4 (4:8 "in pairs"): chunks of eight whose
  // two indices name the two-element sub-chunks that hold compressed elements 4q, 4q + 1 and 4q + 2, 4q + 3
  const int K = d.k, cs = tf32 ? 2 : pairs ? 8 : 4, chunks = K / cs;
  for (int r = 0; r < M; ++r)
    for (int q = 0; q < chunks; ++q) {
      const auto ur = static_cast<std::uint32_t>(r), uq = static_cast<std::uint32_t>(q);
      const std::uint32_t lane = lane_base + (f16 ? 16 * (ur / 16) + ur % 8 + 8 * (uq / 4) : ur);
      const std::uint32_t bit = f16 ? 16 * ((ur / 8) % 2) + 4 * (uq % 4) : 4 * uq;
      const std::uint32_t nib =
          (c.tmem.cells[std::size_t{lane} * c.tmem.columns + col0 + bit / 32] >> (bit % 32)) & 0xf;
      const std::uint32_t i0 = nib & 3, i1 = nib >> 2;
      if (tf32 ? nib != 0b0100 && nib != 0b1110
               : i0 == i1 || nib == 0b0001 || nib == 0b0010 || nib == 0b0011 || nib == 0b0111 || nib == 0b1011)
        fault(w, in, l,
              "tcgen05.mma.sp: metadata nibble " + std::to_string(nib) + " of row " + std::to_string(r) + ", chunk " +
                  std::to_string(q) + " is not one of the ISA's meaningful values (" +
                  (tf32 ? "0b0100, 0b1110" : "0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110") + ")");
      for (int e = 0; e < cs; ++e) f[r * K + cs * q + e] = 0.0, iv[r * K + cs * q + e] = 0;
      for (int e = 0; e < cs / 2; ++e) {
        const int idx = static_cast<int>(tf32 ? (nib == 0b1110 ? 1 : 0) : (pairs ? e / 2 : e) == 0 ? i0 : i1);
        const int pos = cs * q + (pairs ? 2 * idx + e % 2 : idx);
        f[r * K + pos] = cf[r * K / 2 + cs / 2 * q + e];
        iv[r * K + pos] = ci[r * K / 2 + cs / 2 * q + e];
      }
    }
}

// The zero-column mask descriptor of tcgen05.mma.ws (source 8; PTX ISA "Zero-Column Mask
// Descriptor"): zero[n] for each of D's N columns whose B column is taken as zeros, and the column
// shift (D's column n uses B's column n + shift). The mask is 128 / M sub-masks of N M / 128 bits;
// sub-mask i starts sc_i bits into a pattern that repeats a run of fs_i's value and a run of the
// other, the runs of ones (B skipped) skip span + 1 long and those of zeros (B used) use span + 1:
// the ISA's field descriptions name the two spans the other way round, its four worked examples
// this way, and kernsim follows the examples. Bits 36-38 are reserved.
void PtxCta::Impl::tc_zero_columns(Warp& w, const Inst& in, int l, int M, int N, std::vector<char>& zero, int& shift) {
  const std::uint64_t z = get(w, p.src(in, in.sub & P::kTcSparse ? 10 : 8), l);  // after .sp's metadata
  if ((z >> 36) & 7)
    fault(w, in, l, "tcgen05.mma.ws: zero-column mask descriptor " + hex(z) + " sets reserved bits 36-38");
  shift = static_cast<int>((z >> 56) & 0x3f);
  const int max_shift = M == 32 ? 16 : 32;
  if (shift > max_shift)
    fault(w, in, l,
          "tcgen05.mma.ws: zero-column mask column shift " + std::to_string(shift) + " above the ISA's maximum " +
              std::to_string(max_shift) + " for M = " + std::to_string(M));
  if (!((z >> 39) & 1)) return;  // Non-Zero Mask clear: every column of B is used
  const int subs = 128 / M, width = N / subs;
  const int ones = static_cast<int>((z >> 40) & 0xff) + 1, zeros = static_cast<int>((z >> 48) & 0xff) + 1;
  for (int i = 0; i < subs; ++i) {
    const int sc = static_cast<int>((z >> (8 * i)) & 0xff);
    const bool fs = (z >> (32 + i)) & 1;
    const int first = fs ? ones : zeros;
    for (int b = 0; b < width; ++b) {
      const int pos = (b + sc) % (ones + zeros);
      zero[static_cast<std::size_t>(i * width + b)] = pos < first ? fs : !fs;
    }
  }
}

// One lane's tcgen05.mma: D (in TMEM) = A * B (+ D, scaled by 2^-scale-input-d); with .block_scale,
// D = (A * scale_A) * (B * scale_B) + D, each K block of a row of A (column of B) times its factor.
// .cta_group::2: the pair's CTA h (0 the even rank, 1 the odd) holds rows M/2 h.. of A and of D,
// and rows N/2 h.. of B (B's columns, the N dimension), at the same shared-memory descriptors and
// TMEM addresses in both CTAs (PTX ISA, tcgen05 "CTA pair": each CTA supplies half of A and half
// of B; CUTLASS's 2-SM UMMA traits split A, B and D the same way). Layout A (M = 256) puts each
// CTA's 128 rows of D in its lanes 0..127; Layout B (M = 128) its 64 rows twice, columns 0..N/2-1 of
// D in lanes 0..63 and N/2..N-1 in lanes 64..127 (row_lane). .ws (weight-stationary, .cta_group::1):
// Layouts D (M = 128), E (64: two lane blocks) and G (32: four), with the zero-column mask.
void PtxCta::Impl::tc_mma_lane(Warp& w, const Inst& in, int l) {
  tmem_state(w, in);
  const auto taddr_d = static_cast<std::uint32_t>(get(w, p.src(in, 0), l) + get(w, p.src(in, 1), l));
  const bool a_tmem = in.sub & P::kTcATmem, scaled = in.sub & P::kTcBlockScale, ws = in.sub & P::kTcWs;
  const std::uint64_t a_op = get(w, p.src(in, 2), l) + get(w, p.src(in, 3), l);
  const std::uint64_t b_desc = get(w, p.src(in, 4), l);
  const TcDesc d = tc_idesc(w, in, l, static_cast<std::uint32_t>(get(w, p.src(in, 5), l)));
  const bool enable_d = get(w, p.src(in, 6), l) != 0;
  const int scale = static_cast<int>(get(w, p.src(in, 7), l));
  const int M = d.m, N = d.n, K = d.k, pair = in.shape[0];
  const int Mc = M / pair, Nc = N / pair;  // rows of A and D, rows of B, in each CTA
  // lane blocks of D: the 2x2 and 1x4 datapaths split D's columns over 128 / Mc blocks of lanes
  const int nb = ws || (pair == 2 && Mc == 64) ? static_cast<int>(kLanes) / Mc : 1, Nb = N / nb;
  std::vector<char> zero(static_cast<std::size_t>(N), 0);
  int shift = 0;  // .ws: D's column n uses B's column n + shift
  if (ws && in.nsrc > (d.sparse ? 10 : 8)) tc_zero_columns(w, in, l, M, N, zero, shift);
  const std::uint32_t d_lane = taddr_d >> 16, d_col = taddr_d & 0xffff;
  if (Mc == 128 || nb > 1 ? d_lane != 0 : d_lane != 0 && d_lane != 16)
    fault(w, in, l,
          "tcgen05.mma: D's address names TMEM lane " + std::to_string(d_lane) + "; M = " + std::to_string(M) +
              (Mc == 128 || nb > 1 ? " needs lane 0" : " needs lane 0 or 16"));
  for (int h = 0; h < pair; ++h)
    tmem_check(w, in, l, d_col, static_cast<std::uint32_t>(Nb), "D", &pair_cta(w, in, l, h));
  // operands as values: A (per CTA and lane block: Mc x K) and B ((N + shift) x K), floats and integers
  std::vector<double> af(static_cast<std::size_t>(pair * nb * Mc * K)), bf(static_cast<std::size_t>((N + shift) * K));
  std::vector<std::int32_t> ai(af.size()), bi(bf.size());
  const int eba = elem_bytes(d.a);
  for (int h = 0; h < pair; ++h) {
    const Impl& c = pair_cta(w, in, l, h);
    const auto ao = static_cast<std::size_t>(h * nb * Mc * K), bo = static_cast<std::size_t>(h * Nc * K);
    if (d.sparse) {  // .sp: K / 2 elements a row (in shared memory, or in TMEM packed as a dense A's, each
                     // lane block its own copy), placed by the metadata of each lane block's own lanes
      TcDesc dc = d;
      dc.k = K / 2;
      const std::size_t blk = static_cast<std::size_t>(Mc * K / 2);
      std::vector<double> cf(blk * static_cast<std::size_t>(nb));
      std::vector<std::int32_t> ci(cf.size());
      if (a_tmem) {
        tc_a_from_tmem(w, in, l, dc, c, static_cast<std::uint32_t>(a_op), Mc, nb, cf.data(), ci.data());
      } else {
        tc_smem_operand(w, in, l, dc, c.shared, a_op, "A", d.mn_a, d.a, Mc, d.neg_a, cf.data(), ci.data());
        for (int j = 1; j < nb; ++j) {
          std::copy_n(cf.begin(), blk, cf.begin() + static_cast<std::ptrdiff_t>(blk) * j);
          std::copy_n(ci.begin(), blk, ci.begin() + static_cast<std::ptrdiff_t>(blk) * j);
        }
      }
      for (int j = 0; j < nb; ++j)
        tc_sparse_expand(w, in, l, d, c, Mc, static_cast<std::uint32_t>(Mc * j), cf.data() + blk * j,
                         ci.data() + blk * j, af.data() + ao + static_cast<std::size_t>(j * Mc * K),
                         ai.data() + ao + static_cast<std::size_t>(j * Mc * K));
    } else if (a_tmem) {
      tc_a_from_tmem(w, in, l, d, c, static_cast<std::uint32_t>(a_op), Mc, nb, af.data() + ao, ai.data() + ao);
    } else {  // one copy from shared memory serves every lane block
      tc_smem_operand(w, in, l, d, c.shared, a_op, "A", d.mn_a, d.a, Mc, d.neg_a, af.data() + ao, ai.data() + ao);
      const auto blk = static_cast<std::ptrdiff_t>(Mc * K);
      for (int j = 1; j < nb; ++j) {
        std::copy(af.begin() + static_cast<std::ptrdiff_t>(ao), af.begin() + static_cast<std::ptrdiff_t>(ao) + blk,
                  af.begin() + static_cast<std::ptrdiff_t>(ao) + j * blk);
        std::copy(ai.begin() + static_cast<std::ptrdiff_t>(ao), ai.begin() + static_cast<std::ptrdiff_t>(ao) + blk,
                  ai.begin() + static_cast<std::ptrdiff_t>(ao) + j * blk);
      }
    }
    tc_smem_operand(w, in, l, d, c.shared, b_desc, "B", d.mn_b, d.b, Nc + shift, d.neg_b, bf.data() + bo,
                    bi.data() + bo);
  }
  // block scaling: each K block of K / scales elements times its factor (exact: the factors are 2^e
  // or 4-bit). A pair (M = 256, the 4x1 datapath): CTA h scales its own 128 rows of A and, for
  // them, all N columns of B with the factors in its own TMEM (CUTLASS's 2-SM block-scaled traits
  // lay the factors out per SM as a one-SM M = 128 mma's over the whole N); M = 128 (the 2x2
  // datapath): its 64 rows of A likewise (each lane block's copy), and B's factors per lane block
  // of D's columns (tc_scales' `half`)
  std::vector<std::vector<double>> bs(static_cast<std::size_t>(scaled ? pair : 0));
  for (int h = 0; h < static_cast<int>(bs.size()); ++h) {
    const Impl& c = pair_cta(w, in, l, h);
    const int s0 = d.sparse ? 10 : 8;  // .sp: the metadata address comes first
    const std::vector<double> sa = tc_scales(w, in, l, d, s0, Mc, d.sf_a_id, c),
                              sb = tc_scales(w, in, l, d, s0 + 2, N, d.sf_b_id, c, nb == 2 ? N / 2 : 0);
    const int blk = K / d.scales;
    for (int j = 0; j < nb; ++j)
      for (int r = 0; r < Mc; ++r)
        for (int k = 0; k < K; ++k)
          af[static_cast<std::size_t>(((h * nb + j) * Mc + r) * K + k)] *=
              sa[static_cast<std::size_t>(r * d.scales + k / blk)];
    bs[static_cast<std::size_t>(h)] = bf;
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k)
        bs[static_cast<std::size_t>(h)][static_cast<std::size_t>(n * K + k)] *=
            sb[static_cast<std::size_t>(n * d.scales + k / blk)];
  }
  // disable-output-lane: sources 8.. (one bit per TMEM lane)
  // (.cta_group::2: words 0-3 the even CTA's lanes, 4-7 the odd one's)
  auto disabled = [&](int h, std::uint32_t lane) {
    const int first = d.sparse ? 10 : 8;  // .sp: the metadata address comes first
    return !scaled && !ws && in.nsrc > first &&
           (get(w, p.src(in, first + 4 * h + static_cast<int>(lane / 32)), l) >> (lane % 32) & 1u);
  };
  for (int h = 0; h < pair; ++h) {
    TensorMemory& dt = pair_cta(w, in, l, h).tmem;
    for (int j = 0; j < nb; ++j)
      for (int r = 0; r < Mc; ++r) {
        const std::uint32_t lane = row_lane(Mc, nb, d_lane, r, j);
        if (disabled(h, lane)) continue;
        const auto ar = static_cast<std::size_t>(((h * nb + j) * Mc + r) * K);
        std::uint32_t* row = dt.cells.data() + std::size_t{lane} * dt.columns + d_col;
        for (int c = 0; c < Nb; ++c) {
          const int n = j * Nb + c;
          const auto br = static_cast<std::size_t>((n + shift) * K);
          const double* b = (scaled ? bs[static_cast<std::size_t>(h)] : bf).data() + br;
          row[c] = tc_dot(d, af.data() + ar, ai.data() + ar, zero[static_cast<std::size_t>(n)] ? nullptr : b,
                          bi.data() + br, enable_d, scale, scaled, row[c]);
        }
      }
  }
  TcMma work;
  work.kind = static_cast<std::uint8_t>(in.shape[1]);
  work.m = static_cast<std::uint16_t>(M), work.n = static_cast<std::uint16_t>(N),
  work.k = static_cast<std::uint16_t>(K);
  work.a_tmem = a_tmem;
  work.pair = pair == 2;  // each CTA's SM reads its own halves of A and B
  work.lane_blocks = static_cast<std::uint8_t>(nb);
  const int b_rows = in.sub & P::kTcBReuse ? 0 : Nc + shift;  // .ws ::use/::lastuse: B from a collector buffer
  work.smem_bytes = static_cast<std::uint32_t>(((a_tmem     ? 0
                                                 : d.sparse ? Mc / 2
                                                            : Mc) +
                                                b_rows) *
                                               K * eba / (d.packed ? 2 : 1));  // .sp: A's K / 2 elements a row
  work.sparse = d.sparse;
  w.async.tc_mma.push_back(work);
}

// One element of D: the old cell `old` (ignored without enable-input-d, else scaled by
// 2^-scale-input-d) plus the dot product of a row of A and a column of B (b null: a zero column of
// .ws's mask), each exact product added in f32 with one rounding (the unscaled kinds' products are
// exact floats; the scaled ones' may not be, and are added to the f32 in double, then rounded);
// integers exactly, saturating with the descriptor's bit. Returns the new cell.
std::uint32_t PtxCta::Impl::tc_dot(const TcDesc& d, const double* a, const std::int32_t* ai, const double* b,
                                   const std::int32_t* bi, bool enable_d, int scale, bool scaled, std::uint32_t old) {
  const int K = d.k;
  if (d.d == Ty::S32) {
    std::int64_t acc = enable_d ? static_cast<std::int32_t>(old) : 0;
    if (b)
      for (int k = 0; k < K; ++k) acc += std::int64_t{ai[k]} * bi[k];
    if (d.sat) acc = std::clamp<std::int64_t>(acc, INT32_MIN, INT32_MAX);
    return static_cast<std::uint32_t>(acc);
  }
  float acc = !enable_d ? 0.0f : d.d == Ty::F16 ? half_to_float(static_cast<std::uint16_t>(old)) : from32<float>(old);
  if (scale) acc = std::ldexp(acc, -scale);
  for (int k = 0; k < K; ++k) {
    const double pr = b ? a[k] * b[k] : a[k] * 0.0;
    acc = scaled ? static_cast<float>(acc + pr) : acc + static_cast<float>(pr);
  }
  return d.d == Ty::F16 ? round_to_format(acc, FloatFormat::F16, RoundMode::NearestEven) : to32(acc);
}

// Rows of an operand of tcgen05.mma from shared memory `sv` through the descriptor `desc` (A: M rows,
// B: N rows, each K elements), as values (negated with `neg`) into f and iv.
void PtxCta::Impl::tc_smem_operand(Warp& w, const Inst& in, int l, const TcDesc& d, const std::vector<std::uint8_t>& sv,
                                   std::uint64_t desc, const char* which, bool mn_major, Ty ty, int rows, bool neg,
                                   double* f, std::int32_t* iv) {
  const int K = d.k;
  SmemMatrix sm;
  bool unsup = false;
  const std::string why = decode_desc100(desc, sm, unsup);
  if (!why.empty()) {
    if (unsup) unsupported(in, std::string("a tcgen05 shared memory descriptor with ") + why + " (" + which + ")");
    fault(w, in, l, std::string("tcgen05.mma: the ") + which + " descriptor " + hex(desc) + ": " + why);
  }
  const int bits = P::ty_bits(ty), eb = elem_bytes(ty);
  if (bits < 8 && mn_major)
    fault(w, in, l,
          std::string("tcgen05.mma: ") + which + " of " + P::to_string(ty) +
              " must be K-major (the ISA allows MN-major for 8-, 16- and 32-bit types only)");
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < K; ++k) {
      // fp4 of the ::mxf4 kinds: two to a byte, the lower k in the low nibble
      const std::uint32_t a = element_address(sm, mn_major, r, d.packed ? k / 2 : k, eb);
      if (a + static_cast<std::uint32_t>(eb) > sv.size() || (bits < 8 && !d.packed && a - a % 16 + 16 > sv.size()))
        fault(w, in, l,
              std::string("tcgen05.mma reads ") + which + " at shared address " + std::to_string(a) +
                  ", outside the block's " + std::to_string(sv.size()) + " bytes");
      std::uint32_t bits_v = 0;
      if (d.packed)
        bits_v = (sv[a] >> (4 * (k % 2))) & 0xf;
      else if (bits < 8)
        bits_v = padded_subbyte(sv.data(), a, bits);
      else
        std::memcpy(&bits_v, sv.data() + a, static_cast<std::size_t>(eb));
      const double v = elem_value(bits_v, ty);
      f[r * K + k] = neg ? -v : v;
      iv[r * K + k] = static_cast<std::int32_t>(v);
    }
}

namespace {
// Rows and bytes a row of a tcgen05.cp shape (PTX ISA "Data Movement Shape")
int cp_rows(P::TcCpShape s) {
  return s == P::TcCpShape::S4x256b ? 4 : s == P::TcCpShape::S32x128b ? 32 : s == P::TcCpShape::S64x128b ? 64 : 128;
}
int cp_row_bytes(P::TcCpShape s) {
  return s == P::TcCpShape::S128x256b || s == P::TcCpShape::S4x256b ? 32 : 16;
}
}  // namespace

// One lane's tcgen05.cp: a matrix of R rows x 128 or 256 bits from shared memory, described by
// s-desc as a K-major operand of 8-bit elements is (core matrices of 8 rows x 16 bytes, LBO to the
// next 16 bytes of a row, SBO to the next 8 rows, or a swizzled layout), to R TMEM lanes from the
// address's, byte b of a row to column b / 4, byte b % 4. .32x128b.warpx4 writes its 32 rows to
// each of the four lane quarters, .64x128b.warpx2 each half of its 64 rows to a pair of quarters
// (tc_cp_into). The copy is performed at issue, as tcgen05.mma is; tcgen05.commit
// tracks it the same way. .cta_group::2 copies "into the Tensor Memory of both the current and the
// peer CTAs" (PTX ISA): each CTA of the pair from its own shared memory at the descriptor's address
// into its own TMEM at taddr, as a pair's mma takes each CTA's operands at the same addresses (the
// ISA does not name the source CTA; CUTLASS's 2-SM block-scaled kernels load each CTA's scale
// factors into its own shared memory before the leader's 2-CTA copy, which this reading serves).
void PtxCta::Impl::tc_cp_lane(Warp& w, const Inst& in, int l) {
  tmem_state(w, in);
  for (int h = 0; h < in.shape[0]; ++h) tc_cp_into(w, in, l, pair_cta(w, in, l, h));
  TcMma work;  // no FLOP: its shared-memory bytes on the tensor engine (sim/timing), each SM's own
  const auto shape = static_cast<P::TcCpShape>(in.shape[1]);
  work.smem_bytes = static_cast<std::uint32_t>(cp_rows(shape) * cp_row_bytes(shape));
  work.pair = in.shape[0] == 2;
  w.async.tc_mma.push_back(work);
}

void PtxCta::Impl::tc_cp_into(Warp& w, const Inst& in, int l, Impl& c) {
  TensorMemory& t = c.tmem_state(w, in);
  const std::vector<std::uint8_t>& shared = c.shared;
  const auto shape = static_cast<P::TcCpShape>(in.shape[1]);
  const auto taddr = static_cast<std::uint32_t>(get(w, p.src(in, 0), l) + get(w, p.src(in, 1), l));
  const std::uint64_t desc = get(w, p.src(in, 2), l);
  const int rows = cp_rows(shape), bytes = cp_row_bytes(shape);
  const auto mc = static_cast<P::TcCpMulticast>(in.shape[2]);
  const int copies = mc == P::TcCpMulticast::Warpx4 ? 4 : mc == P::TcCpMulticast::None ? 1 : 2;
  const std::uint32_t lane0 = taddr >> 16, col0 = taddr & 0xffff;
  if (lane0 + static_cast<std::uint32_t>(rows) > kLanes || (copies > 1 && lane0 != 0))
    fault(w, in, l,
          "tcgen05.cp: " + std::to_string(rows) + " rows from TMEM lane " + std::to_string(lane0) +
              (copies > 1 ? " (a multicast copy needs lane 0)" : " pass lane 127"));
  // the lane copy q of row r goes to (relative to lane0): .warpx4 32q + r; .warpx2::02_13 (warps 0
  // and 2, and 1 and 3, pair up) 64q + r, so rows 0..31 reach warps 0 and 2 and rows 32..63 warps 1
  // and 3; .warpx2::01_23 32q + r % 32 + 64 (r / 32), so rows 0..31 reach warps 0 and 1 and rows
  // 32..63 warps 2 and 3. The ISA says only that "each warp in the warp pair receive half of the
  // data"; the halves are those of CUTLASS's UTCCP copy traits (SM100_UTCCP_2x64dp128bitlw0213 and
  // lw0123: bit index -> TMEM address).
  auto dest = [&](int r, int q) {
    const auto ur = static_cast<std::uint32_t>(r), uq = static_cast<std::uint32_t>(q);
    switch (mc) {
      case P::TcCpMulticast::Warpx2_02_13:
        return 64 * uq + ur;
      case P::TcCpMulticast::Warpx2_01_23:
        return 32 * uq + ur % 32 + 64 * (ur / 32);
      default:
        return 32 * uq + ur;
    }
  };
  tmem_check(w, in, l, col0, static_cast<std::uint32_t>(bytes / 4), "the copy", &c);
  SmemMatrix sm;
  bool unsup = false;
  const std::string why = decode_desc100(desc, sm, unsup);
  if (!why.empty()) {
    if (unsup) unsupported(in, "a tcgen05 shared memory descriptor with " + why + " (tcgen05.cp)");
    fault(w, in, l, "tcgen05.cp: the descriptor " + hex(desc) + ": " + why);
  }
  const int src_bits = in.shape[3];  // decompression: 6 (.b6x16_p32) or 4 (.b4x16_p64), else 0
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < bytes; ++b) {
      const std::uint32_t a = element_address(sm, false, r, b, 1);
      if (a >= shared.size() || (src_bits && a - a % 16 + 16 > shared.size()))
        fault(w, in, l,
              "tcgen05.cp reads shared address " + std::to_string(a) + ", outside the block's " +
                  std::to_string(shared.size()) + " bytes");
      // .b8x16.bNx16_pP: the 16-byte unit of byte b holds 16 packed N-bit elements and padding;
      // byte b of the row becomes element b % 16, in the lower N bits of its byte (zeros above)
      const std::uint32_t byte = src_bits ? padded_subbyte(shared.data(), a, src_bits) : shared[a];
      for (int q = 0; q < copies; ++q) {
        std::uint32_t& cell =
            t.cells[std::size_t{lane0 + dest(r, q)} * t.columns + col0 + static_cast<std::uint32_t>(b / 4)];
        const int sh = 8 * (b % 4);
        cell = (cell & ~(0xffu << sh)) | byte << sh;
      }
    }
}

// One lane's tcgen05.shift.down: "the shifting of 32-byte elements downwards across all the rows,
// except the last, by one row" of the matrix at taddr, "for a warp", whose lane "must be aligned to
// 32" (PTX ISA "tcgen05.shift"). The ISA does not give the matrix's extent; kernsim reads it as the
// 32 lanes of one warp's quarter from taddr's lane, one 32-byte element (8 columns) wide from its
// column, and "downwards" as towards higher lanes: after the shift lane r + 1 holds what lane r held
// (r = 0 .. 30), the old last row is gone and the first row keeps its value. .cta_group::2 shifts
// the same lanes and columns in both CTAs of the pair ("the Tensor Memory of both the current and
// the peer CTAs"). Performed at issue and tracked by tcgen05.commit, as tcgen05.mma and .cp are.
void PtxCta::Impl::tc_shift_lane(Warp& w, const Inst& in, int l) {
  constexpr std::uint32_t kCols = 8;  // one 32-byte element of a row
  const auto taddr = static_cast<std::uint32_t>(get(w, p.src(in, 0), l) + get(w, p.src(in, 1), l));
  const std::uint32_t lane0 = taddr >> 16, col0 = taddr & 0xffff;
  if (lane0 % kWarpLanes != 0 || lane0 >= kLanes)
    fault(w, in, l,
          "tcgen05.shift at TMEM lane " + std::to_string(lane0) + ": the lane must be a multiple of 32 below 128");
  for (int h = 0; h < in.shape[0]; ++h) {
    Impl& c = pair_cta(w, in, l, h);
    TensorMemory& t = c.tmem_state(w, in);
    tmem_check(w, in, l, col0, kCols, "the shift", &c);
    for (std::uint32_t r = kWarpLanes - 1; r > 0; --r)
      std::copy_n(t.cells.data() + std::size_t{lane0 + r - 1} * t.columns + col0, kCols,
                  t.cells.data() + std::size_t{lane0 + r} * t.columns + col0);
  }
  TcMma work;  // no FLOP: the rows it reads and writes within each SM's tensor memory (sim/timing)
  work.a_tmem = true;
  work.tmem_bytes = 2 * (kWarpLanes - 1) * kCols * 4;
  work.pair = in.shape[0] == 2;
  w.async.tc_mma.push_back(work);
}

// tcgen05.ld / tcgen05.st: the warp's registers and its quarter of the TMEM lanes, as the header says.
void PtxCta::Impl::tmem_ld_st(Warp& w, const Inst& in) {
  TensorMemory& t = tmem_state(w, in);
  const bool ld = in.op == Op::Tcgen05Ld, pack = in.sub & P::kTcPack;
  const auto taddr = static_cast<std::uint32_t>(tc_uniform(w, in, 0, "taddr") + tc_uniform(w, in, 1, "taddr"));
  const auto shape = static_cast<TcShape>(in.shape[1]);
  const int num = in.shape[2];
  const int per = shape == TcShape::S16x128b ? 2 : shape == TcShape::S16x256b ? 4 : 1;  // registers per repeat
  const std::uint32_t lane0 = taddr >> 16, col0 = taddr & 0xffff;
  const std::uint32_t quarter = static_cast<std::uint32_t>(w.index % 4) * kWarpLanes;
  const std::uint32_t rows = shape == TcShape::S32x32b ? 32 : 16;
  if (lane0 < quarter || lane0 + rows > quarter + kWarpLanes)
    fault(w, in, 0,
          std::string(to_string(in.op)) + " at TMEM lane " + std::to_string(lane0) + ": warp " +
              std::to_string(w.index) + " (warp " + std::to_string(w.index % 4) + " of its warpgroup) reaches lanes " +
              std::to_string(quarter) + ".." + std::to_string(quarter + kWarpLanes - 1) + " only");
  // (lane, column) of register `reg` of thread `th`, relative to the address
  auto place = [&](int th, int reg, std::uint32_t& lane, std::uint32_t& col) {
    const auto ut = static_cast<std::uint32_t>(th), i = static_cast<std::uint32_t>(reg / per),
               j = static_cast<std::uint32_t>(reg % per);
    switch (shape) {
      case TcShape::S32x32b:
        lane = ut, col = i;
        break;
      case TcShape::S16x64b:
        lane = ut / 4 + 8 * (ut % 2), col = 2 * i + (ut / 2) % 2;
        break;
      case TcShape::S16x128b:
        lane = ut / 4 + 8 * j, col = 4 * i + ut % 4;
        break;
      case TcShape::S16x256b:
        lane = ut / 4 + 8 * (j / 2), col = 8 * i + 2 * (ut % 4) + j % 2;
        break;
      case TcShape::S16x32bx2:
        lane = ut % 16, col = i;
        break;
    }
    if (pack) col *= 2;
    if (shape == TcShape::S16x32bx2 && th >= 16) col += in.imm;
  };
  const int nregs = per * num;
  std::uint32_t hi = 0;
  for (int th = 0; th < 32; ++th) {
    std::uint32_t ln, c;
    place(th, nregs - 1, ln, c);
    hi = std::max(hi, c + (pack ? 2 : 1));
  }
  tmem_check(w, in, 0, col0, hi, ld ? "the load" : "the store");
  for (int reg = 0; reg < nregs; ++reg) {
    const Reg r = ld ? p.dst(in, reg) : p.src(in, 2 + reg);
    for (int th = 0; th < 32; ++th) {
      std::uint32_t ln, c;
      place(th, reg, ln, c);
      std::uint32_t* cell = t.cells.data() + std::size_t{lane0 + ln} * t.columns + col0 + c;
      if (ld) {
        put(w, r, th, pack ? (cell[0] & 0xffffu) | (cell[1] << 16) : cell[0]);
      } else {
        const auto v = static_cast<std::uint32_t>(get(w, r, th));
        if (pack)
          cell[0] = v & 0xffffu, cell[1] = v >> 16;
        else
          cell[0] = v;
      }
    }
  }
  if (in.sub & (P::kTcRedMin | P::kTcRedMax)) tmem_ld_red(w, in, nregs);
  w.async.tmem_bytes = std::uint64_t{32} * static_cast<std::uint64_t>(nregs) * 4;
}

// tcgen05.ld.red: each thread's last destination (redval) gets the minimum or maximum of the
// `n` values it loaded ("the reduction operation ... performed on the data that is loaded across
// columns in each lane", PTX ISA "tcgen05.ld"); the loaded registers keep the data. .f32 follows
// min/max.f32: -0 below +0, a NaN input ignored unless all are NaN (then the canonical NaN), with
// .NaN any NaN input gives the canonical NaN; .abs reduces the absolute values.
void PtxCta::Impl::tmem_ld_red(Warp& w, const Inst& in, int n) {
  const bool mx = in.sub & P::kTcRedMax, abs = in.sub & P::kTcRedAbs, nan = in.sub & P::kTcRedNaN;
  constexpr std::uint32_t kNaN = 0x7fffffffu;  // the canonical NaN of min/max.f32
  for (int th = 0; th < 32; ++th) {
    std::uint32_t acc = 0;
    bool have = false, saw_nan = false;
    for (int reg = 0; reg < n; ++reg) {
      auto v = static_cast<std::uint32_t>(get(w, p.dst(in, reg), th));
      if (in.type == Ty::F32) {
        if (abs) v &= 0x7fffffffu;
        const float f = from32<float>(v);
        if (std::isnan(f)) {
          saw_nan = true;
          continue;
        }
        // order -0 below +0: compare (value, sign) so that equal zeros pick by sign
        const float a = from32<float>(acc);
        const bool better = !have || (mx ? (f > a || (f == a && !(v >> 31))) : (f < a || (f == a && (v >> 31))));
        if (better) acc = v;
      } else {
        const bool s = in.type == Ty::S32;
        const bool better = !have || (s ? (mx ? static_cast<std::int32_t>(v) > static_cast<std::int32_t>(acc)
                                              : static_cast<std::int32_t>(v) < static_cast<std::int32_t>(acc))
                                        : (mx ? v > acc : v < acc));
        if (better) acc = v;
      }
      have = true;
    }
    if (in.type == Ty::F32 && (!have || (nan && saw_nan))) acc = kNaN;
    put(w, p.dst(in, n), th, acc);
  }
}

}  // namespace kernsim::sim
