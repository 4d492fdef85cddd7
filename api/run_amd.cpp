// The AMD launch pipeline: code object -> decoded program -> kernarg segment and buffers ->
// the AMD CU timing model (which executes the workgroups it times, and the rest functionally when
// outputs are wanted) -> dumps and the report. run_launch() calls run_amd_launch() right after
// compiling when the module is AMDGCN.
#include "api/run_amd.h"
#include "api/views.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include <cstdlib>

#include "base/error.h"
#include "base/files.h"
#include "cost_model/report.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"
#include "sim/functional/amd_exec.h"
#include "sim/functional/global_memory.h"
#include "sim/timing/timing.h"

namespace kernsim::api {
namespace fs = std::filesystem;
namespace amdgcn = isa::amdgcn;

namespace {

// Wave instructions timed in detail before a launch is extrapolated (KERNSIM_DETAIL_BUDGET
// overrides): a wave64 instruction costs the CPU about as much as two NVIDIA warp instructions,
// so the AMD budget is smaller; docs/amd.md gives the speed it buys and the error it adds.
constexpr std::uint64_t kAmdDetailBudget = 1'000'000;

std::string arg_desc(const amdgcn::KernelArg& a) {
  if (a.value_kind == "global_buffer") return "pointer";
  if (a.value_kind == "by_value") return std::to_string(a.size) + "-byte value";
  return a.value_kind;
}

// Lays the spec's arguments into the kernarg segment at the offsets the code object metadata gives
// (hidden arguments are the executor's).
std::vector<std::uint8_t> build_kernargs(const LaunchSpec& spec, const amdgcn::Kernel& k, const std::string& kname,
                                         const std::vector<std::uint64_t>& buffer_addr) {
  const std::string origin = spec.spec_file.empty() ? std::string("launch spec") : spec.spec_file.string();
  if (!k.has_metadata)
    throw Error(ErrorKind::Unsupported, "kernel `" + kname + "`: the code object has no AMDHSA metadata for it, so kernsim cannot "
                                        "lay out its arguments");
  std::vector<const amdgcn::KernelArg*> params;
  for (const auto& a : k.args)
    if (!a.hidden()) params.push_back(&a);
  if (spec.args.size() != params.size()) {
    std::string sig;
    for (const auto* p : params) sig += (sig.empty() ? "" : ", ") + arg_desc(*p);
    throw Error(ErrorKind::LaunchSpec, origin + ": `args`: kernel `" + kname + "` takes " + std::to_string(params.size()) +
                                           " parameters (" + sig + "), the spec gives " + std::to_string(spec.args.size()));
  }
  std::vector<std::uint8_t> block(std::max<std::size_t>(k.kernarg_segment_size, 8), 0);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const amdgcn::KernelArg& p = *params[i];
    const Arg& a = spec.args[i];
    const std::string field = "args[" + std::to_string(i) + "]";
    auto fail = [&](const std::string& msg) {
      throw Error(ErrorKind::LaunchSpec, origin + ": `" + field + "`: " + msg + " (kernel `" + kname + "` parameter " +
                                             std::to_string(i) + " is a " + arg_desc(p) + ")");
    };
    if (p.offset + p.size > block.size()) block.resize(p.offset + p.size, 0);
    if (p.value_kind == "global_buffer") {
      if (p.size != 8) fail("a buffer is passed as a 64-bit pointer, but the parameter has " + std::to_string(p.size) + " bytes");
      if (!a.is_buffer) {
        // a raw device address (a null pointer, usually)
        if (a.scalar.type != ScalarType::U64 && a.scalar.type != ScalarType::I64)
          fail("a pointer takes a buffer or a 64-bit integer address, not a scalar of type " + std::string(to_string(a.scalar.type)));
        std::memcpy(block.data() + p.offset, &a.scalar.bits, 8);
        continue;
      }
      std::memcpy(block.data() + p.offset, &buffer_addr[i], 8);
    } else if (p.value_kind == "by_value") {
      if (a.is_buffer) {
        if (p.size != 8) fail("a buffer is passed as a 64-bit pointer, but the parameter has " + std::to_string(p.size) + " bytes");
        std::memcpy(block.data() + p.offset, &buffer_addr[i], 8);
        continue;
      }
      if (size_of(a.scalar.type) != p.size)
        fail("scalar of type " + std::string(to_string(a.scalar.type)) + " has " + std::to_string(size_of(a.scalar.type)) + " bytes");
      std::memcpy(block.data() + p.offset, &a.scalar.bits, p.size);
    } else {
      throw Error(ErrorKind::Unsupported, origin + ": `" + field + "`: kernel `" + kname + "` parameter " + std::to_string(i) +
                                              " is of kind `" + p.value_kind + "`, which launch specs cannot pass");
    }
  }
  return block;
}

void dump(const fs::path& dir, std::size_t i, const char* suffix, const std::uint8_t* data, std::size_t n) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot create dump directory " + dir.string() + ": " + ec.message());
  write_file_atomic(dir / ("arg" + std::to_string(i) + "." + suffix + ".bin"), std::string_view(reinterpret_cast<const char*>(data), n));
}

}  // namespace

RunResult run_amd_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts,
                         const frontends::DeviceModule& mod) {
  const frontends::KernelInfo& ki = mod.find_kernel(spec.kernel);
  const std::string origin = spec.spec_file.empty() ? std::string("launch spec") : spec.spec_file.string();
  auto code = std::make_shared<const amdgcn::CodeObject>(amdgcn::read_code_object(mod.binary, spec.source.string()));
  const amdgcn::Kernel* kp = code->find(ki.name);
  if (!kp) throw Error(ErrorKind::Internal, "kernsim bug: kernel `" + ki.name + "` listed but absent from the code object");
  const amdgcn::Kernel& k = *kp;
  const amdgcn::Program prog = amdgcn::decode(code, spec.source.string());

  // launch-shape checks that need the kernel
  const std::int64_t threads = spec.threads_per_block();
  if (k.wavefront_size != 64)
    throw Error(ErrorKind::Unsupported, "kernel `" + ki.demangled + "` was compiled for wave" + std::to_string(k.wavefront_size) +
                                            "; kernsim runs gfx942/gfx950 kernels as wave64");
  if (threads > k.max_flat_workgroup_size)
    throw Error(ErrorKind::LaunchSpec, origin + ": `block`: " + std::to_string(threads) + " threads exceed the kernel's maximum flat " +
                                           "workgroup size " + std::to_string(k.max_flat_workgroup_size) + " (__launch_bounds__)");
  for (int d = 0; d < 3; ++d)
    if (k.reqd_workgroup_size[d] && k.reqd_workgroup_size[d] != spec.block[d])
      throw Error(ErrorKind::LaunchSpec, origin + ": `block`: kernel `" + ki.demangled + "` requires block (" +
                                             std::to_string(k.reqd_workgroup_size[0]) + "," + std::to_string(k.reqd_workgroup_size[1]) +
                                             "," + std::to_string(k.reqd_workgroup_size[2]) + ") (reqd_work_group_size)");
  const std::int64_t lds = std::int64_t{k.group_segment_fixed_size} + spec.dynamic_shared_bytes;
  if (lds > dev.limits.max_shared_per_block_bytes)
    throw Error(ErrorKind::LaunchSpec, origin + ": `dynamic_shared_bytes`: the kernel's " + std::to_string(k.group_segment_fixed_size) +
                                           " static + " + std::to_string(spec.dynamic_shared_bytes) + " dynamic bytes of LDS exceed " +
                                           std::to_string(dev.limits.max_shared_per_block_bytes) + " on " + dev.name);

  // memory: the code object, then one allocation per buffer argument
  sim::GlobalMemory mem;
  const std::uint64_t code_base = sim::map_code_object(*code, mem, spec.source.filename().string());
  std::vector<std::uint64_t> addr(spec.args.size(), 0);
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].is_buffer) continue;
    const BufferArg& b = spec.args[i].buffer;
    addr[i] = mem.allocate(b.bytes(), "arg" + std::to_string(i) + " (" + to_string(b.type) + "[" + std::to_string(b.count) + "])");
    std::vector<std::uint8_t> init = make_initial_bytes(spec, i);
    std::memcpy(mem.find(addr[i], 1)->data(), init.data(), init.size());
    if (opts.dump_dir) dump(*opts.dump_dir, i, "in", init.data(), init.size());
  }
  std::vector<std::uint8_t> kernargs = build_kernargs(spec, k, ki.demangled, addr);

  sim::LaunchDims dims;
  for (int d = 0; d < 3; ++d) {
    dims.grid[d] = static_cast<std::uint32_t>(spec.grid[d]);
    dims.block[d] = static_cast<std::uint32_t>(spec.block[d]);
  }
  dims.dynamic_shared = static_cast<std::uint32_t>(spec.dynamic_shared_bytes);
  sim::AmdExecOptions eo;
  eo.kernel_name = ki.demangled;
  eo.num_cus = static_cast<std::uint32_t>(dev.sm.count);
  eo.wall_time_limit_s = opts.wall_time_limit_s;
  if (opts.max_instructions) eo.max_wave_instructions = opts.max_instructions;
  sim::AmdKernel kernel(prog, k, mem, code_base, dims, std::move(kernargs), eo);

  sim::AmdResources res;
  res.threads_per_block = static_cast<int>(threads);
  res.vgprs = std::max(k.vgpr_count, ki.resources.registers);
  res.agprs = std::max(k.agpr_count, ki.resources.agprs);
  res.accum_offset = k.kd.accum_offset;
  res.sgprs = std::max(k.sgpr_count, ki.resources.sgprs);
  res.lds_per_block = lds;
  sim::TimingOptions to;
  to.full = opts.full;
  to.detail_budget = kAmdDetailBudget;
  if (const char* b = std::getenv("KERNSIM_DETAIL_BUDGET")) to.detail_budget = std::strtoull(b, nullptr, 10);
  to.complete_functionally = opts.dump_dir.has_value() || opts.keep_outputs;
  cost::ReportView view(dev);
  LaunchViews views(view, listing_of(prog), dev, opts);
  const sim::TimingResult tr = sim::time_amd_kernel(dev, kernel, res, to, views.listener());

  RunResult r;
  r.kernel = ki.demangled;
  r.arch = dev.name;
  r.time_us = tr.time_us;
  r.cycles = tr.cycles;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].is_buffer) continue;
    const sim::Allocation* a = mem.find(addr[i], 1);
    if (opts.dump_dir) dump(*opts.dump_dir, i, "out", a->data(), a->size);
    if (opts.keep_outputs) r.outputs.push_back({i, std::vector<std::uint8_t>(a->data(), a->data() + a->size)});
  }
  cost::LaunchFacts facts = launch_facts(spec, ki.demangled, dev.name);
  facts.registers = res.vgprs;
  facts.registers_source = ki.resources.source.empty() ? "code object metadata" : ki.resources.source;
  facts.static_shared = k.group_segment_fixed_size;
  facts.thread_instructions = kernel.thread_instructions();
  nlohmann::json j = view.to_json(facts, tr);
  j["launch"]["agprs_per_thread"] = res.agprs;
  j["launch"]["sgprs_per_wave"] = res.sgprs;
  views.finish(j, tr);
  r.report_json = j.dump(1);
  r.report_text = view.text(j);
  return r;
}

std::string amd_kernel_listing(const frontends::DeviceModule& m) {
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

std::string amd_disassembly(const frontends::DeviceModule& m) {
  auto co = std::make_shared<const amdgcn::CodeObject>(amdgcn::read_code_object(m.binary, m.origin.string()));
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

}  // namespace kernsim::api
