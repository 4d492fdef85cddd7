// Matrix fused multiply-add (v_mfma_*) of CDNA3 (gfx942) and CDNA4 (gfx950).
//
// One MFMA computes, for each of `blocks` independent blocks, D = A (M x K) * B (K x N) + C, with
// the operands spread over the wave's 64 lanes (AMD CDNA3 ISA, "Dense Matrix Layouts"):
//   A: lane l holds row l % M; lane group g = l / M holds K elements g*kpl .. g*kpl + kpl-1 (one
//      block) or, for multi-block shapes, block g; element e sits at bit e * width of the lane's
//      register(s).
//   B: the same with columns (lane l holds column l % N).
//   C, D: lane l holds column l % N; its register r holds row 4*(q % (M/4)) + r % 4 of block
//      q / (M/4), where q = (r / 4) * (64 / N) + l / N.
// Products of f16, bf16, fp8 and i8 values are exact; the sum is formed in double precision (i64
// for integers) and rounded once, so results can differ from the hardware's own accumulation
// order by rounding only. fp8/bf8 are FNUZ on gfx942 and OCP on gfx950. gfx950's f8f6f4 MFMA
// takes each operand's format from cbsz / blgp (fp8, bf8, fp6, bf6, fp4, 32 elements per lane
// packed without gaps) and, in its v_mfma_scale_* form, one E8M0 scale per lane for the lane's 32
// elements (byte op_sel + 2 * op_sel_hi of the scale register; A: bit 0, B: bit 1).
#include <cmath>

#include "base/float_format.h"
#include "sim/functional/amd_float.h"
#include "sim/functional/amd_impl.h"

namespace kernsim::sim {

using namespace amd;
using isa::amdgcn::DType;
using isa::amdgcn::MfmaShape;

namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

// Reads element e (of `bits` bits) of lane l of a register operand (or constant).
U64 element(Wave& w, const Operand& o, int l, int e, int bits) {
  if (o.kind == Kind::Imm) return bits == 64 ? o.imm : (o.imm & ((U64{1} << bits) - 1));
  const U32* base = o.kind == Kind::Agpr ? w.arow(o.reg) : w.vrow(o.reg);
  const int bit = e * bits;
  const int reg = bit / 32, sh = bit % 32;
  if (bits == 64) return base[static_cast<std::size_t>(reg) * kLanes + l] | (U64{base[static_cast<std::size_t>(reg + 1) * kLanes + l]} << 32);
  const U32 v = base[static_cast<std::size_t>(reg) * kLanes + l];
  return bits == 32 ? v : (v >> sh) & ((1u << bits) - 1);
}

// The f8f6f4 formats (gfx950), selected by cbsz (A) and blgp (B): 0 fp8 e4m3, 1 bf8 e5m2, 2 fp6
// e2m3, 3 bf6 e3m2, 4 fp4 e2m1 (OCP MX formats; fp6 and fp4 have no infinities or NaNs).
int f8f6f4_bits(int fmt) { return fmt <= 1 ? 8 : fmt <= 3 ? 6 : 4; }
double f8f6f4_decode(int fmt, U64 v) {
  if (fmt <= 1) return fp8_decode(static_cast<U32>(v), fp8_format(true, fmt == 1));
  return decode_mx(static_cast<U32>(v), fmt == 2 ? MxFormat::E2M3 : fmt == 3 ? MxFormat::E3M2 : MxFormat::E2M1);
}

// Element e (of `bits` bits, possibly straddling two registers) of lane l.
U64 packed_element(Wave& w, const Operand& o, int l, int e, int bits) {
  const U32* base = o.kind == Kind::Agpr ? w.arow(o.reg) : w.vrow(o.reg);
  const int bit = e * bits, reg = bit / 32, sh = bit % 32;
  U64 v = base[static_cast<std::size_t>(reg) * kLanes + l];
  if (sh + bits > 32 && reg + 1 < o.regs) v |= U64{base[static_cast<std::size_t>(reg + 1) * kLanes + l]} << 32;
  return (v >> sh) & ((U64{1} << bits) - 1);
}

double decode(DType t, U64 v, bool ocp) {
  switch (t) {
    case DType::F32: return as_f32(static_cast<U32>(v));
    case DType::F64: return as_f64(v);
    case DType::F16: return from_half(static_cast<U32>(v));
    case DType::BF16: return from_bf16(static_cast<U32>(v));
    case DType::I8: return static_cast<double>(static_cast<std::int8_t>(v));
    case DType::Fp8: return fp8_decode(static_cast<U32>(v), fp8_format(ocp, false));
    case DType::Bf8: return fp8_decode(static_cast<U32>(v), fp8_format(ocp, true));
    default: return 0;
  }
}

}  // namespace

void AmdWorkgroup::Impl::mfma(Wave& w, const Inst& in) {
  const MfmaShape& s = in.mfma;
  const bool f8f6f4 = s.a == DType::F8F6F4;
  if (!f8f6f4 && (s.cbsz || s.abid || s.blgp)) unsupported(in, "MFMA broadcast and lane-group controls (cbsz, abid, blgp)");
  if (f8f6f4 && (s.cbsz > 4 || s.blgp > 4)) unsupported(in, "f8f6f4 format codes above 4");
  if (s.a == DType::Xf32 || s.b == DType::Xf32) unsupported(in, "xf32 MFMA");
  const int M = s.m, N = s.n, K = s.k, B = s.blocks, kpl = s.kpl;
  const int abits = isa::amdgcn::dtype_bits(s.a), bbits = isa::amdgcn::dtype_bits(s.b);
  const int dbits = isa::amdgcn::dtype_bits(s.d);
  const int R = in.dst[0].regs * 32 / dbits;  // D elements per lane
  if (M != N || (M != 4 && M != 16 && M != 32) || M * N * B != R * kLanes || (B > 1 && B != kLanes / M))
    unsupported(in, "this MFMA shape");
  const Operand& oa = in.src[0];
  const Operand& ob = in.src[1];
  const Operand& oc = in.src[2];
  const Operand& od = in.dst[0];
  const bool integer = s.d == DType::I32;

  // gather A (B x M x K) and B (B x K x N) as exact values
  constexpr std::size_t kMax = 2048;
  if (static_cast<std::size_t>(B) * M * K > kMax || static_cast<std::size_t>(B) * K * N > kMax || R > 32)
    unsupported(in, "an MFMA this large");
  // Whether the hardware honours a partial exec mask for MFMA is not documented; kernsim refuses
  // to guess.
  if (w.exec() != kAllLanes) fault(w, in, -1, "MFMA executed with inactive lanes (exec = " + hex(w.exec()) + "); every lane must be active");
  alignas(64) double A[kMax], Bm[kMax];
  alignas(64) std::int64_t Ai[kMax], Bi[kMax];
  // f8f6f4: per-operand formats and, for v_mfma_scale_*, each lane's E8M0 scale (the byte op_sel /
  // op_sel_hi pick) for its own 32 elements
  const int fa = s.cbsz, fb = s.blgp;
  if (f8f6f4) {
    if (oa.regs * 32 < 32 * f8f6f4_bits(fa) || ob.regs * 32 < 32 * f8f6f4_bits(fb))
      unsupported(in, "f8f6f4 operands narrower than their formats");
  }
  const int byte_a = (in.op_sel & 1) | ((in.op_sel_hi & 1) << 1), byte_b = ((in.op_sel >> 1) & 1) | (((in.op_sel_hi >> 1) & 1) << 1);
  auto scale_of = [&](const Operand& o, int l, int byte) {
    if (!s.scaled) return 1.0;
    const U32 v = o.kind == Kind::Vgpr ? w.vrow(o.reg)[l] : o.kind == Kind::Agpr ? w.arow(o.reg)[l] : sget(w, o);
    const U32 e8 = (v >> (8 * byte)) & 0xff;
    return e8 == 0xff ? std::nan("") : std::ldexp(1.0, static_cast<int>(e8) - 127);
  };
  for (int l = 0; l < kLanes; ++l) {
    const int ga = l / M, gb = l / N;
    const double sa = f8f6f4 ? scale_of(in.src[3], l, byte_a) : 1.0, sb = f8f6f4 ? scale_of(in.src[4], l, byte_b) : 1.0;
    for (int e = 0; e < kpl; ++e) {
      const int blk_a = B == 1 ? 0 : ga, k_a = B == 1 ? ga * kpl + e : e;
      const int blk_b = B == 1 ? 0 : gb, k_b = B == 1 ? gb * kpl + e : e;
      if (k_a < K) {
        const std::size_t ia = (static_cast<std::size_t>(blk_a) * M + (l % M)) * K + k_a;
        if (f8f6f4) A[ia] = f8f6f4_decode(fa, packed_element(w, oa, l, e, f8f6f4_bits(fa))) * sa;
        else if (integer) Ai[ia] = static_cast<std::int8_t>(element(w, oa, l, e, abits));
        else A[ia] = decode(s.a, element(w, oa, l, e, abits), ocp_fp8);
      }
      if (k_b < K) {
        const std::size_t ib = (static_cast<std::size_t>(blk_b) * K + k_b) * N + (l % N);
        if (f8f6f4) Bm[ib] = f8f6f4_decode(fb, packed_element(w, ob, l, e, f8f6f4_bits(fb))) * sb;
        else if (integer) Bi[ib] = static_cast<std::int8_t>(element(w, ob, l, e, bbits));
        else Bm[ib] = decode(s.b, element(w, ob, l, e, bbits), ocp_fp8);
      }
    }
  }
  // D = A * B + C, lane by lane, register by register (C is read before D is written: D may alias C)
  const int G = kLanes / N, quads = M / 4;
  alignas(64) U64 out[kLanes * 32];
  for (int l = 0; l < kLanes; ++l) {
    const int j = l % N, g = l / N;
    for (int r = 0; r < R; ++r) {
      const int q = (r / 4) * G + g;
      const int i = 4 * (q % quads) + r % 4, blk = q / quads;
      const U64 cbits = element(w, oc, l, r, dbits);
      U64 res;
      if (integer) {
        std::int64_t acc = static_cast<std::int32_t>(cbits);
        for (int kk = 0; kk < K; ++kk)
          acc += Ai[(static_cast<std::size_t>(blk) * M + i) * K + kk] * Bi[(static_cast<std::size_t>(blk) * K + kk) * N + j];
        res = static_cast<U32>(static_cast<std::int32_t>(acc));
      } else if (s.d == DType::F64) {
        double acc = as_f64(cbits);
        for (int kk = 0; kk < K; ++kk)
          acc = std::fma(A[(static_cast<std::size_t>(blk) * M + i) * K + kk], Bm[(static_cast<std::size_t>(blk) * K + kk) * N + j], acc);
        res = f64_bits(acc);
      } else {
        double acc = as_f32(static_cast<U32>(cbits));
        for (int kk = 0; kk < K; ++kk)
          acc += A[(static_cast<std::size_t>(blk) * M + i) * K + kk] * Bm[(static_cast<std::size_t>(blk) * K + kk) * N + j];
        res = f32_bits(static_cast<float>(acc));
      }
      out[static_cast<std::size_t>(l) * R + r] = res;
    }
  }
  U32* base = od.kind == Kind::Agpr ? w.arow(od.reg) : w.vrow(od.reg);
  for (int l = 0; l < kLanes; ++l)
    for (int r = 0; r < R; ++r) {
      const U64 v = out[static_cast<std::size_t>(l) * R + r];
      if (dbits == 64) {
        base[static_cast<std::size_t>(2 * r) * kLanes + l] = static_cast<U32>(v);
        base[static_cast<std::size_t>(2 * r + 1) * kLanes + l] = static_cast<U32>(v >> 32);
      } else {
        base[static_cast<std::size_t>(r) * kLanes + l] = static_cast<U32>(v);
      }
    }
}

}  // namespace kernsim::sim
