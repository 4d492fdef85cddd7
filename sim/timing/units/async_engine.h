// kernsim::sim::AsyncEngine and ClusterContext — the seams for the SM-level engines of Hopper
// and Blackwell (the TMA copy engine, the wgmma/tcgen05 tensor engine, tensor memory).
//
// An engine accepts requests from warps, serves them at its own rate and latency, and completes
// each onto a CompletionObject (an mbarrier phase, an async group). The warp that issued the
// request goes on at once; warps that wait on the object are ready when it completes. Requests
// are values; an engine keeps only its own occupancy. The functional side applies the data
// movement or the math when the request is accepted (times are computed eagerly), so values and
// timing agree.
//
// ClusterContext holds what the CTAs of one cluster share (distributed shared memory's
// mbarriers, cluster barriers); each CTA slot refers to its cluster's context. A launch without
// clusters has one context per CTA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/timing/units/completion.h"

namespace kernsim::sim {

struct AsyncRequest {
  double issue = 0;                    // when the warp handed it over
  std::uint64_t bytes = 0;             // data it moves (copy engines) or 0
  double work_cycles = 0;              // engine cycles it needs beyond its bytes (math engines)
  CompletionObject* target = nullptr;  // completed onto this; may be null (fire and forget)
  bool counts_arrival = true;          // completes as an arrival (else as transaction bytes)
  // the lanes' addresses, for engines that move data each lane addressed (cp.async)
  const std::uint64_t* addrs = nullptr;
  std::uint32_t mask = 0, bytes_per_lane = 0;
  int warp = -1;  // the warp's slot on its SM
  // requests with the same non-zero key are the parts of one operation (a wgmma's four warps):
  // an engine that serves operations whole serves it once, when its first part arrives
  std::uint64_t op_key = 0;
  // the global (address, bytes) pieces a bulk/tensor copy reads or writes (the TMA engine)
  const std::vector<std::pair<std::uint64_t, std::uint32_t>>* ranges = nullptr;
};

struct AsyncAccepted {
  double accepted = 0;  // when the engine took the request (the warp may issue again after it)
  double done = 0;      // when it completes (recorded on the target)
};

class AsyncEngine {
 public:
  virtual ~AsyncEngine() = default;
  virtual const char* name() const = 0;
  // Earliest time the engine can take a request issued at `now` (back-pressure on the warp).
  virtual double can_accept_at(double now) const = 0;
  // Accepts `r`; returns when and records its completion on its target.
  virtual AsyncAccepted accept(const AsyncRequest& r) = 0;

 protected:
  static void complete(const AsyncRequest& r, double done) {
    if (!r.target) return;
    if (r.counts_arrival)
      r.target->arrive(done);
    else
      r.target->complete_bytes(done, r.bytes);
  }
};

// An engine with a fixed latency, a bandwidth and one request in its issue stage at a time: the
// shape of a copy engine. Its numbers come from the caller (a device file's keys).
class PipelinedEngine final : public AsyncEngine {
 public:
  PipelinedEngine(std::string name, double issue_cycles, double bytes_per_cycle, double latency_cycles)
      : name_(std::move(name)), issue_(issue_cycles), bw_(bytes_per_cycle), lat_(latency_cycles) {}
  const char* name() const override { return name_.c_str(); }
  double can_accept_at(double now) const override { return std::max(now, next_issue_); }
  AsyncAccepted accept(const AsyncRequest& r) override {
    const double start = can_accept_at(r.issue);
    next_issue_ = start + issue_;
    const double transfer = bw_ > 0 ? static_cast<double>(r.bytes) / bw_ : 0.0;
    data_free_ = std::max(data_free_, start) + transfer + r.work_cycles;
    const double done = data_free_ + lat_;
    complete(r, done);
    return {start, done};
  }

 private:
  std::string name_;
  double issue_ = 1, bw_ = 0, lat_ = 0;
  double next_issue_ = 0, data_free_ = 0;
};

class ClusterContext {
 public:
  // The completion object at a shared-memory address of the cluster (an mbarrier), made on first use.
  CompletionObject& object_at(std::uint64_t address) { return objects_[address]; }
  bool has_object(std::uint64_t address) const { return objects_.count(address) != 0; }
  void clear() { objects_.clear(); }

 private:
  std::map<std::uint64_t, CompletionObject> objects_;
};

}  // namespace kernsim::sim
