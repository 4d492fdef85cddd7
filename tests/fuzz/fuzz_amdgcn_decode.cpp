// libFuzzer target: raw AMDGCN instruction bytes -> decode, without the ELF around them (the
// code-object target spends most inputs on the ELF reader; this one reaches the disassembler and
// kernsim's operand mapping directly). The first byte picks the processor (gfx942 or gfx950).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "fuzz_util.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace amd = kernsim::isa::amdgcn;
  if (size < 1) return 0;
  auto co = std::make_shared<amd::CodeObject>();
  co->target = (data[0] & 1) ? "gfx950" : "gfx942";
  co->target_id = "amdgcn-amd-amdhsa--" + co->target;
  co->code_object_version = 5;
  co->text_addr = 0x1000;
  co->text.assign(data + 1, data + size);
  amd::Kernel k;
  k.name = "fuzz";
  k.code_addr = co->text_addr;
  k.code_size = co->text.size();
  co->kernels.push_back(k);
  co->symbols.push_back({"fuzz", co->text_addr, co->text.size(), true});
  kernsim::fuzz::expect_named_error_or_success([&] { (void)amd::decode(co, "fuzz.text"); });
  return 0;
}
