// The choice of target from the device's ISA (the one place it is made), and the steps every
// target shares: compiling for the device and the argument-count check.
#include "api/target.h"

#include "base/error.h"
#include "frontends/compile.h"

namespace kernsim::api {

const Target& target_for(const std::string& isa_target) {
  return isa_target.rfind("gfx", 0) == 0 ? amdgcn_target() : ptx_target();
}

frontends::DeviceModule Target::compile(const std::filesystem::path& source, const std::string& isa_target,
                                        const CompileSettings& settings) const {
  frontends::CompileOptions co;
  co.target = isa_target;
  co.extra_flags = clang_flags(settings);
  frontends::DeviceModule m = frontends::compile(source, co);
  // the frontend compiles for the target it is given, or fails naming the mismatch
  KERNSIM_ASSERT(m.kind == isa(), "`" + source.string() + "` compiled for " + isa_target + " to the other ISA");
  return m;
}

cost::KernelProfile TargetKernel::profile(const device::DeviceSpec& dev, sim::GlobalMemory&, std::vector<std::uint8_t>, const LaunchShape&,
                                          const sim::Occupancy&) {
  throw Error(ErrorKind::NotImplemented, "the fast tier (--tier fast) does not sample kernels for " + dev.name + " (" + dev.isa_target +
                                             ") yet: use --tier detailed");
}

std::string spec_origin(const LaunchSpec& spec) {
  return spec.spec_file.empty() ? std::string("launch spec") : spec.spec_file.string();
}

void check_arg_count(const LaunchSpec& spec, const std::string& kernel, const std::vector<std::string>& param_descs) {
  if (spec.num_params() == param_descs.size()) return;
  std::string sig;
  for (const auto& p : param_descs) sig += (sig.empty() ? "" : ", ") + p;
  throw Error(ErrorKind::LaunchSpec, spec_origin(spec) + ": `args`: kernel `" + kernel + "` takes " + std::to_string(param_descs.size()) +
                                         " parameters (" + sig + "), the spec gives " + std::to_string(spec.num_params()));
}

}  // namespace kernsim::api
