// libFuzzer target: launch-spec JSON -> parse_launch_spec_text -> validate_against_device (h200
// and mi300x) -> the initial bytes of every buffer argument (small ones: a spec may ask for any
// count, and the sizes are checked before allocation elsewhere).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "api/launch_spec.h"
#include "device/loader.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernsim;
  static const device::DeviceSpec h200 = device::load_builtin_device("h200");
  static const device::DeviceSpec mi300x = device::load_builtin_device("mi300x");
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_named_error_or_success([&] {
    // base_dir: an empty directory, so `"init": "file:..."` finds nothing but is still checked
    const api::LaunchSpec spec =
        api::parse_launch_spec_text(text, std::filesystem::path("/nonexistent-fuzz-dir"), "fuzz.json");
    fuzz::expect_named_error_or_success([&] { api::validate_against_device(spec, h200); });
    fuzz::expect_named_error_or_success([&] { api::validate_against_device(spec, mi300x); });
    for (std::size_t i = 0; i < spec.args.size(); ++i)
      if (spec.args[i].has_buffer() && spec.args[i].buffer.bytes() <= (1u << 16))
        (void)api::make_initial_bytes(spec, i);
  });
  return 0;
}
