// The per-PC view; see pc_view.h.
#include "cost_model/pc_view.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <tuple>

namespace kernsim::cost {

using nlohmann::json;

void PcView::grow(std::uint32_t pc) { pcs_.resize(static_cast<std::size_t>(pc) + 1); }

void PcView::on_issue(const sim::IssueEvent& e) {
  Pc& p = at(e.pc);
  ++p.issued;
  p.threads += static_cast<std::uint64_t>(e.lanes);
}

void PcView::on_stall(const sim::StallEvent& e) {
  const int why = static_cast<int>(e.why);
  if (e.pc == sim::kNoPc) unattributed_[why] += e.cycles;
  else at(e.pc).stall[why] += e.cycles;
}

void PcView::on_memory_access(const sim::MemAccessEvent& e) {
  Pc& p = at(e.pc);
  Mem& m = e.level == mem::Level::Shared ? p.shared : p.l1;
  ++m.accesses;
  m.bytes += e.bytes;
  m.units += e.units;
  m.latency += e.done - e.issue;
}

namespace {

json stall_object(const std::array<double, static_cast<int>(sim::Stall::kCount)>& s) {
  json o = json::object();
  for (int r = 0; r < static_cast<int>(sim::Stall::kCount); ++r)
    if (s[r] > 0) o[sim::to_string(static_cast<sim::Stall>(r))] = s[r];
  return o;
}

}  // namespace

json PcView::by_pc() const {
  json rows = json::array();
  for (std::uint32_t pc = 0; pc < pcs_.size(); ++pc) {
    const Pc& p = pcs_[pc];
    if (!p.seen) continue;
    json r;
    r["pc"] = pc;
    if (listing_ && pc < listing_->size()) {
      const InstText& t = (*listing_)[pc];
      r["inst"] = t.text;
      if (t.line) r["line"] = t.line;
      if (t.addr) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(*t.addr));
        r["addr"] = buf;
      }
    }
    r["issued"] = p.issued;
    r["threads"] = p.threads;
    r["stall_cycles"] = stall_object(p.stall);
    double total = 0;
    for (double s : p.stall) total += s;
    r["stall_cycles_total"] = total;
    json memj = json::object();
    auto add = [&](const char* level, const char* units, const Mem& m) {
      if (!m.accesses) return;
      memj[level] = {{"accesses", m.accesses}, {"bytes", m.bytes}, {units, m.units},
                     {"avg_latency_cycles", m.latency / static_cast<double>(m.accesses)}};
    };
    add("l1", "sectors", p.l1);
    add("shared", "wavefronts", p.shared);
    if (!memj.empty()) r["memory"] = memj;
    rows.push_back(std::move(r));
  }
  return rows;
}

json PcView::by_line() const {
  struct Row {
    std::uint64_t pcs = 0, issued = 0, threads = 0;
    std::array<double, kStalls> stall{};
    Mem l1, shared;
  };
  std::map<std::pair<std::string, std::uint32_t>, Row> lines;
  for (std::uint32_t pc = 0; listing_ && pc < pcs_.size() && pc < listing_->size(); ++pc) {
    const Pc& p = pcs_[pc];
    const InstText& t = (*listing_)[pc];
    if (!p.seen || t.file.empty() || !t.source_line) continue;
    Row& r = lines[{t.file, t.source_line}];
    ++r.pcs;
    r.issued += p.issued;
    r.threads += p.threads;
    for (int k = 0; k < kStalls; ++k) r.stall[k] += p.stall[k];
    for (auto [to, from] : {std::pair<Mem*, const Mem*>{&r.l1, &p.l1}, {&r.shared, &p.shared}}) {
      to->accesses += from->accesses;
      to->bytes += from->bytes;
      to->units += from->units;
    }
  }
  std::vector<json> rows;
  for (const auto& [key, r] : lines) {
    double total = 0;
    for (double s : r.stall) total += s;
    json row = {{"file", key.first}, {"line", key.second}, {"pcs", r.pcs}, {"issued", r.issued}, {"threads", r.threads},
                {"stall_cycles", stall_object(r.stall)}, {"stall_cycles_total", total},
                {"cycles", static_cast<double>(r.issued) + total}};
    json memj = json::object();
    if (r.l1.accesses) memj["l1"] = {{"requests", r.l1.accesses}, {"bytes", r.l1.bytes}, {"sectors", r.l1.units}};
    if (r.shared.accesses) memj["shared"] = {{"requests", r.shared.accesses}, {"bytes", r.shared.bytes}, {"wavefronts", r.shared.units}};
    if (!memj.empty()) row["memory"] = memj;
    rows.push_back(std::move(row));
  }
  // std::map gave file/line order; a stable sort keeps it among equal cycles
  std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) { return a["cycles"].get<double>() > b["cycles"].get<double>(); });
  return json(rows);
}

namespace {

// Line `n` (1-based) of `path`, tidied; "" when the file or the line cannot be read.
std::string source_text(std::map<std::string, std::vector<std::string>>& files, const std::string& path, std::uint64_t n) {
  auto it = files.find(path);
  if (it == files.end()) {
    std::vector<std::string> text;
    std::ifstream in(path);
    for (std::string l; in && std::getline(in, l);) text.push_back(std::move(l));
    it = files.emplace(path, std::move(text)).first;
  }
  if (n == 0 || n > it->second.size()) return "";
  std::string out;
  for (char c : it->second[n - 1]) {
    if (c == '\t' || c == '\r') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.size() > 70 ? out.substr(0, 67) + "..." : out;
}

}  // namespace

std::string by_line_text(const json& report, int top) {
  if (!report.contains("by_line") || report["by_line"].empty()) return "";
  const json& rows = report["by_line"];
  double all = 0;
  for (const auto& r : rows) all += r["cycles"].get<double>();
  std::map<std::string, std::vector<std::string>> files;
  std::string o = "lines    top " + std::to_string(std::min<std::size_t>(top, rows.size())) + " of " + std::to_string(rows.size()) +
                  " source lines by scheduler cycles (issued + stalled)\n";
  char buf[512];
  for (std::size_t i = 0; i < rows.size() && i < static_cast<std::size_t>(top); ++i) {
    const json& r = rows[i];
    const std::string path = r["file"].get<std::string>();
    const std::string where = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1) + ":" +
                              std::to_string(r["line"].get<std::uint64_t>());
    std::string worst = "-";
    double worst_c = 0;
    for (auto it = r["stall_cycles"].begin(); it != r["stall_cycles"].end(); ++it)
      if (it.value().get<double>() > worst_c) worst_c = it.value().get<double>(), worst = it.key();
    std::string mem;
    if (r.contains("memory") && r["memory"].contains("l1")) {
      const json& l1 = r["memory"]["l1"];
      std::snprintf(buf, sizeof buf, "  %.1f sectors/req", l1["sectors"].get<double>() / std::max(1.0, l1["requests"].get<double>()));
      mem = buf;
    }
    std::snprintf(buf, sizeof buf, "  %-22s %5.1f%%  issued %-9llu stalled most on %s%s\n           %s\n", where.c_str(),
                  all > 0 ? 100.0 * r["cycles"].get<double>() / all : 0.0,
                  static_cast<unsigned long long>(r["issued"].get<std::uint64_t>()), worst.c_str(), mem.c_str(),
                  source_text(files, path, r["line"].get<std::uint64_t>()).c_str());
    o += buf;
  }
  return o;
}

json PcView::stall_cycles_without_pc() const { return stall_object(unattributed_); }

void PcView::add_to(json& report, const sim::TimingResult& t) const {
  report["by_pc"] = by_pc();
  report["by_line"] = by_line();
  std::string note = t.extrapolated
                         ? "counts cover the detailed window only (the launch was sampled; they are not scaled to the whole kernel)"
                         : "counts cover the whole kernel";
  json covers = {{"whole_kernel", !t.extrapolated}, {"fraction_timed", t.sampled_fraction},
                 {"warp_instructions", t.warp_insts_timed}, {"note", note}};
  if (t.sms_simulated > 0) covers["sms_simulated"] = t.sms_simulated;
  report["by_pc_covers"] = covers;
  report["stall_cycles_without_pc"] = stall_cycles_without_pc();
}

}  // namespace kernsim::cost
