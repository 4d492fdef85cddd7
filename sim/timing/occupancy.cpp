// Occupancy arithmetic; see occupancy.h.
#include "sim/timing/occupancy.h"

#include <algorithm>

#include "base/error.h"

namespace kernsim::sim {

Occupancy compute_occupancy(const device::DeviceSpec& d, const KernelResources& k) {
  Occupancy o;
  const int warp = static_cast<int>(d.sm.warp_size);
  o.warps_per_block = (k.threads_per_block + warp - 1) / warp;
  o.limit_blocks = static_cast<int>(d.sm.max_blocks);
  o.limit_warps = static_cast<int>(d.sm.max_warps / std::max(1, o.warps_per_block));
  // registers: per warp, rounded up to the allocation granule
  if (d.vendor == device::Vendor::Nvidia) {
    const std::int64_t granule = std::max<std::int64_t>(1, d.sm.register_alloc_unit);
    const std::int64_t per_warp = (std::int64_t{std::max(1, k.registers_per_thread)} * warp + granule - 1) / granule * granule;
    o.limit_registers = static_cast<int>(d.sm.registers / std::max<std::int64_t>(1, per_warp * o.warps_per_block));
  } else {
    // AMD: VGPRs per lane out of `registers` per SIMD lane, in granules; waves spread over SIMDs
    const std::int64_t granule = std::max<std::int64_t>(1, d.sm.register_alloc_unit);
    const std::int64_t vgprs = (std::int64_t{std::max(1, k.registers_per_thread)} + granule - 1) / granule * granule;
    const std::int64_t waves_per_simd = std::min<std::int64_t>(d.sm.registers / vgprs, d.sm.max_warps / d.sm.sub_partitions);
    const std::int64_t waves = waves_per_simd * d.sm.sub_partitions;
    o.limit_registers = static_cast<int>(waves / std::max(1, o.warps_per_block));
  }
  // shared memory
  if (k.shared_per_block > 0) {
    const std::int64_t unit = std::max<std::int64_t>(1, d.shared.alloc_unit_bytes);
    const std::int64_t per_block = (k.shared_per_block + d.shared.reserved_per_block_bytes + unit - 1) / unit * unit;
    o.limit_shared = static_cast<int>(d.shared.bytes_per_unit / per_block);
  } else {
    o.limit_shared = o.limit_blocks;
  }
  // tensor memory (tcgen05): the resident CTAs' allocations share the SM's columns, so that none waits
  // in tcgen05.alloc for a column another CTA holds
  const std::int64_t tmem = d.tcgen05.tmem_columns;
  o.limit_tmem = k.tmem_columns_per_block > 0 && tmem > 0
                     ? static_cast<int>(tmem / std::min(k.tmem_columns_per_block, tmem))
                     : o.limit_blocks;
  o.blocks_per_unit = std::min({o.limit_blocks, o.limit_warps, o.limit_registers, o.limit_shared, o.limit_tmem});
  o.limiter = o.blocks_per_unit == o.limit_warps ? "warps" : o.blocks_per_unit == o.limit_registers ? "registers"
              : o.blocks_per_unit == o.limit_shared ? "shared" : o.blocks_per_unit == o.limit_tmem ? "tensor memory" : "blocks";
  if (o.blocks_per_unit <= 0) {
    std::string why = o.limit_registers <= 0 ? "registers (" + std::to_string(k.registers_per_thread) + " per thread)"
                      : o.limit_shared <= 0 ? "shared memory (" + std::to_string(k.shared_per_block) + " bytes)"
                                            : "threads";
    throw Error(ErrorKind::LaunchSpec, "the kernel cannot run on " + d.name + ": one block of " +
                                           std::to_string(k.threads_per_block) + " threads does not fit an SM/CU (" + why + ")");
  }
  o.theoretical = static_cast<double>(o.blocks_per_unit * o.warps_per_block) / static_cast<double>(d.sm.max_warps);
  const std::int64_t unit = std::max<std::int64_t>(1, d.shared.alloc_unit_bytes);
  const std::int64_t per_block = (k.shared_per_block + d.shared.reserved_per_block_bytes + unit - 1) / unit * unit;
  if (k.shared_per_block > 0) o.shared_used_per_unit = o.blocks_per_unit * per_block;
  o.l1_bytes = d.l1.bytes;
  if (d.vendor == device::Vendor::Nvidia) {
    o.l1_bytes = std::max<std::int64_t>(0, d.l1.bytes - o.shared_used_per_unit);
    const auto& steps = d.shared.carveout_steps_bytes;
    const std::int64_t need = o.blocks_per_unit * per_block;  // the reservation counts without declared shared memory too
    if (need == 0 && !steps.empty()) {
      o.l1_bytes = d.l1.bytes;  // the zero step
    } else if (auto it = std::lower_bound(steps.begin(), steps.end(), need); it != steps.end()) {
      o.carveout_bytes = *it;
      o.l1_bytes = std::max<std::int64_t>(0, d.l1.bytes - *it);
    }
  }
  return o;
}

}  // namespace kernsim::sim
