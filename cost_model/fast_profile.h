// kernsim::cost::profile_ptx — the fast tier's functional sample (NVIDIA, PTX).
//
// Executes a few CTAs of a launch functionally (sim::PtxCta, real data, no timing model), CTA 0
// first and then CTAs spread over the grid while the sample's instruction budget lasts, and
// measures per CTA what fast_model.h's predict() needs: the dynamic instruction mix per unit,
// global sectors and lines per instruction (coalescing), L1 reuse within the CTA, the bytes of
// each buffer it touches, shared-memory wavefronts (bank conflicts), atomics and their hottest
// address, barriers, and the dependent path of its warps — an in-order walk over the register
// dependences of the executed instructions with the device's latencies, loads beyond L1 counted
// separately so predict() can price them once it knows the L2 hit rate.
//
// The sample's outputs are not the launch's (only some CTAs run); the fast tier returns none.
#pragma once

#include <cstdint>

#include "cost_model/fast_model.h"
#include "device/device_spec.h"
#include "sim/functional/ptx_exec.h"
#include "sim/timing/occupancy.h"

namespace kernsim::cost {

// Sampling policy, not hardware: CTA 0 always runs; more CTAs (spread evenly over the grid) join
// while the warp instructions executed so far stay under `budget`, up to `max_ctas`. 4 CTAs and
// 100 k warp instructions keep the validation set's sample under ~10 ms of CPU while averaging
// over CTAs whose work differs (boundary CTAs, data-dependent loops).
//
// A CTA that has executed `cta_budget` warp instructions (0: no limit) is cut short when every
// warp it has left is inside a counted loop (an integer `setp` on a loop variable that moves by
// a fixed step against a bound, testing a backward branch): the iterations left come from the
// two operands' values, each warp's loop variable is set to its exit value at the next test (the
// CTA's epilogue still runs), and the work up to the cut counts again in proportion to the
// instructions skipped. A CTA in a loop it cannot count runs to its end. 10 k: on the H200
// validation set it bounds every launch's sample to under ~60 ms of CPU (the mma GEMMs' CTAs
// were 25 k each, at ~1.4 us per instruction) and moves its MAPE by under 0.1 point.
struct SampleOptions {
  int max_ctas = 4;
  std::uint64_t budget = 100'000;
  std::uint64_t cta_budget = 10'000;
};

KernelProfile profile_ptx(sim::PtxKernel& kernel, const device::DeviceSpec& dev, const sim::Occupancy& occ,
                          const SampleOptions& opts = {});

}  // namespace kernsim::cost
