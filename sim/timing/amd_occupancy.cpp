// AMD occupancy arithmetic; see amd_occupancy.h.
#include "sim/timing/amd_occupancy.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace kernsim::sim {

namespace {
std::int64_t round_up(std::int64_t x, std::int64_t g) { return (x + g - 1) / std::max<std::int64_t>(1, g) * std::max<std::int64_t>(1, g); }
}  // namespace

AmdOccupancy compute_amd_occupancy(const device::DeviceSpec& d, const AmdResources& k) {
  AmdOccupancy o;
  const std::int64_t wave = d.sm.warp_size, simds = std::max<std::int64_t>(1, d.sm.sub_partitions);
  o.warps_per_block = static_cast<int>((k.threads_per_block + wave - 1) / wave);
  const std::int64_t w = std::max(1, o.warps_per_block);
  const std::int64_t used = k.agprs > 0 ? std::max(k.accum_offset, k.vgprs) + k.agprs : k.vgprs;
  o.vgprs_per_wave = static_cast<int>(round_up(std::max<std::int64_t>(1, used), d.sm.register_alloc_unit));
  o.sgprs_per_wave = static_cast<int>(round_up(std::max(1, k.sgprs), d.sm.scalar_register_alloc_unit));
  const std::int64_t slots = d.sm.max_warps / simds;
  const std::int64_t by_vgpr = d.sm.registers / o.vgprs_per_wave;
  const std::int64_t by_sgpr = d.sm.scalar_registers / o.sgprs_per_wave;
  o.waves_per_simd = static_cast<int>(std::min({slots, by_vgpr, by_sgpr}));
  // a CU holds B workgroups when their B * w waves, spread evenly, fit every SIMD
  auto blocks = [&](std::int64_t per_simd) { return static_cast<int>(per_simd * simds / w); };
  o.limit_blocks = static_cast<int>(d.sm.max_blocks);
  o.limit_warps = blocks(slots);
  o.limit_registers = blocks(std::min(by_vgpr, by_sgpr));
  if (k.lds_per_block > 0) {
    const std::int64_t per_block = round_up(k.lds_per_block + d.shared.reserved_per_block_bytes, d.shared.alloc_unit_bytes);
    o.limit_shared = static_cast<int>(d.shared.bytes_per_unit / per_block);
    o.shared_used_per_unit = 0;
  } else {
    o.limit_shared = o.limit_blocks;
  }
  o.blocks_per_unit = std::min({o.limit_blocks, o.limit_warps, o.limit_registers, o.limit_shared});
  o.limiter = o.blocks_per_unit == o.limit_warps      ? "waves"
              : o.blocks_per_unit == o.limit_registers ? (by_sgpr < by_vgpr ? "sgprs" : "vgprs")
              : o.blocks_per_unit == o.limit_shared    ? "lds"
                                                       : "workgroups";
  if (o.blocks_per_unit <= 0) {
    std::string why = o.limit_registers <= 0 ? std::to_string(o.vgprs_per_wave) + " VGPRs and " + std::to_string(o.sgprs_per_wave) +
                                                    " SGPRs per wave"
                      : o.limit_shared <= 0 ? std::to_string(k.lds_per_block) + " bytes of LDS"
                                            : std::to_string(o.warps_per_block) + " waves";
    throw Error(ErrorKind::LaunchSpec, "the kernel cannot run on " + d.name + ": one workgroup of " + std::to_string(k.threads_per_block) +
                                           " work-items does not fit a CU (" + why + ")");
  }
  if (k.lds_per_block > 0)
    o.shared_used_per_unit = o.blocks_per_unit * round_up(k.lds_per_block + d.shared.reserved_per_block_bytes, d.shared.alloc_unit_bytes);
  o.theoretical = static_cast<double>(o.blocks_per_unit * o.warps_per_block) / static_cast<double>(d.sm.max_warps);
  return o;
}

}  // namespace kernsim::sim
