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

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>

namespace kernsim::mem {

// kernsim::mem::CalendarServer — a bandwidth-limited resource shared by the whole chip.
//
// Requests reach chip-wide resources (L2, HBM, atomic units) out of time order: the simulator
// steps SMs by event time, but a request may be sent at a later time (it waited for a free
// miss slot) than requests other SMs send after it. A FIFO queue would leave an idle hole
// before such a request and push every earlier one behind it, so throughput would drift down
// with simulated time. The calendar instead books capacity in short time buckets: a request
// takes the first free capacity at or after its arrival, and completes when its last bucket
// has served everything booked in it (never sooner than arrival + its own service time).
// Bucket length bounds the error in queueing delay; deterministic.
class CalendarServer {
 public:
  CalendarServer() = default;
  explicit CalendarServer(double bytes_per_cycle) : rate_(bytes_per_cycle) {}
  double rate() const { return rate_; }
  double serve(double t, double bytes) {
    const double d = bytes / rate_;
    busy_ += d;
    std::int64_t b = static_cast<std::int64_t>(std::max(0.0, t) / kBucket);
    prune(b);
    b = std::max(b, base_);
    double left = d;
    double end = t + d;
    while (true) {
      b = open_from(b);
      double& u = used_[static_cast<std::size_t>(b - base_)];
      const double take = std::min(kBucket - u, left);
      u += take;
      const std::int64_t fx = std::llround(take * kFixedOne);
      used_fx_[static_cast<std::size_t>(b - base_)] += fx;
      if (win_valid_ && b >= win_lo_ && b < win_hi_) win_sum_ += fx;
      left -= take;
      if (kBucket - u < kFull) next_[static_cast<std::size_t>(b - base_)] = b + 1;
      if (left <= kFull) {
        end = std::max(end, static_cast<double>(b) * kBucket + u);
        break;
      }
      ++b;
    }
    free_ = std::max(free_, end);
    return end;
  }
  double free_at() const { return free_; }
  double busy_cycles() const { return busy_; }
  // Fraction of the capacity booked over [t - window, t): the recent utilisation seen by a
  // request arriving at t (1 when a backlog has filled every bucket).
  double utilization(double t, double window) const {
    const std::int64_t hi = static_cast<std::int64_t>(std::max(0.0, t) / kBucket);
    const std::int64_t lo = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::max(0.0, t - window) / kBucket));
    if (hi <= lo) return 0.0;
    // The sum over the window is kept from the last call and moved to the new bounds (serve()
    // adds what it books inside the kept window). Fixed point makes the moved sum equal to a
    // fresh one, so the answer does not depend on the order of the calls.
    if (!win_valid_ || std::abs(lo - win_lo_) + std::abs(hi - win_hi_) >= hi - lo)
      win_sum_ = booked(lo, hi);
    else
      win_sum_ += (hi >= win_hi_ ? booked(win_hi_, hi) : -booked(hi, win_hi_)) -
                  (lo >= win_lo_ ? booked(win_lo_, lo) : -booked(lo, win_lo_));
    win_lo_ = lo;
    win_hi_ = hi;
    win_valid_ = true;
    const double used = static_cast<double>(win_sum_) / kFixedOne;
    return std::min(1.0, used / (static_cast<double>(hi - lo) * kBucket));
  }
  void reset() { *this = CalendarServer(rate_); }

 private:
  static constexpr double kBucket = 16.0;               // cycles of service per bucket
  static constexpr double kFull = 1e-6;                 // a bucket with less room left is full
  static constexpr std::size_t kMaxBuckets = 1u << 18;  // ~4M cycles of history kept
  static constexpr double kFixedOne = 4294967296.0;     // fixed-point units per cycle of service (utilization's exact sums)
  // service booked in buckets [lo, hi), fixed point (buckets before base_ or not yet made hold none)
  std::int64_t booked(std::int64_t lo, std::int64_t hi) const {
    std::int64_t sum = 0;
    for (std::int64_t b = std::max(lo, base_); b < hi && b < base_ + static_cast<std::int64_t>(used_fx_.size()); ++b)
      sum += used_fx_[static_cast<std::size_t>(b - base_)];
    return sum;
  }
  // The first bucket at or after `b` with room, following (and shortening) the chain of
  // pointers full buckets keep to later ones.
  std::int64_t open_from(std::int64_t b) {
    extend(b);
    std::int64_t r = b;
    while (next_[static_cast<std::size_t>(r - base_)] != r) {
      r = next_[static_cast<std::size_t>(r - base_)];
      extend(r);
    }
    for (std::int64_t x = b; x != r;) {  // path compression
      std::int64_t& n = next_[static_cast<std::size_t>(x - base_)];
      x = n;
      n = r;
    }
    return r;
  }
  void extend(std::int64_t b) {
    while (b >= base_ + static_cast<std::int64_t>(used_.size())) {
      next_.push_back(base_ + static_cast<std::int64_t>(used_.size()));
      used_.push_back(0.0);
      used_fx_.push_back(0);
    }
  }
  void prune(std::int64_t b) {  // forget the distant past (requests before it are served from base_)
    while (used_.size() > kMaxBuckets && base_ + static_cast<std::int64_t>(kMaxBuckets / 2) < b) {
      used_.pop_front();
      used_fx_.pop_front();
      next_.pop_front();
      ++base_;
      if (win_lo_ < base_) win_valid_ = false;  // the kept sum holds a bucket now forgotten
    }
  }
  double rate_ = 1;
  double busy_ = 0;
  double free_ = 0;
  std::deque<double> used_;         // service booked per bucket, from bucket base_
  std::deque<std::int64_t> next_;   // per bucket: itself if it has room, else a later bucket to try
  std::deque<std::int64_t> used_fx_;  // used_ in fixed point (kFixedOne per cycle)
  // utilization()'s last window [win_lo_, win_hi_) and the service booked in it, fixed point
  mutable std::int64_t win_lo_ = 0, win_hi_ = 0, win_sum_ = 0;
  mutable bool win_valid_ = false;
  std::int64_t base_ = 0;
};

}  // namespace kernsim::mem
