// kernsim::mem::Server — a bandwidth-limited resource as a FIFO queue in time.
//
// A transfer of `bytes` arriving at cycle t starts when the resource is free and occupies it
// for bytes / bytes_per_cycle cycles; the returned time is when the last byte has passed.
// Under load, requests queue and their latency grows — the queueing that makes HBM and L2
// bandwidth-bound kernels slow. Deterministic; no random service times.
#pragma once

#include <algorithm>

namespace kernsim::mem {

class Server {
 public:
  Server() = default;
  explicit Server(double bytes_per_cycle) : rate_(bytes_per_cycle) {}
  double rate() const { return rate_; }
  // Returns the completion time of a transfer of `bytes` arriving at `t`.
  double serve(double t, double bytes) {
    double start = std::max(t, free_);
    free_ = start + bytes / rate_;
    busy_ += bytes / rate_;
    return free_;
  }
  double free_at() const { return free_; }
  double busy_cycles() const { return busy_; }
  void reset() { free_ = 0; busy_ = 0; }

 private:
  double rate_ = 1;
  double free_ = 0;
  double busy_ = 0;
};

}  // namespace kernsim::mem
