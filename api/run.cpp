// The launch pipeline: spec + device -> compiled kernel -> simulation -> report.
#include "api/run.h"
#include "api/run_amd.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "cost_model/report.h"
#include "base/files.h"
#include "frontends/compile.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"
#include "sim/timing/timing.h"

#ifndef KERNSIM_VERSION
#define KERNSIM_VERSION "0.0.0"
#endif

namespace kernsim::api {
namespace fs = std::filesystem;

std::string version() { return KERNSIM_VERSION; }

namespace {

std::string param_desc(const isa::ptx::ParamInfo& p) {
  return p.is_aggregate ? "struct of " + std::to_string(p.bytes) + " bytes" : "." + p.type;
}

// Checks the spec's arguments against the kernel's parameters and lays out the parameter block.
std::vector<std::uint8_t> build_params(const LaunchSpec& spec, const isa::ptx::Function& k, const std::string& kname,
                                       const std::vector<std::uint64_t>& buffer_addr) {
  const std::string origin = spec.spec_file.empty() ? std::string("launch spec") : spec.spec_file.string();
  if (spec.args.size() != k.params.size()) {
    std::string sig;
    for (const auto& p : k.params) sig += (sig.empty() ? "" : ", ") + param_desc(p);
    throw Error(ErrorKind::LaunchSpec, origin + ": `args`: kernel `" + kname + "` takes " + std::to_string(k.params.size()) +
                                           " parameters (" + sig + "), the spec gives " + std::to_string(spec.args.size()));
  }
  std::size_t total = 0;
  for (const auto& p : k.params) total = std::max<std::size_t>(total, static_cast<std::size_t>(p.offset + p.bytes));
  std::vector<std::uint8_t> block(total, 0);
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    const Arg& a = spec.args[i];
    std::string field = "args[" + std::to_string(i) + "]";
    auto fail = [&](const std::string& msg) {
      throw Error(ErrorKind::LaunchSpec, origin + ": `" + field + "`: " + msg + " (kernel `" + kname + "` parameter " +
                                             std::to_string(i) + " is " + param_desc(p) + ")");
    };
    if (p.is_aggregate) fail("struct parameters passed by value are not supported by the launch spec");
    if (a.is_buffer) {
      if (p.bytes != 8) fail("a buffer is passed as a 64-bit pointer, but the parameter has " + std::to_string(p.bytes) + " bytes");
      if (p.type == "f64") fail("a buffer cannot be passed to a floating-point parameter");
      std::memcpy(block.data() + p.offset, &buffer_addr[i], 8);
      continue;
    }
    const ScalarArg& s = a.scalar;
    if (static_cast<int>(size_of(s.type)) != p.bytes)
      fail("scalar of type " + std::string(to_string(s.type)) + " has " + std::to_string(size_of(s.type)) + " bytes");
    bool pf = p.type == "f32" || p.type == "f64";
    bool sf = s.type == ScalarType::F32 || s.type == ScalarType::F64;
    bool untyped = p.type.size() && p.type[0] == 'b';
    if (!untyped && pf != sf) fail(std::string("type ") + to_string(s.type) + " does not match");
    std::memcpy(block.data() + p.offset, &s.bits, static_cast<std::size_t>(p.bytes));
  }
  return block;
}

void dump(const fs::path& dir, std::size_t i, const char* suffix, const std::uint8_t* data, std::size_t n) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot create dump directory " + dir.string() + ": " + ec.message());
  write_file_atomic(dir / ("arg" + std::to_string(i) + "." + suffix + ".bin"),
                    std::string_view(reinterpret_cast<const char*>(data), n));
}

}  // namespace

cost::LaunchFacts launch_facts(const LaunchSpec& spec, const std::string& kernel, const std::string& arch) {
  cost::LaunchFacts facts;
  facts.kernel = kernel;
  facts.arch = arch;
  facts.source = spec.source.string();
  facts.id = spec.id;
  facts.family = spec.family;
  for (int d = 0; d < 3; ++d) {
    facts.grid[d] = spec.grid[d];
    facts.block[d] = spec.block[d];
  }
  facts.dynamic_shared = spec.dynamic_shared_bytes;
  facts.flops = spec.flops;
  facts.min_bytes = spec.min_bytes;
  return facts;
}

RunResult run_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts) {
  validate_against_device(spec, dev);
  frontends::CompileOptions co;
  co.target = dev.isa_target;
  frontends::DeviceModule mod = frontends::compile(spec.source, co);
  if (mod.kind == frontends::IsaKind::Amdgcn) return run_amd_launch(spec, dev, opts, mod);
  const frontends::KernelInfo& ki = mod.find_kernel(spec.kernel);
  auto ast = isa::ptx::parse_module(mod.text, spec.source.string());
  isa::ptx::Program prog = isa::ptx::decode_kernel(ast, ki.name, mod.text, spec.source.string(),
                                                   {ki.resources.sass_loop_loads, ki.resources.sass_loop_load_bytes});
  const isa::ptx::Function& kf = prog.functions[0];

  // launch-shape checks that need the kernel
  const std::string origin = spec.spec_file.empty() ? std::string("launch spec") : spec.spec_file.string();
  const std::int64_t threads = spec.threads_per_block();
  for (int d = 0; d < 3; ++d)
    if (kf.reqntid[d] && kf.reqntid[d] != spec.block[d])
      throw Error(ErrorKind::LaunchSpec, origin + ": `block`: kernel `" + ki.demangled + "` requires block (" +
                                             std::to_string(kf.reqntid[0]) + "," + std::to_string(kf.reqntid[1]) + "," +
                                             std::to_string(kf.reqntid[2]) + ") (.reqntid)");
  if (kf.maxntid[0] && threads > std::int64_t{kf.maxntid[0]} * std::max(1, kf.maxntid[1]) * std::max(1, kf.maxntid[2]))
    throw Error(ErrorKind::LaunchSpec, origin + ": `block`: " + std::to_string(threads) + " threads exceed the kernel's .maxntid (" +
                                           std::to_string(kf.maxntid[0]) + ")");
  const std::int64_t smem = static_cast<std::int64_t>(prog.dynamic_shared_offset) + spec.dynamic_shared_bytes;
  if (std::max<std::int64_t>(smem, static_cast<std::int64_t>(prog.static_shared_bytes)) > dev.limits.max_shared_per_block_bytes)
    throw Error(ErrorKind::LaunchSpec, origin + ": `dynamic_shared_bytes`: the kernel's " + std::to_string(prog.static_shared_bytes) +
                                           " static + " + std::to_string(spec.dynamic_shared_bytes) + " dynamic bytes of shared memory exceed " +
                                           std::to_string(dev.limits.max_shared_per_block_bytes) + " on " + dev.name);

  // memory: statics, then one allocation per buffer argument
  sim::GlobalMemory mem;
  sim::map_program_statics(prog, mem);
  std::vector<std::uint64_t> addr(spec.args.size(), 0);
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].is_buffer) continue;
    const BufferArg& b = spec.args[i].buffer;
    addr[i] = mem.allocate(b.bytes(), "arg" + std::to_string(i) + " (" + to_string(b.type) + "[" + std::to_string(b.count) + "])");
    std::vector<std::uint8_t> init = make_initial_bytes(spec, i);
    std::memcpy(mem.find(addr[i], 1)->data(), init.data(), init.size());
    if (opts.dump_dir) dump(*opts.dump_dir, i, "in", init.data(), init.size());
  }
  std::vector<std::uint8_t> params = build_params(spec, kf, ki.demangled, addr);

  sim::LaunchDims dims;
  for (int d = 0; d < 3; ++d) {
    dims.grid[d] = static_cast<std::uint32_t>(spec.grid[d]);
    dims.block[d] = static_cast<std::uint32_t>(spec.block[d]);
  }
  dims.dynamic_shared = static_cast<std::uint32_t>(spec.dynamic_shared_bytes);
  sim::ExecOptions eo;
  eo.kernel_name = ki.demangled;
  eo.num_sms = static_cast<std::uint32_t>(dev.sm.count);
  eo.max_warps_per_sm = static_cast<std::uint32_t>(dev.sm.max_warps);
  if (opts.max_instructions) eo.max_warp_instructions = opts.max_instructions;
  eo.wall_time_limit_s = opts.wall_time_limit_s;
  sim::PtxKernel kernel(prog, mem, dims, params, eo);

  sim::KernelResources kr;
  kr.threads_per_block = static_cast<int>(threads);
  kr.registers_per_thread = ki.resources.registers;
  std::string reg_source = ki.resources.source;
  if (kr.registers_per_thread <= 0) {
    kr.registers_per_thread = isa::ptx::estimate_registers(prog);
    reg_source = "estimate (ptxas not available)";
  }
  kr.shared_per_block = std::max<std::int64_t>(smem, static_cast<std::int64_t>(prog.static_shared_bytes));
  sim::TimingOptions to;
  to.full = opts.full;
  if (opts.detail_budget) to.detail_budget = opts.detail_budget;
  else if (const char* b = std::getenv("KERNSIM_DETAIL_BUDGET")) to.detail_budget = std::strtoull(b, nullptr, 10);
  to.complete_functionally = opts.dump_dir.has_value() || opts.keep_outputs;
  // a kernel with matrix instructions runs at the part's tensor clock
  const bool tensor = std::any_of(prog.insts.begin(), prog.insts.end(), [](const isa::ptx::Inst& in) { return isa::is_tensor(in.unit); });
  const device::DeviceSpec timed = tensor ? device::at_tensor_clock(dev) : dev;
  cost::ReportView view(timed);
  sim::TimingResult tr = sim::time_ptx_kernel(timed, kernel, kr, to, view);

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
  facts.registers = kr.registers_per_thread;
  facts.registers_source = reg_source;
  facts.static_shared = static_cast<std::int64_t>(prog.static_shared_bytes);
  facts.thread_instructions = kernel.thread_instructions();
  nlohmann::json j = view.to_json(facts, tr);
  r.report_json = j.dump(1);
  r.report_text = view.text(j);
  return r;
}

}  // namespace kernsim::api
