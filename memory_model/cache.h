// kernsim::mem::SectorCache — a set-associative, sectored cache with LRU replacement.
//
// Lines of `line_bytes` hold `line_bytes / sector_bytes` sectors; a line's tag is allocated on
// the first access and sectors fill individually (NVIDIA L1/L2: 128-byte lines, 32-byte
// sectors; AMD: sector = line). Writes mark sectors dirty (write-back caches) or bypass
// (write-through L1, see access()). The set index hashes the line address so that strided
// streams spread over sets as in the hardware's hashed indexing. State only; no timing here.
#pragma once

#include <cstdint>
#include <vector>

namespace kernsim::mem {

struct CacheResult {
  std::uint32_t hit_sectors = 0;      // mask of requested sectors found
  std::uint32_t miss_sectors = 0;     // mask of requested sectors filled now
  std::uint32_t newly_dirty = 0;      // mask of requested sectors that a write made dirty now
  std::uint32_t dirty_evicted = 0;    // number of dirty sectors written back by the eviction
  std::uint64_t evicted_line = 0;
};

class SectorCache {
 public:
  SectorCache() = default;
  SectorCache(std::uint64_t bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes, std::uint32_t ways);

  // Looks up `line` (a line-aligned address) for the sectors in `mask`. allocate: fill missing
  // sectors (and the line if absent); write: mark the sectors dirty.
  CacheResult access(std::uint64_t line, std::uint32_t mask, bool allocate, bool write);
  // Drops a line if present (write-through invalidation). Returns true if it was present.
  bool invalidate(std::uint64_t line);
  void clear();

  std::uint32_t line_bytes() const { return line_bytes_; }
  std::uint32_t sector_bytes() const { return sector_bytes_; }
  std::uint32_t sectors_per_line() const { return sectors_; }
  std::uint64_t capacity() const { return std::uint64_t{sets_} * ways_ * line_bytes_; }
  bool enabled() const { return sets_ > 0; }

 private:
  std::uint32_t set_of(std::uint64_t line) const;
  std::uint32_t line_bytes_ = 128, sector_bytes_ = 32, sectors_ = 4, ways_ = 0, sets_ = 0;
  std::uint32_t line_shift_ = 7;
  std::vector<std::uint64_t> tags_;    // sets_ * ways_, 0 = invalid (tags store line+1)
  std::vector<std::uint32_t> valid_;   // sector masks
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint64_t> stamp_;   // LRU
  std::uint64_t clock_ = 0;
};

}  // namespace kernsim::mem
