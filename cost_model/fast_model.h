// kernsim::cost — the fast tier: an analytical time from a functional sample of a CTA or two.
//
// The sampler (fast_profile.h) executes a few CTAs functionally and measures, per CTA, what the
// kernel asks of each resource: warp instructions and pipe-busy cycles per unit, global sectors
// and lines (coalescing), sectors that hit in the CTA's own L1, the bytes it touches in each
// buffer (its footprint), shared-memory wavefronts (bank conflicts), atomics, barriers, and the
// dependent-path time of its warps (an in-order walk over register dependences with the
// device's latencies). predict() turns that into a time with an interval/roofline model in the
// spirit of GPUMech and MDM:
//
//   per SM (the busiest, ceil(CTAs / SMs) CTAs):
//     issue      CTAs x max(pipe-busy per unit, issue slots) / schedulers
//     latency    rounds x dependent path (rounds = ceil(CTAs per SM / resident CTAs): waves)
//     shared     wavefronts / wavefronts per cycle;  L1: lines / lines per cycle
//   chip:
//     L2         sectors + request overheads beyond L1 at the L2's bytes per cycle
//     DRAM       footprint (+ the re-reads the L2 does not hold) at HBM bandwidth x efficiency
//     atomics    same-address serialisation and the slices' atomic rate
//     dispatch   CTAs x cta_dispatch_cycles
//   kernel = p-norm of these (p = fast.overlap_exponent) + launch overhead
//
// Every hardware number comes from the DeviceSpec; the three coefficients of `fast.*` are fitted
// to measured launches (`kernsim fit-fast`). predict() is a pure function, cheap enough to call
// inside a least-squares fit.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "device/device_spec.h"
#include "isa/unit.h"
#include "sim/timing/occupancy.h"

namespace kernsim::cost {

inline constexpr int kUnits = static_cast<int>(isa::Unit::kCount);

// One buffer (allocation) a sampled CTA touched: its size and the bytes of it the CTA read or
// wrote (distinct sectors x sector bytes), averaged over the sampled CTAs.
struct BufferUse {
  double size_bytes = 0;
  double read_bytes_per_cta = 0;
  double write_bytes_per_cta = 0;
};

// What one CTA asks of the machine, averaged over the sampled CTAs.
struct KernelProfile {
  int ctas_sampled = 0;
  int warps_per_cta = 0;
  double warp_insts = 0;    // warp instructions per CTA
  double thread_insts = 0;  // active threads summed over them
  double issue_slots = 0;   // machine instructions (PTX instructions x their weight): scheduler issue slots
  double flops = 0;
  std::array<double, kUnits> unit_insts{};  // warp instructions per unit
  std::array<double, kUnits> unit_busy{};   // pipe-busy cycles per unit (issue interval x weight), on one scheduler
  double alt_busy =
      0;  // busy cycles of integer instructions that may go to the IMAD pipe instead of the ALU pipe (not in unit_busy)
  // global memory (per CTA)
  double load_insts = 0, store_insts = 0, atomic_insts = 0;
  double load_sectors = 0, store_sectors = 0;  // sectors each instruction touched (coalescing)
  double load_lines = 0, store_lines = 0;      // distinct lines each instruction touched (L1 lookups, L2 requests)
  double store_partial_sectors = 0;            // of store_sectors, those the instruction writes only part of
  double l1_hit_sectors = 0;                   // load sectors the CTA had loaded before (its L1 holds them)
  double l1_hit_lines = 0;                     // load lines all of whose sectors hit
  double reread_sectors = 0;                   // load sectors the CTA had read before (hits in L1, else in L2)
  double atomic_requests = 0;                  // atomic sector requests (distinct addresses per instruction)
  double atomic_hot_address_ops = 0;           // operations on the CTA's most-used atomic address
  double atomic_lines = 0;                     // distinct lines a CTA's atomics touch (the L2 slices serving them)
  double atomic_float_share = 0;               // fraction of atomics on floating-point values
  bool atomic_hot_shared = false;  // the sampled CTAs' atomics go to the same addresses (histogram bins, a sum)
  // shared memory
  double shared_insts = 0, shared_wavefronts = 0;
  double barriers = 0;  // bar.sync completions per CTA
  // dependent-path time of the CTA alone, cycles: the latest warp's end in the in-order walk,
  // split by what its loads waited for so predict() can price misses after it knows the L2 hit rate
  double path_cycles = 0;          // with L1 hits at L1 latency, other loads at 0
  double path_miss_loads = 0;      // loads beyond L1 on that path (each waits L2 or HBM latency)
  double nominal_miss_cycles = 0;  // the miss latency the walk compared paths at
  std::vector<BufferUse> buffers;
  bool complete = true;            // every sampled CTA ran to its end (false: one was cut in its loops and scaled)
  double warp_insts_executed = 0;  // warp instructions the sample executed, all its CTAs (a cut CTA's are fewer)
};

// The launch around the profile.
struct LaunchGeometry {
  std::uint64_t ctas = 1;
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::int64_t shared_per_block = 0;
};

struct FastTerm {
  std::string name;  // "issue", "latency", "shared", "l1", "l2", "dram", "atomics", "dispatch"
  double cycles = 0;
};

struct FastPrediction {
  double cycles = 0, kernel_us = 0, launch_us = 0, time_us = 0;
  sim::Occupancy occupancy;
  std::vector<FastTerm> terms;  // each resource's time alone
  std::string bottleneck;       // the largest term ("latency" when the path is), or "launch"
  double l2_hit_rate = 0, l1_hit_rate = 0;
  double dram_read_bytes = 0, dram_write_bytes = 0, l2_bytes = 0;
  int ctas_per_sm = 0, rounds = 0;
};

// Throws Error(NotImplemented) naming the keys when the device file has no fitted fast.*
// coefficients; Error(LaunchSpec) when a block does not fit an SM (from the occupancy).
FastPrediction predict(const KernelProfile& p, const LaunchGeometry& g, const device::DeviceSpec& dev);

// The same with the coefficients given (the fitter varies them).
FastPrediction predict(const KernelProfile& p, const LaunchGeometry& g, const device::DeviceSpec& dev,
                       const device::FastTier& c);

}  // namespace kernsim::cost
