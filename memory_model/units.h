// Small memory-model units shared by the vendors' memory systems.
//
//   MissSlots  the line requests one SM/CU may have in flight beyond its L1 (MSHR-like): a new
//              request waits for the earliest slot to free; it limits the memory-level parallelism
//              of a few warps/waves and throttles a unit streaming stores to a slow destination.
//   HbmCost    what a transfer costs HBM in peak-bandwidth bytes: pure read streams sustain
//              dram.read_efficiency of peak, pure write streams dram.write_efficiency, and mixing
//              them costs bus turnarounds (largest at half and half, which is why a copy reaches
//              only dram.copy_efficiency); the mix is an exponential average over ~64 KiB.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "device/device_spec.h"

namespace kernsim::mem {

class MissSlots {
 public:
  explicit MissSlots(std::int64_t slots) : free_(static_cast<std::size_t>(std::max<std::int64_t>(1, slots)), 0.0) {}
  // When a request arriving at `t` gets a slot: the earliest to free. The slot is then held until
  // release(), which must come before the next acquire().
  double acquire(double t) const { return std::max(t, free_[head_]); }
  // The slot taken by the last acquire() frees at `done`.
  void release(double done) {
    // The times sit in a ring in ascending order from head_: the earliest leaves at the front and
    // `done` enters from the back, past the (usually no) later times it moves up by one.
    const std::size_t n = free_.size();
    std::size_t at = head_;  // the free place, at the back once head_ moves on
    head_ = head_ + 1 == n ? 0 : head_ + 1;
    for (std::size_t k = n - 1; k > 0; --k) {
      const std::size_t before = at == 0 ? n - 1 : at - 1;
      if (free_[before] <= done) break;
      free_[at] = free_[before];
      at = before;
    }
    free_[at] = done;
  }

 private:
  std::vector<double> free_;  // when each slot frees up: ascending in ring order from head_
  std::size_t head_ = 0;
};

class HbmCost {
 public:
  explicit HbmCost(const device::Dram& d)
      : read_(1.0 / d.read_efficiency), write_(1.0 / d.write_efficiency),
        mix_(std::max(0.0, (1.0 / d.copy_efficiency) / (0.5 * (read_ + write_)) - 1.0)) {}
  // Peak-bandwidth bytes `bytes` read or written cost now (updates the recent mix).
  double operator()(double bytes, bool write) {
    const double a = std::min(1.0, bytes / 65536.0);
    share_ = (1 - a) * share_ + a * (write ? 1.0 : 0.0);
    return bytes * (write ? write_ : read_) * mix(share_);
  }
  // The same for a whole workload of `read` and `written` bytes at their own mix.
  double of(double read, double written) const {
    const double share = read + written > 0 ? written / (read + written) : 0.0;
    return (read * read_ + written * write_) * mix(share);
  }
  double read_cost() const { return read_; }

 private:
  double mix(double share) const { return 1.0 + mix_ * 4.0 * share * (1.0 - share); }
  double read_, write_, mix_;
  double share_ = 0;  // recent fraction of written bytes
};

}  // namespace kernsim::mem
