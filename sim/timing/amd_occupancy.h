// AMD occupancy: how many workgroups of a kernel fit on one CU at once, and what limits it.
//
// A CU has SIMDs (cu.sub_partitions) with wave slots (cu.max_warps per CU), a unified VGPR+AGPR
// file of cu.registers per SIMD lane, SGPRs per SIMD (cu.scalar_registers) and LDS per CU. A
// wave allocates its VGPRs (AGPRs above accum_offset) and SGPRs in granules; a workgroup's waves
// spread over the CU's SIMDs, so the per-SIMD limits bound the waves of all SIMDs together.
#pragma once

#include <cstdint>

#include "device/device_spec.h"
#include "sim/timing/occupancy.h"

namespace kernsim::sim {

struct AmdResources {
  int threads_per_block = 0;
  int vgprs = 0;         // architected VGPRs the kernel uses
  int agprs = 0;         // accumulation VGPRs
  int accum_offset = 0;  // first AGPR in the unified file (VGPRs), when agprs > 0
  int sgprs = 0;         // including VCC, FLAT_SCRATCH, XNACK_MASK as the metadata counts them
  std::int64_t lds_per_block = 0;  // static + dynamic bytes
};

struct AmdOccupancy : Occupancy {
  int vgprs_per_wave = 0;  // allocated (unified file, granule-rounded)
  int sgprs_per_wave = 0;
  int waves_per_simd = 0;  // the per-SIMD limit from slots, VGPRs and SGPRs
};

AmdOccupancy compute_amd_occupancy(const device::DeviceSpec& dev, const AmdResources& k);

}  // namespace kernsim::sim
