// Content hashing for the compile cache: SHA-256 over byte strings, printed as hex.
//
// The cache key of a compiled kernel is the hash of (source bytes, flags, target, compiler
// version); SHA-256 makes accidental collisions a non-issue for a cache users never purge.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kernsim {

class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view bytes);
  // Separates fields so that ("ab","c") and ("a","bc") hash differently.
  Sha256& field(std::string_view bytes);
  std::string hex();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace kernsim
