// Vector ALU semantics (VOP1, VOP2, VOP3, VOP3P, VOPC) of gfx9 / CDNA3 / CDNA4 for wave64.
//
// Every instruction computes all 64 lanes into a scratch row and then writes the lanes the exec
// mask (and DPP row/bank masks) enable, so the common case is a straight loop the compiler can
// vectorise. Sources are read once per instruction as rows of 64 values: VGPR rows directly, scalar
// operands and constants broadcast; DPP lane permutations, SDWA byte/word selects and the
// VOP3 / VOP3P source modifiers (neg, abs, sext, op_sel) are applied while reading. Results get the
// output modifier and clamp, SDWA destination selects, and 16-bit results zero the high half (as
// gfx9 does) unless op_sel writes the high half.
//
// Float semantics: IEEE-754 round-to-nearest-even with denormals (the HIP default mode); min/max
// in IEEE mode (a NaN operand yields the other); transcendental approximations (v_exp, v_log,
// v_rcp, v_rsq, v_sqrt, v_sin, v_cos) are computed correctly rounded, where the hardware is within
// 1 ulp.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/functional/amd_float.h"
#include "sim/functional/amd_impl.h"

namespace kernsim::sim {

using namespace amd;
using isa::amdgcn::kAbs;
using isa::amdgcn::kDstOpSel;
using isa::amdgcn::kNeg;
using isa::amdgcn::kNegHi;
using isa::amdgcn::kOpSel;
using isa::amdgcn::kOpSelHi;
using isa::amdgcn::kSext;

namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;
using I32 = std::int32_t;
using I64 = std::int64_t;
constexpr int N = kLanes;

struct Ctx {
  Ctx(AmdWorkgroup::Impl& impl, Wave& wave, const Inst& inst) : c(impl), w(wave), in(inst), mask(wave.exec()) {}
  AmdWorkgroup::Impl& c;
  Wave& w;
  const Inst& in;
  U64 mask;  // lanes whose results are written
  // scratch rows for sources that are not plain VGPR rows (left uninitialised: always written first)
  alignas(64) U32 t[4][N];
  alignas(64) U64 q[3][N];
};

// ---------------------------------------------------------------------------------------------
// DPP and SDWA

int dpp_source(unsigned ctrl, int l) {
  if (ctrl <= 0xff) return (l & ~3) | ((ctrl >> ((l & 3) * 2)) & 3);
  const int n = static_cast<int>(ctrl & 0xf);
  if (ctrl >= 0x101 && ctrl <= 0x10f) return (l & 15) + n < 16 ? l + n : -1;          // row_shl
  if (ctrl >= 0x111 && ctrl <= 0x11f) return (l & 15) >= n ? l - n : -1;              // row_shr
  if (ctrl >= 0x121 && ctrl <= 0x12f) return (l & ~15) | (((l & 15) - n) & 15);        // row_ror
  switch (ctrl) {
    case 0x130: return l + 1 < N ? l + 1 : -1;              // wave_shl:1
    case 0x134: return (l + 1) & (N - 1);                   // wave_rol:1
    case 0x138: return l >= 1 ? l - 1 : -1;                 // wave_shr:1
    case 0x13c: return (l - 1) & (N - 1);                   // wave_ror:1
    case 0x140: return (l & ~15) | (15 - (l & 15));         // row_mirror
    case 0x141: return (l & ~7) | (7 - (l & 7));            // row_half_mirror
    case 0x142: return (l >> 4) ? ((l >> 4) << 4) - 1 : -1; // row_bcast:15
    case 0x143: return l >= 32 ? 31 : -1;                   // row_bcast:31
    default: return -2;
  }
}

void apply_dpp(Ctx& x, const U32* src, U32* out) {
  const U64 exec = x.w.exec();
  U64 ok = 0;
  for (int l = 0; l < N; ++l) {
    const int s = dpp_source(x.in.dpp_ctrl, l);
    if (s == -2) x.c.unsupported(x.in, "the DPP control " + hex(x.in.dpp_ctrl));
    if (s >= 0 && ((exec >> s) & 1)) {
      out[l] = src[s];
      ok |= U64{1} << l;
    } else {
      out[l] = 0;
    }
  }
  U64 enabled = 0;
  for (int l = 0; l < N; ++l)
    if (((x.in.row_mask >> (l >> 4)) & 1) && ((x.in.bank_mask >> ((l >> 2) & 3)) & 1)) enabled |= U64{1} << l;
  x.mask &= enabled;
  if (!x.in.bound_ctrl) x.mask &= ok;  // lanes without a valid source keep their old value
}

U32 sdwa_extract(U32 v, int sel, bool sext) {
  if (sel <= 3) {
    U32 b = (v >> (8 * sel)) & 0xff;
    return sext ? static_cast<U32>(static_cast<I32>(static_cast<std::int8_t>(b))) : b;
  }
  if (sel <= 5) {
    U32 h = (v >> (16 * (sel - 4))) & 0xffff;
    return sext ? static_cast<U32>(static_cast<I32>(static_cast<std::int16_t>(h))) : h;
  }
  return v;
}

U32 sdwa_insert(U32 old, U32 r, int sel, int unused) {
  if (sel == 6) return r;
  const int shift = sel <= 3 ? 8 * sel : 16 * (sel - 4);
  const int width = sel <= 3 ? 8 : 16;
  const U32 field = (width == 8 ? 0xffu : 0xffffu) << shift;
  U32 v = (r << shift) & field;
  if (unused == 2) return (old & ~field) | v;  // preserve
  if (unused == 1 && ((r >> (width - 1)) & 1)) v |= ~((U32{1} << (shift + width)) - 1);  // sign-extend upward
  return v;
}

// ---------------------------------------------------------------------------------------------
// sources

bool is_vop3p(const Inst& in) { return in.fmt == Fmt::Vop3p; }

// Raw 32-bit source values per lane (DPP and SDWA selects applied, no float modifiers).
const U32* raw(Ctx& x, int i) {
  const Operand& o = x.in.src[i];
  U32* t = x.t[i];
  const U32* p;
  if (o.kind == Kind::Vgpr) {
    p = x.w.vrow(o.reg);
  } else if (o.kind == Kind::Agpr) {
    p = x.w.arow(o.reg);
  } else {
    const U32 v = sget(x.w, o);
    for (int l = 0; l < N; ++l) t[l] = v;
    p = t;
  }
  if (i == 0 && x.in.enc == Enc::Dpp) {
    apply_dpp(x, p, t);
    p = t;
  } else if (x.in.enc == Enc::Sdwa && i < 2 && (x.in.src_sel[i] != 6 || (o.mods & kSext))) {
    const int sel = x.in.src_sel[i];
    const bool sext = o.mods & kSext;
    for (int l = 0; l < N; ++l) t[l] = sdwa_extract(p[l], sel, sext);
    p = t;
  }
  return p;
}

// 32-bit float source: abs then neg on bit 31 (VOP3 / SDWA / DPP modifiers).
const U32* fsrc(Ctx& x, int i) {
  const U32* p = raw(x, i);
  const std::uint8_t m = is_vop3p(x.in) ? 0 : (x.in.src[i].mods & (kNeg | kAbs));
  if (!m) return p;
  U32* t = x.t[i];
  const U32 andm = (m & kAbs) ? 0x7fffffffu : ~0u, xorm = (m & kNeg) ? 0x80000000u : 0u;
  for (int l = 0; l < N; ++l) t[l] = (p[l] & andm) ^ xorm;
  return t;
}

// 16-bit source in the low half (op_sel picks the high half of a VOP3 source), f16 modifiers.
const U32* hsrc(Ctx& x, int i, bool fp) {
  const U32* p = raw(x, i);
  const Operand& o = x.in.src[i];
  const bool hi = !is_vop3p(x.in) && x.in.enc != Enc::Sdwa && (o.mods & kOpSel);
  const std::uint8_t m = fp && !is_vop3p(x.in) ? (o.mods & (kNeg | kAbs)) : 0;
  U32* t = x.t[i];
  for (int l = 0; l < N; ++l) {
    U32 v = hi ? (p[l] >> 16) : (p[l] & 0xffff);
    if (m & kAbs) v &= 0x7fff;
    if (m & kNeg) v ^= 0x8000;
    t[l] = v;
  }
  return t;
}

// 64-bit source (register pair or 64-bit constant), f64 modifiers when `fp`.
const U64* qsrc(Ctx& x, int i, bool fp) {
  const Operand& o = x.in.src[i];
  U64* q = x.q[i];
  if (x.in.enc == Enc::Dpp && i == 0) x.c.unsupported(x.in, "DPP on a 64-bit operand");
  if (o.kind == Kind::Vgpr || o.kind == Kind::Agpr) {
    const U32* lo = o.kind == Kind::Vgpr ? x.w.vrow(o.reg) : x.w.arow(o.reg);
    const U32* hi = lo + N;
    for (int l = 0; l < N; ++l) q[l] = lo[l] | (U64{hi[l]} << 32);
  } else {
    const U64 v = sget64(x.w, o);
    for (int l = 0; l < N; ++l) q[l] = v;
  }
  const std::uint8_t m = fp && !is_vop3p(x.in) ? (o.mods & (kNeg | kAbs)) : 0;
  if (m) {
    const U64 andm = (m & kAbs) ? ~(U64{1} << 63) : ~U64{0}, xorm = (m & kNeg) ? U64{1} << 63 : 0;
    for (int l = 0; l < N; ++l) q[l] = (q[l] & andm) ^ xorm;
  }
  return q;
}

// ---------------------------------------------------------------------------------------------
// results

U32* dst_row(Ctx& x, const Operand& d) {
  if (d.kind == Kind::Vgpr) return x.w.vrow(d.reg);
  if (d.kind == Kind::Agpr) return x.w.arow(d.reg);
  x.c.unsupported(x.in, "a vector result in a non-vector register");
}

void write32(Ctx& x, const U32* r, int di = 0) {
  U32* out = dst_row(x, x.in.dst[di]);
  if (x.in.enc == Enc::Sdwa && x.in.dst_sel != 6) {
    const int sel = x.in.dst_sel, unused = x.in.dst_unused;
    for_lanes(x.mask, [&](int l) { out[l] = sdwa_insert(out[l], r[l], sel, unused); });
    return;
  }
  if (x.mask == kAllLanes) {
    std::memcpy(out, r, sizeof(U32) * N);
    return;
  }
  for_lanes(x.mask, [&](int l) { out[l] = r[l]; });
}

// A 16-bit result: low half with the high half zeroed, or (VOP3 op_sel[3]) the high half with the
// low half kept.
void write16(Ctx& x, const U32* r) {
  U32* out = dst_row(x, x.in.dst[0]);
  if (x.in.enc == Enc::Sdwa) {
    write32(x, r);
    return;
  }
  const bool hi = !is_vop3p(x.in) && (x.in.src[0].mods & kDstOpSel) && x.in.enc == Enc::E64;
  for_lanes(x.mask, [&](int l) { out[l] = hi ? ((out[l] & 0xffffu) | (r[l] << 16)) : (r[l] & 0xffffu); });
}

void write64(Ctx& x, const U64* r, int di = 0) {
  U32* lo = dst_row(x, x.in.dst[di]);
  U32* hi = lo + N;
  for_lanes(x.mask, [&](int l) {
    lo[l] = static_cast<U32>(r[l]);
    hi[l] = static_cast<U32>(r[l] >> 32);
  });
}

// Lane mask result (carry out, compare) into an SGPR pair (or VCC); inactive lanes read 0.
void write_mask(Ctx& x, const Operand& d, U64 bits) { sset64(x.w, d, bits & x.w.exec()); }

template <class T>
T apply_omod_clamp(const Inst& in, T v) {
  switch (in.omod) {
    case 1: v = v * T(2); break;
    case 2: v = v * T(4); break;
    case 3: v = v * T(0.5); break;
    default: break;
  }
  if (in.clamp) v = std::isnan(v) ? T(0) : std::min(std::max(v, T(0)), T(1));
  return v;
}

// ---------------------------------------------------------------------------------------------
// typed lane loops

template <class F>
void f1(Ctx& x, F f) {
  const U32* a = fsrc(x, 0);
  alignas(64) U32 r[N];
  const bool post = x.in.omod || x.in.clamp;
  for (int l = 0; l < N; ++l) {
    float v = f(as_f32(a[l]));
    r[l] = f32_bits(post ? apply_omod_clamp(x.in, v) : v);
  }
  write32(x, r);
}
template <class F>
void f2(Ctx& x, F f) {
  const U32* a = fsrc(x, 0);
  const U32* b = fsrc(x, 1);
  alignas(64) U32 r[N];
  const bool post = x.in.omod || x.in.clamp;
  for (int l = 0; l < N; ++l) {
    float v = f(as_f32(a[l]), as_f32(b[l]));
    r[l] = f32_bits(post ? apply_omod_clamp(x.in, v) : v);
  }
  write32(x, r);
}
template <class F>
void f3(Ctx& x, F f) {
  const U32* a = fsrc(x, 0);
  const U32* b = fsrc(x, 1);
  const U32* c = fsrc(x, 2);
  alignas(64) U32 r[N];
  const bool post = x.in.omod || x.in.clamp;
  for (int l = 0; l < N; ++l) {
    float v = f(as_f32(a[l]), as_f32(b[l]), as_f32(c[l]));
    r[l] = f32_bits(post ? apply_omod_clamp(x.in, v) : v);
  }
  write32(x, r);
}
template <class F>
void d1(Ctx& x, F f) {
  const U64* a = qsrc(x, 0, true);
  alignas(64) U64 r[N];
  for (int l = 0; l < N; ++l) r[l] = f64_bits(apply_omod_clamp(x.in, f(as_f64(a[l]))));
  write64(x, r);
}
template <class F>
void d2(Ctx& x, F f) {
  const U64* a = qsrc(x, 0, true);
  const U64* b = qsrc(x, 1, true);
  alignas(64) U64 r[N];
  for (int l = 0; l < N; ++l) r[l] = f64_bits(apply_omod_clamp(x.in, f(as_f64(a[l]), as_f64(b[l]))));
  write64(x, r);
}
template <class F>
void d3(Ctx& x, F f) {
  const U64* a = qsrc(x, 0, true);
  const U64* b = qsrc(x, 1, true);
  const U64* c = qsrc(x, 2, true);
  alignas(64) U64 r[N];
  for (int l = 0; l < N; ++l) r[l] = f64_bits(apply_omod_clamp(x.in, f(as_f64(a[l]), as_f64(b[l]), as_f64(c[l]))));
  write64(x, r);
}
template <class F>
void i1(Ctx& x, F f) {
  const U32* a = raw(x, 0);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) r[l] = f(a[l]);
  write32(x, r);
}
template <class F>
void i2(Ctx& x, F f) {
  const U32* a = raw(x, 0);
  const U32* b = raw(x, 1);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) r[l] = f(a[l], b[l]);
  write32(x, r);
}
template <class F>
void i3(Ctx& x, F f) {
  const U32* a = raw(x, 0);
  const U32* b = raw(x, 1);
  const U32* c = raw(x, 2);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) r[l] = f(a[l], b[l], c[l]);
  write32(x, r);
}
// f16 operations computed in double and rounded once to f16 (exact for + - * of f16 values).
template <class F>
void h1(Ctx& x, F f) {
  const U32* a = hsrc(x, 0, true);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) r[l] = to_half(apply_omod_clamp(x.in, static_cast<double>(f(double{from_half(a[l])}))));
  write16(x, r);
}
template <class F>
void h2(Ctx& x, F f) {
  const U32* a = hsrc(x, 0, true);
  const U32* b = hsrc(x, 1, true);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l)
    r[l] = to_half(apply_omod_clamp(x.in, static_cast<double>(f(double{from_half(a[l])}, double{from_half(b[l])}))));
  write16(x, r);
}
template <class F>
void h3(Ctx& x, F f) {
  const U32* a = hsrc(x, 0, true);
  const U32* b = hsrc(x, 1, true);
  const U32* c = hsrc(x, 2, true);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l)
    r[l] = to_half(apply_omod_clamp(
        x.in, static_cast<double>(f(double{from_half(a[l])}, double{from_half(b[l])}, double{from_half(c[l])}))));
  write16(x, r);
}
// 16-bit integer operations (results truncated to 16 bits)
template <class F>
void s2(Ctx& x, F f) {
  const U32* a = hsrc(x, 0, false);
  const U32* b = hsrc(x, 1, false);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) r[l] = f(a[l], b[l]) & 0xffffu;
  write16(x, r);
}
template <class F>
void s3(Ctx& x, F f) {
  const U32* a = hsrc(x, 0, false);
  const U32* b = hsrc(x, 1, false);
  const U32* c = hsrc(x, 2, false);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) r[l] = f(a[l], b[l], c[l]) & 0xffffu;
  write16(x, r);
}

I32 sx16(U32 v) { return static_cast<std::int16_t>(v & 0xffff); }
I32 sx24(U32 v) { return static_cast<I32>(v << 8) >> 8; }

template <class T>
T med3i(T a, T b, T c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }

// Float -> integer conversions: truncate, saturate, NaN -> 0.
I32 f2i(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<I32>::max();
  if (v <= -2147483648.0) return std::numeric_limits<I32>::min();
  return static_cast<I32>(v);
}
U32 f2u(double v) {
  if (std::isnan(v) || v <= 0) return 0;
  if (v >= 4294967295.0) return 0xffffffffu;
  return static_cast<U32>(v);
}
I32 sat16s(I64 v) { return static_cast<I32>(std::min<I64>(std::max<I64>(v, -32768), 32767)); }
U32 sat16u(I64 v) { return static_cast<U32>(std::min<I64>(std::max<I64>(v, 0), 65535)); }

float fract32(float v) {
  if (std::isinf(v)) return std::nanf("");
  float r = v - std::floor(v);
  return std::min(r, 0x1.fffffep-1f);
}
double fract64(double v) {
  if (std::isinf(v)) return std::nan("");
  double r = v - std::floor(v);
  return std::min(r, 0x1.fffffffffffffp-1);
}

float mul_legacy(float a, float b) { return (a == 0.0f || b == 0.0f) ? 0.0f : a * b; }

// 2/pi, 1216 bits after the binary point (v_trig_preop_f64's table).
constexpr char kTwoOverPi[] =
    "a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424dd2e006492eea09d1921cfe1deb1cb129a73e"
    "e88235f52ebb4484e99c7026b45f7e413991d639835339f49c845f8bbdf9283b1ff897ffde05980fef2f118b5a0a6d1f6d367ecf27cb09b7"
    "4f463f669e5fea2d7527bac7ebe5f17b3d0739f78a5292ea6bfb5fb11f8d5d0856033046fc7b6babf0cfbc209af4361da9e391615ee61b08"
    "6599855f14a068408dffd8804d73273106061556ca73a8c960e27bc08c6b";

int two_over_pi_bit(int i) {  // bit i after the binary point (i = 0 is the first)
  const int nib = i / 4;
  if (nib >= static_cast<int>(sizeof(kTwoOverPi) - 1)) return 0;
  char ch = kTwoOverPi[nib];
  int v = ch <= '9' ? ch - '0' : ch - 'a' + 10;
  return (v >> (3 - i % 4)) & 1;
}

double trig_preop(double x, U32 seg) {
  const int exp = static_cast<int>((f64_bits(x) >> 52) & 0x7ff);
  int shift = static_cast<int>(seg & 31) * 53;
  if (exp > 1077) shift += exp - 1077;
  U64 bits = 0;
  for (int i = 0; i < 53; ++i) bits = (bits << 1) | static_cast<U64>(two_over_pi_bit(shift + i));
  int scale = -53 - shift;
  if (exp >= 1968) scale += 128;
  return std::ldexp(static_cast<double>(bits), scale);
}

// v_div_scale: scales the numerator or denominator of a division so the Newton-Raphson
// quotient stays in range; VCC tells v_div_fmas to undo the scale (2^64 for f32, 2^128 for f64).
template <class T>
T div_scale(T s0, T den, T num, bool& vcc) {
  using Lim = std::numeric_limits<T>;
  const int scale = Lim::digits == 24 ? 64 : 128;
  const int big = Lim::digits == 24 ? 96 : 768;
  const int tiny = Lim::digits == 24 ? 23 : 53;
  auto exponent = [](T v) {
    int e;
    std::frexp(v, &e);
    return v == 0 ? -100000 : e - 1 + Lim::max_exponent - 1;  // biased exponent
  };
  auto denorm = [](T v) { return v != 0 && std::fabs(v) < Lim::min(); };
  vcc = false;
  if (den == 0 || num == 0 || std::isnan(den) || std::isnan(num) || std::isinf(den) || std::isinf(num))
    return s0 == den && den == 0 ? Lim::quiet_NaN() : s0;
  if (exponent(num) - exponent(den) >= big) {
    vcc = true;
    return s0 == den ? std::ldexp(s0, scale) : s0;
  }
  if (denorm(den)) return std::ldexp(s0, scale);
  if (denorm(T(1) / den) && denorm(num / den)) {
    vcc = true;
    return s0 == den ? std::ldexp(s0, scale) : s0;
  }
  if (denorm(T(1) / den)) return std::ldexp(s0, -scale);
  if (denorm(num / den)) {
    vcc = true;
    return s0 == num ? std::ldexp(s0, scale) : s0;
  }
  if (exponent(num) <= tiny) return std::ldexp(s0, scale);
  return s0;
}

template <class T>
T div_fmas(T a, T b, T c, bool vcc) {
  using Lim = std::numeric_limits<T>;
  T r;
  if constexpr (std::is_same_v<T, float>) r = fma32(a, b, c);
  else r = std::fma(a, b, c);
  if (!vcc) return r;
  const int scale = Lim::digits == 24 ? 64 : 128;
  int e;
  std::frexp(c, &e);
  return e - 1 > 0 ? std::ldexp(r, scale) : std::ldexp(r, -scale);
}

template <class T>
T div_fixup(T q, T den, T num) {
  using Lim = std::numeric_limits<T>;
  const bool sign = std::signbit(den) != std::signbit(num);
  if (std::isnan(num)) return num;
  if (std::isnan(den)) return den;
  if (den == 0 && num == 0) return Lim::quiet_NaN();
  if (std::isinf(den) && std::isinf(num)) return Lim::quiet_NaN();
  if (den == 0 || std::isinf(num)) return sign ? -Lim::infinity() : Lim::infinity();
  if (std::isinf(den) || num == 0) return sign ? -T(0) : T(0);
  if (std::isnan(q)) return sign ? -Lim::infinity() : Lim::infinity();
  return sign ? -std::fabs(q) : std::fabs(q);
}

U64 lane_bit(int l) { return U64{1} << l; }

U32 perm_byte(U32 a, U32 b, U32 sel) {
  const U64 v = (U64{a} << 32) | b;
  if (sel <= 7) return static_cast<U32>((v >> (8 * sel)) & 0xff);
  switch (sel) {
    case 8: return (b >> 15) & 1 ? 0xff : 0;
    case 9: return (b >> 31) & 1 ? 0xff : 0;
    case 10: return (a >> 15) & 1 ? 0xff : 0;
    case 11: return (a >> 31) & 1 ? 0xff : 0;
    case 12: return 0;
    default: return 0xff;
  }
}

// Packed 16-bit operand halves for VOP3P: {lo, hi} of source i with op_sel / op_sel_hi.
struct Halves {
  const U32* p;
  bool sel_lo, sel_hi;
  bool neg_lo, neg_hi;
  U32 lo(int l) const { U32 v = sel_lo ? p[l] >> 16 : p[l] & 0xffff; return neg_lo ? v ^ 0x8000 : v; }
  U32 hi(int l) const { U32 v = sel_hi ? p[l] >> 16 : p[l] & 0xffff; return neg_hi ? v ^ 0x8000 : v; }
};
Halves halves(Ctx& x, int i, bool fp) {
  const std::uint8_t m = x.in.src[i].mods;
  return Halves{raw(x, i), (m & kOpSel) != 0, (m & kOpSelHi) != 0, fp && (m & kNeg), fp && (m & kNegHi)};
}

template <class F>
void pk16(Ctx& x, int nsrc, bool fp, F f) {
  Halves h[3];
  for (int i = 0; i < nsrc; ++i) h[i] = halves(x, i, fp);
  alignas(64) U32 r[N];
  for (int l = 0; l < N; ++l) {
    U32 lo = f(h[0].lo(l), nsrc > 1 ? h[1].lo(l) : 0, nsrc > 2 ? h[2].lo(l) : 0) & 0xffff;
    U32 hi = f(h[0].hi(l), nsrc > 1 ? h[1].hi(l) : 0, nsrc > 2 ? h[2].hi(l) : 0) & 0xffff;
    r[l] = lo | (hi << 16);
  }
  write32(x, r);
}

template <class F>
void pkf16(Ctx& x, int nsrc, F f) {
  pk16(x, nsrc, true, [&](U32 a, U32 b, U32 c) -> U32 {
    double v = f(double{from_half(a)}, double{from_half(b)}, double{from_half(c)});
    if (x.in.clamp) v = std::isnan(v) ? 0.0 : std::min(std::max(v, 0.0), 1.0);
    return to_half(v);
  });
}

// Packed f32 (two f32 per 64-bit operand): element rows first (op_sel / op_sel_hi pick the dword,
// neg_lo / neg_hi negate), then the operation.
template <class F>
void pkf32(Ctx& x, int nsrc, F f) {
  alignas(64) U32 lo[3][N], hi[3][N];
  for (int i = 0; i < nsrc; ++i) {
    const U64* s = qsrc(x, i, false);
    const std::uint8_t m = x.in.src[i].mods;
    const int shl = (m & kOpSel) ? 32 : 0, shh = (m & kOpSelHi) ? 32 : 0;
    const U32 nl = (m & kNeg) ? 0x80000000u : 0u, nh = (m & kNegHi) ? 0x80000000u : 0u;
    for (int l = 0; l < N; ++l) {
      lo[i][l] = static_cast<U32>(s[l] >> shl) ^ nl;
      hi[i][l] = static_cast<U32>(s[l] >> shh) ^ nh;
    }
  }
  for (int i = nsrc; i < 3; ++i)
    for (int l = 0; l < N; ++l) lo[i][l] = hi[i][l] = 0;
  alignas(64) U64 r[N];
  for (int l = 0; l < N; ++l) {
    float a = f(as_f32(lo[0][l]), as_f32(lo[1][l]), as_f32(lo[2][l]));
    float b = f(as_f32(hi[0][l]), as_f32(hi[1][l]), as_f32(hi[2][l]));
    if (x.in.clamp) {
      a = std::isnan(a) ? 0.f : std::min(std::max(a, 0.f), 1.f);
      b = std::isnan(b) ? 0.f : std::min(std::max(b, 0.f), 1.f);
    }
    r[l] = f32_bits(a) | (U64{f32_bits(b)} << 32);
  }
  write64(x, r);
}

// v_fma_mix / v_mad_mix source: f32, or (op_sel_hi set) the f16 half op_sel picks; neg_lo is neg
// and neg_hi is abs.
float mix_src(Ctx& x, int i, const U32* p, int l) {
  const std::uint8_t m = x.in.src[i].mods;
  float v = (m & kOpSelHi) ? from_half((m & kOpSel) ? p[l] >> 16 : p[l] & 0xffff) : as_f32(p[l]);
  if (m & kNegHi) v = std::fabs(v);
  if (m & kNeg) v = -v;
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// VOP1 / VOP2 / VOP3 / VOP3P

void AmdWorkgroup::Impl::valu(Wave& w, const Inst& in) {
  Ctx x(*this, w, in);
  const U64 exec = w.exec();
  switch (in.op) {
    case Op::v_nop: case Op::v_clrexcp: break;

    // ---- moves and lane access
    case Op::v_mov_b32: i1(x, [](U32 a) { return a; }); break;
    case Op::v_mov_b64: { const U64* a = qsrc(x, 0, false); write64(x, a); break; }
    case Op::v_accvgpr_read_b32: case Op::v_accvgpr_write_b32: case Op::v_accvgpr_mov_b32: i1(x, [](U32 a) { return a; }); break;
    case Op::v_readfirstlane_b32: {
      const U32* a = raw(x, 0);
      const int l = exec ? std::countr_zero(exec) : 0;
      sset(w, in.dst[0], a[l]);
      break;
    }
    case Op::v_readlane_b32: {
      const U32* a = raw(x, 0);
      sset(w, in.dst[0], a[sget(w, in.src[1]) & (N - 1)]);
      break;
    }
    case Op::v_writelane_b32: {
      U32* d = dst_row(x, in.dst[0]);
      d[sget(w, in.src[1]) & (N - 1)] = sget(w, in.src[0]);
      break;
    }
    case Op::v_swap_b32: {
      U32* a = dst_row(x, in.dst[0]);
      U32* b = dst_row(x, in.dst[1]);
      for_lanes(exec, [&](int l) { std::swap(a[l], b[l]); });
      break;
    }
    case Op::v_permlane16_swap_b32: case Op::v_permlane32_swap_b32: {
      // gfx950 (LLVM's llvm.amdgcn.permlane{16,32}.swap): the odd 16-lane rows of vdst trade places
      // with the even rows of vsrc (16), or lanes 32-63 of vdst with lanes 0-31 of vsrc (32); both
      // registers are written. With inactive lanes the result depends on fi and bound_ctrl, which
      // kernsim does not model: a partial exec mask stops the run.
      if (in.ndst < 2) unsupported(in, "this form of " + std::string(isa::amdgcn::to_string(in.op)));
      if (exec != ~U64{0}) unsupported(in, std::string(isa::amdgcn::to_string(in.op)) + " with inactive lanes");
      U32* d = dst_row(x, in.dst[0]);
      U32* v = dst_row(x, in.dst[1]);
      const bool by16 = in.op == Op::v_permlane16_swap_b32;
      for (int l = 0; l < N; ++l) {
        const bool upper = by16 ? ((l >> 4) & 1) != 0 : l >= 32;  // an odd row (16) or the upper half (32) of vdst
        if (upper) std::swap(d[l], v[l - (by16 ? 16 : 32)]);
      }
      break;
    }
    case Op::v_cndmask_b32: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      const U64 m = sget64(w, in.src[2]);
      const bool fmods = (in.src[0].mods | in.src[1].mods) & (kNeg | kAbs);
      const U32* fa = fmods ? fsrc(x, 0) : a;
      const U32* fb = fmods ? fsrc(x, 1) : b;
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = ((m >> l) & 1) ? fb[l] : fa[l];
      write32(x, r);
      break;
    }

    // ---- 32-bit integer
    case Op::v_add_u32: case Op::v_add_i32: case Op::v_sub_u32: case Op::v_sub_i32: case Op::v_subrev_u32: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      alignas(64) U32 r[N];
      const bool sub = in.op == Op::v_sub_u32 || in.op == Op::v_sub_i32, rev = in.op == Op::v_subrev_u32;
      const bool sgn = in.op == Op::v_add_i32 || in.op == Op::v_sub_i32;
      for (int l = 0; l < N; ++l) {
        const U32 p = rev ? b[l] : a[l], q = rev ? a[l] : b[l];
        if (!in.clamp) {
          r[l] = sub || rev ? p - q : p + q;
        } else if (sgn) {
          I64 v = sub ? I64{static_cast<I32>(p)} - static_cast<I32>(q) : I64{static_cast<I32>(p)} + static_cast<I32>(q);
          r[l] = static_cast<U32>(static_cast<I32>(std::min<I64>(std::max<I64>(v, INT32_MIN), INT32_MAX)));
        } else {
          I64 v = sub || rev ? I64{p} - I64{q} : I64{p} + I64{q};
          r[l] = static_cast<U32>(std::min<I64>(std::max<I64>(v, 0), 0xffffffffLL));
        }
      }
      write32(x, r);
      break;
    }
    case Op::v_add_co_u32: case Op::v_sub_co_u32: case Op::v_subrev_co_u32:
    case Op::v_addc_co_u32: case Op::v_subb_co_u32: case Op::v_subbrev_co_u32: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      const bool with_carry = in.op == Op::v_addc_co_u32 || in.op == Op::v_subb_co_u32 || in.op == Op::v_subbrev_co_u32;
      const U64 cin = with_carry ? sget64(w, in.src[2]) : 0;
      alignas(64) U32 r[N];
      U64 cout = 0;
      for (int l = 0; l < N; ++l) {
        const U64 ci = (cin >> l) & 1;
        U64 v;
        bool carry;
        switch (in.op) {
          case Op::v_add_co_u32: case Op::v_addc_co_u32: v = U64{a[l]} + b[l] + ci; carry = v >> 32; break;
          case Op::v_sub_co_u32: case Op::v_subb_co_u32: v = U64{a[l]} - b[l] - ci; carry = U64{b[l]} + ci > a[l]; break;
          default: v = U64{b[l]} - a[l] - ci; carry = U64{a[l]} + ci > b[l]; break;
        }
        if (in.clamp && carry) v = (in.op == Op::v_add_co_u32 || in.op == Op::v_addc_co_u32) ? 0xffffffffu : 0;
        r[l] = static_cast<U32>(v);
        if (carry) cout |= lane_bit(l);
      }
      write32(x, r);
      if (in.ndst > 1) write_mask(x, in.dst[1], cout);
      break;
    }
    case Op::v_mul_lo_u32: i2(x, [](U32 a, U32 b) { return a * b; }); break;
    case Op::v_mul_hi_u32: i2(x, [](U32 a, U32 b) { return static_cast<U32>((U64{a} * b) >> 32); }); break;
    case Op::v_mul_hi_i32: i2(x, [](U32 a, U32 b) { return static_cast<U32>(static_cast<U64>(I64{static_cast<I32>(a)} * static_cast<I32>(b)) >> 32); }); break;
    case Op::v_mul_i32_i24: i2(x, [](U32 a, U32 b) { return static_cast<U32>(I64{sx24(a)} * sx24(b)); }); break;
    case Op::v_mul_hi_i32_i24: i2(x, [](U32 a, U32 b) { return static_cast<U32>(static_cast<U64>(I64{sx24(a)} * sx24(b)) >> 32); }); break;
    case Op::v_mul_u32_u24: i2(x, [](U32 a, U32 b) { return static_cast<U32>(U64{a & 0xffffffu} * (b & 0xffffffu)); }); break;
    case Op::v_mul_hi_u32_u24: i2(x, [](U32 a, U32 b) { return static_cast<U32>((U64{a & 0xffffffu} * (b & 0xffffffu)) >> 32); }); break;
    case Op::v_mad_i32_i24: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(I64{sx24(a)} * sx24(b) + static_cast<I32>(c)); }); break;
    case Op::v_mad_u32_u24: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(U64{a & 0xffffffu} * (b & 0xffffffu) + c); }); break;
    case Op::v_mad_u32_u16: i3(x, [](U32 a, U32 b, U32 c) { return (a & 0xffffu) * (b & 0xffffu) + c; }); break;
    case Op::v_mad_i32_i16: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(sx16(a) * sx16(b) + static_cast<I32>(c)); }); break;
    case Op::v_min_i32: i2(x, [](U32 a, U32 b) { return static_cast<U32>(std::min(static_cast<I32>(a), static_cast<I32>(b))); }); break;
    case Op::v_max_i32: i2(x, [](U32 a, U32 b) { return static_cast<U32>(std::max(static_cast<I32>(a), static_cast<I32>(b))); }); break;
    case Op::v_min_u32: i2(x, [](U32 a, U32 b) { return std::min(a, b); }); break;
    case Op::v_max_u32: i2(x, [](U32 a, U32 b) { return std::max(a, b); }); break;
    case Op::v_min3_i32: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(std::min({static_cast<I32>(a), static_cast<I32>(b), static_cast<I32>(c)})); }); break;
    case Op::v_max3_i32: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(std::max({static_cast<I32>(a), static_cast<I32>(b), static_cast<I32>(c)})); }); break;
    case Op::v_med3_i32: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(med3i(static_cast<I32>(a), static_cast<I32>(b), static_cast<I32>(c))); }); break;
    case Op::v_min3_u32: i3(x, [](U32 a, U32 b, U32 c) { return std::min({a, b, c}); }); break;
    case Op::v_max3_u32: i3(x, [](U32 a, U32 b, U32 c) { return std::max({a, b, c}); }); break;
    case Op::v_med3_u32: i3(x, [](U32 a, U32 b, U32 c) { return med3i(a, b, c); }); break;
    case Op::v_lshrrev_b32: i2(x, [](U32 a, U32 b) { return b >> (a & 31); }); break;
    case Op::v_ashrrev_i32: i2(x, [](U32 a, U32 b) { return static_cast<U32>(static_cast<I32>(b) >> (a & 31)); }); break;
    case Op::v_lshlrev_b32: i2(x, [](U32 a, U32 b) { return b << (a & 31); }); break;
    case Op::v_and_b32: i2(x, [](U32 a, U32 b) { return a & b; }); break;
    case Op::v_or_b32: i2(x, [](U32 a, U32 b) { return a | b; }); break;
    case Op::v_xor_b32: i2(x, [](U32 a, U32 b) { return a ^ b; }); break;
    case Op::v_xnor_b32: i2(x, [](U32 a, U32 b) { return ~(a ^ b); }); break;
    case Op::v_not_b32: i1(x, [](U32 a) { return ~a; }); break;
    case Op::v_bfrev_b32: i1(x, [](U32 a) { return bitreverse32(a); }); break;
    case Op::v_ffbh_u32: i1(x, [](U32 a) { return a ? static_cast<U32>(std::countl_zero(a)) : 0xffffffffu; }); break;
    case Op::v_ffbl_b32: i1(x, [](U32 a) { return a ? static_cast<U32>(std::countr_zero(a)) : 0xffffffffu; }); break;
    case Op::v_ffbh_i32:
      i1(x, [](U32 a) {
        if (a == 0 || a == 0xffffffffu) return 0xffffffffu;
        return static_cast<U32>(std::countl_zero(static_cast<I32>(a) < 0 ? ~a : a));
      });
      break;
    case Op::v_bfe_u32:
      i3(x, [](U32 a, U32 b, U32 c) { const U32 wd = c & 31; return wd ? (a >> (b & 31)) & ((1u << wd) - 1) : 0u; });
      break;
    case Op::v_bfe_i32:
      i3(x, [](U32 a, U32 b, U32 c) {
        const U32 wd = c & 31;
        if (!wd) return 0u;
        U32 v = (a >> (b & 31)) & ((1u << wd) - 1);
        if ((v >> (wd - 1)) & 1) v |= ~((1u << wd) - 1);
        return v;
      });
      break;
    case Op::v_bfi_b32: i3(x, [](U32 a, U32 b, U32 c) { return (a & b) | (~a & c); }); break;
    case Op::v_bfm_b32: i2(x, [](U32 a, U32 b) { return ((1u << (a & 31)) - 1) << (b & 31); }); break;
    case Op::v_alignbit_b32: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(((U64{a} << 32) | b) >> (c & 31)); }); break;
    case Op::v_alignbyte_b32: i3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(((U64{a} << 32) | b) >> (8 * (c & 3))); }); break;
    case Op::v_perm_b32:
      i3(x, [](U32 a, U32 b, U32 c) {
        U32 r = 0;
        for (int k = 0; k < 4; ++k) r |= perm_byte(a, b, (c >> (8 * k)) & 0xff) << (8 * k);
        return r;
      });
      break;
    case Op::v_lerp_u8:
      i3(x, [](U32 a, U32 b, U32 c) {
        U32 r = 0;
        for (int k = 0; k < 4; ++k) {
          U32 s = ((a >> (8 * k)) & 0xff) + ((b >> (8 * k)) & 0xff) + ((c >> (8 * k)) & 1);
          r |= ((s >> 1) & 0xff) << (8 * k);
        }
        return r;
      });
      break;
    case Op::v_sad_u8: case Op::v_sad_hi_u8: case Op::v_msad_u8: {
      const Op op = in.op;
      i3(x, [op](U32 a, U32 b, U32 c) {
        U32 s = 0;
        for (int k = 0; k < 4; ++k) {
          const U32 p = (a >> (8 * k)) & 0xff, q = (b >> (8 * k)) & 0xff;
          if (op == Op::v_msad_u8 && q == 0) continue;
          s += p > q ? p - q : q - p;
        }
        return op == Op::v_sad_hi_u8 ? (s << 16) + c : s + c;
      });
      break;
    }
    case Op::v_sad_u16:
      i3(x, [](U32 a, U32 b, U32 c) {
        U32 s = 0;
        for (int k = 0; k < 2; ++k) {
          const U32 p = (a >> (16 * k)) & 0xffff, q = (b >> (16 * k)) & 0xffff;
          s += p > q ? p - q : q - p;
        }
        return s + c;
      });
      break;
    case Op::v_sad_u32: i3(x, [](U32 a, U32 b, U32 c) { return (a > b ? a - b : b - a) + c; }); break;
    case Op::v_xad_u32: i3(x, [](U32 a, U32 b, U32 c) { return (a ^ b) + c; }); break;
    case Op::v_lshl_add_u32: i3(x, [](U32 a, U32 b, U32 c) { return (a << (b & 31)) + c; }); break;
    case Op::v_add_lshl_u32: i3(x, [](U32 a, U32 b, U32 c) { return (a + b) << (c & 31); }); break;
    case Op::v_add3_u32: i3(x, [](U32 a, U32 b, U32 c) { return a + b + c; }); break;
    case Op::v_lshl_or_b32: i3(x, [](U32 a, U32 b, U32 c) { return (a << (b & 31)) | c; }); break;
    case Op::v_and_or_b32: i3(x, [](U32 a, U32 b, U32 c) { return (a & b) | c; }); break;
    case Op::v_or3_b32: i3(x, [](U32 a, U32 b, U32 c) { return a | b | c; }); break;
    case Op::v_bitop3_b32: case Op::v_bitop3_b16: {
      const U32 table = static_cast<U32>(in.simm) & 0xff;
      const bool b16 = in.op == Op::v_bitop3_b16;
      i3(x, [table, b16](U32 a, U32 b, U32 c) {
        U32 r = 0;
        for (int i = 0; i < (b16 ? 16 : 32); ++i) {
          const U32 idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
          r |= ((table >> idx) & 1) << i;
        }
        return r;
      });
      break;
    }
    case Op::v_bcnt_u32_b32: i2(x, [](U32 a, U32 b) { return static_cast<U32>(std::popcount(a)) + b; }); break;
    case Op::v_mbcnt_lo_u32_b32: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const U32 below = l >= 32 ? 0xffffffffu : ((1u << l) - 1);
        r[l] = static_cast<U32>(std::popcount(a[l] & below)) + b[l];
      }
      write32(x, r);
      break;
    }
    case Op::v_mbcnt_hi_u32_b32: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const U32 below = l < 32 ? 0u : ((U64{1} << (l - 32)) - 1);
        r[l] = static_cast<U32>(std::popcount(a[l] & below)) + b[l];
      }
      write32(x, r);
      break;
    }

    // ---- 64-bit integer
    case Op::v_lshlrev_b64: case Op::v_lshrrev_b64: case Op::v_ashrrev_i64: {
      const U32* s = raw(x, 0);
      const U64* v = qsrc(x, 1, false);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) {
        const U32 sh = s[l] & 63;
        r[l] = in.op == Op::v_lshlrev_b64 ? v[l] << sh
               : in.op == Op::v_lshrrev_b64 ? v[l] >> sh
               : static_cast<U64>(static_cast<I64>(v[l]) >> sh);
      }
      write64(x, r);
      break;
    }
    case Op::v_lshl_add_u64: {
      const U64* a = qsrc(x, 0, false);
      const U32* s = raw(x, 1);
      const U64* c = qsrc(x, 2, false);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) r[l] = (a[l] << (s[l] & 63)) + c[l];
      write64(x, r);
      break;
    }
    case Op::v_mad_u64_u32: case Op::v_mad_i64_i32: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      const U64* c = qsrc(x, 2, false);
      alignas(64) U64 r[N];
      U64 cout = 0;
      for (int l = 0; l < N; ++l) {
        if (in.op == Op::v_mad_u64_u32) {
          unsigned __int128 v = static_cast<unsigned __int128>(U64{a[l]} * b[l]) + c[l];
          r[l] = static_cast<U64>(v);
          if (v >> 64) cout |= lane_bit(l);
        } else {
          __int128 v = static_cast<__int128>(I64{static_cast<I32>(a[l])} * static_cast<I32>(b[l])) + static_cast<I64>(c[l]);
          r[l] = static_cast<U64>(v);
          if (v != static_cast<I64>(v)) cout |= lane_bit(l);
        }
      }
      write64(x, r);
      if (in.ndst > 1) write_mask(x, in.dst[1], cout);
      break;
    }

    // ---- f32
    case Op::v_add_f32: f2(x, [](float a, float b) { return a + b; }); break;
    case Op::v_sub_f32: f2(x, [](float a, float b) { return a - b; }); break;
    case Op::v_subrev_f32: f2(x, [](float a, float b) { return b - a; }); break;
    case Op::v_mul_f32: f2(x, [](float a, float b) { return a * b; }); break;
    case Op::v_mul_legacy_f32: f2(x, mul_legacy); break;
    case Op::v_min_f32: f2(x, [](float a, float b) { return ieee_min(a, b); }); break;
    case Op::v_max_f32: f2(x, [](float a, float b) { return ieee_max(a, b); }); break;
    case Op::v_min3_f32: f3(x, [](float a, float b, float c) { return ieee_min(ieee_min(a, b), c); }); break;
    case Op::v_max3_f32: f3(x, [](float a, float b, float c) { return ieee_max(ieee_max(a, b), c); }); break;
    case Op::v_med3_f32: f3(x, [](float a, float b, float c) { return med3(a, b, c); }); break;
    case Op::v_minimum3_f32:
      f3(x, [](float a, float b, float c) {
        if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return std::nanf("");
        return ieee_min(ieee_min(a, b), c);
      });
      break;
    case Op::v_maximum3_f32:
      f3(x, [](float a, float b, float c) {
        if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return std::nanf("");
        return ieee_max(ieee_max(a, b), c);
      });
      break;
    case Op::v_fma_f32: f3(x, [](float a, float b, float c) { return fma32(a, b, c); }); break;
    case Op::v_mad_f32: f3(x, [](float a, float b, float c) { return a * b + c; }); break;
    case Op::v_mad_legacy_f32: f3(x, [](float a, float b, float c) { return mul_legacy(a, b) + c; }); break;
    case Op::v_fmac_f32: case Op::v_mac_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      U32* d = dst_row(x, in.dst[0]);
      alignas(64) U32 r[N];
      const bool fused = in.op == Op::v_fmac_f32;
      for (int l = 0; l < N; ++l) {
        const float p = as_f32(a[l]), q = as_f32(b[l]), c = as_f32(d[l]);
        r[l] = f32_bits(apply_omod_clamp(in, fused ? fma32(p, q, c) : p * q + c));
      }
      write32(x, r);
      break;
    }
    case Op::v_fmamk_f32: case Op::v_fmaak_f32: f3(x, [](float a, float b, float c) { return fma32(a, b, c); }); break;
    case Op::v_madmk_f32: case Op::v_madak_f32: f3(x, [](float a, float b, float c) { return a * b + c; }); break;
    case Op::v_ldexp_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = raw(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = f32_bits(apply_omod_clamp(in, std::ldexp(as_f32(a[l]), static_cast<I32>(b[l]))));
      write32(x, r);
      break;
    }
    case Op::v_fract_f32: f1(x, fract32); break;
    case Op::v_trunc_f32: f1(x, [](float a) { return std::trunc(a); }); break;
    case Op::v_ceil_f32: f1(x, [](float a) { return std::ceil(a); }); break;
    case Op::v_rndne_f32: f1(x, [](float a) { return std::nearbyint(a); }); break;
    case Op::v_floor_f32: f1(x, [](float a) { return std::floor(a); }); break;
    case Op::v_exp_f32: case Op::v_exp_legacy_f32: f1(x, [](float a) { return static_cast<float>(std::exp2(double{a})); }); break;
    case Op::v_log_f32: case Op::v_log_legacy_f32: f1(x, [](float a) { return static_cast<float>(std::log2(double{a})); }); break;
    case Op::v_rcp_f32: case Op::v_rcp_iflag_f32: f1(x, [](float a) { return static_cast<float>(1.0 / double{a}); }); break;
    case Op::v_rsq_f32: f1(x, [](float a) { return static_cast<float>(1.0 / std::sqrt(double{a})); }); break;
    case Op::v_sqrt_f32: f1(x, [](float a) { return std::sqrt(a); }); break;
    case Op::v_sin_f32: f1(x, [](float a) { return static_cast<float>(std::sin(double{a} * 6.283185307179586476925)); }); break;
    case Op::v_cos_f32: f1(x, [](float a) { return static_cast<float>(std::cos(double{a} * 6.283185307179586476925)); }); break;
    case Op::v_frexp_mant_f32:
      f1(x, [](float a) {
        if (std::isnan(a) || std::isinf(a)) return a;
        int e;
        return std::frexp(a, &e);
      });
      break;
    case Op::v_frexp_exp_i32_f32:
      i1(x, [](U32 a) {
        float v = as_f32(a);
        if (std::isnan(v) || std::isinf(v)) return 0u;
        int e;
        std::frexp(v, &e);
        return static_cast<U32>(e);
      });
      break;
    case Op::v_div_scale_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      const U32* c = fsrc(x, 2);
      alignas(64) U32 r[N];
      U64 vcc = 0;
      for (int l = 0; l < N; ++l) {
        bool v;
        r[l] = f32_bits(div_scale(as_f32(a[l]), as_f32(b[l]), as_f32(c[l]), v));
        if (v) vcc |= lane_bit(l);
      }
      write32(x, r);
      if (in.ndst > 1) write_mask(x, in.dst[1], vcc);
      break;
    }
    case Op::v_div_fmas_f32: {
      const U64 vcc = w.vcc();
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      const U32* c = fsrc(x, 2);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l)
        r[l] = f32_bits(apply_omod_clamp(in, div_fmas(as_f32(a[l]), as_f32(b[l]), as_f32(c[l]), (vcc >> l) & 1)));
      write32(x, r);
      break;
    }
    case Op::v_div_fixup_f32: f3(x, [](float q, float d, float n) { return div_fixup(q, d, n); }); break;

    // ---- f64
    case Op::v_add_f64: d2(x, [](double a, double b) { return a + b; }); break;
    case Op::v_mul_f64: d2(x, [](double a, double b) { return a * b; }); break;
    case Op::v_min_f64: d2(x, [](double a, double b) { return ieee_min(a, b); }); break;
    case Op::v_max_f64: d2(x, [](double a, double b) { return ieee_max(a, b); }); break;
    case Op::v_fma_f64: d3(x, [](double a, double b, double c) { return std::fma(a, b, c); }); break;
    case Op::v_fmac_f64: {
      const U64* a = qsrc(x, 0, true);
      const U64* b = qsrc(x, 1, true);
      const U32* dl = dst_row(x, in.dst[0]);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) {
        const double c = as_f64(dl[l] | (U64{dl[l + N]} << 32));
        r[l] = f64_bits(apply_omod_clamp(in, std::fma(as_f64(a[l]), as_f64(b[l]), c)));
      }
      write64(x, r);
      break;
    }
    case Op::v_ldexp_f64: {
      const U64* a = qsrc(x, 0, true);
      const U32* b = raw(x, 1);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) r[l] = f64_bits(apply_omod_clamp(in, std::ldexp(as_f64(a[l]), static_cast<I32>(b[l]))));
      write64(x, r);
      break;
    }
    case Op::v_trunc_f64: d1(x, [](double a) { return std::trunc(a); }); break;
    case Op::v_ceil_f64: d1(x, [](double a) { return std::ceil(a); }); break;
    case Op::v_rndne_f64: d1(x, [](double a) { return std::nearbyint(a); }); break;
    case Op::v_floor_f64: d1(x, [](double a) { return std::floor(a); }); break;
    case Op::v_fract_f64: d1(x, fract64); break;
    case Op::v_rcp_f64: d1(x, [](double a) { return 1.0 / a; }); break;
    case Op::v_rsq_f64: d1(x, [](double a) { return 1.0 / std::sqrt(a); }); break;
    case Op::v_sqrt_f64: d1(x, [](double a) { return std::sqrt(a); }); break;
    case Op::v_frexp_mant_f64:
      d1(x, [](double a) {
        if (std::isnan(a) || std::isinf(a)) return a;
        int e;
        return std::frexp(a, &e);
      });
      break;
    case Op::v_frexp_exp_i32_f64: {
      const U64* a = qsrc(x, 0, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const double v = as_f64(a[l]);
        int e = 0;
        if (!std::isnan(v) && !std::isinf(v)) std::frexp(v, &e);
        r[l] = static_cast<U32>(e);
      }
      write32(x, r);
      break;
    }
    case Op::v_trig_preop_f64: {
      const U64* a = qsrc(x, 0, true);
      const U32* b = raw(x, 1);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) r[l] = f64_bits(trig_preop(as_f64(a[l]), b[l]));
      write64(x, r);
      break;
    }
    case Op::v_div_scale_f64: {
      const U64* a = qsrc(x, 0, true);
      const U64* b = qsrc(x, 1, true);
      const U64* c = qsrc(x, 2, true);
      alignas(64) U64 r[N];
      U64 vcc = 0;
      for (int l = 0; l < N; ++l) {
        bool v;
        r[l] = f64_bits(div_scale(as_f64(a[l]), as_f64(b[l]), as_f64(c[l]), v));
        if (v) vcc |= lane_bit(l);
      }
      write64(x, r);
      if (in.ndst > 1) write_mask(x, in.dst[1], vcc);
      break;
    }
    case Op::v_div_fmas_f64: {
      const U64 vcc = w.vcc();
      const U64* a = qsrc(x, 0, true);
      const U64* b = qsrc(x, 1, true);
      const U64* c = qsrc(x, 2, true);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) r[l] = f64_bits(div_fmas(as_f64(a[l]), as_f64(b[l]), as_f64(c[l]), (vcc >> l) & 1));
      write64(x, r);
      break;
    }
    case Op::v_div_fixup_f64: d3(x, [](double q, double d, double n) { return div_fixup(q, d, n); }); break;

    // ---- conversions
    case Op::v_cvt_f32_i32: i1(x, [](U32 a) { return f32_bits(static_cast<float>(static_cast<I32>(a))); }); break;
    case Op::v_cvt_f32_u32: i1(x, [](U32 a) { return f32_bits(static_cast<float>(a)); }); break;
    case Op::v_cvt_i32_f32: { const U32* a = fsrc(x, 0); alignas(64) U32 r[N]; for (int l = 0; l < N; ++l) r[l] = static_cast<U32>(f2i(as_f32(a[l]))); write32(x, r); break; }
    case Op::v_cvt_u32_f32: { const U32* a = fsrc(x, 0); alignas(64) U32 r[N]; for (int l = 0; l < N; ++l) r[l] = f2u(as_f32(a[l])); write32(x, r); break; }
    case Op::v_cvt_rpi_i32_f32: { const U32* a = fsrc(x, 0); alignas(64) U32 r[N]; for (int l = 0; l < N; ++l) r[l] = static_cast<U32>(f2i(std::floor(double{as_f32(a[l])} + 0.5))); write32(x, r); break; }
    case Op::v_cvt_flr_i32_f32: { const U32* a = fsrc(x, 0); alignas(64) U32 r[N]; for (int l = 0; l < N; ++l) r[l] = static_cast<U32>(f2i(std::floor(double{as_f32(a[l])}))); write32(x, r); break; }
    case Op::v_cvt_off_f32_i4: i1(x, [](U32 a) { I32 v = static_cast<I32>(a << 28) >> 28; return f32_bits(static_cast<float>(v) / 16.0f); }); break;
    case Op::v_cvt_f32_ubyte0: case Op::v_cvt_f32_ubyte1: case Op::v_cvt_f32_ubyte2: case Op::v_cvt_f32_ubyte3: {
      const int sh = 8 * (static_cast<int>(in.op) - static_cast<int>(Op::v_cvt_f32_ubyte0));
      i1(x, [sh](U32 a) { return f32_bits(static_cast<float>((a >> sh) & 0xff)); });
      break;
    }
    case Op::v_cvt_f64_i32: { const U32* a = raw(x, 0); alignas(64) U64 r[N]; for (int l = 0; l < N; ++l) r[l] = f64_bits(static_cast<double>(static_cast<I32>(a[l]))); write64(x, r); break; }
    case Op::v_cvt_f64_u32: { const U32* a = raw(x, 0); alignas(64) U64 r[N]; for (int l = 0; l < N; ++l) r[l] = f64_bits(static_cast<double>(a[l])); write64(x, r); break; }
    case Op::v_cvt_i32_f64: case Op::v_cvt_u32_f64: {
      const U64* a = qsrc(x, 0, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = in.op == Op::v_cvt_i32_f64 ? static_cast<U32>(f2i(as_f64(a[l]))) : f2u(as_f64(a[l]));
      write32(x, r);
      break;
    }
    case Op::v_cvt_f32_f64: {
      const U64* a = qsrc(x, 0, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = f32_bits(apply_omod_clamp(in, static_cast<float>(as_f64(a[l]))));
      write32(x, r);
      break;
    }
    case Op::v_cvt_f64_f32: {
      const U32* a = fsrc(x, 0);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) r[l] = f64_bits(apply_omod_clamp(in, static_cast<double>(as_f32(a[l]))));
      write64(x, r);
      break;
    }
    case Op::v_cvt_f16_f32: {
      const U32* a = fsrc(x, 0);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = to_half(apply_omod_clamp(in, double{as_f32(a[l])}));
      write16(x, r);
      break;
    }
    case Op::v_cvt_f32_f16: {
      const U32* a = hsrc(x, 0, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = f32_bits(apply_omod_clamp(in, from_half(a[l])));
      write32(x, r);
      break;
    }
    case Op::v_cvt_f32_bf16: {
      const U32* a = hsrc(x, 0, false);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = a[l] << 16;
      write32(x, r);
      break;
    }
    case Op::v_cvt_f16_u16: {
      const U32* a = hsrc(x, 0, false);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = to_half(static_cast<double>(a[l] & 0xffff));
      write16(x, r);
      break;
    }
    case Op::v_cvt_f16_i16: {
      const U32* a = hsrc(x, 0, false);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = to_half(static_cast<double>(sx16(a[l])));
      write16(x, r);
      break;
    }
    case Op::v_cvt_u16_f16: case Op::v_cvt_i16_f16: {
      const U32* a = hsrc(x, 0, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const double v = from_half(a[l]);
        r[l] = std::isnan(v) ? 0u
               : in.op == Op::v_cvt_u16_f16 ? sat16u(static_cast<I64>(std::trunc(std::max(v, -1.0))))
               : static_cast<U32>(sat16s(static_cast<I64>(std::trunc(std::min(std::max(v, -40000.0), 40000.0)))));
      }
      write16(x, r);
      break;
    }
    case Op::v_cvt_pkrtz_f16_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l)
        r[l] = round_to_format(as_f32(a[l]), FloatFormat::F16, RoundMode::TowardZero) |
               (round_to_format(as_f32(b[l]), FloatFormat::F16, RoundMode::TowardZero) << 16);
      write32(x, r);
      break;
    }
    case Op::v_cvt_pk_f16_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = to_half(as_f32(a[l])) | (U32{to_half(as_f32(b[l]))} << 16);
      write32(x, r);
      break;
    }
    case Op::v_cvt_pk_bf16_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = to_bf16(as_f32(a[l])) | (U32{to_bf16(as_f32(b[l]))} << 16);
      write32(x, r);
      break;
    }
    case Op::v_cvt_pknorm_i16_f32: case Op::v_cvt_pknorm_u16_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      const bool sg = in.op == Op::v_cvt_pknorm_i16_f32;
      auto cv = [sg](float v) -> U32 {
        if (std::isnan(v)) return 0;
        if (sg) return static_cast<U32>(sat16s(static_cast<I64>(std::nearbyint(std::min(std::max(double{v}, -1.0), 1.0) * 32767.0)))) & 0xffff;
        return sat16u(static_cast<I64>(std::nearbyint(std::min(std::max(double{v}, 0.0), 1.0) * 65535.0)));
      };
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = cv(as_f32(a[l])) | (cv(as_f32(b[l])) << 16);
      write32(x, r);
      break;
    }
    case Op::v_cvt_pk_u16_u32: i2(x, [](U32 a, U32 b) { return std::min(a, 0xffffu) | (std::min(b, 0xffffu) << 16); }); break;
    case Op::v_cvt_pk_i16_i32:
      i2(x, [](U32 a, U32 b) { return (static_cast<U32>(sat16s(static_cast<I32>(a))) & 0xffff) | (static_cast<U32>(sat16s(static_cast<I32>(b))) << 16); });
      break;
    case Op::v_cvt_pk_u8_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = raw(x, 1);
      const U32* c = raw(x, 2);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const float v = as_f32(a[l]);
        const U32 byte = std::isnan(v) ? 0u : static_cast<U32>(std::min(std::max(std::nearbyint(v), 0.0f), 255.0f));
        const U32 sh = 8 * (b[l] & 3);
        r[l] = (c[l] & ~(0xffu << sh)) | (byte << sh);
      }
      write32(x, r);
      break;
    }
    case Op::v_sat_pk_u8_i16:
      i1(x, [](U32 a) { return std::min<U32>(static_cast<U32>(std::max(sx16(a), 0)), 255u) | (std::min<U32>(static_cast<U32>(std::max(sx16(a >> 16), 0)), 255u) << 8); });
      break;
    case Op::v_pack_b32_f16: {
      const U32* a = hsrc(x, 0, true);
      const U32* b = hsrc(x, 1, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = (a[l] & 0xffff) | (b[l] << 16);
      write32(x, r);
      break;
    }
    case Op::v_cvt_f32_fp8: case Op::v_cvt_f32_bf8: {
      if (in.enc == Enc::E64 && (in.src[0].mods & (kOpSel | kDstOpSel))) unsupported(in, "op_sel byte selection of " + p.text[in.text]);
      const U32* a = raw(x, 0);  // SDWA src0_sel picks the byte
      const Fp8Format f = fp8_format(ocp_fp8, in.op == Op::v_cvt_f32_bf8);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = f32_bits(fp8_decode(a[l] & 0xff, f));
      write32(x, r);
      break;
    }
    case Op::v_cvt_pk_f32_fp8: case Op::v_cvt_pk_f32_bf8: {
      if (in.enc == Enc::E64 && (in.src[0].mods & (kOpSel | kDstOpSel))) unsupported(in, "op_sel word selection of " + p.text[in.text]);
      const U32* a = raw(x, 0);  // SDWA src0_sel picks the word
      const Fp8Format f = fp8_format(ocp_fp8, in.op == Op::v_cvt_pk_f32_bf8);
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l)
        r[l] = f32_bits(fp8_decode(a[l] & 0xff, f)) | (U64{f32_bits(fp8_decode((a[l] >> 8) & 0xff, f))} << 32);
      write64(x, r);
      break;
    }
    case Op::v_cvt_pk_fp8_f32: case Op::v_cvt_pk_bf8_f32: {
      const U32* a = fsrc(x, 0);
      const U32* b = fsrc(x, 1);
      const Fp8Format f = fp8_format(ocp_fp8, in.op == Op::v_cvt_pk_bf8_f32);
      const bool hi = in.src[0].mods & kDstOpSel;
      U32* d = dst_row(x, in.dst[0]);
      for_lanes(x.mask, [&](int l) {
        const U32 v = fp8_encode(as_f32(a[l]), f, in.clamp) | (fp8_encode(as_f32(b[l]), f, in.clamp) << 8);
        d[l] = hi ? (d[l] & 0xffffu) | (v << 16) : (d[l] & 0xffff0000u) | v;
      });
      break;
    }

    // ---- f16
    case Op::v_add_f16: h2(x, [](double a, double b) { return a + b; }); break;
    case Op::v_sub_f16: h2(x, [](double a, double b) { return a - b; }); break;
    case Op::v_subrev_f16: h2(x, [](double a, double b) { return b - a; }); break;
    case Op::v_mul_f16: h2(x, [](double a, double b) { return a * b; }); break;
    case Op::v_min_f16: h2(x, [](double a, double b) { return ieee_min(a, b); }); break;
    case Op::v_max_f16: h2(x, [](double a, double b) { return ieee_max(a, b); }); break;
    case Op::v_ldexp_f16: {
      const U32* a = hsrc(x, 0, true);
      const U32* b = raw(x, 1);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) r[l] = to_half(std::ldexp(double{from_half(a[l])}, std::min(std::max(static_cast<I32>(b[l]), -64), 64)));
      write16(x, r);
      break;
    }
    case Op::v_fma_f16: case Op::v_fma_legacy_f16: h3(x, [](double a, double b, double c) { return std::fma(a, b, c); }); break;
    case Op::v_mad_f16: case Op::v_mad_legacy_f16:
      h3(x, [](double a, double b, double c) { return double{from_half(to_half(a * b))} + c; });
      break;
    case Op::v_min3_f16: h3(x, [](double a, double b, double c) { return ieee_min(ieee_min(a, b), c); }); break;
    case Op::v_max3_f16: h3(x, [](double a, double b, double c) { return ieee_max(ieee_max(a, b), c); }); break;
    case Op::v_med3_f16: h3(x, [](double a, double b, double c) { return med3(a, b, c); }); break;
    case Op::v_mac_f16: case Op::v_madmk_f16: case Op::v_madak_f16: {
      const U32* a = hsrc(x, 0, true);
      const U32* b = hsrc(x, 1, true);
      const U32* d = dst_row(x, in.dst[0]);
      const U32* c = in.op == Op::v_mac_f16 ? d : hsrc(x, 2, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l)
        r[l] = to_half(double{from_half(to_half(double{from_half(a[l])} * from_half(b[l])))} + from_half(c[l] & 0xffff));
      write16(x, r);
      break;
    }
    case Op::v_div_fixup_f16: case Op::v_div_fixup_legacy_f16:
      h3(x, [](double q, double d, double n) { return static_cast<double>(div_fixup(static_cast<float>(q), static_cast<float>(d), static_cast<float>(n))); });
      break;
    case Op::v_rcp_f16: h1(x, [](double a) { return 1.0 / a; }); break;
    case Op::v_sqrt_f16: h1(x, [](double a) { return std::sqrt(a); }); break;
    case Op::v_rsq_f16: h1(x, [](double a) { return 1.0 / std::sqrt(a); }); break;
    case Op::v_log_f16: h1(x, [](double a) { return std::log2(a); }); break;
    case Op::v_exp_f16: h1(x, [](double a) { return std::exp2(a); }); break;
    case Op::v_sin_f16: h1(x, [](double a) { return std::sin(a * 6.283185307179586476925); }); break;
    case Op::v_cos_f16: h1(x, [](double a) { return std::cos(a * 6.283185307179586476925); }); break;
    case Op::v_floor_f16: h1(x, [](double a) { return std::floor(a); }); break;
    case Op::v_ceil_f16: h1(x, [](double a) { return std::ceil(a); }); break;
    case Op::v_trunc_f16: h1(x, [](double a) { return std::trunc(a); }); break;
    case Op::v_rndne_f16: h1(x, [](double a) { return std::nearbyint(a); }); break;
    case Op::v_fract_f16: h1(x, [](double a) { return std::isinf(a) ? std::nan("") : std::min(a - std::floor(a), 0x1.ffcp-1); }); break;
    case Op::v_frexp_mant_f16: h1(x, [](double a) { if (std::isnan(a) || std::isinf(a)) return a; int e; return std::frexp(a, &e); }); break;
    case Op::v_frexp_exp_i16_f16: {
      const U32* a = hsrc(x, 0, true);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const double v = from_half(a[l]);
        int e = 0;
        if (!std::isnan(v) && !std::isinf(v)) std::frexp(v, &e);
        r[l] = static_cast<U32>(e) & 0xffff;
      }
      write16(x, r);
      break;
    }

    // ---- 16-bit integer
    case Op::v_add_u16: s2(x, [&](U32 a, U32 b) { U32 v = a + b; return in.clamp && v > 0xffff ? 0xffffu : v; }); break;
    case Op::v_sub_u16: s2(x, [&](U32 a, U32 b) { return in.clamp && b > a ? 0u : a - b; }); break;
    case Op::v_subrev_u16: s2(x, [&](U32 a, U32 b) { return in.clamp && a > b ? 0u : b - a; }); break;
    case Op::v_add_i16: s2(x, [&](U32 a, U32 b) { I32 v = sx16(a) + sx16(b); return static_cast<U32>(in.clamp ? sat16s(v) : v); }); break;
    case Op::v_sub_i16: s2(x, [&](U32 a, U32 b) { I32 v = sx16(a) - sx16(b); return static_cast<U32>(in.clamp ? sat16s(v) : v); }); break;
    case Op::v_mul_lo_u16: s2(x, [](U32 a, U32 b) { return a * b; }); break;
    case Op::v_lshlrev_b16: s2(x, [](U32 a, U32 b) { return b << (a & 15); }); break;
    case Op::v_lshrrev_b16: s2(x, [](U32 a, U32 b) { return (b & 0xffff) >> (a & 15); }); break;
    case Op::v_ashrrev_i16: s2(x, [](U32 a, U32 b) { return static_cast<U32>(sx16(b) >> (a & 15)); }); break;
    case Op::v_max_u16: s2(x, [](U32 a, U32 b) { return std::max(a, b); }); break;
    case Op::v_min_u16: s2(x, [](U32 a, U32 b) { return std::min(a, b); }); break;
    case Op::v_max_i16: s2(x, [](U32 a, U32 b) { return static_cast<U32>(std::max(sx16(a), sx16(b))); }); break;
    case Op::v_min_i16: s2(x, [](U32 a, U32 b) { return static_cast<U32>(std::min(sx16(a), sx16(b))); }); break;
    case Op::v_mad_u16: case Op::v_mad_legacy_u16: s3(x, [](U32 a, U32 b, U32 c) { return a * b + c; }); break;
    case Op::v_mad_i16: case Op::v_mad_legacy_i16: s3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(sx16(a) * sx16(b) + sx16(c)); }); break;
    case Op::v_min3_i16: s3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(std::min({sx16(a), sx16(b), sx16(c)})); }); break;
    case Op::v_max3_i16: s3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(std::max({sx16(a), sx16(b), sx16(c)})); }); break;
    case Op::v_med3_i16: s3(x, [](U32 a, U32 b, U32 c) { return static_cast<U32>(med3i(sx16(a), sx16(b), sx16(c))); }); break;
    case Op::v_min3_u16: s3(x, [](U32 a, U32 b, U32 c) { return std::min({a, b, c}); }); break;
    case Op::v_max3_u16: s3(x, [](U32 a, U32 b, U32 c) { return std::max({a, b, c}); }); break;
    case Op::v_med3_u16: s3(x, [](U32 a, U32 b, U32 c) { return med3i(a, b, c); }); break;

    // ---- packed (VOP3P)
    case Op::v_pk_add_f16: pkf16(x, 2, [](double a, double b, double) { return a + b; }); break;
    case Op::v_pk_mul_f16: pkf16(x, 2, [](double a, double b, double) { return a * b; }); break;
    case Op::v_pk_fma_f16: pkf16(x, 3, [](double a, double b, double c) { return std::fma(a, b, c); }); break;
    case Op::v_pk_min_f16: pkf16(x, 2, [](double a, double b, double) { return ieee_min(a, b); }); break;
    case Op::v_pk_max_f16: pkf16(x, 2, [](double a, double b, double) { return ieee_max(a, b); }); break;
    case Op::v_pk_fmac_f16: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      U32* d = dst_row(x, in.dst[0]);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        const U32 lo = to_half(std::fma(double{from_half(a[l] & 0xffff)}, double{from_half(b[l] & 0xffff)}, double{from_half(d[l] & 0xffff)}));
        const U32 hi = to_half(std::fma(double{from_half(a[l] >> 16)}, double{from_half(b[l] >> 16)}, double{from_half(d[l] >> 16)}));
        r[l] = lo | (hi << 16);
      }
      write32(x, r);
      break;
    }
    case Op::v_pk_add_u16: pk16(x, 2, false, [&](U32 a, U32 b, U32) { U32 v = a + b; return in.clamp && v > 0xffff ? 0xffffu : v; }); break;
    case Op::v_pk_sub_u16: pk16(x, 2, false, [&](U32 a, U32 b, U32) { return in.clamp && b > a ? 0u : a - b; }); break;
    case Op::v_pk_add_i16: pk16(x, 2, false, [&](U32 a, U32 b, U32) { I32 v = sx16(a) + sx16(b); return static_cast<U32>(in.clamp ? sat16s(v) : v); }); break;
    case Op::v_pk_sub_i16: pk16(x, 2, false, [&](U32 a, U32 b, U32) { I32 v = sx16(a) - sx16(b); return static_cast<U32>(in.clamp ? sat16s(v) : v); }); break;
    case Op::v_pk_mul_lo_u16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return a * b; }); break;
    case Op::v_pk_mad_u16: pk16(x, 3, false, [](U32 a, U32 b, U32 c) { return a * b + c; }); break;
    case Op::v_pk_mad_i16: pk16(x, 3, false, [](U32 a, U32 b, U32 c) { return static_cast<U32>(sx16(a) * sx16(b) + sx16(c)); }); break;
    case Op::v_pk_lshlrev_b16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return b << (a & 15); }); break;
    case Op::v_pk_lshrrev_b16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return b >> (a & 15); }); break;
    case Op::v_pk_ashrrev_i16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return static_cast<U32>(sx16(b) >> (a & 15)); }); break;
    case Op::v_pk_max_i16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return static_cast<U32>(std::max(sx16(a), sx16(b))); }); break;
    case Op::v_pk_min_i16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return static_cast<U32>(std::min(sx16(a), sx16(b))); }); break;
    case Op::v_pk_max_u16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return std::max(a, b); }); break;
    case Op::v_pk_min_u16: pk16(x, 2, false, [](U32 a, U32 b, U32) { return std::min(a, b); }); break;
    case Op::v_pk_add_f32: pkf32(x, 2, [](float a, float b, float) { return a + b; }); break;
    case Op::v_pk_mul_f32: pkf32(x, 2, [](float a, float b, float) { return a * b; }); break;
    case Op::v_pk_fma_f32: pkf32(x, 3, [](float a, float b, float c) { return fma32(a, b, c); }); break;
    case Op::v_pk_mov_b32: {
      const U64* a = qsrc(x, 0, false);
      const U64* b = qsrc(x, 1, false);
      const bool sa = in.src[0].mods & kOpSel, sb = in.src[1].mods & kOpSel;
      alignas(64) U64 r[N];
      for (int l = 0; l < N; ++l) r[l] = (sa ? a[l] >> 32 : a[l] & 0xffffffffu) | ((sb ? b[l] >> 32 : b[l] & 0xffffffffu) << 32);
      write64(x, r);
      break;
    }
    case Op::v_fma_mix_f32: case Op::v_mad_mix_f32: case Op::v_fma_mixlo_f16: case Op::v_fma_mixhi_f16:
    case Op::v_mad_mixlo_f16: case Op::v_mad_mixhi_f16: {
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      const U32* c = raw(x, 2);
      const bool fused = in.op == Op::v_fma_mix_f32 || in.op == Op::v_fma_mixlo_f16 || in.op == Op::v_fma_mixhi_f16;
      const int out = (in.op == Op::v_fma_mix_f32 || in.op == Op::v_mad_mix_f32) ? 0
                      : (in.op == Op::v_fma_mixlo_f16 || in.op == Op::v_mad_mixlo_f16) ? 1 : 2;
      U32* d = dst_row(x, in.dst[0]);
      for_lanes(x.mask, [&](int l) {
        const float p = mix_src(x, 0, a, l), q = mix_src(x, 1, b, l), s = mix_src(x, 2, c, l);
        float v = fused ? fma32(p, q, s) : p * q + s;
        if (in.clamp) v = std::isnan(v) ? 0.f : std::min(std::max(v, 0.f), 1.f);
        if (out == 0) d[l] = f32_bits(v);
        else if (out == 1) d[l] = (d[l] & 0xffff0000u) | to_half(v);
        else d[l] = (d[l] & 0xffffu) | (U32{to_half(v)} << 16);
      });
      break;
    }
    case Op::v_dot2_f32_f16: case Op::v_dot2_f32_bf16: case Op::v_dot2c_f32_f16: case Op::v_dot2c_f32_bf16: {
      const bool bf = in.op == Op::v_dot2_f32_bf16 || in.op == Op::v_dot2c_f32_bf16;
      const bool acc_dst = in.op == Op::v_dot2c_f32_f16 || in.op == Op::v_dot2c_f32_bf16;
      Halves ha = halves(x, 0, true), hb = halves(x, 1, true);
      if (!is_vop3p(in)) ha.sel_hi = hb.sel_hi = true, ha.sel_lo = hb.sel_lo = false, ha.neg_lo = ha.neg_hi = hb.neg_lo = hb.neg_hi = false;
      const U32* c = acc_dst ? dst_row(x, in.dst[0]) : raw(x, 2);
      auto cv = [bf](U32 h) { return bf ? double{from_bf16(h)} : double{from_half(h)}; };
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        double v = cv(ha.lo(l)) * cv(hb.lo(l)) + cv(ha.hi(l)) * cv(hb.hi(l)) + double{as_f32(c[l])};
        float f = static_cast<float>(v);
        if (in.clamp) f = std::isnan(f) ? 0.f : std::min(std::max(f, 0.f), 1.f);
        r[l] = f32_bits(f);
      }
      write32(x, r);
      break;
    }
    case Op::v_dot2_i32_i16: case Op::v_dot2_u32_u16: case Op::v_dot4_i32_i8: case Op::v_dot4_u32_u8:
    case Op::v_dot8_i32_i4: case Op::v_dot8_u32_u4: case Op::v_dot2c_i32_i16: case Op::v_dot4c_i32_i8: case Op::v_dot8c_i32_i4: {
      const Op op = in.op;
      const bool acc_dst = op == Op::v_dot2c_i32_i16 || op == Op::v_dot4c_i32_i8 || op == Op::v_dot8c_i32_i4;
      const int bits = (op == Op::v_dot2_i32_i16 || op == Op::v_dot2_u32_u16 || op == Op::v_dot2c_i32_i16) ? 16
                       : (op == Op::v_dot4_i32_i8 || op == Op::v_dot4_u32_u8 || op == Op::v_dot4c_i32_i8) ? 8 : 4;
      const bool sgn = op == Op::v_dot2_i32_i16 || op == Op::v_dot4_i32_i8 || op == Op::v_dot8_i32_i4 || acc_dst;
      const U32* a = raw(x, 0);
      const U32* b = raw(x, 1);
      const U32* c = acc_dst ? dst_row(x, in.dst[0]) : raw(x, 2);
      alignas(64) U32 r[N];
      for (int l = 0; l < N; ++l) {
        I64 s = sgn ? I64{static_cast<I32>(c[l])} : I64{c[l]};
        for (int k = 0; k < 32 / bits; ++k) {
          const U32 m = (1u << bits) - 1;
          U32 p = (a[l] >> (k * bits)) & m, q = (b[l] >> (k * bits)) & m;
          I64 pv = p, qv = q;
          if (sgn) {
            pv = static_cast<I64>(static_cast<I32>(p << (32 - bits)) >> (32 - bits));
            qv = static_cast<I64>(static_cast<I32>(q << (32 - bits)) >> (32 - bits));
          }
          s += pv * qv;
        }
        if (in.clamp) s = sgn ? std::min<I64>(std::max<I64>(s, INT32_MIN), INT32_MAX) : std::min<I64>(std::max<I64>(s, 0), 0xffffffffLL);
        r[l] = static_cast<U32>(s);
      }
      write32(x, r);
      break;
    }
    default:
      unsupported(in, std::string("the vector instruction ") + isa::amdgcn::to_string(in.op));
  }
}

// ---------------------------------------------------------------------------------------------
// VOPC

void AmdWorkgroup::Impl::vcmp(Wave& w, const Inst& in) {
  using isa::amdgcn::Cmp;
  using isa::amdgcn::DType;
  Ctx x(*this, w, in);
  const Cmp c = in.cmp;
  U64 bits = 0;
  auto fcmp = [c](double a, double b) -> bool {
    const bool un = std::isnan(a) || std::isnan(b);
    switch (c) {
      case Cmp::F: return false;
      case Cmp::Lt: return a < b;
      case Cmp::Eq: return a == b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Lg: return a < b || a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::O: return !un;
      case Cmp::U: return un;
      case Cmp::Nge: return !(a >= b);
      case Cmp::Nlg: return !(a < b || a > b);
      case Cmp::Ngt: return !(a > b);
      case Cmp::Nle: return !(a <= b);
      case Cmp::Neq: return !(a == b);
      case Cmp::Nlt: return !(a < b);
      case Cmp::Tru: return true;
      default: return false;
    }
  };
  auto icmp = [c](auto a, auto b) -> bool {
    switch (c) {
      case Cmp::F: return false;
      case Cmp::Lt: return a < b;
      case Cmp::Eq: return a == b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ne: case Cmp::Lg: return a != b;
      case Cmp::Ge: return a >= b;
      case Cmp::T: case Cmp::Tru: return true;
      default: return false;
    }
  };
  const DType t = in.type;
  if (c == Cmp::Class) {
    const U32* m = raw(x, 1);
    const U64* s64 = t == DType::F64 ? qsrc(x, 0, true) : nullptr;
    const U32* s32 = t == DType::F32 ? fsrc(x, 0) : t == DType::F16 ? hsrc(x, 0, true) : nullptr;
    for (int l = 0; l < N; ++l) {
      int cls;
      if (t == DType::F64) {
        const U64 v = s64[l];
        const double d = as_f64(v);
        cls = value_class(d, (v >> 51) & 1, ((v >> 52) & 0x7ff) == 0 && d != 0);
      } else if (t == DType::F32) {
        const U32 v = s32[l];
        cls = value_class(as_f32(v), (v >> 22) & 1, ((v >> 23) & 0xff) == 0 && (v & 0x7fffff));
      } else {
        const U32 v = s32[l];
        cls = value_class(from_half(v), (v >> 9) & 1, ((v >> 10) & 0x1f) == 0 && (v & 0x3ff));
      }
      if ((m[l] >> cls) & 1) bits |= lane_bit(l);
    }
  } else {
    switch (t) {
      case DType::F32: {
        const U32* a = fsrc(x, 0);
        const U32* b = fsrc(x, 1);
        for (int l = 0; l < N; ++l) bits |= U64{fcmp(as_f32(a[l]), as_f32(b[l]))} << l;
        break;
      }
      case DType::F64: {
        const U64* a = qsrc(x, 0, true);
        const U64* b = qsrc(x, 1, true);
        for (int l = 0; l < N; ++l) bits |= U64{fcmp(as_f64(a[l]), as_f64(b[l]))} << l;
        break;
      }
      case DType::F16: {
        const U32* a = hsrc(x, 0, true);
        const U32* b = hsrc(x, 1, true);
        for (int l = 0; l < N; ++l) bits |= U64{fcmp(from_half(a[l]), from_half(b[l]))} << l;
        break;
      }
      case DType::I32: case DType::U32: {
        const U32* a = raw(x, 0);
        const U32* b = raw(x, 1);
        for (int l = 0; l < N; ++l)
          bits |= U64{t == DType::I32 ? icmp(static_cast<I32>(a[l]), static_cast<I32>(b[l])) : icmp(a[l], b[l])} << l;
        break;
      }
      case DType::I16: case DType::U16: {
        const U32* a = hsrc(x, 0, false);
        const U32* b = hsrc(x, 1, false);
        for (int l = 0; l < N; ++l)
          bits |= U64{t == DType::I16 ? icmp(sx16(a[l]), sx16(b[l])) : icmp(a[l] & 0xffff, b[l] & 0xffff)} << l;
        break;
      }
      case DType::I64: case DType::U64: {
        const U64* a = qsrc(x, 0, false);
        const U64* b = qsrc(x, 1, false);
        for (int l = 0; l < N; ++l)
          bits |= U64{t == DType::I64 ? icmp(static_cast<I64>(a[l]), static_cast<I64>(b[l])) : icmp(a[l], b[l])} << l;
        break;
      }
      default:
        unsupported(in, std::string("compares of type ") + isa::amdgcn::to_string(t));
    }
  }
  bits &= x.mask;
  if (in.op == Op::v_cmpx) w.set_exec(bits);
  if (in.ndst) sset64(w, in.dst[0], bits);
}

}  // namespace kernsim::sim
