// Counter-based pseudo-random numbers: value i of stream s depends only on (seed, s, i), so
// buffer initialisation is deterministic, order-independent and parallelisable.
#pragma once

#include <cstdint>

namespace kernsim {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline std::uint64_t counter_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return splitmix64(splitmix64(seed ^ splitmix64(stream + 0x632be59bd9b4e019ull)) + index);
}

// Uniform in [-1, 1) with 24 random bits (exactly representable in float).
inline float counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  std::uint64_t r = counter_random(seed, stream, index) >> 40;  // 24 bits
  return static_cast<float>(static_cast<double>(r) / 8388608.0 - 1.0);
}

}  // namespace kernsim
