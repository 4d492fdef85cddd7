// kernsim::api compile and list — what `kernsim compile` and `kernsim list` show of a source
// compiled for a device: the ISA kernsim simulates, and each kernel with its parameters and
// resources. The device's ISA picks the target (api/target.h), as it does for run_launch().
#pragma once

#include <filesystem>
#include <string>

#include "api/launch_spec.h"
#include "device/device_spec.h"

namespace kernsim::api {

enum class CompileOutput {
  Object,  // the bytes kernsim simulates: PTX text, or the AMDGPU code object
  Text,    // the ISA as text: PTX, or the code object's disassembly
};

struct CompiledSource {
  std::string target;    // sm_90a, gfx942 ...
  std::string producer;  // "clang 22 (...)", "llvm-mc 22 assembly" ...
  std::string bytes;     // as `CompileOutput` asked
};

CompiledSource compile_source(const std::filesystem::path& source, const device::DeviceSpec& dev, CompileOutput what,
                              const CompileSettings& settings = {});

// One block per kernel: name, mangled name, parameters, resources.
std::string kernel_listing(const std::filesystem::path& source, const device::DeviceSpec& dev,
                           const CompileSettings& settings = {});

}  // namespace kernsim::api
