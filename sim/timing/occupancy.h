// Occupancy: how many CTAs of a kernel fit on one SM/CU at once, and what limits it.
// The arithmetic follows the vendors' occupancy calculators (register granules per warp,
// shared memory granules plus the per-block reservation), with every limit from the device file.
#pragma once

#include <cstdint>
#include <string>

#include "device/device_spec.h"

namespace kernsim::sim {

struct KernelResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;     // from ptxas or an estimate
  std::int64_t shared_per_block = 0;  // static + dynamic bytes
  std::int64_t tmem_columns_per_block = 0;  // tensor memory columns a CTA allocates (tcgen05), 0: none
};

struct Occupancy {
  int blocks_per_unit = 0;      // resident CTAs per SM/CU
  int warps_per_block = 0;
  int limit_blocks = 0, limit_warps = 0, limit_registers = 0, limit_shared = 0, limit_tmem = 0;
  std::string limiter;          // "blocks", "warps", "registers", "shared", "tensor memory"
  double theoretical = 0;       // resident warps / max warps
  std::int64_t shared_used_per_unit = 0;
  // the L1's data capacity while these CTAs run. NVIDIA: the unified array (l1.bytes) less the
  // shared-memory carveout, the smallest of shared.carveout_steps_bytes that holds the resident
  // CTAs' shared memory with shared.reserved_per_block_bytes each (also when they declare none);
  // without steps, less shared_used_per_unit. AMD: l1.bytes (the LDS is separate).
  std::int64_t l1_bytes = 0;
  std::int64_t carveout_bytes = 0;  // NVIDIA with steps: the shared-memory capacity chosen
};

Occupancy compute_occupancy(const device::DeviceSpec& dev, const KernelResources& k);

}  // namespace kernsim::sim
