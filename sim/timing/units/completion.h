// kernsim::sim::CompletionObject and AsyncGroups — what warps wait on besides registers.
//
// Asynchronous work (a cp.async copy, a TMA transfer, a wgmma, a tcgen05 operation) is accepted
// now and completes later onto a completion object. The timing model computes completion times
// eagerly (the memory model answers when data arrives at the time it is asked), so a completion
// object is the set of completion times it expects: it is complete at the latest of them once
// every expected arrival has been recorded. An mbarrier phase is one (arrival count and
// transaction bytes expected); an async group is another (the copies committed together).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace kernsim::sim {

class CompletionObject {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // Starts a phase at `t` that completes once `arrivals` arrivals and `bytes` transaction bytes
  // have been recorded.
  void expect(double t, std::uint64_t arrivals, std::uint64_t bytes = 0) {
    start_ = t;
    done_ = t;
    arrivals_left_ = arrivals;
    bytes_left_ = bytes;
  }
  void expect_more_bytes(std::uint64_t bytes) { bytes_left_ += bytes; }
  void arrive(double at, std::uint64_t count = 1) {
    arrivals_left_ -= std::min(arrivals_left_, count);
    done_ = std::max(done_, at);
  }
  void complete_bytes(double at, std::uint64_t bytes) {
    bytes_left_ -= std::min(bytes_left_, bytes);
    done_ = std::max(done_, at);
  }
  bool all_recorded() const { return arrivals_left_ == 0 && bytes_left_ == 0; }
  // When the phase completes; kNever while arrivals or bytes are still outstanding.
  double ready_at() const { return all_recorded() ? done_ : kNever; }
  bool complete_by(double t) const { return ready_at() <= t; }

 private:
  double start_ = 0, done_ = 0;
  std::uint64_t arrivals_left_ = 0, bytes_left_ = 0;
};

// One warp's asynchronous copy groups (cp.async.commit_group / wait_group): copies complete onto
// the open group; committing closes it; waiting for all but the newest n groups waits for the
// others. The open group is a completion object that expects no count (any number of copies
// join it).
class AsyncGroups {
 public:
  void reset(double t) {
    open_.expect(t, 0);
    committed_.clear();
  }
  CompletionObject& open_group() { return open_; }
  void commit(double now) {
    committed_.push_back(open_.ready_at());
    open_.expect(now, 0);
  }
  // When all but the newest `keep` committed groups are complete (keep == 0: the open group too);
  // the groups waited for are forgotten.
  double wait(std::size_t keep, double now) {
    double need = now;
    if (keep == 0) need = std::max(need, open_.ready_at());
    for (std::size_t g = 0; g + keep < committed_.size(); ++g) need = std::max(need, committed_[g]);
    if (committed_.size() > keep)
      committed_.erase(committed_.begin(), committed_.end() - static_cast<std::ptrdiff_t>(keep));
    return need;
  }

 private:
  CompletionObject open_;
  std::vector<double> committed_;  // each committed group's completion
};

}  // namespace kernsim::sim
