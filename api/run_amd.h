// kernsim::api::run_amd_launch — the launch pipeline for AMDGCN modules (gfx942, gfx950), called by
// run_launch() once the source has compiled to a code object. Times the launch on the AMD CU model
// (sim/timing/amd_gpu.cpp) and returns the same RunResult and report as the NVIDIA path; buffers
// are dumped and returned as there.
#pragma once

#include "api/run.h"
#include "cost_model/report.h"
#include "frontends/module.h"

namespace kernsim::api {

RunResult run_amd_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts,
                         const frontends::DeviceModule& module);

// The facts of a launch the report shows that come from its spec (shape, flops, bytes); the
// caller adds the kernel's resources and instruction counts. Shared by both vendors' pipelines.
cost::LaunchFacts launch_facts(const LaunchSpec& spec, const std::string& kernel, const std::string& arch);

// `kernsim list` for an AMDGCN module: each kernel with its parameters (from the code object
// metadata) and resources (VGPRs, AGPRs, SGPRs, LDS, scratch).
std::string amd_kernel_listing(const frontends::DeviceModule& module);

// `kernsim compile` without -o for an AMDGCN module: the disassembly of the code object's text,
// each function under its symbol, each instruction with its address.
std::string amd_disassembly(const frontends::DeviceModule& module);

}  // namespace kernsim::api
