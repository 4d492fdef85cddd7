// kernsim::sim — the timing model's entry point: run a kernel on a modelled GPU and say how
// long it took.
//
// Execution-driven: the SM model's warp schedulers decide which warp issues when, and only
// then is the instruction executed functionally (PtxCta::step), so timing and data see the
// same program. Without `full`, the model times CTAs in detail until a budget of warp
// instructions is spent, then extrapolates from the measured steady-state rate and the
// measured work per CTA; the result says which fraction was timed in detail.
#pragma once

#include <cstdint>
#include <string>

#include "device/device_spec.h"
#include "sim/functional/ptx_exec.h"
#include "sim/timing/listener.h"
#include "sim/timing/amd_occupancy.h"
#include "sim/timing/occupancy.h"

namespace kernsim::sim {

struct TimingOptions {
  bool full = false;
  // warp instructions timed in detail before extrapolating: 1.5 M keeps the validation set's median
  // launch under 2 s of CPU at 0.2 points of MAPE (3 M: 2.44 s; docs/validation.md)
  std::uint64_t detail_budget = 1'500'000;
  bool complete_functionally = false;       // after a sampled run, execute the rest (untimed) so outputs are whole
  // cache: "warm": the L2 starts as a previous run of the same launch left it (trials timed
  // back to back without a flush: CUDA-graph replays, GPU MODE's AMD harness), instead of cold.
  // The launch is replayed once untimed, its writes undone (Sampler::run); NVIDIA only.
  bool warm_l2 = false;
  // cache: "cold-dirty": cold, and the L2 full of dirty lines of memory the launch never touches,
  // as a flush that writes a buffer larger than the L2 leaves it (KernelBench's): the launch's
  // first fills write them back to HBM. NVIDIA only in effect: AMD parts write their L2s back at
  // every kernel's end, so a flush leaves them clean (cold).
  bool dirty_l2 = false;
};

struct TimingResult {
  double cycles = 0;             // kernel execution, core cycles
  double kernel_us = 0;          // cycles at the core clock
  double launch_us = 0;          // launch overhead added to what a CUDA-event timer sees
  double time_us = 0;            // kernel_us + launch_us
  bool extrapolated = false;
  double sampled_fraction = 1;   // warp instructions timed in detail / estimated total
  std::uint64_t ctas_total = 0, ctas_timed = 0;
  std::uint64_t ctas_probed = 0;      // corner CTAs run untimed to their end after a sampled run
  std::uint64_t ctas_probe_open = 0;  // corner CTAs that stopped at the probe's bound or spun alone
  int sms_simulated = 0;         // SMs/CUs the detailed model ran (fewer than the part's for an SM slice)
  std::uint64_t warp_insts_timed = 0;
  double warp_insts_estimated = 0;
  std::string sampling_note;
  Occupancy occupancy;
  // The wgmma tensor engines' busy share of the launch (every SM of the part, the whole time:
  // their busy cycles per timed instruction x the launch's instructions / (SMs x cycles)); -1
  // when nothing issued wgmma.
  double tensor_busy_fraction = -1;
  double tensor_busy_sm_fraction = -1;  // the same over the SMs that had CTAs (at most one per CTA)
  double clock_mhz = 0;  // the SM clock `cycles` count (0: the device's clocks.core_mhz)
};

TimingResult time_ptx_kernel(const device::DeviceSpec& dev, PtxKernel& kernel, const KernelResources& res,
                             const TimingOptions& opts, Listener& listener);
// A wgmma launch timed on `dev` at clocks.core_mhz, moved to the clock its tensor load gives
// (device::wgmma_load_mhz; nothing when the part gives no such line or nothing issued wgmma).
void at_load_clock(TimingResult& r, const device::DeviceSpec& dev);

class AmdKernel;

// The AMD CU timing model (sim/timing/amd_machine.cpp): the same contract for AMDGCN kernels on
// gfx942/gfx950 parts. `detail_budget` counts wave instructions.
TimingResult time_amd_kernel(const device::DeviceSpec& dev, AmdKernel& kernel, const AmdResources& res,
                             const TimingOptions& opts, Listener& listener);

}  // namespace kernsim::sim
