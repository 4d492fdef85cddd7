// kernsim::sim::TensorEngine — the SM's tensor engine of sm_90a, which serves wgmma.mma_async
// for the four sub-partitions (an AsyncEngine, async_engine.h).
//
// A warpgroup's wgmma m64nNkK is issued by its four warps; each warp's issue is one request for
// its quarter (16 of the 64 rows), so the engine's throughput is the warpgroup's. The engine
// serves requests one after another in the order they arrive: a request's service is its FLOP
// over the engine's dense rate for the input type, and at least the shared-memory bytes it reads
// (A's quarter and B with A in shared memory, B alone with A in registers) over the shared-memory
// port; it completes `latency` cycles after its service ends, onto the warp's wgmma group.
// Requests that chain on the same accumulators need no more: the engine serves them in order.
// Simplifications (named in docs/status.md): the queue is unbounded (no back-pressure on issue),
// and the four warps of a wgmma complete a quarter-service apart rather than together.
#pragma once

#include <algorithm>

#include "sim/timing/units/async_engine.h"

namespace kernsim::sim {

// What the engine needs of one wgmma.mma_async (a warp's quarter).
struct WgmmaWork {
  double flops = 0;                 // 2*16*N*K: the warp's quarter
  double smem_bytes = 0;            // bytes it reads from shared memory
  double flops_per_cycle = 1;       // the engine's dense rate for its input type (device file)
  double smem_bytes_per_cycle = 1;  // the shared-memory port (shared.banks x shared.bank_width_bytes)
};

// Engine cycles one request occupies.
inline double wgmma_service_cycles(const WgmmaWork& w) {
  return std::max(w.flops / w.flops_per_cycle, w.smem_bytes / w.smem_bytes_per_cycle);
}

class TensorEngine final : public AsyncEngine {
 public:
  explicit TensorEngine(double latency_cycles) : latency_(latency_cycles) {}
  const char* name() const override { return "tensor"; }
  double can_accept_at(double now) const override { return now; }
  AsyncAccepted accept(const AsyncRequest& r) override {
    const double start = std::max(r.issue, free_);
    free_ = start + r.work_cycles;
    busy_ += r.work_cycles;
    const double done = free_ + latency_;
    complete(r, done);
    return {r.issue, done};
  }
  void reset(double t) { free_ = t; }
  double busy_cycles() const { return busy_; }  // service cycles of every request accepted

 private:
  double busy_ = 0;
  double latency_ = 0;
  double free_ = 0;
};

}  // namespace kernsim::sim
