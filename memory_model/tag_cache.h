// kernsim::mem::TagCache — a large set-associative LRU cache that keeps one tag, one dirty bit
// and one fill time per line and nothing else, for memory-side caches of hundreds of MiB (AMD's
// MALL / Infinity Cache) where SectorCache's per-sector state would cost more memory than the
// rest of the simulation. The tag array is zero pages from the OS and only the sets a kernel
// touches are ever written, so a 256 MiB cache costs what the kernel's footprint costs.
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
    if (sets_) {
      void* p = std::calloc(static_cast<std::size_t>(sets_ * ways_), sizeof(Way));
      if (!p) throw std::bad_alloc();
      ways_v_.reset(static_cast<Way*>(p));
    }
  }

  bool enabled() const { return sets_ > 0; }

  // Looks `line` (line-aligned address) up and makes it most recently used; a miss allocates it,
  // evicting the least recently used way. `write` marks the line dirty.
  Result access(std::uint64_t line, bool write) {
    Result r;
    if (!sets_) return r;
    ++clock_;
    Way* set = &ways_v_.get()[set_of(line) * ways_];
    Way* victim = set;
    for (std::uint32_t i = 0; i < ways_; ++i) {
      Way& w = set[i];
      if (w.tag == line + 1) {
        r.hit = true;
        r.ready = w.ready;
        w.stamp = clock_;
        w.dirty |= write;
        return r;
      }
      if (w.tag == 0) {
        if (victim->tag != 0) victim = &w;
      } else if (victim->tag != 0 && w.stamp < victim->stamp) {
        victim = &w;
      }
    }
    r.evicted_dirty = victim->tag != 0 && victim->dirty;
    *victim = Way{line + 1, clock_, 0.0, write};
    return r;
  }

  // Records when the fill of `line` (allocated by a miss) arrives.
  void set_ready(std::uint64_t line, double t) {
    if (!sets_) return;
    Way* set = &ways_v_.get()[set_of(line) * ways_];
    for (std::uint32_t i = 0; i < ways_; ++i)
      if (set[i].tag == line + 1) set[i].ready = t;
  }

 private:
  struct Way {
    std::uint64_t tag;  // line + 1; 0 = invalid
    std::uint64_t stamp;
    double ready;
    bool dirty;
  };
  struct Free {
    void operator()(Way* p) const { std::free(p); }
  };
  std::uint64_t set_of(std::uint64_t line) const {
    const std::uint64_t x = (line >> line_shift_) * 0x9E3779B97F4A7C15ull;
    return (x >> 32) % sets_;
  }
  std::uint32_t line_shift_ = 7, ways_ = 1;
  std::uint64_t sets_ = 0;
  std::uint64_t clock_ = 0;
  std::unique_ptr<Way, Free> ways_v_;
};

}  // namespace kernsim::mem
