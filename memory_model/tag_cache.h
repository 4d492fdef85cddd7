// kernsim::mem::TagCache — a large set-associative LRU cache that keeps one tag, one dirty bit
// and one fill time per line and nothing else, for memory-side caches of hundreds of MiB (AMD's
// MALL / Infinity Cache) where SectorCache's per-sector state would cost more memory than the
// rest of the simulation. The arrays are zero pages from the OS and only the sets a kernel
// touches are ever written, so a 256 MiB cache costs what the kernel's footprint costs; tags and
// LRU stamps sit in arrays of their own, so a lookup reads two cache lines of the host.
//
// State only; timing is the caller's. The set index hashes the line number as SectorCache does.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace kernsim::mem {

class TagCache {
 public:
  struct Result {
    bool hit = false;
    bool evicted_dirty = false;  // the line displaced to make room had been written
    double ready = 0;            // hits: when the line's fill arrives (a fill still in flight)
  };

  TagCache() = default;
  TagCache(std::uint64_t bytes, std::uint32_t line_bytes, std::uint32_t ways)
      : line_shift_(static_cast<std::uint32_t>(__builtin_ctz(line_bytes ? line_bytes : 1))), ways_(ways ? ways : 1) {
    const std::uint64_t lines = line_bytes ? bytes / line_bytes : 0;
    sets_ = lines / ways_;
    const std::size_t n = static_cast<std::size_t>(sets_ * ways_);
    if (n) {
      tag_ = zeroed<std::uint64_t>(n);
      stamp_ = zeroed<std::uint64_t>(n);
      ready_ = zeroed<double>(n);
      dirty_ = zeroed<std::uint8_t>(n);
    }
  }

  bool enabled() const { return sets_ > 0; }

  // Looks `line` (line-aligned address) up and makes it most recently used; a miss allocates it,
  // evicting the least recently used way. `write` marks the line dirty.
  Result access(std::uint64_t line, bool write) {
    Result r;
    if (!sets_) return r;
    ++clock_;
    const std::size_t base = set_base(line);
    std::uint64_t* tags = tag_.get() + base;
    std::size_t victim = 0;
    for (std::size_t i = 0; i < ways_; ++i) {
      if (tags[i] == line + 1) {
        r.hit = true;
        r.ready = ready_.get()[base + i];
        stamp_.get()[base + i] = clock_;
        dirty_.get()[base + i] |= write;
        return r;
      }
      if (tags[i] == 0) {
        if (tags[victim] != 0) victim = i;
      } else if (tags[victim] != 0 && stamp_.get()[base + i] < stamp_.get()[base + victim]) {
        victim = i;
      }
    }
    const std::size_t v = base + victim;
    r.evicted_dirty = tags[victim] != 0 && dirty_.get()[v];
    tags[victim] = line + 1;
    stamp_.get()[v] = clock_;
    ready_.get()[v] = 0;
    dirty_.get()[v] = write;
    return r;
  }

  // Warm-up of an empty cache from accesses seen newest first (an SM/CU slice's share of a
  // memory-side cache, as the rest of the chip leaves it): backfill() puts `line` in as older
  // than every line already there, if its set has a free way and it is not there yet; later
  // access()es are newer than every backfilled line. A backfilled line's `ready` is kPending
  // until set_ready(): the caller decides when its first use sees the data. Returns whether
  // every set is full.
  // `ready` 0 instead: the line is there with its data (a previous launch left it); such a
  // backfill also makes a pending line present.
  static constexpr double kPending = -1;
  bool backfill(std::uint64_t line, double ready = kPending) {
    if (!sets_) return true;
    if (clock_ < kBackfillBase) clock_ = back_ = kBackfillBase;
    const std::size_t base = set_base(line);
    std::uint64_t* tags = tag_.get() + base;
    for (std::size_t i = 0; i < ways_; ++i)
      if (tags[i] == line + 1) {
        if (ready != kPending) ready_.get()[base + i] = ready;
        return filled_ >= sets_ * ways_;
      }
    if (filled_ >= sets_ * ways_) return true;
    for (std::size_t i = 0; i < ways_; ++i) {
      if (tags[i] == 0) {
        tags[i] = line + 1;
        stamp_.get()[base + i] = --back_;
        ready_.get()[base + i] = ready;
        ++filled_;
        return false;
      }
    }
    return false;
  }
  bool backfill_full() const { return !sets_ || filled_ >= sets_ * ways_; }

  // Records when the fill of `line` (allocated by a miss) arrives.
  void set_ready(std::uint64_t line, double t) {
    if (!sets_) return;
    const std::size_t base = set_base(line);
    for (std::size_t i = 0; i < ways_; ++i)
      if (tag_.get()[base + i] == line + 1) ready_.get()[base + i] = t;
  }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  template <class T>
  using Array = std::unique_ptr<T, Free>;
  template <class T>
  static Array<T> zeroed(std::size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (!p) throw std::bad_alloc();
    return Array<T>(static_cast<T*>(p));
  }
  std::size_t set_base(std::uint64_t line) const {
    const std::uint64_t x = (line >> line_shift_) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>((x >> 32) % sets_) * ways_;
  }
  std::uint32_t line_shift_ = 7;
  std::size_t ways_ = 1;
  std::uint64_t sets_ = 0;
  // backfilled lines get stamps counting down from here; access() counts up from it
  static constexpr std::uint64_t kBackfillBase = std::uint64_t{1} << 48;
  std::uint64_t clock_ = 0, back_ = 0, filled_ = 0;
  Array<std::uint64_t> tag_;  // line + 1; 0 = invalid
  Array<std::uint64_t> stamp_;
  Array<double> ready_;
  Array<std::uint8_t> dirty_;
};

}  // namespace kernsim::mem
