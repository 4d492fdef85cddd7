// The memory model's parts, one behaviour each: caches, bandwidth servers, the NVIDIA
// hierarchy's latencies, bandwidth limits, bank conflicts and atomics.
#include <cstdio>
#include <unordered_map>
#include <vector>
#include <numeric>
#include <bit>
#include <array>
#include <set>

#include "device/loader.h"
#include "memory_model/cache.h"
#include "memory_model/line_table.h"
#include "memory_model/nvidia_memory.h"
#include "memory_model/server.h"
#include "memory_model/units.h"
#include "sim/timing/occupancy.h"
#include "test_util.h"

namespace kernsim {
namespace {

using mem::Access;

// LineTable (the TPC merge's table of recent reads) answers as a map does through growth,
// overwrites and pruning, for lines that collide in its slots (multiples of a large power of two).
TEST(LineTable, AnswersAsAMapThroughGrowthOverwritesAndPruning) {
  kernsim::mem::LineTable<int> t;
  std::unordered_map<std::uint64_t, int> ref;
  std::uint64_t x = 12345;
  for (int step = 0; step < 20000; ++step) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t line = (x >> 40) % 3000 * ((step % 3) ? 1 : (std::uint64_t{1} << 32));
    t.put(line, step);
    ref[line] = step;
    if (step % 2500 == 2499) {
      t.retain([&](int v) { return v > step - 1000; });
      std::erase_if(ref, [&](const auto& kv) { return kv.second <= step - 1000; });
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  for (std::uint64_t l = 0; l < 3000; ++l)
    for (std::uint64_t m : {std::uint64_t{1}, std::uint64_t{1} << 32}) {
      const auto it = ref.find(l * m);
      const int* v = t.find(l * m);
      ASSERT_EQ(v != nullptr, it != ref.end()) << l * m;
      if (v) EXPECT_EQ(*v, it->second);
    }
  EXPECT_EQ(t.find(~std::uint64_t{0} - 1), nullptr);
}

// A set of 16 ways under random reads, writes and invalidations hits and misses as exact LRU
// does: a miss takes the first empty way, else the way used longest ago (a reference kept here
// by way and last-use step).
TEST(SectorCache, SixteenWaysEvictExactlyTheLeastRecentlyUsed) {
  constexpr int kWays = 16;
  mem::SectorCache c(128 * kWays, 128, 32, kWays);  // one set
  std::array<std::uint64_t, kWays> way{};           // line + 1; 0 empty
  std::array<std::uint64_t, kWays> used{};
  std::uint64_t x = 99;
  for (std::uint64_t step = 1; step < 20000; ++step) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t line = 128 * ((x >> 33) % 24);
    int at = -1;
    for (int w = 0; w < kWays; ++w)
      if (way[w] == line + 1) at = w;
    const int op = static_cast<int>((x >> 20) % 10);
    if (op == 0) {
      EXPECT_EQ(c.invalidate(line), at >= 0);
      if (at >= 0) way[at] = 0;
      continue;
    }
    const auto r = op == 1 ? c.write(line, 0b1111, nullptr) : c.read(line, 0b1111, true);
    ASSERT_EQ(r.miss_sectors == 0, at >= 0) << "step " << step;
    if (at < 0) {
      at = 0;  // the first empty way, else the one used longest ago
      for (int w = 0; w < kWays && way[at] != 0; ++w)
        if (way[w] == 0 || used[w] < used[at]) at = w;
      way[at] = line + 1;
    }
    used[at] = step;
  }
}

// MissSlots hands out the earliest free slot, as a multiset of free times does, whatever order
// the requests and their completions come in.
TEST(MissSlots, EachRequestGetsTheEarliestSlotToFree) {
  mem::MissSlots slots(37);
  std::multiset<double> ref;
  for (int i = 0; i < 37; ++i) ref.insert(0.0);
  std::uint64_t x = 7;
  for (int step = 0; step < 20000; ++step) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double t = static_cast<double>((x >> 40) % 5000) + step * 0.5;
    const double got = slots.acquire(t);
    ASSERT_EQ(got, std::max(t, *ref.begin())) << "step " << step;
    const double done = got + static_cast<double>((x >> 20) % 3000);
    ref.erase(ref.begin());
    ref.insert(done);
    slots.release(done);
  }
}

TEST(SectorCache, MissFillsThenHits) {
  mem::SectorCache c(4096, 128, 32, 4);
  auto r1 = c.read(0x1000, 0b0001, true);
  EXPECT_EQ(r1.miss_sectors, 0b0001u);
  auto r2 = c.read(0x1000, 0b0011, true);
  EXPECT_EQ(r2.hit_sectors, 0b0001u) << "the filled sector hits";
  EXPECT_EQ(r2.miss_sectors, 0b0010u) << "a sector of the same line not yet filled misses";
}

TEST(SectorCache, LeastRecentlyUsedLineIsEvicted) {
  // one set of 2 ways: lines that map to it evict in LRU order
  mem::SectorCache c(256, 128, 32, 2);
  c.read(0x000, 1, true);
  c.read(0x080, 1, true);
  c.read(0x000, 1, true);   // 0x000 now most recent
  c.read(0x100, 1, true);   // evicts 0x080
  EXPECT_EQ(c.read(0x000, 1, false).hit_sectors, 1u);
  EXPECT_EQ(c.read(0x080, 1, false).hit_sectors, 0u);
}

// A contiguous footprint of exactly the capacity, read again and again in one cyclic order (the
// H200's latency.chase_256k: 2048 lines of 128 B through a 256 KiB, 4-way L1): with the folded
// (xor) index every set holds four of its lines and every lap after the first hits; with a
// multiplicative hash some sets get five or more of them, which miss on every lap.
TEST(SectorCache, AFoldedIndexHoldsAContiguousFootprintOfItsCapacity) {
  auto laps = [](mem::SectorCache::Index index) {
    mem::SectorCache c(256 * 1024, 128, 32, 4, index);
    const std::uint64_t lines = 2048, jump = 1267;  // one cycle through all lines (odd jump, lines a power of two)
    std::uint64_t hits = 0, reads = 0, x = 0;
    for (int lap = 0; lap < 3; ++lap)
      for (std::uint64_t i = 0; i < lines; ++i, x = (x + jump) % lines) {
        const auto r = c.read(0x7000'0000'0000 + x * 128, 1, true);
        if (lap > 0) hits += r.hit_sectors != 0, ++reads;
      }
    return static_cast<double>(hits) / static_cast<double>(reads);
  };
  EXPECT_EQ(laps(mem::SectorCache::Index::Xor), 1.0);
  EXPECT_LT(laps(mem::SectorCache::Index::Multiplicative), 0.8) << "sets with five or more of the lines miss every lap";
}

// The folded index spreads power-of-two strides too: 64 lines 16 KiB apart (matrix rows) fit
// a 512-set, 4-way cache without conflict misses.
TEST(SectorCache, AFoldedIndexSpreadsPowerOfTwoStrides) {
  mem::SectorCache c(256 * 1024, 128, 32, 4, mem::SectorCache::Index::Xor);
  for (int lap = 0; lap < 2; ++lap)
    for (std::uint64_t i = 0; i < 64; ++i) {
      const auto r = c.read(0x7000'0000'0000 + i * 16384, 1, true);
      if (lap > 0) EXPECT_EQ(r.hit_sectors, 1u) << "row " << i;
    }
}

TEST(SectorCache, BackfillLeavesWhatTheForwardRunLeaves) {
  // a long run of reads over more lines than the cache holds, each line always with its own
  // sectors; filled from the end backwards (stopping once every set is full), the cache must
  // hold the same lines with the same sectors and evict in the same order afterwards
  std::vector<std::pair<std::uint64_t, std::uint32_t>> run;
  std::uint64_t x = 12345;
  auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return x >> 33; };
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t line = (next() % 700) * 128;
    run.push_back({line, 1u << (line / 128 % 4)});
  }
  mem::SectorCache fwd(8192, 128, 32, 4), back(8192, 128, 32, 4);
  for (const auto& [l, m] : run) fwd.read(l, m, true);
  std::size_t used = 0;
  {
    mem::SectorCache::Backfill fill(back);
    for (auto it = run.rbegin(); it != run.rend() && !fill.full(); ++it, ++used) fill.use(it->first, it->second);
    EXPECT_TRUE(fill.full());
    fill.commit();
  }
  EXPECT_LT(used, run.size() / 4) << "the backward run stops once every set is full";
  mem::SectorCache fwd_probe = fwd, back_probe = back;  // a probe's hits refresh the LRU order
  for (std::uint64_t line = 0; line < 700 * 128; line += 128)
    EXPECT_EQ(fwd_probe.read(line, 0xf, false).hit_sectors, back_probe.read(line, 0xf, false).hit_sectors) << "line " << line;
  // the same replacement from here on: the same LRU order (a line read again soon after the
  // run hits in both, one used long before it misses in both)
  const std::uint32_t window = 64;  // lines of the cache's size
  std::vector<std::uint64_t> reads;
  for (std::uint32_t i = 0; i < 2000; ++i) reads.push_back(i % 4 == 0 ? run[run.size() - 1 - (next() % window)].first : (next() % 700) * 128);
  int hits = 0;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    const std::uint32_t m = 1u << (reads[i] / 128 % 4);
    const auto f = fwd.read(reads[i], m, true).hit_sectors;
    ASSERT_EQ(f, back.read(reads[i], m, true).hit_sectors) << "read " << i;
    hits += f != 0;
  }
  EXPECT_GT(hits, 100);
}

TEST(SectorCache, SectorIsCompleteOnceEveryWordIsWritten) {
  mem::SectorCache c(4096, 128, 32, 4);
  std::uint32_t half[4] = {0x0f, 0, 0, 0}, other[4] = {0xf0, 0, 0, 0};
  c.write(0x0, 1, half);
  EXPECT_EQ(c.read(0x0, 1, false).hit_sectors, 0u) << "a read of a partly written sector must fetch";
  c.write(0x0, 1, other);
  EXPECT_EQ(c.read(0x0, 1, false).hit_sectors, 1u) << "the other half completes it";
}

TEST(SectorCache, HitOnAFillInFlightWaitsForIt) {
  mem::SectorCache c(4096, 128, 32, 4);
  c.read(0x80, 0b11, true);
  c.set_ready(0x80, 0b01, 500.0);
  EXPECT_DOUBLE_EQ(c.read(0x80, 0b01, true).ready, 500.0);
  EXPECT_DOUBLE_EQ(c.read(0x80, 0b10, true).ready, 0.0) << "another sector's fill does not delay this one";
}

TEST(SectorCache, EvictingAPartlyWrittenSectorIsReported) {
  mem::SectorCache c(256, 128, 32, 2);
  std::uint32_t w[4] = {0x1, 0, 0, 0};
  c.write(0x000, 1, w);
  c.read(0x080, 1, true);
  const mem::CacheResult r = c.read(0x100, 1, true);
  EXPECT_EQ(r.evicted_partial, 1u);
  EXPECT_EQ(r.evicted_dirty, 0u);
}

TEST(SectorCache, EvictingWholeDirtySectorsReportsThemForWriteBack) {
  mem::SectorCache c(256, 128, 32, 2);  // one set of two ways
  std::uint32_t w[4] = {0, 0xff, 0xff, 0x3};
  c.write(0x000, 0b1110, w);  // sectors 1 and 2 whole, sector 3 in part
  c.read(0x080, 1, true);
  const mem::CacheResult r = c.read(0x100, 1, true);  // evicts line 0x000 (least recent)
  EXPECT_EQ(r.evicted_dirty, 0b0110u);
  EXPECT_EQ(r.evicted_partial, 0b1000u);
  EXPECT_EQ(c.read(0x180, 1, true).evicted_dirty, 0u) << "a clean line's eviction writes nothing back";
}

// set_use_window: a line lasts `window` filled sectors after its last use, however many ways its
// set has left (an SM slice's L2: the chip's sets, the slice's share of the chip's capacity).
TEST(SectorCache, ALineGoesOnceItsUseWindowOfFillsCameAfterItsLastUse) {
  mem::SectorCache c(1 << 20, 128, 32, 16);  // 8192 lines: the sets alone would keep all below
  c.set_use_window(64);                      // 16 whole lines of fills
  c.read(0x0, 0xf, true);
  for (std::uint64_t l = 1; l <= 16; ++l) c.read(l * 128, 0xf, true);  // 64 sectors after it: still in
  EXPECT_EQ(c.read(0x0, 0xf, true).hit_sectors, 0xfu) << "64 filled sectors after its last use: inside the window";
  for (std::uint64_t l = 17; l <= 33; ++l) c.read(l * 128, 0xf, true);  // 68 after the hit that refreshed it
  EXPECT_EQ(c.read(0x0, 0xf, true).miss_sectors, 0xfu) << "68 filled sectors after its last use: gone";
  // hits fill nothing: a line read again and again keeps the others in
  c.set_use_window(8);
  c.read(0x100000, 0xf, true);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(c.read(0x100000, 0xf, true).hit_sectors, 0xfu);
}

TEST(SectorCache, ALineOutOfItsUseWindowReportsItsDirtySectorsForWriteBack) {
  mem::SectorCache c(1 << 20, 128, 32, 16);
  c.set_use_window(4);
  std::uint32_t w[4] = {0xff, 0xff, 0, 0};
  c.write(0x0, 0b0011, w);
  c.read(0x80, 0xf, true);
  c.read(0x100, 0x1, true);  // 5 sectors filled since the write (which filled 2)
  const mem::CacheResult r = c.read(0x0, 0b0011, true);
  EXPECT_EQ(r.evicted_dirty, 0b0011u) << "its dirty sectors go to HBM when it is found gone";
  EXPECT_EQ(r.miss_sectors, 0b0011u);
}

// set_chip_wave: CTAs the chip runs at once (one chip wave) reuse each other's lines while both
// run; a slice runs them waves apart, after the fills of the CTAs it started in between, which
// the chip makes before both start. The window then counts from the later CTA's start.
TEST(SectorCache, ALineReusedByACtaOfTheSameChipWaveLastsTheFillsBetweenTheirStarts) {
  mem::SectorCache c(1 << 20, 128, 32, 16);
  c.set_use_window(16);  // 4 whole lines of fills
  c.set_chip_wave(8);    // CTAs 0-7 run at once on the chip
  auto fill_lines = [&](std::uint64_t first, int n) {
    for (int k = 0; k < n; ++k) c.read((first + static_cast<std::uint64_t>(k)) * 128, 0xf, true);
  };
  c.cta_started(0);
  c.set_user(0);
  c.read(0x0, 0xf, true);   // CTA 0 uses line 0
  fill_lines(100, 20);      // 80 sectors: CTA 0 and the CTAs started after it
  c.cta_started(5);         // starts 80 sectors after CTA 0
  c.set_user(5);
  fill_lines(200, 3);       // 12 sectors since its start: inside the window
  EXPECT_EQ(c.read(0x0, 0xf, true).hit_sectors, 0xfu) << "92 sectors after CTA 0's use, 12 after CTA 5 started";
  c.set_user(5);
  fill_lines(300, 5);       // 20 sectors after CTA 5's own use: its own reuse gets the plain window
  EXPECT_EQ(c.read(0x0, 0xf, true).miss_sectors, 0xfu) << "the same CTA's reuse lasts the window alone";
  // lines of CTA 2, then 80 sectors, then CTAs 6 (this chip wave) and 9 (the next) start
  c.cta_started(2);
  c.set_user(2);
  for (std::uint64_t l : {0x80000, 0x80080, 0x80100}) c.read(l, 0xf, true);
  fill_lines(400, 20);
  c.cta_started(6);
  c.cta_started(9);
  fill_lines(500, 2);
  c.set_user(9);
  EXPECT_EQ(c.read(0x80000, 0xf, true).miss_sectors, 0xfu) << "CTA 9 is in the chip's next wave";
  c.set_user(mem::SectorCache::kNoCta);
  EXPECT_EQ(c.read(0x80080, 0xf, true).miss_sectors, 0xfu) << "an access of no CTA (a warm-up) gets the window alone";
  c.set_user(6);
  EXPECT_EQ(c.read(0x80100, 0xf, true).hit_sectors, 0xfu) << "CTA 6 shares CTA 2's chip wave";
}

// Lines a warm-up backfill commits count as used before the first fill, not as fills of their own.
TEST(SectorCache, BackfilledLinesAreNotFills) {
  mem::SectorCache c(1 << 20, 128, 32, 16);
  c.set_use_window(8);
  {
    mem::SectorCache::Backfill fill(c);
    for (std::uint64_t l = 0; l < 64; ++l) fill.use(l * 128, 0xf);  // 256 sectors, 32 window's worth
    fill.commit();
  }
  EXPECT_EQ(c.read(63 * 128, 0xf, true).hit_sectors, 0xfu);
  EXPECT_EQ(c.read(0, 0xf, true).hit_sectors, 0xfu) << "the oldest backfilled line is there before any fill";
}

TEST(CalendarServer, UnloadedRequestTakesItsServiceTime) {
  mem::CalendarServer s(32.0);
  EXPECT_DOUBLE_EQ(s.serve(1000, 64), 1002.0);
  EXPECT_DOUBLE_EQ(s.serve(5000, 32), 5001.0);
  EXPECT_DOUBLE_EQ(s.busy_cycles(), 3.0);
}

TEST(CalendarServer, SaturatesAtItsRate) {
  mem::CalendarServer s(1.0);  // 1 unit per cycle
  double end = 0;
  for (int i = 0; i < 1000; ++i) end = s.serve(0, 1.0);  // 1000 cycles of work, all at t = 0
  EXPECT_NEAR(end, 1000.0, 16.0) << "the last one finishes when the total work is done";
}

TEST(CalendarServer, ALateRequestLeavesNoHoleForEarlierOnes) {
  // A FIFO would start the t=0 request after the one booked at t=10000; the calendar serves it
  // from the capacity still free at t=0.
  mem::CalendarServer s(1.0);
  s.serve(10000, 5.0);
  EXPECT_LT(s.serve(0, 5.0), 100.0);
  mem::Server fifo(1.0);
  fifo.serve(10000, 5.0);
  EXPECT_GT(fifo.serve(0, 5.0), 10000.0) << "the failure mode the calendar avoids";
}

// utilization() keeps its last window's sum and moves it; the answer must be the one a server
// that never answered before gives for the same bookings, whichever way the window moves.
TEST(CalendarServer, UtilizationOfAMovedWindowEqualsAFreshOne) {
  std::vector<std::pair<double, double>> served;  // (arrival, bytes)
  mem::CalendarServer s(40.0);  // loaded about 80%: bookings land inside the kept window
  std::uint64_t x = 12345;
  auto next = [&x](double range) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(x >> 11) / 9007199254740992.0 * range;
  };
  double t = 0;
  int moved_back = 0;
  for (int i = 0; i < 3000; ++i) {
    t += next(6.0);
    const double at = t - next(40.0);  // out of time order, as SMs send them
    const double bytes = 1 + next(200.0);
    served.push_back({at, bytes});
    s.serve(at, bytes);
    if (i % 7 != 0) continue;
    const double q = t - next(300.0) + 100.0;  // the window moves both ways
    if (q < t - 150.0) ++moved_back;
    mem::CalendarServer fresh(40.0);
    for (const auto& [a, b] : served) fresh.serve(a, b);
    ASSERT_EQ(s.utilization(q, 640.0), fresh.utilization(q, 640.0)) << "query " << i << " at " << q;
  }
  EXPECT_GT(moved_back, 20);
  EXPECT_GT(s.utilization(t, 640.0), 0.0);
}

TEST(Server, QueuesRequestsBeyondItsBandwidth) {
  mem::Server s(64.0);  // 64 bytes per cycle
  EXPECT_DOUBLE_EQ(s.serve(0, 128), 2.0);
  EXPECT_DOUBLE_EQ(s.serve(0, 128), 4.0) << "the second transfer waits for the first";
  EXPECT_DOUBLE_EQ(s.serve(10, 64), 11.0) << "an idle server starts at once";
}

class NvMemory : public ::testing::Test {
 protected:
  device::DeviceSpec dev = device::load_builtin_device("h200");
  mem::NvMemorySystem m{dev, 2, 128 * 1024};
  std::uint64_t addrs[32];
  void coalesced(std::uint64_t base, std::uint32_t bytes) {
    for (int l = 0; l < 32; ++l) addrs[l] = base + static_cast<std::uint64_t>(l) * bytes;
  }
};

TEST_F(NvMemory, ColdLoadTakesDramLatencyThenHitsL1) {
  coalesced(0x7000'0000'0000, 4);
  double cold = m.global(0, 0, addrs, ~0u, 4, Access::Load).done;
  EXPECT_NEAR(cold, dev.dram.latency_cycles, 5.0);
  double warm = m.global(0, 1000, addrs, ~0u, 4, Access::Load).done - 1000;
  EXPECT_NEAR(warm, dev.l1.hit_latency_cycles, 2.0);
}

// A slice's own traffic stands for 1/share of the chip's: what it dirtied is written back to HBM
// once share x capacity of its own fills came after it, as the chip's LRU would evict it. Half
// reads, half writes through a tenth of the L2: on a 0.1 slice the writes of all but the last
// window go to HBM; the whole chip, whose L2 holds the stream, writes nothing back.
TEST_F(NvMemory, SliceWritesBackWhatTheChipsLruWouldEvict) {
  device::DeviceSpec d = dev;
  d.l2.max_dirty_fraction = 0;  // the whole L2 may be dirty: only the window writes back
  const std::uint64_t window = static_cast<std::uint64_t>(d.l2.bytes) / 10;
  auto stream = [&](mem::NvMemorySystem& sys) {
    const std::uint64_t base = 0x7000'0000'0000;
    double t = 0;
    for (std::uint64_t off = 0; off < 2 * window; off += 128, t += 1) {
      for (int l = 0; l < 32; ++l) addrs[l] = base + off + 4 * l;
      sys.global(0, t, addrs, ~0u, 4, Access::LoadBypassL1);
      for (int l = 0; l < 32; ++l) addrs[l] = base + (1ull << 32) + off + 4 * l;
      sys.global(0, t, addrs, ~0u, 4, Access::Store);
    }
    return sys.counters().dram_write_bytes;
  };
  mem::NvMemorySystem slice{d, 2, 128 * 1024, 0.1}, chip{d, 2, 128 * 1024, 1.0};
  // 4 window of fills (2 of reads, 2 of writes): the writes of the first 3 windows' fills are out
  const double written = static_cast<double>(stream(slice));
  EXPECT_NEAR(written, 1.5 * static_cast<double>(window), 0.1 * static_cast<double>(window));
  EXPECT_EQ(stream(chip), 0u);
}

// A slice's L2 keeps the chip's sets but its share of the chip's capacity in fills: a buffer read
// twice that is larger than the chip's L2 misses the second time in a 0.1 slice reading a tenth of
// it, as on the chip; a buffer that fits the L2 hits the second time in both. (Before the use
// window, the slice kept the whole capacity and hit on every re-read.)
TEST_F(NvMemory, ASliceRereadsWhatTheChipsL2WouldStillHold) {
  device::DeviceSpec small = dev;
  small.l2.bytes = 4 << 20;  // a what-if L2 of 4 MiB, so that the chip's passes are short
  auto second_pass_hits = [&](double share, double of_l2) {
    mem::NvMemorySystem sys{small, 2, 128 * 1024, share};
    const auto bytes = static_cast<std::uint64_t>(of_l2 * share * static_cast<double>(small.l2.bytes));
    std::uint64_t hits = 0;
    for (int pass = 0; pass < 2; ++pass) {
      const std::uint64_t before = sys.counters().hits[static_cast<int>(mem::Level::L2)];
      for (std::uint64_t off = 0; off < bytes; off += 128) {
        for (int l = 0; l < 32; ++l) addrs[l] = 0x7000'0000'0000 + off + 4 * l;
        sys.global(0, static_cast<double>(off / 128), addrs, ~0u, 4, Access::LoadBypassL1);
      }
      hits = sys.counters().hits[static_cast<int>(mem::Level::L2)] - before;
    }
    return static_cast<double>(hits) / static_cast<double>(bytes / 32);
  };
  EXPECT_LT(second_pass_hits(0.1, 2.0), 0.05) << "twice the L2 on the chip: the slice's tenth misses";
  EXPECT_LT(second_pass_hits(1.0, 2.0), 0.05) << "and so does the chip";
  EXPECT_GT(second_pass_hits(0.1, 0.5), 0.95) << "half the L2: the slice's tenth hits";
  EXPECT_GT(second_pass_hits(1.0, 0.5), 0.95) << "and so does the chip";
}

// A flush that wrote leaves the L2 full of its dirty lines (start_dirty): the launch's first
// fills evict them, a capacity's worth (l2.max_dirty_fraction of it) written back to HBM, and no
// more; reads of an L2's worth then write back exactly that, and reads started clean nothing.
TEST_F(NvMemory, WriteFlushedL2WritesBackItsDirtyCapacityOnce) {
  device::DeviceSpec d = dev;
  d.l2.max_dirty_fraction = 0.5;
  auto read_stream = [&](mem::NvMemorySystem& sys, std::uint64_t bytes) {
    double t = 0;
    for (std::uint64_t off = 0; off < bytes; off += 128, t += 1) {
      for (int l = 0; l < 32; ++l) addrs[l] = 0x7000'0000'0000 + off + 4 * l;
      sys.global(0, t, addrs, ~0u, 4, Access::LoadBypassL1);
    }
    return sys.counters().dram_write_bytes;
  };
  const std::uint64_t l2 = static_cast<std::uint64_t>(d.l2.bytes);
  mem::NvMemorySystem dirty{d, 2, 128 * 1024}, clean{d, 2, 128 * 1024}, small{d, 2, 128 * 1024};
  dirty.start_dirty();
  small.start_dirty();
  EXPECT_EQ(read_stream(dirty, 2 * l2), l2 / 2) << "half the L2 was dirty: written back once";
  EXPECT_EQ(read_stream(clean, 2 * l2), 0u);
  EXPECT_EQ(read_stream(small, l2 / 8), l2 / 8) << "a smaller footprint evicts only as many dirty lines as it fills";
}

// l2.max_dirty_fraction caps the dirty data: writes beyond it push the oldest dirty lines out to
// HBM even though the L2 has room (the H100 keeps about half its capacity dirty at most).
TEST_F(NvMemory, DirtyDataBeyondItsFractionIsWrittenBack) {
  device::DeviceSpec d = dev;
  d.l2.max_dirty_fraction = 0.25;
  mem::NvMemorySystem sys{d, 2, 128 * 1024};
  const std::uint64_t l2 = static_cast<std::uint64_t>(d.l2.bytes);
  double t = 0;
  for (std::uint64_t off = 0; off < l2 / 2; off += 128, t += 1) {
    for (int l = 0; l < 32; ++l) addrs[l] = 0x7000'0000'0000 + off + 4 * l;
    sys.global(0, t, addrs, ~0u, 4, Access::Store);
  }
  EXPECT_NEAR(static_cast<double>(sys.counters().dram_write_bytes), static_cast<double>(l2 / 4), 1024.0);
}

// The H200 keeps what Nsight Compute shows it keeping: a stream that writes 128 MiB after a read
// flush leaves 15.5-26.5 MB of it dirty in the 60 MiB L2 at its end (copies, transposes, norms,
// stencils: calibration/data/h200/ncu_metrics.csv, ncu_grown.csv), not the whole L2.
TEST_F(NvMemory, H200StoreStreamLeavesWhatNsightSawDirty) {
  mem::NvMemorySystem sys{dev, 2, 128 * 1024};
  const std::uint64_t written = std::uint64_t{128} << 20;
  double t = 0;
  for (std::uint64_t off = 0; off < written; off += 128, t += 1) {
    coalesced(0x7000'0000'0000 + off, 4);
    sys.global(0, t, addrs, ~0u, 4, Access::Store);
  }
  const double left_mb = static_cast<double>(written - sys.counters().dram_write_bytes) / 1e6;
  EXPECT_GT(left_mb, 15.5);
  EXPECT_LT(left_mb, 26.5);
}

TEST_F(NvMemory, OtherSmHitsInL2) {
  coalesced(0x7000'0000'0000, 4);
  m.global(0, 0, addrs, ~0u, 4, Access::Load);
  double t = m.global(1, 2000, addrs, ~0u, 4, Access::Load).done - 2000;
  EXPECT_NEAR(t, dev.l2.hit_latency_cycles, 2.0);
}

// Issue 17's first hypothesis for the marching stencils: a halo load of one sector of a line
// another SM's load brought in from HBM moments earlier finds the sector's fill still on its way
// (ncu counts it an L2 hit). It waits for the fill, not an L2 hit's latency; once the fill is
// back it is an L2 hit. The x halo reads the neighbour's line at lane 0 only: one sector.
TEST_F(NvMemory, AnotherSmsSectorRequestWaitsForAFillInFlight) {
  mem::NvMemorySystem four{dev, 4, 128 * 1024};  // SMs 0 and 2: not TPC partners (no request merging)
  coalesced(0x7000'0000'0000, 4);
  const double fill = four.global(0, 0, addrs, ~0u, 4, Access::Load).done;
  ASSERT_GT(fill, dev.l2.hit_latency_cycles + 200.0);
  const double early = 100;  // the halo load: lane 31's word, the line's last sector
  const double halo = four.global(2, early, addrs, 1u << 31, 4, Access::Load).done;
  EXPECT_NEAR(halo, fill, 1.0) << "waits for the fill, not " << early + dev.l2.hit_latency_cycles;
  EXPECT_EQ(four.counters().tpc_merged_sectors, 0u);
  // after the fill, lane 0's sector (not in SM 2's L1): an L2 hit
  EXPECT_NEAR(four.global(2, 2 * fill, addrs, 1u, 4, Access::Load).done - 2 * fill, dev.l2.hit_latency_cycles, 2.0);
}

TEST_F(NvMemory, StreamingReadsAreLimitedByHbmBandwidth) {
  // 64 MiB of distinct lines requested at once from many SMs' worth of addresses
  const double bytes = 64.0 * 1024 * 1024;
  double done = 0;
  mem::NvMemorySystem big(dev, 132, 128 * 1024);
  std::uint64_t base = 0x7000'0000'0000;
  for (std::uint64_t off = 0; off < static_cast<std::uint64_t>(bytes); off += 512) {
    for (int l = 0; l < 32; ++l) addrs[l] = base + off + static_cast<std::uint64_t>(l) * 16;
    done = std::max(done, big.global(static_cast<int>((off / 512) % 132), 0, addrs, ~0u, 16, Access::Load).done);
  }
  const double peak = dev.dram.bandwidth_gbps * 1e9 / (dev.clocks.core_mhz * 1e6) * dev.dram.read_efficiency;
  EXPECT_NEAR(bytes / done, peak, 0.05 * peak) << "achieved bytes per cycle match the HBM read rate";
}

// Latency under load: a read arriving while 70% of the HBM read bandwidth is in use waits the
// M/D/1 time of dram.queue_service_cycles at rho = 0.7 on top of the unloaded latency; without
// the queue it waits (almost) nothing, the bandwidth not being used up.
TEST_F(NvMemory, HbmLatencyGrowsWithLoadBeforeSaturation) {
  auto probe_latency = [&](const device::DeviceSpec& d) {
    mem::NvMemorySystem big(d, 132, 128 * 1024);
    const double cap = d.dram.bandwidth_gbps * 1e9 / (d.clocks.core_mhz * 1e6) * d.dram.read_efficiency;  // bytes/cycle
    const double rho = 0.7, gap = 512.0 / (rho * cap);
    std::uint64_t base = 0x7000'0000'0000;
    double t = 0;
    for (std::uint64_t off = 0; t < 8000; off += 512, t += gap) {
      for (int l = 0; l < 32; ++l) addrs[l] = base + off + static_cast<std::uint64_t>(l) * 16;
      big.global(static_cast<int>((off / 512) % 132), t, addrs, ~0u, 16, Access::Load);
    }
    for (int l = 0; l < 32; ++l) addrs[l] = 0x6000'0000'0000;
    return big.global(5, t, addrs, 1u, 4, Access::Load).done - t;
  };
  ASSERT_GT(dev.dram.queue_service_cycles, 0);
  const double want = dev.dram.queue_service_cycles * 0.7 / (2 * 0.3);
  EXPECT_NEAR(probe_latency(dev) - dev.dram.latency_cycles, want, 0.25 * want);
  auto no_queue = dev;
  no_queue.dram.queue_service_cycles = 0;
  EXPECT_LT(probe_latency(no_queue) - dev.dram.latency_cycles, 0.2 * want);
}

TEST_F(NvMemory, BankConflictsSerialiseIntoWavefronts) {
  for (int l = 0; l < 32; ++l) addrs[l] = static_cast<std::uint64_t>(l) * 4;
  double free_lat = m.shared(0, 0, addrs, ~0u, 4, false);
  for (int l = 0; l < 32; ++l) addrs[l] = static_cast<std::uint64_t>(l) * 4 * 32;  // all in bank 0
  double conflict_lat = m.shared(0, 1000, addrs, ~0u, 4, false) - 1000;
  EXPECT_DOUBLE_EQ(free_lat, dev.shared.latency_cycles);
  EXPECT_DOUBLE_EQ(conflict_lat, dev.shared.latency_cycles + 31 * dev.shared.conflict_latency_cycles);
  for (int l = 0; l < 32; ++l) addrs[l] = 64;  // one word: a broadcast, no conflict
  EXPECT_DOUBLE_EQ(m.shared(0, 5000, addrs, ~0u, 4, false) - 5000, dev.shared.latency_cycles);
}

TEST_F(NvMemory, SameAddressAtomicsSerialise) {
  for (int l = 0; l < 32; ++l) addrs[l] = 0x7000'0000'0000;
  m.global(0, 0, addrs, 1u, 4, Access::Load);  // the line is in L2
  mem::NvMemorySystem m2(dev, 2, 128 * 1024);
  m2.global(0, 0, addrs, 1u, 4, Access::Load);
  double one = m.global(1, 5000, addrs, 1u, 4, Access::Atomic).done - 5000;
  double all = m2.global(1, 5000, addrs, ~0u, 4, Access::Atomic).done - 5000;
  EXPECT_NEAR(one, dev.l2.atomic_latency_cycles, 5.0);
  EXPECT_NEAR(all - one, 31 * dev.l2.atomic_same_address_cycles, 1.0);
}

// Operations on one address follow each other by l2.atomic_float_same_address_cycles across
// requests too (atomic_units.cu addr1_lane1 on the H100: one lane per request, every SM, 3.49
// cycles an f32 operation): 64 one-lane requests to one word, each from its own SM, end about 63
// chain steps after the first, while 64 requests to words of 64 different units do not wait.
TEST_F(NvMemory, SameAddressAtomicsFollowEachOtherAcrossRequests) {
  auto last = [&](std::uint64_t stride) {
    mem::NvMemorySystem s(dev, 132, 128 * 1024);
    std::uint64_t a[32];
    for (int i = 0; i < 64; ++i) {  // the lines in L2 first, by an SM the test does not use
      a[0] = 0x7000'0000'0000 + stride * static_cast<std::uint64_t>(i);
      s.global(100, 0, a, 1u, 4, Access::LoadBypassL1);
    }
    double first = 1e300, end = 0;
    for (int i = 0; i < 64; ++i) {
      a[0] = 0x7000'0000'0000 + stride * static_cast<std::uint64_t>(i);
      const double d = s.global(i, 5000, a, 1u, 4, Access::AtomicFloat).done;
      first = std::min(first, d);
      end = std::max(end, d);
    }
    return end - first;
  };
  const double chain = dev.l2.atomic_float_same_address_cycles;
  EXPECT_GT(last(0), 0.9 * 63 * chain);
  EXPECT_LT(last(4096), 0.5 * 63 * chain);
}

// l2.atomic_*pass_cycles: a unit interleaves the operations of its lines, so the further
// same-address operations of a request cost it the pass time, not the address's chain time
// (atomic_units.cu same4_8lines on the H100: f32 at 2 cycles an operation per unit where one
// address alone takes 3.48). Requests of four same-address lanes on each of four lines of one
// unit: without the key (the chain time) the unit takes 1.27 + 3 x 3.48 per request.
TEST_F(NvMemory, AnAtomicUnitInterleavesTheSameAddressChainsOfItsLines) {
  auto finish = [&](double pass) {
    auto d = dev;
    d.l2.atomic_float_pass_cycles = pass;
    mem::NvMemorySystem s(d, 132, 128 * 1024);
    std::uint64_t a[32];
    double end = 0;
    for (int round = 0; round < 32; ++round)
      for (std::uint64_t line = 0; line < 4; ++line) {
        for (int l = 0; l < 32; ++l) a[l] = 0x7000'0000'0000 + 128 * line;
        end = std::max(end, s.global(round % 100, 5000, a, 0xfu, 4, Access::AtomicFloat).done);
      }
    return end - 5000;
  };
  ASSERT_EQ(dev.l2.atomic_unit_bytes, 512);
  const double per_request = 1.0 / dev.l2.atomic_ops_per_cycle;
  const double with_pass = finish(2.0), with_chain = finish(0);
  EXPECT_NEAR(with_chain - with_pass, 128 * 3 * (dev.l2.atomic_float_same_address_cycles - 2.0), 0.1 * 128 * 3 * 1.48);
  EXPECT_GT(with_pass, 128 * (per_request + 3 * 2.0));
}

// l2.atomic_request_cycles: a unit whose requests alternate between lines takes at least that
// per request (atomic_units.cu perline_N on the H100: 1.94 cycles per one-sector request), a unit
// kept on one line only its pass (sector_1: 1.16). One-lane requests to distinct words, all of
// one line, or alternating between two lines of one unit.
TEST_F(NvMemory, AtomicRequestsToAnotherLineTakeTheUnitsRequestTime) {
  auto finish = [&](double request_cycles, bool alternate) {
    auto d = dev;
    d.l2.atomic_request_cycles = request_cycles;
    mem::NvMemorySystem s(d, 132, 128 * 1024);
    std::uint64_t a[32];
    for (std::uint64_t line : {0, 128}) {  // the lines in L2 first, by an SM the test does not use
      for (int l = 0; l < 32; ++l) a[l] = 0x7000'0000'0000 + line + 4 * static_cast<std::uint64_t>(l);
      s.global(120, 0, a, ~0u, 4, Access::LoadBypassL1);
    }
    double first = 1e300, end = 0;
    for (int i = 0; i < 128; ++i) {
      const std::uint64_t line = alternate ? static_cast<std::uint64_t>(i % 2) * 128 : 0;
      a[0] = 0x7000'0000'0000 + line + 4 * static_cast<std::uint64_t>((i / 2) % 32);
      const double d = s.global(70 + i % 60, 5000, a, 1u, 4, Access::Atomic).done;  // SMs of the preloading SM's partition
      first = std::min(first, d);
      end = std::max(end, d);
    }
    return end - first;
  };
  const double pass = 1.0 / dev.l2.atomic_ops_per_cycle, req = 3 * pass;
  const double alternating = finish(req, true), one_line = finish(req, false), no_key = finish(0, true);
  EXPECT_GT(alternating, 0.95 * 127 * req);
  EXPECT_LT(one_line, 0.6 * 127 * req);
  EXPECT_LT(no_key, 0.6 * 127 * req);
}

// A slice's atomic unit owns aligned spans of l2.atomic_unit_bytes: warps adding to 32 words of
// one line, alternating between two lines, finish about twice as late when the lines share a
// span as when they are a span apart (the H200: 32 consecutive lines reach 7x the one-line
// rate, not 32x). Without the key a unit owns one line, and the two lines never share.
TEST_F(NvMemory, AtomicsOnLinesOfOneSpanShareAUnit) {
  auto finish = [&](std::int64_t span_bytes, std::uint64_t second_line) {
    auto d = dev;
    d.l2.atomic_unit_bytes = span_bytes;
    mem::NvMemorySystem s(d, 16, 128 * 1024);
    std::uint64_t a[32];
    double last = 0;
    for (int rep = 0; rep < 64; ++rep)
      for (std::uint64_t base : {std::uint64_t{0x7000'0000'0000}, 0x7000'0000'0000 + second_line}) {
        for (int l = 0; l < 32; ++l) a[l] = base + 4 * static_cast<std::uint64_t>(l);
        last = std::max(last, s.global(rep % 16, 5000, a, ~0u, 4, Access::Atomic).done);
      }
    return last - 5000;
  };
  const double shared = finish(512, 128), apart = finish(512, 512), own_line = finish(0, 128);
  // 128 requests of 4 sectors on one unit at l2.atomic_ops_per_cycle, against 64 on each of two
  const double unit_work = 128 * 4 / dev.l2.atomic_ops_per_cycle;
  EXPECT_GT(shared, unit_work);
  EXPECT_LT(apart, 0.6 * unit_work + dev.l2.atomic_latency_cycles + dev.l2.hit_latency_cycles + 200);
  EXPECT_GT(shared - apart, 0.4 * unit_work);
  EXPECT_NEAR(own_line, apart, 1.0);
}

// l2.atomic_chip_sectors_per_cycle: the chip's atomic units together serve at most that many
// sectors a cycle (atomic_units.cu on the H100: 40.7, however many lines the requests spread
// over). 2048 warps add to 32 words of a line each, every warp its own line (4 sectors, 2048
// lines: 512 units' spans), from every SM at once: the units alone finish them in a few of their
// requests; with the chip's rate set to 8 sectors a cycle, the 8192 sectors take at least 1024
// cycles, and the rate scales with the share of a slice.
TEST_F(NvMemory, AtomicsOfTheWholeChipShareItsSectorRate) {
  auto span = [&](double chip_rate, double share) {
    auto d = dev;
    d.l2.atomic_chip_sectors_per_cycle = chip_rate;
    mem::NvMemorySystem s(d, 132, 128 * 1024, share);
    std::uint64_t a[32];
    double first = 1e300, last = 0;
    for (std::uint64_t w = 0; w < 2048; ++w) {
      for (int l = 0; l < 32; ++l) a[l] = 0x7000'0000'0000 + 128 * w + 4 * static_cast<std::uint64_t>(l);
      const double done = s.global(static_cast<int>(w % 132), 5000, a, ~0u, 4, Access::Atomic).done;
      first = std::min(first, done);
      last = std::max(last, done);
    }
    return last - first;
  };
  const double units = span(0, 1.0), chip = span(8.0, 1.0), half = span(8.0, 0.5);
  std::printf("units alone %.0f cycles, 8 sectors/cycle %.0f, half a chip's share %.0f\n", units, chip, half);
  EXPECT_LT(units, 700.0);
  EXPECT_GT(chip, 8192 / 8.0 * 0.95);
  EXPECT_LT(chip, 8192 / 8.0 * 1.05 + units);
  EXPECT_GT(half, 1.9 * 8192 / 8.0);
}

// TPC request merging (l2.tpc_merge_window_cycles, l2_merge.cu on the H200): a read of sectors
// the other SM of the same TPC sent to the L2 within the window joins that request: the L2 sees
// them once, and the joining read's data is not back before the partner's. SMs of different TPCs,
// the same SM reading again, a partner later than the window, and a file without the key merge
// nothing.
TEST_F(NvMemory, TpcPartnersReadingTheSameSectorsReachTheL2Once) {
  struct Seen {
    std::uint64_t l2 = 0, merged = 0;
    double first = 0, second = 0;
  };
  auto run = [&](double window, int sm_a, int sm_b, double delay) {
    auto d = dev;
    d.topology.tpc_sms = 2;
    d.l2.tpc_merge_window_cycles = window;
    mem::NvMemorySystem s(d, 4, 128 * 1024);
    std::uint64_t a[32];
    Seen r;
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < 16; ++i) {  // 16 requests of 4 lines x 4 sectors
        for (int l = 0; l < 32; ++l) a[l] = 0x7000'0000'0000 + 512 * static_cast<std::uint64_t>(i) + 16 * static_cast<std::uint64_t>(l);
        const double t = pass == 0 ? 1000.0 + i : 1000.0 + delay + i;
        const double done = s.global(pass == 0 ? sm_a : sm_b, t, a, ~0u, 16, Access::LoadBypassL1).done;
        (pass == 0 ? r.first : r.second) = std::max(pass == 0 ? r.first : r.second, done);
      }
    r.l2 = s.counters().requests[static_cast<int>(mem::Level::L2)];
    r.merged = s.counters().tpc_merged_sectors;
    return r;
  };
  const Seen pair = run(6000, 0, 1, 100), apart = run(6000, 1, 2, 100), self = run(6000, 3, 3, 100);
  const Seen late = run(6000, 2, 3, 7000), off = run(0, 0, 1, 100);
  EXPECT_EQ(off.l2, 2u * 256u) << "without the key every read reaches the L2";
  EXPECT_EQ(pair.l2, 256u);
  EXPECT_EQ(pair.merged, 256u);
  EXPECT_GE(pair.second, pair.first) << "the joining read waits for the partner's data";
  EXPECT_EQ(apart.l2, 2u * 256u) << "SMs 1 and 2 are different TPCs";
  EXPECT_EQ(self.l2, 2u * 256u) << "an SM reading again is not a partner";
  EXPECT_EQ(late.l2, 2u * 256u) << "7000 cycles late is beyond the window";
  EXPECT_EQ(late.merged + apart.merged + self.merged + off.merged, 0u);
}

// l2.slice_read_bytes_per_cycle (a what-if, off in h200.yaml): reads of one l2.atomic_unit_bytes
// span use one slice's rate besides the whole L2's, so many SMs reading the same few lines wait
// where reads spread over many spans do not; without the key both take the same time.
TEST_F(NvMemory, HotSpanReadsQueueOnTheirSliceWithPerSliceRates) {
  auto last_done = [&](double slice_rate, bool hot) {
    auto d = dev;
    d.l2.slice_read_bytes_per_cycle = slice_rate;
    d.l2.tpc_merge_window_cycles = 0;  // every read reaches the L2
    mem::NvMemorySystem s(d, 8, 128 * 1024);
    std::uint64_t a[32];
    for (int i = 0; i < 32; ++i) {  // the lines into the L2 first
      a[0] = 0x7000'0000'0000 + 128 * static_cast<std::uint64_t>(i);
      s.global(i % 8, 0, a, 1u, 4, Access::LoadBypassL1);
    }
    double done = 0;
    for (int i = 0; i < 256; ++i) {  // 256 line reads of L2-resident lines by 8 SMs
      const std::uint64_t line = hot ? static_cast<std::uint64_t>(i % 2) : static_cast<std::uint64_t>(i % 32);
      for (int l = 0; l < 32; ++l) a[l] = 0x7000'0000'0000 + 128 * line + 4 * static_cast<std::uint64_t>(l);
      done = std::max(done, s.global(i % 8, 10000.0 + i / 8, a, ~0u, 4, Access::LoadBypassL1).done);
    }
    return done;
  };
  ASSERT_GT(dev.l2.slices, 16);
  const double off_hot = last_done(0, true), off_spread = last_done(0, false);
  const double on_hot = last_done(16, true), on_spread = last_done(16, false);
  EXPECT_NEAR(off_hot, off_spread, 10.0) << "one pool: where the lines are does not matter";
  EXPECT_GT(on_hot, off_hot + 100) << "two lines of one span: 256 x 144 B at 16 B/cycle on one slice";
  EXPECT_LT(on_spread, on_hot - 100) << "32 lines over 8 spans share 8 slices";
}

// dram.latency_quantiles_permille: an HBM access's latency is spread around dram.latency_cycles
// (its mean) by a fixed hash of its aligned dram.latency_granule_bytes block. One-line misses keep
// the mean; a warp whose 32 lines lie in 32 blocks waits for the slowest of 32 draws (the H100's
// 64-row TMA tile and ld.global.cg gather: +30-60% over one line); 4 lines of one block share a
// draw; without the keys every miss takes latency_cycles.
TEST_F(NvMemory, HbmLatencySpreadsByBlockAndAGatherWaitsForItsSlowestBlock) {
  auto d = dev;
  d.dram.latency_quantiles_permille = {766, 791, 1002, 1151, 1507};
  d.dram.latency_granule_bytes = 512;
  d.dram.queue_service_cycles = 0;  // no queueing: latency alone
  auto mean_latency = [&](const device::DeviceSpec& dd, int lanes, std::uint64_t stride) {
    double sum = 0;
    const int reps = 400;
    for (int rep = 0; rep < reps; ++rep) {
      mem::NvMemorySystem s(dd, 1, 128 * 1024);
      std::uint64_t a[32];
      const std::uint64_t base = 0x7000'0000'0000 + static_cast<std::uint64_t>(rep) * (1u << 20);
      for (int l = 0; l < 32; ++l) a[l] = base + static_cast<std::uint64_t>(l % lanes) * stride;
      sum += s.global(0, 0, a, lanes == 32 ? ~0u : (1u << lanes) - 1, 4, Access::LoadBypassL1).done;
    }
    return sum / reps;
  };
  auto plain = d;
  plain.dram.latency_quantiles_permille.clear();
  const double flat = mean_latency(plain, 1, 0), one = mean_latency(d, 1, 0);
  EXPECT_NEAR(one, flat, 0.03 * flat) << "one line: the mean stays dram.latency_cycles";
  // without the keys a gather of 32 lines takes one latency plus its 32 requests' issue
  const double gather = mean_latency(d, 32, 8192), gather_plain = mean_latency(plain, 32, 8192);
  EXPECT_LT(gather_plain - flat, 0.1 * dev.dram.latency_cycles);
  EXPECT_GT(gather - gather_plain, 0.25 * dev.dram.latency_cycles) << "32 blocks: the slowest of 32 draws";
  const double block = mean_latency(d, 4, 128), block_plain = mean_latency(plain, 4, 128);
  EXPECT_NEAR(block - block_plain, one - flat, 0.05 * one) << "4 lines of one block: one draw";
}

// The bank count comes from the device file, not from an array in the model: with 128 banks a
// warp reading every 32nd word touches 4 banks, 8 words each (32 banks: 1 bank, 32 words).
TEST_F(NvMemory, BankCountComesFromTheDeviceFile) {
  auto wide = dev;
  wide.shared.banks = 128;
  mem::NvMemorySystem w(wide, 1, 128 * 1024);
  for (int l = 0; l < 32; ++l) addrs[l] = static_cast<std::uint64_t>(l) * 4 * 32;
  w.shared(0, 0, addrs, ~0u, 4, false);
  EXPECT_EQ(w.counters().shared_wavefronts, 8u);
  m.shared(0, 0, addrs, ~0u, 4, false);
  EXPECT_EQ(m.counters().shared_wavefronts, 32u) << "h200: 32 banks";
}

// Store combining counts each warp's requests by its index in the SM, for as many warps as the
// SM holds (sm.max_warps): warp 64 of a 128-warp SM is not warp 0. A store joins the same warp's
// request to its line when no newer request of that warp came between (combine window 1).
TEST_F(NvMemory, StoreCombiningKeepsEveryWarpsOwnCount) {
  auto d = dev;
  d.sm.max_warps = 128;
  d.l1.store_combine_lines = 1;
  auto l2_busy = [&](int other) {
    mem::NvMemorySystem sys(d, 1, 128 * 1024);
    const std::uint64_t a = 0x7000'0000'0000, b = a + (1u << 20);
    auto store = [&](double t, std::uint64_t base, int warp) {
      for (int l = 0; l < 32; ++l) addrs[l] = base + 4 * static_cast<std::uint64_t>(l % 8);
      sys.global(0, t, addrs, 0xffu, 4, Access::Store, warp);
    };
    store(0, a, 0);
    store(1, b, other);
    store(2, a + 32, 0);  // the next sector of warp 0's first line
    return sys.l2_busy_cycles();
  };
  EXPECT_DOUBLE_EQ(l2_busy(64), l2_busy(1)) << "warp 64 has its own request count";
  EXPECT_LT(l2_busy(1), l2_busy(0)) << "warp 0's own request between them ends the combining";
}

// A load of the warp between two of its stores to the same lines sends the first store's
// requests on: the second is a request of its own (clang's float4 copy as two 8-byte load/store
// pairs: the H200's L2 sees both, calibration/data/h200/ncu_metrics.csv), even when the load hits
// in L1 and costs the L2 nothing. Back to back, the second joins the first.
TEST_F(NvMemory, AWarpsLoadBetweenItsStoresEndsTheirCombining) {
  auto l2_after = [&](bool load_between) {
    mem::NvMemorySystem sys(dev, 1, 128 * 1024);
    const std::uint64_t src = 0x7000'0000'0000, dst = 0x7100'0000'0000;
    auto half = [&](std::uint64_t base, std::uint64_t second) {  // lane l: 8 bytes at 16 l (+ 8)
      for (int l = 0; l < 32; ++l) addrs[l] = base + 16 * static_cast<std::uint64_t>(l) + second;
    };
    half(src, 0);
    const double loaded = sys.global(0, 0, addrs, ~0u, 8, Access::Load, 0).done;  // fills src's 4 lines in L1
    half(dst, 0);
    sys.global(0, loaded, addrs, ~0u, 8, Access::Store, 0);
    if (load_between) {
      half(src, 8);
      sys.global(0, loaded + 1, addrs, ~0u, 8, Access::Load, 0);  // an L1 hit
    }
    const std::uint64_t before = sys.counters().requests[static_cast<int>(mem::Level::L2)];
    half(dst, 8);
    sys.global(0, loaded + 2, addrs, ~0u, 8, Access::Store, 0);
    return std::pair{sys.counters().requests[static_cast<int>(mem::Level::L2)] - before, sys.l2_busy_cycles()};
  };
  const auto [joined_sectors, joined_busy] = l2_after(false);
  const auto [own_sectors, own_busy] = l2_after(true);
  EXPECT_EQ(own_sectors, 16u) << "4 lines x 4 partly written sectors, sent again";
  EXPECT_EQ(joined_sectors, 0u) << "back to back: no new sectors, the first request carries them";
  EXPECT_GT(own_busy, joined_busy + 4 * dev.l2.write_request_overhead * dev.l2.sector_bytes / dev.l2.bytes_per_cycle);
}

TEST(Occupancy, FollowsTheLimitsOfTheDevice) {
  auto d = device::load_builtin_device("h200");
  sim::KernelResources k{256, 32, 0};
  auto o = sim::compute_occupancy(d, k);
  EXPECT_EQ(o.blocks_per_unit, 8) << "2048 threads / 256";
  EXPECT_EQ(o.limiter, "warps");
  k.registers_per_thread = 128;  // 128*32 = 4096 regs per warp, 8 warps -> 32768 per block
  EXPECT_EQ(sim::compute_occupancy(d, k).blocks_per_unit, 2);
  EXPECT_EQ(sim::compute_occupancy(d, k).limiter, "registers");
  k = {128, 32, 48 * 1024};  // 48 KiB + 1 KiB reserved per block
  EXPECT_EQ(sim::compute_occupancy(d, k).blocks_per_unit, 233472 / (49 * 1024));
  EXPECT_EQ(sim::compute_occupancy(d, k).limiter, "shared");
  k = {1024, 255, 0};
  test::expect_error([&] { sim::compute_occupancy(d, k); }, ErrorKind::LaunchSpec, {"does not fit", "registers"});
}

// The L1 keeps what the shared-memory carveout leaves of the unified 256 KB, and the carveout is
// the smallest documented step (shared.carveout_steps_bytes) that holds the resident CTAs' shared
// memory, the 1 KB each CTA has reserved included, also when the kernel declares none.
TEST(Occupancy, TheL1KeepsWhatTheSmallestCarveoutStepLeaves) {
  auto d = device::load_builtin_device("h200");
  auto o = sim::compute_occupancy(d, {256, 32, 0});  // 8 CTAs x 1 KB reserved: the 8 KB step
  EXPECT_EQ(o.carveout_bytes, 8 * 1024);
  EXPECT_EQ(o.l1_bytes, 248 * 1024);
  o = sim::compute_occupancy(d, {256, 32, 1024});  // 8 x (1 + 1) KB = 16 KB: the 16 KB step
  EXPECT_EQ(o.l1_bytes, 240 * 1024);
  o = sim::compute_occupancy(d, {256, 32, 4 * 1024});  // 8 x 5 KB = 40 KB: the 64 KB step
  EXPECT_EQ(o.l1_bytes, 192 * 1024);
  o = sim::compute_occupancy(d, {128, 32, 48 * 1024});  // 4 x 49 KB = 196 KB: the 196 KB step
  EXPECT_EQ(o.l1_bytes, 60 * 1024);
  d.shared.carveout_steps_bytes.clear();  // without steps: the unified array less what the CTAs use
  EXPECT_EQ(sim::compute_occupancy(d, {256, 32, 0}).l1_bytes, 256 * 1024);
  EXPECT_EQ(sim::compute_occupancy(d, {256, 32, 1024}).l1_bytes, 240 * 1024);
}


// The B200's L2 is two partitions, one per die (l2.partitions with l2.cross_partition_bytes_per_cycle),
// each caching the lines its SMs use (SM 0 of 2 on die 0, SM 1 on die 1): a line another die
// brought in comes over once, l2.far_hit_latency_cycles after the request, and is near from then
// on; a write drops the other die's copy; an L2 miss comes from HBM with no far surcharge.
TEST(NvMemoryPartitions, ALineOnlyTheOtherDieHoldsComesOverOnceAtTheFarLatency) {
  const device::DeviceSpec dev = device::load_builtin_device("b200");
  ASSERT_GT(dev.l2.far_hit_latency_cycles, dev.l2.hit_latency_cycles + 100);
  mem::NvMemorySystem m{dev, 2, 128 * 1024};
  std::uint64_t addrs[32];
  const std::uint64_t a = 0x7000'0000'0000;
  for (int l = 0; l < 32; ++l) addrs[l] = a + 4u * static_cast<std::uint64_t>(l);
  auto access = [&](int sm, double t, Access k) { return m.global(sm, t, addrs, ~0u, 4, k).done - t; };
  EXPECT_NEAR(access(0, 0, Access::LoadBypassL1), dev.dram.latency_cycles, 5.0) << "a miss: HBM";
  EXPECT_NEAR(access(0, 5000, Access::LoadBypassL1), dev.l2.hit_latency_cycles, 3.0) << "die 0 holds it";
  EXPECT_NEAR(access(1, 6000, Access::LoadBypassL1), dev.l2.far_hit_latency_cycles, 3.0) << "die 1: from die 0";
  EXPECT_NEAR(access(1, 7000, Access::LoadBypassL1), dev.l2.hit_latency_cycles, 3.0) << "die 1 holds it now";
  access(1, 8000, Access::Store);  // die 1 writes: die 0's copy is stale
  EXPECT_NEAR(access(0, 9000, Access::LoadBypassL1), dev.l2.far_hit_latency_cycles, 3.0) << "die 0: from die 1";
  EXPECT_EQ(m.counters().far_l2_bytes, 2u * 128u);

  // the H200's file gives no cross-partition bandwidth: one L2, every hit near
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  mem::NvMemorySystem h{h200, 2, 128 * 1024};
  h.global(0, 0, addrs, ~0u, 4, Access::LoadBypassL1);
  EXPECT_NEAR(h.global(1, 5000, addrs, ~0u, 4, Access::LoadBypassL1).done - 5000, h200.l2.hit_latency_cycles, 3.0);
  EXPECT_EQ(h.counters().far_l2_bytes, 0u);
}

// One SM chasing through more lines than its partition holds finds them in the other partition
// (the L2 as a whole still holds them): the far latency, as published chases see past half the
// L2; within its partition's share, the near latency. An L2 of 1 MiB here: 512 KiB a partition.
TEST(NvMemoryPartitions, AFootprintBeyondThePartitionsShareHitsAtTheFarLatency) {
  device::DeviceSpec dev = device::load_builtin_device("b200");
  dev.l2.bytes = 1 << 20;
  auto second_pass = [&](std::uint64_t footprint) {
    mem::NvMemorySystem m{dev, 2, 128 * 1024};
    std::uint64_t addrs[32];
    double t = 0, sum = 0;
    int n = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (std::uint64_t off = 0; off < footprint; off += 128) {
        for (int l = 0; l < 32; ++l) addrs[l] = 0x7000'0000'0000 + off + 4u * static_cast<std::uint64_t>(l);
        const double d = m.global(0, t, addrs, ~0u, 4, Access::LoadBypassL1).done - t;
        t += d + 1;
        if (pass == 1) sum += d, ++n;
      }
    return sum / n;
  };
  EXPECT_NEAR(second_pass(256 * 1024), dev.l2.hit_latency_cycles, 3.0);
  EXPECT_NEAR(second_pass(768 * 1024), dev.l2.far_hit_latency_cycles, 3.0);
}

// Lines coming over from the other partition share the link between them: with a narrow link,
// a die reading what the other die brought in queues on it; re-reading its own copies does not.
TEST(NvMemoryPartitions, FarHitsAreLimitedByTheLinkBetweenThePartitions) {
  device::DeviceSpec dev = device::load_builtin_device("b200");
  dev.l2.cross_partition_bytes_per_cycle = 16;  // one sector every two cycles
  mem::NvMemorySystem m{dev, 2, 128 * 1024};
  std::uint64_t addrs[32];
  auto sweep = [&](int sm, double t) {
    double last = 0;
    for (std::uint64_t off = 0; off < 256 * 128; off += 128) {
      for (int l = 0; l < 32; ++l) addrs[l] = 0x7000'0000'0000 + off + 4u * static_cast<std::uint64_t>(l);
      last = std::max(last, m.global(sm, t, addrs, ~0u, 4, Access::LoadBypassL1).done);
    }
    return last - t;
  };
  sweep(0, 0);                       // die 0 brings 256 lines in
  const double far = sweep(1, 1e6);  // die 1 takes them over the link: 32 KiB at 16 B/cycle
  const double near = sweep(1, 2e6);
  EXPECT_GT(far, 2048.0);
  EXPECT_LT(near, 1024.0);
}

}  // namespace
}  // namespace kernsim
