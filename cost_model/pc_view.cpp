// The per-PC view; see pc_view.h.
#include "cost_model/pc_view.h"

#include <cstdio>

namespace kernsim::cost {

using nlohmann::json;

PcView::Pc& PcView::at(std::uint32_t pc) {
  if (pc >= pcs_.size()) pcs_.resize(static_cast<std::size_t>(pc) + 1);
  Pc& p = pcs_[pc];
  p.seen = true;
  return p;
}

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

json PcView::stall_cycles_without_pc() const { return stall_object(unattributed_); }

void PcView::add_to(json& report, const sim::TimingResult& t) const {
  report["by_pc"] = by_pc();
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
