// Names and small queries of the decoded PTX program.
#include "isa/ptx/program.h"

#include <sstream>

namespace kernsim::isa::ptx {

int ty_bits(Ty t) {
  switch (t) {
    case Ty::None: return 0;
    case Ty::Pred: return 1;
    case Ty::B8: case Ty::U8: case Ty::S8: case Ty::E4M3: case Ty::E5M2: return 8;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: case Ty::BF16: case Ty::E4M3x2: case Ty::E5M2x2: return 16;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: case Ty::TF32: return 32;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: case Ty::F32x2: return 64;
    case Ty::B128: return 128;
    case Ty::E2M3: case Ty::E3M2: return 6;
    case Ty::E2M1: return 4;
  }
  return 0;
}

bool ty_is_float(Ty t) {
  switch (t) {
    case Ty::F16: case Ty::F16x2: case Ty::BF16: case Ty::BF16x2: case Ty::F32: case Ty::F64: case Ty::TF32:
    case Ty::E4M3: case Ty::E5M2: case Ty::E4M3x2: case Ty::E5M2x2: case Ty::F32x2: case Ty::E2M3: case Ty::E3M2:
    case Ty::E2M1: return true;
    default: return false;
  }
}

bool ty_is_signed(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }

const char* to_string(Ty t) {
  static const char* n[] = {"none", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
                            "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2",
                            "f32x2", "e2m3", "e3m2", "e2m1"};
  return n[static_cast<int>(t)];
}

// to_string(Op) is in ops.cpp: the mnemonic column of ops.def.

const char* to_string(Space s) {
  switch (s) {
    case Space::Generic: return "generic";
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
    case Space::Param: return "param";
    case Space::Const: return "const";
    case Space::SharedCluster: return "shared::cluster";
  }
  return "?";
}

int Program::find_function(const std::string& name) const {
  for (std::size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Program::describe(const Inst& in) const {
  std::ostringstream ss;
  ss << "PTX line " << in.line;
  if (in.line < lines.size()) {
    std::string text = lines[in.line];
    auto b = text.find_first_not_of(" \t");
    if (b != std::string::npos) text = text.substr(b);
    ss << ": `" << text << "`";
  }
  return ss.str();
}

}  // namespace kernsim::isa::ptx
