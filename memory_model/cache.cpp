// Sectored set-associative LRU cache with written-word masks.
#include "memory_model/cache.h"

#include <algorithm>
#include <bit>

namespace kernsim::mem {

SectorCache::SectorCache(std::uint64_t bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes, std::uint32_t ways,
                         Index index)
    : line_bytes_(line_bytes), sector_bytes_(sector_bytes ? sector_bytes : line_bytes),
      sectors_(line_bytes / (sector_bytes ? sector_bytes : line_bytes)), ways_(std::max(1u, ways)), index_(index) {
  sectors_ = std::min<std::uint32_t>(sectors_, kMaxSectors);
  line_shift_ = static_cast<std::uint32_t>(std::countr_zero(line_bytes_));
  const std::uint32_t words = std::min<std::uint32_t>(32, sector_bytes_ / 4);
  full_words_ = words >= 32 ? 0xffffffffu : ((1u << words) - 1);
  std::uint64_t lines = bytes / line_bytes_;
  sets_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(lines / ways_, bytes ? 1 : 0));
  fold_bits_ = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::bit_width(sets_ > 1 ? sets_ - 1 : 1u)));
  set_magic_ = sets_ ? ~std::uint64_t{0} / sets_ + 1 : 0;
  ways_v_.assign(std::size_t{sets_} * ways_, Way{});
  tags_.assign(ways_v_.size(), 0);
  order_.resize(ways_v_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::uint8_t>(i % ways_);
}

void SectorCache::clear() {
  std::fill(ways_v_.begin(), ways_v_.end(), Way{});
  std::fill(tags_.begin(), tags_.end(), 0);
  std::fill(used_at_.begin(), used_at_.end(), 0);
  std::fill(user_of_.begin(), user_of_.end(), kNoCta);
  started_at_.clear();
  filled_ = 0;
}

void SectorCache::set_use_window(std::uint64_t sectors) {
  window_ = sectors;
  filled_ = 0;
  used_at_.assign(sectors ? ways_v_.size() : 0, 0);
}

void SectorCache::set_chip_wave(std::uint64_t chip_wave_ctas) {
  chip_wave_ = chip_wave_ctas;
  user_of_.assign(chip_wave_ctas ? ways_v_.size() : 0, kNoCta);
  started_at_.clear();
}

void SectorCache::cta_started(std::uint64_t cta) {
  if (chip_wave_) started_at_[cta] = filled_;
}

std::uint64_t SectorCache::cross_cta_credit(std::size_t way) const {
  if (!chip_wave_ || user_ == kNoCta) return 0;
  const std::uint64_t last = user_of_[way];
  if (last == kNoCta || last == user_) return 0;
  if (last / chip_wave_ != user_ / chip_wave_) return 0;  // the chip runs them waves apart too
  const auto a = started_at_.find(last), b = started_at_.find(user_);
  if (a == started_at_.end() || b == started_at_.end() || b->second <= a->second) return 0;
  return b->second - a->second;
}

void SectorCache::report_dirty(const Way& w, std::uint32_t sectors, std::uint32_t full_words, CacheResult& r) {
  for (std::uint32_t s = 0; s < sectors; ++s) {
    if (!(w.dirty >> s & 1)) continue;
    if (w.words[s] != full_words && !(w.valid >> s & 1)) r.evicted_partial |= 1u << s;
    else r.evicted_dirty |= 1u << s;
  }
}

std::uint32_t SectorCache::set_of(std::uint64_t line) const {
  if (index_ == Index::Xor) {  // fold the line number's bits, then the sets (not always a power of two)
    const std::uint64_t group = (std::uint64_t{1} << fold_bits_) - 1;
    std::uint64_t h = 0;
    for (std::uint64_t x = line >> line_shift_; x; x >>= fold_bits_) h ^= x & group;
    const std::uint64_t low = set_magic_ * static_cast<std::uint32_t>(h);  // h % sets_, as below
    return static_cast<std::uint32_t>((static_cast<unsigned __int128>(low) * sets_) >> 64);
  }
  // GPU caches hash the set index so that power-of-two strides (matrix rows, tiles) spread
  // over all sets; a multiplicative hash of the line number does the same without pretending
  // to know the undocumented bit selection.
  // the remainder of the hash's upper 32 bits by sets_, by multiplication (Lemire, Kaser and Kurz,
  // "Faster remainder by direct computation", 2019: exact for 32-bit dividends and divisors)
  const auto h = static_cast<std::uint32_t>(hash_of(line) >> 32);
  const std::uint64_t low = set_magic_ * h;
  return static_cast<std::uint32_t>((static_cast<unsigned __int128>(low) * sets_) >> 64);
}

SectorCache::Way* SectorCache::find(std::size_t base, std::uint64_t line) {
  const std::uint64_t* t = tags_.data() + base;
  for (std::uint32_t i = 0; i < ways_; ++i)
    if (t[i] == line + 1) return &ways_v_[base + i];
  return nullptr;
}

SectorCache::Way* SectorCache::find_live(std::size_t base, std::uint64_t line, CacheResult& r) {
  Way* w = find(base, line);
  if (!w || !window_) return w;
  const auto i = static_cast<std::size_t>(w - ways_v_.data());
  const std::uint64_t age = filled_ - used_at_[i];
  if (age <= window_ || age - window_ <= cross_cta_credit(i)) return w;
  report_dirty(*w, sectors_, full_words_, r);  // out of the window: evicted, its dirty data written back
  *w = Way{};
  tags_[i] = 0;
  return nullptr;
}

void SectorCache::prefetch_way(std::uint64_t line) const {
  if (!sets_) return;
  const std::size_t base = base_of(line);
  std::size_t way = victim(base);
  for (std::size_t i = base; i < base + ways_; ++i)
    if (tags_[i] == line + 1) way = i;
  __builtin_prefetch(ways_v_.data() + way);
  if (window_) __builtin_prefetch(used_at_.data() + way);
  if (chip_wave_) __builtin_prefetch(user_of_.data() + way);
}

// Exact LRU: a set's ways in use order (order_). A way allocated is used at once (touch), so every
// valid way has its place by its last use.
std::size_t SectorCache::victim(std::size_t base) const {
  for (std::size_t i = base; i < base + ways_; ++i)
    if (tags_[i] == 0) return i;
  return base + order_[base + ways_ - 1];
}

SectorCache::Way& SectorCache::allocate(std::size_t base, std::uint64_t line, CacheResult& r) {
  const std::size_t v = victim(base);
  Way& w = ways_v_[v];
  if (tags_[v] != 0) report_dirty(w, sectors_, full_words_, r);
  w = Way{};
  tags_[v] = line + 1;
  return w;
}

CacheResult SectorCache::read(std::uint64_t line, std::uint32_t mask, bool alloc) {
  CacheResult r;
  if (!sets_) {
    r.miss_sectors = mask;
    return r;
  }
  const std::size_t base = base_of(line);
  Way* w = find_live(base, line, r);
  if (w) {
    r.hit_sectors = w->valid & mask;
    r.miss_sectors = mask & ~w->valid;
    if (alloc && counting_) filled_ += static_cast<std::uint64_t>(std::popcount(r.miss_sectors));
    for (std::uint32_t s = 0; s < sectors_; ++s)
      if (r.hit_sectors >> s & 1) r.ready = std::max(r.ready, w->ready[s]);
    if (alloc) {
      w->valid |= mask;
      for (std::uint32_t s = 0; s < sectors_; ++s)
        if (mask >> s & 1) w->words[s] = full_words_;
    }
    touch(base, w);
    return r;
  }
  r.miss_sectors = mask;
  if (!alloc) return r;
  if (counting_) filled_ += static_cast<std::uint64_t>(std::popcount(mask));
  Way& n = allocate(base, line, r);
  n.valid = mask;
  for (std::uint32_t s = 0; s < sectors_; ++s)
    if (mask >> s & 1) n.words[s] = full_words_;
  touch(base, &n);
  return r;
}

CacheResult SectorCache::write(std::uint64_t line, std::uint32_t mask, const std::uint32_t* words) {
  CacheResult r;
  if (!sets_) {
    r.miss_sectors = mask;
    return r;
  }
  const std::size_t base = base_of(line);
  Way* w = find_live(base, line, r);
  if (!w) {
    r.miss_sectors = mask;
    if (counting_) filled_ += static_cast<std::uint64_t>(std::popcount(mask));
    w = &allocate(base, line, r);
  }
  touch(base, w);
  r.newly_dirty = w->dirty == 0;
  for (std::uint32_t s = 0; s < sectors_; ++s) {
    if (!(mask >> s & 1)) continue;
    const std::uint32_t bit = 1u << s;
    w->words[s] |= words ? words[s] : full_words_;
    w->dirty |= bit;
    if (w->words[s] == full_words_) w->valid |= bit;
  }
  return r;
}

void SectorCache::set_ready(std::uint64_t line, std::uint32_t sectors, double t) {
  if (Way* w = find(line))
    for (std::uint32_t s = 0; s < sectors_; ++s)
      if (sectors >> s & 1) w->ready[s] = std::max(w->ready[s], t);
}

CacheResult SectorCache::clean(std::uint64_t line) {
  CacheResult r;
  if (!sets_) return r;
  if (Way* w = find(line)) {
    report_dirty(*w, sectors_, full_words_, r);
    w->valid |= r.evicted_partial;  // the read-modify-write leaves the sector whole
    w->dirty = 0;
  }
  return r;
}

bool SectorCache::invalidate(std::uint64_t line) {
  if (!sets_) return false;
  if (Way* w = find(line)) {
    *w = Way{};
    tags_[static_cast<std::size_t>(w - ways_v_.data())] = 0;
    return true;
  }
  return false;
}

SectorCache::Backfill::Backfill(SectorCache& cache) : cache_(cache) {
  const std::size_t lines = std::size_t{cache.sets_} * cache.ways_;
  std::size_t n = 16;
  while (n < 2 * lines) n *= 2;  // at most half full
  keys_.assign(n, 0);
  slots_.assign(n, 0);
  per_set_.assign(cache.sets_, 0);
  lines_.reserve(lines);
}

void SectorCache::Backfill::use(std::uint64_t line, std::uint32_t sectors) {
  if (!cache_.sets_) return;
  const std::uint32_t set = cache_.set_of(line);
  const bool room = per_set_[set] < cache_.ways_;
  const std::size_t mask = keys_.size() - 1;
  for (std::size_t h = static_cast<std::size_t>(cache_.hash_of(line) >> 20) & mask;; h = (h + 1) & mask) {
    if (keys_[h] == line + 1) {  // used later: it stays, with the sectors of its earlier uses
      lines_[slots_[h]].second |= sectors;
      return;
    }
    if (keys_[h] == 0) {
      if (!room) return;  // evicted before the end of the run
      keys_[h] = line + 1;
      slots_[h] = static_cast<std::uint32_t>(lines_.size());
      lines_.push_back({line, sectors});
      if (++per_set_[set] == cache_.ways_) ++full_sets_;
      return;
    }
  }
}

void SectorCache::Backfill::commit() {
  cache_.counting_ = false;  // present before the first fill: used at fill count 0, by no CTA of the slice
  const std::uint64_t user = cache_.user_;
  cache_.user_ = kNoCta;
  for (auto it = lines_.rbegin(); it != lines_.rend(); ++it) cache_.read(it->first, it->second, true);
  cache_.user_ = user;
  cache_.counting_ = true;
  lines_.clear();
}

}  // namespace kernsim::mem
