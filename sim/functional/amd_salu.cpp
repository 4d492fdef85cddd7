// Scalar ALU semantics (SOP1, SOP2, SOPK, SOPC) of gfx9 / CDNA: 32- and 64-bit integer and bit
// operations, SCC, and the exec-mask manipulations (s_*_saveexec_b64) that implement divergence.
#include <bit>

#include "sim/functional/amd_impl.h"

namespace kernsim::sim {

using namespace amd;

namespace {

std::uint32_t bfe32(std::uint32_t v, std::uint32_t ctl, bool sign) {
  const std::uint32_t off = ctl & 31, width = (ctl >> 16) & 0x7f;
  if (width == 0) return 0;
  std::uint32_t x = v >> off;
  if (width < 32) {
    x &= (1u << width) - 1;
    if (sign && (x >> (width - 1)) & 1) x |= ~((1u << width) - 1);
  }
  return x;
}

std::uint64_t bfe64(std::uint64_t v, std::uint32_t ctl, bool sign) {
  const std::uint32_t off = ctl & 63, width = (ctl >> 16) & 0x7f;
  if (width == 0) return 0;
  std::uint64_t x = v >> off;
  if (width < 64) {
    x &= (std::uint64_t{1} << width) - 1;
    if (sign && (x >> (width - 1)) & 1) x |= ~((std::uint64_t{1} << width) - 1);
  }
  return x;
}

std::uint32_t flbit_signed32(std::int32_t v) {
  if (v == 0 || v == -1) return 0xffffffffu;
  std::uint32_t u = static_cast<std::uint32_t>(v < 0 ? ~v : v);
  return static_cast<std::uint32_t>(std::countl_zero(u));
}

std::uint64_t wqm(std::uint64_t v, int bits) {
  std::uint64_t r = 0;
  for (int i = 0; i < bits; i += 4)
    if ((v >> i) & 0xf) r |= std::uint64_t{0xf} << i;
  return r;
}

std::uint64_t quadmask(std::uint64_t v, int bits) {
  std::uint64_t r = 0;
  for (int i = 0; i < bits; i += 4)
    if ((v >> i) & 0xf) r |= std::uint64_t{1} << (i / 4);
  return r;
}

}  // namespace

void AmdWorkgroup::Impl::salu(Wave& w, const Inst& in) {
  const Operand& d = in.dst[0];
  auto a32 = [&] { return sget(w, in.src[0]); };
  auto b32 = [&] { return sget(w, in.src[1]); };
  auto a64 = [&] { return sget64(w, in.src[0]); };
  auto b64 = [&] { return sget64(w, in.src[1]); };
  auto r32 = [&](std::uint32_t v, bool set_scc) {
    sset(w, d, v);
    if (set_scc) w.scc = v != 0;
  };
  auto r64 = [&](std::uint64_t v, bool set_scc) {
    sset64(w, d, v);
    if (set_scc) w.scc = v != 0;
  };
  const std::int32_t simm = static_cast<std::int16_t>(in.simm & 0xffff);
  const std::uint32_t uimm = static_cast<std::uint32_t>(in.simm & 0xffff);

  switch (in.op) {
    // ---- SOP2
    case Op::s_add_u32: { std::uint64_t r = std::uint64_t{a32()} + b32(); r32(static_cast<std::uint32_t>(r), false); w.scc = r >> 32; break; }
    case Op::s_sub_u32: { std::uint32_t a = a32(), b = b32(); r32(a - b, false); w.scc = b > a; break; }
    case Op::s_addc_u32: { std::uint64_t r = std::uint64_t{a32()} + b32() + (w.scc ? 1 : 0); r32(static_cast<std::uint32_t>(r), false); w.scc = r >> 32; break; }
    case Op::s_subb_u32: { std::uint32_t a = a32(), b = b32(); std::uint64_t sub = std::uint64_t{b} + (w.scc ? 1 : 0); r32(static_cast<std::uint32_t>(a - sub), false); w.scc = sub > a; break; }
    case Op::s_add_i32: {
      std::int32_t a = static_cast<std::int32_t>(a32()), b = static_cast<std::int32_t>(b32());
      std::int64_t r = std::int64_t{a} + b;
      r32(static_cast<std::uint32_t>(r), false);
      w.scc = r != static_cast<std::int32_t>(r);
      break;
    }
    case Op::s_sub_i32: {
      std::int32_t a = static_cast<std::int32_t>(a32()), b = static_cast<std::int32_t>(b32());
      std::int64_t r = std::int64_t{a} - b;
      r32(static_cast<std::uint32_t>(r), false);
      w.scc = r != static_cast<std::int32_t>(r);
      break;
    }
    case Op::s_min_i32: { std::int32_t a = static_cast<std::int32_t>(a32()), b = static_cast<std::int32_t>(b32()); w.scc = a < b; r32(static_cast<std::uint32_t>(a < b ? a : b), false); break; }
    case Op::s_max_i32: { std::int32_t a = static_cast<std::int32_t>(a32()), b = static_cast<std::int32_t>(b32()); w.scc = a > b; r32(static_cast<std::uint32_t>(a > b ? a : b), false); break; }
    case Op::s_min_u32: { std::uint32_t a = a32(), b = b32(); w.scc = a < b; r32(a < b ? a : b, false); break; }
    case Op::s_max_u32: { std::uint32_t a = a32(), b = b32(); w.scc = a > b; r32(a > b ? a : b, false); break; }
    case Op::s_cselect_b32: r32(w.scc ? a32() : b32(), false); break;
    case Op::s_cselect_b64: r64(w.scc ? a64() : b64(), false); break;
    case Op::s_and_b32: r32(a32() & b32(), true); break;
    case Op::s_and_b64: r64(a64() & b64(), true); break;
    case Op::s_or_b32: r32(a32() | b32(), true); break;
    case Op::s_or_b64: r64(a64() | b64(), true); break;
    case Op::s_xor_b32: r32(a32() ^ b32(), true); break;
    case Op::s_xor_b64: r64(a64() ^ b64(), true); break;
    case Op::s_andn2_b32: r32(a32() & ~b32(), true); break;
    case Op::s_andn2_b64: r64(a64() & ~b64(), true); break;
    case Op::s_orn2_b32: r32(a32() | ~b32(), true); break;
    case Op::s_orn2_b64: r64(a64() | ~b64(), true); break;
    case Op::s_nand_b32: r32(~(a32() & b32()), true); break;
    case Op::s_nand_b64: r64(~(a64() & b64()), true); break;
    case Op::s_nor_b32: r32(~(a32() | b32()), true); break;
    case Op::s_nor_b64: r64(~(a64() | b64()), true); break;
    case Op::s_xnor_b32: r32(~(a32() ^ b32()), true); break;
    case Op::s_xnor_b64: r64(~(a64() ^ b64()), true); break;
    case Op::s_lshl_b32: r32(a32() << (b32() & 31), true); break;
    case Op::s_lshl_b64: r64(a64() << (b32() & 63), true); break;
    case Op::s_lshr_b32: r32(a32() >> (b32() & 31), true); break;
    case Op::s_lshr_b64: r64(a64() >> (b32() & 63), true); break;
    case Op::s_ashr_i32: r32(static_cast<std::uint32_t>(static_cast<std::int32_t>(a32()) >> (b32() & 31)), true); break;
    case Op::s_ashr_i64: r64(static_cast<std::uint64_t>(static_cast<std::int64_t>(a64()) >> (b32() & 63)), true); break;
    case Op::s_bfm_b32: { std::uint32_t wd = a32() & 31; r32(((wd ? (1u << wd) : 1u) - 1) << (b32() & 31), false); if (wd == 0) r32(0, false); break; }
    case Op::s_bfm_b64: { std::uint32_t wd = a32() & 63; r64(wd ? ((std::uint64_t{1} << wd) - 1) << (b32() & 63) : 0, false); break; }
    case Op::s_mul_i32: r32(a32() * b32(), false); break;
    case Op::s_mul_hi_u32: r32(static_cast<std::uint32_t>((std::uint64_t{a32()} * b32()) >> 32), false); break;
    case Op::s_mul_hi_i32:
      r32(static_cast<std::uint32_t>(static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(a32())} *
                                                                static_cast<std::int32_t>(b32())) >> 32), false);
      break;
    case Op::s_bfe_u32: r32(bfe32(a32(), b32(), false), true); break;
    case Op::s_bfe_i32: r32(bfe32(a32(), b32(), true), true); break;
    case Op::s_bfe_u64: r64(bfe64(a64(), b32(), false), true); break;
    case Op::s_bfe_i64: r64(bfe64(a64(), b32(), true), true); break;
    case Op::s_absdiff_i32: {
      std::int64_t r = std::int64_t{static_cast<std::int32_t>(a32())} - static_cast<std::int32_t>(b32());
      r32(static_cast<std::uint32_t>(r < 0 ? -r : r), true);
      break;
    }
    case Op::s_lshl1_add_u32: case Op::s_lshl2_add_u32: case Op::s_lshl3_add_u32: case Op::s_lshl4_add_u32: {
      const int sh = in.op == Op::s_lshl1_add_u32 ? 1 : in.op == Op::s_lshl2_add_u32 ? 2 : in.op == Op::s_lshl3_add_u32 ? 3 : 4;
      std::uint64_t r = (std::uint64_t{a32()} << sh) + b32();
      r32(static_cast<std::uint32_t>(r), false);
      w.scc = r >> 32;
      break;
    }
    case Op::s_pack_ll_b32_b16: r32((a32() & 0xffffu) | (b32() << 16), false); break;
    case Op::s_pack_lh_b32_b16: r32((a32() & 0xffffu) | (b32() & 0xffff0000u), false); break;
    case Op::s_pack_hh_b32_b16: r32((a32() >> 16) | (b32() & 0xffff0000u), false); break;

    // ---- SOPK (dst[0] is also the source of the compare/accumulate forms)
    case Op::s_movk_i32: r32(static_cast<std::uint32_t>(simm), false); break;
    case Op::s_cmovk_i32: if (w.scc) r32(static_cast<std::uint32_t>(simm), false); break;
    case Op::s_addk_i32: {
      std::int64_t r = std::int64_t{static_cast<std::int32_t>(sget(w, d))} + simm;
      r32(static_cast<std::uint32_t>(r), false);
      w.scc = r != static_cast<std::int32_t>(r);
      break;
    }
    case Op::s_mulk_i32: r32(sget(w, d) * static_cast<std::uint32_t>(simm), false); break;
    case Op::s_cmpk_eq_i32: case Op::s_cmpk_lg_i32: case Op::s_cmpk_gt_i32: case Op::s_cmpk_ge_i32:
    case Op::s_cmpk_lt_i32: case Op::s_cmpk_le_i32: {
      const Operand& src = in.nsrc ? in.src[0] : d;
      std::int32_t a = static_cast<std::int32_t>(sget(w, src));
      switch (in.op) {
        case Op::s_cmpk_eq_i32: w.scc = a == simm; break;
        case Op::s_cmpk_lg_i32: w.scc = a != simm; break;
        case Op::s_cmpk_gt_i32: w.scc = a > simm; break;
        case Op::s_cmpk_ge_i32: w.scc = a >= simm; break;
        case Op::s_cmpk_lt_i32: w.scc = a < simm; break;
        default: w.scc = a <= simm; break;
      }
      break;
    }
    case Op::s_cmpk_eq_u32: case Op::s_cmpk_lg_u32: case Op::s_cmpk_gt_u32: case Op::s_cmpk_ge_u32:
    case Op::s_cmpk_lt_u32: case Op::s_cmpk_le_u32: {
      const Operand& src = in.nsrc ? in.src[0] : d;
      std::uint32_t a = sget(w, src);
      switch (in.op) {
        case Op::s_cmpk_eq_u32: w.scc = a == uimm; break;
        case Op::s_cmpk_lg_u32: w.scc = a != uimm; break;
        case Op::s_cmpk_gt_u32: w.scc = a > uimm; break;
        case Op::s_cmpk_ge_u32: w.scc = a >= uimm; break;
        case Op::s_cmpk_lt_u32: w.scc = a < uimm; break;
        default: w.scc = a <= uimm; break;
      }
      break;
    }
    case Op::s_getreg_b32: {
      // hwreg(id, offset, size): MODE reads the wave's float mode; HW_ID (4) and XCC_ID (20, gfx940
      // and later) where the timing model placed the wave (AmdPlacement); other registers zero.
      const std::uint32_t id = uimm & 0x3f, off = (uimm >> 6) & 0x1f, size = ((uimm >> 11) & 0x1f) + 1;
      std::uint32_t v = 0;
      if (id == 1) v = 0x2f0;  // MODE: round to nearest, denormals on, IEEE and DX10 clamp
      else if (id == 4) v = w.hw_id;
      else if (id == 20) v = w.xcc_id;
      v >>= off;
      if (size < 32) v &= (1u << size) - 1;
      r32(v, false);
      break;
    }
    case Op::s_setreg_b32:
    case Op::s_setreg_imm32_b32: {
      // Writes to MODE (rounding, denormal flushing) would change the float semantics; kernsim
      // computes in round-to-nearest with denormals, so it accepts only writes of those values.
      const std::uint32_t id = uimm & 0x3f, off = (uimm >> 6) & 0x1f, size = ((uimm >> 11) & 0x1f) + 1;
      std::uint32_t v = in.op == Op::s_setreg_b32 ? sget(w, in.src[0]) : static_cast<std::uint32_t>(in.src[0].imm);
      if (id == 1) {
        std::uint32_t field_mask = size >= 32 ? 0xffffffffu : (((1u << size) - 1) << off);
        std::uint32_t mode = ((0x2f0u & ~field_mask) | ((v << off) & field_mask));
        if ((mode & 0xff) != 0xf0)
          unsupported(in, "float modes other than round-to-nearest with denormals (MODE = " + hex(mode) + ")");
      }
      break;
    }

    // ---- SOP1
    case Op::s_mov_b32: r32(a32(), false); break;
    case Op::s_mov_b64: r64(a64(), false); break;
    case Op::s_cmov_b32: if (w.scc) r32(a32(), false); break;
    case Op::s_cmov_b64: if (w.scc) r64(a64(), false); break;
    case Op::s_not_b32: r32(~a32(), true); break;
    case Op::s_not_b64: r64(~a64(), true); break;
    case Op::s_wqm_b32: r32(static_cast<std::uint32_t>(wqm(a32(), 32)), true); break;
    case Op::s_wqm_b64: r64(wqm(a64(), 64), true); break;
    case Op::s_brev_b32: r32(bitreverse32(a32()), false); break;
    case Op::s_brev_b64: r64(bitreverse64(a64()), false); break;
    case Op::s_bcnt0_i32_b32: r32(static_cast<std::uint32_t>(32 - std::popcount(a32())), true); break;
    case Op::s_bcnt0_i32_b64: r32(static_cast<std::uint32_t>(64 - std::popcount(a64())), true); break;
    case Op::s_bcnt1_i32_b32: r32(static_cast<std::uint32_t>(std::popcount(a32())), true); break;
    case Op::s_bcnt1_i32_b64: r32(static_cast<std::uint32_t>(std::popcount(a64())), true); break;
    case Op::s_ff0_i32_b32: { std::uint32_t v = ~a32(); r32(v ? static_cast<std::uint32_t>(std::countr_zero(v)) : 0xffffffffu, false); break; }
    case Op::s_ff0_i32_b64: { std::uint64_t v = ~a64(); r32(v ? static_cast<std::uint32_t>(std::countr_zero(v)) : 0xffffffffu, false); break; }
    case Op::s_ff1_i32_b32: { std::uint32_t v = a32(); r32(v ? static_cast<std::uint32_t>(std::countr_zero(v)) : 0xffffffffu, false); break; }
    case Op::s_ff1_i32_b64: { std::uint64_t v = a64(); r32(v ? static_cast<std::uint32_t>(std::countr_zero(v)) : 0xffffffffu, false); break; }
    case Op::s_flbit_i32_b32: { std::uint32_t v = a32(); r32(v ? static_cast<std::uint32_t>(std::countl_zero(v)) : 0xffffffffu, false); break; }
    case Op::s_flbit_i32_b64: { std::uint64_t v = a64(); r32(v ? static_cast<std::uint32_t>(std::countl_zero(v)) : 0xffffffffu, false); break; }
    case Op::s_flbit_i32: r32(flbit_signed32(static_cast<std::int32_t>(a32())), false); break;
    case Op::s_flbit_i32_i64: {
      std::int64_t v = static_cast<std::int64_t>(a64());
      if (v == 0 || v == -1) r32(0xffffffffu, false);
      else r32(static_cast<std::uint32_t>(std::countl_zero(static_cast<std::uint64_t>(v < 0 ? ~v : v))), false);
      break;
    }
    case Op::s_sext_i32_i8: r32(static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(a32()))), false); break;
    case Op::s_sext_i32_i16: r32(static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(a32()))), false); break;
    case Op::s_bitset0_b32: r32(sget(w, d) & ~(1u << (a32() & 31)), false); break;
    case Op::s_bitset1_b32: r32(sget(w, d) | (1u << (a32() & 31)), false); break;
    case Op::s_bitset0_b64: r64(sget64(w, d) & ~(std::uint64_t{1} << (a32() & 63)), false); break;
    case Op::s_bitset1_b64: r64(sget64(w, d) | (std::uint64_t{1} << (a32() & 63)), false); break;
    case Op::s_and_saveexec_b64: case Op::s_or_saveexec_b64: case Op::s_xor_saveexec_b64:
    case Op::s_andn2_saveexec_b64: case Op::s_orn2_saveexec_b64: case Op::s_nand_saveexec_b64:
    case Op::s_nor_saveexec_b64: case Op::s_xnor_saveexec_b64: case Op::s_andn1_saveexec_b64:
    case Op::s_orn1_saveexec_b64: {
      const std::uint64_t s = a64(), e = w.exec();
      std::uint64_t n = 0;
      switch (in.op) {
        case Op::s_and_saveexec_b64: n = s & e; break;
        case Op::s_or_saveexec_b64: n = s | e; break;
        case Op::s_xor_saveexec_b64: n = s ^ e; break;
        case Op::s_andn2_saveexec_b64: n = s & ~e; break;
        case Op::s_orn2_saveexec_b64: n = s | ~e; break;
        case Op::s_nand_saveexec_b64: n = ~(s & e); break;
        case Op::s_nor_saveexec_b64: n = ~(s | e); break;
        case Op::s_xnor_saveexec_b64: n = ~(s ^ e); break;
        case Op::s_andn1_saveexec_b64: n = ~s & e; break;
        default: n = ~s | e; break;
      }
      sset64(w, d, e);
      w.set_exec(n);
      w.scc = n != 0;
      break;
    }
    case Op::s_andn1_wrexec_b64: case Op::s_andn2_wrexec_b64: {
      const std::uint64_t s = a64(), e = w.exec();
      const std::uint64_t n = in.op == Op::s_andn1_wrexec_b64 ? (~s & e) : (s & ~e);
      w.set_exec(n);
      sset64(w, d, n);
      w.scc = n != 0;
      break;
    }
    case Op::s_quadmask_b32: r32(static_cast<std::uint32_t>(quadmask(a32(), 32)), true); break;
    case Op::s_quadmask_b64: r64(quadmask(a64(), 64), true); break;
    case Op::s_movrels_b32: case Op::s_movrels_b64: {
      const int n = in.op == Op::s_movrels_b64 ? 2 : 1;
      const std::uint32_t idx = in.src[0].reg + w.s[kM0];
      if (in.src[0].kind != Kind::Sgpr || idx + n > 102) unsupported(in, "s_movrels outside the SGPRs s0-s101 (index " + std::to_string(idx) + ")");
      for (int i = 0; i < n; ++i) w.s[d.reg + i] = w.s[idx + i];
      break;
    }
    case Op::s_movreld_b32: case Op::s_movreld_b64: {
      const int n = in.op == Op::s_movreld_b64 ? 2 : 1;
      const std::uint32_t idx = d.reg + w.s[kM0];
      if (d.kind != Kind::Sgpr || idx + n > 102) unsupported(in, "s_movreld outside the SGPRs s0-s101 (index " + std::to_string(idx) + ")");
      const std::uint64_t v = n == 2 ? a64() : a32();
      w.s[idx] = static_cast<std::uint32_t>(v);
      if (n == 2) w.s[idx + 1] = static_cast<std::uint32_t>(v >> 32);
      break;
    }
    case Op::s_abs_i32: { std::int32_t v = static_cast<std::int32_t>(a32()); r32(static_cast<std::uint32_t>(v < 0 ? -static_cast<std::int64_t>(v) : v), true); break; }
    case Op::s_bitreplicate_b64_b32: {
      std::uint32_t v = a32();
      std::uint64_t r = 0;
      for (int i = 0; i < 32; ++i)
        if ((v >> i) & 1) r |= std::uint64_t{3} << (2 * i);
      r64(r, false);
      break;
    }

    // ---- SOPC
    case Op::s_cmp_eq_i32: case Op::s_cmp_eq_u32: w.scc = a32() == b32(); break;
    case Op::s_cmp_lg_i32: case Op::s_cmp_lg_u32: w.scc = a32() != b32(); break;
    case Op::s_cmp_gt_i32: w.scc = static_cast<std::int32_t>(a32()) > static_cast<std::int32_t>(b32()); break;
    case Op::s_cmp_ge_i32: w.scc = static_cast<std::int32_t>(a32()) >= static_cast<std::int32_t>(b32()); break;
    case Op::s_cmp_lt_i32: w.scc = static_cast<std::int32_t>(a32()) < static_cast<std::int32_t>(b32()); break;
    case Op::s_cmp_le_i32: w.scc = static_cast<std::int32_t>(a32()) <= static_cast<std::int32_t>(b32()); break;
    case Op::s_cmp_gt_u32: w.scc = a32() > b32(); break;
    case Op::s_cmp_ge_u32: w.scc = a32() >= b32(); break;
    case Op::s_cmp_lt_u32: w.scc = a32() < b32(); break;
    case Op::s_cmp_le_u32: w.scc = a32() <= b32(); break;
    case Op::s_cmp_eq_u64: w.scc = a64() == b64(); break;
    case Op::s_cmp_lg_u64: w.scc = a64() != b64(); break;
    case Op::s_bitcmp0_b32: w.scc = ((a32() >> (b32() & 31)) & 1) == 0; break;
    case Op::s_bitcmp1_b32: w.scc = ((a32() >> (b32() & 31)) & 1) == 1; break;
    case Op::s_bitcmp0_b64: w.scc = ((a64() >> (b32() & 63)) & 1) == 0; break;
    case Op::s_bitcmp1_b64: w.scc = ((a64() >> (b32() & 63)) & 1) == 1; break;
    default:
      unsupported(in, std::string("the scalar instruction ") + isa::amdgcn::to_string(in.op));
  }
}

}  // namespace kernsim::sim
