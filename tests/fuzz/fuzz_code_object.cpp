// libFuzzer target: an AMDGPU code object (ELF) -> read_code_object -> decode (the whole .text
// disassembled and mapped to kernsim's opcode table), as `kernsim run` does for .hsaco/.co.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_util.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace amd = kernsim::isa::amdgcn;
  const std::vector<std::uint8_t> elf(data, data + size);
  kernsim::fuzz::expect_named_error_or_success([&] {
    auto co = std::make_shared<amd::CodeObject>(amd::read_code_object(elf, "fuzz.co"));
    for (const amd::Kernel& k : co->kernels) (void)co->describe_address(k.code_addr);
    const amd::Program p = amd::decode(co, "fuzz.co");
    (void)p;
  });
  return 0;
}
