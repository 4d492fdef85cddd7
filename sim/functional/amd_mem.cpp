// Memory semantics: scalar loads (SMEM), LDS (DS: loads, stores, read2/write2, atomics, bpermute,
// swizzle) and vector memory (FLAT, GLOBAL, SCRATCH, MUBUF: loads, stores, atomics).
//
// Every lane's address is translated and checked before any lane writes, so a faulting store or
// atomic changes nothing. Flat addresses in the shared aperture reach the workgroup's LDS, in the
// private aperture the lane's scratch; everything else is device memory. Buffer (MUBUF, s_buffer)
// accesses follow the resource descriptor's range checking: out-of-range lanes read zero and
// their stores are dropped, as on the hardware; in-range addresses must still be inside an
// allocation. Atomics on one instruction are applied lane by lane in lane order.
#include <bit>
#include <cmath>

#include "sim/functional/amd_float.h"
#include "sim/functional/amd_impl.h"

namespace kernsim::sim {

using namespace amd;
using isa::amdgcn::AtomicOp;
using isa::amdgcn::MemKind;
using isa::amdgcn::MemOp;
using isa::amdgcn::Space;

namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

const char* access_name(MemKind k) {
  switch (k) {
    case MemKind::Load: return "read";
    case MemKind::Store: return "write";
    case MemKind::Atomic: return "atomic";
    default: return "access";
  }
}

U64 sext_bytes(U64 v, int bytes) {
  const int sh = 64 - 8 * bytes;
  return static_cast<U64>(static_cast<std::int64_t>(v << sh) >> sh);
}

U64 atomic_apply(AtomicOp op, U64 old, U64 data, U64 data2, int bytes, bool is_float) {
  const U64 mask = bytes == 8 ? ~U64{0} : 0xffffffffu;
  auto sgn = [bytes](U64 v) { return bytes == 8 ? static_cast<std::int64_t>(v) : static_cast<std::int64_t>(static_cast<std::int32_t>(v)); };
  switch (op) {
    case AtomicOp::Swap: return data;
    case AtomicOp::CmpSwap: return (old & mask) == (data2 & mask) ? data : old;  // data = new value, data2 = compare
    case AtomicOp::CmpSt: return (old & mask) == (data & mask) ? data2 : old;    // data = compare, data2 = new value
    case AtomicOp::Add: return (old + data) & mask;
    case AtomicOp::Sub: return (old - data) & mask;
    case AtomicOp::Rsub: return (data - old) & mask;
    case AtomicOp::SMin: return sgn(data) < sgn(old) ? data : old;
    case AtomicOp::SMax: return sgn(data) > sgn(old) ? data : old;
    case AtomicOp::UMin: return (data & mask) < (old & mask) ? data : old;
    case AtomicOp::UMax: return (data & mask) > (old & mask) ? data : old;
    case AtomicOp::And: return old & data;
    case AtomicOp::Or: return old | data;
    case AtomicOp::Xor: return old ^ data;
    case AtomicOp::Inc: return (old & mask) >= (data & mask) ? 0 : (old + 1) & mask;
    case AtomicOp::Dec: return ((old & mask) == 0 || (old & mask) > (data & mask)) ? data : (old - 1) & mask;
    case AtomicOp::MskOr: return (old & ~data) | data2;
    case AtomicOp::FAdd: case AtomicOp::FMin: case AtomicOp::FMax: {
      (void)is_float;
      if (bytes == 8) {
        const double a = as_f64(old), b = as_f64(data);
        return f64_bits(op == AtomicOp::FAdd ? a + b : op == AtomicOp::FMin ? ieee_min(a, b) : ieee_max(a, b));
      }
      const float a = as_f32(static_cast<U32>(old)), b = as_f32(static_cast<U32>(data));
      return f32_bits(op == AtomicOp::FAdd ? a + b : op == AtomicOp::FMin ? ieee_min(a, b) : ieee_max(a, b));
    }
    case AtomicOp::PkAddF16: {
      const U32 lo = to_half(double{from_half(old & 0xffff)} + from_half(data & 0xffff));
      const U32 hi = to_half(double{from_half((old >> 16) & 0xffff)} + from_half((data >> 16) & 0xffff));
      return lo | (hi << 16);
    }
    case AtomicOp::PkAddBf16: {
      const U32 lo = to_bf16(double{from_bf16(old & 0xffff)} + from_bf16(data & 0xffff));
      const U32 hi = to_bf16(double{from_bf16((old >> 16) & 0xffff)} + from_bf16((data >> 16) & 0xffff));
      return lo | (hi << 16);
    }
    case AtomicOp::None: break;
  }
  return old;
}

// Loaded bytes -> the dwords a load writes (sign/zero extension; d16 handled by the caller).
U64 load_value(const std::uint8_t* p, const MemOp& m) {
  U64 v = 0;
  std::memcpy(&v, p, m.bytes < 8 ? m.bytes : 8);
  if (m.bytes < 4 && m.sign_ext) v = sext_bytes(v, m.bytes) & 0xffffffffu;
  return v;
}

// Writes loaded data into the destination VGPRs of lane l.
void put_load(Wave& w, const Inst& in, int l, const std::uint8_t* p) {
  const MemOp& m = in.mem;
  const Operand& d = in.dst[0];
  U32* row = d.kind == Kind::Agpr ? w.arow(d.reg) : w.vrow(d.reg);
  if (m.d16) {
    U32 v = static_cast<U32>(load_value(p, m)) & 0xffffu;
    if (m.bytes == 1 && m.sign_ext) v = static_cast<U32>(sext_bytes(v, 1)) & 0xffffu;
    row[l] = m.d16_hi ? (row[l] & 0xffffu) | (v << 16) : (row[l] & 0xffff0000u) | v;
    return;
  }
  if (m.bytes < 4) {
    row[l] = static_cast<U32>(load_value(p, m));
    return;
  }
  for (int k = 0; k < m.bytes / 4; ++k) {
    U32 v;
    std::memcpy(&v, p + 4 * k, 4);
    row[static_cast<std::size_t>(k) * kLanes + l] = v;
  }
}

// The bytes a store writes for lane l (data operand = src[idx]).
void get_store(Wave& w, const Inst& in, int l, int idx, std::uint8_t* out) {
  const MemOp& m = in.mem;
  const Operand& s = in.src[idx];
  const U32* row = s.kind == Kind::Agpr ? w.arow(s.reg) : s.kind == Kind::Vgpr ? w.vrow(s.reg) : nullptr;
  auto dword = [&](int k) -> U32 { return row ? row[static_cast<std::size_t>(k) * kLanes + l] : static_cast<U32>(s.imm >> (32 * k)); };
  if (m.bytes < 4) {
    U32 v = dword(0);
    if (m.d16_hi) v >>= 16;
    std::memcpy(out, &v, m.bytes);
    return;
  }
  for (int k = 0; k < m.bytes / 4; ++k) {
    U32 v = dword(k);
    std::memcpy(out + 4 * k, &v, 4);
  }
}

U64 data_value(Wave& w, const Operand& s, int l, int dwords, int first = 0) {
  if (s.kind == Kind::None) return 0;
  const U32* row = s.kind == Kind::Agpr ? w.arow(s.reg) : w.vrow(s.reg);
  U64 v = row[static_cast<std::size_t>(first) * kLanes + l];
  if (dwords == 2) v |= U64{row[static_cast<std::size_t>(first + 1) * kLanes + l]} << 32;
  return v;
}

// The timing model's probe of one workgroup undoes its writes: the global bytes a store or an
// atomic is about to overwrite go to the memory's journal (LDS and scratch die with the workgroup).
void journal_global(GlobalMemory& gm, const Wave& w, std::uint8_t* const* ptr, int n) {
  for (U64 m = w.lanes_global; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (ptr[l]) gm.note_write(ptr[l], static_cast<std::uint32_t>(n));
  }
}

void put_value(Wave& w, const Operand& d, int l, U64 v, int dwords) {
  U32* row = d.kind == Kind::Agpr ? w.arow(d.reg) : w.vrow(d.reg);
  row[l] = static_cast<U32>(v);
  if (dwords == 2) row[kLanes + l] = static_cast<U32>(v >> 32);
}

struct BufferRsrc {
  U64 base = 0;
  U32 stride = 0, num_records = 0;
  bool add_tid = false;
};
BufferRsrc rsrc_of(const Wave& w, const Operand& o) {
  BufferRsrc r;
  if (o.kind != Kind::Sgpr) return r;
  const U32 d0 = w.s[o.reg], d1 = w.s[o.reg + 1], d2 = w.s[o.reg + 2], d3 = w.s[o.reg + 3];
  r.base = d0 | (U64{d1 & 0xffffu} << 32);
  r.stride = (d1 >> 16) & 0x3fff;
  r.num_records = d2;
  r.add_tid = (d3 >> 23) & 1;
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SMEM

void AmdWorkgroup::Impl::smem(Wave& w, const Inst& in) {
  switch (in.op) {
    case Op::s_memtime: sset64(w, in.dst[0], k.memtime()); return;
    case Op::s_memrealtime: sset64(w, in.dst[0], k.memrealtime()); return;
    case Op::s_dcache_wb: case Op::s_dcache_inv: case Op::s_dcache_wb_vol: case Op::s_dcache_inv_vol: return;
    default: break;
  }
  const bool store = in.op == Op::s_store;
  const int base_idx = store ? 1 : 0;
  w.spaces = AmdStepInfo::kGlobal;
  const Operand& sb = in.src[base_idx];
  const Operand* soff = in.nsrc > base_idx + 1 ? &in.src[base_idx + 1] : nullptr;
  const U64 off = static_cast<U64>(static_cast<std::int64_t>(in.offset)) + (soff ? sget(w, *soff) : 0);
  const int n = in.mem.bytes;
  std::uint8_t buf[64] = {};
  if (in.idxen) {  // s_buffer_load / s_buffer_store: resource descriptor
    const BufferRsrc r = rsrc_of(w, sb);
    const U64 o = off & ~U64{3};
    w.addrs[0] = r.base + o;
    const bool oor = o + static_cast<U64>(n) > r.num_records && r.stride == 0;
    if (!oor) {
      Allocation* a = k.memory().find(r.base + o, static_cast<U64>(n));
      if (!a) fault(w, in, -1, std::string("out-of-bounds scalar buffer ") + (store ? "write" : "read") + " of " + std::to_string(n) +
                                   " bytes at " + hex(r.base + o) + ": " + k.memory().describe(r.base + o, static_cast<U64>(n)));
      if (store) {
        for (int i = 0; i < n / 4; ++i) std::memcpy(buf + 4 * i, &w.s[in.src[0].reg + i], 4);
        if (a->read_only) fault(w, in, -1, "scalar write to read-only " + a->label);
        k.memory().note_write(a->data() + (r.base + o - a->base), static_cast<std::uint32_t>(n));
        std::memcpy(a->data() + (r.base + o - a->base), buf, static_cast<std::size_t>(n));
        return;
      }
      std::memcpy(buf, a->data() + (r.base + o - a->base), static_cast<std::size_t>(n));
    }
    if (!store)
      for (int i = 0; i < n / 4; ++i) std::memcpy(&w.s[in.dst[0].reg + i], buf + 4 * i, 4);
    return;
  }
  const U64 addr = (sget64(w, sb) + off) & ~U64{3};
  w.addrs[0] = addr;
  Allocation* a = k.memory().find(addr, static_cast<U64>(n));
  if (!a) {
    if (addr < 65536) fault(w, in, -1, std::string("null pointer scalar ") + (store ? "write" : "read") + " (address " + hex(addr) + ")");
    fault(w, in, -1, std::string("out-of-bounds scalar ") + (store ? "write" : "read") + " of " + std::to_string(n) + " bytes at " +
                         hex(addr) + ": " + k.memory().describe(addr, static_cast<U64>(n)));
  }
  std::uint8_t* p = a->data() + (addr - a->base);
  if (store) {
    if (a->read_only) fault(w, in, -1, "scalar write to read-only " + a->label);
    k.memory().note_write(p, static_cast<std::uint32_t>(n));
    for (int i = 0; i < n / 4; ++i) std::memcpy(p + 4 * i, &w.s[in.src[0].reg + i], 4);
    return;
  }
  if (in.dst[0].kind != Kind::Sgpr || in.dst[0].reg + n / 4 > isa::amdgcn::kSgprFileSize) unsupported(in, "this scalar load destination");
  std::memcpy(&w.s[in.dst[0].reg], p, static_cast<std::size_t>(n));
}

// ---------------------------------------------------------------------------------------------
// DS (LDS)

// ds_read_b64_tr_b16 (gfx950): each lane reads 8 bytes (4 16-bit elements); each 16-lane row of
// the wave then holds a 4 x 16 tile whose row r is what lanes 4r..4r+3 read, and lane j of the row
// receives the tile's column j: element e of lane j is element j mod 4 of what lane 4e + j / 4 read.
// The CDNA4 ISA describes the instruction as a transpose of 16-bit elements in which each lane
// holds 4 consecutive M or N values; this lane mapping is the one under which HipKittens' gfx950
// attention kernel, written for the hardware, computes softmax(QK^T)V right (docs/amd.md; the other
// reading, transposes within groups of 4 lanes, gives wrong outputs). A row with an inactive lane
// is not modelled.
void AmdWorkgroup::Impl::lds_read_transposed(Wave& w, const Inst& in, const std::uint32_t* a0) {
  const U64 exec = w.exec();
  for (int first = 0; first < kLanes; first += 16) {
    const U64 row = (exec >> first) & 0xffffu;
    if (row && row != 0xffffu) unsupported(in, "a transposing LDS read with part of a 16-lane row inactive");
  }
  const std::uint8_t* L = lds.data();
  for_lanes(exec, [&](int l) {
    std::uint8_t buf[8];
    const int row = l & ~15, j = l & 15;
    for (int e = 0; e < 4; ++e) std::memcpy(buf + 2 * e, L + a0[row + 4 * e + j / 4] + 2 * (j % 4), 2);
    put_load(w, in, l, buf);
  });
}

void AmdWorkgroup::Impl::ds(Wave& w, const Inst& in) {
  const MemOp& m = in.mem;
  const U64 exec = w.exec();
  const U32* addr = in.src[0].kind == Kind::Vgpr ? w.vrow(in.src[0].reg) : nullptr;
  const U32 lds_size = static_cast<U32>(lds.size());
  if (m.kind != MemKind::Bpermute && m.kind != MemKind::Permute && m.kind != MemKind::Swizzle) w.spaces = AmdStepInfo::kLds;

  if (m.kind == MemKind::Bpermute || m.kind == MemKind::Permute) {
    const U32* data = w.vrow(in.src[1].reg);
    alignas(64) U32 r[kLanes] = {};
    if (m.kind == MemKind::Bpermute) {
      for_lanes(exec, [&](int l) {
        const int src = static_cast<int>(((addr[l] + static_cast<U32>(in.offset)) >> 2) & (kLanes - 1));
        r[l] = ((exec >> src) & 1) ? data[src] : 0u;
      });
    } else {
      for_lanes(exec, [&](int l) {
        const int dst = static_cast<int>(((addr[l] + static_cast<U32>(in.offset)) >> 2) & (kLanes - 1));
        r[dst] = data[l];
      });
    }
    U32* d = w.vrow(in.dst[0].reg);
    for_lanes(exec, [&](int l) { d[l] = r[l]; });
    return;
  }
  if (m.kind == MemKind::Swizzle) {
    const U32* data = w.vrow(in.src[0].reg);
    const U32 off = static_cast<U32>(in.offset) & 0xffff;
    alignas(64) U32 r[kLanes] = {};
    for_lanes(exec, [&](int l) {
      int src;
      if (off & 0x8000) {
        src = (l & ~3) | static_cast<int>((off >> (2 * (l & 3))) & 3);
      } else {
        const int and_m = off & 0x1f, or_m = (off >> 5) & 0x1f, xor_m = (off >> 10) & 0x1f;
        src = (l & ~31) | ((((l & 31) & and_m) | or_m) ^ xor_m);
      }
      r[l] = ((exec >> src) & 1) ? data[src] : 0u;
    });
    U32* d = w.vrow(in.dst[0].reg);
    for_lanes(exec, [&](int l) { d[l] = r[l]; });
    return;
  }

  const int n = m.bytes;
  const U32 unit = m.two ? static_cast<U32>(n) * (m.st64 ? 64u : 1u) : 1u;
  const U32 align = n >= 4 ? 4u : static_cast<U32>(n);
  // addresses (offset0/offset1 for read2/write2), computed for every lane, checked for the active ones
  alignas(64) U32 a0[kLanes], a1[kLanes];
  const U32 o0 = static_cast<U32>(in.offset) * unit, o1 = static_cast<U32>(in.offset1) * unit;
  for (int l = 0; l < kLanes; ++l) {
    const U32 base = addr ? addr[l] : 0u;
    a0[l] = base + o0;
    a1[l] = base + o1;
  }
  U64 bad = 0;
  for (int l = 0; l < kLanes; ++l) {
    const bool b0 = static_cast<U64>(a0[l]) + static_cast<U64>(n) > lds_size || (a0[l] & (align - 1));
    const bool b1 = m.two && (static_cast<U64>(a1[l]) + static_cast<U64>(n) > lds_size || (a1[l] & (align - 1)));
    bad |= static_cast<U64>(b0 || b1) << l;
  }
  bad &= exec;
  if (bad) {
    const int l = std::countr_zero(bad);
    const U32 a = static_cast<U64>(a0[l]) + static_cast<U64>(n) > lds_size || (a0[l] & (align - 1)) ? a0[l] : a1[l];
    if (static_cast<U64>(a) + static_cast<U64>(n) > lds_size)
      fault(w, in, l, std::string("LDS ") + access_name(m.kind) + " of " + std::to_string(n) + " bytes at LDS offset " +
                          std::to_string(a) + " is outside the workgroup's " + std::to_string(lds_size) + " bytes of LDS");
    fault(w, in, l, "misaligned " + std::to_string(n) + "-byte LDS " + access_name(m.kind) + " at LDS offset " + std::to_string(a));
  }
  for (int l = 0; l < kLanes; ++l) w.addrs[l] = a0[l];
  std::uint8_t* L = lds.data();
  switch (m.kind) {
    case MemKind::Load:
      if (m.tr_bits) {
        lds_read_transposed(w, in, a0);
      } else if (m.two) {
        const Operand& d = in.dst[0];
        const int dw = n / 4;
        for_lanes(exec, [&](int l) {
          for (int k2 = 0; k2 < dw; ++k2) {
            std::memcpy(&w.vrow(d.reg + k2)[l], L + a0[l] + 4 * k2, 4);
            std::memcpy(&w.vrow(d.reg + dw + k2)[l], L + a1[l] + 4 * k2, 4);
          }
        });
      } else if (n == 4 && !m.d16 && in.dst[0].kind == Kind::Vgpr) {
        U32* d = w.vrow(in.dst[0].reg);
        for_lanes(exec, [&](int l) { std::memcpy(&d[l], L + a0[l], 4); });
      } else {
        for_lanes(exec, [&](int l) { put_load(w, in, l, L + a0[l]); });
      }
      return;
    case MemKind::Store:
      if (m.two) {
        const int dw = n / 4;
        for_lanes(exec, [&](int l) {
          for (int k2 = 0; k2 < dw; ++k2) {
            std::memcpy(L + a0[l] + 4 * k2, &w.vrow(in.src[1].reg + k2)[l], 4);
            std::memcpy(L + a1[l] + 4 * k2, &w.vrow(in.src[2].reg + k2)[l], 4);
          }
        });
      } else if (n == 4 && !m.d16_hi && in.src[1].kind == Kind::Vgpr) {
        const U32* d = w.vrow(in.src[1].reg);
        for_lanes(exec, [&](int l) { std::memcpy(L + a0[l], &d[l], 4); });
      } else {
        for_lanes(exec, [&](int l) {
          std::uint8_t buf[16];
          get_store(w, in, l, 1, buf);
          std::memcpy(L + a0[l], buf, static_cast<std::size_t>(n));
        });
      }
      return;
    case MemKind::Atomic: {
      const int dw = n / 4;
      for_lanes(exec, [&](int l) {
        U64 old = 0;
        std::memcpy(&old, L + a0[l], static_cast<std::size_t>(n));
        const U64 d1 = data_value(w, in.src[1], l, dw);
        const U64 d2 = in.nsrc > 2 ? data_value(w, in.src[2], l, dw) : 0;
        const U64 nv = atomic_apply(m.aop, old, d1, d2, n, m.is_float);
        std::memcpy(L + a0[l], &nv, static_cast<std::size_t>(n));
        if (m.returns && in.ndst) put_value(w, in.dst[0], l, old, dw);
      });
      return;
    }
    default:
      unsupported(in, "this LDS instruction");
  }
}

// ---------------------------------------------------------------------------------------------
// FLAT / GLOBAL / SCRATCH / MUBUF

// A MUBUF load with `lds` (LDS DMA): each active lane's bytes go to LDS, not to its registers, at
// M0 + the instruction offset + lane * 4 (loads of up to 4 bytes) or lane * 16 (gfx950's 12- and
// 16-byte forms), as LLVM's AMDGPU documentation (AMDGPUDMAOperations, AMDGPUUsage) describes the
// buffer/global load-to-LDS operations. A lane out of the buffer's range writes zeros, as its
// ordinary load would return. Every lane's LDS range is checked before any lane writes.
void AmdWorkgroup::Impl::lds_dma(Wave& w, const Inst& in, std::uint8_t* const* ptr) {
  const U64 exec = w.exec();
  const U64 n = in.mem.bytes;
  const U64 stride = n <= 4 ? 4 : 16;
  const U64 base = U64{w.s[kM0]} + static_cast<U64>(static_cast<std::int64_t>(in.offset));
  for_lanes(exec, [&](int l) {
    const U64 a = base + static_cast<U64>(l) * stride;
    if (a + n > lds.size())
      fault(w, in, l, "LDS DMA load of " + std::to_string(n) + " bytes to LDS offset " + std::to_string(a) + " (M0 " +
                          std::to_string(w.s[kM0]) + ") is outside the workgroup's " + std::to_string(lds.size()) +
                          " bytes of LDS");
  });
  w.lds_dma_base = base;
  static const std::uint8_t zeros[16] = {};
  for_lanes(exec, [&](int l) {
    std::memcpy(lds.data() + base + static_cast<U64>(l) * stride, ptr[l] ? ptr[l] : zeros, static_cast<std::size_t>(n));
  });
}

void AmdWorkgroup::Impl::vmem(Wave& w, const Inst& in) {
  if (in.op != Op::vmem) return;  // buffer_wbl2, buffer_inv and other cache controls
  const MemOp& m = in.mem;
  const U64 exec = w.exec();
  const int n = m.bytes;
  GlobalMemory& gm = k.memory();
  enum class Where : std::uint8_t { Global, Lds, Scratch, Dropped };
  alignas(64) U64 addr[kLanes];
  Where where[kLanes];
  std::uint8_t* ptr[kLanes];

  // 1. per-lane addresses
  const Operand& va = in.src[0];
  const U32* v32 = va.kind == Kind::Vgpr ? w.vrow(va.reg) : nullptr;
  const U32* v32hi = v32 && va.regs >= 2 ? w.vrow(va.reg + 1) : nullptr;
  const std::int64_t ioff = in.offset;
  switch (m.space) {
    case Space::Flat: case Space::Global: {
      const bool saddr = in.src[2].kind == Kind::Sgpr;
      const U64 sbase = saddr ? sget64(w, in.src[2]) : 0;
      for_lanes(exec, [&](int l) {
        U64 a = saddr ? sbase + (v32 ? U64{v32[l]} : 0) : (U64{v32[l]} | (v32hi ? U64{v32hi[l]} << 32 : 0));
        a += static_cast<U64>(ioff);
        addr[l] = a;
        where[l] = Where::Global;
        if (m.space == Space::Flat) {
          if (a - kSharedAperture < kApertureSize) where[l] = Where::Lds, addr[l] = a - kSharedAperture;
          else if (a - kPrivateAperture < kApertureSize) where[l] = Where::Scratch, addr[l] = a - kPrivateAperture;
        }
      });
      break;
    }
    case Space::Scratch: {
      const U64 s = in.src[2].kind != Kind::None ? sget(w, in.src[2]) : 0;
      for_lanes(exec, [&](int l) {
        addr[l] = static_cast<U32>((v32 ? v32[l] : 0u) + static_cast<U32>(s) + static_cast<U32>(ioff));
        where[l] = Where::Scratch;
      });
      break;
    }
    case Space::Buffer: {
      const BufferRsrc r = rsrc_of(w, in.src[2]);
      const U32 soffset = in.src[3].kind != Kind::None ? sget(w, in.src[3]) : 0u;
      if (r.base - kPrivateAperture < kApertureSize)
        unsupported(in, "buffer instructions on the private segment buffer (scratch through MUBUF)");
      const U32* vidx = in.idxen ? v32 : nullptr;
      const U32* voff = in.offen ? (in.idxen ? (v32 ? w.vrow(va.reg + 1) : nullptr) : v32) : nullptr;
      for_lanes(exec, [&](int l) {
        const U64 index = (vidx ? vidx[l] : 0u) + (r.add_tid ? static_cast<U32>(w.index * kLanes + l) : 0u);
        const U64 offset = (voff ? voff[l] : 0u) + static_cast<U64>(ioff);
        bool oor;
        if (r.stride == 0 || (!in.idxen && !r.add_tid)) oor = offset + static_cast<U64>(n) > r.num_records;
        else oor = index >= r.num_records || offset + static_cast<U64>(n) > r.stride;
        addr[l] = r.base + soffset + offset + index * r.stride;
        where[l] = oor ? Where::Dropped : Where::Global;
      });
      break;
    }
    default:
      unsupported(in, "this memory space");
  }

  // 2. translate and check every lane before any lane writes
  const bool writes = m.kind != MemKind::Load;
  // Fast path: every active lane addresses device memory inside one allocation (the usual
  // coalesced access): one lookup for the whole range.
  if (exec && m.space != Space::Scratch && m.kind != MemKind::Atomic) {
    U64 lo = ~U64{0}, hi = 0;
    bool all_global = true;
    for_lanes(exec, [&](int l) {
      all_global &= where[l] == Where::Global;
      lo = std::min(lo, addr[l]);
      hi = std::max(hi, addr[l]);
    });
    if (all_global) {
      Allocation* al = gm.find(lo, hi - lo + static_cast<U64>(n));
      if (al && !(writes && al->read_only)) {
        std::uint8_t* base = al->data() - al->base;
        for_lanes(exec, [&](int l) {
          w.addrs[l] = addr[l];
          ptr[l] = base + addr[l];
        });
        goto perform;
      }
    }
  }
  for_lanes(exec, [&](int l) {
    const U64 a = addr[l];
    w.addrs[l] = a;
    switch (where[l]) {
      case Where::Dropped: ptr[l] = nullptr; break;
      case Where::Lds:
        if (a + static_cast<U64>(n) > lds.size())
          fault(w, in, l, std::string("flat ") + access_name(m.kind) + " of " + std::to_string(n) + " bytes at LDS offset " +
                              std::to_string(a) + " is outside the workgroup's " + std::to_string(lds.size()) + " bytes of LDS");
        ptr[l] = lds.data() + a;
        break;
      case Where::Scratch:
        if (a + static_cast<U64>(n) > priv_bytes)
          fault(w, in, l, std::string("scratch ") + access_name(m.kind) + " of " + std::to_string(n) + " bytes at private offset " +
                              std::to_string(a) + " is outside the kernel's " + std::to_string(priv_bytes) + "-byte private segment");
        ptr[l] = w.priv + static_cast<std::size_t>(l) * priv_bytes + a;
        break;
      case Where::Global: {
        Allocation* al = gm.find(a, static_cast<U64>(n));
        if (!al) {
          if (a < 65536) fault(w, in, l, std::string("null pointer ") + access_name(m.kind) + " (address " + hex(a) + ")");
          fault(w, in, l, "out of bounds: " + std::to_string(n) + "-byte " + access_name(m.kind) + " at " + hex(a) + " (" +
                              gm.describe(a, static_cast<U64>(n)) + ")");
        }
        if (writes && al->read_only) fault(w, in, l, std::string(access_name(m.kind)) + " to read-only " + al->label + " at " + hex(a));
        if (m.kind == MemKind::Atomic && a % static_cast<U64>(n))
          fault(w, in, l, "misaligned " + std::to_string(n) + "-byte atomic at " + hex(a));
        ptr[l] = al->data() + (a - al->base);
        break;
      }
    }
  });

  // 3. perform
perform:
  w.lanes_global = w.lanes_lds = w.lanes_scratch = 0;
  for_lanes(exec, [&](int l) {
    const U64 bit = U64{1} << l;
    switch (where[l]) {
      case Where::Lds: w.lanes_lds |= bit; break;
      case Where::Scratch: w.lanes_scratch |= bit; break;
      case Where::Global: w.lanes_global |= bit; break;
      case Where::Dropped: break;  // out of the buffer's range: nothing touched
    }
  });
  w.spaces = (w.lanes_lds ? AmdStepInfo::kLds : 0) | (w.lanes_scratch ? AmdStepInfo::kScratch : 0) |
             (w.lanes_global ? AmdStepInfo::kGlobal : 0);
  switch (m.kind) {
    case MemKind::Load:
      if (in.lds_dma) {
        lds_dma(w, in, ptr);
        return;
      }
      for_lanes(exec, [&](int l) {
        if (ptr[l]) {
          put_load(w, in, l, ptr[l]);
        } else {
          static const std::uint8_t zeros[64] = {};
          put_load(w, in, l, zeros);
        }
      });
      return;
    case MemKind::Store:
      if (gm.journaling()) journal_global(gm, w, ptr, n);
      for_lanes(exec, [&](int l) {
        if (!ptr[l]) return;
        std::uint8_t buf[16];
        get_store(w, in, l, 1, buf);
        std::memcpy(ptr[l], buf, static_cast<std::size_t>(n));
      });
      return;
    case MemKind::Atomic: {
      const int dw = n / 4;
      const bool cmpswap = m.aop == AtomicOp::CmpSwap;
      if (gm.journaling()) journal_global(gm, w, ptr, n);
      for_lanes(exec, [&](int l) {
        U64 old = 0;
        if (ptr[l]) std::memcpy(&old, ptr[l], static_cast<std::size_t>(n));
        const U64 data = data_value(w, in.src[1], l, dw);
        const U64 cmp = cmpswap ? data_value(w, in.src[1], l, dw, dw) : 0;
        if (ptr[l]) {
          const U64 nv = atomic_apply(m.aop, old, data, cmp, n, m.is_float);
          std::memcpy(ptr[l], &nv, static_cast<std::size_t>(n));
        }
        if (m.returns && in.ndst) put_value(w, in.dst[0], l, old, dw);
      });
      return;
    }
    default:
      unsupported(in, "this memory instruction");
  }
}

}  // namespace kernsim::sim
