// kernsim::cost::ReportView — the listener that turns the timing model's events into the
// report users read: time, cycles, occupancy, issue utilisation, busy % per unit, stall
// reasons, bytes and hit rates per level, achieved FLOP/s and bytes/s against peak, and a
// one-word bottleneck.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>

#include "device/device_spec.h"
#include "sim/timing/listener.h"
#include "sim/timing/timing.h"

namespace kernsim::cost {

struct LaunchFacts {
  std::string kernel, arch, source, id, family;
  std::int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::int64_t dynamic_shared = 0;
  int registers = 0;
  std::string registers_source;
  std::int64_t static_shared = 0;
  std::optional<double> flops, min_bytes;      // from the spec
  std::uint64_t thread_instructions = 0;
};

class ReportView : public sim::Listener {
 public:
  explicit ReportView(const device::DeviceSpec& dev);

  void on_issue(const sim::IssueEvent& e) override;
  void on_stall(const sim::StallEvent& e) override;
  void on_cta(int sm, std::uint64_t cta, double start, double end) override;
  void on_residency(int sm, int warps, double from, double to) override;
  void on_memory(const mem::MemCounters& c, double dram_busy, double l2_busy, double scale) override;
  void on_window(double cycles) override { window_ = cycles; }
  void on_memory_access(const sim::MemAccessEvent& e) override;

  nlohmann::json to_json(const LaunchFacts& f, const sim::TimingResult& t) const;
  std::string text(const nlohmann::json& j) const;

 private:
  const device::DeviceSpec& dev_;
  std::array<double, static_cast<int>(isa::Unit::kCount)> busy_{};
  std::array<std::uint64_t, static_cast<int>(isa::Unit::kCount)> issued_{};
  std::array<double, static_cast<int>(sim::Stall::kCount)> stalls_{};
  std::uint64_t warp_insts_ = 0, thread_insts_ = 0;
  double flops_ = 0;
  double warp_cycles_ = 0;     // integral of resident warps over time (all SMs)
  double max_end_ = 0;
  std::uint64_t ctas_ = 0;
  mem::MemCounters mem_{};
  double dram_busy_ = 0, l2_busy_ = 0;
  double scale_ = 1;           // what the timed part stands for (on_memory): loads_/stores_ are scaled by it
  double window_ = 0;          // the detailed window's length when the model reports it
  struct Access { std::uint64_t requests = 0, sectors = 0, bytes = 0; };
  Access loads_, stores_;      // global/local accesses sent to L1 (not atomics)
};

// The bottleneck in one sentence with the numbers behind it, built from a report's JSON (the
// fields to_json writes: bottleneck, utilization, speed_of_light, occupancy, stall_reasons,
// units, memory, coalescing, breakdown) and the part's peaks: e.g. "HBM-bound: 3.9 TB/s of the
// part's 4.8 TB/s (85% busy)". Every sentence carries measured quantities of the run.
std::string explain_bottleneck(const nlohmann::json& report, const device::DeviceSpec& dev);

}  // namespace kernsim::cost
