// Decoding AMDGPU machine code with LLVM's MC disassembler into isa::amdgcn::Inst descriptors.
//
// Operands come from the MCInst: the MCInstrDesc says which operands are definitions, which are
// tied to a definition (not separate inputs) and which immediates are source modifiers; every
// other register or immediate operand is a value the instruction reads, in encoding order.
// Named modifiers (clamp, omod, memory offsets and cache bits, SDWA selects, MFMA broadcast
// controls) are read from the canonical assembly text the MCInstPrinter writes, which spells
// each of them out by name; DPP controls and a few packed fields come from the MCInst.
#include "isa/amdgcn/program.h"

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCExpr.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "base/error.h"
#include "isa/amdgcn/llvm_entry.h"

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUDisassembler();

namespace kernsim::isa::amdgcn {

// Aperture constants kernsim reports through src_shared_base / src_private_base (high 32 bits
// of the 64-bit flat address ranges that map to LDS and to scratch).
inline constexpr std::uint64_t kSharedApertureHi = 0x00010000u;
inline constexpr std::uint64_t kPrivateApertureHi = 0x00020000u;

namespace {

struct OpInfo {
  Op op;
  Fmt fmt;
  Unit unit;
};

const std::unordered_map<std::string, OpInfo>& op_table() {
  static const std::unordered_map<std::string, OpInfo> table = [] {
    std::unordered_map<std::string, OpInfo> t;
#define KS_OP(name, fmt, unit) t.emplace(#name, OpInfo{Op::name, Fmt::fmt, Unit::unit});
#include "isa/amdgcn/ops.def"
#undef KS_OP
    return t;
  }();
  return table;
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool ends(const std::string& s, const char* p) {
  std::size_t n = std::strlen(p);
  return s.size() >= n && s.compare(s.size() - n, n, p) == 0;
}

// ------------------------------------------------------------------------------ LLVM context

// Words LLVM 22's AMDGPU disassembler crashes on (SIGSEGV; `llvm-mc --disassemble` crashes on the
// same words): an operand that asks for a literal constant it cannot read — a GFX9 64-bit
// encoding (VOP3, VOP3P, MUBUF, MTBUF) with the literal code 255 in a source or soffset field
// (GFX9 has no literals there; the error path writes to a null comment stream), or a literal past
// the end of the input (decode() pads the text) — and SDWA selects out of range. None is a valid
// GFX9 instruction, so kernsim marks them invalid without asking LLVM. Found by fuzzing
// (tests/fuzz/regressions/amdgcn_decode).
bool crashes_llvm(const std::uint8_t* p) {
  std::uint32_t w0, w1;
  std::memcpy(&w0, p, 4);
  std::memcpy(&w1, p + 4, 4);
  const std::uint32_t enc = w0 >> 26;
  if (enc == 0x34) {  // VOP3A/VOP3B/VOP3P: src0 [40:32], src1 [49:41], src2 [58:50]
    if ((w1 & 0x1ff) == 255 || ((w1 >> 9) & 0x1ff) == 255 || ((w1 >> 18) & 0x1ff) == 255) return true;
    // an SGPR destination in [7:0] (VOPC promoted to VOP3, v_readlane_b32, v_readfirstlane_b32):
    // 255 is the literal code, which LLVM decodes as a source
    const std::uint32_t op = (w0 >> 16) & 0x3ff;
    if ((op < 0x100 || op == 0x289 || op == 0x142) && (w0 & 0xff) == 255) return true;
    return false;
  }
  if (enc == 0x38 || enc == 0x3a) return (w1 >> 24) == 255;  // MUBUF/MTBUF soffset [63:56]
  // SDWA (VOP1/VOP2/VOPC with src0 = 249): an operand select of 7 or a dst_unused of 3 has no
  // meaning, and LLVM 22 crashes on it too (an out-of-range table index)
  const bool vop2 = (w0 >> 31) == 0, vop1 = (w0 >> 25) == 0x3f, vopc = (w0 >> 25) == 0x3e;
  if ((vop1 || vop2 || vopc) && (w0 & 0x1ff) == 249) {
    const std::uint32_t src0_sel = (w1 >> 16) & 7, src1_sel = (w1 >> 24) & 7, dst_sel = (w1 >> 8) & 7, dst_unused = (w1 >> 11) & 3;
    if (src0_sel == 7 || src1_sel == 7) return true;
    if (!vopc && (dst_sel == 7 || dst_unused == 3)) return true;
  }
  return false;
}

struct Llvm {
  const llvm::Target* target = nullptr;
  llvm::Triple triple{"amdgcn-amd-amdhsa"};
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> dis;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  int input_mods_type = 45;  // OperandType of source-modifier immediates (looked up below)

  explicit Llvm(const std::string& cpu) {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeAMDGPUTargetInfo();
      LLVMInitializeAMDGPUTargetMC();
      LLVMInitializeAMDGPUDisassembler();
    });
    std::string err;
    target = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!target) throw Error(ErrorKind::Internal, "LLVM has no AMDGPU target: " + err);
    mri.reset(target->createMCRegInfo(triple));
    llvm::MCTargetOptions opts;
    mai.reset(target->createMCAsmInfo(*mri, triple, opts));
    mii.reset(target->createMCInstrInfo());
    sti.reset(target->createMCSubtargetInfo(triple, cpu, ""));
    if (!mri || !mai || !mii || !sti) throw Error(ErrorKind::Internal, "LLVM could not create the AMDGPU MC layer for " + cpu);
    ctx = std::make_unique<llvm::MCContext>(triple, mai.get(), mri.get(), sti.get());
    dis.reset(target->createMCDisassembler(*sti, *ctx));
    printer.reset(target->createMCInstPrinter(triple, 0, *mai, *mii, *mri));
    if (!dis || !printer) throw Error(ErrorKind::Internal, "LLVM lacks the AMDGPU disassembler or printer");

    // The source-modifier operand type: operand 1 of v_add_f32_e64.
    for (unsigned i = 0; i < mii->getNumOpcodes(); ++i)
      if (mii->getName(i) == "V_ADD_F32_e64_vi") {
        const llvm::MCInstrDesc& d = mii->get(i);
        if (d.getNumOperands() > 1) input_mods_type = d.operands()[1].OperandType;
        break;
      }
  }
};

// ------------------------------------------------------------------------------ registers

bool parse_reg_name(const std::string& raw, Operand& o, std::string& problem) {
  std::string n = raw;
  for (const char* tail : {"_gfxpre11", "_gfx11plus", "_gfx9plus", "_vi", "_ci", "_gfx10plus"})
    if (ends(n, tail)) n.resize(n.size() - std::strlen(tail));
  struct Special {
    const char* name;
    Kind kind;
    int reg, regs;
    std::uint64_t imm;
  };
  static const Special specials[] = {
      {"VCC", Kind::Sgpr, kSgprVcc, 2, 0},        {"VCC_LO", Kind::Sgpr, kSgprVcc, 1, 0},
      {"VCC_HI", Kind::Sgpr, kSgprVcc + 1, 1, 0}, {"EXEC", Kind::Sgpr, kSgprExec, 2, 0},
      {"EXEC_LO", Kind::Sgpr, kSgprExec, 1, 0},   {"EXEC_HI", Kind::Sgpr, kSgprExec + 1, 1, 0},
      {"M0", Kind::Sgpr, kSgprM0, 1, 0},          {"FLAT_SCR", Kind::Sgpr, kSgprFlatScratch, 2, 0},
      {"FLAT_SCR_LO", Kind::Sgpr, kSgprFlatScratch, 1, 0}, {"FLAT_SCR_HI", Kind::Sgpr, kSgprFlatScratch + 1, 1, 0},
      {"XNACK_MASK", Kind::Sgpr, kSgprXnack, 2, 0}, {"XNACK_MASK_LO", Kind::Sgpr, kSgprXnack, 1, 0},
      {"XNACK_MASK_HI", Kind::Sgpr, kSgprXnack + 1, 1, 0}, {"SGPR_NULL", Kind::Null, 0, 1, 0},
      {"SGPR_NULL64", Kind::Null, 0, 2, 0},       {"SCC", Kind::Scc, 0, 1, 0},
      {"SRC_SCC", Kind::Scc, 0, 1, 0},            {"SRC_VCCZ", Kind::Vccz, 0, 1, 0},
      {"SRC_EXECZ", Kind::Execz, 0, 1, 0},
      {"SRC_SHARED_BASE", Kind::Imm, 0, 2, kSharedApertureHi << 32},
      {"SRC_SHARED_BASE_LO", Kind::Imm, 0, 1, kSharedApertureHi},
      {"SRC_SHARED_LIMIT", Kind::Imm, 0, 2, (kSharedApertureHi << 32) | 0xffffffffu},
      {"SRC_SHARED_LIMIT_LO", Kind::Imm, 0, 1, kSharedApertureHi},
      {"SRC_PRIVATE_BASE", Kind::Imm, 0, 2, kPrivateApertureHi << 32},
      {"SRC_PRIVATE_BASE_LO", Kind::Imm, 0, 1, kPrivateApertureHi},
      {"SRC_PRIVATE_LIMIT", Kind::Imm, 0, 2, (kPrivateApertureHi << 32) | 0xffffffffu},
      {"SRC_PRIVATE_LIMIT_LO", Kind::Imm, 0, 1, kPrivateApertureHi},
      {"SRC_POPS_EXITING_WAVE_ID", Kind::Imm, 0, 1, 0},
  };
  for (const auto& s : specials)
    if (n == s.name) {
      o.kind = s.kind;
      o.reg = static_cast<std::uint16_t>(s.reg);
      o.regs = static_cast<std::uint8_t>(s.regs);
      o.imm = s.imm;
      return true;
    }
  struct Prefix {
    const char* p;
    Kind kind;
    int base;
  };
  static const Prefix prefixes[] = {{"VGPR", Kind::Vgpr, 0}, {"AGPR", Kind::Agpr, 0}, {"SGPR", Kind::Sgpr, 0}, {"TTMP", Kind::Sgpr, 108}};
  for (const auto& p : prefixes) {
    if (!starts(n, p.p)) continue;
    std::size_t i = std::strlen(p.p);
    std::size_t j = i;
    while (j < n.size() && std::isdigit(static_cast<unsigned char>(n[j]))) ++j;
    if (j == i) break;
    if (j < n.size() && n[j] != '_') break;  // e.g. VGPR1_LO16 (16-bit halves, gfx11) are not gfx9 registers
    int count = 1;
    for (std::size_t k = j; k < n.size(); ++k)
      if (n[k] == '_') ++count;
    if (j < n.size() && n.find("LO16") != std::string::npos) break;
    o.kind = p.kind;
    o.reg = static_cast<std::uint16_t>(p.base + std::stoi(n.substr(i, j - i)));
    o.regs = static_cast<std::uint8_t>(count);
    return true;
  }
  problem = "register " + raw;
  return false;
}

// ------------------------------------------------------------------------------ text modifiers

std::vector<std::string> tokens_of(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && (c == ' ' || c == '\t' || c == ',')) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool parse_int(const std::string& s, std::int64_t& v) {
  if (s.empty()) return false;
  try {
    std::size_t pos = 0;
    bool neg = s[0] == '-';
    std::string t = neg ? s.substr(1) : s;
    long long x = std::stoll(t, &pos, 0);
    if (pos != t.size()) return false;
    v = neg ? -x : x;
    return true;
  } catch (...) {
    return false;
  }
}

int sdwa_sel(const std::string& v) {
  static const char* names[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
  for (int i = 0; i < 7; ++i)
    if (v == names[i]) return i;
  return 6;
}

void parse_modifiers(const std::string& text, Inst& in) {
  for (const auto& t : tokens_of(text)) {
    auto colon = t.find(':');
    std::string key = colon == std::string::npos ? t : t.substr(0, colon);
    std::string val = colon == std::string::npos ? std::string() : t.substr(colon + 1);
    std::int64_t v = 0;
    if (key == "clamp") in.clamp = true;
    else if (key == "mul" && parse_int(val, v)) in.omod = v == 2 ? 1 : v == 4 ? 2 : 0;
    else if (key == "div" && parse_int(val, v)) in.omod = v == 2 ? 3 : 0;
    else if ((key == "offset" || key == "offset0") && parse_int(val, v)) in.offset = static_cast<std::int32_t>(v);
    else if (key == "offset1" && parse_int(val, v)) in.offset1 = static_cast<std::int32_t>(v);
    else if (key == "offen") in.offen = true;
    else if (key == "idxen") in.idxen = true;
    else if (key == "glc" || key == "sc0") in.glc = true;
    else if (key == "slc" || key == "sc1") in.slc = true;
    else if (key == "nt") in.nt = true;
    else if (key == "lds") in.lds_dma = true;
    else if (key == "dst_sel") in.dst_sel = static_cast<std::uint8_t>(sdwa_sel(val));
    else if (key == "dst_unused") in.dst_unused = val == "UNUSED_SEXT" ? 1 : val == "UNUSED_PRESERVE" ? 2 : 0;
    else if (key == "src0_sel") in.src_sel[0] = static_cast<std::uint8_t>(sdwa_sel(val));
    else if (key == "src1_sel") in.src_sel[1] = static_cast<std::uint8_t>(sdwa_sel(val));
    else if (key == "bitop3" && parse_int(val, v)) in.simm = static_cast<std::int32_t>(v);
    else if (key == "op_sel" || key == "op_sel_hi") {
      std::uint8_t bits = 0;
      int i = 0;
      for (char c : val)
        if (c == '0' || c == '1') bits |= static_cast<std::uint8_t>((c - '0') << i++);
      (key == "op_sel" ? in.op_sel : in.op_sel_hi) = bits;
    }
    else if (key == "cbsz" && parse_int(val, v)) in.mfma.cbsz = static_cast<std::uint8_t>(v);
    else if (key == "abid" && parse_int(val, v)) in.mfma.abid = static_cast<std::uint8_t>(v);
    else if (key == "blgp" && parse_int(val, v)) in.mfma.blgp = static_cast<std::uint8_t>(v);
  }
}

// ------------------------------------------------------------------------------ mnemonic families

DType dtype_of(const std::string& s) {
  static const std::pair<const char*, DType> m[] = {
      {"f16", DType::F16}, {"bf16", DType::BF16}, {"f32", DType::F32}, {"f64", DType::F64}, {"i16", DType::I16},
      {"u16", DType::U16}, {"i32", DType::I32},   {"u32", DType::U32}, {"i64", DType::I64}, {"u64", DType::U64},
      {"i8", DType::I8},   {"u8", DType::U8},     {"fp8", DType::Fp8}, {"bf8", DType::Bf8}, {"xf32", DType::Xf32}, {"f8f6f4", DType::F8F6F4}};
  for (const auto& [n, t] : m)
    if (s == n) return t;
  return DType::None;
}

bool parse_cmp(const std::string& base, Inst& in) {
  // v_cmp[x]_<cond>_<type>
  std::string rest = base.substr(starts(base, "v_cmpx_") ? 7 : 6);
  auto us = rest.rfind('_');
  if (us == std::string::npos) return false;
  std::string cond = rest.substr(0, us), type = rest.substr(us + 1);
  static const std::pair<const char*, Cmp> conds[] = {
      {"f", Cmp::F},     {"lt", Cmp::Lt},   {"eq", Cmp::Eq},   {"le", Cmp::Le},   {"gt", Cmp::Gt},     {"lg", Cmp::Lg},
      {"ge", Cmp::Ge},   {"o", Cmp::O},     {"u", Cmp::U},     {"nge", Cmp::Nge}, {"nlg", Cmp::Nlg},   {"ngt", Cmp::Ngt},
      {"nle", Cmp::Nle}, {"neq", Cmp::Neq}, {"nlt", Cmp::Nlt}, {"tru", Cmp::Tru}, {"ne", Cmp::Ne},     {"t", Cmp::T},
      {"class", Cmp::Class}};
  bool found = false;
  for (const auto& [n, c] : conds)
    if (cond == n) {
      in.cmp = c;
      found = true;
    }
  in.type = dtype_of(type);
  return found && in.type != DType::None;
}

AtomicOp atomic_op(const std::string& n, bool& is_float) {
  is_float = false;
  static const std::pair<const char*, AtomicOp> m[] = {
      {"swap", AtomicOp::Swap},   {"wrxchg", AtomicOp::Swap}, {"cmpswap", AtomicOp::CmpSwap}, {"cmpst", AtomicOp::CmpSt},
      {"add", AtomicOp::Add},     {"sub", AtomicOp::Sub},     {"rsub", AtomicOp::Rsub},       {"smin", AtomicOp::SMin},
      {"umin", AtomicOp::UMin},   {"smax", AtomicOp::SMax},   {"umax", AtomicOp::UMax},       {"and", AtomicOp::And},
      {"or", AtomicOp::Or},       {"xor", AtomicOp::Xor},     {"inc", AtomicOp::Inc},         {"dec", AtomicOp::Dec},
      {"mskor", AtomicOp::MskOr}, {"min", AtomicOp::SMin},    {"max", AtomicOp::SMax},        {"fmin", AtomicOp::FMin},
      {"fmax", AtomicOp::FMax}};
  for (const auto& [k, a] : m)
    if (n == k) return a;
  return AtomicOp::None;
}

int width_bytes(const std::string& w, bool& sign, bool& d16, bool& d16_hi) {
  sign = d16 = d16_hi = false;
  if (ends(w, "_d16_hi")) { d16 = d16_hi = true; }
  else if (ends(w, "_d16")) { d16 = true; }
  std::string b = w;
  if (d16_hi) b.resize(b.size() - 7);
  else if (d16) b.resize(b.size() - 4);
  static const std::pair<const char*, int> m[] = {
      {"ubyte", 1}, {"sbyte", 1}, {"byte", 1}, {"ushort", 2}, {"sshort", 2}, {"short", 2}, {"dword", 4},
      {"dwordx2", 8}, {"dwordx3", 12}, {"dwordx4", 16}, {"dwordx8", 32}, {"dwordx16", 64}, {"b32", 4}, {"b64", 8}, {"b96", 12}, {"b128", 16},
      {"u8", 1}, {"i8", 1}, {"u16", 2}, {"i16", 2}, {"b8", 1}, {"b16", 2}};
  for (const auto& [k, n] : m)
    if (b == k) {
      sign = b == "sbyte" || b == "sshort" || b == "i8" || b == "i16";
      return n;
    }
  return 0;
}

}  // namespace

namespace {

// Splits a decoded instruction's operands into definitions and sources.
struct Split {
  std::vector<Operand> defs, uses;
  std::vector<std::int64_t> fields;  // immediates that are encoding fields, in order
  std::string problem;
};

Split split_operands(const Llvm& L, const llvm::MCInst& mi) {
  Split s;
  const llvm::MCInstrDesc& d = L.mii->get(mi.getOpcode());
  const unsigned ndefs = d.getNumDefs();
  std::uint8_t pending_mods = 0;
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MCOperand& op = mi.getOperand(i);
    const int type = i < d.getNumOperands() ? d.operands()[i].OperandType : -1;
    if (i >= ndefs && i < d.getNumOperands()) {
      int tied = d.getOperandConstraint(i, llvm::MCOI::TIED_TO);
      if (tied >= 0 && static_cast<unsigned>(tied) < ndefs) continue;  // the same register as a definition
    }
    if (op.isReg()) {
      Operand o;
      if (op.getReg() == 0) continue;  // an absent optional register
      if (!parse_reg_name(L.mri->getName(op.getReg()), o, s.problem)) return s;
      o.mods = pending_mods;
      pending_mods = 0;
      (i < ndefs ? s.defs : s.uses).push_back(o);
    } else if (op.isImm()) {
      if (type == L.input_mods_type) {
        pending_mods = static_cast<std::uint8_t>(op.getImm());
      } else if (type >= llvm::MCOI::OPERAND_FIRST_TARGET) {
        Operand o;
        o.kind = Kind::Imm;
        o.regs = 1;
        o.imm = static_cast<std::uint64_t>(op.getImm());
        o.mods = pending_mods;
        pending_mods = 0;
        s.uses.push_back(o);
      } else {
        s.fields.push_back(op.getImm());
      }
    } else if (op.isExpr()) {
      // literals the printer marks lit(...) arrive as constant expressions
      std::int64_t v = 0;
      if (!op.getExpr()->evaluateAsAbsolute(v)) {
        s.problem = "a symbolic operand";
        return s;
      }
      Operand o;
      o.kind = Kind::Imm;
      o.regs = 1;
      o.imm = static_cast<std::uint64_t>(v);
      o.mods = pending_mods;
      pending_mods = 0;
      if (type >= llvm::MCOI::OPERAND_FIRST_TARGET && type != L.input_mods_type) s.uses.push_back(o);
      else s.fields.push_back(v);
    } else {
      s.problem = "an operand of unknown form";
      return s;
    }
  }
  return s;
}

Operand vcc_operand() {
  Operand o;
  o.kind = Kind::Sgpr;
  o.reg = kSgprVcc;
  o.regs = 2;
  return o;
}

void set_dst(Inst& in, const std::vector<Operand>& d) {
  in.ndst = static_cast<std::uint8_t>(std::min<std::size_t>(d.size(), 2));
  for (std::size_t i = 0; i < in.ndst; ++i) in.dst[i] = d[i];
}
void set_src(Inst& in, const std::vector<Operand>& u) {
  in.nsrc = static_cast<std::uint8_t>(std::min<std::size_t>(u.size(), 5));
  for (std::size_t i = 0; i < in.nsrc; ++i) in.src[i] = u[i];
}

// MFMA mnemonics: v_mfma_<d>_<M>x<N>x<K>[_]<a>[_<b>][_1k]
bool parse_mfma(const std::string& base, Inst& in, const Split& s, std::string& problem) {
  std::string r = base.substr(7);  // after v_mfma_
  if (starts(r, "scale_")) {
    in.mfma.scaled = true;
    r = r.substr(6);
  }
  auto us = r.find('_');
  if (us == std::string::npos) return false;
  MfmaShape& m = in.mfma;
  m.d = dtype_of(r.substr(0, us));
  r = r.substr(us + 1);
  int M = 0, N = 0, K = 0;
  std::size_t p = 0;
  auto num = [&](int& out) {
    std::size_t q = p;
    while (q < r.size() && std::isdigit(static_cast<unsigned char>(r[q]))) ++q;
    if (q == p) return false;
    out = std::stoi(r.substr(p, q - p));
    p = q;
    return true;
  };
  if (!num(M) || p >= r.size() || r[p++] != 'x' || !num(N) || p >= r.size() || r[p++] != 'x' || !num(K)) return false;
  std::string types = r.substr(p);
  if (!types.empty() && types[0] == '_') types = types.substr(1);
  if (ends(types, "_1k")) types.resize(types.size() - 3);
  // multi-block shapes spell the block count: 16x16x1_4b_f32, 4x4x4_16b_f16
  if (auto b = types.find("b_"); b != std::string::npos && b > 0 && std::isdigit(static_cast<unsigned char>(types[0])))
    types = types.substr(b + 2);
  auto u2 = types.find('_');
  m.a = dtype_of(u2 == std::string::npos ? types : types.substr(0, u2));
  m.b = u2 == std::string::npos ? m.a : dtype_of(types.substr(u2 + 1));
  if (m.a == DType::None || m.b == DType::None || m.d == DType::None) return false;
  m.m = static_cast<std::uint8_t>(M);
  m.n = static_cast<std::uint8_t>(N);
  m.k = static_cast<std::uint8_t>(K);
  if (s.defs.size() != 1 || s.uses.size() != (m.scaled ? 5u : 3u)) {
    problem = "operands of an MFMA";
    return false;
  }
  const int abits = dtype_bits(m.a);
  const int a_regs = s.uses[0].kind == Kind::Imm ? 1 : s.uses[0].regs;
  // f8f6f4: 32 elements per lane whatever the format (8, 6 or 4 registers)
  const int kpl = m.a == DType::F8F6F4 ? 32 : a_regs * 32 / abits;
  const int dbits = dtype_bits(m.d);
  const int d_elems = s.defs[0].regs * 32 / dbits;
  const int blocks = 64 * d_elems / (M * N);
  m.kpl = static_cast<std::uint8_t>(kpl);
  m.blocks = static_cast<std::uint8_t>(std::max(blocks, 1));
  const bool ok = blocks == 1 ? K == kpl * 64 / M : K == kpl && blocks == 64 / M;
  if (!ok) {
    problem = "the shape of " + base + " (" + std::to_string(blocks) + " blocks, " + std::to_string(kpl) + " elements per lane)";
    return false;
  }
  return true;
}

bool parse_smem(const std::string& base, const std::string& mcname, Inst& in, const Split& s) {
  // s_load_dword[xN], s_buffer_load_dword[xN], s_store_dword[xN], s_buffer_store_dword[xN]
  bool buffer = starts(base, "s_buffer_");
  std::string r = base.substr(buffer ? 9 : 2);
  bool store = false;
  if (starts(r, "load_")) r = r.substr(5);
  else if (starts(r, "store_")) { r = r.substr(6); store = true; }
  else return false;
  bool sign, d16, hi;
  int bytes = width_bytes(r, sign, d16, hi);
  if (bytes < 4) return false;
  in.op = store ? Op::s_store : Op::s_load;
  in.fmt = Fmt::Smem;
  in.unit = Unit::Mem;
  in.mem.space = Space::Scalar;
  in.mem.kind = store ? MemKind::Store : MemKind::Load;
  in.mem.bytes = static_cast<std::uint8_t>(bytes);
  in.idxen = buffer;  // scalar buffer loads take a buffer resource instead of an address
  set_dst(in, s.defs);
  set_src(in, s.uses);  // load: sbase, [soffset]; store: sdata, sbase, [soffset]
  if (mcname.find("_IMM") != std::string::npos && !s.fields.empty()) in.offset = static_cast<std::int32_t>(s.fields[0]);
  return true;
}

bool parse_ds(const std::string& base, Inst& in, const Split& s, std::string& problem) {
  std::string r = base.substr(3);
  MemOp& m = in.mem;
  m.space = Space::Lds;
  in.op = Op::ds;
  in.fmt = Fmt::Ds;
  in.unit = Unit::Mem;
  bool sign, d16, hi;
  auto width = [&](const std::string& w) {
    int b = width_bytes(w, sign, d16, hi);
    m.sign_ext = sign;
    m.d16 = d16;
    m.d16_hi = hi;
    return b;
  };
  if (r == "bpermute_b32") { m.kind = MemKind::Bpermute; m.bytes = 4; in.unit = Unit::Sync; }
  else if (r == "permute_b32") { m.kind = MemKind::Permute; m.bytes = 4; in.unit = Unit::Sync; }
  else if (r == "swizzle_b32") {
    m.kind = MemKind::Swizzle;
    m.bytes = 4;
    in.unit = Unit::Sync;
    if (!s.fields.empty()) in.offset = static_cast<std::int32_t>(s.fields[0]);
  } else if (r == "read_b64_tr_b16") {  // gfx950's transposing read (sim/functional/amd_mem.cpp)
    m.kind = MemKind::Load;
    m.bytes = 8;
    m.tr_bits = 16;
  } else if (starts(r, "read2") || starts(r, "write2")) {
    bool rd = starts(r, "read2");
    std::string w = r.substr(rd ? 5 : 6);
    if (starts(w, "st64")) { m.st64 = true; w = w.substr(4); }
    if (!w.empty() && w[0] == '_') w = w.substr(1);
    m.two = true;
    m.kind = rd ? MemKind::Load : MemKind::Store;
    m.bytes = static_cast<std::uint8_t>(width(w));
  } else if (starts(r, "read_") || starts(r, "write_") || starts(r, "read_addtid") ) {
    bool rd = starts(r, "read_");
    m.kind = rd ? MemKind::Load : MemKind::Store;
    m.bytes = static_cast<std::uint8_t>(width(r.substr(rd ? 5 : 6)));
  } else {
    // LDS atomics: ds_<op>[_rtn]_<type>, ds_wrxchg_rtn_b32, ds_cmpst_rtn_b32, ds_add_f32, ...
    std::string t = r;
    auto us = t.rfind('_');
    if (us == std::string::npos) return false;
    std::string type = t.substr(us + 1);
    t = t.substr(0, us);
    if (ends(t, "_rtn")) { m.returns = true; t.resize(t.size() - 4); }
    bool f = false;
    m.aop = atomic_op(t, f);
    if (m.aop == AtomicOp::None) return false;
    m.kind = MemKind::Atomic;
    DType dt = dtype_of(type);
    if (type == "b32") dt = DType::U32;
    if (type == "b64") dt = DType::U64;
    if (dt == DType::None) return false;
    m.bytes = static_cast<std::uint8_t>(dtype_bits(dt) / 8);
    m.is_float = dt == DType::F32 || dt == DType::F64;
    if (m.is_float && m.aop == AtomicOp::Add) m.aop = AtomicOp::FAdd;
    if (m.is_float && m.aop == AtomicOp::SMin) m.aop = AtomicOp::FMin;
    if (m.is_float && m.aop == AtomicOp::SMax) m.aop = AtomicOp::FMax;
    if ((dt == DType::U32 || dt == DType::U64) && m.aop == AtomicOp::SMin) m.aop = AtomicOp::UMin;
    if ((dt == DType::U32 || dt == DType::U64) && m.aop == AtomicOp::SMax) m.aop = AtomicOp::UMax;
  }
  if (m.bytes == 0) {
    problem = "the width of " + base;
    return false;
  }
  set_dst(in, s.defs);
  set_src(in, s.uses);  // addr, data0, data1
  return true;
}

bool parse_vmem(const std::string& base, const std::string& mcname, Inst& in, const Split& s, std::string& problem) {
  MemOp& m = in.mem;
  std::string r;
  if (starts(base, "flat_")) { m.space = Space::Flat; in.fmt = Fmt::Flat; r = base.substr(5); }
  else if (starts(base, "global_")) { m.space = Space::Global; in.fmt = Fmt::Global; r = base.substr(7); }
  else if (starts(base, "scratch_")) { m.space = Space::Scratch; in.fmt = Fmt::Scratch; r = base.substr(8); }
  else if (starts(base, "buffer_")) { m.space = Space::Buffer; in.fmt = Fmt::Mubuf; r = base.substr(7); }
  else return false;
  in.op = Op::vmem;
  in.unit = Unit::Mem;
  bool sign, d16, hi;
  if (starts(r, "load_lds_")) {  // global_load_lds_*: LDS DMA through a FLAT-global address (as buffer_load_* lds)
    if (m.space != Space::Global) {
      problem = base + " (loads straight into LDS)";
      return false;
    }
    m.kind = MemKind::Load;
    m.bytes = static_cast<std::uint8_t>(width_bytes(r.substr(9), sign, d16, hi));
    m.sign_ext = sign;
    if (m.bytes == 0 || m.bytes == 8 || d16) {
      problem = base + " (loads straight into LDS; kernsim implements the 1/2/4/12/16-byte loads)";
      return false;
    }
    in.lds_dma = true;
  } else if (starts(r, "load_") || starts(r, "store_")) {
    bool ld = starts(r, "load_");
    m.kind = ld ? MemKind::Load : MemKind::Store;
    std::string w = r.substr(ld ? 5 : 6);
    if (starts(w, "format")) {
      problem = base + " (typed buffer formats)";
      return false;
    }
    m.bytes = static_cast<std::uint8_t>(width_bytes(w, sign, d16, hi));
    m.sign_ext = sign;
    m.d16 = d16;
    m.d16_hi = hi;
  } else if (starts(r, "atomic_")) {
    std::string t = r.substr(7);
    bool x2 = ends(t, "_x2");
    if (x2) t.resize(t.size() - 3);
    m.kind = MemKind::Atomic;
    m.bytes = x2 ? 8 : 4;
    if (t == "add_f32") { m.aop = AtomicOp::FAdd; m.is_float = true; }
    else if (t == "add_f64") { m.aop = AtomicOp::FAdd; m.is_float = true; m.bytes = 8; }
    else if (t == "min_f64") { m.aop = AtomicOp::FMin; m.is_float = true; m.bytes = 8; }
    else if (t == "max_f64") { m.aop = AtomicOp::FMax; m.is_float = true; m.bytes = 8; }
    else if (t == "pk_add_f16") { m.aop = AtomicOp::PkAddF16; }
    else if (t == "pk_add_bf16") { m.aop = AtomicOp::PkAddBf16; }
    else {
      bool f;
      m.aop = atomic_op(t, f);
    }
    if (m.aop == AtomicOp::None) return false;
    m.returns = mcname.find("_RTN") != std::string::npos;
  } else {
    return false;
  }
  if (m.bytes == 0) {
    problem = "the width of " + base;
    return false;
  }
  // Operand roles: dst[0] = vdst; src[0] = vaddr, src[1] = vdata, src[2] = saddr / srsrc, src[3] = soffset.
  set_dst(in, s.defs);
  std::vector<Operand> u = s.uses;
  if (in.lds_dma && m.space == Space::Global) {  // no vdst; M0 (the LDS base) is an implicit use
    in.ndst = 0;
    u.erase(std::remove_if(u.begin(), u.end(), [](const Operand& o) { return o.kind == Kind::Sgpr && o.reg == kSgprM0; }),
            u.end());
  }
  Operand none;
  in.nsrc = 4;
  for (auto& o : in.src) o = none;
  std::size_t k = 0;
  const bool has_data = m.kind != MemKind::Load;
  if (m.space == Space::Buffer) {
    if (has_data && k < u.size()) in.src[1] = u[k++];
    bool has_vaddr = mcname.find("_OFFEN") != std::string::npos || mcname.find("_IDXEN") != std::string::npos ||
                     mcname.find("_BOTHEN") != std::string::npos || mcname.find("_ADDR64") != std::string::npos;
    if (has_vaddr && k < u.size()) in.src[0] = u[k++];
    if (k < u.size()) in.src[2] = u[k++];
    if (k < u.size()) in.src[3] = u[k++];
    if (mcname.find("_BOTHEN") != std::string::npos) { in.offen = true; in.idxen = true; }
    else if (mcname.find("_IDXEN") != std::string::npos) in.idxen = true;
    else if (mcname.find("_OFFEN") != std::string::npos) in.offen = true;
    if (mcname.find("_LDS_") != std::string::npos || in.lds_dma) {
      // LDS DMA: the loaded bytes go to LDS at M0 + offset + lane * (4, or 16 above 4 bytes), not
      // to registers (sim/functional/amd_mem.cpp); M0 is an implicit use of the encoding
      if (m.kind != MemKind::Load || m.d16 || m.bytes == 8) {
        problem = base + " with lds (loads straight into LDS; kernsim implements the 1/2/4/12/16-byte loads)";
        return false;
      }
      in.lds_dma = true;
      in.ndst = 0;
      while (k < u.size() && u[k].kind == Kind::Sgpr && u[k].reg == kSgprM0) ++k;
    }
  } else {
    bool vaddr = true, saddr = false;
    if (m.space == Space::Scratch) {
      if (mcname.find("_ST_") != std::string::npos || ends(mcname, "_ST")) { vaddr = false; }
      else if (mcname.find("_SVS") != std::string::npos) { saddr = true; }
      else if (mcname.find("_SADDR") != std::string::npos) { vaddr = false; saddr = true; }
    } else if (m.space == Space::Global) {
      saddr = mcname.find("_SADDR") != std::string::npos;
    }
    // by kind: the encodings order saddr before vaddr for some forms and after vdata for others
    std::vector<Operand> vec, sca;
    for (const auto& o : u) (o.kind == Kind::Vgpr || o.kind == Kind::Agpr ? vec : sca).push_back(o);
    std::size_t kv = 0;
    if (m.space == Space::Scratch) {
      // scratch stores list vdata before vaddr (scratch_store_dword v2, v1, off: v1 first)
      if (has_data && kv < vec.size()) in.src[1] = vec[kv++];
      if (vaddr && kv < vec.size()) in.src[0] = vec[kv++];
    } else {
      if (vaddr && kv < vec.size()) in.src[0] = vec[kv++];
      if (has_data && kv < vec.size()) in.src[1] = vec[kv++];
    }
    if (saddr && !sca.empty()) in.src[2] = sca[0];
    k = kv + (saddr && !sca.empty() ? 1 : 0);
  }
  if (k != u.size()) {
    problem = "the operands of " + base;
    return false;
  }
  return true;
}

}  // namespace

Program decode_llvm(std::shared_ptr<const CodeObject> code, const std::string& origin) {
  const CodeObject& co = *code;
  if (co.target != "gfx942" && co.target != "gfx950" &&
      co.target != "gfx90a")
    throw Error(ErrorKind::Unsupported, origin + ": code object for " + co.target +
                                            "; kernsim simulates gfx942 (MI300X) and gfx950 (MI355X) code objects");
  Llvm L(co.target);
  Program p;
  p.target = co.target;
  p.text_addr = co.text_addr;
  p.code = code;
  p.index_of.assign((co.text.size() + 3) / 4, -1);
  const auto& table = op_table();

  llvm::ArrayRef<std::uint8_t> bytes(co.text.data(), co.text.size());
  // The disassembler reads the text with zero padding after it, and an instruction that reaches
  // into the padding is a truncated one (Invalid): LLVM's error path for a literal constant that
  // runs past the end of its input is the one that needs the comment stream set above.
  std::vector<std::uint8_t> padded(co.text);
  padded.resize(co.text.size() + 32, 0);
  const llvm::ArrayRef<std::uint8_t> padded_bytes(padded.data(), padded.size());
  std::string comments;  // what the disassembler says about an encoding (a real stream: see Llvm)
  llvm::raw_string_ostream comment_stream(comments);
  for (std::uint64_t off = 0; off < bytes.size();) {
    llvm::MCInst mi;
    std::uint64_t size = 0;
    const std::uint64_t addr = co.text_addr + off;
    comments.clear();
    auto status = crashes_llvm(padded.data() + off) ? llvm::MCDisassembler::Fail
                                                            : L.dis->getInstruction(mi, size, padded_bytes.slice(off), addr, comment_stream);
    if (status == llvm::MCDisassembler::Success && size > bytes.size() - off) status = llvm::MCDisassembler::Fail;
    Inst in;
    in.addr = addr;
    in.text = static_cast<std::uint32_t>(p.text.size());
    if (status != llvm::MCDisassembler::Success || size == 0) {
      in.op = Op::Invalid;
      in.size = 4;
      char b[64];
      std::uint32_t w = 0;
      std::memcpy(&w, bytes.data() + off, std::min<std::size_t>(4, bytes.size() - off));
      std::snprintf(b, sizeof b, ".long 0x%08x", w);
      p.text.emplace_back(b);
      p.notes.emplace_back();
      p.index_of[off / 4] = static_cast<std::int32_t>(p.insts.size());
      p.insts.push_back(in);
      off += 4;
      continue;
    }
    in.size = static_cast<std::uint8_t>(size);
    std::string text;
    {
      llvm::raw_string_ostream os(text);
      L.printer->printInst(&mi, addr, "", *L.sti, os);
    }
    std::size_t a = text.find_first_not_of(" \t");
    text = a == std::string::npos ? std::string() : text.substr(a);
    p.text.push_back(text);
    p.notes.emplace_back();
    const std::string mnemonic = text.substr(0, text.find_first_of(" \t"));
    const std::string mods = text.size() > mnemonic.size() ? text.substr(mnemonic.size()) : std::string();
    const std::string mcname = L.mii->getName(mi.getOpcode()).str();

    std::string base = mnemonic;
    if (ends(base, "_e32")) { in.enc = Enc::E32; base.resize(base.size() - 4); }
    else if (ends(base, "_e64")) { in.enc = Enc::E64; base.resize(base.size() - 4); }
    else if (ends(base, "_dpp")) { in.enc = Enc::Dpp; base.resize(base.size() - 4); }
    else if (ends(base, "_sdwa")) { in.enc = Enc::Sdwa; base.resize(base.size() - 5); }

    Split s = split_operands(L, mi);
    std::string problem = s.problem;
    parse_modifiers(mods, in);
    bool ok = problem.empty();
    if (ok) {
      if (starts(base, "v_cmp_") || starts(base, "v_cmpx_")) {
        bool x = starts(base, "v_cmpx_");
        in.op = x ? Op::v_cmpx : Op::v_cmp;
        in.fmt = Fmt::Vopc;
        in.unit = dtype_bits(in.type) == 64 && (in.type == DType::F64) ? Unit::Fp64 : Unit::IntAlu;
        ok = parse_cmp(base, in);
        if (in.type == DType::F64) in.unit = Unit::Fp64;
        set_src(in, s.uses);
        if (s.defs.empty()) {
          in.ndst = 1;
          in.dst[0] = vcc_operand();
        } else {
          set_dst(in, s.defs);
        }
      } else if (starts(base, "v_mfma_")) {
        in.op = Op::v_mfma;
        in.fmt = Fmt::Mfma;
        ok = parse_mfma(base, in, s, problem);
        if (ok) {
          set_dst(in, s.defs);
          set_src(in, s.uses);
          const DType t = in.mfma.a;
          in.unit = t == DType::F64 ? Unit::TensorF64
                    : t == DType::F32 || t == DType::Xf32 ? Unit::TensorTf32
                    : t == DType::I8 ? Unit::TensorI8
                    : t == DType::Fp8 || t == DType::Bf8 || t == DType::F8F6F4 ? Unit::TensorFp8
                    : Unit::TensorF16;
        }
      } else if ((starts(base, "s_load_") || starts(base, "s_buffer_load_") || starts(base, "s_store_") ||
                  starts(base, "s_buffer_store_"))) {
        ok = parse_smem(base, mcname, in, s);
      } else if (starts(base, "ds_")) {
        ok = parse_ds(base, in, s, problem);
      } else if ((starts(base, "flat_") || starts(base, "global_") || starts(base, "scratch_") || starts(base, "buffer_")) &&
                 table.find(base) == table.end()) {
        ok = parse_vmem(base, mcname, in, s, problem);
      } else if (auto it = table.find(base); it != table.end()) {
        in.op = it->second.op;
        in.fmt = it->second.fmt;
        in.unit = it->second.unit;
        if (in.enc == Enc::E64 && (in.fmt == Fmt::Vop1 || in.fmt == Fmt::Vop2)) in.fmt = in.fmt;  // same semantics
        set_dst(in, s.defs);
        set_src(in, s.uses);
        const bool scalar = in.fmt == Fmt::Sop1 || in.fmt == Fmt::Sop2 || in.fmt == Fmt::Sopk || in.fmt == Fmt::Sopc ||
                            in.fmt == Fmt::Sopp || in.fmt == Fmt::Smem;
        if (scalar && !s.fields.empty()) in.simm = static_cast<std::int32_t>(s.fields[0]);
        if (in.op == Op::s_waitcnt) {
          const std::uint32_t w = static_cast<std::uint32_t>(in.simm);
          in.wait_vm = static_cast<std::uint8_t>((w & 0xf) | (((w >> 14) & 3) << 4));
          in.wait_exp = static_cast<std::uint8_t>((w >> 4) & 7);
          in.wait_lgkm = static_cast<std::uint8_t>((w >> 8) & 0xf);
        }
        // implicit VCC operands of the 32-bit encodings
        const bool e32ish = in.enc == Enc::E32 || in.enc == Enc::Dpp || in.enc == Enc::Sdwa;
        switch (in.op) {
          case Op::v_add_co_u32: case Op::v_sub_co_u32: case Op::v_subrev_co_u32:
            if (e32ish && in.ndst == 1) { in.ndst = 2; in.dst[1] = vcc_operand(); }
            break;
          case Op::v_addc_co_u32: case Op::v_subb_co_u32: case Op::v_subbrev_co_u32:
            if (e32ish && in.ndst == 1) { in.ndst = 2; in.dst[1] = vcc_operand(); }
            if (e32ish && in.nsrc == 2) { in.nsrc = 3; in.src[2] = vcc_operand(); }
            break;
          case Op::v_cndmask_b32:
            if (e32ish && in.nsrc == 2) { in.nsrc = 3; in.src[2] = vcc_operand(); }
            break;
          case Op::v_div_fmas_f32: case Op::v_div_fmas_f64:
            in.nsrc = std::min<std::uint8_t>(in.nsrc, 3);
            break;
          default: break;
        }
        // DPP controls: the last four encoding fields (dpp_ctrl, row_mask, bank_mask, bound_ctrl)
        if (in.enc == Enc::Dpp) {
          if (s.fields.size() < 4) { ok = false; problem = "DPP controls"; }
          else {
            std::size_t f = s.fields.size() - 4;
            in.dpp_ctrl = static_cast<std::uint16_t>(s.fields[f]);
            in.row_mask = static_cast<std::uint8_t>(s.fields[f + 1]);
            in.bank_mask = static_cast<std::uint8_t>(s.fields[f + 2]);
            in.bound_ctrl = s.fields[f + 3] != 0;
          }
        }
      } else {
        in.op = Op::Unknown;
      }
    }
    if (!ok) {
      in.op = Op::Unknown;
      if (!problem.empty()) p.notes.back() = problem;
    }
    // registers the program names
    auto note = [&](const Operand& o) {
      const int top = o.reg + std::max<int>(o.regs, 1);
      if (o.kind == Kind::Vgpr) p.max_vgpr = std::max(p.max_vgpr, top);
      if (o.kind == Kind::Agpr) p.max_agpr = std::max(p.max_agpr, top);
      if (o.kind == Kind::Sgpr) p.max_sgpr = std::max(p.max_sgpr, top);
    };
    for (int i = 0; i < in.ndst; ++i) note(in.dst[i]);
    for (int i = 0; i < in.nsrc; ++i) note(in.src[i]);
    p.index_of[off / 4] = static_cast<std::int32_t>(p.insts.size());
    p.insts.push_back(in);
    off += size;
  }
  // branch targets: SOPP simm16 is a signed dword offset from the next instruction
  for (auto& in : p.insts) {
    const bool branch = in.op == Op::s_branch || in.op == Op::s_cbranch_scc0 || in.op == Op::s_cbranch_scc1 ||
                        in.op == Op::s_cbranch_vccz || in.op == Op::s_cbranch_vccnz || in.op == Op::s_cbranch_execz ||
                        in.op == Op::s_cbranch_execnz || in.op == Op::s_call_b64;
    if (!branch) continue;
    const std::int64_t rel = static_cast<std::int16_t>(in.simm & 0xffff);
    const std::uint64_t t = in.addr + in.size + static_cast<std::uint64_t>(rel * 4);
    in.target = p.find(t);
    if (in.target < 0) {
      in.op = Op::Unknown;
      p.notes[in.text] = "a branch to " + hex(t) + ", which is not an instruction";
    }
  }
  return p;
}

}  // namespace kernsim::isa::amdgcn
