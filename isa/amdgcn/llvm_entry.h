// The LLVM-backed half of the AMDGCN reader: reading a code object (LLVM's ELF and MessagePack
// readers) and disassembling it (the AMDGPU MC disassembler). It is built as its own shared
// module, libkernsim_amdgcn_llvm.so, which loader.cpp opens the first time kernsim reads an AMD
// code object: loading libLLVM costs ~10 ms of CPU per process, which an NVIDIA launch (or the
// fast tier's answer) does not need to pay. With KERNSIM_LAZY_LLVM=OFF (the fuzz build) the same
// sources link statically and the loader calls them directly.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"

namespace kernsim::isa::amdgcn {

CodeObject read_code_object_llvm(const std::vector<std::uint8_t>& elf, const std::string& origin);
Program decode_llvm(std::shared_ptr<const CodeObject> code, const std::string& origin);

// What the module hands the loader. `abi` guards against a module from another build.
struct LlvmEntry {
  int abi = 0;
  CodeObject (*read)(const std::vector<std::uint8_t>&, const std::string&) = nullptr;
  Program (*decode)(std::shared_ptr<const CodeObject>, const std::string&) = nullptr;
};
inline constexpr int kLlvmEntryAbi = 2;  // 2: CodeObject::lines

}  // namespace kernsim::isa::amdgcn

extern "C" const kernsim::isa::amdgcn::LlvmEntry* kernsim_amdgcn_llvm_entry();
