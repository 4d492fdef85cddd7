// kernsim::mem::NvMemorySystem — the NVIDIA memory hierarchy as timing: per-SM L1 (sectored,
// write-through, no write-allocate) and shared memory banks, one L2 (sectored, write-back),
// HBM. Bandwidth-limited resources are Servers (FIFO queues in time), so latency grows with
// load; capacities and latencies come from the DeviceSpec.
//
// Each call takes one warp instruction's lane addresses and returns when its data is back
// (loads) or accepted (stores). Addresses are coalesced into 32-byte sectors of 128-byte lines
// first, as the hardware does.
#pragma once

#include <cstdint>
#include <vector>

#include "device/device_spec.h"
#include "memory_model/cache.h"
#include "memory_model/events.h"
#include "memory_model/server.h"

namespace kernsim::mem {

enum class Access : std::uint8_t { Load, Store, Atomic, LoadBypassL1 };

class NvMemorySystem {
 public:
  NvMemorySystem(const device::DeviceSpec& dev, int num_sms, std::uint64_t l1_bytes);

  // Global/local memory access by one warp. `bytes` per lane; lanes in `mask`.
  double global(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, Access kind);
  // Shared memory access: bank conflicts serialise into wavefronts of one bank-width word per bank.
  double shared(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, bool atomic);
  // A shared access of `wavefronts` conflict-free wavefronts (ldmatrix, wide accesses).
  double shared_wavefronts(int sm, double t, std::uint32_t wavefronts);

  const MemCounters& counters() const { return c_; }
  double dram_busy_cycles() const { return dram_.busy_cycles(); }
  double l2_busy_cycles() const { return l2_.busy_cycles(); }
  double dram_bytes_per_cycle() const { return dram_.rate(); }
  double l2_bytes_per_cycle() const { return l2_.rate(); }

 private:
  double l2_access(double t, std::uint64_t line, std::uint32_t sectors, bool write, bool atomic);
  void write_back(double t, std::uint32_t sectors);

  const device::DeviceSpec& dev_;
  std::uint32_t sector_ = 32, line_ = 128;
  double l1_lat_, l2_lat_, dram_lat_, smem_lat_;
  double read_cost_, write_cost_;  // DRAM service bytes per data byte (1/efficiency)
  std::vector<SectorCache> l1_;
  std::vector<Server> l1_bw_;
  std::vector<Server> smem_bw_;
  SectorCache l2c_;
  Server l2_;
  Server dram_;
  std::vector<Server> atomic_units_;  // per L2 slice
  MemCounters c_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> scratch_;  // (line, sector mask)
};

}  // namespace kernsim::mem
