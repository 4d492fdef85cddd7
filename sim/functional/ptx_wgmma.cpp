// wgmma (sm_90a): a warpgroup's asynchronous matrix multiply-accumulate D = A*B + D, m64nNkK.
//
// A warpgroup is four consecutive warps (warp index / 4); wgmma.mma_async.sync.aligned is issued
// by all 128 threads. D's 64 rows are split between them: warp q of the group (index % 4) holds
// rows 16q..16q+15, and with A in registers it also holds A's rows 16q..16q+15 (the PTX ISA's
// register fragment figures). B comes from shared memory, common to the four. Each warp's part of
// the product therefore depends on its own registers and on shared memory only, and kernsim
// performs each warp's 16 rows on that warp's behalf: no register fragments cross warps. The
// collective part is checked instead: the warpgroup must exist whole and every lane issue.
//
// Asynchrony: an issued wgmma is queued on its warp (Warp::wgmma), with its descriptors, scale-d
// and A registers as they were at issue. wgmma.commit_group closes a group; wgmma.wait_group N
// performs the oldest groups until at most N remain in flight, reading shared memory and the
// accumulators at that moment. An instruction other than a wgmma that reads or writes a pending
// wgmma's accumulator registers first performs every pending wgmma: ptxas does the same (it
// serializes the wgmma pipeline, with a warning, when code touches accumulators in flight, as
// clang's spills of an accumulator array do). A kernel that overwrites B before waiting is wrong
// here as on hardware.
//
// Numbers: every product of two f16, bf16, tf32 or fp8 values is exact in f32; the products are
// added to the accumulator one k at a time in f32 with round-to-nearest-even (an f16 D is widened
// to f32 first and rounded to f16, nearest-even, at the end). tf32 inputs use their top 19 bits
// (the low 13 mantissa bits of the f32 container are ignored). Integers accumulate exactly in 64
// bits and wrap to s32, or clamp to it with .satfinite.
//
// Shared-memory matrices follow the PTX ISA's "Matrix Descriptor Format" and "Shared Memory Matrix
// Layout": start address, leading- and stride-dimension byte offsets (LBO, SBO) in 16-byte units,
// and a swizzle mode. The unit of every layout is the core matrix, 8 rows of 16 bytes; a swizzle
// of W bytes (32, 64, 128) makes rows W bytes long and XORs address bits [4, 4+log2(W/16)) with
// bits [7, ...): the 16-byte chunk of a row moves by the row's index within the 8-row pattern.
#include <algorithm>
#include <cmath>

#include "base/float16.h"
#include "base/float_format.h"
#include "sim/functional/matrix_smem.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace P = isa::ptx;

namespace {

using namespace matrix_smem;

constexpr int kGroupWarps = 4;  // warps in a warpgroup
constexpr int kWarpRows = 16;   // rows of D (and of A) each warp of the group holds

SmemMatrix decode_desc(std::uint64_t d) {
  SmemMatrix m;
  m.start = static_cast<std::uint32_t>(d & 0x3fff) << 4;
  m.lbo = static_cast<std::uint32_t>((d >> 16) & 0x3fff) << 4;
  m.sbo = static_cast<std::uint32_t>((d >> 32) & 0x3fff) << 4;
  m.base_offset = static_cast<std::uint32_t>((d >> 49) & 0x7);
  static constexpr std::uint32_t kWidth[4] = {16, 128, 64, 32};  // modes 0 none, 1 128B, 2 64B, 3 32B
  m.width = kWidth[(d >> 62) & 3];
  return m;
}

// Row and column (within the warp's 16 rows) of element e of A register j of a lane, for the
// PTX ISA's A fragment of m64nNkK (each warp's 16 x K slice in the layout of mma.m16n8kK's A).
void a_coord(Ty t, int lane, int j, int e, int* row, int* col) {
  const int g = lane >> 2, tg = lane & 3;
  *row = g + 8 * (j & 1);
  if (elem_bytes(t) == 2)
    *col = 2 * tg + e + 8 * (j >> 1);
  else if (t == Ty::TF32)
    *col = tg + 4 * (j >> 1);
  else
    *col = 4 * tg + e + 16 * (j >> 1);
}

// Row (within the warp's 16) and column of D's value v of a lane: value v of 4*j.. is n-block j.
void d_coord(int lane, int v, int* row, int* col) {
  const int g = lane >> 2, tg = lane & 3, j = v / 4, q = v % 4;
  *row = g + 8 * (q >> 1);
  *col = 8 * j + 2 * tg + (q & 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void PtxCta::Impl::exec_wgmma(Warp& w, const Inst& in, std::uint32_t mask) {
  const int lane = std::countr_zero(mask | (1u << 31));
  if (mask != kFullMask || w.valid != kFullMask)
    fault(w, in, std::countr_zero(~mask | 1u),
          std::string(to_string(in.op)) + " .sync.aligned needs all 32 lanes of the warp active");
  const std::size_t group = static_cast<std::size_t>(w.index / kGroupWarps);
  if ((group + 1) * kGroupWarps > warps.size() || warps[(group + 1) * kGroupWarps - 1].valid != kFullMask)
    fault(w, in, lane,
          std::string(to_string(in.op)) + " needs a whole warpgroup (4 warps of 32 threads); the block has " +
              std::to_string(live_threads) + " live threads");
  switch (in.op) {
    case Op::WgmmaFence:
      return;  // orders register accesses before the next wgmma: nothing to do here
    case Op::WgmmaCommit: {
      std::uint32_t committed = 0;
      for (std::uint32_t n : w.wgmma_groups) committed += n;
      w.wgmma_groups.push_back(static_cast<std::uint32_t>(w.wgmma.size()) - committed);
      return;
    }
    case Op::WgmmaWait: {
      while (w.wgmma_groups.size() > in.imm) {
        const std::uint32_t n = w.wgmma_groups.front();
        for (std::uint32_t i = 0; i < n; ++i) perform_wgmma(w, w.wgmma[i]);
        w.wgmma.erase(w.wgmma.begin(), w.wgmma.begin() + n);
        w.wgmma_groups.erase(w.wgmma_groups.begin());
      }
      // the accumulators still in flight are those of the wgmmas left
      w.wgmma_regs.assign(w.wgmma_regs.size(), false);
      for (const WgmmaOp& op : w.wgmma) {
        const Inst& pending = p.insts[op.pc];
        for (int i = 0; i < pending.ndst; ++i)
          if (const Reg d = p.dst(pending, i); d.bank == Bank::R32 && d.idx < w.wgmma_regs.size())
            w.wgmma_regs[d.idx] = true;
      }
      return;
    }
    default:
      break;
  }
  // wgmma.mma_async: queue it with what it reads at issue
  WgmmaOp op;
  op.pc = static_cast<std::uint32_t>(&in - p.insts.data());
  op.frame = w.frames.size();
  const bool rs = in.sub == 1;
  const int nsrc_a = rs ? 4 : 1;
  auto uniform = [&](Reg r, const char* what) {
    const std::uint64_t v = get(w, r, 0);
    for (int l = 1; l < 32; ++l)
      if (get(w, r, l) != v)
        fault(w, in, l, std::string("wgmma.mma_async: ") + what + " differs between the lanes of the warp");
    return v;
  };
  if (rs) {
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < 32; ++l)
        op.a[static_cast<std::size_t>(j * 32 + l)] = static_cast<std::uint32_t>(get(w, p.src(in, j), l));
  } else {
    op.desc_a = uniform(p.src(in, 0), "the A descriptor");
  }
  op.desc_b = uniform(p.src(in, nsrc_a), "the B descriptor");
  op.scale_d = uniform(p.src(in, nsrc_a + 1), "scale-d") != 0;
  w.wgmma.push_back(op);
  for (int i = 0; i < in.ndst; ++i) {
    const Reg d = p.dst(in, i);
    if (d.bank != Bank::R32) continue;
    if (w.wgmma_regs.size() <= d.idx) w.wgmma_regs.resize(d.idx + 1, false);
    w.wgmma_regs[d.idx] = true;
  }
}

void PtxCta::Impl::wgmma_hazard(Warp& w, const Inst& in) {
  if (in.op == Op::WgmmaMma || in.op == Op::WgmmaFence || in.op == Op::WgmmaCommit || in.op == Op::WgmmaWait) return;
  for (std::uint32_t i = 0; i < std::uint32_t{in.ndst} + in.nsrc; ++i) {
    const Reg r = p.regs[in.ops + i];
    if (r.bank == Bank::R32 && r.idx < w.wgmma_regs.size() && w.wgmma_regs[r.idx]) return perform_all_wgmma(w);
  }
}

void PtxCta::Impl::perform_all_wgmma(Warp& w) {
  for (const WgmmaOp& op : w.wgmma) perform_wgmma(w, op);
  w.wgmma.clear();
  for (std::uint32_t& n : w.wgmma_groups) n = 0;  // the groups stay in flight (empty) until waited for
  w.wgmma_regs.assign(w.wgmma_regs.size(), false);
}

namespace {

// Reads one shared-memory operand's elements (rows x K) into `f` (floats) or `iv` (integers).
template <class Fault>
void read_smem(const std::vector<std::uint8_t>& shared, const SmemMatrix& s, bool mn_major, Ty t, int row0, int rows,
               int K, bool negate, float* f, std::int32_t* iv, Fault&& fault) {
  const int eb = elem_bytes(t);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < K; ++k) {
      const std::uint32_t a = element_address(s, mn_major, row0 + r, k, eb);
      if (a + static_cast<std::uint32_t>(eb) > shared.size()) fault(a);
      std::uint32_t bits = 0;
      std::memcpy(&bits, shared.data() + a, static_cast<std::size_t>(eb));
      const double v = elem_value(bits, t);
      f[r * K + k] = static_cast<float>(negate ? -v : v);
      iv[r * K + k] = static_cast<std::int32_t>(v);
    }
}

}  // namespace

void PtxCta::Impl::perform_wgmma(Warp& w, const WgmmaOp& op) {
  const Inst& in = p.insts[op.pc];
  if (op.frame != w.frames.size())
    unsupported(in, "a wgmma.mma_async waited for in another function than the one that issued it");
  const int N = in.shape[1], K = in.shape[2];
  const Ty ta = in.type2, tb = static_cast<Ty>(in.shape[3]), td = in.type;
  const bool integer = ta == Ty::S8 || ta == Ty::U8;
  const int q = w.index % kGroupWarps;
  auto smem_fault = [&](std::uint32_t a) {
    fault(w, in, 0,
          "wgmma.mma_async reads shared memory at " + std::to_string(a) + ", outside the block's " +
              std::to_string(shared.size()) + " bytes");
  };
  auto check = [&](const SmemMatrix& s, const char* which) {
    if (s.base_offset != 0 && s.width != 16)
      unsupported(in, std::string("a wgmma matrix descriptor with a non-zero base offset (") + which + ")");
  };
  std::vector<float> af(static_cast<std::size_t>(kWarpRows * K)), bf(static_cast<std::size_t>(N * K));
  std::vector<std::int32_t> ai(af.size()), bi(bf.size());
  const bool neg_a = in.imm & P::kWgmmaNegA, neg_b = in.imm & P::kWgmmaNegB;
  if (in.sub == 1) {
    const int per = 4 / elem_bytes(ta);
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < 32; ++l)
        for (int e = 0; e < per; ++e) {
          const std::uint32_t reg = op.a[static_cast<std::size_t>(j * 32 + l)];
          const int eb = elem_bytes(ta) * 8;
          const std::uint32_t bits = eb == 32 ? reg : (reg >> (eb * e)) & ((1u << eb) - 1);
          int r, c;
          a_coord(ta, l, j, e, &r, &c);
          const double v = elem_value(bits, ta);
          af[static_cast<std::size_t>(r * K + c)] = static_cast<float>(neg_a ? -v : v);
          ai[static_cast<std::size_t>(r * K + c)] = static_cast<std::int32_t>(v);
        }
  } else {
    const SmemMatrix sa = decode_desc(op.desc_a);
    check(sa, "A");
    read_smem(shared, sa, in.imm & P::kWgmmaTransA, ta, q * kWarpRows, kWarpRows, K, neg_a, af.data(), ai.data(),
              smem_fault);
  }
  const SmemMatrix sb = decode_desc(op.desc_b);
  check(sb, "B");
  read_smem(shared, sb, in.imm & P::kWgmmaTransB, tb, 0, N, K, neg_b, bf.data(), bi.data(), smem_fault);
  // D, value by value: lane l's value v is at (row, col) of the warp's 16 rows
  const bool d_half = td == Ty::F16;
  const int nvals = N / 2;  // values of D per lane
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < nvals; ++v) {
      int r, c;
      d_coord(l, v, &r, &c);
      const Reg reg = p.dst(in, d_half ? v / 2 : v);
      const std::uint32_t old = static_cast<std::uint32_t>(get(w, reg, l));
      std::uint32_t out;
      if (integer) {
        std::int64_t acc = op.scale_d ? static_cast<std::int32_t>(old) : 0;
        for (int k = 0; k < K; ++k)
          acc += std::int64_t{ai[static_cast<std::size_t>(r * K + k)]} * bi[static_cast<std::size_t>(c * K + k)];
        if (in.flags & P::kSatFinite) acc = std::clamp<std::int64_t>(acc, INT32_MIN, INT32_MAX);
        out = static_cast<std::uint32_t>(acc);
      } else {
        const int shift = d_half ? 16 * (v % 2) : 0;
        float acc = !op.scale_d ? 0.0f
                    : d_half    ? half_to_float(static_cast<std::uint16_t>(old >> shift))
                                : from32<float>(old);
        for (int k = 0; k < K; ++k)
          acc += af[static_cast<std::size_t>(r * K + k)] * bf[static_cast<std::size_t>(c * K + k)];
        if (d_half) {
          const std::uint32_t h = round_to_format(acc, FloatFormat::F16, RoundMode::NearestEven);
          out = (old & ~(0xffffu << shift)) | (h << shift);
        } else {
          out = to32(acc);
        }
      }
      put(w, reg, l, out);
    }
}

}  // namespace kernsim::sim
