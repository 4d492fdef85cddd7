// PTX arithmetic, logic, comparison, selection, moves and conversions.
#include <cfenv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "base/float16.h"
#include "base/float_format.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

using isa::ptx::BoolOp;
using isa::ptx::Cmp;
using isa::ptx::Rnd;
namespace P = isa::ptx;

namespace {

// ---- row access by value type --------------------------------------------------------------

template <class T> constexpr bool is64() { return sizeof(T) == 8; }

// .f32x2 (PTX 8.6, sm_100a): two f32 in a 64-bit register, element 0 in the low half; each element
// is the .f32 operation with the instruction's rounding (the caller's RoundingScope) and .ftz.
inline float f2lo(std::uint64_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v)); }
inline float f2hi(std::uint64_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v >> 32)); }
inline std::uint64_t f2pack(float lo, float hi) {
  return std::bit_cast<std::uint32_t>(lo) | (static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(hi)) << 32);
}

template <class T> struct Rows;

template <class T, class F>
void map1(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m, F f) {
  const Reg d = c.p.dst(in, 0), a = c.p.src(in, 0);
  if constexpr (is64<T>()) {
    std::uint64_t* D = c.row64(w, d);
    const std::uint64_t* A = c.row64(w, a);
    for_lanes(m, [&](int l) { D[l] = to64(f(from64<T>(A[l]))); });
  } else {
    std::uint32_t* D = c.row32(w, d);
    const std::uint32_t* A = c.row32(w, a);
    for_lanes(m, [&](int l) { D[l] = to32(f(from32<T>(A[l]))); });
  }
}

template <class T, class F>
void map2(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m, F f) {
  const Reg d = c.p.dst(in, 0), a = c.p.src(in, 0), b = c.p.src(in, 1);
  if constexpr (is64<T>()) {
    std::uint64_t* D = c.row64(w, d);
    const std::uint64_t *A = c.row64(w, a), *B = c.row64(w, b);
    for_lanes(m, [&](int l) { D[l] = to64(f(from64<T>(A[l]), from64<T>(B[l]))); });
  } else {
    std::uint32_t* D = c.row32(w, d);
    const std::uint32_t *A = c.row32(w, a), *B = c.row32(w, b);
    for_lanes(m, [&](int l) { D[l] = to32(f(from32<T>(A[l]), from32<T>(B[l]))); });
  }
}

template <class T, class F>
void map3(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m, F f) {
  const Reg d = c.p.dst(in, 0), a = c.p.src(in, 0), b = c.p.src(in, 1), cc = c.p.src(in, 2);
  if constexpr (is64<T>()) {
    std::uint64_t* D = c.row64(w, d);
    const std::uint64_t *A = c.row64(w, a), *B = c.row64(w, b), *C = c.row64(w, cc);
    for_lanes(m, [&](int l) { D[l] = to64(f(from64<T>(A[l]), from64<T>(B[l]), from64<T>(C[l]))); });
  } else {
    std::uint32_t* D = c.row32(w, d);
    const std::uint32_t *A = c.row32(w, a), *B = c.row32(w, b), *C = c.row32(w, cc);
    for_lanes(m, [&](int l) { D[l] = to32(f(from32<T>(A[l]), from32<T>(B[l]), from32<T>(C[l]))); });
  }
}

// Reads source i of lane l as an unsigned integer of the operand's bank width.
inline std::uint64_t srcv(PtxCta::Impl& c, Warp& w, const Inst& in, int i, int l) { return c.get(w, c.p.src(in, i), l); }

// ---- float helpers ---------------------------------------------------------------------------

inline float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

// ---- fused multiply-add over a full warp ---------------------------------------------------
// The build targets x86-64 without FMA, so std::fma is a libm call per lane. Where the CPU has the
// FMA instruction (checked once), a full warp's fma.rn runs as a loop the compiler vectorises with
// it. Both round once in the current rounding mode (RoundingScope): the same bits.

template <class T>
[[gnu::always_inline]] inline void fma_rows_body(T* D, const T* A, const T* B, const T* C, bool flush) {
  if constexpr (std::is_same_v<T, float>) {
    if (flush) {
      for (int l = 0; l < 32; ++l) D[l] = ftz(__builtin_fmaf(ftz(A[l]), ftz(B[l]), ftz(C[l])));
      return;
    }
    for (int l = 0; l < 32; ++l) D[l] = __builtin_fmaf(A[l], B[l], C[l]);
  } else {
    for (int l = 0; l < 32; ++l) D[l] = __builtin_fma(A[l], B[l], C[l]);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
[[gnu::target("fma")]] void fma_rows_hw(T* D, const T* A, const T* B, const T* C, bool flush) {
  fma_rows_body(D, A, B, C, flush);
}
bool cpu_has_fma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}
#else
bool cpu_has_fma() { return false; }
#endif

// D = A * B + C on every lane: register rows of 32 values of T (D may be one of the sources).
template <class T>
void fma_rows(void* D, const void* A, const void* B, const void* C, bool flush) {
  // copies: D may alias a source, and the loop reads each lane's sources before writing its D
  alignas(32) T a[32], b[32], c[32], d[32];
  std::memcpy(a, A, sizeof a);
  std::memcpy(b, B, sizeof b);
  std::memcpy(c, C, sizeof c);
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_fma()) fma_rows_hw(d, a, b, c, flush);
  else fma_rows_body(d, a, b, c, flush);
#else
  fma_rows_body(d, a, b, c, flush);
#endif
  std::memcpy(D, d, sizeof d);
}


class RoundingScope {
 public:
  explicit RoundingScope(Rnd r) {
    int mode = r == Rnd::Rz ? FE_TOWARDZERO : r == Rnd::Rm ? FE_DOWNWARD : r == Rnd::Rp ? FE_UPWARD : FE_TONEAREST;
    if (mode != FE_TONEAREST) { old_ = std::fegetround(); std::fesetround(mode); changed_ = true; }
  }
  ~RoundingScope() { if (changed_) std::fesetround(old_); }
 private:
  int old_ = FE_TONEAREST;
  bool changed_ = false;
};

template <class T> T fmin_ptx(T a, T b, bool nan_prop) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan_prop || (std::isnan(a) && std::isnan(b))) return std::numeric_limits<T>::quiet_NaN();
    return std::isnan(a) ? b : a;
  }
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T> T fmax_ptx(T a, T b, bool nan_prop) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan_prop || (std::isnan(a) && std::isnan(b))) return std::numeric_limits<T>::quiet_NaN();
    return std::isnan(a) ? b : a;
  }
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// 16-bit floats: a value type for half and bfloat16 lanes.
enum class HalfKind { F16, BF16 };
inline double h2d(std::uint16_t v, HalfKind k) { return k == HalfKind::F16 ? half_to_float(v) : bf16_to_float(v); }
inline std::uint16_t d2h(double v, HalfKind k, bool sat = false, bool relu = false) {
  if (relu && !(v >= 0) && !std::isnan(v)) v = 0;
  if (sat) v = std::isnan(v) ? 0.0 : std::min(1.0, std::max(0.0, v));
  return static_cast<std::uint16_t>(round_to_format(v, k == HalfKind::F16 ? FloatFormat::F16 : FloatFormat::BF16, RoundMode::NearestEven));
}

template <class F>
void half_op(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m, HalfKind k, int lanes, int nsrc, F f) {
  const bool sat = in.flags & P::kSat, relu = in.flags & P::kRelu;
  std::uint32_t* D = c.row32(w, c.p.dst(in, 0));
  const std::uint32_t* S[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < nsrc; ++i) S[i] = c.row32(w, c.p.src(in, i));
  for_lanes(m, [&](int l) {
    std::uint32_t out = 0;
    for (int h = 0; h < lanes; ++h) {
      double v[3] = {0, 0, 0};
      for (int i = 0; i < nsrc; ++i) v[i] = h2d(static_cast<std::uint16_t>(S[i][l] >> (16 * h)), k);
      out |= static_cast<std::uint32_t>(d2h(f(v[0], v[1], v[2]), k, sat, relu)) << (16 * h);
    }
    D[l] = out;
  });
}

// ---- comparisons -----------------------------------------------------------------------------

template <class T> bool compare(T a, T b, Cmp op) {
  if constexpr (std::is_floating_point_v<T>) {
    bool un = std::isnan(a) || std::isnan(b);
    switch (op) {
      case Cmp::Eq: return !un && a == b;
      case Cmp::Ne: return !un && a != b;
      case Cmp::Lt: return !un && a < b;
      case Cmp::Le: return !un && a <= b;
      case Cmp::Gt: return !un && a > b;
      case Cmp::Ge: return !un && a >= b;
      case Cmp::Equ: return un || a == b;
      case Cmp::Neu: return un || a != b;
      case Cmp::Ltu: return un || a < b;
      case Cmp::Leu: return un || a <= b;
      case Cmp::Gtu: return un || a > b;
      case Cmp::Geu: return un || a >= b;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case Cmp::Eq: return a == b;
      case Cmp::Ne: return a != b;
      case Cmp::Lt: return a < b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::Lo: return static_cast<U>(a) < static_cast<U>(b);
      case Cmp::Ls: return static_cast<U>(a) <= static_cast<U>(b);
      case Cmp::Hi: return static_cast<U>(a) > static_cast<U>(b);
      case Cmp::Hs: return static_cast<U>(a) >= static_cast<U>(b);
      default: return false;
    }
  }
}

template <class T>
std::uint32_t compare_mask(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m) {
  std::uint32_t r = 0;
  const Reg a = c.p.src(in, 0), b = c.p.src(in, 1);
  const bool flush = in.flags & P::kFtz;
  if constexpr (is64<T>()) {
    const std::uint64_t *A = c.row64(w, a), *B = c.row64(w, b);
    for_lanes(m, [&](int l) { r |= static_cast<std::uint32_t>(compare(from64<T>(A[l]), from64<T>(B[l]), in.cmp)) << l; });
  } else if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t *A = c.row32(w, a), *B = c.row32(w, b);
    for_lanes(m, [&](int l) {
      float x = from32<float>(A[l]), y = from32<float>(B[l]);
      if (flush) { x = ftz(x); y = ftz(y); }
      r |= static_cast<std::uint32_t>(compare(x, y, in.cmp)) << l;
    });
  } else {
    const std::uint32_t *A = c.row32(w, a), *B = c.row32(w, b);
    for_lanes(m, [&](int l) { r |= static_cast<std::uint32_t>(compare(from32<T>(A[l]), from32<T>(B[l]), in.cmp)) << l; });
  }
  return r;
}

std::uint32_t compare_half(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m, HalfKind k, int half) {
  std::uint32_t r = 0;
  const std::uint32_t *A = c.row32(w, c.p.src(in, 0)), *B = c.row32(w, c.p.src(in, 1));
  for_lanes(m, [&](int l) {
    double x = h2d(static_cast<std::uint16_t>(A[l] >> (16 * half)), k), y = h2d(static_cast<std::uint16_t>(B[l] >> (16 * half)), k);
    r |= static_cast<std::uint32_t>(compare(x, y, in.cmp)) << l;
  });
  return r;
}

std::uint32_t setp_mask(PtxCta::Impl& c, Warp& w, const Inst& in, std::uint32_t m, Ty t) {
  switch (t) {
    case Ty::S16: return compare_mask<std::int16_t>(c, w, in, m);
    case Ty::U16: case Ty::B16: return compare_mask<std::uint16_t>(c, w, in, m);
    case Ty::S32: return compare_mask<std::int32_t>(c, w, in, m);
    case Ty::U32: case Ty::B32: return compare_mask<std::uint32_t>(c, w, in, m);
    case Ty::S64: return compare_mask<std::int64_t>(c, w, in, m);
    case Ty::U64: case Ty::B64: return compare_mask<std::uint64_t>(c, w, in, m);
    case Ty::F32: return compare_mask<float>(c, w, in, m);
    case Ty::F64: return compare_mask<double>(c, w, in, m);
    case Ty::F16: return compare_half(c, w, in, m, HalfKind::F16, 0);
    case Ty::BF16: return compare_half(c, w, in, m, HalfKind::BF16, 0);
    case Ty::S8: return compare_mask<std::int8_t>(c, w, in, m);
    case Ty::U8: case Ty::B8: return compare_mask<std::uint8_t>(c, w, in, m);
    default: c.unsupported(in, std::string("setp on type .") + to_string(t));
  }
}

// ---- integer helpers -------------------------------------------------------------------------

template <class T> T sat_add(T a, T b) {
  using W = std::conditional_t<sizeof(T) == 8, __int128, std::int64_t>;
  W r = static_cast<W>(a) + static_cast<W>(b);
  if (r > std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  if (r < std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  return static_cast<T>(r);
}

template <class T> T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> 64);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> (8 * sizeof(T)));
  }
}

template <class T> T idiv(T a, T b) {
  if (b == 0) return static_cast<T>(~static_cast<std::make_unsigned_t<T>>(0));
  if constexpr (std::is_signed_v<T>) if (a == std::numeric_limits<T>::min() && b == -1) return a;
  return a / b;
}
template <class T> T irem(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) if (a == std::numeric_limits<T>::min() && b == -1) return 0;
  return a % b;
}

template <class T> T shl(T a, std::uint32_t s) { return s >= 8 * sizeof(T) ? T(0) : static_cast<T>(a << s); }
template <class T> T shr(T a, std::uint32_t s) {
  if (s >= 8 * sizeof(T)) return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
  return static_cast<T>(a >> s);
}

template <class U> U brev(U x) {
  U r = 0;
  for (std::size_t i = 0; i < 8 * sizeof(U); ++i) { r = static_cast<U>((r << 1) | (x & 1)); x >>= 1; }
  return r;
}

template <class T> T bfe(T a, std::uint32_t pos, std::uint32_t len) {
  using U = std::make_unsigned_t<T>;
  const std::uint32_t msb = 8 * sizeof(T) - 1;
  pos &= 0xff;
  len &= 0xff;
  bool sbit;
  if constexpr (std::is_signed_v<T>) {
    sbit = len == 0 ? false : ((static_cast<U>(a) >> std::min(pos + len - 1, msb)) & 1);
  } else {
    sbit = false;
  }
  U r = 0;
  for (std::uint32_t i = 0; i <= msb; ++i) {
    bool bit = (i < len && pos + i <= msb) ? ((static_cast<U>(a) >> (pos + i)) & 1) : sbit;
    r |= static_cast<U>(bit) << i;
  }
  return static_cast<T>(r);
}

template <class U> U bfi(U a, U b, std::uint32_t pos, std::uint32_t len) {
  const std::uint32_t bits = 8 * sizeof(U);
  pos &= 0xff;
  len &= 0xff;
  U r = b;
  for (std::uint32_t i = 0; i < len && pos + i < bits; ++i) {
    U bit = (a >> i) & 1;
    r = static_cast<U>((r & ~(U(1) << (pos + i))) | (bit << (pos + i)));
  }
  return r;
}

std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t mode) {
  std::uint64_t x = (static_cast<std::uint64_t>(b) << 32) | a;
  auto byte = [&](unsigned i) { return static_cast<std::uint32_t>((x >> (8 * (i & 7))) & 0xff); };
  std::uint32_t sel[4];
  switch (mode) {
    case 0: {  // default: 4 selectors of 4 bits (3 index + sign replicate)
      std::uint32_t r = 0;
      for (int i = 0; i < 4; ++i) {
        std::uint32_t s = (c >> (4 * i)) & 0xf;
        std::uint32_t v = byte(s & 7);
        if (s & 8) v = (v & 0x80) ? 0xff : 0;
        r |= v << (8 * i);
      }
      return r;
    }
    case 1: { unsigned n = c & 3; sel[0] = n; sel[1] = n + 1; sel[2] = n + 2; sel[3] = n + 3; break; }       // f4e
    case 2: { unsigned n = c & 3; sel[0] = n; sel[1] = (n - 1) & 7; sel[2] = (n - 2) & 7; sel[3] = (n - 3) & 7; break; }  // b4e
    case 3: { unsigned n = c & 3; sel[0] = sel[1] = sel[2] = sel[3] = n; break; }                              // rc8
    case 4: { unsigned n = c & 3; sel[0] = 0; sel[1] = n >= 1 ? 1 : 0; sel[2] = n >= 2 ? 2 : (n >= 1 ? 1 : 0); sel[3] = n; break; }  // ecl
    case 5: { unsigned n = c & 3; sel[3] = 3; sel[2] = n <= 2 ? 2 : 3; sel[1] = n <= 1 ? 1 : sel[2]; sel[0] = n; break; }  // ecr
    case 6: { unsigned n = c & 1; sel[0] = 2 * n; sel[1] = 2 * n + 1; sel[2] = 2 * n; sel[3] = 2 * n + 1; break; }  // rc16
    default: return 0;
  }
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= byte(sel[i]) << (8 * i);
  return r;
}

std::uint32_t lop3(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t lut) {
  std::uint32_t r = 0;
  if (lut & 0x01) r |= ~a & ~b & ~c;
  if (lut & 0x02) r |= ~a & ~b & c;
  if (lut & 0x04) r |= ~a & b & ~c;
  if (lut & 0x08) r |= ~a & b & c;
  if (lut & 0x10) r |= a & ~b & ~c;
  if (lut & 0x20) r |= a & ~b & c;
  if (lut & 0x40) r |= a & b & ~c;
  if (lut & 0x80) r |= a & b & c;
  return r;
}

// ---- dispatch by type ------------------------------------------------------------------------

#define KS_INT_TYPES(X)                                                                                 \
  case Ty::S8: X(std::int8_t); break;                                                                   \
  case Ty::U8: case Ty::B8: X(std::uint8_t); break;                                                     \
  case Ty::S16: X(std::int16_t); break;                                                                 \
  case Ty::U16: case Ty::B16: X(std::uint16_t); break;                                                  \
  case Ty::S32: X(std::int32_t); break;                                                                 \
  case Ty::U32: case Ty::B32: X(std::uint32_t); break;                                                  \
  case Ty::S64: X(std::int64_t); break;                                                                 \
  case Ty::U64: case Ty::B64: X(std::uint64_t); break;

}  // namespace

// ---------------------------------------------------------------------------------------------

void PtxCta::Impl::exec_alu(Warp& w, const Inst& in, std::uint32_t m) {
  const Ty t = in.type;
  const bool f32ftz = (in.flags & P::kFtz) && t == Ty::F32;
  auto float_unsupported = [&]() { unsupported(in, std::string(to_string(in.op)) + " on type ." + to_string(t)); };
  // predicate logic
  if (t == Ty::Pred && in.op != Op::Selp) {
    Reg d = p.dst(in, 0);
    // a source is a predicate register or an immediate 0/1 (the same in every lane)
    auto pmask = [&](Reg r) -> std::uint32_t { return r.bank == Bank::Pred ? predr(w, r) : (get(w, r, 0) & 1) ? ~0u : 0u; };
    std::uint32_t a = in.nsrc > 0 ? pmask(p.src(in, 0)) : 0;
    std::uint32_t b = in.nsrc > 1 ? pmask(p.src(in, 1)) : 0;
    std::uint32_t r;
    switch (in.op) {
      case Op::And: r = a & b; break;
      case Op::Or: r = a | b; break;
      case Op::Xor: r = a ^ b; break;
      case Op::Not: r = ~a; break;
      case Op::Mov:
        if (p.src(in, 0).bank == Bank::Pred) r = a;
        else { r = 0; for_lanes(m, [&](int l) { r |= static_cast<std::uint32_t>(get(w, p.src(in, 0), l) & 1) << l; }); }
        break;
      default: unsupported(in, std::string(to_string(in.op)) + ".pred");
    }
    std::uint32_t& dm = predr(w, d);
    dm = (dm & ~m) | (r & m);
    return;
  }

  if (t == Ty::F32x2) {
    const bool ftz2 = in.flags & P::kFtz;
    auto z = [&](float x) { return ftz2 ? ftz(x) : x; };
    if ((in.flags & P::kSat) || (in.op != Op::Add && in.op != Op::Sub && in.op != Op::Mul && in.op != Op::Fma))
      unsupported(in, std::string(to_string(in.op)) + ".f32x2" + ((in.flags & P::kSat) ? " with .sat" : ""));
    RoundingScope rs(in.rnd == Rnd::None ? Rnd::Rn : in.rnd);
    if (in.op == Op::Fma) {
      map3<std::uint64_t>(*this, w, in, m, [&](std::uint64_t a, std::uint64_t b, std::uint64_t c) {
        return f2pack(z(std::fma(z(f2lo(a)), z(f2lo(b)), z(f2lo(c)))), z(std::fma(z(f2hi(a)), z(f2hi(b)), z(f2hi(c)))));
      });
      return;
    }
    const Op op = in.op;
    auto f = [&](float a, float b) { a = z(a); b = z(b); return z(op == Op::Add ? a + b : op == Op::Sub ? a - b : a * b); };
    map2<std::uint64_t>(*this, w, in, m,
                        [&](std::uint64_t a, std::uint64_t b) { return f2pack(f(f2lo(a), f2lo(b)), f(f2hi(a), f2hi(b))); });
    return;
  }

  switch (in.op) {
    case Op::Add:
    case Op::Sub: {
      const bool sub = in.op == Op::Sub;
      if (t == Ty::F32) {
        if (in.rnd == Rnd::None || in.rnd == Rnd::Rn) {
          if (f32ftz) map2<float>(*this, w, in, m, [&](float a, float b) { return ftz(sub ? ftz(a) - ftz(b) : ftz(a) + ftz(b)); });
          else if (sub) map2<float>(*this, w, in, m, [](float a, float b) { return a - b; });
          else map2<float>(*this, w, in, m, [](float a, float b) { return a + b; });
        } else {
          RoundingScope rs(in.rnd);
          map2<float>(*this, w, in, m, [&](float a, float b) { return sub ? a - b : a + b; });
        }
        if (in.flags & P::kSat) map1<float>(*this, w, in, m, [](float x) { return std::isnan(x) ? 0.0f : std::fmin(1.0f, std::fmax(0.0f, x)); });
        return;
      }
      if (t == Ty::F64) {
        RoundingScope rs(in.rnd);
        map2<double>(*this, w, in, m, [&](double a, double b) { return sub ? a - b : a + b; });
        return;
      }
      if (t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2) {
        HalfKind k = (t == Ty::F16 || t == Ty::F16x2) ? HalfKind::F16 : HalfKind::BF16;
        half_op(*this, w, in, m, k, (t == Ty::F16x2 || t == Ty::BF16x2) ? 2 : 1, 2, [&](double a, double b, double) { return sub ? a - b : a + b; });
        return;
      }
      if (in.flags & (P::kCarryIn | P::kCarryOut)) {
        // extended-precision add/sub with the carry flag (32/64-bit)
        const Reg d = p.dst(in, 0);
        for_lanes(m, [&](int l) {
          std::uint64_t a = srcv(*this, w, in, 0, l), b = srcv(*this, w, in, 1, l);
          unsigned cin = (in.flags & P::kCarryIn) ? ((w.carry >> l) & 1) : (sub ? 0 : 0);
          unsigned __int128 r;
          bool cout;
          if (ty_bits(t) == 64) {
            if (!sub) { r = static_cast<unsigned __int128>(a) + b + cin; cout = (r >> 64) & 1; }
            else { unsigned borrow_in = (in.flags & P::kCarryIn) ? cin : 0; r = static_cast<unsigned __int128>(a) - b - borrow_in; cout = a < static_cast<unsigned __int128>(b) + borrow_in; }
            put(w, d, l, static_cast<std::uint64_t>(r));
          } else {
            std::uint32_t a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
            if (!sub) { std::uint64_t s = std::uint64_t{a32} + b32 + cin; cout = s >> 32; put(w, d, l, static_cast<std::uint32_t>(s)); }
            else { std::uint64_t bi = std::uint64_t{b32} + cin; cout = a32 < bi; put(w, d, l, static_cast<std::uint32_t>(a32 - b32 - cin)); }
          }
          if (in.flags & P::kCarryOut) w.carry = (w.carry & ~(1u << l)) | (static_cast<std::uint32_t>(cout) << l);
        });
        return;
      }
      if ((in.flags & P::kSat) && t == Ty::S32) {
        map2<std::int32_t>(*this, w, in, m, [&](std::int32_t a, std::int32_t b) {
          std::int64_t r = sub ? std::int64_t{a} - b : std::int64_t{a} + b;
          return static_cast<std::int32_t>(std::max<std::int64_t>(INT32_MIN, std::min<std::int64_t>(INT32_MAX, r)));
        });
        return;
      }
// in the unsigned type: PTX wraps, and a signed overflow in C++ is undefined (UBSan found add.s32's)
#define X(T) { using U = std::make_unsigned_t<T>; \
             if (sub) map2<T>(*this, w, in, m, [](T a, T b) { return static_cast<T>(static_cast<U>(a) - static_cast<U>(b)); }); \
             else map2<T>(*this, w, in, m, [](T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); }); }
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    }
    case Op::Mul: {
      if (t == Ty::F32) {
        RoundingScope rs(in.rnd);
        if (f32ftz) map2<float>(*this, w, in, m, [](float a, float b) { return ftz(ftz(a) * ftz(b)); });
        else map2<float>(*this, w, in, m, [](float a, float b) { return a * b; });
        if (in.flags & P::kSat) map1<float>(*this, w, in, m, [](float x) { return std::isnan(x) ? 0.0f : std::fmin(1.0f, std::fmax(0.0f, x)); });
        return;
      }
      if (t == Ty::F64) { RoundingScope rs(in.rnd); map2<double>(*this, w, in, m, [](double a, double b) { return a * b; }); return; }
      if (t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2) {
        HalfKind k = (t == Ty::F16 || t == Ty::F16x2) ? HalfKind::F16 : HalfKind::BF16;
        half_op(*this, w, in, m, k, (t == Ty::F16x2 || t == Ty::BF16x2) ? 2 : 1, 2, [](double a, double b, double) { return a * b; });
        return;
      }
      const Reg d = p.dst(in, 0);
      const int bits = ty_bits(t);
      const bool sgn = P::ty_is_signed(t);
      if (in.flags & P::kWide) {
        for_lanes(m, [&](int l) {
          std::uint64_t a = srcv(*this, w, in, 0, l), b = srcv(*this, w, in, 1, l);
          std::uint64_t r;
          if (bits == 32) r = sgn ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)) * static_cast<std::int32_t>(b))
                                  : std::uint64_t{static_cast<std::uint32_t>(a)} * static_cast<std::uint32_t>(b);
          else if (bits == 16) r = sgn ? static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(a)) * static_cast<std::int16_t>(b))
                                       : static_cast<std::uint32_t>(static_cast<std::uint16_t>(a)) * static_cast<std::uint16_t>(b);
          else unsupported(in, "mul.wide on 64-bit operands");
          put(w, d, l, r);
        });
        return;
      }
      if (in.flags & P::kHi) {
#define X(T) map2<T>(*this, w, in, m, [](T a, T b) { return mul_hi<T>(a, b); })
        switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
        return;
      }
#define X(T) map2<T>(*this, w, in, m, [](T a, T b) { return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b)); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    }
    case Op::Mul24:
    case Op::Mad24: {
      const bool sgn = t == Ty::S32;
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) {
        std::uint32_t a = static_cast<std::uint32_t>(srcv(*this, w, in, 0, l)), b = static_cast<std::uint32_t>(srcv(*this, w, in, 1, l));
        std::int64_t pa = sgn ? (static_cast<std::int32_t>(a << 8) >> 8) : (a & 0xffffff);
        std::int64_t pb = sgn ? (static_cast<std::int32_t>(b << 8) >> 8) : (b & 0xffffff);
        std::int64_t prod = pa * pb;
        std::uint32_t r = (in.flags & P::kHi) ? static_cast<std::uint32_t>(prod >> 16) : static_cast<std::uint32_t>(prod);
        if (in.op == Op::Mad24) r += static_cast<std::uint32_t>(srcv(*this, w, in, 2, l));
        put(w, d, l, r);
      });
      return;
    }
    case Op::Mad:
    case Op::Fma: {
      if (t == Ty::F32) {
        RoundingScope rs(in.rnd);
        if (m == kFullMask) {
          fma_rows<float>(row32(w, p.dst(in, 0)), row32(w, p.src(in, 0)), row32(w, p.src(in, 1)), row32(w, p.src(in, 2)), f32ftz);
        } else if (f32ftz) {
          map3<float>(*this, w, in, m, [](float a, float b, float c) { return ftz(std::fma(ftz(a), ftz(b), ftz(c))); });
        } else {
          map3<float>(*this, w, in, m, [](float a, float b, float c) { return std::fma(a, b, c); });
        }
        if (in.flags & P::kSat) map1<float>(*this, w, in, m, [](float x) { return std::isnan(x) ? 0.0f : std::fmin(1.0f, std::fmax(0.0f, x)); });
        return;
      }
      if (t == Ty::F64) {
        RoundingScope rs(in.rnd);
        if (m == kFullMask)
          fma_rows<double>(row64(w, p.dst(in, 0)), row64(w, p.src(in, 0)), row64(w, p.src(in, 1)), row64(w, p.src(in, 2)), false);
        else
          map3<double>(*this, w, in, m, [](double a, double b, double c) { return std::fma(a, b, c); });
        return;
      }
      if (t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2) {
        HalfKind k = (t == Ty::F16 || t == Ty::F16x2) ? HalfKind::F16 : HalfKind::BF16;
        half_op(*this, w, in, m, k, (t == Ty::F16x2 || t == Ty::BF16x2) ? 2 : 1, 3, [](double a, double b, double c) { return std::fma(a, b, c); });
        return;
      }
      const Reg d = p.dst(in, 0);
      const int bits = ty_bits(t);
      const bool sgn = P::ty_is_signed(t);
      if (in.flags & P::kWide) {
        for_lanes(m, [&](int l) {
          std::uint64_t a = srcv(*this, w, in, 0, l), b = srcv(*this, w, in, 1, l), c = srcv(*this, w, in, 2, l);
          std::uint64_t r;
          if (bits == 32) r = sgn ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)) * static_cast<std::int32_t>(b))
                                  : std::uint64_t{static_cast<std::uint32_t>(a)} * static_cast<std::uint32_t>(b);
          else if (bits == 16) r = sgn ? static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(a)) * static_cast<std::int16_t>(b))
                                       : static_cast<std::uint32_t>(static_cast<std::uint16_t>(a)) * static_cast<std::uint16_t>(b);
          else unsupported(in, "mad.wide on 64-bit operands");
          if (in.flags & (P::kCarryIn | P::kCarryOut)) unsupported(in, "mad.wide with carry");
          put(w, d, l, r + c);
        });
        return;
      }
      if (in.flags & (P::kCarryIn | P::kCarryOut)) {
        for_lanes(m, [&](int l) {
          std::uint64_t a = srcv(*this, w, in, 0, l), b = srcv(*this, w, in, 1, l), c = srcv(*this, w, in, 2, l);
          unsigned cin = (in.flags & P::kCarryIn) ? ((w.carry >> l) & 1) : 0;
          unsigned __int128 prod;
          if (bits == 64) {
            using W = unsigned __int128;
            prod = (in.flags & P::kHi) ? (sgn ? static_cast<W>((static_cast<__int128>(static_cast<std::int64_t>(a)) * static_cast<std::int64_t>(b)) >> 64)
                                              : (static_cast<W>(a) * b) >> 64)
                                       : static_cast<W>(static_cast<std::uint64_t>(a * b));
            prod &= ~std::uint64_t{0};
            unsigned __int128 s = prod + c + cin;
            put(w, d, l, static_cast<std::uint64_t>(s));
            if (in.flags & P::kCarryOut) w.carry = (w.carry & ~(1u << l)) | (static_cast<std::uint32_t>((s >> 64) & 1) << l);
          } else {
            std::uint64_t pr = (in.flags & P::kHi) ? (sgn ? static_cast<std::uint64_t>((static_cast<std::int64_t>(static_cast<std::int32_t>(a)) * static_cast<std::int32_t>(b)) >> 32) & 0xffffffffu
                                                          : ((a & 0xffffffffu) * (b & 0xffffffffu)) >> 32)
                                                   : static_cast<std::uint32_t>(a * b);
            std::uint64_t s = pr + (c & 0xffffffffu) + cin;
            put(w, d, l, static_cast<std::uint32_t>(s));
            if (in.flags & P::kCarryOut) w.carry = (w.carry & ~(1u << l)) | (static_cast<std::uint32_t>((s >> 32) & 1) << l);
          }
        });
        return;
      }
      if (in.flags & P::kHi) {
#define X(T) map3<T>(*this, w, in, m, [](T a, T b, T c) { using U = std::make_unsigned_t<T>; return static_cast<T>(static_cast<U>(mul_hi<T>(a, b)) + static_cast<U>(c)); })
        switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
        return;
      }
#define X(T) map3<T>(*this, w, in, m, [](T a, T b, T c) { using U = std::make_unsigned_t<T>; return static_cast<T>(static_cast<U>(a) * static_cast<U>(b) + static_cast<U>(c)); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    }
    case Op::Sad: {
#define X(T) map3<T>(*this, w, in, m, [](T a, T b, T c) { using U = std::make_unsigned_t<T>; return static_cast<T>((a < b ? static_cast<U>(b) - static_cast<U>(a) : static_cast<U>(a) - static_cast<U>(b)) + static_cast<U>(c)); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    }
    case Op::Div:
      if (t == Ty::F32) {
        RoundingScope rs(in.rnd);
        if (f32ftz) map2<float>(*this, w, in, m, [](float a, float b) { return ftz(ftz(a) / ftz(b)); });
        else map2<float>(*this, w, in, m, [](float a, float b) { return a / b; });
        return;
      }
      if (t == Ty::F64) { RoundingScope rs(in.rnd); map2<double>(*this, w, in, m, [](double a, double b) { return a / b; }); return; }
#define X(T) map2<T>(*this, w, in, m, [](T a, T b) { return idiv<T>(a, b); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    case Op::Rem:
#define X(T) map2<T>(*this, w, in, m, [](T a, T b) { return irem<T>(a, b); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    case Op::Abs:
    case Op::Neg: {
      const bool neg = in.op == Op::Neg;
      if (t == Ty::F32) { map1<float>(*this, w, in, m, [&](float a) { a = f32ftz ? ftz(a) : a; return neg ? -a : std::fabs(a); }); return; }
      if (t == Ty::F64) { map1<double>(*this, w, in, m, [&](double a) { return neg ? -a : std::fabs(a); }); return; }
      if (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2) {
        std::uint32_t mask = (t == Ty::F16x2 || t == Ty::BF16x2) ? 0x80008000u : 0x8000u;
        map1<std::uint32_t>(*this, w, in, m, [&](std::uint32_t a) { return neg ? a ^ mask : a & ~mask; });
        return;
      }
#define X(T) map1<T>(*this, w, in, m, [&](T a) { using U = std::make_unsigned_t<T>; return neg ? static_cast<T>(U(0) - static_cast<U>(a)) : (a < 0 ? static_cast<T>(U(0) - static_cast<U>(a)) : a); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    }
    case Op::Min:
    case Op::Max: {
      const bool mn = in.op == Op::Min;
      const bool nan = in.flags & P::kNaN;
      if (in.nsrc == 3) {  // PTX 8.0's three-input form: min/max of a, b and c, NaN rules as for two
        if (t == Ty::F32 && !(in.flags & P::kXorsign) && !(in.flags & P::kRelu)) {
          map3<float>(*this, w, in, m, [&](float a, float b, float c) {
            if (f32ftz) { a = ftz(a); b = ftz(b); c = ftz(c); }
            return mn ? fmin_ptx(fmin_ptx(a, b, nan), c, nan) : fmax_ptx(fmax_ptx(a, b, nan), c, nan);
          });
          return;
        }
        if ((in.flags & P::kRelu) || (in.flags & P::kXorsign) || P::ty_is_float(t))
          unsupported(in, "three-input min/max on type ." + std::string(to_string(t)) + " or with .relu/.xorsign");
#define X(T) map3<T>(*this, w, in, m, [&](T a, T b, T c) { return mn ? std::min({a, b, c}) : std::max({a, b, c}); })
        switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
        return;
      }
      if (t == Ty::F32) {
        map2<float>(*this, w, in, m, [&](float a, float b) {
          if (f32ftz) { a = ftz(a); b = ftz(b); }
          float r = mn ? fmin_ptx(a, b, nan) : fmax_ptx(a, b, nan);
          if (in.flags & P::kXorsign) r = std::copysign(std::fabs(r), (std::signbit(a) != std::signbit(b)) ? -1.0f : 1.0f);
          return r;
        });
        return;
      }
      if (t == Ty::F64) { map2<double>(*this, w, in, m, [&](double a, double b) { return mn ? fmin_ptx(a, b, nan) : fmax_ptx(a, b, nan); }); return; }
      if (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2) {
        HalfKind k = (t == Ty::F16 || t == Ty::F16x2) ? HalfKind::F16 : HalfKind::BF16;
        half_op(*this, w, in, m, k, (t == Ty::F16x2 || t == Ty::BF16x2) ? 2 : 1, 2,
                [&](double a, double b, double) { return mn ? fmin_ptx(a, b, nan) : fmax_ptx(a, b, nan); });
        return;
      }
      if (in.flags & P::kRelu) {
        if (t != Ty::S32) unsupported(in, "min/max .relu on this type");
        map2<std::int32_t>(*this, w, in, m, [&](std::int32_t a, std::int32_t b) { return std::max(0, mn ? std::min(a, b) : std::max(a, b)); });
        return;
      }
#define X(T) map2<T>(*this, w, in, m, [&](T a, T b) { return mn ? std::min(a, b) : std::max(a, b); })
      switch (t) { KS_INT_TYPES(X) default: float_unsupported(); }
#undef X
      return;
    }
    case Op::Popc:
    case Op::Clz:
    case Op::Brev:
    case Op::Bfind:
    case Op::Not:
    case Op::Cnot: {
      const Reg d = p.dst(in, 0);
      const int bits = ty_bits(t);
      for_lanes(m, [&](int l) {
        std::uint64_t a = srcv(*this, w, in, 0, l);
        if (bits == 32) a &= 0xffffffffu;
        if (bits == 16) a &= 0xffffu;
        std::uint64_t r = 0;
        switch (in.op) {
          case Op::Popc: r = static_cast<std::uint64_t>(std::popcount(a)); break;
          case Op::Clz: r = bits == 64 ? static_cast<std::uint64_t>(std::countl_zero(a)) : static_cast<std::uint64_t>(std::countl_zero(static_cast<std::uint32_t>(a))); break;
          case Op::Brev: r = bits == 64 ? brev<std::uint64_t>(a) : brev<std::uint32_t>(static_cast<std::uint32_t>(a)); break;
          case Op::Bfind: {
            std::uint64_t x = a;
            if (P::ty_is_signed(t)) {
              bool negv = bits == 64 ? static_cast<std::int64_t>(a) < 0 : static_cast<std::int32_t>(a) < 0;
              if (negv) x = bits == 64 ? ~a : (~a & 0xffffffffu);
            }
            if (x == 0) { r = 0xffffffffu; break; }
            std::uint64_t pos = 63 - static_cast<std::uint64_t>(std::countl_zero(x));
            r = (in.flags & P::kShiftLeft) ? static_cast<std::uint64_t>(bits - 1) - pos : pos;
            break;
          }
          case Op::Not: r = ~a; break;
          case Op::Cnot: r = a == 0 ? 1 : 0; break;
          default: break;
        }
        if (in.op == Op::Not && bits < 64) r &= (bits == 32 ? 0xffffffffull : (1ull << bits) - 1);
        put(w, d, l, r);
      });
      return;
    }
    case Op::And:
    case Op::Or:
    case Op::Xor: {
      if (ty_bits(t) == 64) {
        if (in.op == Op::And) map2<std::uint64_t>(*this, w, in, m, [](std::uint64_t a, std::uint64_t b) { return a & b; });
        else if (in.op == Op::Or) map2<std::uint64_t>(*this, w, in, m, [](std::uint64_t a, std::uint64_t b) { return a | b; });
        else map2<std::uint64_t>(*this, w, in, m, [](std::uint64_t a, std::uint64_t b) { return a ^ b; });
      } else {
        // 8/16-bit operands live in 32-bit rows: keep the result to the type's width (masking
        // the result, not re-reading the first source, which would overwrite it)
        const std::uint32_t keep = ty_bits(t) >= 32 ? 0xffffffffu : (1u << ty_bits(t)) - 1;
        if (in.op == Op::And) map2<std::uint32_t>(*this, w, in, m, [keep](std::uint32_t a, std::uint32_t b) { return (a & b) & keep; });
        else if (in.op == Op::Or) map2<std::uint32_t>(*this, w, in, m, [keep](std::uint32_t a, std::uint32_t b) { return (a | b) & keep; });
        else map2<std::uint32_t>(*this, w, in, m, [keep](std::uint32_t a, std::uint32_t b) { return (a ^ b) & keep; });
      }
      return;
    }
    case Op::Shl:
    case Op::Shr: {
      const Reg d = p.dst(in, 0);
      const Reg a = p.src(in, 0), b = p.src(in, 1);
      const bool left = in.op == Op::Shl;
      const std::uint32_t* B = row32(w, b);
      if (ty_bits(t) == 64) {
        std::uint64_t* D = row64(w, d);
        const std::uint64_t* A = row64(w, a);
        if (left) for_lanes(m, [&](int l) { D[l] = shl<std::uint64_t>(A[l], B[l]); });
        else if (P::ty_is_signed(t)) for_lanes(m, [&](int l) { D[l] = static_cast<std::uint64_t>(shr<std::int64_t>(static_cast<std::int64_t>(A[l]), B[l])); });
        else for_lanes(m, [&](int l) { D[l] = shr<std::uint64_t>(A[l], B[l]); });
      } else if (ty_bits(t) == 32) {
        std::uint32_t* D = row32(w, d);
        const std::uint32_t* A = row32(w, a);
        if (left) for_lanes(m, [&](int l) { D[l] = shl<std::uint32_t>(A[l], B[l]); });
        else if (P::ty_is_signed(t)) for_lanes(m, [&](int l) { D[l] = static_cast<std::uint32_t>(shr<std::int32_t>(static_cast<std::int32_t>(A[l]), B[l])); });
        else for_lanes(m, [&](int l) { D[l] = shr<std::uint32_t>(A[l], B[l]); });
      } else {
        std::uint32_t* D = row32(w, d);
        const std::uint32_t* A = row32(w, a);
        if (left) for_lanes(m, [&](int l) { D[l] = shl<std::uint16_t>(static_cast<std::uint16_t>(A[l]), B[l]); });
        else if (P::ty_is_signed(t)) for_lanes(m, [&](int l) { D[l] = static_cast<std::uint16_t>(shr<std::int16_t>(static_cast<std::int16_t>(A[l]), B[l])); });
        else for_lanes(m, [&](int l) { D[l] = shr<std::uint16_t>(static_cast<std::uint16_t>(A[l]), B[l]); });
      }
      return;
    }
    case Op::Shf: {
      const bool left = in.flags & P::kShiftLeft, clamp = in.flags & P::kShiftClamp;
      map3<std::uint32_t>(*this, w, in, m, [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        std::uint32_t n = clamp ? std::min<std::uint32_t>(c, 32) : (c & 31);
        std::uint64_t x = (static_cast<std::uint64_t>(b) << 32) | a;
        return left ? static_cast<std::uint32_t>((x << n) >> 32) : static_cast<std::uint32_t>(x >> n);
      });
      return;
    }
    case Op::Bfe: {
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) {
        std::uint64_t a = srcv(*this, w, in, 0, l);
        std::uint32_t pos = static_cast<std::uint32_t>(srcv(*this, w, in, 1, l)), len = static_cast<std::uint32_t>(srcv(*this, w, in, 2, l));
        std::uint64_t r;
        switch (t) {
          case Ty::S32: r = static_cast<std::uint32_t>(bfe<std::int32_t>(static_cast<std::int32_t>(a), pos, len)); break;
          case Ty::U32: case Ty::B32: r = bfe<std::uint32_t>(static_cast<std::uint32_t>(a), pos, len); break;
          case Ty::S64: r = static_cast<std::uint64_t>(bfe<std::int64_t>(static_cast<std::int64_t>(a), pos, len)); break;
          default: r = bfe<std::uint64_t>(a, pos, len);
        }
        put(w, d, l, r);
      });
      return;
    }
    case Op::Bfi: {
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) {
        std::uint64_t a = srcv(*this, w, in, 0, l), b = srcv(*this, w, in, 1, l);
        std::uint32_t pos = static_cast<std::uint32_t>(srcv(*this, w, in, 2, l)), len = static_cast<std::uint32_t>(srcv(*this, w, in, 3, l));
        put(w, d, l, ty_bits(t) == 64 ? bfi<std::uint64_t>(a, b, pos, len)
                                      : bfi<std::uint32_t>(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), pos, len));
      });
      return;
    }
    case Op::Prmt:
      map3<std::uint32_t>(*this, w, in, m, [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) { return prmt(a, b, c, in.imm); });
      return;
    case Op::Lop3:
      map3<std::uint32_t>(*this, w, in, m, [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) { return lop3(a, b, c, in.imm); });
      return;
    case Op::Dp4a:
    case Op::Dp2a: {
      const bool as = t == Ty::S32, bs = in.type2 == Ty::S32;
      const bool dp4 = in.op == Op::Dp4a;
      const bool hi = in.flags & P::kHi;
      map3<std::uint32_t>(*this, w, in, m, [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        std::int64_t acc = static_cast<std::int32_t>(c);
        if (dp4) {
          for (int i = 0; i < 4; ++i) {
            std::int64_t x = as ? static_cast<std::int8_t>(a >> (8 * i)) : static_cast<std::uint8_t>(a >> (8 * i));
            std::int64_t y = bs ? static_cast<std::int8_t>(b >> (8 * i)) : static_cast<std::uint8_t>(b >> (8 * i));
            acc += x * y;
          }
        } else {
          for (int i = 0; i < 2; ++i) {
            std::int64_t x = as ? static_cast<std::int16_t>(a >> (16 * i)) : static_cast<std::uint16_t>(a >> (16 * i));
            int bi = (hi ? 2 : 0) + i;
            std::int64_t y = bs ? static_cast<std::int8_t>(b >> (8 * bi)) : static_cast<std::uint8_t>(b >> (8 * bi));
            acc += x * y;
          }
        }
        return static_cast<std::uint32_t>(acc);
      });
      return;
    }
    case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Sin: case Op::Cos: case Op::Lg2: case Op::Ex2: case Op::Tanh: {
      if (t == Ty::F32) {
        map1<float>(*this, w, in, m, [&](float a) {
          if (f32ftz) a = ftz(a);
          float r;
          switch (in.op) {
            case Op::Rcp: r = 1.0f / a; break;
            case Op::Sqrt: r = std::sqrt(a); break;
            case Op::Rsqrt: r = 1.0f / std::sqrt(a); break;
            case Op::Sin: r = std::sin(a); break;
            case Op::Cos: r = std::cos(a); break;
            case Op::Lg2: r = std::log2(a); break;
            case Op::Ex2: r = std::exp2(a); break;
            default: r = std::tanh(a); break;
          }
          return f32ftz ? ftz(r) : r;
        });
        return;
      }
      if (t == Ty::F64) {
        map1<double>(*this, w, in, m, [&](double a) {
          switch (in.op) {
            case Op::Rcp: return 1.0 / a;
            case Op::Sqrt: return std::sqrt(a);
            case Op::Rsqrt: return 1.0 / std::sqrt(a);
            case Op::Sin: return std::sin(a);
            case Op::Cos: return std::cos(a);
            case Op::Lg2: return std::log2(a);
            case Op::Ex2: return std::exp2(a);
            default: return std::tanh(a);
          }
        });
        return;
      }
      if (t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2) {
        HalfKind k = (t == Ty::F16 || t == Ty::F16x2) ? HalfKind::F16 : HalfKind::BF16;
        half_op(*this, w, in, m, k, (t == Ty::F16x2 || t == Ty::BF16x2) ? 2 : 1, 1, [&](double a, double, double) {
          switch (in.op) {
            case Op::Rcp: return 1.0 / a;
            case Op::Sqrt: return std::sqrt(a);
            case Op::Rsqrt: return 1.0 / std::sqrt(a);
            case Op::Sin: return std::sin(a);
            case Op::Cos: return std::cos(a);
            case Op::Lg2: return std::log2(a);
            case Op::Ex2: return std::exp2(a);
            default: return std::tanh(a);
          }
        });
        return;
      }
      float_unsupported();
      return;
    }
    case Op::Copysign:
      if (t == Ty::F32) map2<float>(*this, w, in, m, [](float a, float b) { return std::copysign(b, a); });
      else if (t == Ty::F64) map2<double>(*this, w, in, m, [](double a, double b) { return std::copysign(b, a); });
      else float_unsupported();
      return;
    case Op::Testp: {
      const Reg d = p.dst(in, 0);
      std::uint32_t r = 0;
      for_lanes(m, [&](int l) {
        double v = t == Ty::F32 ? static_cast<double>(from32<float>(static_cast<std::uint32_t>(srcv(*this, w, in, 0, l))))
                                : from64<double>(srcv(*this, w, in, 0, l));
        int cls = std::fpclassify(t == Ty::F32 ? static_cast<double>(static_cast<float>(v)) : v);
        if (t == Ty::F32) cls = std::fpclassify(static_cast<float>(v));
        bool b = false;
        switch (static_cast<P::TestpKind>(in.sub)) {
          case P::TestpKind::Finite: b = std::isfinite(v); break;
          case P::TestpKind::Infinite: b = std::isinf(v); break;
          case P::TestpKind::Number: b = !std::isnan(v); break;
          case P::TestpKind::NotANumber: b = std::isnan(v); break;
          case P::TestpKind::Normal: b = cls == FP_NORMAL; break;
          case P::TestpKind::Subnormal: b = cls == FP_SUBNORMAL; break;
        }
        r |= static_cast<std::uint32_t>(b) << l;
      });
      std::uint32_t& dm = predr(w, d);
      dm = (dm & ~m) | r;
      return;
    }
    case Op::Setp: {
      std::uint32_t r;
      if (t == Ty::F16x2 || t == Ty::BF16x2) {
        HalfKind k = t == Ty::F16x2 ? HalfKind::F16 : HalfKind::BF16;
        std::uint32_t lo = compare_half(*this, w, in, m, k, 0), hi = compare_half(*this, w, in, m, k, 1);
        // setp.f16x2 p|q: p = low half, q = high half
        auto combine = [&](std::uint32_t x) {
          if (in.boolop == BoolOp::None) return x;
          std::uint32_t c = predr(w, p.src(in, 2));
          if (in.imm) c = ~c;
          return in.boolop == BoolOp::And ? (x & c) : in.boolop == BoolOp::Or ? (x | c) : (x ^ c);
        };
        std::uint32_t& pd = predr(w, p.dst(in, 0));
        pd = (pd & ~m) | (combine(lo) & m);
        if (p.dst(in, 1).bank == Bank::Pred) {
          std::uint32_t& qd = predr(w, p.dst(in, 1));
          qd = (qd & ~m) | (combine(hi) & m);
        }
        return;
      }
      r = setp_mask(*this, w, in, m, t);
      std::uint32_t q = ~r;
      if (in.boolop != BoolOp::None) {
        std::uint32_t c = predr(w, p.src(in, 2));
        if (in.imm) c = ~c;
        switch (in.boolop) {
          case BoolOp::And: r &= c; q &= c; break;
          case BoolOp::Or: r |= c; q |= c; break;
          case BoolOp::Xor: r ^= c; q ^= c; break;
          default: break;
        }
      }
      std::uint32_t& pd = predr(w, p.dst(in, 0));
      pd = (pd & ~m) | (r & m);
      if (p.dst(in, 1).bank == Bank::Pred) {
        std::uint32_t& qd = predr(w, p.dst(in, 1));
        qd = (qd & ~m) | (q & m);
      }
      return;
    }
    case Op::Set: {
      std::uint32_t r = setp_mask(*this, w, in, m, in.type2);
      if (in.boolop != BoolOp::None) {
        std::uint32_t c = predr(w, p.src(in, 2));
        if (in.imm) c = ~c;
        r = in.boolop == BoolOp::And ? (r & c) : in.boolop == BoolOp::Or ? (r | c) : (r ^ c);
      }
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) {
        bool b = (r >> l) & 1;
        put(w, d, l, t == Ty::F32 ? (b ? 0x3f800000u : 0u) : (b ? 0xffffffffu : 0u));
      });
      return;
    }
    case Op::Selp: {
      std::uint32_t pv = predr(w, p.src(in, 2));
      if (in.imm) pv = ~pv;
      if (t == Ty::Pred) {
        std::uint32_t a = predr(w, p.src(in, 0)), b = predr(w, p.src(in, 1));
        std::uint32_t& dm = predr(w, p.dst(in, 0));
        dm = (dm & ~m) | (((a & pv) | (b & ~pv)) & m);
        return;
      }
      if (ty_bits(t) == 64) {
        std::uint64_t* D = row64(w, p.dst(in, 0));
        const std::uint64_t *A = row64(w, p.src(in, 0)), *B = row64(w, p.src(in, 1));
        for_lanes(m, [&](int l) { D[l] = (pv >> l & 1) ? A[l] : B[l]; });
      } else {
        std::uint32_t* D = row32(w, p.dst(in, 0));
        const std::uint32_t *A = row32(w, p.src(in, 0)), *B = row32(w, p.src(in, 1));
        for_lanes(m, [&](int l) { D[l] = (pv >> l & 1) ? A[l] : B[l]; });
      }
      return;
    }
    case Op::Slct: {
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) {
        std::uint32_t c = static_cast<std::uint32_t>(srcv(*this, w, in, 2, l));
        bool ge = in.type2 == Ty::F32 ? !(from32<float>(c) < 0.0f) : static_cast<std::int32_t>(c) >= 0;
        put(w, d, l, srcv(*this, w, in, ge ? 0 : 1, l));
      });
      return;
    }
    case Op::Mov: {
      if (in.vec > 1 && in.ndst > 1) {
        // unpack {a, b, ...} <- wide
        const int n = in.ndst;
        const int ew = ty_bits(t) / n;
        for_lanes(m, [&](int l) {
          std::uint64_t v = srcv(*this, w, in, 0, l);
          for (int i = 0; i < n; ++i) {
            std::uint64_t part = ew == 64 ? v : (v >> (ew * i)) & ((1ull << ew) - 1);
            put(w, p.dst(in, i), l, part);
          }
        });
        return;
      }
      if (in.vec > 1) {
        const int n = in.nsrc;
        const int ew = ty_bits(t) / n;
        const Reg d = p.dst(in, 0);
        for_lanes(m, [&](int l) {
          std::uint64_t v = 0;
          for (int i = 0; i < n; ++i) {
            std::uint64_t part = srcv(*this, w, in, i, l);
            if (ew < 64) part &= (1ull << ew) - 1;
            v |= part << (ew * i);
          }
          put(w, d, l, v);
        });
        return;
      }
      const Reg d = p.dst(in, 0), s = p.src(in, 0);
      if ((d.bank == Bank::R32) && (s.bank == Bank::R32 || s.bank == Bank::C32 || s.bank == Bank::S32)) {
        std::uint32_t* D = row32(w, d);
        const std::uint32_t* S = row32(w, s);
        if (ty_bits(t) == 16) for_lanes(m, [&](int l) { D[l] = S[l] & 0xffffu; });
        else for_lanes(m, [&](int l) { D[l] = S[l]; });
        return;
      }
      if (d.bank == Bank::R64 && (s.bank == Bank::R64 || s.bank == Bank::C64 || s.bank == Bank::S64)) {
        std::uint64_t* D = row64(w, d);
        const std::uint64_t* S = row64(w, s);
        for_lanes(m, [&](int l) { D[l] = S[l]; });
        return;
      }
      for_lanes(m, [&](int l) { put(w, d, l, get(w, s, l)); });
      return;
    }
    case Op::MovFrameLocal: {
      std::uint64_t v = w.frames.back().local_base + static_cast<std::uint64_t>(in.addr.offset);
      if (in.flags & P::kWide) v += P::kLocalWindow;
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) { put(w, d, l, v); });
      return;
    }
    case Op::Cvta: {
      const Reg d = p.dst(in, 0);
      std::uint64_t base = in.space == Space::Shared || in.space == Space::SharedCluster ? P::kSharedWindow
                           : in.space == Space::Local                                  ? P::kLocalWindow
                           : in.space == Space::Param ? P::kParamWindow : 0;
      const bool to = in.flags & P::kCvtaTo;
      const bool narrow = ty_bits(t) == 32;
      for_lanes(m, [&](int l) {
        std::uint64_t a = srcv(*this, w, in, 0, l);
        std::uint64_t r = to ? (base && a >= base && a < base + P::kWindowSize ? a - base : (base ? a - base : a)) : a + base;
        if (to && base && a == 0) r = 0;
        // a null pointer stays null; shared, local and param offset 0 are real addresses (the
        // first kernel parameter: Triton's host-side tensor descriptor)
        if (!to && base && a == 0 && in.space != Space::Shared && in.space != Space::Local && in.space != Space::Param) r = 0;
        put(w, d, l, narrow ? (r & 0xffffffffu) : r);
      });
      return;
    }
    case Op::Mapa: {  // mapa[.shared::cluster].u32|u64 d, a, rank: a's variable in CTA `rank` of the cluster
      const Reg d = p.dst(in, 0);
      const bool generic = in.space != Space::SharedCluster;
      for_lanes(m, [&](int l) {
        const std::uint64_t a = srcv(*this, w, in, 0, l);
        const auto target = static_cast<std::uint32_t>(srcv(*this, w, in, 1, l));
        put(w, d, l, cluster_map(w, in, l, a, target, generic));
      });
      return;
    }
    case Op::Getctarank: {  // getctarank[.shared::cluster].u32|u64 d, a
      const Reg d = p.dst(in, 0);
      for_lanes(m, [&](int l) {
        std::uint64_t a = srcv(*this, w, in, 0, l);
        if (in.space != Space::SharedCluster) {
          if (a < P::kSharedWindow || a >= P::kSharedWindow + P::kWindowSize) fault(w, in, l, "getctarank of an address that is not shared memory");
          a -= P::kSharedWindow;
        }
        put(w, d, l, a >= P::kClusterRankStride ? a / P::kClusterRankStride - 1 : rank);
      });
      return;
    }
    case Op::Isspacep: {
      std::uint32_t r = 0;
      for_lanes(m, [&](int l) {
        std::uint64_t a = srcv(*this, w, in, 0, l);
        bool in_sh = a >= P::kSharedWindow && a < P::kSharedWindow + P::kWindowSize;
        bool in_lo = a >= P::kLocalWindow && a < P::kLocalWindow + P::kWindowSize;
        bool in_pa = a >= P::kParamWindow && a < P::kParamWindow + P::kWindowSize;
        // .shared (::cta) is the executing CTA's part of the shared::cluster window
        bool b = in.space == Space::SharedCluster ? in_sh
                 : in.space == Space::Shared      ? in_sh && a - P::kSharedWindow < P::kClusterRankStride
                 : in.space == Space::Local ? in_lo : in.space == Space::Param ? in_pa
                 : in.space == Space::Const ? false : (!in_sh && !in_lo && !in_pa);
        r |= static_cast<std::uint32_t>(b) << l;
      });
      std::uint32_t& dm = predr(w, p.dst(in, 0));
      dm = (dm & ~m) | r;
      return;
    }
    case Op::Setmaxnreg:
      // the warp's register allocation, changed for warp specialisation: kernsim's registers are
      // the PTX's (none is lost or gained), and a CTA's residency was set at launch (measured on
      // the H200: setmaxnreg leaves the resident CTAs as they were); only its operand is checked
      for_lanes(m, [&](int l) {
        const std::uint32_t n = row32(w, p.src(in, 0))[l];
        if (n < 24 || n > 256 || n % 8)
          fault(w, in, l, "setmaxnreg " + std::to_string(n) + ": the register count must be a multiple of 8 in 24..256");
      });
      return;
    case Op::Membar:
    case Op::Prefetch:
    case Op::Nanosleep:
    case Op::Nop:
      return;
    default:
      unsupported(in, std::string("`") + to_string(in.op) + "` in the ALU path");
  }
}

// ---------------------------------------------------------------------------------------------
// conversions

namespace {

FloatFormat fmt_of(Ty t) {
  switch (t) {
    case Ty::F16: case Ty::F16x2: return FloatFormat::F16;
    case Ty::BF16: case Ty::BF16x2: return FloatFormat::BF16;
    case Ty::TF32: return FloatFormat::TF32;
    case Ty::E4M3: case Ty::E4M3x2: return FloatFormat::E4M3;
    case Ty::E5M2: case Ty::E5M2x2: return FloatFormat::E5M2;
    default: return FloatFormat::F32;
  }
}

RoundMode mode_of(Rnd r) {
  switch (r) {
    case Rnd::Rz: case Rnd::Rzi: return RoundMode::TowardZero;
    case Rnd::Rm: case Rnd::Rmi: return RoundMode::Down;
    case Rnd::Rp: case Rnd::Rpi: return RoundMode::Up;
    case Rnd::Rna: return RoundMode::NearestAway;
    default: return RoundMode::NearestEven;
  }
}

// Source value of a conversion as a long double (exact for every PTX type).
long double cvt_source(std::uint64_t raw, Ty t) {
  switch (t) {
    case Ty::S8: return static_cast<std::int8_t>(raw);
    case Ty::S16: return static_cast<std::int16_t>(raw);
    case Ty::S32: return static_cast<std::int32_t>(raw);
    case Ty::S64: return static_cast<std::int64_t>(raw);
    case Ty::U8: case Ty::B8: return static_cast<std::uint8_t>(raw);
    case Ty::U16: case Ty::B16: return static_cast<std::uint16_t>(raw);
    case Ty::U32: case Ty::B32: return static_cast<std::uint32_t>(raw);
    case Ty::U64: case Ty::B64: return raw;
    case Ty::F32: return from32<float>(static_cast<std::uint32_t>(raw));
    case Ty::F64: return from64<double>(raw);
    case Ty::F16: return half_to_float(static_cast<std::uint16_t>(raw));
    case Ty::BF16: return bf16_to_float(static_cast<std::uint16_t>(raw));
    case Ty::TF32: return from32<float>(static_cast<std::uint32_t>(raw));
    case Ty::E4M3: return decode_format(static_cast<std::uint32_t>(raw & 0xff), FloatFormat::E4M3);
    case Ty::E5M2: return decode_format(static_cast<std::uint32_t>(raw & 0xff), FloatFormat::E5M2);
    default: return 0;
  }
}

long double round_integral(long double v, Rnd r) {
  switch (r) {
    case Rnd::Rni: return std::nearbyint(v);
    case Rnd::Rzi: return std::trunc(v);
    case Rnd::Rmi: return std::floor(v);
    case Rnd::Rpi: return std::ceil(v);
    default: return v;
  }
}

}  // namespace

void PtxCta::Impl::exec_cvt(Warp& w, const Inst& in, std::uint32_t m) {
  const Ty dt = in.type, st = in.type2;
  const Reg d = p.dst(in, 0);
  const bool sat = in.flags & P::kSat, relu = in.flags & P::kRelu, satfinite = in.flags & P::kSatFinite;
  const bool flush = in.flags & P::kFtz;
  if (in.op == Op::CvtPack) {
    // cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b   (a -> high half, b -> low)
    const FloatFormat f = fmt_of(dt);
    const int eb = (dt == Ty::E4M3x2 || dt == Ty::E5M2x2) ? 8 : 16;
    for_lanes(m, [&](int l) {
      double hi = static_cast<double>(cvt_source(srcv(*this, w, in, 0, l), st));
      double lo = static_cast<double>(cvt_source(srcv(*this, w, in, 1, l), st));
      if (relu) { if (hi < 0) hi = 0; if (lo < 0) lo = 0; }
      std::uint32_t h = round_to_format(hi, f, mode_of(in.rnd), satfinite);
      std::uint32_t lw = round_to_format(lo, f, mode_of(in.rnd), satfinite);
      std::uint32_t mask = (1u << eb) - 1;
      put(w, d, l, ((h & mask) << eb) | (lw & mask));
    });
    return;
  }
  // fast paths: integer widening / narrowing and the common float<->int forms
  if (!P::ty_is_float(dt) && !P::ty_is_float(st) && !sat) {
    for_lanes(m, [&](int l) {
      std::uint64_t v = srcv(*this, w, in, 0, l);
      long double x = cvt_source(v, st);
      std::uint64_t r = P::ty_is_signed(st) ? static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) : static_cast<std::uint64_t>(x);
      int db = ty_bits(dt);
      if (db < 64) r &= (1ull << db) - 1;
      // sign-extend into the destination register when it is wider than the type (cvt.s16 into 32-bit regs keeps 16 bits)
      put(w, d, l, r);
    });
    return;
  }
  // unpacking fp8x2 -> f16x2
  if ((st == Ty::E4M3x2 || st == Ty::E5M2x2) && (dt == Ty::F16x2 || dt == Ty::BF16x2)) {
    FloatFormat sf = fmt_of(st);
    for_lanes(m, [&](int l) {
      std::uint32_t v = static_cast<std::uint32_t>(srcv(*this, w, in, 0, l));
      double lo = decode_format(v & 0xff, sf), hi = decode_format((v >> 8) & 0xff, sf);
      if (relu) { if (lo < 0) lo = 0; if (hi < 0) hi = 0; }
      std::uint32_t rl = round_to_format(lo, fmt_of(dt), RoundMode::NearestEven), rh = round_to_format(hi, fmt_of(dt), RoundMode::NearestEven);
      put(w, d, l, (rh << 16) | (rl & 0xffff));
    });
    return;
  }
  for_lanes(m, [&](int l) {
    std::uint64_t raw = srcv(*this, w, in, 0, l);
    long double x = cvt_source(raw, st);
    if (flush && st == Ty::F32) x = ftz(static_cast<float>(x));
    std::uint64_t out = 0;
    if (P::ty_is_float(dt)) {
      if (P::ty_is_float(st)) x = round_integral(x, in.rnd);  // cvt.rni.f32.f32 etc.
      if (sat && !std::isnan(x)) x = std::min<long double>(1.0L, std::max<long double>(0.0L, x));
      if (sat && std::isnan(x)) x = 0;
      if (relu && x < 0) x = 0;
      switch (dt) {
        case Ty::F64: {
          double v;
          if (in.rnd == Rnd::Rz || in.rnd == Rnd::Rm || in.rnd == Rnd::Rp) {
            RoundingScope rs(in.rnd);
            v = static_cast<double>(x);
          } else {
            v = static_cast<double>(x);
          }
          out = to64(v);
          break;
        }
        case Ty::F32: {
          float v;
          if (!P::ty_is_float(st) && ty_bits(st) == 64) {
            RoundingScope rs(in.rnd == Rnd::None ? Rnd::Rn : in.rnd);
            v = static_cast<float>(x);
          } else {
            out = round_to_format(static_cast<double>(x), FloatFormat::F32, mode_of(in.rnd), satfinite);
            if (flush) out = to32(ftz(from32<float>(static_cast<std::uint32_t>(out))));
            break;
          }
          out = to32(v);
          break;
        }
        default: {
          double v = static_cast<double>(x);
          if (!P::ty_is_float(st) && ty_bits(st) == 64) {
            RoundingScope rs(Rnd::Rz);  // keep the exact-ish value; the final rounding happens below
            v = static_cast<double>(x);
          }
          out = round_to_format(v, fmt_of(dt), mode_of(in.rnd), satfinite);
        }
      }
    } else {
      // float -> integer: round as asked, saturate to the destination range, NaN -> 0
      const int db = ty_bits(dt);
      const bool ds = P::ty_is_signed(dt);
      long double r = round_integral(x, in.rnd == Rnd::None ? Rnd::Rzi : in.rnd);
      long double lo = ds ? -std::ldexp(1.0L, db - 1) : 0.0L;
      long double hi = ds ? std::ldexp(1.0L, db - 1) - 1 : std::ldexp(1.0L, db) - 1;
      if (std::isnan(r)) r = 0;
      r = std::min(hi, std::max(lo, r));
      out = ds ? static_cast<std::uint64_t>(static_cast<std::int64_t>(r)) : static_cast<std::uint64_t>(r);
      if (db < 64) out &= (1ull << db) - 1;
      if (sat) {}  // already saturated
    }
    put(w, d, l, out);
  });
}

}  // namespace kernsim::sim
