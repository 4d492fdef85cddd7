// The entry point of libkernsim_amdgcn_llvm (see llvm_entry.h).
#include "isa/amdgcn/llvm_entry.h"

extern "C" __attribute__((visibility("default"))) const kernsim::isa::amdgcn::LlvmEntry* kernsim_amdgcn_llvm_entry() {
  static const kernsim::isa::amdgcn::LlvmEntry entry{kernsim::isa::amdgcn::kLlvmEntryAbi,
                                                     &kernsim::isa::amdgcn::read_code_object_llvm,
                                                     &kernsim::isa::amdgcn::decode_llvm};
  return &entry;
}
