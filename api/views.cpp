// The views of a launch and the listings they print; see views.h.
#include "api/views.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/files.h"

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

PtxLineSources ptx_line_sources(const isa::ptx::ast::Module& module) {
  PtxLineSources out;
  for (const auto& f : module.functions)
    for (const auto& st : f.body) {
      if (st.kind != isa::ptx::ast::Statement::Kind::Instr || st.instr.src_line <= 0) continue;
      auto file = module.files.find(st.instr.src_file);
      if (file == module.files.end()) continue;
      out[static_cast<std::uint32_t>(st.instr.line)] = {file->second, static_cast<std::uint32_t>(st.instr.src_line)};
    }
  return out;
}

cost::Listing listing_of(const isa::ptx::Program& prog, const PtxLineSources* sources) {
  cost::Listing l;
  l.reserve(prog.insts.size());
  for (const auto& in : prog.insts) {
    cost::InstText t;
    t.text = in.line < prog.lines.size() ? tidy(prog.lines[in.line]) : std::string(isa::ptx::to_string(in.op));
    t.op = cost::op_of(t.text);
    t.line = in.line;
    if (sources) {  // a `ret` the decoder adds has the PTX line of the instruction before it
      auto s = sources->find(in.line);
      if (s != sources->end()) t.file = s->second.first, t.source_line = s->second.second;
    }
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
    if (const isa::amdgcn::LineRange* lr = prog.code ? prog.code->line_at(in.addr) : nullptr) {  // DWARF .debug_line
      t.file = lr->file;
      t.source_line = lr->line;
    }
    l.push_back(std::move(t));
  }
  return l;
}

std::optional<nlohmann::json> nonfinite_elements(ElemType type, const std::uint8_t* data, std::uint64_t count) {
  // exponent all ones: Inf when the mantissa is zero, NaN otherwise
  std::uint64_t exp_mask = 0, man_mask = 0;
  std::size_t bytes = 0;
  switch (type) {
    case ElemType::F32: exp_mask = 0x7f800000u, man_mask = 0x007fffffu, bytes = 4; break;
    case ElemType::F16: exp_mask = 0x7c00u, man_mask = 0x03ffu, bytes = 2; break;
    case ElemType::BF16: exp_mask = 0x7f80u, man_mask = 0x007fu, bytes = 2; break;
    case ElemType::F64: exp_mask = 0x7ff0000000000000ull, man_mask = 0x000fffffffffffffull, bytes = 8; break;
    default: return std::nullopt;
  }
  std::uint64_t nans = 0, infs = 0;
  nlohmann::json first_nan = nullptr, first_inf = nullptr;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, data + i * bytes, bytes);  // little-endian host, as the buffers are laid out
    if ((v & exp_mask) != exp_mask) continue;
    if (v & man_mask) {
      if (!nans++) first_nan = i;
    } else if (!infs++) {
      first_inf = i;
    }
  }
  return nlohmann::json{{"nan_count", nans}, {"inf_count", infs}, {"first_nan", first_nan}, {"first_inf", first_inf}};
}

void add_output_check(const LaunchSpec& spec, const std::vector<const std::uint8_t*>& buffers, nlohmann::json& report, std::string& text) {
  nlohmann::json outs = nlohmann::json::array();
  for (std::size_t i = 0; i < spec.args.size() && i < buffers.size(); ++i) {
    if (!spec.args[i].has_buffer() || !buffers[i]) continue;
    const BufferArg& b = spec.args[i].buffer;
    std::optional<nlohmann::json> c = nonfinite_elements(b.type, buffers[i], static_cast<std::uint64_t>(b.count));
    if (!c) continue;
    nlohmann::json row = {{"arg", i}, {"type", to_string(b.type)}, {"count", b.count}};
    if (spec.args[i].is_extra()) row["buffer"] = spec.args[i].extra_name;
    row.update(*c);
    const auto nans = (*c)["nan_count"].get<std::uint64_t>(), infs = (*c)["inf_count"].get<std::uint64_t>();
    if (nans || infs) {
      std::string w = "warning  " + spec.arg_label(i) + " (" + to_string(b.type) + "[" + std::to_string(b.count) + "]) holds";
      if (nans) w += " " + std::to_string(nans) + " NaN (first at index " + std::to_string((*c)["first_nan"].get<std::uint64_t>()) + ")";
      if (nans && infs) w += " and";
      if (infs) w += " " + std::to_string(infs) + " Inf (first at index " + std::to_string((*c)["first_inf"].get<std::uint64_t>()) + ")";
      text += w + " after the launch\n";
    }
    outs.push_back(std::move(row));
  }
  report["outputs"] = outs;
}

LaunchViews::LaunchViews(cost::ReportView& report, cost::Listing listing, const device::DeviceSpec& timed, const RunOptions& opts)
    : listing_(std::move(listing)),
      pcs_(&listing_),
      trace_path_(opts.trace_path),
      timed_(timed),
      roofline_path_(opts.roofline_path),
      timeline_path_(opts.timeline_path) {
  all_.add(report);
  all_.add(pcs_);
  auto check_dir = [](const std::optional<fs::path>& p, const char* what) {
    if (!p) return;
    const fs::path dir = p->has_parent_path() ? p->parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(ErrorKind::Io, std::string("cannot write the ") + what + " " + p->string() + ": no directory " + dir.string());
  };
  check_dir(roofline_path_, "roofline plot");
  check_dir(timeline_path_, "timeline plot");
  if (timeline_path_) {
    timeline_.emplace(timed.clocks.core_mhz);
    all_.add(*timeline_);
  }
  if (!trace_path_) return;
  check_dir(trace_path_, "trace file");
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
  if (roofline_path_) write_file_atomic(*roofline_path_, cost::roofline_svg(report, timed_));
  if (timeline_)
    write_file_atomic(*timeline_path_, timeline_->svg(report, report.at("occupancy").value("blocks_per_sm", 1)));
  if (!trace_) return;
  nlohmann::json other = {{"kernel", report.value("kernel", "")}, {"arch", report.value("arch", "")},
                          {"time_us", t.time_us}, {"cycles", t.cycles}, {"extrapolated", t.extrapolated},
                          {"fraction_timed", t.sampled_fraction},
                          {"covers", t.extrapolated ? "the detailed (timed) window of a sampled launch" : "the whole kernel"}};
  trace_->write_file(*trace_path_, other);
}

}  // namespace kernsim::api
