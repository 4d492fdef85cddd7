// kernsim::mem::LineTable — a map from line number to a small value, flat (open addressing,
// linear probing) instead of std::unordered_map's node per entry: the NVIDIA model's TPC request
// merging looks up and records every L1-missing read line, and a random gather (a pointer chase
// over 64 MiB, a CSR SpMV's x) spent half its time in node allocation and the cache misses of
// chasing buckets to nodes. It has map semantics: what find() returns does not depend on the
// order of put()s and retain()s, only on their effect, so swapping it for a node map changes no
// result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kernsim::mem {

template <class V>
class LineTable {
 public:
  std::size_t size() const { return size_; }

  // The value stored for `line`, or nullptr.
  const V* find(std::uint64_t line) const {
    if (size_ == 0) return nullptr;
    for (std::size_t i = slot(line);; i = (i + 1) & mask_) {
      if (slots_[i].key == 0) return nullptr;
      if (slots_[i].key == line + 1) return &slots_[i].val;
    }
  }

  // Starts loading the slot find(line) and put(line) read first into the host's cache (a
  // scattered warp access's lines miss there together). Changes nothing.
  void prefetch(std::uint64_t line) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + slot(line));
  }

  // Stores `v` for `line` (any but the largest uint64, the empty mark), replacing what was there.
  void put(std::uint64_t line, const V& v) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot(line);
    for (; slots_[i].key != 0; i = (i + 1) & mask_)
      if (slots_[i].key == line + 1) {
        slots_[i].val = v;
        return;
      }
    slots_[i] = Slot{line + 1, v};
    ++size_;
  }

  // Keeps the entries for which keep(value) holds, drops the others.
  template <class Keep>
  void retain(Keep&& keep) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size(), Slot{});
    size_ = 0;
    for (const Slot& e : old)
      if (e.key != 0 && keep(e.val)) put(e.key - 1, e.val);
  }

 private:
  // key and value side by side: a lookup of a random line misses the host's cache once
  struct Slot {
    std::uint64_t key = 0;  // line + 1; 0: empty
    V val{};
  };
  std::size_t slot(std::uint64_t line) const {
    return static_cast<std::size_t>((line * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    const std::size_t cap = old.empty() ? 64 : 2 * old.size();
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    size_ = 0;
    for (const Slot& e : old)
      if (e.key != 0) put(e.key - 1, e.val);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0, mask_ = 0;
};

}  // namespace kernsim::mem
