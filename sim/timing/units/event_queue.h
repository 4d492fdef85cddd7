// kernsim::sim::EventQueue — the sampler's queue of units (SMs, CUs) by their next event.
//
// A binary min-heap of (time, unit), earliest time first and the lower unit first on equal
// times: the order std::priority_queue<std::pair<double, int>, ..., std::greater<>> gives, so a
// simulation driven by either runs its events in the same order. Two things make it cheaper in
// the sampler's loop, which pops the earliest unit and pushes it back with its next event once
// per event: replace_top() does both in one pass down the heap (the hole goes to a leaf by the
// smaller child, then the new event rises from there: a unit's next event is usually later than
// most, so it rises little), and the comparison is two plain ones instead of the pair's
// three-way comparison.
#pragma once

#include <cstddef>
#include <vector>

namespace kernsim::sim {

class EventQueue {
 public:
  struct Event {
    double t = 0;
    int unit = 0;
  };
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  void push(Event e) {
    heap_.push_back(e);
    rise(heap_.size() - 1, e);
  }
  void pop() {
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) replace_top(last);
  }
  // pop() then push(e), in one pass.
  void replace_top(Event e) {
    const std::size_t n = heap_.size();
    std::size_t hole = 0;
    for (std::size_t c = 1; c < n; c = 2 * hole + 1) {
      if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
      heap_[hole] = heap_[c];
      hole = c;
    }
    rise(hole, e);
  }

 private:
  static bool before(const Event& a, const Event& b) { return a.t < b.t || (a.t == b.t && a.unit < b.unit); }
  // Places e at `hole` or above it, moving the later events on its way down.
  void rise(std::size_t hole, Event e) {
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = e;
  }
  std::vector<Event> heap_;
};

}  // namespace kernsim::sim
