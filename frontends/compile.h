// kernsim::frontends::compile — the one entry point from a source file to a DeviceModule.
//
// By extension: .cu -> clang 22 (CUDA device compilation) -> PTX; .ll/.bc -> llc 22 (NVPTX) -> PTX;
// .ptx -> as is (nvcc, clang, Triton). AMD sources (.hip, .s, .hsaco, .co) belong to the AMD
// frontend. Results are cached on disk by a hash of the source, the flags, the target and the
// compiler, and revalidated against the headers the source included.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "frontends/module.h"

namespace kernsim::frontends {

struct CompileOptions {
  std::string target;                    // sm_90a, sm_100a, gfx942, gfx950
  std::vector<std::string> extra_flags;  // passed to clang (-D..., -I...)
  bool use_cache = true;
};

DeviceModule compile(const std::filesystem::path& source, const CompileOptions& options);

// The AMD frontend (frontends/hip.cpp), which compile() calls for .hip, .s, .hsaco and .co
// sources and for every source compiled for a gfx target: HIP, LLVM IR and AMDGCN assembly to
// an AMDGPU code object (DeviceModule::binary) for gfx942 or gfx950.
DeviceModule compile_amd(const std::filesystem::path& source, const CompileOptions& options);

// Resource usage of every kernel in a PTX text: from `ptxas -v` when ptxas is installed,
// otherwise estimated from the PTX (marked "estimate").
void fill_resources(DeviceModule& module);

}  // namespace kernsim::frontends
