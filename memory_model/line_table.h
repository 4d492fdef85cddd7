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
      if (keys_[i] == 0) return nullptr;
      if (keys_[i] == line + 1) return &vals_[i];
    }
  }

  // Stores `v` for `line` (any but the largest uint64, the empty mark), replacing what was there.
  void put(std::uint64_t line, const V& v) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    std::size_t i = slot(line);
    for (; keys_[i] != 0; i = (i + 1) & mask_)
      if (keys_[i] == line + 1) {
        vals_[i] = v;
        return;
      }
    keys_[i] = line + 1;
    vals_[i] = v;
    ++size_;
  }

  // Keeps the entries for which keep(value) holds, drops the others.
  template <class Keep>
  void retain(Keep&& keep) {
    std::vector<std::uint64_t> keys;
    std::vector<V> vals;
    keys.swap(keys_);
    vals.swap(vals_);
    keys_.assign(keys.size(), 0);
    vals_.assign(vals.size(), V{});
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != 0 && keep(vals[i])) put(keys[i] - 1, vals[i]);
  }

 private:
  std::size_t slot(std::uint64_t line) const {
    return static_cast<std::size_t>((line * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
  }
  void grow() {
    std::vector<std::uint64_t> keys;
    std::vector<V> vals;
    keys.swap(keys_);
    vals.swap(vals_);
    const std::size_t cap = keys.empty() ? 64 : 2 * keys.size();
    keys_.assign(cap, 0);
    vals_.assign(cap, V{});
    mask_ = cap - 1;
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != 0) put(keys[i] - 1, vals[i]);
  }

  std::vector<std::uint64_t> keys_;  // line + 1; 0: empty
  std::vector<V> vals_;
  std::size_t size_ = 0, mask_ = 0;
};

}  // namespace kernsim::mem
