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

#include <cstdint>
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
    std::int64_t b = static_cast<std::int64_t>(t / kBucket);
    if (!used_.empty() && b < base_) {  // earlier than anything booked so far: extend the calendar back
      const std::int64_t lo = std::max<std::int64_t>(b, base_ - static_cast<std::int64_t>(kMaxBuckets / 4));
      for (; base_ > lo; --base_) used_.push_front(0.0f);
      first_open_ = std::min(first_open_, base_);
    }
    b = std::max(b, first_open_);
    if (!used_.empty()) b = std::max(b, base_);
    double left = d;
    double end = t + d;
    while (true) {
      float& u = at(b);
      const double room = kBucket - u;
      if (room > 1e-9) {
        const double take = std::min(room, left);
        u = static_cast<float>(u + take);
        left -= take;
        if (left <= 1e-12) {
          end = std::max(end, static_cast<double>(b) * kBucket + u);
          break;
        }
      }
      if (b == first_open_) ++first_open_;
      ++b;
    }
    free_ = std::max(free_, end);
    return end;
  }
  double free_at() const { return free_; }
  double busy_cycles() const { return busy_; }
  void reset() { *this = CalendarServer(rate_); }

 private:
  static constexpr double kBucket = 16.0;             // cycles of service per bucket
  static constexpr std::size_t kMaxBuckets = 1u << 18;  // ~4M cycles of history kept
  float& at(std::int64_t b) {
    if (used_.empty()) base_ = first_open_ = b;
    while (b >= base_ + static_cast<std::int64_t>(used_.size())) used_.push_back(0.0f);
    while (used_.size() > kMaxBuckets && base_ < b) {  // forget the distant past
      used_.pop_front();
      ++base_;
    }
    return used_[static_cast<std::size_t>(b - base_)];
  }
  double rate_ = 1;
  double busy_ = 0;
  double free_ = 0;
  std::deque<float> used_;      // service booked per bucket, from bucket base_
  std::int64_t base_ = 0;
  std::int64_t first_open_ = 0;  // every bucket before it is full
};

}  // namespace kernsim::mem
