// kernsim::mem — what the memory model tells its listeners (the report's views).
#pragma once

#include <cstdint>

namespace kernsim::mem {

enum class Level : std::uint8_t { L1, Shared, L2, Mall, Dram, kCount };

inline const char* to_string(Level l) {
  switch (l) {
    case Level::L1: return "l1";
    case Level::Shared: return "shared";
    case Level::L2: return "l2";
    case Level::Mall: return "mall";
    case Level::Dram: return "dram";
    case Level::kCount: break;
  }
  return "?";
}

// Counters one memory system accumulates; views read them (no checks scattered in the model).
struct MemCounters {
  std::uint64_t requests[static_cast<int>(Level::kCount)] = {};   // sectors/wavefronts looked up
  std::uint64_t hits[static_cast<int>(Level::kCount)] = {};
  std::uint64_t bytes[static_cast<int>(Level::kCount)] = {};      // bytes moved at this level
  std::uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  std::uint64_t shared_wavefronts = 0, shared_ideal_wavefronts = 0;  // bank conflicts = extra
  std::uint64_t atomics = 0;
  std::uint64_t tpc_merged_sectors = 0;  // L1-missing read sectors that joined the TPC partner's L2 request
  std::uint64_t far_l2_bytes = 0;  // bytes of L2 reads and writes that crossed to the SM's far partition

  // Multiplies every count (a slice of the chip standing for the whole).
  void scale(double f) {
    auto m = [f](std::uint64_t& x) { x = static_cast<std::uint64_t>(static_cast<double>(x) * f + 0.5); };
    for (int i = 0; i < static_cast<int>(Level::kCount); ++i) {
      m(requests[i]);
      m(hits[i]);
      m(bytes[i]);
    }
    m(dram_read_bytes);
    m(dram_write_bytes);
    m(shared_wavefronts);
    m(shared_ideal_wavefronts);
    m(atomics);
    m(tpc_merged_sectors);
    m(far_l2_bytes);
  }
};

}  // namespace kernsim::mem
