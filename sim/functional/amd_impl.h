// Internal to sim/functional: the state of one AMD workgroup under execution and its waves, and
// the register-access helpers the amd_*.cpp semantics files share.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "sim/functional/amd_exec.h"

namespace kernsim::sim {

namespace amd {

using isa::amdgcn::Enc;
using isa::amdgcn::Fmt;
using isa::amdgcn::Inst;
using isa::amdgcn::Kind;
using isa::amdgcn::Op;
using isa::amdgcn::Operand;

inline constexpr int kLanes = 64;
inline constexpr std::uint64_t kAllLanes = ~std::uint64_t{0};
inline constexpr int kVcc = isa::amdgcn::kSgprVcc;
inline constexpr int kExec = isa::amdgcn::kSgprExec;
inline constexpr int kM0 = isa::amdgcn::kSgprM0;

// Flat-address apertures (must match what isa/amdgcn/decode.cpp reports as src_shared_base and
// src_private_base): the 4 GiB windows that map to LDS and to the lane's scratch.
inline constexpr std::uint64_t kSharedAperture = std::uint64_t{0x00010000u} << 32;
inline constexpr std::uint64_t kPrivateAperture = std::uint64_t{0x00020000u} << 32;
inline constexpr std::uint64_t kApertureSize = std::uint64_t{1} << 32;

// Endless-loop watch of one wave (AmdWorkgroup::Impl::watch_backedge), as the PTX executor's
// SpinWatch: every kSpinSampleEvery-th backward branch taken, the wave's state is compared with
// the copy of the previous sample, the SGPRs and SCC first and the VGPRs/AGPRs only when those
// match (a uniform loop counter lives in an SGPR, so the common sample copies little). The same
// state at the same branch while the launch's store epoch stood still makes the wave a suspect:
// its steps stop counting as progress and AmdWorkgroup::run gives the other waves a turn. A
// suspect that repeats once more while no other wave progressed and nothing was stored can never
// leave its loop.
inline constexpr std::uint32_t kWaveSpinSampleEvery = 1024;  // backward branches between samples (power of 2)

struct WaveSpin {
  std::uint32_t backedges = 0;
  std::uint32_t pc = 0xffffffffu;  // the sampled branch
  std::uint32_t head = 0;          // its target: the loop is [head, pc]
  std::uint64_t stores = 0;        // store epoch at the last sample
  std::uint64_t progress = 0;      // the launch's progress when the wave became a suspect
  bool suspect = false;
  bool yield = false;              // AmdWorkgroup::run should run the other waves now
  bool vector_copied = false;      // v/a below belong to the last sample
  bool scc = false;
  std::vector<std::uint32_t> s, v, a;
};

struct Wave {
  int index = 0;                   // wave within the workgroup
  std::uint32_t pc = 0;            // instruction index
  bool done = false;
  bool waiting = false;            // at s_barrier
  std::uint64_t valid = 0;         // lanes that hold work-items
  bool scc = false;
  std::array<std::uint32_t, isa::amdgcn::kSgprFileSize> s{};
  std::uint32_t* v = nullptr;      // VGPR rows: v[reg * 64 + lane]
  std::uint32_t* a = nullptr;      // AGPR rows
  std::uint8_t* priv = nullptr;    // scratch: lane l's bytes at priv + l * private_bytes
  std::array<std::uint64_t, kLanes> addrs{};
  std::uint8_t spaces = 0;         // AmdStepInfo::spaces of the instruction executing
  std::uint64_t lanes_global = 0, lanes_lds = 0, lanes_scratch = 0;  // where a vector memory access's lanes went
  std::uint64_t lds_dma_base = 0;  // LDS byte offset of lane 0 of the last buffer load with lds (M0 + offset)
  bool gpr_idx = false;            // VGPR indexing mode (s_set_gpr_idx_on): M0[7:0] index, M0[15:12] operands
  std::uint32_t hw_id = 0;         // HW_REG_HW_ID (AmdPlacement::hw_id; WAVE_ID = index until placed)
  std::uint32_t xcc_id = 0;        // HW_REG_XCC_ID
  WaveSpin spin;

  std::uint64_t exec() const { return s[kExec] | (std::uint64_t{s[kExec + 1]} << 32); }
  void set_exec(std::uint64_t e) {
    s[kExec] = static_cast<std::uint32_t>(e);
    s[kExec + 1] = static_cast<std::uint32_t>(e >> 32);
  }
  std::uint64_t vcc() const { return s[kVcc] | (std::uint64_t{s[kVcc + 1]} << 32); }
  std::uint32_t* vrow(int r) { return v + static_cast<std::size_t>(r) * kLanes; }
  std::uint32_t* arow(int r) { return a + static_cast<std::size_t>(r) * kLanes; }
};

// ---- scalar operand access (SGPRs, inline constants, literals, special sources)

inline std::uint32_t sget(const Wave& w, const Operand& o) {
  switch (o.kind) {
    case Kind::Sgpr: return w.s[o.reg];
    case Kind::Imm: return static_cast<std::uint32_t>(o.imm);
    case Kind::Scc: return w.scc ? 1u : 0u;
    case Kind::Vccz: return (w.s[kVcc] | w.s[kVcc + 1]) == 0 ? 1u : 0u;
    case Kind::Execz: return (w.s[kExec] | w.s[kExec + 1]) == 0 ? 1u : 0u;
    default: return 0;
  }
}
inline std::uint64_t sget64(const Wave& w, const Operand& o) {
  if (o.kind == Kind::Sgpr) return w.s[o.reg] | (std::uint64_t{w.s[o.reg + 1]} << 32);
  if (o.kind == Kind::Imm) return o.imm;
  return sget(w, o);
}
inline void sset(Wave& w, const Operand& o, std::uint32_t v) {
  if (o.kind == Kind::Sgpr) w.s[o.reg] = v;
}
inline void sset64(Wave& w, const Operand& o, std::uint64_t v) {
  if (o.kind != Kind::Sgpr) return;
  w.s[o.reg] = static_cast<std::uint32_t>(v);
  w.s[o.reg + 1] = static_cast<std::uint32_t>(v >> 32);
}

inline float as_f32(std::uint32_t b) { return std::bit_cast<float>(b); }
inline std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline double as_f64(std::uint64_t b) { return std::bit_cast<double>(b); }
inline std::uint64_t f64_bits(double d) { return std::bit_cast<std::uint64_t>(d); }

inline std::uint32_t bitreverse32(std::uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(v);
}
inline std::uint64_t bitreverse64(std::uint64_t v) {
  return (std::uint64_t{bitreverse32(static_cast<std::uint32_t>(v))} << 32) | bitreverse32(static_cast<std::uint32_t>(v >> 32));
}

template <class F>
inline void for_lanes(std::uint64_t m, F&& f) {
  if (m == kAllLanes) {
    for (int l = 0; l < kLanes; ++l) f(l);
    return;
  }
  while (m) {
    int l = std::countr_zero(m);
    m &= m - 1;
    f(l);
  }
}

std::string hex(std::uint64_t v);

}  // namespace amd

struct AmdWorkgroup::Impl {
  AmdKernel& k;
  const isa::amdgcn::Program& p;
  std::uint64_t linear;
  std::array<std::uint32_t, 3> wgid{};
  std::vector<amd::Wave> waves;
  std::vector<std::uint32_t> vfile, afile;
  std::vector<std::uint8_t> lds;
  std::vector<std::uint8_t> priv;
  int nv = 0, na = 0;
  std::uint32_t priv_bytes = 0;
  int live = 0;
  int arrived = 0;
  bool ocp_fp8 = false;  // gfx950: OCP fp8/bf8 formats; gfx942: FNUZ

  Impl(AmdKernel& kernel, std::uint64_t linear_id);

  // "workgroup (1,0,0) work-item (5,0,0)"
  std::string lane_name(const amd::Wave& w, int lane) const;
  [[noreturn]] void fault(const amd::Wave& w, const amd::Inst& in, int lane, const std::string& what) const;
  [[noreturn]] void unsupported(const amd::Inst& in, const std::string& what) const;

  // instruction families (amd_salu.cpp, amd_valu.cpp, amd_mem.cpp, amd_mfma.cpp)
  void salu(amd::Wave& w, const amd::Inst& in);
  void valu(amd::Wave& w, const amd::Inst& in);
  void vcmp(amd::Wave& w, const amd::Inst& in);
  void smem(amd::Wave& w, const amd::Inst& in);
  void ds(amd::Wave& w, const amd::Inst& in);
  void vmem(amd::Wave& w, const amd::Inst& in);
  void lds_dma(amd::Wave& w, const amd::Inst& in, std::uint8_t* const* ptr);  // a MUBUF load with lds
  void lds_read_transposed(amd::Wave& w, const amd::Inst& in, const std::uint32_t* a0);  // ds_read_b64_tr_b16
  void mfma(amd::Wave& w, const amd::Inst& in);

  // endless loops (see WaveSpin)
  void watch_backedge(amd::Wave& w, std::uint32_t pc, std::uint32_t head);
  [[noreturn]] void endless_loop(const amd::Wave& w) const;
};

}  // namespace kernsim::sim
