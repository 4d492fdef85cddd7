// Warp-level matrix instructions: mma.sync (f16, bf16, tf32, int8, fp8, f64 shapes of Ampere and
// Hopper) with the fragment layouts of the PTX ISA, and wmma.load/store/mma.
//
// mma.sync fragments follow the documented per-lane layouts exactly, because kernels build and
// read them directly (ldmatrix, hand-written epilogues). wmma fragments are opaque by
// specification: kernsim uses a simple consistent layout (slot s of a fragment holds element
// s mod size in row-major order) that load, mma and store agree on.
#include <cmath>

#include "base/float16.h"
#include "base/float_format.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace P = isa::ptx;

namespace {

// Value of one fragment element (bits) of type t as double.
[[gnu::always_inline]] inline double elem_value(std::uint32_t bits, Ty t) {
  switch (t) {
    case Ty::F16: return half_to_float(static_cast<std::uint16_t>(bits));
    case Ty::BF16: return bf16_to_float(static_cast<std::uint16_t>(bits));
    case Ty::TF32: return from32<float>(bits & 0xffffe000u);
    case Ty::F32: return from32<float>(bits);
    case Ty::S8: return static_cast<std::int8_t>(bits);
    case Ty::U8: return static_cast<std::uint8_t>(bits);
    case Ty::S32: return static_cast<std::int32_t>(bits);
    case Ty::E4M3: return decode_format(bits & 0xff, FloatFormat::E4M3);
    case Ty::E5M2: return decode_format(bits & 0xff, FloatFormat::E5M2);
    default: return 0;
  }
}

[[gnu::always_inline]] inline int elem_bits(Ty t) {
  switch (t) {
    case Ty::F16: case Ty::BF16: return 16;
    case Ty::S8: case Ty::U8: case Ty::E4M3: case Ty::E5M2: return 8;
    case Ty::F64: return 64;
    default: return 32;
  }
}

struct Coord { int row, col; };

// Fragment element i of lane l for mma.sync m16n8kK (A: MxK, B: KxN, C/D: MxN).
[[gnu::always_inline]] inline Coord frag_a(int m, int k, Ty t, int lane, int i) {
  const int g = lane >> 2, tg = lane & 3;
  const int eb = elem_bits(t);
  if (eb == 16) {
    if (k == 16) return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, tg * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
    return {i < 2 ? g : g + 8, tg * 2 + (i & 1)};  // k == 8
  }
  if (eb == 8) {
    if (k == 32) return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, tg * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
    return {i < 4 ? g : g + 8, tg * 4 + (i & 3)};  // k == 16
  }
  if (t == Ty::TF32) {
    if (k == 8) return {(i == 0 || i == 2) ? g : g + 8, (i < 2) ? tg : tg + 4};
    return {i == 0 ? g : g + 8, tg};  // k == 4
  }
  (void)m;
  return {g, tg};  // f64 m8n8k4
}

[[gnu::always_inline]] inline Coord frag_b(int k, Ty t, int lane, int i) {
  const int g = lane >> 2, tg = lane & 3;
  const int eb = elem_bits(t);
  if (eb == 16) return {tg * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
  if (eb == 8) return {tg * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
  if (t == Ty::TF32) return {k == 8 ? (i == 0 ? tg : tg + 4) : tg, g};
  return {tg, g};  // f64
}

[[gnu::always_inline]] inline Coord frag_c(int m, Ty t, int lane, int i) {
  const int g = lane >> 2, tg = lane & 3;
  if (m == 8) return {g, tg * 2 + i};  // f64 m8n8k4: 2 elements
  (void)t;
  return {i < 2 ? g : g + 8, tg * 2 + (i & 1)};
}

// Register r of a 16-bit A (m16n8k8/k16) or B fragment, its 32 lanes' two elements each, into the
// row-major matrix of `cols` columns: frag_a/frag_b for 16-bit types (element i = 2r + e of lane l
// with g = l / 4, tg = l % 4: A at row g + 8 (r % 2), column 2 tg + e + 8 (r / 2); B at row
// 2 tg + e + 8 r, column g).
template <bool kBf16>
void gather16(const std::uint64_t* v, int r, bool is_a, int cols, double* mat) {
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, tg = l & 3;
    for (int e = 0; e < 2; ++e) {
      const auto bits = static_cast<std::uint16_t>(v[l] >> (16 * e));
      const double val = kBf16 ? bf16_to_float(bits) : half_to_float(bits);
      const int row = is_a ? g + 8 * (r & 1) : tg * 2 + e + 8 * r;
      const int col = is_a ? tg * 2 + e + 8 * (r >> 1) : g;
      mat[row * cols + col] = val;
    }
  }
}

}  // namespace

Space PtxCta::Impl::exec_mma(Warp& w, const Inst& in, std::uint32_t m) {
  if (in.op == Op::Mma) {
    if (m != (w.valid & ~w.exited) || m != kFullMask)
      fault(w, in, std::countr_zero(~m | 1u), "mma.sync.aligned needs all 32 lanes of the warp active (active mask " +
                                                  std::to_string(m) + ")");
    const int M = in.shape[0], N = in.shape[1], K = in.shape[2];
    const Ty ta = in.type2;
    const Ty tb = in.shape[3] ? static_cast<Ty>(in.shape[3]) : in.type2;
    const Ty tc = in.type3, td = in.type;
    const int na = static_cast<int>(in.imm & 0xff), nb = static_cast<int>((in.imm >> 8) & 0xff), ncr = static_cast<int>((in.imm >> 16) & 0xff);
    const bool supported = (M == 16 && N == 8 && (K == 16 || K == 8 || K == 32 || K == 4)) || (M == 8 && N == 8 && K == 4 && ta == Ty::F64);
    if (!supported || (M == 8 && ta != Ty::F64))
      unsupported(in, "mma.sync shape m" + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K) + " with ." + to_string(ta));
    // the largest fragments: A 16x32 and B 32x8 (int8/fp8 k32), C/D 16x8; each element is
    // written by the gathers below (the zeros stand for nothing)
    constexpr std::size_t kMaxA = 16 * 32, kMaxB = 32 * 8, kMaxC = 16 * 8;
    std::array<double, kMaxA> A;
    std::array<double, kMaxB> B;
    std::array<double, kMaxC> C;
    std::fill_n(A.begin(), M * K, 0.0);
    std::fill_n(B.begin(), K * N, 0.0);
    std::fill_n(C.begin(), M * N, 0.0);
    const bool integer = ta == Ty::S8 || ta == Ty::U8;
    std::array<std::int64_t, kMaxA> Ai;
    std::array<std::int64_t, kMaxB> Bi;
    std::array<std::int64_t, kMaxC> Ci;
    if (integer) {
      std::fill_n(Ai.begin(), M * K, 0);
      std::fill_n(Bi.begin(), K * N, 0);
      std::fill_n(Ci.begin(), M * N, 0);
    }
    // a source register's 32 lanes, its row read once
    std::array<std::uint64_t, 32> v;
    auto read_row = [&](Reg reg) {
      if (reg.bank == Bank::R32 || reg.bank == Bank::C32 || reg.bank == Bank::S32) {
        const std::uint32_t* row = row32(w, reg);
        for (int l = 0; l < 32; ++l) v[static_cast<std::size_t>(l)] = row[l];
      } else {
        for (int l = 0; l < 32; ++l) v[static_cast<std::size_t>(l)] = get(w, reg, l);
      }
    };
    auto gather = [&](int first_src, int nregs, Ty t, bool is_a) {
      const int eb = elem_bits(t);
      if (eb == 16 && !integer) {  // f16/bf16: frag_a/frag_b's 16-bit layouts in closed form
        for (int r = 0; r < nregs; ++r) {
          read_row(p.src(in, first_src + r));
          if (t == Ty::F16) gather16<false>(v.data(), r, is_a, is_a ? K : N, is_a ? A.data() : B.data());
          else gather16<true>(v.data(), r, is_a, is_a ? K : N, is_a ? A.data() : B.data());
        }
        return;
      }
      const int per = eb == 64 ? 1 : 32 / eb;
      const std::uint32_t emask = eb == 32 ? 0xffffffffu : ((1u << eb) - 1);
      for (int r = 0; r < nregs; ++r) {
        read_row(p.src(in, first_src + r));
        for (int l = 0; l < 32; ++l) {
          for (int e = 0; e < per; ++e) {
            const int i = r * per + e;
            const Coord cd = is_a ? frag_a(M, K, t, l, i) : frag_b(K, t, l, i);
            const double val = eb == 64 ? from64<double>(v[static_cast<std::size_t>(l)])
                                        : elem_value(static_cast<std::uint32_t>(v[static_cast<std::size_t>(l)] >> (eb * e)) & emask, t);
            const std::size_t idx = static_cast<std::size_t>(is_a ? cd.row * K + cd.col : cd.row * N + cd.col);
            (is_a ? A.data() : B.data())[idx] = val;
            if (integer) (is_a ? Ai.data() : Bi.data())[idx] = static_cast<std::int64_t>(val);
          }
        }
      }
    };
    gather(0, na, ta, true);
    gather(na, nb, tb, false);
    // C
    const bool c_half = tc == Ty::F16 || tc == Ty::BF16;
    for (int r = 0; r < ncr; ++r) {
      read_row(p.src(in, na + nb + r));
      for (int l = 0; l < 32; ++l) {
        const std::uint64_t x = v[static_cast<std::size_t>(l)];
        const int per = c_half ? 2 : 1;
        for (int e = 0; e < per; ++e) {
          const int i = r * per + e;
          const Coord cd = frag_c(M, tc, l, i);
          const std::size_t idx = static_cast<std::size_t>(cd.row * N + cd.col);
          if (tc == Ty::F64) C[idx] = from64<double>(x);
          else if (c_half) C[idx] = elem_value(static_cast<std::uint32_t>(x >> (16 * e)) & 0xffffu, tc);
          else if (integer) Ci[idx] = static_cast<std::int32_t>(static_cast<std::uint32_t>(x));
          else C[idx] = from32<float>(static_cast<std::uint32_t>(x));
        }
      }
    }
    // D = A*B + C
    // each element of D sums over k in order; a row's elements accumulate side by side
    std::array<double, kMaxC>& D = C;
    std::array<std::int64_t, kMaxC>& Di = Ci;
    for (int i = 0; i < M; ++i)
      for (int kk = 0; kk < K; ++kk) {
        if (integer) {
          const std::int64_t a = Ai[static_cast<std::size_t>(i * K + kk)];
          for (int j = 0; j < N; ++j) Di[static_cast<std::size_t>(i * N + j)] += a * Bi[static_cast<std::size_t>(kk * N + j)];
        } else {
          const double a = A[static_cast<std::size_t>(i * K + kk)];
          for (int j = 0; j < N; ++j) D[static_cast<std::size_t>(i * N + j)] += a * B[static_cast<std::size_t>(kk * N + j)];
        }
      }
    if (integer && (in.flags & P::kSatFinite))
      for (int x = 0; x < M * N; ++x) Di[static_cast<std::size_t>(x)] = std::max<std::int64_t>(INT32_MIN, std::min<std::int64_t>(INT32_MAX, Di[static_cast<std::size_t>(x)]));
    // scatter D, a destination register's row at a time
    const bool d_half = td == Ty::F16 || td == Ty::BF16;
    for (int r = 0; r < in.ndst; ++r) {
      const Reg dr = p.dst(in, r);
      std::uint32_t* row = dr.bank == Bank::R32 ? row32(w, dr) : nullptr;
      for (int l = 0; l < 32; ++l) {
        const int per = d_half ? 2 : 1;
        std::uint64_t out = 0;
        for (int e = 0; e < per; ++e) {
          const int i = r * per + e;
          const Coord cd = frag_c(M, td, l, i);
          const std::size_t idx = static_cast<std::size_t>(cd.row * N + cd.col);
          if (td == Ty::F64) out = to64(D[idx]);
          else if (d_half) out |= static_cast<std::uint64_t>(round_to_format(D[idx], td == Ty::F16 ? FloatFormat::F16 : FloatFormat::BF16, RoundMode::NearestEven)) << (16 * e);
          else if (integer) out = static_cast<std::uint32_t>(static_cast<std::int32_t>(Di[idx]));
          else out = to32(static_cast<float>(D[idx]));
        }
        if (row) row[l] = static_cast<std::uint32_t>(out);
        else put(w, dr, l, out);
      }
    }
    return Space::Generic;
  }

  // ---- wmma ----
  const int M = in.shape[0], N = in.shape[1], K = in.shape[2];
  if (m != kFullMask) fault(w, in, std::countr_zero(~m | 1u), "wmma needs all 32 lanes of the warp active");
  if (in.op == Op::WmmaMma) {
    const Ty ta = in.type2, tc = in.type3, td = in.type;
    const int na = static_cast<int>(in.imm & 0xff), nb = static_cast<int>((in.imm >> 8) & 0xff), ncr = static_cast<int>((in.imm >> 16) & 0xff);
    constexpr int kMaxElems = 512;  // the largest wmma fragment: 32x16 / 16x32 (m32n8k16, m8n32k16)
    if (M * K > kMaxElems || K * N > kMaxElems || M * N > kMaxElems)
      unsupported(in, "wmma shape m" + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K));
    // slot s of a fragment holds element s mod size (row-major); a later slot overwrites
    auto frag = [&](double* mat, int first, int nregs, Ty t, int total) {
      const int eb = elem_bits(t);
      const int per = 32 / eb;
      const std::uint32_t emask = eb == 32 ? 0xffffffffu : ((1u << eb) - 1);
      std::fill(mat, mat + total, 0.0);
      int slot = 0;
      for (int l = 0; l < 32; ++l)
        for (int r = 0; r < nregs; ++r) {
          const std::uint32_t v = static_cast<std::uint32_t>(get(w, p.src(in, first + r), l));
          for (int e = 0; e < per; ++e) {
            mat[slot] = elem_value((v >> (eb * e)) & emask, t);
            if (++slot == total) slot = 0;
          }
        }
    };
    double A[kMaxElems], B[kMaxElems], C[kMaxElems];
    frag(A, 0, na, ta, M * K);
    frag(B, na, nb, ta, K * N);
    frag(C, na + nb, ncr, tc == Ty::F16 ? Ty::F16 : (tc == Ty::S32 ? Ty::S32 : Ty::F32), M * N);
    // D = A*B + C; each element sums over k in order (rows of D accumulate side by side)
    for (int i = 0; i < M; ++i) {
      double* d = C + i * N;
      for (int kk = 0; kk < K; ++kk) {
        const double a = A[i * K + kk];
        const double* b = B + kk * N;
        for (int j = 0; j < N; ++j) d[j] += a * b[j];
      }
    }
    const double* D = C;
    const int eb = td == Ty::F16 ? 16 : 32;
    const int per = 32 / eb;
    int slot = 0;
    for (int l = 0; l < 32; ++l)
      for (int r = 0; r < in.ndst; ++r) {
        std::uint32_t out = 0;
        for (int e = 0; e < per; ++e) {
          const double v = D[slot];
          if (++slot == M * N) slot = 0;
          if (td == Ty::F16) out |= round_to_format(v, FloatFormat::F16, RoundMode::NearestEven) << (16 * e);
          else if (td == Ty::S32) out = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
          else out = to32(static_cast<float>(v));
        }
        put(w, p.dst(in, r), l, out);
      }
    return Space::Generic;
  }
  // wmma.load / wmma.store
  const int frag_kind = in.sub;  // 0 a, 1 b, 2 c, 3 d
  const int rows = frag_kind == 0 ? M : frag_kind == 1 ? K : M;
  const int cols = frag_kind == 0 ? K : frag_kind == 1 ? N : N;
  const bool col_major = in.flags & P::kTrans;
  const Ty t = in.type;
  const int eb = elem_bits(t);
  if (eb > 32) unsupported(in, std::string("wmma.load/store of .") + to_string(t) + " fragments");
  const int ebytes = eb / 8;
  const int per = 32 / eb;
  const bool is_load = in.op == Op::WmmaLoad;
  const int nregs = is_load ? in.ndst : in.nsrc - 1;
  const Reg stride_reg = is_load ? p.src(in, 0) : p.src(in, 0);
  const int E = nregs * per;
  const int total = rows * cols;
  Space resolved = in.space;
  for (int l = 0; l < 32; ++l) {
    std::uint64_t base = lane_address(w, in.addr, l);
    std::uint64_t stride = stride_reg.bank == Bank::None ? static_cast<std::uint64_t>(col_major ? rows : cols) : get(w, stride_reg, l);
    {  // the timing model sees the fragment's first machine access in the mma.sync layout: lane
       // (g, t) = (l / 4, l % 4) at strided line g, contiguous element t * (access width / element)
      const std::uint64_t per = static_cast<std::uint64_t>(P::wmma_access_width(frag_kind, t) / ebytes);
      w.addrs[l] = base + (static_cast<std::uint64_t>(l / 4) * stride + static_cast<std::uint64_t>(l % 4) * per) * static_cast<std::uint64_t>(ebytes);
      if (l == 0) w.frag_pitch = stride * static_cast<std::uint64_t>(ebytes);
    }
    // the lane's elements, slot by slot; a row-major run of slots is one piece of memory
    std::uint32_t vals[16] = {};  // a fragment has at most 16 registers per lane
    if (nregs > 16) unsupported(in, "wmma fragment of " + std::to_string(nregs) + " registers");
    if (!is_load)
      for (int r = 0; r < nregs; ++r) vals[r] = static_cast<std::uint32_t>(get(w, p.src(in, 1 + r), l));
    auto elem = [&](std::uint8_t* ptr, int i) {  // element i of the lane (register i / per)
      const int r = i / per, sh = eb * (i % per);
      if (is_load) {
        std::uint32_t x;
        if (ebytes == 2) { std::uint16_t h; std::memcpy(&h, ptr, 2); x = h; }
        else if (ebytes == 1) x = *ptr;
        else std::memcpy(&x, ptr, 4);
        vals[r] |= x << sh;
      } else {
        const std::uint32_t x = vals[r] >> sh;
        if (ebytes == 2) { const std::uint16_t h = static_cast<std::uint16_t>(x); std::memcpy(ptr, &h, 2); }
        else if (ebytes == 1) *ptr = static_cast<std::uint8_t>(x);
        else std::memcpy(ptr, &x, 4);
      }
    };
    for (int i = 0; i < E;) {
      const int slot = (l * E + i) % total;
      const int row = slot / cols, col = slot % cols;
      const std::uint64_t off = col_major ? static_cast<std::uint64_t>(col) * stride + static_cast<std::uint64_t>(row)
                                          : static_cast<std::uint64_t>(row) * stride + static_cast<std::uint64_t>(col);
      const std::uint64_t a = base + off * static_cast<std::uint64_t>(ebytes);
      const int n = col_major ? 1 : std::min({E - i, cols - col, total - slot});
      std::uint8_t* run = resolve_run(w, in, in.space, a, static_cast<std::uint32_t>(ebytes), static_cast<std::uint32_t>(n), l, !is_load, &resolved);
      if (run && i % per == 0 && n % per == 0) {
        // whole registers: element k of register r sits at bits eb * k, as in memory (little-endian)
        if (is_load) std::memcpy(&vals[i / per], run, static_cast<std::size_t>(n * ebytes));
        else std::memcpy(run, &vals[i / per], static_cast<std::size_t>(n * ebytes));
      } else if (run) {
        for (int j = 0; j < n; ++j) elem(run + j * ebytes, i + j);
      } else {
        for (int j = 0; j < n; ++j)
          elem(resolve(w, in, in.space, a + static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(ebytes), static_cast<std::uint32_t>(ebytes), l, !is_load, &resolved), i + j);
      }
      i += n;
    }
    if (is_load)
      for (int r = 0; r < nregs; ++r) put(w, p.dst(in, r), l, vals[r]);
  }
  return resolved;
}

}  // namespace kernsim::sim
