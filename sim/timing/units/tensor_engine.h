// kernsim::sim::TensorEngine — the SM's tensor engine of sm_90a, which serves wgmma.mma_async
// for the four sub-partitions (an AsyncEngine, async_engine.h).
//
// A warpgroup's wgmma m64nNkK is issued by its four warps; each warp's issue is one request for
// its quarter (16 of the 64 rows), so the engine's throughput is the warpgroup's. A request's
// service is its FLOP over the engine's dense rate for the input type, and at least the
// shared-memory bytes it reads (A's quarter and B with A in shared memory, B alone with A in
// registers) over the shared-memory port. With parts > 1 (wgmma: 4) the engine serves each
// operation whole: the first of its parts to arrive (AsyncRequest::op_key) books the service of
// all of them, one operation after another in the order they arrive, and every part completes
// `latency` cycles after the operation's service ends, onto its warp's wgmma group; the measured
// dependent-chain latency (53.7 + N/2 cycles for m64nN, N <= 128) is exactly that. Requests that
// chain on the same accumulators need no more: the engine serves them in order. Before
// 2026-12-07 the parts were served as they came, so two warpgroups' quarters interleaved and
// every warp of both waited for all eight (a serialized wgmma loop paid the latency with the
// engine idle). Simplification (named in docs/status.md): the queue is unbounded (no
// back-pressure on issue).
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>

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
  // parts: requests per operation (wgmma: a warpgroup's 4 warps; 1: every request on its own)
  explicit TensorEngine(double latency_cycles, int parts = 1) : latency_(latency_cycles), parts_(std::max(1, parts)) {}
  const char* name() const override { return "tensor"; }
  double can_accept_at(double now) const override { return now; }
  AsyncAccepted accept(const AsyncRequest& r) override {
    if (parts_ > 1 && r.op_key) {
      if (auto it = open_.find(r.op_key); it != open_.end()) {  // a later part: served with the first
        const double done = it->second.first;
        if (--it->second.second <= 0) open_.erase(it);
        complete(r, done);
        return {r.issue, done};
      }
    }
    const int n = parts_ > 1 && r.op_key ? parts_ : 1;
    const double start = std::max(r.issue, free_);
    free_ = start + n * r.work_cycles;
    busy_ += n * r.work_cycles;
    const double done = free_ + latency_;
    if (n > 1) open_[r.op_key] = {done, n - 1};
    complete(r, done);
    return {r.issue, done};
  }
  void reset(double t) {
    free_ = t;
    open_.clear();
  }
  double busy_cycles() const { return busy_; }  // service cycles of every request accepted

 private:
  double busy_ = 0;
  double latency_ = 0;
  double free_ = 0;
  int parts_ = 1;
  std::unordered_map<std::uint64_t, std::pair<double, int>> open_;  // operation -> (done, parts still to come)
};

}  // namespace kernsim::sim
