// kernsim::cost plots: the report drawn as SVG files a browser opens (`kernsim run --plot`).
//
// roofline_svg(): the launch on the part's roofline — log-log, arithmetic intensity (FLOP per DRAM
// byte) against FLOP/s, with a memory roof per level (L1, L2, HBM: bytes per second from the
// device file) and a compute roof per kind of math (FP32 pipe; f16 tensor), every number from the
// device as timed; the point is the report's counted FLOPs over its DRAM bytes and time.
//
// TimelineView: a listener that keeps each CTA's start and end (on_cta) and draws resident CTAs
// over time, one row per SM (CU) of the model and a step curve of all of them against the slots
// the modelled SMs hold at the kernel's occupancy (its "waves"); a sampled launch draws the SMs
// and the window it timed.
//
// Both embed their axis ranges and the plotted values as data-* attributes, so a test (or a
// script) can check where the point lies without reading pixels.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "device/device_spec.h"
#include "sim/timing/listener.h"

namespace kernsim::cost {

// A roof of the roofline: a name ("HBM", "FP32") and its peak (bytes/s for memory, FLOP/s for
// compute), computed from the device file's numbers.
struct Roof {
  std::string name;
  double peak = 0;
  std::string derivation;  // "dram.bandwidth_gbps 4800 GB/s"
};

// The part's memory roofs (L1, L2, HBM) and compute roofs (FP32, tensor f16) from `dev`, at the
// clocks it is timed at; roofs whose numbers the file lacks are left out.
std::vector<Roof> memory_roofs(const device::DeviceSpec& dev);
std::vector<Roof> compute_roofs(const device::DeviceSpec& dev);

// `report` is the launch's JSON report (speed_of_light.flops_per_s, dram_bytes_per_s).
std::string roofline_svg(const nlohmann::json& report, const device::DeviceSpec& dev);

class TimelineView : public sim::Listener {
 public:
  explicit TimelineView(double clock_mhz) : clock_mhz_(clock_mhz) {}
  void on_cta(int sm, std::uint64_t cta, double start, double end) override;
  // `slots_per_sm`: CTAs one SM holds at once (the report's occupancy.blocks_per_sm).
  std::string svg(const nlohmann::json& report, int slots_per_sm) const;

 private:
  struct Cta {
    int sm;
    std::uint64_t id;
    double start, end;  // cycles
  };
  double clock_mhz_;
  std::vector<Cta> ctas_;
};

}  // namespace kernsim::cost
