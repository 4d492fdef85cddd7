// kernsim::api::LaunchViews — the views a launch reports through next to the ReportView: the
// per-PC table (cost::PcView, the report's `by_pc`) always, the Chrome/Perfetto trace
// (cost::TraceView) when RunOptions::trace_path asks for one, and the SVG plots
// (cost_model/plot_view.h) when roofline_path / timeline_path do. Both vendors' pipelines build one
// from the decoded program's listing, time the kernel with listener(), and call finish().
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "api/launch_spec.h"
#include "api/run.h"
#include "cost_model/listing.h"
#include "cost_model/pc_view.h"
#include "cost_model/plot_view.h"
#include "cost_model/report.h"
#include "cost_model/trace_view.h"
#include "isa/amdgcn/program.h"
#include "isa/ptx/ast.h"
#include "isa/ptx/program.h"
#include "sim/timing/listener.h"

namespace kernsim::api {

// PTX line of an instruction -> its high-level source (file path, line), from the module's
// `.file`/`.loc` debug line info (each instruction has the last `.loc` before it in its function).
// Empty for PTX without line info.
using PtxLineSources = std::map<std::uint32_t, std::pair<std::string, std::uint32_t>>;
PtxLineSources ptx_line_sources(const isa::ptx::ast::Module& module);

// The instruction text of a decoded kernel, by PC: PTX with its line (and its source file and
// line when `sources` has them), AMDGCN with its address.
cost::Listing listing_of(const isa::ptx::Program& prog, const PtxLineSources* sources = nullptr);
cost::Listing listing_of(const isa::amdgcn::Program& prog);

// NaN and Inf elements of a floating-point output buffer (f32, f16, bf16, f64), by bit pattern:
// {"nan_count", "inf_count", "first_nan", "first_inf"} (element indices; null when none).
// std::nullopt for a type that is not floating point.
std::optional<nlohmann::json> nonfinite_elements(ElemType type, const std::uint8_t* data, std::uint64_t count);

// For each floating-point buffer argument: {"arg", "type", "count", + nonfinite_elements}, into
// the report's `outputs`, and a warning line in `text` per buffer with a NaN or an Inf.
void add_output_check(const LaunchSpec& spec, const std::vector<const std::uint8_t*>& buffers, nlohmann::json& report, std::string& text);

class LaunchViews {
 public:
  // `timed`: the device as timed (its core clock dates the trace). Checks the trace path's
  // directory before the simulation runs: Error(Io) naming the path.
  LaunchViews(cost::ReportView& report, cost::Listing listing, const device::DeviceSpec& timed, const RunOptions& opts);
  LaunchViews(const LaunchViews&) = delete;
  LaunchViews& operator=(const LaunchViews&) = delete;

  sim::Listener& listener() { return all_; }
  // Adds `by_pc` to the report and writes the trace and the plots asked for.
  void finish(nlohmann::json& report, const sim::TimingResult& t);

 private:
  cost::Listing listing_;
  cost::PcView pcs_;
  std::optional<cost::TraceView> trace_;
  std::optional<std::filesystem::path> trace_path_;
  const device::DeviceSpec& timed_;
  std::optional<std::filesystem::path> roofline_path_, timeline_path_;
  std::optional<cost::TimelineView> timeline_;
  sim::ListenerSet all_;
};

}  // namespace kernsim::api
