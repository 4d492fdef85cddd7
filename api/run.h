// kernsim::api — the library facade the CLI and the Python package drive.
//
// run_launch() takes a parsed launch spec and a device, and carries the launch through every
// stage: compile (frontends) -> decode (isa) -> functional execution and timing (sim) ->
// report (cost_model views), on one path for every part (the device's target, api/target.h,
// does the ISA-specific steps). A stage that does not exist yet throws Error(NotImplemented)
// naming itself; no stage ever invents a number.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "api/launch_spec.h"
#include "device/device_spec.h"

namespace kernsim::api {

// The wall-clock limit of one launch's simulation unless the caller sets one. The slowest
// launch spec of the validation suite simulates in seconds (--full in tens of seconds), and a
// runaway kernel (an endless loop the detector cannot prove, a huge grid) must not hold a
// scoring worker for the 4x10^9-instruction limit's many minutes. Raise it with
// `kernsim run --time-limit SECONDS` or RunOptions::wall_time_limit_s (Python:
// wall_time_limit_s); 0 turns it off. docs/limits.md.
inline constexpr double kDefaultWallTimeLimitS = 120;

// Which model answers: the detailed tier (the cycle model in sim/timing, with sampling) or the
// fast tier (an analytical model over a functional sample of a few CTAs: cost_model/fast_model.h),
// which answers in milliseconds, computes no outputs and is NVIDIA-only today.
enum class Tier { Detailed, Fast };
const char* to_string(Tier t);
// "detailed" or "fast"; anything else is a usage error naming `what` (the option or keyword).
Tier parse_tier(const std::string& s, const std::string& what);

// The L2 a launch starts with: Cold (flushed before it by a read, clean: the default), ColdDirty
// (flushed by a write: cold for the launch's data but full of the flush buffer's dirty lines,
// which the launch's first fills write back to HBM: KernelBench's `fill_` of 256 MiB) or Warm
// (as a previous run of the same launch left it: trials timed back to back without a flush, as
// CUDA-graph replays and GPU MODE's AMD harness time them). Warm is NVIDIA's detailed tier only;
// AMD parts and the fast tier refuse it by name (exit 5 / usage error). ColdDirty is Cold on AMD
// parts (a kernel's end writes their L2s back, so no flush leaves them dirty); the fast tier
// refuses it (usage error).
enum class Cache { Cold, ColdDirty, Warm };
const char* to_string(Cache c);
// "cold", "cold-dirty" or "warm"; anything else is a usage error naming `what`.
Cache parse_cache(const std::string& s, const std::string& what);

// Each field means the same on every part (tests/unit/run_options_test.cpp); "warp
// instructions" are wave instructions on AMD parts.
struct RunOptions {
  bool full = false;                               // execute and time every CTA (workgroup)
  std::optional<std::filesystem::path> dump_dir;   // write arg<N>.in.bin / arg<N>.out.bin
  std::uint64_t max_instructions = 0;              // per launch, warp instructions; 0 = default
  bool keep_outputs = false;                       // return output buffers (Python)
  // with keep_outputs and a sampled run: return the buffers as the CTAs the timing model ran
  // left them, without running the rest of the grid (a sampled functional check)
  bool sampled_outputs = false;
  // per launch, simulation only; 0 = none, negative = kDefaultWallTimeLimitS
  double wall_time_limit_s = kDefaultWallTimeLimitS;
  // warp instructions timed in detail; 0 = KERNSIM_DETAIL_BUDGET, else the ISA's default
  std::uint64_t detail_budget = 0;
  std::optional<std::filesystem::path> trace_path;  // write a Chrome/Perfetto trace of the timed window
  // SVG plots (cost_model/plot_view.h): the launch on the part's roofline, CTAs over time
  std::optional<std::filesystem::path> roofline_path, timeline_path;
  Tier tier = Tier::Detailed;  // Fast: no outputs, no dumps, no trace, not `full` (each is a usage error)
  Cache cache = Cache::Cold;   // the L2 at the launch's start (see Cache)
  // host memory the launch's buffers and one CTA's local memory may take; 0 = half of the
  // host's physical memory (KERNSIM_MEMORY_LIMIT_MB overrides it)
  std::uint64_t host_memory_limit_bytes = 0;
  // run every CTA (workgroup) the sampler does not time, untimed, so that a fault or an endless
  // loop in any of them is found (what dump_dir and keep_outputs do; the report's `checked` says
  // which CTAs ran)
  bool check_all = false;
};

struct BufferOut {
  std::size_t arg_index = 0;
  std::vector<std::uint8_t> bytes;
};

struct RunResult {
  std::string kernel;
  std::string arch;
  double time_us = 0;
  double cycles = 0;
  std::string report_json;       // the full report (views), as JSON text
  std::string report_text;       // the human-readable report
  std::vector<BufferOut> outputs;
};

RunResult run_launch(const LaunchSpec& spec, const device::DeviceSpec& dev, const RunOptions& opts);

std::string version();

}  // namespace kernsim::api
