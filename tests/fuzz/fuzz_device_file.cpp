// libFuzzer target: a device file (YAML) -> load_device_file, with `inherits:` of the built-in
// parts reachable (the seeds are the built-in files and what-if files that inherit them). The
// loader reads files only, so each input is written to one temporary file of this process.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "device/loader.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("kernsim_fuzz_device_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir / "fuzz.yaml";
  }();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  kernsim::fuzz::expect_named_error_or_success([&] { (void)kernsim::device::load_device_file(file); });
  return 0;
}
