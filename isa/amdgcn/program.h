// kernsim::isa::amdgcn::Program — the text of an AMDGPU code object decoded once into flat,
// immutable instruction descriptors for the executor and the timing model.
//
// Decoding goes through LLVM's MC disassembler (the same tables the AMDGPU backend uses to emit
// the code), so kernsim sees exactly the machine code of the code object: operands come from
// the decoded MCInst (registers, inline constants and literals with their exact bit patterns),
// modifiers (clamp, omod, op_sel, DPP, SDWA, memory offsets and cache bits) from the canonical
// assembly text. Branch targets are instruction indices; `index_of` maps a code address back to
// an instruction for s_setpc/s_swappc. An instruction kernsim does not execute decodes to
// Op::Unknown with its text kept, so executing it stops the run with its name and address.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/amdgcn/code_object.h"
#include "isa/unit.h"

namespace kernsim::isa::amdgcn {

enum class Op : std::uint16_t {
#define KS_OP(name, fmt, unit) name,
#include "isa/amdgcn/ops.def"
#undef KS_OP
  s_load,      // SMEM loads (s_load_*, s_buffer_load_*): Inst::mem says which
  s_store,     // SMEM stores
  ds,          // LDS: Inst::mem
  vmem,        // FLAT / GLOBAL / SCRATCH / MUBUF: Inst::mem
  v_mfma,      // matrix fused multiply-add: Inst::mfma
  Unknown,     // a valid instruction kernsim does not implement (executing it is an error)
  Invalid,     // bytes the disassembler could not decode
  kCount
};
const char* to_string(Op op);

enum class Fmt : std::uint8_t {
  Sop1, Sop2, Sopk, Sopc, Sopp, Smem, Vop1, Vop2, Vopc, Vop3, Vop3p, Mfma, Ds, Flat, Global, Scratch, Mubuf, None
};
const char* to_string(Fmt f);

// The encoding a VALU instruction was written in.
enum class Enc : std::uint8_t { Native, E32, E64, Dpp, Sdwa };

enum class Kind : std::uint8_t {
  None,
  Sgpr,   // scalar register file index (hardware numbering: vcc = 106, m0 = 124, exec = 126)
  Vgpr,
  Agpr,
  Imm,    // inline constant, literal or aperture constant: `imm` holds the bits the instruction reads
  Null,   // reads zero, writes are dropped
  Scc,    // src_scc
  Vccz,   // src_vccz
  Execz,  // src_execz
};

// Source modifier bits, as the encoding stores them. VOP3/SDWA: kNeg, kAbs, kSext. VOP3P: kNeg
// (neg_lo), kNegHi, kOpSel, kOpSelHi. gfx9 VOP3 16-bit ops: kOpSel per source, kDstOpSel on src0.
enum : std::uint8_t { kNeg = 1, kAbs = 2, kNegHi = 2, kSext = 4, kOpSel = 4, kOpSelHi = 8, kDstOpSel = 8 };

inline constexpr int kSgprVcc = 106, kSgprM0 = 124, kSgprExec = 126, kSgprFlatScratch = 102, kSgprXnack = 104;
inline constexpr int kSgprFileSize = 128;

struct Operand {
  Kind kind = Kind::None;
  std::uint8_t regs = 0;  // consecutive 32-bit registers (1, 2, 3, 4, 8, 16, 32)
  std::uint8_t mods = 0;
  std::uint16_t reg = 0;
  std::uint64_t imm = 0;
};

// Compare condition and type of v_cmp / v_cmpx (Op::v_cmp / Op::v_cmpx).
enum class Cmp : std::uint8_t { F, Lt, Eq, Le, Gt, Lg, Ge, O, U, Nge, Nlg, Ngt, Nle, Neq, Nlt, Tru, Ne, T, Class };
enum class DType : std::uint8_t { None, F16, BF16, F32, F64, I8, U8, I16, U16, I32, U32, I64, U64, Fp8, Bf8, Xf32, F8F6F4 };
const char* to_string(DType t);
int dtype_bits(DType t);

// Memory instructions, parsed from the mnemonic.
enum class Space : std::uint8_t { Scalar, Lds, Flat, Global, Scratch, Buffer };
enum class MemKind : std::uint8_t { Load, Store, Atomic, Bpermute, Permute, Swizzle, Nop };
enum class AtomicOp : std::uint8_t {
  None, Swap, CmpSwap, Add, Sub, Rsub, SMin, UMin, SMax, UMax, And, Or, Xor, Inc, Dec, FAdd, FMin, FMax, PkAddF16,
  PkAddBf16, MskOr, CmpSt
};
struct MemOp {
  Space space = Space::Global;
  MemKind kind = MemKind::Load;
  std::uint8_t bytes = 4;      // bytes per element (1, 2, 4, 8, 12, 16)
  bool sign_ext = false;       // sbyte / sshort / i8 / i16 loads
  bool d16 = false;            // 16-bit data into the low half of a VGPR (…_d16)
  bool d16_hi = false;         // …into the high half (…_d16_hi)
  bool two = false;            // ds_read2 / ds_write2: two addresses
  bool st64 = false;           // ds_*2st64: offsets in units of 64 elements
  bool returns = false;        // atomics that return the memory's previous value
  bool is_float = false;       // FAdd/FMin/FMax on floats (element type f32/f64)
  std::uint8_t tr_bits = 0;    // ds_read_b64_tr_b16 (gfx950): a transposing read of 16-bit elements
  AtomicOp aop = AtomicOp::None;
};

// One MFMA: D(M x N, per block) = A(M x K) * B(K x N) + C over `blocks` independent blocks; lane
// data layouts in sim/functional/amd_mfma.cpp.
struct MfmaShape {
  std::uint8_t m = 0, n = 0, k = 0, blocks = 1;
  std::uint8_t kpl = 0;          // A/B elements per lane
  DType a = DType::None, b = DType::None, d = DType::None;
  std::uint8_t cbsz = 0, abid = 0, blgp = 0;  // for f8f6f4: cbsz / blgp select A's / B's format
  bool scaled = false;           // v_mfma_scale_*: E8M0 block scales per lane
};

struct Inst {
  Op op = Op::Invalid;
  Fmt fmt = Fmt::None;
  Enc enc = Enc::Native;
  Unit unit = Unit::Nop;
  std::uint8_t ndst = 0, nsrc = 0;
  std::uint8_t size = 4;            // encoded bytes (4, 8, 12)
  Operand dst[2];
  Operand src[5];                   // MFMA with block scales reads five (A, B, C, scale A, scale B)
  // VOP3 / VOP3P
  bool clamp = false;
  std::uint8_t omod = 0;            // 0: none, 1: *2, 2: *4, 3: /2
  std::uint8_t op_sel = 0, op_sel_hi = 0;  // as spelled in the text (bit i: source i); block-scaled MFMA
  // compares
  Cmp cmp = Cmp::F;
  DType type = DType::None;         // v_cmp operand type
  // DPP
  std::uint16_t dpp_ctrl = 0;
  std::uint8_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false;
  // SDWA: sel 0-3 bytes, 4-5 words, 6 dword; dst_unused 0 pad, 1 sext, 2 preserve
  std::uint8_t dst_sel = 6, dst_unused = 0;
  std::uint8_t src_sel[2] = {6, 6};
  // memory
  MemOp mem;
  std::int32_t offset = 0, offset1 = 0;   // memory offsets (ds: offset0/offset1)
  bool offen = false, idxen = false, glc = false, slc = false, nt = false, lds_dma = false;
  MfmaShape mfma;
  std::int32_t simm = 0;            // SOPK / SOPP immediate, waitcnt field, hwreg, s_setprio level
  // s_waitcnt (gfx9 encoding): the counts the wave waits for; no functional effect, kept for timing
  std::uint8_t wait_vm = 63, wait_exp = 7, wait_lgkm = 15;
  std::int32_t target = -1;         // branch target (instruction index)
  std::uint64_t addr = 0;           // code address (code object virtual address)
  std::uint32_t text = 0;           // Program::text index
};

struct Program {
  std::string target;                 // the processor it was decoded for (gfx942, gfx950)
  std::uint64_t text_addr = 0;
  std::vector<Inst> insts;
  std::vector<std::string> text;      // disassembly of each instruction
  std::vector<std::string> notes;     // why an instruction decoded to Op::Unknown ("" otherwise)
  std::vector<std::int32_t> index_of; // (addr - text_addr) / 4 -> instruction index; -1 inside one
  int max_sgpr = 0, max_vgpr = 0, max_agpr = 0;  // registers the code names (highest index + 1)
  std::shared_ptr<const CodeObject> code;

  // Instruction index at a code address, or -1.
  std::int32_t find(std::uint64_t addr) const;
  // "`v_add_f32_e32 v1, v2, v3` at 0x1904 (kern+0x4)"
  std::string describe(const Inst& in) const;
};

// Decodes the whole .text of a code object. Throws Error(Parse) when LLVM lacks the AMDGPU
// disassembler, Error(Unsupported) for a processor kernsim does not simulate.
Program decode(std::shared_ptr<const CodeObject> code, const std::string& origin);

}  // namespace kernsim::isa::amdgcn
