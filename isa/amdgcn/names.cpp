// The AMDGCN reader's parts that need no LLVM: names of opcodes, formats and types, lookups in
// a decoded program or a code object. They link into every kernsim binary; reading a code object
// and disassembling it (code_object.cpp, decode.cpp) live in libkernsim_amdgcn_llvm, loaded on
// first use (loader.cpp).
#include <algorithm>
#include <cstdio>
#include <string>

#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"

namespace kernsim::isa::amdgcn {

namespace {

const char* const kOpNames[] = {
#define KS_OP(name, fmt, unit) #name,
#include "isa/amdgcn/ops.def"
#undef KS_OP
    "s_load", "s_store", "ds", "vmem", "v_mfma", "unknown", "invalid"};

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

const char* to_string(Op op) {
  auto i = static_cast<std::size_t>(op);
  return i < sizeof kOpNames / sizeof kOpNames[0] ? kOpNames[i] : "?";
}

const char* to_string(Fmt f) {
  static const char* n[] = {"SOP1", "SOP2",  "SOPK", "SOPC", "SOPP", "SMEM",   "VOP1",    "VOP2",  "VOPC",
                            "VOP3", "VOP3P", "MFMA", "DS",   "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "?"};
  return n[static_cast<int>(f)];
}

const char* to_string(DType t) {
  static const char* n[] = {"none", "f16", "bf16", "f32", "f64", "i8",  "u8",   "i16",   "u16",
                            "i32",  "u32", "i64",  "u64", "fp8", "bf8", "xf32", "f8f6f4"};
  return n[static_cast<int>(t)];
}

int dtype_bits(DType t) {
  switch (t) {
    case DType::F16:
    case DType::BF16:
    case DType::I16:
    case DType::U16:
      return 16;
    case DType::F32:
    case DType::I32:
    case DType::U32:
    case DType::Xf32:
      return 32;
    case DType::F64:
    case DType::I64:
    case DType::U64:
      return 64;
    case DType::I8:
    case DType::U8:
    case DType::Fp8:
    case DType::Bf8:
    case DType::F8F6F4:
      return 8;
    case DType::None:
      break;
  }
  return 0;
}

std::int32_t Program::find(std::uint64_t addr) const {
  if (addr < text_addr || (addr - text_addr) % 4) return -1;
  std::uint64_t i = (addr - text_addr) / 4;
  return i < index_of.size() ? index_of[i] : -1;
}

std::string Program::describe(const Inst& in) const {
  std::string where = code ? code->describe_address(in.addr) : hex(in.addr);
  return "`" + text[in.text] + "` at " + hex(in.addr) + (where != hex(in.addr) ? " (" + where + ")" : std::string());
}

const Kernel* CodeObject::find(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

const LineRange* CodeObject::line_at(std::uint64_t addr) const {
  auto it = std::upper_bound(lines.begin(), lines.end(), addr,
                             [](std::uint64_t a, const LineRange& r) { return a < r.begin; });
  if (it == lines.begin()) return nullptr;
  --it;
  return addr < it->end && it->line ? &*it : nullptr;
}

std::string CodeObject::describe_address(std::uint64_t addr) const {
  const Symbol* best = nullptr;
  for (const auto& s : symbols)
    if (s.is_function && s.addr <= addr && (!best || s.addr > best->addr)) best = &s;
  if (!best || (best->size && addr >= best->addr + best->size + 256)) return hex(addr);
  return best->name + (addr == best->addr ? std::string() : "+" + hex(addr - best->addr));
}

int isa_version_number(const std::string& p) {
  // gfxMmS -> M*1000 + m*100 + s, where the stepping is one hex digit (gfx90a -> 9010)
  if (p.rfind("gfx", 0) != 0 || p.size() < 6) return 0;
  std::string d = p.substr(3);
  auto hexdig = [](char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; };
  int step = hexdig(d.back());
  int minor = hexdig(d[d.size() - 2]);
  int major = std::stoi(d.substr(0, d.size() - 2));
  return major * 1000 + minor * 100 + step;
}

}  // namespace kernsim::isa::amdgcn
