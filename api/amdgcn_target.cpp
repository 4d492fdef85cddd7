// The AMDGCN target: AMD parts (gfx942, gfx950). Reads the code object and decodes its text,
// lays out the kernarg segment from the AMDHSA metadata, runs the kernel on the AMD executor
// under the AMD CU model (sim::time_amd_kernel, the library's only call of it: it executes the
// workgroups it times, and the rest functionally when outputs are wanted), and lists and
// disassembles code objects.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "api/target.h"
#include "api/views.h"
#include "base/error.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"
#include "sim/functional/amd_exec.h"
#include "sim/functional/global_memory.h"
#include "sim/timing/timing.h"

namespace kernsim::api {
namespace {

namespace amdgcn = isa::amdgcn;

// Wave instructions timed in detail before a launch is extrapolated (RunOptions::detail_budget
// and KERNSIM_DETAIL_BUDGET override): a wave64 instruction costs the CPU about as much as two
// NVIDIA warp instructions, so the AMD budget is smaller; docs/amd.md gives the speed it buys
// and the error it adds.
constexpr std::uint64_t kAmdDetailBudget = 1'000'000;

std::string arg_desc(const amdgcn::KernelArg& a) {
  if (a.value_kind == "global_buffer") return "pointer";
  if (a.value_kind == "by_value") return std::to_string(a.size) + "-byte value";
  return a.value_kind;
}

std::shared_ptr<const amdgcn::CodeObject> read_code(const frontends::DeviceModule& m, const std::string& origin) {
  return std::make_shared<const amdgcn::CodeObject>(amdgcn::read_code_object(m.binary, origin));
}

class AmdTargetKernel final : public TargetKernel {
 public:
  AmdTargetKernel(const frontends::DeviceModule& mod, const frontends::KernelInfo& ki, const std::string& origin)
      : name_(ki.demangled), resources_(ki.resources), code_(read_code(mod, origin)), prog_(amdgcn::decode(code_, origin)) {
    k_ = code_->find(ki.name);
    if (!k_) throw Error(ErrorKind::Internal, "kernsim bug: kernel `" + ki.name + "` listed but absent from the code object");
    if (k_->wavefront_size != 64)
      throw Error(ErrorKind::Unsupported, "kernel `" + name_ + "` was compiled for wave" + std::to_string(k_->wavefront_size) +
                                              "; kernsim runs gfx942/gfx950 kernels as wave64");
    for (int d = 0; d < 3; ++d) traits_.required_block[d] = k_->reqd_workgroup_size[d];
    traits_.required_block_attr = "reqd_work_group_size";
    traits_.max_threads = k_->max_flat_workgroup_size;
    traits_.max_threads_words = "maximum flat workgroup size " + std::to_string(k_->max_flat_workgroup_size) + " (__launch_bounds__)";
    traits_.static_shared = k_->group_segment_fixed_size;
    traits_.dynamic_shared_offset = k_->group_segment_fixed_size;
    traits_.shared_words = "LDS";
    traits_.local_bytes = k_->private_segment_fixed_size;
    traits_.registers = std::max(k_->vgpr_count, resources_.registers);
    traits_.registers_source = resources_.source.empty() ? "code object metadata" : resources_.source;
  }

  const KernelTraits& traits() const override { return traits_; }

  cost::Listing listing() const override { return listing_of(prog_); }
  void map_code(sim::GlobalMemory& mem, const LaunchSpec& spec) override {
    code_base_ = sim::map_code_object(*code_, mem, spec.source.filename().string());
  }

  // The spec's arguments at the offsets the code object metadata gives (hidden arguments are the
  // executor's).
  std::vector<std::uint8_t> build_params(const LaunchSpec& spec, const std::vector<std::uint64_t>& buffer_addr) const override {
    const amdgcn::Kernel& k = *k_;
    if (!k.has_metadata)
      throw Error(ErrorKind::Unsupported, "kernel `" + name_ + "`: the code object has no AMDHSA metadata for it, so kernsim cannot "
                                          "lay out its arguments");
    std::vector<const amdgcn::KernelArg*> params;
    std::vector<std::string> descs;
    for (const auto& a : k.args)
      if (!a.hidden()) {
        params.push_back(&a);
        descs.push_back(arg_desc(a));
      }
    check_arg_count(spec, name_, descs);
    const std::string origin = spec_origin(spec);
    std::vector<std::uint8_t> block(std::max<std::size_t>(k.kernarg_segment_size, 8), 0);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const amdgcn::KernelArg& p = *params[i];
      const Arg& a = spec.args[i];
      const std::string field = "args[" + std::to_string(i) + "]";
      auto fail = [&](const std::string& msg) {
        throw Error(ErrorKind::LaunchSpec, origin + ": `" + field + "`: " + msg + " (kernel `" + name_ + "` parameter " +
                                               std::to_string(i) + " is a " + arg_desc(p) + ")");
      };
      if (a.is_tensor_map) fail("tensor maps are an NVIDIA sm_90+ feature (TMA); AMD kernels take buffers and scalars");
      if (p.offset + p.size > block.size()) block.resize(p.offset + p.size, 0);
      if (a.is_aggregate) {
        // the metadata records a by-value argument's size and offset, not its alignment
        const AggregateArg& g = a.aggregate;
        if (p.value_kind != "by_value") fail(g.desc + " were given for a pointer");
        for (const AggregateHole& h : g.holes)
          if (h.is_tensor_map) fail("`" + h.field + "`: tensor maps are an NVIDIA sm_90+ feature (TMA); AMD kernels take buffers and scalars");
        if (g.bytes.size() != p.size) fail(g.desc + " take " + std::to_string(g.bytes.size()) + " bytes, the parameter " + std::to_string(p.size));
        std::memcpy(block.data() + p.offset, g.bytes.data(), g.bytes.size());
        continue;
      }
      if (p.value_kind == "global_buffer") {
        if (p.size != 8) fail("a buffer is passed as a 64-bit pointer, but the parameter has " + std::to_string(p.size) + " bytes");
        if (!a.passes_address()) {
          // a raw device address (a null pointer, usually)
          if (a.scalar.type != ScalarType::U64 && a.scalar.type != ScalarType::I64)
            fail("a pointer takes a buffer or a 64-bit integer address, not a scalar of type " + std::string(to_string(a.scalar.type)));
          std::memcpy(block.data() + p.offset, &a.scalar.bits, 8);
          continue;
        }
        std::memcpy(block.data() + p.offset, &buffer_addr[i], 8);
      } else if (p.value_kind == "by_value") {
        if (a.passes_address())
          fail("a buffer was given for a value parameter (not a pointer); give {\"type\": ..., \"value\": ...}" +
               std::string(p.size == 4 || p.size == 8 ? "" : ", {\"struct\": [...]} or {\"bytes\": \"HEX\"}"));
        if (size_of(a.scalar.type) != p.size)
          fail("scalar of type " + std::string(to_string(a.scalar.type)) + " has " + std::to_string(size_of(a.scalar.type)) + " bytes");
        std::memcpy(block.data() + p.offset, &a.scalar.bits, p.size);
      } else {
        throw Error(ErrorKind::Unsupported, origin + ": `" + field + "`: kernel `" + name_ + "` parameter " + std::to_string(i) +
                                                " is of kind `" + p.value_kind + "`, which launch specs cannot pass");
      }
    }
    return block;
  }

  device::DeviceSpec timing_device(const device::DeviceSpec& dev) const override { return dev; }

  TimedLaunch time(const device::DeviceSpec& dev, sim::GlobalMemory& mem, std::vector<std::uint8_t> params, const LaunchShape& shape,
                   const sim::TimingOptions& opts, sim::Listener& listener) override {
    const sim::LaunchDims dims = shape.dims();
    sim::AmdExecOptions eo;
    eo.kernel_name = shape.kernel_name;
    eo.wall_time_limit_s = shape.wall_time_limit_s;
    if (shape.max_instructions) eo.max_wave_instructions = shape.max_instructions;
    sim::AmdKernel kernel(prog_, *k_, mem, code_base_, dims, std::move(params), eo);

    sim::AmdResources res;
    res.threads_per_block = static_cast<int>(shape.threads_per_block);
    res.vgprs = traits_.registers;
    res.agprs = std::max(k_->agpr_count, resources_.agprs);
    res.accum_offset = k_->kd.accum_offset;
    res.sgprs = std::max(k_->sgpr_count, resources_.sgprs);
    res.lds_per_block = shape.shared_per_block;
    TimedLaunch t;
    t.timing = sim::time_amd_kernel(dev, kernel, res, opts, listener);
    t.thread_instructions = kernel.thread_instructions();
    t.launch_extras = {{"agprs_per_thread", res.agprs}, {"sgprs_per_wave", res.sgprs}};
    return t;
  }

 private:
  std::string name_;
  frontends::Resources resources_;
  std::shared_ptr<const amdgcn::CodeObject> code_;
  amdgcn::Program prog_;
  const amdgcn::Kernel* k_ = nullptr;  // in *code_
  KernelTraits traits_;
  std::uint64_t code_base_ = 0;
};

class AmdgcnTarget final : public Target {
 public:
  frontends::IsaKind isa() const override { return frontends::IsaKind::Amdgcn; }

  std::uint64_t default_detail_budget() const override { return kAmdDetailBudget; }

  std::unique_ptr<TargetKernel> load(const frontends::DeviceModule& m, const frontends::KernelInfo& k,
                                     const std::string& origin) const override {
    return std::make_unique<AmdTargetKernel>(m, k, origin);
  }

  // Parameters from the code object's AMDHSA metadata (hidden arguments are the runtime's).
  std::vector<KernelDesc> describe(const frontends::DeviceModule& m) const override {
    const amdgcn::CodeObject co = amdgcn::read_code_object(m.binary, m.origin.string());
    std::vector<KernelDesc> out;
    for (const auto& k : m.kernels) {
      KernelDesc kd{k.name, k.demangled, k.resources, {}, {}, {}, k.resources.static_shared};
      if (const amdgcn::Kernel* ck = co.find(k.name)) {
        for (const auto& a : ck->args) {
          if (a.hidden()) continue;
          const bool ptr = a.value_kind == "global_buffer";
          // by-value arguments carry no type in the metadata: untyped bits of their size
          kd.params.push_back({a.name, ptr ? "u64" : "b" + std::to_string(8 * a.size), static_cast<int>(a.size), ptr,
                               !ptr && a.size != 4 && a.size != 8, 0});
        }
        for (int i = 0; i < 3; ++i) kd.reqntid[i] = ck->reqd_workgroup_size[i];
      }
      out.push_back(std::move(kd));
    }
    return out;
  }

  // Each kernel with its parameters (from the code object metadata) and resources (VGPRs, AGPRs,
  // SGPRs, LDS, scratch).
  std::string listing(const frontends::DeviceModule& m) const override {
    const amdgcn::CodeObject co = amdgcn::read_code_object(m.binary, m.origin.string());
    std::string out;
    for (const auto& ki : m.kernels) {
      const amdgcn::Kernel* k = co.find(ki.name);
      if (!k) continue;
      std::string params;
      for (const auto& a : k->args)
        if (!a.hidden()) params += (params.empty() ? "" : ", ") + arg_desc(a) + (a.name.empty() ? std::string() : " " + a.name);
      const auto& r = ki.resources;
      out += ki.demangled + "\n  mangled   " + ki.name + "\n  params    (" + params + ")\n  resources " + std::to_string(r.registers) +
             " VGPRs, " + std::to_string(r.agprs) + " AGPRs, " + std::to_string(r.sgprs) + " SGPRs (" + r.source + "), " +
             std::to_string(r.static_shared) + " bytes LDS, " + std::to_string(r.local_bytes) + " bytes scratch per work-item" +
             (k->uses_dynamic_stack ? " + dynamic stack" : "") + ", wave" + std::to_string(k->wavefront_size) + ", at most " +
             std::to_string(k->max_flat_workgroup_size) + " work-items per workgroup\n";
    }
    return out;
  }

  std::string object(const frontends::DeviceModule& m) const override { return std::string(m.binary.begin(), m.binary.end()); }

  // Each function under its symbol, each instruction with its address.
  std::string disassembly(const frontends::DeviceModule& m) const override {
    auto co = read_code(m, m.origin.string());
    const amdgcn::Program p = amdgcn::decode(co, m.origin.string());
    std::string out = "; " + m.origin.string() + ": " + co->target_id + " (" + m.producer + ")\n";
    for (const auto& in : p.insts) {
      for (const auto& s : co->symbols)
        if (s.is_function && s.addr == in.addr) out += "\n" + s.name + ":\n";
      char addr[32];
      std::snprintf(addr, sizeof addr, "%llx", static_cast<unsigned long long>(in.addr));
      std::string line = "  " + p.text[in.text];
      if (line.size() < 60) line.resize(60, ' ');
      out += line + " ; " + addr + "\n";
    }
    return out;
  }
};

}  // namespace

const Target& amdgcn_target() {
  static const AmdgcnTarget t;
  return t;
}

}  // namespace kernsim::api
