// kernsim::api::LaunchViews — the views a launch reports through next to the ReportView: the
// per-PC table (cost::PcView, the report's `by_pc`) always, and the Chrome/Perfetto trace
// (cost::TraceView) when RunOptions::trace_path asks for one. Both vendors' pipelines build one
// from the decoded program's listing, time the kernel with listener(), and call finish().
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "api/run.h"
#include "cost_model/listing.h"
#include "cost_model/pc_view.h"
#include "cost_model/report.h"
#include "cost_model/trace_view.h"
#include "isa/amdgcn/program.h"
#include "isa/ptx/program.h"
#include "sim/timing/listener.h"

namespace kernsim::api {

// The instruction text of a decoded kernel, by PC: PTX with its line, AMDGCN with its address.
cost::Listing listing_of(const isa::ptx::Program& prog);
cost::Listing listing_of(const isa::amdgcn::Program& prog);

class LaunchViews {
 public:
  // `timed`: the device as timed (its core clock dates the trace). Checks the trace path's
  // directory before the simulation runs: Error(Io) naming the path.
  LaunchViews(cost::ReportView& report, cost::Listing listing, const device::DeviceSpec& timed, const RunOptions& opts);
  LaunchViews(const LaunchViews&) = delete;
  LaunchViews& operator=(const LaunchViews&) = delete;

  sim::Listener& listener() { return all_; }
  // Adds `by_pc` to the report and writes the trace, if one was asked for.
  void finish(nlohmann::json& report, const sim::TimingResult& t);

 private:
  cost::Listing listing_;
  cost::PcView pcs_;
  std::optional<cost::TraceView> trace_;
  std::optional<std::filesystem::path> trace_path_;
  sim::ListenerSet all_;
};

}  // namespace kernsim::api
