// kernsim::sim::GlobalMemory — the simulated device memory: the launch's buffers and the
// module's statics, each an allocation at a fixed device address with guard gaps between them.
//
// Every access is translated through find(): an address that is not inside an allocation (or
// crosses its end) is a fault, reported with the nearest allocation so the user sees "12 bytes
// past the end of arg3 (f32[1000] at 0x...)". Nothing is ever written outside an allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kernsim::sim {

// An allocation's bytes: small ones from malloc/calloc, large ones mapped from the system (fresh
// zero pages, paid for only where the launch writes or reads them, in 2 MiB pages where the
// system gives them: a warp's lanes strided over a large matrix then miss the host's TLB far less).
struct HostBytes {
  std::size_t mapped = 0;  // 0: from malloc/calloc; else the length mapped at `map`
  void* map = nullptr;
  void operator()(std::uint8_t* p) const;
};

struct Allocation {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::string label;          // "arg3 (f32[1000])", "static `counter`"
  bool read_only = false;
  std::unique_ptr<std::uint8_t[], HostBytes> bytes;
  std::uint8_t* data() { return bytes.get(); }
  const std::uint8_t* data() const { return bytes.get(); }

  // A lazy allocation (GlobalMemory::allocate_lazy) fills its bytes page by page when an access
  // first reaches them: `fill(offset, n, dst)` writes bytes [offset, offset + n) of its initial
  // contents to dst. Eager allocations have no filler and pay one test per lookup; so does a lazy
  // one once every page is filled (it drops its filler).
  // The fast tier's pages are 64 bytes: a strided sample (a GEMM's column panel) touches a few
  // dozen bytes per row of a large matrix, a pointer chase one word here and there, and every
  // byte filled costs the initialiser's work (with 4 KiB pages pointer_chase_64MiB's sample
  // filled 64 MiB). The detailed tier's are kLazyPageDetailed: its slices read mostly whole runs.
  static constexpr std::uint64_t kLazyPage = 64;
  static constexpr std::uint64_t kLazyPageDetailed = 1024;
  std::function<void(std::uint64_t, std::uint64_t, std::uint8_t*)> fill;
  std::vector<std::uint8_t> filled;  // per page: 1 once filled
  std::uint64_t page = kLazyPage;     // a power of two (allocate_lazy checks)
  std::uint32_t page_shift = 6;       // log2(page)
  std::uint64_t unfilled = 0;         // pages not filled yet
  bool lazy() const { return static_cast<bool>(fill); }
  // Fills the pages of [offset, offset + n) not yet filled; every page, n == size. Inline for
  // the common case, an access within one page already filled (a warp's lanes spread over a
  // matrix call it once per lane).
  void materialize(std::uint64_t offset, std::uint64_t n) {
    if (!lazy() || offset >= size) return;
    const std::uint64_t p = offset >> page_shift;
    if (filled[p] && (offset + std::max<std::uint64_t>(n, 1) - 1) >> page_shift == p) return;
    fill_pages(offset, n);
  }

 private:
  void fill_pages(std::uint64_t offset, std::uint64_t n);
};

class GlobalMemory {
 public:
  GlobalMemory();
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;

  // A new zero-filled allocation; returns its device address (256-byte aligned, with a
  // 64 KiB guard gap after the previous allocation).
  std::uint64_t allocate(std::uint64_t size, std::string label, bool read_only = false);
  // A new allocation whose bytes `fill(dst)` writes, all `size` of them, before any other use:
  // not zeroed first (a buffer with initial values is written once, not zeroed and copied).
  std::uint64_t allocate_filled(std::uint64_t size, std::string label, const std::function<void(std::uint8_t*)>& fill);
  // The same, filled on demand: a page's initial bytes come from `fill` when find() first
  // reaches it, so that a launch that touches a few pages of a large buffer (the fast tier's
  // sample of a CTA or two) does not pay for writing all of it. Allocation::data() of a lazy
  // allocation is valid only for ranges find() returned it for (or after materialize(0, size)).
  std::uint64_t allocate_lazy(std::uint64_t size, std::string label,
                              std::function<void(std::uint64_t, std::uint64_t, std::uint8_t*)> fill,
                              std::uint64_t page = Allocation::kLazyPage);
  // Fills every lazy allocation's remaining pages (before a caller reads whole buffers).
  void materialize_all() {
    for (auto& a : allocs_)
      if (a->lazy()) a->materialize(0, a->size);
  }
  // An allocation at a fixed address (module statics placed by the decoder).
  void map_at(std::uint64_t base, std::uint64_t size, std::string label, bool read_only);

  // The allocation containing [addr, addr+size), or nullptr.
  Allocation* find(std::uint64_t addr, std::uint64_t size) {
    Allocation* a = find_unfilled(addr, size);
    if (a && a->lazy()) [[unlikely]]
      a->materialize(addr - a->base, size);
    return a;
  }
  // The same without filling a lazy allocation's pages: for a caller that fills only the bytes
  // it reaches (a warp's lanes spread over a range; Allocation::materialize).
  Allocation* find_unfilled(std::uint64_t addr, std::uint64_t size) {
    return last_ && addr - last_->base < last_->size && addr + size - last_->base <= last_->size ? last_
                                                                                                 : find_slow(addr, size);
  }
  Allocation* by_base(std::uint64_t base);
  // "24 bytes past the end of arg3 (f32[1000] at 0x700000010000, 4000 bytes)".
  std::string describe(std::uint64_t addr, std::uint64_t size) const;

  std::vector<std::unique_ptr<Allocation>>& allocations() { return allocs_; }

  // Undo journal: while recording, every write the executor is about to make saves the bytes
  // it overwrites (note_write), and rollback() restores them, newest first. Lets the timing
  // model run one CTA ahead to measure its work without changing what the launch computes.
  // Store epoch: the executors bump it for every instruction that may change memory (a store,
  // an atomic, a barrier arrival), and rollback() bumps it too. The endless-loop detector reads
  // it: a warp whose state repeats while the epoch stands still can never see anything new.
  void note_store() { ++stores_; }
  std::uint64_t stores() const { return stores_; }

  void begin_journal() { journal_.clear(); journaling_ = true; }
  bool journaling() const { return journaling_; }
  void note_write(std::uint8_t* p, std::uint32_t bytes) {
    if (journaling_) journal_.push_back({p, std::vector<std::uint8_t>(p, p + bytes)});
  }
  void rollback() {
    ++stores_;
    for (auto it = journal_.rbegin(); it != journal_.rend(); ++it) std::copy(it->old.begin(), it->old.end(), it->at);
    journal_.clear();
    journaling_ = false;
  }
  // Runs f() with its writes journaled and undone afterwards (also when it throws).
  template <class F>
  void run_undone(F&& f) {
    begin_journal();
    try {
      f();
    } catch (...) {
      rollback();
      throw;
    }
    rollback();
  }

 private:
  Allocation* find_slow(std::uint64_t addr, std::uint64_t size);
  struct Undo {
    std::uint8_t* at;
    std::vector<std::uint8_t> old;
  };
  std::vector<Undo> journal_;
  std::uint64_t stores_ = 0;
  bool journaling_ = false;
  std::vector<std::unique_ptr<Allocation>> allocs_;  // sorted by base
  Allocation* last_ = nullptr;
  std::uint64_t next_ = 0;
};

}  // namespace kernsim::sim
