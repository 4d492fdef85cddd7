// kernsim::api::Target — the ISA-specific steps of a launch, one implementation per ISA kernsim
// simulates (api/ptx_target.cpp for NVIDIA parts, api/amdgcn_target.cpp for AMD parts), chosen
// from the device's ISA by target_for(). The launch skeleton (run_launch() in api/run.cpp) does
// everything that is the same on every part — spec checks, buffers, dumps, outputs, the report —
// and calls the target for the rest: compile, decode, the parameter block, the executor and the
// timing model. The two target files are the library's only callers of the sim/timing entry
// points (sim::time_ptx_kernel, sim::time_amd_kernel).
//
// Internal to api/: the CLI and the Python package reach targets through api/compile.h,
// api/run.h and api/embed.h.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "api/embed.h"
#include "api/launch_spec.h"
#include "device/device_spec.h"
#include "frontends/module.h"
#include "cost_model/fast_model.h"
#include "cost_model/listing.h"
#include "sim/timing/timing.h"

namespace kernsim::sim {
class GlobalMemory;
class Listener;
}  // namespace kernsim::sim

namespace kernsim::api {

// What a kernel declares about its launch and resources, in the words its ISA uses, so that the
// skeleton can check a spec against it and report it the same way on every part.
struct KernelTraits {
  std::array<std::int64_t, 3> required_block{0, 0, 0};  // 0: not declared
  std::string required_block_attr;       // ".reqntid", "reqd_work_group_size"
  std::int64_t max_threads = 0;          // per block; 0: the kernel declares no limit
  std::string max_threads_words;         // ".maxntid (256)", "maximum flat workgroup size 256 (__launch_bounds__)"
  std::int64_t static_shared = 0;        // bytes of shared memory / LDS the kernel declares
  std::int64_t dynamic_shared_offset = 0;  // where dynamic shared memory starts
  std::string shared_words;              // "shared memory", "LDS"
  std::array<std::int64_t, 3> required_cluster{0, 0, 0};  // .reqnctapercluster; 0: not declared
  bool explicit_cluster = false;         // .explicitcluster: must be launched with clusters
  std::int64_t max_cluster_rank = 0;     // .maxclusterrank; 0: none
  std::int64_t local_bytes = 0;          // local memory (NVIDIA) / private segment (AMD) per thread the launch allocates
  int registers = 0;                     // per thread (NVIDIA) / VGPRs (AMD), for the report
  std::string registers_source;          // "ptxas", "code object metadata", "estimate (...)"
};

// The launch as the executor sees it, fixed by the skeleton from the spec and the options.
struct LaunchShape {
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::uint32_t dynamic_shared = 0;
  std::array<std::uint32_t, 3> cluster{1, 1, 1};
  bool explicit_cluster = false;
  std::int64_t threads_per_block = 0;
  std::int64_t shared_per_block = 0;   // static + dynamic, as the occupancy sees it
  std::string kernel_name;             // demangled, for messages
  std::uint64_t max_instructions = 0;  // warp (wave) instructions; 0: the executor's default
  double wall_time_limit_s = 0;        // 0: none

  // The grid, block and dynamic shared bytes as both executors take them.
  sim::LaunchDims dims() const {
    sim::LaunchDims d;
    for (int i = 0; i < 3; ++i) {
      d.grid[i] = grid[static_cast<std::size_t>(i)];
      d.block[i] = block[static_cast<std::size_t>(i)];
    }
    d.dynamic_shared = dynamic_shared;
    d.cluster = cluster;
    d.explicit_cluster = explicit_cluster;
    return d;
  }
};

// What the timed launch gives back beyond the timing result.
struct TimedLaunch {
  sim::TimingResult timing;
  std::uint64_t thread_instructions = 0;
  std::vector<std::pair<std::string, std::int64_t>> launch_extras;  // more report["launch"] facts (AMD: AGPRs, SGPRs)
};

// One kernel of a compiled module, decoded and ready to launch once. The skeleton calls, in
// order: traits(), map_code() (before it allocates the buffers, so addresses are those of every
// earlier kernsim), build_params(), timing_device(), time().
class TargetKernel {
 public:
  virtual ~TargetKernel() = default;
  virtual const KernelTraits& traits() const = 0;
  // Maps what the kernel brings into device memory (PTX statics, the AMD code object).
  virtual void map_code(sim::GlobalMemory& mem, const LaunchSpec& spec) = 0;
  // Checks the spec's arguments against the kernel's parameters and lays out the parameter
  // block (PTX .param space, AMD kernarg segment); errors name the spec field.
  virtual std::vector<std::uint8_t> build_params(const LaunchSpec& spec, const std::vector<std::uint64_t>& buffer_addr) const = 0;
  // The device the kernel is timed (and reported) on: NVIDIA kernels with matrix instructions
  // run at the part's tensor clock.
  virtual device::DeviceSpec timing_device(const device::DeviceSpec& dev) const = 0;
  // The decoded program's instruction text by PC, for the per-PC view and the trace.
  virtual cost::Listing listing() const = 0;
  // Executes and times the launch on `dev` (timing_device()'s result), events to `listener`.
  virtual TimedLaunch time(const device::DeviceSpec& dev, sim::GlobalMemory& mem, std::vector<std::uint8_t> params,
                           const LaunchShape& shape, const sim::TimingOptions& opts, sim::Listener& listener) = 0;
  // The fast tier's functional sample of a few CTAs (cost_model/fast_profile.h) on `dev`
  // (timing_device()'s result). A target without one throws Error(NotImplemented).
  virtual cost::KernelProfile profile(const device::DeviceSpec& dev, sim::GlobalMemory& mem, std::vector<std::uint8_t> params,
                                      const LaunchShape& shape, const sim::Occupancy& occ);
};

// The per-ISA steps. Stateless: one instance per ISA, shared by every thread.
class Target {
 public:
  virtual ~Target() = default;
  virtual frontends::IsaKind isa() const = 0;
  // Warp (wave) instructions timed in detail when neither RunOptions::detail_budget nor
  // KERNSIM_DETAIL_BUDGET says otherwise.
  virtual std::uint64_t default_detail_budget() const = 0;
  // `source` compiled (through the compile cache) for `isa_target` (a device's: sm_90a, gfx942),
  // with the spec's (and the caller's) compile settings.
  frontends::DeviceModule compile(const std::filesystem::path& source, const std::string& isa_target,
                                  const CompileSettings& settings = {}) const;
  // Decodes kernel `k` of `module`; `origin` names the source in errors.
  virtual std::unique_ptr<TargetKernel> load(const frontends::DeviceModule& module, const frontends::KernelInfo& k,
                                             const std::string& origin) const = 0;
  // Each kernel with its parameters and resources (embed.h's describe_module()).
  virtual std::vector<KernelDesc> describe(const frontends::DeviceModule& module) const = 0;
  // `kernsim list`: each kernel with its parameters and resources, as text.
  virtual std::string listing(const frontends::DeviceModule& module) const = 0;
  // `kernsim compile -o`: the bytes kernsim simulates (PTX text, the AMDGPU code object).
  virtual std::string object(const frontends::DeviceModule& module) const = 0;
  // `kernsim compile` to stdout: the ISA as text (PTX, the code object's disassembly).
  virtual std::string disassembly(const frontends::DeviceModule& module) const = 0;
};

// The target of an ISA target name (a device's `isa_target`): gfx* is AMDGCN, every other PTX.
// The one place the choice is made.
const Target& target_for(const std::string& isa_target);
inline const Target& target_for(const device::DeviceSpec& dev) { return target_for(dev.isa_target); }

const Target& ptx_target();
const Target& amdgcn_target();

// "launch spec" or the spec file's path, for messages.
std::string spec_origin(const LaunchSpec& spec);

// The argument-count check both targets make first in build_params(): throws Error(LaunchSpec)
// naming the kernel's signature.
void check_arg_count(const LaunchSpec& spec, const std::string& kernel, const std::vector<std::string>& param_descs);

}  // namespace kernsim::api
