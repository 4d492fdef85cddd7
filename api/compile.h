// kernsim::api compile and list — what `kernsim compile` and `kernsim list` show of a source
// compiled for a device: the ISA kernsim simulates, and each kernel with its parameters and
// resources. The device's ISA picks the target (api/target.h), as it does for run_launch().
#pragma once

#include <array>
#include <cstdint>
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

// `kernsim spec`: a starter launch spec (JSON text) for kernel `kernel` of `source` compiled for
// `dev`: the grid and block given, one argument per parameter of the kernel's signature — a
// pointer a buffer of its element type (from the C++ signature when the name is mangled, else
// f32) with a placeholder count, a scalar a typed value, a struct zero bytes of its size. The
// `notes` say which values are placeholders. The kernel name resolves as in a spec
// (DeviceModule::find_kernel: "scale<float>", "scale"). `source_in_spec` is the spec's `source`
// (the path relative to where the spec will be saved); empty: `source` as given.
std::string starter_spec(const std::filesystem::path& source, const device::DeviceSpec& dev, const std::string& kernel,
                         const std::array<std::int64_t, 3>& grid, const std::array<std::int64_t, 3>& block,
                         const CompileSettings& settings = {}, const std::string& source_in_spec = "");

}  // namespace kernsim::api
