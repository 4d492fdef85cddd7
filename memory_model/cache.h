// kernsim::mem::SectorCache — a set-associative, sectored cache with LRU replacement.
//
// Lines of `line_bytes` hold `line_bytes / sector_bytes` sectors; a line's tag is allocated on
// the first access and sectors fill individually (NVIDIA L1/L2: 128-byte lines, 32-byte
// sectors; AMD: sector = line). Each sector keeps a mask of the 4-byte words written to it, so
// that a write of part of a sector needs no fetch, a read of a partly written sector does, and
// a sector becomes complete data once every word is written. Lines remember when their fill
// arrives, so a hit on a line still in flight waits for it. The set index hashes the line
// address as hardware hashes do. State only; the timing is the caller's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <unordered_map>
#include <vector>

namespace kernsim::mem {

// Allocates on host cache line boundaries (64 bytes), so that a set's state starts one.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};

struct CacheResult {
  std::uint32_t hit_sectors = 0;      // requested sectors present with complete data
  std::uint32_t miss_sectors = 0;     // requested sectors that must be fetched (reads) / were absent (writes)
  std::uint32_t evicted_dirty = 0;    // sectors of the evicted line that were dirty with every word written
  std::uint32_t evicted_partial = 0;  // sectors of the evicted line that were dirty with only part of their words
  bool newly_dirty = false;           // writes: the line held no dirty sector before
  double ready = 0;                   // hits: when the hit sectors' data is there (fills in flight)
};

class SectorCache {
 public:
  // Sectors a line holds at most; the device loader rejects files with more (device::kMaxSectorsPerLine).
  static constexpr int kMaxSectors = 4;

  // How a line picks its set. Multiplicative: a multiplicative hash of the line number (any
  // footprint spreads like random placement). Xor: the line number's bits folded by exclusive-or
  // in groups of log2(sets) bits (rounded up), then modulo the sets: a contiguous footprint fills
  // every set evenly (as a bit-selected index does) while power-of-two strides still spread.
  enum class Index : std::uint8_t { Multiplicative, Xor };

  SectorCache() = default;
  SectorCache(std::uint64_t bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes, std::uint32_t ways,
              Index index = Index::Multiplicative);

  // A read of the sectors in `mask` of `line` (line-aligned). allocate: missing sectors are
  // filled (their data arrives at `fill_ready`, see set_ready).
  CacheResult read(std::uint64_t line, std::uint32_t mask, bool allocate);
  // A write of the given 4-byte words (`words[s]` for sector s of the line) — allocates.
  CacheResult write(std::uint64_t line, std::uint32_t mask, const std::uint32_t* words);
  // Records when the data of the given sectors' outstanding fill arrives.
  void set_ready(std::uint64_t line, std::uint32_t sectors, double t);
  bool invalidate(std::uint64_t line);
  // The capacity a line has, counted in fills rather than ways: a line whose last use came more
  // than `sectors` sectors filled (read misses, write allocations) ago is gone, as if a cache of
  // that many sectors' LRU had evicted it (its dirty sectors are reported as evicted by the access
  // that finds it gone). An SM slice's L2 keeps the whole chip's sets, so that data the whole grid
  // shares fits as on the chip, and this window stands for the chip's capacity as the slice's
  // share of the fills sees it. 0 (the default): only the sets' LRU evicts. Lines a Backfill
  // commits count as used before the first fill.
  void set_use_window(std::uint64_t sectors);
  // Reuse between CTAs under a use window. A slice runs the grid's first CTAs on fewer SMs than
  // the chip, so CTAs the chip runs at once (the same wave of `chip_wave_ctas` resident CTAs)
  // run in the slice waves apart: CTA c + 8 reuses CTA c's A panel while both run on the chip,
  // and in a 7-SM slice a wave later, after the fills of the CTAs started in between. Those
  // fills the chip makes too, but before both CTAs start, not between their uses: a line the
  // user's CTA finds, last used by another CTA of the same chip wave that started earlier, lasts
  // the window plus the fills made between the two CTAs' starts (cta_started()). The window's
  // own reasoning (fills at the slice's share of the chip's rate) then covers the time between
  // the uses as the chip has it. 0: off (the default; a whole chip needs none).
  static constexpr std::uint64_t kNoCta = ~std::uint64_t{0};
  void set_chip_wave(std::uint64_t chip_wave_ctas);
  void cta_started(std::uint64_t cta);                   // a CTA of the slice starts now
  void set_user(std::uint64_t cta) { user_ = cta; }      // the CTA of the accesses that follow (kNoCta: none)
  // Starts loading what a lookup of `line` reads first (its set's tags and recency order) into
  // the host's cache, so that the lines of a scattered warp access miss there together rather
  // than one after another. Changes nothing.
  void prefetch(std::uint64_t line) const {
    if (!sets_) return;
    const std::size_t base = base_of(line);
    const auto first = reinterpret_cast<std::uintptr_t>(tags_.data() + base) / 64;
    const auto last = (reinterpret_cast<std::uintptr_t>(tags_.data() + base + ways_) - 1) / 64;
    for (std::uintptr_t l = first; l <= last; ++l) __builtin_prefetch(reinterpret_cast<const void*>(l * 64));
    __builtin_prefetch(order_.data() + base);
  }
  // The second step of a scattered access's prefetch, once prefetch() has had time to bring the
  // set's tags and stamps: starts loading the per-way state a lookup of `line` reads next (the way
  // holding it, or the way a miss would take, and that way's use-window entries). Changes nothing.
  void prefetch_way(std::uint64_t line) const;
  // Writes a line's dirty sectors back (they become clean); reports them like an eviction.
  CacheResult clean(std::uint64_t line);
  void clear();

  std::uint32_t line_bytes() const { return line_bytes_; }
  std::uint32_t sector_bytes() const { return sector_bytes_; }
  std::uint32_t sectors_per_line() const { return sectors_; }
  std::uint32_t full_words() const { return full_words_; }
  std::uint64_t capacity() const { return std::uint64_t{sets_} * ways_ * line_bytes_; }
  // sectors filled (read misses, write allocations) since the use window was set or the cache made
  std::uint64_t filled_sectors() const { return filled_; }
  bool enabled() const { return sets_ > 0; }

  // Fills an empty cache with what a long run of allocating reads leaves in it, given the run
  // from its end backwards. LRU keeps in each set the `ways` lines used last, whatever came
  // before them, so the run can stop as soon as every set is full. A line's sectors are those
  // of all its uses (exact unless it was evicted and fetched again with other sectors).
  class Backfill {
   public:
    explicit Backfill(SectorCache& cache);
    void use(std::uint64_t line, std::uint32_t sectors);  // the use before the previous one
    bool full() const { return full_sets_ == cache_.sets_; }
    void commit();  // writes the lines into the cache, least recently used first
   private:
    SectorCache& cache_;
    std::vector<std::uint64_t> keys_;    // open addressing: line + 1, 0 = empty
    std::vector<std::uint32_t> slots_;   // per key: index into lines_
    std::vector<std::pair<std::uint64_t, std::uint32_t>> lines_;  // (line, sectors), most recent first
    std::vector<std::uint32_t> per_set_;
    std::uint32_t full_sets_ = 0;
  };

 private:
  // One host cache line a way (56 bytes of state): a lookup's per-way reads and writes miss the
  // host's cache once, not twice where a way straddled two of its lines.
  struct alignas(64) Way {  // tags and recency live in tags_/order_, which lookups scan
    std::array<double, kMaxSectors> ready{};  // when each sector's fill arrives
    std::uint32_t valid = 0;     // sectors with complete data
    std::uint32_t dirty = 0;     // sectors written since fill
    std::array<std::uint32_t, kMaxSectors> words{};  // written words per sector
  };
  std::uint64_t hash_of(std::uint64_t line) const { return (line >> line_shift_) * 0x9E3779B97F4A7C15ull; }  // multiplicative
  std::uint32_t set_of(std::uint64_t line) const;
  std::size_t base_of(std::uint64_t line) const { return std::size_t{set_of(line)} * ways_; }  // the set's first way
  std::uint64_t set_magic_ = 0;  // ~0 / sets_ + 1: the set index's remainder without a division (set_of)
  Way* find(std::size_t base, std::uint64_t line);
  Way* find(std::uint64_t line) { return find(base_of(line), line); }
  // find(), with a line out of the use window invalidated (its dirty sectors reported in `r`)
  Way* find_live(std::size_t base, std::uint64_t line, CacheResult& r);
  Way& allocate(std::size_t base, std::uint64_t line, CacheResult& r);
  std::size_t victim(std::size_t base) const;  // the way allocate() takes: the first invalid one, else the least recently used
  static void report_dirty(const Way& w, std::uint32_t sectors, std::uint32_t full_words, CacheResult& r);
  std::uint32_t line_bytes_ = 128, sector_bytes_ = 32, sectors_ = 4, ways_ = 0, sets_ = 0;
  Index index_ = Index::Multiplicative;
  std::uint32_t fold_bits_ = 1;  // Index::Xor: bits per fold group, ceil(log2(sets_))
  std::uint32_t line_shift_ = 7, full_words_ = 0xff;
  // the way at `base` + w of its set becomes the most recently used
  void touch(std::size_t base, const Way* w) {
    const auto i = static_cast<std::size_t>(w - ways_v_.data());
    const auto way = static_cast<std::uint8_t>(i - base);
    std::uint8_t* order = order_.data() + base;
    std::size_t k = 0;
    while (order[k] != way) ++k;
    for (; k > 0; --k) order[k] = order[k - 1];
    order[0] = way;
    if (window_) used_at_[i] = filled_;
    if (chip_wave_) user_of_[i] = user_;
  }
  std::uint64_t cross_cta_credit(std::size_t way) const;  // see set_chip_wave()
  std::uint64_t window_ = 0;           // set_use_window(); 0: off
  std::uint64_t filled_ = 0;           // sectors filled by read()/write() since the window was set
  bool counting_ = true;               // false while a Backfill commits (its lines are not fills)
  std::vector<std::uint64_t> used_at_;  // per way, with a window: filled_ at its last use
  std::uint64_t chip_wave_ = 0;         // set_chip_wave(); 0: off
  std::uint64_t user_ = kNoCta;         // set_user()
  std::vector<std::uint64_t> user_of_;  // per way, with a chip wave: the CTA of its last use
  std::unordered_map<std::uint64_t, std::uint64_t> started_at_;  // CTA -> filled_ when it started
  std::vector<Way> ways_v_;
  // per way: line + 1, 0 = invalid; a set's tags start on a host cache line (16 ways: two of them)
  std::vector<std::uint64_t, AlignedAllocator<std::uint64_t>> tags_;
  // per set, its ways' numbers from the most to the least recently used: exact LRU in a byte a way,
  // so a lookup reads the tags and a few bytes (a 16-way set's 64-bit use stamps took two host
  // cache lines, each a miss in a large L2's random access)
  std::vector<std::uint8_t> order_;
};

}  // namespace kernsim::mem
