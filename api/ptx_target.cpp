// The PTX target: NVIDIA parts. Decodes a PTX kernel (with the unrolling ptxas applied to its
// loops), lays out its .param block, runs it on the PTX executor under the NVIDIA SM model
// (sim::time_ptx_kernel: the library's only call of it), and lists and prints PTX modules.
#include <algorithm>
#include <cstring>
#include <memory>

#include "api/target.h"
#include "api/views.h"
#include "cost_model/fast_profile.h"
#include "base/error.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/ops.h"
#include "isa/ptx/parser.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"
#include "sim/functional/tensor_map.h"
#include "sim/timing/timing.h"

namespace kernsim::api {
namespace {

namespace ptx = isa::ptx;

std::string param_desc(const ptx::ParamInfo& p) {
  return p.is_aggregate ? "a struct of " + std::to_string(p.bytes) + " bytes (.param .align " + std::to_string(p.align) + " .b8 [" +
                              std::to_string(p.bytes) + "])"
                        : "." + p.type;
}

// The parameter types of a demangled signature ("k(float*, unsigned long)" -> {"float*",
// "unsigned long"}); empty when the name carries no parameter list (extern "C").
std::vector<std::string> signature_params(const std::string& d) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == '<') ++depth;
    else if (d[i] == '>') --depth;
    else if (d[i] == '(' && depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos || d.back() != ')') return out;
  std::string cur;
  depth = 0;
  for (std::size_t i = open + 1; i + 1 < d.size(); ++i) {
    const char c = d[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Whether each parameter of `f` may take a device address. A 64-bit integer parameter is a pointer
// when the PTX marks it .ptr; in a module whose compiler marks pointers (clang, llc: some parameter
// has .ptr, or the producer says so) one without .ptr is an integer; otherwise the demangled
// signature decides (`T*`), and an extern "C" kernel from nvcc, which says nothing, may take either.
std::vector<bool> address_params(const ptx::Function& f, const std::string& producer, const std::string& demangled) {
  bool marks = producer.rfind("clang", 0) == 0 || producer.rfind("llc", 0) == 0;
  for (const auto& p : f.params) marks = marks || p.declared_ptr;
  const std::vector<std::string> sig = signature_params(demangled);
  std::vector<bool> out;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const auto& p = f.params[i];
    bool may = p.is_pointer;
    if (may && !p.declared_ptr) {
      if (marks) may = false;
      else if (sig.size() == f.params.size()) may = sig[i].find('*') != std::string::npos;
    }
    out.push_back(may);
  }
  return out;
}

class PtxTargetKernel final : public TargetKernel {
 public:
  PtxTargetKernel(const frontends::DeviceModule& mod, const frontends::KernelInfo& ki, const std::string& origin)
      : name_(ki.demangled) {
    const auto ast = ptx::parse_module(mod.text, origin);
    prog_ = ptx::decode_kernel(ast, ki.name, mod.text, origin, {ki.resources.sass_loop_loads, ki.resources.sass_loop_load_bytes, ki.resources.wgmma_serialized});
    sources_ = ptx_line_sources(ast);
    const ptx::Function& f = prog_.functions[0];
    address_ = address_params(f, mod.producer, ki.demangled);
    for (int d = 0; d < 3; ++d) traits_.required_block[d] = f.reqntid[d];
    traits_.required_block_attr = ".reqntid";
    if (f.maxntid[0]) {
      traits_.max_threads = std::int64_t{f.maxntid[0]} * std::max(1, f.maxntid[1]) * std::max(1, f.maxntid[2]);
      traits_.max_threads_words = ".maxntid (" + std::to_string(f.maxntid[0]) + ")";
    }
    for (int d = 0; d < 3; ++d) traits_.required_cluster[d] = f.reqnctapercluster[d];
    traits_.explicit_cluster = f.explicitcluster;
    traits_.max_cluster_rank = f.maxclusterrank;
    traits_.static_shared = static_cast<std::int64_t>(prog_.static_shared_bytes);
    traits_.dynamic_shared_offset = static_cast<std::int64_t>(prog_.dynamic_shared_offset);
    traits_.shared_words = "shared memory";
    traits_.local_bytes = static_cast<std::int64_t>(f.local_bytes);
    traits_.registers = ki.resources.registers;
    traits_.registers_source = ki.resources.source;
    if (traits_.registers <= 0) {
      traits_.registers = ptx::estimate_registers(prog_);
      traits_.registers_source = "estimate (ptxas not available)";
    }
  }

  const KernelTraits& traits() const override { return traits_; }

  cost::Listing listing() const override { return listing_of(prog_, &sources_); }
  void map_code(sim::GlobalMemory& mem, const LaunchSpec&) override { sim::map_program_statics(prog_, mem); }

  std::vector<std::uint8_t> build_params(const LaunchSpec& spec, const std::vector<std::uint64_t>& buffer_addr) const override {
    const ptx::Function& k = prog_.functions[0];
    std::vector<std::string> descs;
    for (const auto& p : k.params) descs.push_back(param_desc(p));
    check_arg_count(spec, name_, descs);
    std::size_t total = 0;
    for (const auto& p : k.params) total = std::max<std::size_t>(total, static_cast<std::size_t>(p.offset + p.bytes));
    std::vector<std::uint8_t> block(total, 0);
    for (std::size_t i = 0; i < k.params.size(); ++i) {
      const auto& p = k.params[i];
      const Arg& a = spec.args[i];
      const std::string field = "args[" + std::to_string(i) + "]";
      auto fail = [&](const std::string& msg) {
        throw Error(ErrorKind::LaunchSpec, spec_origin(spec) + ": `" + field + "`: " + msg + " (kernel `" + name_ + "` parameter " +
                                               std::to_string(i) + " is " + param_desc(p) + ")");
      };
      if (a.is_tensor_map) {
        if (!p.is_aggregate || p.bytes != static_cast<int>(sim::TensorMap::kBytes))
          fail("a tensor map is passed as a 128-byte .param .b8 array (__grid_constant__ const CUtensorMap)");
        const auto bytes = encode_tensor_map(spec, a.tensor_map, field + ".tensor_map", buffer_addr[a.tensor_map.buffer]);
        std::memcpy(block.data() + p.offset, bytes.data(), bytes.size());
        continue;
      }
      if (a.is_aggregate) {
        const AggregateArg& g = a.aggregate;
        // any parameter takes its bytes (a __half scalar as {"struct": [{"type": "f16", ...}]});
        // a .b8 array's declared alignment must be the struct's
        if (g.bytes.size() != static_cast<std::size_t>(p.bytes))
          fail(g.desc + " take " + std::to_string(g.bytes.size()) + " bytes, the parameter " + std::to_string(p.bytes));
        if (p.is_aggregate && g.align_given && g.align != static_cast<std::size_t>(p.align))
          fail(g.desc + " align to " + std::to_string(g.align) + " bytes, the parameter to " + std::to_string(p.align) +
               " (a struct's alignment is its largest member's)");
        std::memcpy(block.data() + p.offset, g.bytes.data(), g.bytes.size());
        continue;
      }
      if (p.is_aggregate)
        fail("a struct passed by value takes {\"struct\": [{\"type\": ..., \"value\": ...}, ...]} or {\"bytes\": \"HEX\"} (spec_version 2, "
             "docs/launch_spec.md)");
      if (a.passes_address()) {
        if (p.bytes != 8) fail("a buffer is passed as a 64-bit pointer, but the parameter has " + std::to_string(p.bytes) + " bytes");
        if (p.type == "f64") fail("a buffer cannot be passed to a floating-point parameter");
        if (!address_[i])
          fail("a buffer was given for a scalar parameter (an integer, not a pointer: " + std::string(p.declared_ptr ? "" : "no .ptr in the PTX") +
               "); give {\"type\": \"" + (p.type == "s64" ? "i64" : "u64") + "\", \"value\": ...}");
        std::memcpy(block.data() + p.offset, &buffer_addr[i], 8);
        continue;
      }
      const ScalarArg& s = a.scalar;
      if (static_cast<int>(size_of(s.type)) != p.bytes)
        fail("scalar of type " + std::string(to_string(s.type)) + " has " + std::to_string(size_of(s.type)) + " bytes");
      const bool pf = p.type == "f32" || p.type == "f64";
      const bool sf = s.type == ScalarType::F32 || s.type == ScalarType::F64;
      const bool untyped = p.type.size() && p.type[0] == 'b';
      if (!untyped && pf != sf) fail(std::string("type ") + to_string(s.type) + " does not match");
      std::memcpy(block.data() + p.offset, &s.bits, static_cast<std::size_t>(p.bytes));
    }
    return block;
  }

  device::DeviceSpec timing_device(const device::DeviceSpec& dev) const override {
    // a kernel with matrix instructions (tcgen05.mma included) runs at the part's tensor clock; one
    // that issues wgmma at the clock the SM drops to under the wgmma engine's load
    const bool tensor = std::any_of(prog_.insts.begin(), prog_.insts.end(),
                                    [](const ptx::Inst& in) { return isa::is_tensor(in.unit) || in.op == ptx::Op::Tcgen05Mma; });
    const bool wgmma = std::any_of(prog_.insts.begin(), prog_.insts.end(), [](const ptx::Inst& in) { return in.op == ptx::Op::WgmmaMma; });
    return tensor ? device::at_tensor_clock(dev, wgmma) : dev;
  }

  TimedLaunch time(const device::DeviceSpec& dev, sim::GlobalMemory& mem, std::vector<std::uint8_t> params, const LaunchShape& shape,
                   const sim::TimingOptions& opts, sim::Listener& listener) override {
    const sim::LaunchDims dims = shape.dims();
    sim::ExecOptions eo;
    eo.kernel_name = shape.kernel_name;
    eo.num_sms = static_cast<std::uint32_t>(dev.sm.count);
    eo.max_warps_per_sm = static_cast<std::uint32_t>(dev.sm.max_warps);
    eo.tmem_columns = static_cast<std::uint32_t>(dev.tcgen05.tmem_columns);
    if (shape.max_instructions) eo.max_warp_instructions = shape.max_instructions;
    eo.wall_time_limit_s = shape.wall_time_limit_s;
    sim::PtxKernel kernel(prog_, mem, dims, std::move(params), eo);

    sim::KernelResources kr;
    kr.threads_per_block = static_cast<int>(shape.threads_per_block);
    kr.registers_per_thread = traits_.registers;
    kr.shared_per_block = shape.shared_per_block;
    kr.tmem_columns_per_block = ptx::tmem_columns_requested(prog_, dev.tcgen05.tmem_columns);
    TimedLaunch t;
    t.timing = sim::time_ptx_kernel(dev, kernel, kr, opts, listener);
    t.thread_instructions = kernel.thread_instructions();
    return t;
  }

  cost::KernelProfile profile(const device::DeviceSpec& dev, sim::GlobalMemory& mem, std::vector<std::uint8_t> params, const LaunchShape& shape,
                              const sim::Occupancy& occ) override {
    sim::ExecOptions eo;
    eo.kernel_name = shape.kernel_name;
    eo.num_sms = static_cast<std::uint32_t>(dev.sm.count);
    eo.max_warps_per_sm = static_cast<std::uint32_t>(dev.sm.max_warps);
    eo.tmem_columns = static_cast<std::uint32_t>(dev.tcgen05.tmem_columns);
    if (shape.max_instructions) eo.max_warp_instructions = shape.max_instructions;
    eo.wall_time_limit_s = shape.wall_time_limit_s;
    sim::PtxKernel kernel(prog_, mem, shape.dims(), std::move(params), eo);
    return cost::profile_ptx(kernel, dev, occ);
  }

 private:
  std::string name_;
  ptx::Program prog_;
  PtxLineSources sources_;  // PTX line -> source file and line (`.loc`)
  KernelTraits traits_;
  std::vector<bool> address_;  // per parameter: may take a device address (address_params)
};

class PtxTarget final : public Target {
 public:
  frontends::IsaKind isa() const override { return frontends::IsaKind::Ptx; }

  // sim's own default (TimingOptions::detail_budget: 1.5 M warp instructions)
  std::uint64_t default_detail_budget() const override { return sim::TimingOptions{}.detail_budget; }

  std::unique_ptr<TargetKernel> load(const frontends::DeviceModule& m, const frontends::KernelInfo& k,
                                     const std::string& origin) const override {
    return std::make_unique<PtxTargetKernel>(m, k, origin);
  }

  std::vector<KernelDesc> describe(const frontends::DeviceModule& m) const override {
    const std::string origin = m.origin.string();
    const auto ast = ptx::parse_module(m.text, origin);
    std::vector<KernelDesc> out;
    for (const auto& k : m.kernels) {
      const ptx::Program prog = ptx::decode_kernel(ast, k.name, m.text, origin);
      const ptx::Function& f = prog.functions[0];
      KernelDesc kd;
      kd.name = k.name;
      kd.demangled = k.demangled;
      kd.resources = k.resources;
      if (kd.resources.registers <= 0) {
        kd.resources.registers = ptx::estimate_registers(prog);
        kd.resources.source = "estimate (ptxas not available)";
      }
      const std::vector<bool> address = address_params(f, m.producer, k.demangled);
      for (std::size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        kd.params.push_back({p.name, p.type, p.bytes, address[i], p.is_aggregate, p.align});
      }
      kd.reqntid = f.reqntid;
      kd.maxntid = f.maxntid;
      kd.static_shared_bytes = static_cast<std::int64_t>(prog.static_shared_bytes);
      out.push_back(std::move(kd));
    }
    return out;
  }

  std::string listing(const frontends::DeviceModule& m) const override {
    std::string out;
    const std::vector<KernelDesc> descs = describe(m);
    for (std::size_t i = 0; i < descs.size(); ++i) {
      const KernelDesc& k = descs[i];
      std::string params;
      for (const auto& p : k.params)
        params += (params.empty() ? "" : ", ") + (p.is_aggregate ? "b8[" + std::to_string(p.bytes) + "]" : "." + p.type + (p.is_pointer ? "*" : ""));
      const bool estimated = m.kernels[i].resources.registers <= 0;  // describe() filled in the estimate
      out += k.demangled + "\n  mangled   " + k.name + "\n  params    (" + params + ")\n  resources " + std::to_string(k.resources.registers) +
             " registers (" + (estimated ? std::string("estimate") : k.resources.source) + "), " + std::to_string(k.static_shared_bytes) +
             " bytes static shared, " + std::to_string(k.resources.local_bytes) + " bytes stack\n";
    }
    return out;
  }

  std::string object(const frontends::DeviceModule& m) const override { return m.text; }
  std::string disassembly(const frontends::DeviceModule& m) const override { return m.text; }
};

}  // namespace

const Target& ptx_target() {
  static const PtxTarget t;
  return t;
}

}  // namespace kernsim::api
