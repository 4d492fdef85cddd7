// kernsim::sim::WaitCounters — one wave's outstanding memory operations, as AMD's s_waitcnt
// counters see them.
//
// vmcnt counts vector memory operations and is decremented in issue order (an operation counts
// as complete only once every older one has: its effective completion is the latest so far);
// lgkmcnt counts LDS operations (in order) and scalar memory and flat operations (any order).
// s_waitcnt waits until at most n are outstanding; a wave whose counter is full stalls at issue.
// Completion times are known when an operation is issued (times are computed eagerly).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kernsim::sim {

class WaitCounters {
 public:
  void reset(double t) {
    vm_.clear();
    vm_head_ = 0;
    lds_.clear();
    other_.clear();
    drain_ = t;
  }
  // A vector memory operation issued at `now` that completes at `done`.
  void push_vm(double now, double done) {
    const double eff = vm_.size() > vm_head_ ? std::max(done, vm_.back()) : done;  // decremented in issue order
    while (vm_head_ < vm_.size() && vm_[vm_head_] <= now) ++vm_head_;              // drop completed entries
    if (vm_head_ > kCompact) {
      vm_.erase(vm_.begin(), vm_.begin() + static_cast<std::ptrdiff_t>(vm_head_));
      vm_head_ = 0;
    }
    vm_.push_back(eff);
    drain_ = std::max(drain_, eff);
  }
  void push_lds(double now, double done) {
    prune(lds_, now);
    lds_.push_back(lds_.empty() ? done : std::max(done, lds_.back()));
    drain_ = std::max(drain_, done);
  }
  void push_other(double now, double done) {
    prune(other_, now);
    other_.push_back(done);
    drain_ = std::max(drain_, done);
  }
  // When at most `n` vector memory operations (vm) or LDS/scalar/flat operations (lgkm) that are
  // outstanding after `after` remain; `after` if that is already so.
  double vm_at_most(std::size_t n, double after) {
    scratch_.clear();
    collect(vm_, vm_head_, after);
    return when_at_most(n);
  }
  double lgkm_at_most(std::size_t n, double after) {
    scratch_.clear();
    collect(lds_, 0, after);
    collect(other_, 0, after);
    return when_at_most(n);
  }
  double drain() const { return drain_; }  // the last completion of its memory operations

 private:
  static constexpr std::size_t kCompact = 64;  // completed vm entries kept before the list is compacted
  static void prune(std::vector<double>& v, double now) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](double x) { return x <= now; }), v.end());
  }
  void collect(const std::vector<double>& v, std::size_t from, double after) {
    for (std::size_t i = from; i < v.size(); ++i)
      if (v[i] > after) scratch_.push_back(v[i]);
  }
  double when_at_most(std::size_t n) {
    if (scratch_.size() <= n) return 0;
    const std::size_t k = scratch_.size() - n - 1;
    std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(k), scratch_.end());
    return scratch_[k];
  }
  std::vector<double> vm_;
  std::size_t vm_head_ = 0;
  std::vector<double> lds_, other_;
  double drain_ = 0;
  std::vector<double> scratch_;
};

}  // namespace kernsim::sim
