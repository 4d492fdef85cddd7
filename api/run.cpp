// The launch skeleton: spec + device -> compiled kernel -> simulation -> report, written once for
// every part. The device's target (api/target.h) does the ISA-specific steps — compile, decode,
// the parameter block, the executor and the timing model; this file does the rest — spec checks,
// buffers and their initial bytes, dumps, outputs, the options every part reads the same way and
// the report.
#include "api/run.h"
#include "api/error_band.h"
#include "api/views.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include <unistd.h>

#include "api/target.h"
#include "base/error.h"
#include "base/files.h"
#include "cost_model/fast_report.h"
#include "cost_model/report.h"
#include "sim/functional/amd_exec.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"

#ifndef KERNSIM_VERSION
#define KERNSIM_VERSION "0.0.0"
#endif

namespace kernsim::api {
namespace fs = std::filesystem;

std::string version() { return KERNSIM_VERSION; }

const char* to_string(Tier t) { return t == Tier::Fast ? "fast" : "detailed"; }

Tier parse_tier(const std::string& s, const std::string& what) {
  if (s == "detailed") return Tier::Detailed;
  if (s == "fast") return Tier::Fast;
  throw Error(ErrorKind::Usage, what + " must be `detailed` or `fast`, got `" + s + "`");
}

const char* to_string(Cache c) { return c == Cache::Warm ? "warm" : c == Cache::ColdDirty ? "cold-dirty" : "cold"; }

Cache parse_cache(const std::string& s, const std::string& what) {
  if (s == "cold") return Cache::Cold;
  if (s == "cold-dirty") return Cache::ColdDirty;
  if (s == "warm") return Cache::Warm;
  throw Error(ErrorKind::Usage, what + " must be `cold`, `cold-dirty` or `warm`, got `" + s + "`");
}

namespace {

// args[i]'s bytes as argI.SUFFIX.bin (a spec-level buffer's as NAME.SUFFIX.bin)
void dump(const fs::path& dir, const LaunchSpec& spec, std::size_t i, const char* suffix, const std::uint8_t* data, std::size_t n) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot create dump directory " + dir.string() + ": " + ec.message());
  const std::string stem = spec.args[i].is_extra() ? spec.args[i].extra_name : "arg" + std::to_string(i);
  write_file_atomic(dir / (stem + "." + suffix + ".bin"), std::string_view(reinterpret_cast<const char*>(data), n));
}

std::string block_text(const std::array<std::int64_t, 3>& b) {
  return "(" + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," + std::to_string(b[2]) + ")";
}

// The launch-shape checks that need the kernel: the block it requires or allows, and the shared
// memory (LDS) it declares plus the spec's dynamic bytes against the part's limit. Returns the
// shared memory per block the occupancy sees.
std::int64_t check_against_kernel(const LaunchSpec& spec, const device::DeviceSpec& dev, const KernelTraits& k, const std::string& kname) {
  const std::string origin = spec_origin(spec);
  for (int d = 0; d < 3; ++d)
    if (k.required_block[d] && k.required_block[d] != spec.block[d])
      throw Error(ErrorKind::LaunchSpec, origin + ": `block`: kernel `" + kname + "` requires block " + block_text(k.required_block) + " (" +
                                             k.required_block_attr + ")");
  const std::int64_t threads = spec.threads_per_block();
  if (k.max_threads && threads > k.max_threads)
    throw Error(ErrorKind::LaunchSpec, origin + ": `block`: " + std::to_string(threads) + " threads exceed the kernel's " + k.max_threads_words);
  const std::int64_t shared = std::max(k.dynamic_shared_offset + spec.dynamic_shared_bytes, k.static_shared);
  if (shared > dev.limits.max_shared_per_block_bytes)
    throw Error(ErrorKind::LaunchSpec, origin + ": `dynamic_shared_bytes`: the kernel's " + std::to_string(k.static_shared) + " static + " +
                                           std::to_string(spec.dynamic_shared_bytes) + " dynamic bytes of " + k.shared_words + " exceed " +
                                           std::to_string(dev.limits.max_shared_per_block_bytes) + " on " + dev.name);
  return shared;
}

std::string bytes_text(long double b) {
  char buf[64];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.0Lf bytes (%.1Lf GiB)", b, b / (1ull << 30));
  else std::snprintf(buf, sizeof buf, "%.0Lf bytes", b);
  return buf;
}

std::uint64_t host_memory_limit(const RunOptions& opts) {
  if (opts.host_memory_limit_bytes) return opts.host_memory_limit_bytes;
  if (const char* env = std::getenv("KERNSIM_MEMORY_LIMIT_MB")) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(env, &end, 10);
    if (!*env || *end || mb == 0) throw Error(ErrorKind::Usage, std::string("KERNSIM_MEMORY_LIMIT_MB must be a positive integer, got `") + env + "`");
    return static_cast<std::uint64_t>(mb) << 20;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2 : std::uint64_t{8} << 30;
}

// Memory the launch needs, refused before anything is allocated: the buffers against the part's
// memory (dram.bytes) and the host's limit, each buffer by name; local memory (private segment)
// per thread times the threads the part keeps resident against what the buffers leave of the
// part's memory (as the driver sizes it), and one CTA's worth against the host's limit (the
// executors allocate it per thread of a live CTA).
void check_memory(const LaunchSpec& spec, const device::DeviceSpec& dev, const KernelTraits& k, const RunOptions& opts) {
  const std::string origin = spec_origin(spec);
  const long double host = static_cast<long double>(host_memory_limit(opts));
  const long double part = static_cast<long double>(dev.dram.bytes);
  const std::string host_words = " the host memory limit for a launch, " + bytes_text(host) + " (RunOptions::host_memory_limit_bytes, KERNSIM_MEMORY_LIMIT_MB)";
  const std::string part_words = " " + dev.name + "'s memory, " + bytes_text(part) + " (dram.bytes)";
  long double total = 0;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].has_buffer()) continue;
    const BufferArg& b = spec.args[i].buffer;
    const long double bytes = static_cast<long double>(b.count) * static_cast<long double>(size_of(b.type));
    const std::string name = "`args[" + std::to_string(i) + "]` (" + to_string(b.type) + "[" + std::to_string(b.count) + "], " + bytes_text(bytes) + ")";
    if (bytes > part) throw Error(ErrorKind::LaunchSpec, origin + ": buffer " + name + " is larger than" + part_words);
    if (bytes > host) throw Error(ErrorKind::LaunchSpec, origin + ": buffer " + name + " is larger than" + host_words);
    total += bytes;
  }
  if (total > part) throw Error(ErrorKind::LaunchSpec, origin + ": the buffers take " + bytes_text(total) + ", more than" + part_words);
  if (total > host) throw Error(ErrorKind::LaunchSpec, origin + ": the buffers take " + bytes_text(total) + ", more than" + host_words);
  if (k.local_bytes <= 0) return;
  const long double per_thread = static_cast<long double>(k.local_bytes);
  const long double resident = static_cast<long double>(dev.sm.max_threads) * static_cast<long double>(dev.sm.count);
  if (per_thread * resident > part - total)
    throw Error(ErrorKind::LaunchSpec, origin + ": local memory: the kernel's " + bytes_text(per_thread) + " per thread x " +
                                           std::to_string(dev.sm.max_threads * dev.sm.count) + " resident threads (sm.max_threads x sm.count) = " +
                                           bytes_text(per_thread * resident) + " do not fit in what the buffers leave of" + part_words);
  const long double per_cta = per_thread * static_cast<long double>(spec.threads_per_block());
  if (per_cta + total > host)
    throw Error(ErrorKind::LaunchSpec, origin + ": local memory: the kernel's " + bytes_text(per_thread) + " per thread x " +
                                           std::to_string(spec.threads_per_block()) + " threads of a block = " + bytes_text(per_cta) +
                                           " (with the buffers' " + bytes_text(total) + ") is more than" + host_words);
}

// A launch with more warps (waves) than the instruction limit cannot finish within it: every warp
// executes at least one instruction. Refused before anything is compiled into a simulation, so an
// absurd grid (2^31-1 x 65535 blocks) stops at once with its numbers, not after minutes.
void check_launch_size(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts, std::uint64_t default_limit) {
  const std::uint64_t limit = opts.max_instructions ? opts.max_instructions : default_limit;
  const long double warp = static_cast<long double>(dev.sm.warp_size > 0 ? dev.sm.warp_size : 32);
  const long double warps_per_block = std::ceil(static_cast<long double>(spec.threads_per_block()) / warp);
  const long double blocks = static_cast<long double>(spec.grid[0]) * static_cast<long double>(spec.grid[1]) * static_cast<long double>(spec.grid[2]);
  const long double warps = blocks * warps_per_block;
  if (warps > static_cast<long double>(limit)) {
    const char* w = dev.vendor == device::Vendor::Nvidia ? "warp" : "wave";
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  ": `grid`: %.0Lf blocks x %.0Lf %ss each = %.3Le %ss: the launch cannot finish within the instruction limit of "
                  "%llu %s instructions (each %s runs at least one; refused before it runs; --max-instructions raises it, "
                  "docs/limits.md)",
                  blocks, warps_per_block, w, warps, w, static_cast<unsigned long long>(limit), w, w);
    throw Error(ErrorKind::KernelFault, spec_origin(spec) + buf);
  }
}

// The cluster shape of the launch: the spec's, else the kernel's .reqnctapercluster, else clusters
// of one. The grid must be a whole number of clusters, the cluster within the part's and the
// kernel's limits. Fills shape.cluster and shape.explicit_cluster.
void check_cluster(const LaunchSpec& spec, const device::DeviceSpec& dev, const KernelTraits& k, const std::string& kname, LaunchShape& shape) {
  const std::string origin = spec_origin(spec) + ": `cluster`: ";
  const bool given = spec.cluster[0] > 0, declared = k.required_cluster[0] > 0;
  if (given && declared && spec.cluster != k.required_cluster)
    throw Error(ErrorKind::LaunchSpec, origin + "kernel `" + kname + "` requires clusters of " + block_text(k.required_cluster) +
                                           " (.reqnctapercluster, __cluster_dims__), the spec gives " + block_text(spec.cluster));
  if (k.explicit_cluster && !given && !declared)
    throw Error(ErrorKind::LaunchSpec, origin + "kernel `" + kname + "` is declared .explicitcluster: the launch must give `cluster`");
  const std::array<std::int64_t, 3> c = given ? spec.cluster : declared ? k.required_cluster : std::array<std::int64_t, 3>{1, 1, 1};
  const std::int64_t n = c[0] * c[1] * c[2];
  if ((given || declared) && dev.topology.max_cluster_ctas == 0)
    throw Error(ErrorKind::LaunchSpec, origin + dev.name + " has no thread-block clusters (an NVIDIA sm_90+ feature)");
  const char* axis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d)
    if (spec.grid[d] % c[d])
      throw Error(ErrorKind::LaunchSpec, spec_origin(spec) + ": `grid`: grid." + axis[d] + " = " + std::to_string(spec.grid[d]) +
                                             " is not a multiple of the cluster's " + std::to_string(c[d]) + " (cluster " + block_text(c) + ")");
  if (k.max_cluster_rank && n > k.max_cluster_rank)
    throw Error(ErrorKind::LaunchSpec, origin + "a cluster of " + std::to_string(n) + " CTAs exceeds kernel `" + kname + "`'s .maxclusterrank " +
                                           std::to_string(k.max_cluster_rank));
  if (n > dev.topology.max_cluster_ctas_nonportable && (given || declared))
    throw Error(ErrorKind::LaunchSpec, origin + "a cluster of " + std::to_string(n) + " CTAs exceeds " + dev.name + "'s largest, " +
                                           std::to_string(dev.topology.max_cluster_ctas_nonportable) + " (topology.max_cluster_ctas_nonportable)");
  if (n > dev.topology.max_cluster_ctas && (given || declared) && !spec.cluster_nonportable)
    throw Error(ErrorKind::LaunchSpec, origin + "a cluster of " + std::to_string(n) + " CTAs exceeds the portable " +
                                           std::to_string(dev.topology.max_cluster_ctas) +
                                           " (topology.max_cluster_ctas); set \"cluster_nonportable\": true, as cudaFuncAttributeNonPortableClusterSizeAllowed does");
  for (int d = 0; d < 3; ++d) shape.cluster[static_cast<std::size_t>(d)] = static_cast<std::uint32_t>(c[d]);
  shape.explicit_cluster = given || declared;
}

// Warp (wave) instructions timed in detail, the same rule on every part: RunOptions::detail_budget,
// else KERNSIM_DETAIL_BUDGET, else the target's default.
std::uint64_t detail_budget(const RunOptions& opts, std::uint64_t target_default) {
  if (opts.detail_budget) return opts.detail_budget;
  const char* env = std::getenv("KERNSIM_DETAIL_BUDGET");
  if (!env) return target_default;
  const std::string s = env;
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || std::strtoull(s.c_str(), nullptr, 10) == 0)
    throw Error(ErrorKind::Usage, "KERNSIM_DETAIL_BUDGET must be a positive integer (warp instructions timed in detail), got `" + s + "`");
  return std::strtoull(s.c_str(), nullptr, 10);
}

// The facts of a launch the report shows that come from its spec (shape, flops, bytes).
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

// A CUDA source ported to an AMD part (frontends/cuda_port.h): the port in `launch.port`, and
// each place the source assumes 32-lane warps in `warnings` (JSON) and after the report (text).
void add_module_warnings(const frontends::DeviceModule& mod, nlohmann::json& j, std::string& text) {
  if (!mod.port.empty()) j["launch"]["port"] = mod.port;
  if (mod.port.empty() && mod.warnings.empty()) return;
  nlohmann::json w = nlohmann::json::array();
  std::map<std::string, std::string> meaning;
  if (!mod.port.empty())
    text += "port     CUDA compiled as HIP for a 64-lane wave: " + std::to_string(mod.warnings.size()) + " place" +
            (mod.warnings.size() == 1 ? "" : "s") + " assuming 32-lane warps found (docs/cuda_on_amd.md)\n";
  for (const auto& x : mod.warnings) {
    w.push_back({{"name", x.name}, {"file", x.file}, {"line", x.line}, {"code", x.code}, {"message", x.message}});
    text += "warning  " + x.name + "  " + x.file + ":" + std::to_string(x.line) + ": " + x.code + "\n";
    meaning[x.name] = x.message;
  }
  for (const auto& [name, message] : meaning) text += "         " + name + ": " + message + "\n";
  j["warnings"] = w;
}

// The fast tier: a functional sample of a few CTAs and the analytical model (cost_model/fast_*).
RunResult run_fast(const LaunchSpec& spec, const device::DeviceSpec& dev, TargetKernel& kernel, sim::GlobalMemory& mem,
                   std::vector<std::uint8_t> params, const LaunchShape& shape, const std::string& kname, const frontends::DeviceModule& mod) {
  const device::DeviceSpec timed = kernel.timing_device(dev);
  const KernelTraits& traits = kernel.traits();
  cost::LaunchGeometry g;
  g.ctas = shape.dims().num_blocks();
  g.threads_per_block = static_cast<int>(shape.threads_per_block);
  g.registers_per_thread = traits.registers;
  g.shared_per_block = shape.shared_per_block;
  sim::KernelResources kr;
  kr.threads_per_block = g.threads_per_block;
  kr.registers_per_thread = g.registers_per_thread;
  kr.shared_per_block = g.shared_per_block;
  const sim::Occupancy occ = sim::compute_occupancy(timed, kr);
  if (timed.fast.overlap_exponent <= 0) cost::predict(cost::KernelProfile{}, g, timed);  // names the missing coefficients before sampling
  const cost::KernelProfile prof = kernel.profile(timed, mem, std::move(params), shape, occ);
  const cost::FastPrediction pred = cost::predict(prof, g, timed);
  cost::LaunchFacts facts = launch_facts(spec, kname, dev.name);
  facts.registers = traits.registers;
  facts.registers_source = traits.registers_source;
  facts.static_shared = traits.static_shared;
  const nlohmann::json j = cost::fast_report_json(facts, pred, prof, g, timed);
  RunResult r;
  r.kernel = kname;
  r.arch = dev.name;
  r.time_us = pred.time_us;
  r.cycles = pred.cycles;
  nlohmann::json jw = j;
  add_error_band(jw, dev.name, "fast");
  std::string text = cost::fast_report_text(j) + error_band_text(jw);
  add_module_warnings(mod, jw, text);
  r.report_json = jw.dump(1);
  r.report_text = text;
  return r;
}

}  // namespace

RunResult run_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts) {
  validate_against_device(spec, dev);
  check_launch_size(spec, dev, opts, dev.vendor == device::Vendor::Nvidia ? sim::ExecOptions{}.max_warp_instructions
                                                                         : sim::AmdExecOptions{}.max_wave_instructions);
  const Target& target = target_for(dev);
  const std::uint64_t budget = detail_budget(opts, target.default_detail_budget());
  const frontends::DeviceModule mod = target.compile(spec.source, dev.isa_target, spec.compile);
  const frontends::KernelInfo& ki = mod.find_kernel(spec.kernel);
  const std::unique_ptr<TargetKernel> kernel = target.load(mod, ki, spec.source.string());
  const KernelTraits& traits = kernel->traits();
  const std::int64_t shared = check_against_kernel(spec, dev, traits, ki.demangled);
  check_memory(spec, dev, traits, opts);

  const bool fast = opts.tier == Tier::Fast;
  if (fast) {
    const char* clash = opts.full ? "--full (`full`)" : opts.dump_dir ? "--dump-buffers" : opts.keep_outputs ? "outputs (`full=True` in Python)"
                        : opts.trace_path                            ? "--trace"
                                                                     : nullptr;
    if (clash) throw Error(ErrorKind::Usage, std::string("the fast tier executes only a sample of CTAs: it cannot give ") + clash + "; use --tier detailed");
    if (opts.cache != Cache::Cold)
      throw Error(ErrorKind::Usage, std::string("the fast tier models no cache state between launches: it cannot time with a ") +
                                        (opts.cache == Cache::Warm ? "warm L2 (--cache warm" : "dirty L2 (--cache cold-dirty") +
                                        ", cache=\"" + to_string(opts.cache) + "\"); use --tier detailed");
  }

  // memory: what the kernel brings, then one allocation per buffer argument (the fast tier's
  // filled on demand: its sample reads a few pages of each)
  sim::GlobalMemory mem;
  kernel->map_code(mem, spec);
  std::vector<std::uint64_t> addr(spec.args.size(), 0);
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].has_buffer()) continue;
    const BufferArg& b = spec.args[i].buffer;
    const std::string label = "arg" + std::to_string(i) + " (" + to_string(b.type) + "[" + std::to_string(b.count) + "])";
    if (fast) {
      addr[i] = mem.allocate_lazy(b.bytes(), label, [&spec, i](std::uint64_t off, std::uint64_t n, std::uint8_t* dst) { fill_initial_bytes(spec, i, off, n, dst); });
      continue;
    }
    // zeros are the allocation's own (fresh pages, untouched until used); computed values, when
    // no output is read, are filled on demand (a slice and its warm-up read a part of the grid's
    // data: whatever no CTA reads is never written); other values are written once into it
    const bool computed = b.init.kind == Init::Kind::Uniform || b.init.kind == Init::Kind::Iota || b.init.kind == Init::Kind::RandInt;
    const bool outputs_read = opts.full || opts.dump_dir || opts.keep_outputs || opts.check_all;
    auto fill = [&spec, i](std::uint64_t off, std::uint64_t n, std::uint8_t* dst) { fill_initial_bytes(spec, i, off, n, dst); };
    addr[i] = b.init.kind == Init::Kind::Zeros ? mem.allocate(b.bytes(), label)
              : computed && !outputs_read      ? mem.allocate_lazy(b.bytes(), label, fill, sim::Allocation::kLazyPageDetailed)
                                               : mem.allocate_filled(b.bytes(), label, [&](std::uint8_t* dst) { fill(0, b.bytes(), dst); });
    if (opts.dump_dir) dump(*opts.dump_dir, spec, i, "in", mem.find(addr[i], 1)->data(), b.bytes());
  }
  // the address each parameter receives: its buffer's plus its offset, or a pointer into another
  // argument's buffer (a tensor map describes the address its buffer argument passes)
  std::vector<std::uint64_t> passed = addr;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const Arg& a = spec.args[i];
    if (a.is_buffer) passed[i] = addr[i] + static_cast<std::uint64_t>(a.offset_bytes);
    if (a.is_pointer) passed[i] = addr[a.pointer_to] + static_cast<std::uint64_t>(a.offset_bytes);
  }
  // struct arguments with pointer or tensor-map members take the buffers' addresses now
  std::optional<LaunchSpec> filled;
  if (has_struct_holes(spec)) {
    filled = spec;
    fill_struct_holes(*filled, addr);
  }
  std::vector<std::uint8_t> params = kernel->build_params(filled ? *filled : spec, passed);

  LaunchShape shape;
  for (int d = 0; d < 3; ++d) {
    shape.grid[d] = static_cast<std::uint32_t>(spec.grid[d]);
    shape.block[d] = static_cast<std::uint32_t>(spec.block[d]);
  }
  shape.dynamic_shared = static_cast<std::uint32_t>(spec.dynamic_shared_bytes);
  check_cluster(spec, dev, traits, ki.demangled, shape);
  shape.threads_per_block = spec.threads_per_block();
  shape.shared_per_block = shared;
  shape.kernel_name = ki.demangled;
  shape.max_instructions = opts.max_instructions;
  shape.wall_time_limit_s = opts.wall_time_limit_s < 0 ? kDefaultWallTimeLimitS : opts.wall_time_limit_s;
  if (fast) return run_fast(spec, dev, *kernel, mem, std::move(params), shape, ki.demangled, mod);
  sim::TimingOptions to;
  to.full = opts.full;
  to.detail_budget = budget;
  to.complete_functionally = opts.dump_dir.has_value() || (opts.keep_outputs && !opts.sampled_outputs) || opts.check_all;
  to.warm_l2 = opts.cache == Cache::Warm;
  to.dirty_l2 = opts.cache == Cache::ColdDirty;
  const device::DeviceSpec timed = kernel->timing_device(dev);
  cost::ReportView view(timed);
  LaunchViews views(view, kernel->listing(), timed, opts);
  const TimedLaunch t = kernel->time(timed, mem, std::move(params), shape, to, views.listener());

  RunResult r;
  r.kernel = ki.demangled;
  r.arch = dev.name;
  r.time_us = t.timing.time_us;
  r.cycles = t.timing.cycles;
  // what the verdict covers: a fault or endless loop is found only in CTAs that ran
  const bool all = opts.full || to.complete_functionally || t.timing.ctas_timed >= t.timing.ctas_total;
  if (all || opts.dump_dir || opts.keep_outputs) mem.materialize_all();  // whole buffers are read below
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].has_buffer()) continue;
    const sim::Allocation* a = mem.find(addr[i], 1);
    if (opts.dump_dir) dump(*opts.dump_dir, spec, i, "out", a->data(), a->size);
    if (opts.keep_outputs) r.outputs.push_back({i, std::vector<std::uint8_t>(a->data(), a->data() + a->size)});
  }
  cost::LaunchFacts facts = launch_facts(spec, ki.demangled, dev.name);
  facts.registers = traits.registers;
  facts.registers_source = traits.registers_source;
  facts.static_shared = traits.static_shared;
  facts.thread_instructions = t.thread_instructions;
  nlohmann::json j = view.to_json(facts, t.timing);
  for (const auto& [key, value] : t.launch_extras) j["launch"][key] = value;
  const std::uint64_t completed = all ? t.timing.ctas_total : t.timing.ctas_timed + t.timing.ctas_probed;
  j["cache"] = to_string(opts.cache);
  j["checked"] = {{"all_ctas", all},
                  {"ctas", t.timing.ctas_total},
                  {"ctas_run_to_completion", completed},
                  {"corner_ctas_probed", t.timing.ctas_probed},
                  {"corner_ctas_open", t.timing.ctas_probe_open}};
  views.finish(j, t.timing);
  add_error_band(j, dev.name, to_string(opts.tier));
  r.report_text = view.text(j) + error_band_text(j) + cost::by_line_text(j);
  if (all) {  // the buffers are complete only when every CTA ran
    std::vector<const std::uint8_t*> buffers(spec.args.size(), nullptr);
    for (std::size_t i = 0; i < spec.args.size(); ++i)
      if (spec.args[i].has_buffer()) buffers[i] = mem.find(addr[i], 1)->data();
    add_output_check(spec, buffers, j, r.report_text);
  }
  add_module_warnings(mod, j, r.report_text);
  r.report_json = j.dump(1);
  if (!all)
    r.report_text += "checked  " + std::to_string(completed) + " of " + std::to_string(t.timing.ctas_total) + " blocks ran to completion (" +
                     std::to_string(t.timing.ctas_probed) + " of them the grid's corners, untimed" +
                     (t.timing.ctas_probe_open ? "; " + std::to_string(t.timing.ctas_probe_open) + " corner blocks did not end alone" : "") +
                     "); faults and endless loops in the others are not detected (--check-all runs them)\n";
  return r;
}

}  // namespace kernsim::api
