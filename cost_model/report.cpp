// The report view; see report.h.
#include "cost_model/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kernsim::cost {

using nlohmann::json;

ReportView::ReportView(const device::DeviceSpec& dev) : dev_(dev) {}

void ReportView::on_issue(const sim::IssueEvent& e) {
  const int u = static_cast<int>(e.unit);
  busy_[u] += e.issue_cycles;
  ++issued_[u];
  ++warp_insts_;
  thread_insts_ += static_cast<std::uint64_t>(e.lanes);
  flops_ += e.flops;
}

void ReportView::on_stall(const sim::StallEvent& e) { stalls_[static_cast<int>(e.why)] += e.cycles; }

void ReportView::on_cta(int, std::uint64_t, double, double end) {
  ++ctas_;
  max_end_ = std::max(max_end_, end);
}

void ReportView::on_residency(int, int warps, double from, double to) { warp_cycles_ += warps * (to - from); }

void ReportView::on_memory(const mem::MemCounters& c, double dram_busy, double l2_busy) {
  mem_ = c;
  dram_busy_ = dram_busy;
  l2_busy_ = l2_busy;
}

json ReportView::to_json(const LaunchFacts& f, const sim::TimingResult& t) const {
  json j;
  j["kernel"] = f.kernel;
  j["arch"] = f.arch;
  j["time_us"] = t.time_us;
  j["cycles"] = t.cycles;
  j["clock_mhz"] = dev_.clocks.core_mhz;
  if (!f.id.empty()) j["id"] = f.id;
  if (!f.family.empty()) j["family"] = f.family;
  j["launch"] = {{"grid", {f.grid[0], f.grid[1], f.grid[2]}}, {"block", {f.block[0], f.block[1], f.block[2]}},
                 {"dynamic_shared_bytes", f.dynamic_shared}, {"registers_per_thread", f.registers},
                 {"registers_source", f.registers_source}, {"static_shared_bytes", f.static_shared}};
  const double detailed = std::max(1.0, t.extrapolated ? (t.cycles * t.sampled_fraction) : t.cycles);
  // the detailed window's length: cycles the listener saw
  double window = 0;
  for (double s : stalls_) window += s;
  // per-SM figures over the SMs the model ran (an SM slice runs fewer than the part has)
  const double sms = static_cast<double>(t.sms_simulated > 0 ? t.sms_simulated : dev_.sm.count);
  const double schedulers = sms * static_cast<double>(dev_.sm.sub_partitions);
  for (double b : busy_) (void)b;
  double issue_cycles_total = static_cast<double>(warp_insts_);
  const double window_cycles = window_ > 0 ? window_ : (window + issue_cycles_total) / std::max(1.0, schedulers);
  (void)detailed;
  j["breakdown"] = {{"kernel_us", t.kernel_us}, {"launch_overhead_us", t.launch_us}};
  json samp = {{"extrapolated", t.extrapolated}, {"fraction_timed", t.sampled_fraction},
               {"warp_instructions_timed", t.warp_insts_timed}, {"warp_instructions_estimated", t.warp_insts_estimated},
               {"ctas", t.ctas_total}, {"ctas_timed", t.ctas_timed}, {"note", t.sampling_note}};
  j["sampling"] = samp;
  const double max_warps = static_cast<double>(dev_.sm.max_warps) * sms;
  j["occupancy"] = {{"theoretical", t.occupancy.theoretical}, {"blocks_per_sm", t.occupancy.blocks_per_unit},
                    {"limiter", t.occupancy.limiter},
                    {"achieved", window_cycles > 0 ? warp_cycles_ / (window_cycles * max_warps) : 0.0}};
  j["issue_utilization"] = window_cycles > 0 ? issue_cycles_total / (window_cycles * schedulers) : 0.0;
  json units = json::object();
  for (int u = 0; u < static_cast<int>(isa::Unit::kCount); ++u) {
    if (!issued_[u]) continue;
    units[isa::to_string(static_cast<isa::Unit>(u))] = {
        {"instructions", issued_[u]}, {"busy_pct", window_cycles > 0 ? 100.0 * busy_[u] / (window_cycles * schedulers) : 0.0}};
  }
  j["units"] = units;
  json stalls = json::object();
  double stall_total = 0;
  for (double s : stalls_) stall_total += s;
  for (int s = 0; s < static_cast<int>(sim::Stall::kCount); ++s)
    stalls[sim::to_string(static_cast<sim::Stall>(s))] = stall_total > 0 ? stalls_[s] / stall_total : 0.0;
  j["stall_reasons"] = stalls;
  // memory
  auto lv = [&](mem::Level l) { return static_cast<int>(l); };
  json memj;
  auto hit = [&](mem::Level l) -> json {
    const auto r = mem_.requests[lv(l)];
    return r ? json(static_cast<double>(mem_.hits[lv(l)]) / static_cast<double>(r)) : json(nullptr);
  };
  memj["l1"] = {{"bytes", mem_.bytes[lv(mem::Level::L1)]}, {"hit_rate", hit(mem::Level::L1)}};
  memj["shared"] = {{"bytes", mem_.bytes[lv(mem::Level::Shared)]}, {"wavefronts", mem_.shared_wavefronts},
                    {"bank_conflict_factor", mem_.shared_ideal_wavefronts ? static_cast<double>(mem_.shared_wavefronts) / static_cast<double>(mem_.shared_ideal_wavefronts) : 1.0}};
  memj["l2"] = {{"bytes", mem_.bytes[lv(mem::Level::L2)]}, {"hit_rate", hit(mem::Level::L2)}};
  if (mem_.requests[lv(mem::Level::Mall)])  // parts with a memory-side cache (AMD Infinity Cache)
    memj["mall"] = {{"bytes", mem_.bytes[lv(mem::Level::Mall)]}, {"hit_rate", hit(mem::Level::Mall)}};
  memj["dram"] = {{"read_bytes", mem_.dram_read_bytes}, {"write_bytes", mem_.dram_write_bytes}};
  memj["atomics"] = mem_.atomics;
  memj["note"] = t.extrapolated ? "counts cover the detailed window only" : "counts cover the whole kernel";
  j["memory"] = memj;
  // speed of light: achieved vs peak, over the detailed window
  const double secs = window_cycles / (dev_.clocks.core_mhz * 1e6);
  const double dram_bytes = static_cast<double>(mem_.dram_read_bytes + mem_.dram_write_bytes);
  const double dram_peak = dev_.dram.bandwidth_gbps * 1e9;
  json sol;
  sol["dram_bytes_per_s"] = secs > 0 ? dram_bytes / secs : 0.0;
  sol["dram_pct_of_peak"] = secs > 0 ? 100.0 * dram_bytes / secs / dram_peak : 0.0;
  sol["flops_per_s"] = secs > 0 ? flops_ / secs : 0.0;
  if (f.flops) sol["spec_flops_per_s"] = *f.flops / (t.time_us * 1e-6);
  if (f.min_bytes) {
    sol["spec_bytes_per_s"] = *f.min_bytes / (t.time_us * 1e-6);
    sol["spec_bytes_pct_of_dram_peak"] = 100.0 * (*f.min_bytes / (t.time_us * 1e-6)) / dram_peak;
  }
  j["speed_of_light"] = sol;
  // bottleneck: the most utilised resource
  struct Cand { const char* name; double util; };
  const double dram_util = window_cycles > 0 ? dram_busy_ / window_cycles : 0;
  const double l2_util = window_cycles > 0 ? l2_busy_ / window_cycles : 0;
  const double smem_util = window_cycles > 0 ? static_cast<double>(mem_.shared_wavefronts) / (window_cycles * dev_.sm.count) : 0;
  double alu = 0, tensor = 0;
  for (int u = 0; u < static_cast<int>(isa::Unit::kCount); ++u) {
    const double util = window_cycles > 0 ? busy_[u] / (window_cycles * schedulers) : 0;
    const auto unit = static_cast<isa::Unit>(u);
    if (unit == isa::Unit::TensorF16 || unit == isa::Unit::TensorTf32 || unit == isa::Unit::TensorI8 ||
        unit == isa::Unit::TensorFp8 || unit == isa::Unit::TensorF64)
      tensor = std::max(tensor, util);
    else if (unit != isa::Unit::Mem && unit != isa::Unit::Sync && unit != isa::Unit::Nop && unit != isa::Unit::Branch)
      alu = std::max(alu, util);
  }
  Cand c[] = {{"dram", dram_util}, {"l2", l2_util}, {"shared", smem_util}, {"compute", alu}, {"tensor", tensor}};
  const Cand* best = &c[0];
  for (const auto& x : c)
    if (x.util > best->util) best = &x;
  // A report policy, not a hardware number: a resource busy at least this share of the window
  // names the bottleneck; below it no resource is near its limit, so the time is latency (warps
  // waiting on dependences). 0.6 is a judgement, neither measured nor fitted: it leaves room for
  // the ramp-up and tail of a launch, which keep even a bandwidth-bound kernel's resource idle
  // for part of the window.
  constexpr double kBottleneckUtilization = 0.6;
  std::string bottleneck = best->util >= kBottleneckUtilization ? best->name : "latency";
  if (t.launch_us > t.kernel_us) bottleneck = "launch";
  j["bottleneck"] = bottleneck;
  j["utilization"] = {{"dram", dram_util}, {"l2", l2_util}, {"shared", smem_util}, {"compute", alu}, {"tensor", tensor}};
  j["thread_instructions"] = f.thread_instructions;
  return j;
}

std::string ReportView::text(const json& j) const {
  std::ostringstream o;
  char buf[256];
  std::snprintf(buf, sizeof buf, "kernel   %s on %s\n", j["kernel"].get<std::string>().c_str(), j["arch"].get<std::string>().c_str());
  o << buf;
  std::snprintf(buf, sizeof buf, "time     %.2f us  (%.0f cycles at %.0f MHz + %.2f us launch)\n", j["time_us"].get<double>(),
                j["cycles"].get<double>(), j["clock_mhz"].get<double>(), j["breakdown"]["launch_overhead_us"].get<double>());
  o << buf;
  const auto& s = j["sampling"];
  std::snprintf(buf, sizeof buf, "sampling %s (%.1f%% of warp instructions timed in detail)\n",
                s["extrapolated"].get<bool>() ? "extrapolated" : "full", 100.0 * s["fraction_timed"].get<double>());
  o << buf;
  std::snprintf(buf, sizeof buf, "occupancy theoretical %.0f%% (%d blocks/SM, limited by %s), achieved %.0f%%\n",
                100 * j["occupancy"]["theoretical"].get<double>(), j["occupancy"]["blocks_per_sm"].get<int>(),
                j["occupancy"]["limiter"].get<std::string>().c_str(), 100 * j["occupancy"]["achieved"].get<double>());
  o << buf;
  std::snprintf(buf, sizeof buf, "issue    %.0f%% of scheduler slots\n", 100 * j["issue_utilization"].get<double>());
  o << buf;
  o << "units   ";
  for (auto it = j["units"].begin(); it != j["units"].end(); ++it) {
    std::snprintf(buf, sizeof buf, " %s %.0f%%", it.key().c_str(), it.value()["busy_pct"].get<double>());
    o << buf;
  }
  o << "\nstalls  ";
  for (auto it = j["stall_reasons"].begin(); it != j["stall_reasons"].end(); ++it) {
    if (it.value().get<double>() < 0.005) continue;
    std::snprintf(buf, sizeof buf, " %s %.0f%%", it.key().c_str(), 100 * it.value().get<double>());
    o << buf;
  }
  const auto& m = j["memory"];
  auto hr = [](const nlohmann::json& v) { return v.is_null() ? std::string("-") : std::to_string(static_cast<int>(std::lround(100 * v.get<double>()))) + "%"; };
  std::snprintf(buf, sizeof buf, "\nmemory   L1 %.1f MB (hit %s)  L2 %.1f MB (hit %s)  DRAM read %.1f MB write %.1f MB\n",
                m["l1"]["bytes"].get<double>() / 1e6, hr(m["l1"]["hit_rate"]).c_str(), m["l2"]["bytes"].get<double>() / 1e6,
                hr(m["l2"]["hit_rate"]).c_str(), m["dram"]["read_bytes"].get<double>() / 1e6, m["dram"]["write_bytes"].get<double>() / 1e6);
  o << buf;
  if (m.contains("mall")) {
    std::snprintf(buf, sizeof buf, "         MALL %.1f MB (hit %s)\n", m["mall"]["bytes"].get<double>() / 1e6, hr(m["mall"]["hit_rate"]).c_str());
    o << buf;
  }
  const auto& sol = j["speed_of_light"];
  std::snprintf(buf, sizeof buf, "SOL      DRAM %.0f%% of peak (%.0f GB/s), %.1f TFLOP/s", sol["dram_pct_of_peak"].get<double>(),
                sol["dram_bytes_per_s"].get<double>() / 1e9, sol["flops_per_s"].get<double>() / 1e12);
  o << buf;
  if (sol.contains("spec_bytes_per_s")) {
    std::snprintf(buf, sizeof buf, "; spec min_bytes at %.0f GB/s", sol["spec_bytes_per_s"].get<double>() / 1e9);
    o << buf;
  }
  std::snprintf(buf, sizeof buf, "\nbound    %s\n", j["bottleneck"].get<std::string>().c_str());
  o << buf;
  return o.str();
}

}  // namespace kernsim::cost
