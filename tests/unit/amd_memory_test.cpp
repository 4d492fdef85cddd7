// The AMD memory hierarchy (memory_model/amd_memory, tag_cache), one behaviour per test, driven
// directly with lane addresses — no kernel involved.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "device/loader.h"
#include "memory_model/amd_memory.h"
#include "memory_model/tag_cache.h"

namespace kernsim {
namespace {

using mem::AmdAccess;
using mem::AmdMemorySystem;
using mem::Level;
using mem::LdsAccess;

const device::DeviceSpec& mi300x() {
  static const device::DeviceSpec d = device::load_builtin_device("mi300x");
  return d;
}

AmdMemorySystem make() {
  const auto& d = mi300x();
  return AmdMemorySystem(d, static_cast<int>(d.sm.count), static_cast<int>(d.topology.units_per_die));
}

constexpr std::uint64_t kAll = ~std::uint64_t{0};
constexpr std::uint64_t kBase = 0x7000'0000'0000ull;

// lane l at base + l * stride
std::vector<std::uint64_t> lanes(std::uint64_t base, std::uint64_t stride) {
  std::vector<std::uint64_t> a(64);
  for (int l = 0; l < 64; ++l) a[static_cast<std::size_t>(l)] = base + static_cast<std::uint64_t>(l) * stride;
  return a;
}

TEST(AmdMemory, ColdLoadTakesHbmLatencyAndTheRepeatHitsTheVl1d) {
  AmdMemorySystem m = make();
  const auto a = lanes(kBase, 4);
  const double cold = m.vector(0, 0, a.data(), kAll, 4, AmdAccess::Load).done;
  EXPECT_NEAR(cold, mi300x().dram.latency_cycles, 0.05 * mi300x().dram.latency_cycles);
  const double t = 10000;
  const double hit = m.vector(0, t, a.data(), kAll, 4, AmdAccess::Load).done - t;
  EXPECT_NEAR(hit, mi300x().l1.hit_latency_cycles, 8.0);
  EXPECT_EQ(m.counters().hits[static_cast<int>(Level::L1)], 2u);  // 256 bytes = two 128-byte lines
}

// cache: warm. A previous launch's workgroup loaded one line and wrote another whole and a third
// in part: the first two are L2 hits for the next launch on the workgroup's XCD, the partly
// written one is not (after its write-back the L2 holds only the written words); only the loaded
// line is in the MALL, present (another XCD reads it at the MALL's latency, not HBM's).
TEST(AmdMemory, AReplayedLaunchLeavesItsReadAndWholeWrittenLinesInItsXcdsL2) {
  AmdMemorySystem m = make();
  const auto& d = mi300x();
  const auto loaded = lanes(kBase, 2), whole = lanes(kBase + 0x1000, 2), part = lanes(kBase + 0x2000, 1);
  m.replay(loaded.data(), kAll, 2, true);
  m.replay(whole.data(), kAll, 2, false);  // 64 lanes x 2 bytes: the whole 128-byte line
  m.replay(part.data(), kAll, 1, false);   // 64 bytes of it
  m.replay_workgroup_done(0);
  const double t = 1000;
  EXPECT_NEAR(m.vector(0, t, loaded.data(), kAll, 2, AmdAccess::Load).done - t, d.l2.hit_latency_cycles, 10.0);
  EXPECT_NEAR(m.vector(1, t, whole.data(), kAll, 2, AmdAccess::Load).done - t, d.l2.hit_latency_cycles, 10.0);
  EXPECT_GT(m.vector(2, t, part.data(), kAll, 1, AmdAccess::Load).done - t, d.dram.latency_cycles - 10.0);
  const int other_xcd = static_cast<int>(d.topology.units_per_die);
  EXPECT_NEAR(m.vector(other_xcd, t, loaded.data(), kAll, 2, AmdAccess::Load).done - t, d.mall.hit_latency_cycles, 10.0);
}

TEST(AmdMemory, EachXcdHasItsOwnL2AndTheMallServesTheOthers) {
  AmdMemorySystem m = make();
  const auto& d = mi300x();
  const int per_xcd = static_cast<int>(d.topology.units_per_die);
  const auto a = lanes(kBase, 4);
  m.vector(0, 0, a.data(), kAll, 4, AmdAccess::Load);  // XCD 0 brings the lines into its L2 and the MALL
  // another CU of XCD 0: an L2 hit
  const double same_xcd = m.vector(1, 10000, a.data(), kAll, 4, AmdAccess::Load).done - 10000;
  EXPECT_NEAR(same_xcd, d.l2.hit_latency_cycles, 10.0);
  // a CU of XCD 1: its L2 misses, the MALL hits
  const double other_xcd = m.vector(per_xcd, 20000, a.data(), kAll, 4, AmdAccess::Load).done - 20000;
  EXPECT_NEAR(other_xcd, d.mall.hit_latency_cycles, 10.0);
  EXPECT_EQ(m.xcd_of(per_xcd - 1), 0);
  EXPECT_EQ(m.xcd_of(per_xcd), 1);
}

TEST(AmdMemory, CoalescingCountsTheLinesAWaveTouches) {
  AmdMemorySystem m = make();
  const auto dense = lanes(kBase, 4), strided = lanes(kBase + (1 << 20), 128);
  m.vector(0, 0, dense.data(), kAll, 4, AmdAccess::Load);
  EXPECT_EQ(m.counters().requests[static_cast<int>(Level::L1)], 2u);
  m.vector(0, 0, strided.data(), kAll, 4, AmdAccess::Load);
  EXPECT_EQ(m.counters().requests[static_cast<int>(Level::L1)], 2u + 64u);
  // the strided access keeps the vector memory pipeline busy 32 times longer
  AmdMemorySystem m2 = make();
  const double dense_free = m2.vector(0, 0, dense.data(), kAll, 4, AmdAccess::Load).accepted;
  AmdMemorySystem m3 = make();
  const double strided_free = m3.vector(0, 0, strided.data(), kAll, 4, AmdAccess::Load).accepted;
  EXPECT_GT(strided_free, 20 * dense_free);
}

TEST(AmdMemory, StoresStayDirtyInTheL2UntilWrittenBack) {
  AmdMemorySystem m = make();
  const auto a = lanes(kBase, 4);
  m.vector(0, 0, a.data(), kAll, 4, AmdAccess::Store);
  EXPECT_EQ(m.counters().dram_write_bytes, 0u);
  EXPECT_EQ(m.l2_dirty_bytes(), 256u);
  const double done = m.write_back_l2(-1, 1000);
  EXPECT_GT(done, 1000);
  EXPECT_EQ(m.l2_dirty_bytes(), 0u);
  EXPECT_EQ(m.counters().dram_write_bytes, 256u);
}

TEST(AmdMemory, LdsBankConflictsMultiplyTheBankPasses) {
  const auto& d = mi300x();
  for (std::uint64_t stride : {1u, 2u, 8u, 32u}) {
    AmdMemorySystem m = make();
    const auto a = lanes(0, 4 * stride);
    m.lds(0, 0, 0, a.data(), nullptr, kAll, 4, LdsAccess::Load);
    const auto& c = m.counters();
    const std::uint64_t ideal = 64 / static_cast<std::uint64_t>(d.shared.banks);
    EXPECT_EQ(c.shared_ideal_wavefronts, ideal);
    EXPECT_EQ(c.shared_wavefronts, ideal * stride) << "stride " << stride;
  }
  // lanes reading one word share it (broadcast)
  AmdMemorySystem m = make();
  const auto same = lanes(128, 0);
  m.lds(0, 0, 0, same.data(), nullptr, kAll, 4, LdsAccess::Load);
  EXPECT_EQ(m.counters().shared_wavefronts, m.counters().shared_ideal_wavefronts);
}

TEST(AmdMemory, LdsStoresCarryAddressAndDataOnTheSimdPairsPort) {
  // ROCm's LDS description: a wave64 store of 4 bytes per lane occupies the port 8 cycles, of 16
  // bytes 20 cycles
  const auto& d = mi300x();
  for (std::uint32_t bytes : {4u, 16u}) {
    AmdMemorySystem m = make();
    const auto a = lanes(0, bytes);
    const double port = m.lds(0, 0, 0, a.data(), nullptr, kAll, bytes, LdsAccess::Store).accepted;
    EXPECT_NEAR(port, 64 * (bytes + d.shared.address_bytes_per_lane) / d.shared.port_bytes_per_cycle, 1e-9);
  }
  // SIMDs 0 and 1 share a port, SIMD 2 has the other one
  AmdMemorySystem m = make();
  const auto a = lanes(0, 4);
  const double first = m.lds(0, 0, 0, a.data(), nullptr, kAll, 4, LdsAccess::Load).accepted;
  EXPECT_GT(m.lds(0, 1, 0, a.data(), nullptr, kAll, 4, LdsAccess::Load).accepted, first);
  EXPECT_EQ(m.lds(0, 2, 0, a.data(), nullptr, kAll, 4, LdsAccess::Load).accepted, first);
}

TEST(AmdMemory, LdsDmaWritesTakeTheBanksButNotTheSimdPairsPort) {
  // the LDS side of a buffer load with lds: a load after it from the same SIMD gets the port at
  // once, but waits for the banks the 1 KiB write occupies
  const auto a16 = lanes(0, 16), a4 = lanes(4096, 4);
  AmdMemorySystem alone = make();
  const auto solo = alone.lds(0, 0, 0, a4.data(), nullptr, kAll, 4, LdsAccess::Load);
  AmdMemorySystem m = make();
  const auto dma = m.lds(0, 0, 0, a16.data(), nullptr, kAll, 16, LdsAccess::DmaWrite);
  EXPECT_EQ(dma.accepted, 0.0);
  const auto after = m.lds(0, 0, 0, a4.data(), nullptr, kAll, 4, LdsAccess::Load);
  EXPECT_EQ(after.accepted, solo.accepted);
  EXPECT_GT(after.done, solo.done);
}

TEST(AmdMemory, SameAddressAtomicsSerialiseAtTheMemorySideUnit) {
  AmdMemorySystem m = make();
  const auto distinct = lanes(kBase, 4), same = lanes(kBase + 4096, 0);
  const double t_distinct = m.vector(0, 0, distinct.data(), kAll, 4, AmdAccess::AtomicFloat).done;
  AmdMemorySystem m2 = make();
  const double t_same = m2.vector(0, 0, same.data(), kAll, 4, AmdAccess::AtomicFloat).done;
  EXPECT_GT(t_same, t_distinct + 60 * mi300x().l2.atomic_float_same_address_cycles * 0.9);
  EXPECT_EQ(m.counters().atomics, 64u);
}

TEST(AmdMemory, ScalarLoadsHitTheScalarCacheOfTheirCuPair) {
  AmdMemorySystem m = make();
  const auto& d = mi300x();
  const double cold = m.scalar_load(0, 0, kBase, 8);
  EXPECT_GT(cold, d.l2.hit_latency_cycles);
  EXPECT_NEAR(m.scalar_load(1, 5000, kBase, 8) - 5000, d.scalar_l1.hit_latency_cycles, 1.0);  // CU 1 shares CU 0's cache
  EXPECT_GT(m.scalar_load(2, 6000, kBase, 8) - 6000, d.l2.hit_latency_cycles - 1);            // CU 2 has its own
}

TEST(TagCache, HitsEvictsTheLeastRecentlyUsedWayAndReportsDirtyVictims) {
  mem::TagCache c(2 * 128, 128, 2);  // one set of two ways
  EXPECT_FALSE(c.access(0, true).hit);  // written: dirty
  EXPECT_FALSE(c.access(128, false).hit);
  EXPECT_TRUE(c.access(0, false).hit);  // 0 most recent, 128 least
  const auto r = c.access(256, false);  // evicts 128, which is clean
  EXPECT_FALSE(r.hit);
  EXPECT_FALSE(r.evicted_dirty);
  const auto r2 = c.access(384, false);  // evicts 0, which was written
  EXPECT_TRUE(r2.evicted_dirty);
  EXPECT_FALSE(c.access(0, false).hit);
  c.set_ready(384, 77.0);
  EXPECT_EQ(c.access(384, false).ready, 77.0);
}

}  // namespace
}  // namespace kernsim
