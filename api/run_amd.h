// kernsim::api::run_amd_launch — the launch pipeline for AMDGCN modules (gfx942, gfx950), called by
// run_launch() once the source has compiled to a code object. Runs every workgroup functionally,
// dumps buffers like the NVIDIA path, then throws Error(NotImplemented) naming the missing AMD
// timing model.
#pragma once

#include "api/run.h"
#include "frontends/module.h"

namespace kernsim::api {

RunResult run_amd_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts,
                         const frontends::DeviceModule& module);

// `kernsim list` for an AMDGCN module: each kernel with its parameters (from the code object
// metadata) and resources (VGPRs, AGPRs, SGPRs, LDS, scratch).
std::string amd_kernel_listing(const frontends::DeviceModule& module);

// `kernsim compile` without -o for an AMDGCN module: the disassembly of the code object's text,
// each function under its symbol, each instruction with its address.
std::string amd_disassembly(const frontends::DeviceModule& module);

}  // namespace kernsim::api
