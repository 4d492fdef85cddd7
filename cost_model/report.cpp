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

void ReportView::on_memory_access(const sim::MemAccessEvent& e) {
  if (e.level != mem::Level::L1 || e.atomic) return;
  Access& a = e.write ? stores_ : loads_;
  ++a.requests;
  a.sectors += e.units;
  a.bytes += e.bytes;
}

void ReportView::on_memory(const mem::MemCounters& c, double dram_busy, double l2_busy, double scale) {
  mem_ = c;
  scale_ = scale;
  dram_busy_ = dram_busy;
  l2_busy_ = l2_busy;
}

json ReportView::to_json(const LaunchFacts& f, const sim::TimingResult& t) const {
  json j;
  j["kernel"] = f.kernel;
  j["arch"] = f.arch;
  j["time_us"] = t.time_us;
  j["cycles"] = t.cycles;
  j["clock_mhz"] = t.clock_mhz > 0 ? t.clock_mhz : dev_.clocks.core_mhz;
  if (t.tensor_busy_fraction >= 0) j["tensor_busy_fraction"] = t.tensor_busy_fraction;  // the wgmma engines' share of SMs x time
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
  if (mem_.tpc_merged_sectors) memj["l2"]["tpc_merged_sectors"] = mem_.tpc_merged_sectors;  // joined the TPC partner's request
  if (mem_.requests[lv(mem::Level::Mall)])  // parts with a memory-side cache (AMD Infinity Cache)
    memj["mall"] = {{"bytes", mem_.bytes[lv(mem::Level::Mall)]}, {"hit_rate", hit(mem::Level::Mall)}};
  memj["dram"] = {{"read_bytes", mem_.dram_read_bytes}, {"write_bytes", mem_.dram_write_bytes}};
  memj["atomics"] = mem_.atomics;
  memj["note"] = t.extrapolated ? "counts cover the whole kernel, scaled from the part timed in detail" : "counts cover the whole kernel";
  j["memory"] = memj;
  // speed of light: achieved vs peak; the counts are the whole kernel's, so over its time when sampled
  const double secs = (t.extrapolated ? t.cycles : window_cycles) / (dev_.clocks.core_mhz * 1e6);
  const double dram_bytes = static_cast<double>(mem_.dram_read_bytes + mem_.dram_write_bytes);
  const double dram_peak = dev_.dram.bandwidth_gbps * 1e9;
  json sol;
  sol["dram_bytes_per_s"] = secs > 0 ? dram_bytes / secs : 0.0;
  sol["dram_pct_of_peak"] = secs > 0 ? 100.0 * dram_bytes / secs / dram_peak : 0.0;
  const double window_secs = window_cycles / (dev_.clocks.core_mhz * 1e6);  // the issued FLOP are the window's
  sol["flops_per_s"] = window_secs > 0 ? flops_ / window_secs : 0.0;
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
  // coalescing of global/local loads and stores: sectors per request against the sectors the
  // bytes asked for would fill
  const double sector = static_cast<double>(std::max<std::int64_t>(1, dev_.l1.sector_bytes));
  // (the whole kernel's, as the memory counters: the timed part's scaled by what it stands for)
  auto whole = [&](std::uint64_t n) { return static_cast<std::uint64_t>(static_cast<double>(n) * scale_ + 0.5); };
  auto co = [&](const Access& a) -> json {
    const double req = static_cast<double>(std::max<std::uint64_t>(1, a.requests));
    return {{"requests", whole(a.requests)}, {"sectors", whole(a.sectors)}, {"bytes", whole(a.bytes)},
            {"sectors_per_request", a.requests ? static_cast<double>(a.sectors) / req : 0.0},
            {"sectors_needed_per_request", a.requests ? std::ceil(static_cast<double>(a.bytes) / sector) / req : 0.0}};
  };
  j["coalescing"] = {{"loads", co(loads_)}, {"stores", co(stores_)}};
  j["explanation"] = explain_bottleneck(j, dev_);
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
  if (j.contains("explanation")) o << "why      " << j["explanation"].get<std::string>() << "\n";
  return o.str();
}

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// A clause for loads or stores that move at least twice the sectors their bytes need ("" when
// neither does): the worse of the two, and its sector traffic against the other kind's.
std::string coalescing_clause(const nlohmann::json& j) {
  if (!j.contains("coalescing")) return "";
  const auto& c = j["coalescing"];
  auto waste = [](const nlohmann::json& a) {
    const double need = a["sectors_needed_per_request"].get<double>();
    return need > 0 ? a["sectors_per_request"].get<double>() / need : 0.0;
  };
  const bool stores_worse = waste(c["stores"]) > waste(c["loads"]);
  const auto& bad = c[stores_worse ? "stores" : "loads"];
  const auto& other = c[stores_worse ? "loads" : "stores"];
  if (waste(bad) < 2.0) return "";
  std::string s = format("; %s are uncoalesced: %.1f sectors per request where %.1f would carry the bytes asked",
                         stores_worse ? "stores" : "loads", bad["sectors_per_request"].get<double>(),
                         bad["sectors_needed_per_request"].get<double>());
  const double os = other["sectors"].get<double>();
  if (os > 0) s += format(", %.1fx the %s' sectors", bad["sectors"].get<double>() / os, stores_worse ? "loads" : "stores");
  return s;
}

// The busiest unit of `tensor` (or not) kind by busy_pct: {name, pct}.
std::pair<std::string, double> busiest_unit(const nlohmann::json& j, bool tensor) {
  std::pair<std::string, double> best{"-", 0.0};
  for (auto it = j["units"].begin(); it != j["units"].end(); ++it) {
    const bool is_tensor = it.key().rfind("tensor", 0) == 0;
    if (is_tensor != tensor || it.key() == "mem" || it.key() == "sync" || it.key() == "nop" || it.key() == "branch") continue;
    if (it.value()["busy_pct"].get<double>() > best.second) best = {it.key(), it.value()["busy_pct"].get<double>()};
  }
  return best;
}

std::string latency_sentence(const nlohmann::json& j, const device::DeviceSpec& dev) {
  const double per_sched = static_cast<double>(dev.sm.max_warps) / std::max<double>(1, static_cast<double>(dev.sm.sub_partitions));
  const double achieved = j["occupancy"]["achieved"].get<double>();
  std::string top = "-", top_res = "dram";
  double top_share = 0, waited = 0, top_util = -1;
  for (auto it = j["stall_reasons"].begin(); it != j["stall_reasons"].end(); ++it) {
    if (it.key() == "idle") continue;
    waited += it.value().get<double>();
    if (it.value().get<double>() > top_share) top_share = it.value().get<double>(), top = it.key();
  }
  for (auto it = j["utilization"].begin(); it != j["utilization"].end(); ++it)
    if (it.value().get<double>() > top_util) top_util = it.value().get<double>(), top_res = it.key();
  std::string s = format("latency-bound: %.3g warps per scheduler (achieved occupancy %.1f%%), no resource busy 60%% of the time "
                         "(busiest %s at %.0f%%)",
                         achieved * per_sched, 100 * achieved, top_res.c_str(), 100 * top_util);
  // shares of the cycles a resident warp waited (idle schedulers apart)
  if (waited > 0) s += format("; %.0f%% of the warps' waiting is %s", 100 * top_share / waited, top.c_str());
  const double idle = j["stall_reasons"].value("idle", 0.0);
  if (idle >= 0.5) s += format("; schedulers had no warp %.0f%% of their stalled cycles", 100 * idle);
  return s;
}

}  // namespace

std::string explain_bottleneck(const nlohmann::json& j, const device::DeviceSpec& dev) {
  const std::string b = j["bottleneck"].get<std::string>();
  const auto& u = j["utilization"];
  const auto& sol = j["speed_of_light"];
  if (b == "launch")
    return format("launch-bound: the kernel body takes %.2f us, less than the %.2f us launch overhead", j["breakdown"]["kernel_us"].get<double>(),
                  j["breakdown"]["launch_overhead_us"].get<double>());
  if (b == "dram")
    return format("HBM-bound: %.2f TB/s of the part's %.2f TB/s (HBM busy %.0f%% of the time)", sol["dram_bytes_per_s"].get<double>() / 1e12,
                  dev.dram.bandwidth_gbps / 1e3, 100 * u["dram"].get<double>()) +
           coalescing_clause(j);
  if (b == "l2") {
    const auto& hr = j["memory"]["l2"]["hit_rate"];
    return format("L2-bound: the L2 busy %.0f%% of the time, %.1f MB through it, hit rate %s", 100 * u["l2"].get<double>(),
                  j["memory"]["l2"]["bytes"].get<double>() / 1e6,
                  hr.is_null() ? "-" : format("%.0f%%", 100 * hr.get<double>()).c_str()) +
           coalescing_clause(j);
  }
  if (b == "shared")
    return format("shared-memory-bound: the banks busy %.0f%% of the time, %.1f wavefronts per conflict-free one",
                  100 * u["shared"].get<double>(), j["memory"]["shared"]["bank_conflict_factor"].get<double>());
  if (b == "compute" || b == "tensor") {
    const auto [name, pct] = busiest_unit(j, b == "tensor");
    return format("%s-bound: the %s pipe busy %.0f%% of the scheduler cycles, %.1f TFLOP/s", b.c_str(), name.c_str(), pct,
                  sol["flops_per_s"].get<double>() / 1e12);
  }
  return latency_sentence(j, dev);
}

}  // namespace kernsim::cost
