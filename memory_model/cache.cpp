// Sectored set-associative LRU cache.
#include "memory_model/cache.h"

#include <algorithm>
#include <bit>

namespace kernsim::mem {

SectorCache::SectorCache(std::uint64_t bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes, std::uint32_t ways)
    : line_bytes_(line_bytes), sector_bytes_(sector_bytes ? sector_bytes : line_bytes),
      sectors_(line_bytes / (sector_bytes ? sector_bytes : line_bytes)), ways_(std::max(1u, ways)) {
  line_shift_ = static_cast<std::uint32_t>(std::countr_zero(line_bytes_));
  std::uint64_t lines = bytes / line_bytes_;
  sets_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(lines / ways_, bytes ? 1 : 0));
  tags_.assign(std::size_t{sets_} * ways_, 0);
  valid_.assign(tags_.size(), 0);
  dirty_.assign(tags_.size(), 0);
  stamp_.assign(tags_.size(), 0);
}

void SectorCache::clear() {
  std::fill(tags_.begin(), tags_.end(), 0);
  std::fill(valid_.begin(), valid_.end(), 0);
  std::fill(dirty_.begin(), dirty_.end(), 0);
}

std::uint32_t SectorCache::set_of(std::uint64_t line) const {
  std::uint64_t x = line >> line_shift_;
  // xor-fold higher address bits into the index, as hardware hashes do
  x ^= (x >> 13) ^ (x >> 23) ^ (x >> 31);
  return static_cast<std::uint32_t>(x % sets_);
}

CacheResult SectorCache::access(std::uint64_t line, std::uint32_t mask, bool allocate, bool write) {
  CacheResult r;
  if (!sets_) {
    r.miss_sectors = mask;
    return r;
  }
  ++clock_;
  const std::size_t base = std::size_t{set_of(line)} * ways_;
  const std::uint64_t tag = line + 1;
  std::size_t victim = base;
  for (std::size_t i = base; i < base + ways_; ++i) {
    if (tags_[i] == tag) {
      r.hit_sectors = valid_[i] & mask;
      r.miss_sectors = mask & ~valid_[i];
      if (allocate) valid_[i] |= mask;
      if (write) {
        r.newly_dirty = mask & ~dirty_[i];
        dirty_[i] |= mask;
      }
      stamp_[i] = clock_;
      return r;
    }
    if (tags_[i] == 0) {
      if (tags_[victim] != 0) victim = i;
    } else if (tags_[victim] != 0 && stamp_[i] < stamp_[victim]) {
      victim = i;
    }
  }
  r.miss_sectors = mask;
  if (!allocate) return r;
  if (tags_[victim] != 0) {
    r.dirty_evicted = static_cast<std::uint32_t>(std::popcount(dirty_[victim]));
    r.evicted_line = tags_[victim] - 1;
  }
  tags_[victim] = tag;
  valid_[victim] = mask;
  dirty_[victim] = write ? mask : 0;
  r.newly_dirty = write ? mask : 0;
  stamp_[victim] = clock_;
  return r;
}

bool SectorCache::invalidate(std::uint64_t line) {
  if (!sets_) return false;
  const std::size_t base = std::size_t{set_of(line)} * ways_;
  for (std::size_t i = base; i < base + ways_; ++i)
    if (tags_[i] == line + 1) {
      tags_[i] = 0;
      valid_[i] = dirty_[i] = 0;
      return true;
    }
  return false;
}

}  // namespace kernsim::mem
