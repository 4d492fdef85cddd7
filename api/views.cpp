// The views of a launch and the listings they print; see views.h.
#include "api/views.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace kernsim::api {

namespace fs = std::filesystem;

namespace {

// One line of source text as a row label: tabs as spaces, runs of blanks collapsed, trimmed.
std::string tidy(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\t' || c == '\r' || c == '\n') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

cost::Listing listing_of(const isa::ptx::Program& prog) {
  cost::Listing l;
  l.reserve(prog.insts.size());
  for (const auto& in : prog.insts) {
    cost::InstText t;
    t.text = in.line < prog.lines.size() ? tidy(prog.lines[in.line]) : std::string(isa::ptx::to_string(in.op));
    t.op = cost::op_of(t.text);
    t.line = in.line;
    l.push_back(std::move(t));
  }
  return l;
}

cost::Listing listing_of(const isa::amdgcn::Program& prog) {
  cost::Listing l;
  l.reserve(prog.insts.size());
  for (const auto& in : prog.insts) {
    cost::InstText t;
    t.text = in.text < prog.text.size() ? tidy(prog.text[in.text]) : std::string(isa::amdgcn::to_string(in.op));
    t.op = cost::op_of(t.text);
    t.addr = in.addr;
    l.push_back(std::move(t));
  }
  return l;
}

LaunchViews::LaunchViews(cost::ReportView& report, cost::Listing listing, const device::DeviceSpec& timed, const RunOptions& opts)
    : listing_(std::move(listing)), pcs_(&listing_), trace_path_(opts.trace_path) {
  all_.add(report);
  all_.add(pcs_);
  if (!trace_path_) return;
  const fs::path dir = trace_path_->has_parent_path() ? trace_path_->parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(ErrorKind::Io, "cannot write the trace file " + trace_path_->string() + ": no directory " + dir.string());
  cost::TraceOptions to;
  to.clock_mhz = timed.clocks.core_mhz;
  to.listing = &listing_;
  if (timed.vendor == device::Vendor::Amd) {
    to.unit = "CU";
    to.scheduler = "SIMD";
    to.cta = "workgroup";
    to.issue_slot_cycles = std::max(1.0, timed.sm.issue_interval_cycles);  // as the CU model issues
  }
  trace_.emplace(std::move(to));
  all_.add(*trace_);
}

void LaunchViews::finish(nlohmann::json& report, const sim::TimingResult& t) {
  pcs_.add_to(report, t);
  if (!trace_) return;
  nlohmann::json other = {{"kernel", report.value("kernel", "")}, {"arch", report.value("arch", "")},
                          {"time_us", t.time_us}, {"cycles", t.cycles}, {"extrapolated", t.extrapolated},
                          {"fraction_timed", t.sampled_fraction},
                          {"covers", t.extrapolated ? "the detailed (timed) window of a sampled launch" : "the whole kernel"}};
  trace_->write_file(*trace_path_, other);
}

}  // namespace kernsim::api
