// libFuzzer target: PTX text -> parse_module -> decode_kernel for every .entry (the decoder runs
// for each kernel, so garbage in any kernel of the module is reached).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kernsim::fuzz::expect_named_error_or_success([&] {
    namespace ptx = kernsim::isa::ptx;
    const ptx::ast::Module m = ptx::parse_module(text, "fuzz.ptx");
    for (const auto& f : m.functions) {
      if (!f.is_entry) continue;
      kernsim::fuzz::expect_named_error_or_success([&] {
        const ptx::Program p = ptx::decode_kernel(m, f.name, text, "fuzz.ptx");
        (void)ptx::estimate_registers(p);
      });
    }
  });
  return 0;
}
