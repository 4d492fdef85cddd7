// The launch pipeline: spec + device -> compiled kernel -> simulation -> report.
#include "api/run.h"

#include "base/error.h"

#ifndef KERNSIM_VERSION
#define KERNSIM_VERSION "0.0.0"
#endif

namespace kernsim::api {

std::string version() { return KERNSIM_VERSION; }

RunResult run_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts) {
  validate_against_device(spec, dev);
  throw Error(ErrorKind::NotImplemented,
              "frontends: compiling `" + spec.source.string() + "` for " + dev.isa_target +
                  " is not implemented yet (the NVIDIA path is issue 3, the AMD path issue 4); "
                  "no time is reported");
}

}  // namespace kernsim::api
