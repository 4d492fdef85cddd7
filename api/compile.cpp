// `kernsim compile` and `kernsim list` through the device's target; see compile.h.
#include "api/compile.h"

#include "api/target.h"

namespace kernsim::api {

CompiledSource compile_source(const std::filesystem::path& source, const device::DeviceSpec& dev, CompileOutput what,
                              const CompileSettings& settings) {
  const Target& t = target_for(dev);
  const frontends::DeviceModule m = t.compile(source, dev.isa_target, settings);
  CompiledSource c;
  c.target = m.target;
  c.producer = m.producer;
  c.bytes = what == CompileOutput::Object ? t.object(m) : t.disassembly(m);
  return c;
}

std::string kernel_listing(const std::filesystem::path& source, const device::DeviceSpec& dev,
                           const CompileSettings& settings) {
  const Target& t = target_for(dev);
  const frontends::DeviceModule m = t.compile(source, dev.isa_target, settings);
  std::string text = t.listing(m);
  // a CUDA source ported to an AMD part: where it assumes 32-lane warps (docs/cuda_on_amd.md)
  if (!m.port.empty()) text += "port: CUDA compiled as HIP for a 64-lane wave (docs/cuda_on_amd.md)\n";
  for (const auto& w : m.warnings) text += "warning " + w.name + " " + w.file + ":" + std::to_string(w.line) + ": " + w.code + "\n";
  return text;
}

}  // namespace kernsim::api
