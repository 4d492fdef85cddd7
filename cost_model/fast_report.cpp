// The fast tier's report; see fast_report.h.
#include "cost_model/fast_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kernsim::cost {

using nlohmann::json;

json fast_report_json(const LaunchFacts& f, const FastPrediction& r, const KernelProfile& p, const LaunchGeometry& g,
                      const device::DeviceSpec& dev) {
  json j;
  j["tier"] = "fast";
  j["kernel"] = f.kernel;
  j["arch"] = f.arch;
  j["time_us"] = r.time_us;
  j["cycles"] = r.cycles;
  j["clock_mhz"] = dev.clocks.core_mhz;
  if (!f.id.empty()) j["id"] = f.id;
  if (!f.family.empty()) j["family"] = f.family;
  j["launch"] = {{"grid", {f.grid[0], f.grid[1], f.grid[2]}}, {"block", {f.block[0], f.block[1], f.block[2]}},
                 {"dynamic_shared_bytes", f.dynamic_shared},  {"registers_per_thread", f.registers},
                 {"registers_source", f.registers_source},    {"static_shared_bytes", f.static_shared}};
  j["breakdown"] = {{"kernel_us", r.kernel_us}, {"launch_overhead_us", r.launch_us}};
  const double ctas = static_cast<double>(f.grid[0] * f.grid[1] * f.grid[2]);
  j["sampling"] = {{"extrapolated", true},
                   {"fraction_timed", 0.0},
                   {"warp_instructions_timed", 0},
                   {"warp_instructions_estimated", p.warp_insts * ctas},
                   {"ctas", static_cast<std::uint64_t>(ctas)},
                   {"ctas_timed", 0},
                   {"ctas_sampled", p.ctas_sampled},
                   {"warp_instructions_sampled", p.warp_insts_executed},
                   {"note", "fast tier: " + std::to_string(p.ctas_sampled) +
                                " CTA(s) executed functionally, the time from an analytical model"}};
  j["occupancy"] = {{"theoretical", r.occupancy.theoretical},
                    {"blocks_per_sm", r.occupancy.blocks_per_unit},
                    {"limiter", r.occupancy.limiter},
                    {"achieved", nullptr}};
  const double sms = static_cast<double>(dev.sm.count), subs = static_cast<double>(dev.sm.sub_partitions);
  const double window = std::max(1.0, r.cycles) * sms * subs;
  j["issue_utilization"] = std::min(1.0, p.issue_slots * ctas / window);
  json units = json::object();
  for (int u = 0; u < kUnits; ++u) {
    if (p.unit_insts[static_cast<std::size_t>(u)] <= 0) continue;
    units[isa::to_string(static_cast<isa::Unit>(u))] = {
        {"instructions", p.unit_insts[static_cast<std::size_t>(u)] * ctas},
        {"busy_pct", 100.0 * p.unit_busy[static_cast<std::size_t>(u)] * ctas / window}};
  }
  j["units"] = units;
  j["stall_reasons"] = json::object();
  const double sector = static_cast<double>(dev.l1.sector_bytes);
  json m;
  m["l1"] = {{"bytes", (p.load_sectors + p.store_sectors) * sector * ctas},
             {"hit_rate", p.load_sectors > 0 ? json(r.l1_hit_rate) : json(nullptr)}};
  m["shared"] = {{"bytes", nullptr}, {"wavefronts", p.shared_wavefronts * ctas}, {"bank_conflict_factor", nullptr}};
  m["l2"] = {{"bytes", r.l2_bytes}, {"hit_rate", r.l2_bytes > 0 ? json(r.l2_hit_rate) : json(nullptr)}};
  m["dram"] = {{"read_bytes", r.dram_read_bytes}, {"write_bytes", r.dram_write_bytes}};
  m["atomics"] = p.atomic_insts * ctas;
  m["note"] = "fast tier: the sample's counts scaled to the whole grid";
  j["memory"] = m;
  const double secs = r.kernel_us * 1e-6;
  const double peak = dev.dram.bandwidth_gbps * 1e9;
  json sol;
  sol["dram_bytes_per_s"] = secs > 0 ? (r.dram_read_bytes + r.dram_write_bytes) / secs : 0.0;
  sol["dram_pct_of_peak"] = secs > 0 ? 100.0 * (r.dram_read_bytes + r.dram_write_bytes) / secs / peak : 0.0;
  sol["flops_per_s"] = secs > 0 ? p.flops * ctas / secs : 0.0;
  if (f.flops) sol["spec_flops_per_s"] = *f.flops / (r.time_us * 1e-6);
  if (f.min_bytes) {
    sol["spec_bytes_per_s"] = *f.min_bytes / (r.time_us * 1e-6);
    sol["spec_bytes_pct_of_dram_peak"] = 100.0 * (*f.min_bytes / (r.time_us * 1e-6)) / peak;
  }
  j["speed_of_light"] = sol;
  j["bottleneck"] = r.bottleneck;
  json util = json::object(), terms = json::object();
  for (const FastTerm& t : r.terms) {
    terms[t.name] = t.cycles;
    util[t.name] = r.cycles > 0 ? t.cycles / r.cycles : 0.0;
  }
  j["utilization"] = util;
  j["fast"] = {{"terms_cycles", terms},
               {"l2_hit_rate", r.l2_hit_rate},
               {"ctas_per_sm", r.ctas_per_sm},
               {"rounds", r.rounds},
               {"path_cycles", p.path_cycles},
               {"path_miss_loads", p.path_miss_loads},
               {"complete", p.complete},
               {"coefficients",
                {{"overlap_exponent", dev.fast.overlap_exponent},
                 {"latency_scale", dev.fast.latency_scale},
                 {"l2_reuse_fraction", dev.fast.l2_reuse_fraction}}},
               {"profile", profile_to_json(p, g)}};
  j["thread_instructions"] = p.thread_insts * ctas;
  return j;
}

std::string fast_report_text(const json& j) {
  std::ostringstream o;
  char buf[256];
  std::snprintf(buf, sizeof buf, "kernel   %s on %s (fast tier)\n", j["kernel"].get<std::string>().c_str(),
                j["arch"].get<std::string>().c_str());
  o << buf;
  std::snprintf(buf, sizeof buf, "time     %.2f us  (%.0f cycles at %.0f MHz + %.2f us launch)\n",
                j["time_us"].get<double>(), j["cycles"].get<double>(), j["clock_mhz"].get<double>(),
                j["breakdown"]["launch_overhead_us"].get<double>());
  o << buf;
  o << "sampling " << j["sampling"]["note"].get<std::string>() << "\n";
  std::snprintf(buf, sizeof buf, "occupancy theoretical %.0f%% (%d blocks/SM, limited by %s)\n",
                100 * j["occupancy"]["theoretical"].get<double>(), j["occupancy"]["blocks_per_sm"].get<int>(),
                j["occupancy"]["limiter"].get<std::string>().c_str());
  o << buf;
  o << "terms   ";
  for (auto it = j["fast"]["terms_cycles"].begin(); it != j["fast"]["terms_cycles"].end(); ++it) {
    std::snprintf(buf, sizeof buf, " %s %.0f", it.key().c_str(), it.value().get<double>());
    o << buf;
  }
  const auto& m = j["memory"];
  std::snprintf(buf, sizeof buf, " (cycles)\nmemory   L2 %.1f MB  DRAM read %.1f MB write %.1f MB\n",
                m["l2"]["bytes"].get<double>() / 1e6, m["dram"]["read_bytes"].get<double>() / 1e6,
                m["dram"]["write_bytes"].get<double>() / 1e6);
  o << buf;
  std::snprintf(buf, sizeof buf, "bound    %s\n", j["bottleneck"].get<std::string>().c_str());
  o << buf;
  return o.str();
}

json profile_to_json(const KernelProfile& p, const LaunchGeometry& g) {
  json j;
  j["warps_per_cta"] = p.warps_per_cta;
  j["ctas_sampled"] = p.ctas_sampled;
  j["warp_insts"] = p.warp_insts;
  j["thread_insts"] = p.thread_insts;
  j["issue_slots"] = p.issue_slots;
  j["flops"] = p.flops;
  j["alt_busy"] = p.alt_busy;
  j["load_insts"] = p.load_insts;
  j["store_insts"] = p.store_insts;
  j["atomic_insts"] = p.atomic_insts;
  j["load_sectors"] = p.load_sectors;
  j["store_sectors"] = p.store_sectors;
  j["load_lines"] = p.load_lines;
  j["store_lines"] = p.store_lines;
  j["store_partial_sectors"] = p.store_partial_sectors;
  j["l1_hit_sectors"] = p.l1_hit_sectors;
  j["l1_hit_lines"] = p.l1_hit_lines;
  j["reread_sectors"] = p.reread_sectors;
  j["atomic_requests"] = p.atomic_requests;
  j["atomic_hot_address_ops"] = p.atomic_hot_address_ops;
  j["atomic_lines"] = p.atomic_lines;
  j["atomic_float_share"] = p.atomic_float_share;
  j["atomic_hot_shared"] = p.atomic_hot_shared;
  j["shared_insts"] = p.shared_insts;
  j["shared_wavefronts"] = p.shared_wavefronts;
  j["barriers"] = p.barriers;
  j["path_cycles"] = p.path_cycles;
  j["path_miss_loads"] = p.path_miss_loads;
  j["nominal_miss_cycles"] = p.nominal_miss_cycles;
  j["complete"] = p.complete;
  j["warp_insts_executed"] = p.warp_insts_executed;
  json ub = json::object(), ui = json::object();
  for (int u = 0; u < kUnits; ++u) {
    if (p.unit_insts[static_cast<std::size_t>(u)] <= 0 && p.unit_busy[static_cast<std::size_t>(u)] <= 0) continue;
    ub[isa::to_string(static_cast<isa::Unit>(u))] = p.unit_busy[static_cast<std::size_t>(u)];
    ui[isa::to_string(static_cast<isa::Unit>(u))] = p.unit_insts[static_cast<std::size_t>(u)];
  }
  j["unit_busy"] = ub;
  j["unit_insts"] = ui;
  for (const BufferUse& b : p.buffers)
    j["buffers"].push_back({b.size_bytes, b.read_bytes_per_cta, b.write_bytes_per_cta});
  j["geometry"] = {{"ctas", g.ctas},
                   {"threads_per_block", g.threads_per_block},
                   {"registers_per_thread", g.registers_per_thread},
                   {"shared_per_block", g.shared_per_block}};
  return j;
}

void profile_from_json(const json& j, KernelProfile& p, LaunchGeometry& g) {
  j.at("warps_per_cta").get_to(p.warps_per_cta);
  j.at("ctas_sampled").get_to(p.ctas_sampled);
  j.at("warp_insts").get_to(p.warp_insts);
  j.at("thread_insts").get_to(p.thread_insts);
  j.at("issue_slots").get_to(p.issue_slots);
  j.at("flops").get_to(p.flops);
  j.at("alt_busy").get_to(p.alt_busy);
  j.at("load_insts").get_to(p.load_insts);
  j.at("store_insts").get_to(p.store_insts);
  j.at("atomic_insts").get_to(p.atomic_insts);
  j.at("load_sectors").get_to(p.load_sectors);
  j.at("store_sectors").get_to(p.store_sectors);
  j.at("load_lines").get_to(p.load_lines);
  j.at("store_lines").get_to(p.store_lines);
  j.at("store_partial_sectors").get_to(p.store_partial_sectors);
  j.at("l1_hit_sectors").get_to(p.l1_hit_sectors);
  j.at("l1_hit_lines").get_to(p.l1_hit_lines);
  j.at("reread_sectors").get_to(p.reread_sectors);
  j.at("atomic_requests").get_to(p.atomic_requests);
  j.at("atomic_hot_address_ops").get_to(p.atomic_hot_address_ops);
  j.at("atomic_lines").get_to(p.atomic_lines);
  j.at("atomic_float_share").get_to(p.atomic_float_share);
  j.at("atomic_hot_shared").get_to(p.atomic_hot_shared);
  j.at("shared_insts").get_to(p.shared_insts);
  j.at("shared_wavefronts").get_to(p.shared_wavefronts);
  j.at("barriers").get_to(p.barriers);
  j.at("path_cycles").get_to(p.path_cycles);
  j.at("path_miss_loads").get_to(p.path_miss_loads);
  j.at("nominal_miss_cycles").get_to(p.nominal_miss_cycles);
  j.at("complete").get_to(p.complete);
  p.warp_insts_executed = j.value("warp_insts_executed", p.warp_insts * p.ctas_sampled);
  for (int u = 0; u < kUnits; ++u) {
    const char* name = isa::to_string(static_cast<isa::Unit>(u));
    if (j.at("unit_busy").contains(name)) j["unit_busy"][name].get_to(p.unit_busy[static_cast<std::size_t>(u)]);
    if (j.at("unit_insts").contains(name)) j["unit_insts"][name].get_to(p.unit_insts[static_cast<std::size_t>(u)]);
  }
  p.buffers.clear();
  if (j.contains("buffers"))
    for (const auto& b : j["buffers"])
      p.buffers.push_back({b[0].get<double>(), b[1].get<double>(), b[2].get<double>()});
  const json& x = j.at("geometry");
  x.at("ctas").get_to(g.ctas);
  x.at("threads_per_block").get_to(g.threads_per_block);
  x.at("registers_per_thread").get_to(g.registers_per_thread);
  x.at("shared_per_block").get_to(g.shared_per_block);
}

}  // namespace kernsim::cost
