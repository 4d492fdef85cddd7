// kernsim::mem::LineCache — a set-associative LRU cache of whole lines (AMD's vL1D, L2 and scalar
// cache: the fill granule is the line), with the 4-byte words written to each line, a dirty bit
// and the time each line's fill arrives.
//
// SectorCache models sectored lines; this is the same state for caches without sectors, laid out
// for the host: tags and LRU stamps sit in their own arrays, so a lookup in a 16-way set reads two
// cache lines of the host instead of sixteen structures, and lookups return the way they found or
// allocated so that a later update (the fill time of a miss) needs no second search. A line
// written in part holds only its written words: a read of it misses (the rest must be fetched),
// and it becomes complete data once every word is written. State only; the timing is the caller's.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace kernsim::mem {

class LineCache {
 public:
  struct Result {
    bool hit = false;               // reads: the line is present with complete data; writes: present
    bool was_dirty = false;         // the line held written data before this access
    bool evicted_dirty = false;     // the line displaced to make room held written data
    std::uint32_t evicted_words = 0;  // ...these words of it
    std::uint64_t evicted_line = 0;
    double ready = 0;               // read hits: when the line's fill arrives (a fill still in flight)
    std::int64_t way = -1;          // where the line now is (-1: not allocated)
  };

  LineCache() = default;
  LineCache(std::uint64_t bytes, std::uint32_t line_bytes, std::uint32_t ways)
      : line_bytes_(line_bytes), ways_(std::max(1u, ways)) {
    line_shift_ = static_cast<std::uint32_t>(std::countr_zero(line_bytes_));
    const std::uint32_t words = std::min<std::uint32_t>(32, line_bytes_ / 4);
    full_ = words >= 32 ? 0xffffffffu : ((1u << words) - 1);
    sets_ = static_cast<std::uint32_t>(bytes / line_bytes_ / ways_);
    const std::size_t n = std::size_t{sets_} * ways_;
    tag_.assign(n, 0);
    stamp_.assign(n, 0);
    words_.assign(n, 0);
    dirty_.assign(n, 0);
    ready_.assign(n, 0.0);
  }

  bool enabled() const { return sets_ > 0; }
  std::uint32_t line_bytes() const { return line_bytes_; }
  std::uint32_t full_words() const { return full_; }

  // A read of `line`; allocate: a miss takes a way (the fill's arrival is the caller's, set_ready).
  Result read(std::uint64_t line, bool allocate) {
    Result r;
    if (!sets_) return r;
    const std::size_t base = set_base(line);
    const std::int64_t w = find(base, line);
    if (w >= 0) {
      const auto i = static_cast<std::size_t>(w);
      stamp_[i] = ++clock_;
      r.was_dirty = dirty_[i];
      r.way = w;
      if (words_[i] == full_) {
        r.hit = true;
        r.ready = ready_[i];
      } else if (allocate) {
        words_[i] = full_;  // the fetched rest completes it
      }
      return r;
    }
    if (!allocate) return r;
    r.way = take(base, line, r);
    words_[static_cast<std::size_t>(r.way)] = full_;
    return r;
  }

  // A write of `words` of `line` (allocates without fetching).
  Result write(std::uint64_t line, std::uint32_t words) {
    Result r;
    if (!sets_) return r;
    const std::size_t base = set_base(line);
    std::int64_t w = find(base, line);
    if (w >= 0) {
      r.hit = true;
      r.was_dirty = dirty_[static_cast<std::size_t>(w)];
    } else {
      w = take(base, line, r);
    }
    const auto i = static_cast<std::size_t>(w);
    stamp_[i] = ++clock_;
    words_[i] |= words & full_;
    dirty_[i] = 1;
    r.way = w;
    return r;
  }

  // Warm-up of an empty cache from accesses seen newest first (what a previous launch left):
  // puts `line` in, complete and clean, as older than every line already there, if its set has a
  // free way and it is not there yet; later reads and writes are newer than every backfilled
  // line. Returns whether every set is full.
  bool backfill(std::uint64_t line) {
    if (!sets_ || filled_ >= std::uint64_t{sets_} * ways_) return true;
    if (clock_ < kBackfillBase) clock_ = back_ = kBackfillBase;
    const std::size_t base = set_base(line);
    if (find(base, line) >= 0) return false;
    for (std::size_t i = base; i < base + ways_; ++i)
      if (tag_[i] == 0) {
        tag_[i] = line + 1;
        stamp_[i] = --back_;
        words_[i] = full_;
        dirty_[i] = 0;
        ready_[i] = 0;
        ++filled_;
        break;
      }
    return filled_ >= std::uint64_t{sets_} * ways_;
  }

  // When the fill of the line at `way` (from read/write) arrives.
  void set_ready(std::int64_t way, double t) {
    if (way >= 0) ready_[static_cast<std::size_t>(way)] = std::max(ready_[static_cast<std::size_t>(way)], t);
  }

  // Drops `line`; returns whether it held written data.
  bool invalidate(std::uint64_t line) {
    if (!sets_) return false;
    const std::int64_t w = find(set_base(line), line);
    if (w < 0) return false;
    const auto i = static_cast<std::size_t>(w);
    const bool d = dirty_[i];
    tag_[i] = 0;
    words_[i] = 0;
    dirty_[i] = 0;
    return d;
  }

  // Lines holding written data (what a write-back of the whole cache moves), and marking them clean.
  std::uint64_t dirty_lines() const {
    return static_cast<std::uint64_t>(std::count(dirty_.begin(), dirty_.end(), std::uint8_t{1}));
  }
  void clean() { std::fill(dirty_.begin(), dirty_.end(), std::uint8_t{0}); }
  void clear() {
    std::fill(tag_.begin(), tag_.end(), 0);
    std::fill(words_.begin(), words_.end(), 0u);
    std::fill(dirty_.begin(), dirty_.end(), std::uint8_t{0});
    filled_ = 0;
  }

 private:
  // The set index hashes the line number, as GPU caches spread power-of-two strides over sets.
  std::size_t set_base(std::uint64_t line) const {
    const std::uint64_t x = (line >> line_shift_) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>((x >> 32) % sets_) * ways_;
  }
  std::int64_t find(std::size_t base, std::uint64_t line) const {
    for (std::size_t i = base; i < base + ways_; ++i)
      if (tag_[i] == line + 1) return static_cast<std::int64_t>(i);
    return -1;
  }
  std::int64_t take(std::size_t base, std::uint64_t line, Result& r) {
    std::size_t victim = base;
    for (std::size_t i = base; i < base + ways_; ++i) {
      if (tag_[i] == 0) { victim = i; break; }
      if (stamp_[i] < stamp_[victim]) victim = i;
    }
    if (tag_[victim] != 0 && dirty_[victim]) {
      r.evicted_dirty = true;
      r.evicted_words = words_[victim];
      r.evicted_line = tag_[victim] - 1;
    }
    tag_[victim] = line + 1;
    stamp_[victim] = ++clock_;
    words_[victim] = 0;
    dirty_[victim] = 0;
    ready_[victim] = 0;
    return static_cast<std::int64_t>(victim);
  }

  std::uint32_t line_bytes_ = 128, line_shift_ = 7, ways_ = 1, sets_ = 0, full_ = 0xffffffffu;
  std::vector<std::uint64_t> tag_;  // line + 1; 0 = invalid
  std::vector<std::uint64_t> stamp_;
  std::vector<std::uint32_t> words_;
  std::vector<std::uint8_t> dirty_;
  std::vector<double> ready_;
  std::uint64_t clock_ = 0;
  // backfilled lines get stamps counting down from here; reads and writes count up from it
  static constexpr std::uint64_t kBackfillBase = std::uint64_t{1} << 48;
  std::uint64_t back_ = 0, filled_ = 0;
};

}  // namespace kernsim::mem
