// The SM slice (sim/timing/nvidia_machine.cpp) and the CU slice (sim/timing/amd_machine.cpp): a
// launch too large for the detail budget is timed on a few SMs (whole XCDs) with their share of
// the chip. Its time must agree with timing every CTA, and the launch must still compute exactly
// what it computes unsampled (the CTA run ahead to measure the work is undone; the warm-up CTAs
// and the rest run once).
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "test_util.h"

namespace kernsim {
namespace {

const std::string kData = KERNSIM_TEST_DATA;

api::RunResult run(const std::string& json, bool full, std::uint64_t budget, std::int64_t l2_bytes = 0,
                   const char* arch = "h200") {
  auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "slice test");
  api::RunOptions o;
  o.full = full;
  o.detail_budget = budget;
  o.keep_outputs = true;
  device::DeviceSpec d = device::load_builtin_device(arch);
  if (l2_bytes) d.l2.bytes = l2_bytes;
  return api::run_launch(spec, d, o);
}

void expect_axpy_once(const api::RunResult& r) {
  const api::BufferOut* y = nullptr;
  for (const auto& b : r.outputs)
    if (b.arg_index == 2) y = &b;
  ASSERT_NE(y, nullptr);
  ASSERT_EQ(y->bytes.size(), 1048576u * 4);
  const float* v = reinterpret_cast<const float*>(y->bytes.data());
  for (std::size_t i = 0; i < 1048576; ++i) ASSERT_FLOAT_EQ(v[i], 3.0f * static_cast<float>(i)) << "element " << i;
}

const char* kAxpy = R"({"source": "slice.cu", "kernel": "axpy_inplace", "grid": 4096, "block": 256,
  "args": [{"type": "f32", "value": 2.0}, {"buffer": "f32", "count": 1048576, "init": "iota"},
           {"buffer": "f32", "count": 1048576, "init": "iota"}, {"type": "i32", "value": 1048576}]})";

// every CTA reads `a` from the same line
const char* kAxpyA = R"({"source": "slice.cu", "kernel": "axpy_inplace_a", "grid": 4096, "block": 256,
  "args": [{"buffer": "f32", "count": 1, "init": "randint:2:2"}, {"buffer": "f32", "count": 1048576, "init": "iota"},
           {"buffer": "f32", "count": 1048576, "init": "iota"}, {"type": "i32", "value": 1048576}]})";

// The axpy's CTAs share no line, so the slice's L2 warm-up (the CTAs after the slice, run
// functionally for what they leave in the L2) could change nothing and does not run; the CTAs it
// would have run still run once, with the rest of the grid.
TEST(SmSlice, InPlaceUpdateHappensExactlyOnce) {
  const api::RunResult r = run(kAxpy, false, 50000);
  const auto j = nlohmann::json::parse(r.report_json);
  ASSERT_NE(j["sampling"]["note"].get<std::string>().find("SM slice"), std::string::npos) << j["sampling"]["note"];
  EXPECT_NE(j["sampling"]["note"].get<std::string>().find("no L2 warm-up"), std::string::npos) << j["sampling"]["note"];
  expect_axpy_once(r);
}

// The CTAs share a table only through their cp.async copies: the slice's L2 warm-up runs (the
// copies' global sources are reads), so the slice finds the table in L2 as the chip does, where
// every CTA after the first hits it. Without the copies counted, the slice saw no shared line, ran
// no warm-up and read the table from HBM once per few CTAs (its misses scaled to the grid).
TEST(SmSlice, CpAsyncCopiesOfSharedDataWarmTheSlicesL2) {
  const char* spec = R"({"source": "slice.cu", "kernel": "table_cp_async", "grid": 4096, "block": 256,
    "args": [{"buffer": "f32", "count": 4096, "init": "iota"}, {"buffer": "f32", "count": 1048576}]})";
  const auto sampled = nlohmann::json::parse(run(spec, false, 50000).report_json);
  const std::string note = sampled["sampling"]["note"].get<std::string>();
  ASSERT_NE(note.find("SM slice"), std::string::npos) << note;
  EXPECT_EQ(note.find("no L2 warm-up"), std::string::npos) << note;
  const auto full = nlohmann::json::parse(run(spec, true, 50000).report_json);
  const double table_bytes = 4096 * 4;
  EXPECT_LT(full["memory"]["dram"]["read_bytes"].get<double>(), 2 * table_bytes) << "the chip reads the table once";
  EXPECT_LT(sampled["memory"]["dram"]["read_bytes"].get<double>(), 4 * table_bytes) << note;
}

TEST(SmSlice, WarmUpStoppedEarlyStillRunsEveryCtaOnce) {
  // an L2 of 64 KiB is full after a few of the warm-up CTAs (run last first); the ones it did
  // not need run with the rest of the grid
  const api::RunResult r = run(kAxpyA, false, 50000, 64 * 1024);
  const std::string note = nlohmann::json::parse(r.report_json)["sampling"]["note"].get<std::string>();
  const std::size_t ran = note.find("leave it: CTAs ");
  ASSERT_NE(ran, std::string::npos) << note;
  unsigned first = 0, last = 0, slice_last = 0;
  ASSERT_EQ(std::sscanf(note.c_str() + ran, "leave it: CTAs %u-%u", &first, &last), 2) << note;
  ASSERT_EQ(std::sscanf(note.c_str() + note.find("ran CTAs 0-"), "ran CTAs 0-%u", &slice_last), 1) << note;
  EXPECT_GT(first, slice_last + 1) << "the warm-up should have stopped before its first CTA: " << note;
  expect_axpy_once(r);
}

TEST(SmSlice, AgreesWithTimingEveryCta) {
  const char* axpy_big = R"({"source": "slice.cu", "kernel": "axpy_inplace", "grid": 4096, "block": 1024,
    "args": [{"type": "f32", "value": 2.0}, {"buffer": "f32", "count": 4194304}, {"buffer": "f32", "count": 4194304},
             {"type": "i32", "value": 4194304}]})";
  for (const char* spec : {axpy_big, R"({"source": "slice.cu", "kernel": "fma_loop", "grid": 2048, "block": 256,
                                     "args": [{"buffer": "f32", "count": 524288}, {"type": "i32", "value": 100}]})"}) {
    const double sliced = run(spec, false, 60000).time_us;
    const double full = run(spec, true, 0).time_us;
    std::printf("%.60s...: sliced %.2f us, full %.2f us\n", spec, sliced, full);
    EXPECT_NEAR(sliced / full, 1.0, 0.15) << spec << ": sliced " << sliced << " us, full " << full << " us";
  }
}

double l2_hit_rate(const api::RunResult& r) { return nlohmann::json::parse(r.report_json)["memory"]["l2"]["hit_rate"].get<double>(); }

// A buffer the grid reads twice (grid-stride passes) that is larger than the L2: on the chip the
// second pass misses, and the slice, which reads its share of each pass, must miss too (it kept
// the whole L2 and hit 50%: H200, 84 MB, 44.5 us sampled against 62.2 us full). An L2 that holds
// the buffer (a what-if file's) makes both passes' second half hit, sampled as on the chip.
TEST(SmSlice, ABufferReadTwiceThatOverflowsTheL2MissesAsOnTheChip) {
  const char* spec = R"({"source": "slice.cu", "kernel": "read_twice", "grid": 1056, "block": 256,
    "args": [{"buffer": "f32", "count": 1572864, "init": "uniform"}, {"buffer": "f32", "count": 270336}, {"type": "i32", "value": 1572864}]})";
  const std::int64_t small = 4 << 20, large = 16 << 20;  // the buffer is 6 MiB
  const api::RunResult sliced = run(spec, false, 100000, small), full = run(spec, true, 0, small);
  ASSERT_NE(nlohmann::json::parse(sliced.report_json)["sampling"]["note"].get<std::string>().find("SM slice"), std::string::npos);
  std::printf("4 MiB L2: sliced %.2f us (L2 hits %.3f), full %.2f us (%.3f)\n", sliced.time_us, l2_hit_rate(sliced), full.time_us,
              l2_hit_rate(full));
  EXPECT_LT(l2_hit_rate(full), 0.2);
  EXPECT_NEAR(l2_hit_rate(sliced), l2_hit_rate(full), 0.1);
  EXPECT_NEAR(sliced.time_us / full.time_us, 1.0, 0.15);
  const api::RunResult what_if = run(spec, false, 100000, large), what_if_full = run(spec, true, 0, large);
  std::printf("16 MiB L2: sliced %.2f us (L2 hits %.3f), full %.2f us (%.3f)\n", what_if.time_us, l2_hit_rate(what_if),
              what_if_full.time_us, l2_hit_rate(what_if_full));
  EXPECT_GT(l2_hit_rate(what_if_full), 0.4) << "the second pass hits on the chip";
  EXPECT_NEAR(l2_hit_rate(what_if), l2_hit_rate(what_if_full), 0.1);
  EXPECT_LT(what_if.time_us, 0.9 * sliced.time_us) << "the L2's size moves the sampled prediction";
}

// A launch sampled within `budget` and timed with --full: the sampled run's note and the ratio
// of the two times.
struct SampledAndFull {
  std::string note;
  double ratio = 0;
};

SampledAndFull sampled_and_full(const char* spec, std::uint64_t budget) {
  const api::RunResult sampled = run(spec, false, budget), full = run(spec, true, 0);
  SampledAndFull r{nlohmann::json::parse(sampled.report_json)["sampling"]["note"].get<std::string>(), sampled.time_us / full.time_us};
  std::printf("sampled %.2f us (%s), full %.2f us\n", sampled.time_us, r.note.c_str(), full.time_us);
  return r;
}

// A long CTA in flight when the windows end sets the launch's end: as a floor under the
// extrapolation, or, when every CTA had started, as the end of the CTAs in flight.
void expect_ends_with_its_long_cta(const char* spec, std::uint64_t budget) {
  const SampledAndFull r = sampled_and_full(spec, budget);
  ASSERT_TRUE(r.note.find("ended no earlier than") != std::string::npos || r.note.find("every CTA started") != std::string::npos)
      << r.note;
  EXPECT_NEAR(r.ratio, 1.0, 0.15);
}

// One thread (of CTA 5: in the slice, and not among the CTAs whose work is averaged) runs 20000
// dependent loads, the rest of the grid none: the window's steady rate extrapolates the grid's
// work, but the launch ends when that thread does. Sampled, the CTAs still in flight run on and
// the kernel ends no earlier than they do (before, it ended with the grid's work, far too early).
// The other CTAs end early, so the first wave is not still running at the first window's end and
// one window runs (a long CTA a second window would abandon:
// ALongCtaOfTheFirstWaveIsNotAbandonedByASecondWindow). Every CTA of
// the slice has started by the windows' end, so the CTAs in flight, run on, end it.
TEST(SmSlice, ALaunchEndsNoEarlierThanItsUnfinishedLongCta) {
  const char* spec = R"({"source": "slice.cu", "kernel": "one_long_thread", "grid": 2048, "block": 256,
    "args": [{"buffer": "i32", "count": 65536, "init": "randint:0:65535"}, {"buffer": "i32", "count": 524288},
             {"type": "i32", "value": 65535}, {"type": "i32", "value": 20000}, {"type": "i32", "value": 1280},
             {"type": "i32", "value": 0}]})";
  expect_ends_with_its_long_cta(spec, 50000);
}

// A launch whose long CTAs time fewer instructions than the sampled mean CTA: every 1000th CTA's
// thread 0 chases 20,000 pointers (through 1 KiB: L1 hits after a few steps, a steady chain), the
// other threads run 64 FMAs. The estimate of a CTA's work samples CTA 0, so the mean holds an
// eighth of a long CTA's work, more than the chain has timed by the drain's end; the drain must
// count the CTAs that timed more than the completed ones did (spmv_pl_thread_r512k: its long-row
// CTAs 0, 1 and 63 of the slice had timed 35-51 k instructions against a sampled mean of 66.5 k,
// and it was extrapolated at 1.47 ms where its longest row alone takes 7.9 ms in the model).
TEST(SmSlice, ALaunchEndsNoEarlierThanALongCtaThatTimedLessThanTheSampledMean) {
  const char* spec = R"({"source": "slice.cu", "kernel": "long_rows", "grid": 4096, "block": 256,
    "args": [{"buffer": "i32", "count": 256, "init": "randint:0:255"}, {"buffer": "f32", "count": 1048576},
             {"type": "i32", "value": 255}, {"type": "i32", "value": 20000}, {"type": "i32", "value": 256000},
             {"type": "i32", "value": 64}]})";
  expect_ends_with_its_long_cta(spec, 20000);
}

// A slice whose drain runs its last CTAs to their ends has timed every CTA: its time is the
// drain's end, not the windows' rate over an estimate of the work (8 CTAs' mean, here with CTA 0's
// 20,000-step chase in it: twice the slice's real work). Every 16th CTA's thread 0 chases, the rest
// run 256 FMAs; the slice (one SM, CTAs 0-15) holds one chase, as every SM of the chip does.
TEST(SmSlice, ASliceTheDrainRanToItsEndIsTimedNotExtrapolated) {
  const char* spec = R"({"source": "slice.cu", "kernel": "long_rows", "grid": 2048, "block": 256,
    "args": [{"buffer": "i32", "count": 256, "init": "randint:0:255"}, {"buffer": "f32", "count": 524288},
             {"type": "i32", "value": 255}, {"type": "i32", "value": 20000}, {"type": "i32", "value": 4096},
             {"type": "i32", "value": 256}]})";
  const SampledAndFull r = sampled_and_full(spec, 100000);
  ASSERT_NE(r.note.find("SM slice"), std::string::npos) << r.note;
  EXPECT_EQ(r.note.find("extrapolated at"), std::string::npos) << r.note;
  EXPECT_NEAR(r.ratio, 1.0, 0.1);
}

// A work estimate inflated by a long CTA it sampled, with the drain unable to finish that CTA:
// every 16th CTA's thread 0 chases 20,000 pointers, the rest run 128 FMAs; the slice (one SM,
// CTAs 0-15) holds one chase, CTA 0, which the estimate of a CTA's work samples (its mean: 10.4 k
// instructions where the slice's CTAs average 7.8 k). Every CTA of the slice has started when the
// windows end, so what is left is the CTAs in flight's work, counted by running them on, at their
// own rates; the launch ends when the chase does (before: the estimate's extra work at the
// chase's rate, 894 us against 454 us --full).
TEST(SmSlice, AWorkEstimateInflatedByALongCtaItSampledDoesNotSetTheEnd) {
  const char* spec = R"({"source": "slice.cu", "kernel": "long_rows", "grid": 2048, "block": 256,
    "args": [{"buffer": "i32", "count": 256, "init": "randint:0:255"}, {"buffer": "f32", "count": 524288},
             {"type": "i32", "value": 255}, {"type": "i32", "value": 20000}, {"type": "i32", "value": 4096},
             {"type": "i32", "value": 128}]})";
  const SampledAndFull r = sampled_and_full(spec, 60000);
  ASSERT_NE(r.note.find("SM slice"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("every CTA started"), std::string::npos) << r.note;
  EXPECT_NEAR(r.ratio, 1.0, 0.1);
}

// A slice of two waves of like CTAs whose threads run in step, sized (in whole SMs) a little over
// the detail budget: window A, half the budget, ends with every CTA of the first wave in flight
// and nearly done. A second window would abandon them and time a wave of fresh CTAs in step, and
// the first wave, extrapolated at the rate of A's second half (the row softmax's later passes,
// slower than its first), came out a third long (44.2 us against 33.8 us --full; the H200's
// softmax_short_dyn32x512k: 488 us sampled, 381 us --full). A runs on instead with the rest of the
// budget, to the first wave's end and into the second. One thread per row of 16 floats, 80 KiB of
// shared memory a CTA (two CTAs an SM), 528 CTAs: two waves on the chip, 36 CTAs on 9 SMs.
TEST(SmSlice, AFirstWaveTheBudgetCanFinishIsNotAbandonedForASecondWindow) {
  const char* spec = R"({"source": "slice.cu", "kernel": "row_softmax", "grid": 528, "block": 256, "dynamic_shared_bytes": 81920,
    "args": [{"buffer": "f32", "count": 2162688, "init": "uniform"}, {"buffer": "f32", "count": 2162688},
             {"type": "i32", "value": 135168}, {"type": "i32", "value": 16}]})";
  const SampledAndFull r = sampled_and_full(spec, 151100);
  ASSERT_NE(r.note.find("SM slice: 9 of 132"), std::string::npos) << r.note;
  EXPECT_EQ(r.note.find("two windows"), std::string::npos) << r.note;
  EXPECT_NEAR(r.ratio, 1.0, 0.05);
}

// A long CTA of the first wave that a second window would abandon: CTA 0's thread 0 chases 20,000
// pointers, every other thread runs 256 FMAs; two CTAs an SM (80 KiB of shared memory each), so
// that the budget cannot time the first wave of the slice (4 SMs, 16 CTAs) and a second window
// runs. Abandoned at window A's end, the chase was neither timed nor seen by the floor (9.1 us
// against 453.0 us --full). Kept, it runs on through window B and then alone in the drain, at
// the rate of its steady steps; the CTAs' work varies (CTA 0 is among those the work estimate
// runs), so the CTAs in flight are probed for such a CTA.
TEST(SmSlice, ALongCtaOfTheFirstWaveIsNotAbandonedByASecondWindow) {
  const char* spec = R"({"source": "slice.cu", "kernel": "long_rows", "grid": 528, "block": 256, "dynamic_shared_bytes": 81920,
    "args": [{"buffer": "i32", "count": 256, "init": "randint:0:255"}, {"buffer": "f32", "count": 135168},
             {"type": "i32", "value": 255}, {"type": "i32", "value": 20000}, {"type": "i32", "value": 135168},
             {"type": "i32", "value": 256}]})";
  const SampledAndFull r = sampled_and_full(spec, 40000);
  ASSERT_NE(r.note.find("two windows"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("ended no earlier than"), std::string::npos) << r.note;
  EXPECT_NEAR(r.ratio, 1.0, 0.05);
}

// A slice of many waves of like CTAs stops timing once its rate has converged after the L2 has
// turned over (its share of the capacity filled), with at least a wave of CTAs not started: the CTAs
// in flight run to their ends (the tail, as at the launch's end) and the CTAs not started are
// extrapolated at the converged rate. An axpy over 16 MiB with a 2 MiB L2, 15 waves in a slice of
// 8 SMs: it times two thirds of the slice's instructions (before: all but the last 5%), within 3%
// of timing every CTA (16.69 us against 16.69).
TEST(SmSlice, AManyWaveSliceStopsOnItsConvergedRateAndTimesItsTail) {
  const char* spec = R"({"source": "slice.cu", "kernel": "axpy_inplace", "grid": 16384, "block": 256,
    "args": [{"type": "f32", "value": 2.0}, {"buffer": "f32", "count": 4194304, "init": "iota"},
             {"buffer": "f32", "count": 4194304, "init": "iota"}, {"type": "i32", "value": 4194304}]})";
  const std::int64_t l2 = 2 << 20;
  const api::RunResult sampled = run(spec, false, 150000, l2), full = run(spec, true, 0, l2);
  const auto j = nlohmann::json::parse(sampled.report_json);
  const std::string note = j["sampling"]["note"].get<std::string>();
  std::printf("sampled %.3f us (%s), full %.3f us\n", sampled.time_us, note.c_str(), full.time_us);
  ASSERT_NE(note.find("SM slice"), std::string::npos) << note;
  EXPECT_NE(note.find("not yet started extrapolated"), std::string::npos) << note;
  const double timed = j["sampling"]["warp_instructions_timed"].get<double>();
  unsigned slice_last = 0;
  ASSERT_EQ(std::sscanf(note.c_str() + note.find("ran CTAs 0-"), "ran CTAs 0-%u", &slice_last), 1) << note;
  const double slice_work =
      j["sampling"]["warp_instructions_estimated"].get<double>() * (slice_last + 1.0) / j["sampling"]["ctas"].get<double>();
  std::printf("timed %.0f warp instructions of the slice's ~%.0f\n", timed, slice_work);
  EXPECT_LT(timed, 0.75 * slice_work);
  EXPECT_NEAR(sampled.time_us / full.time_us, 1.0, 0.03);
}

// ---------------------------------------------------------------------------------------------
// the SM slice of a launch with thread-block clusters: whole GPCs (H200: 18, 18, 16, ... SMs),
// whole clusters

// The launch's output against what the kernel computes (clusters.cu, cluster_inplace): each
// element of `out` (iota) plus f(in) of the same thread of the next rank's CTA, exactly once.
void expect_cluster_inplace(const api::RunResult& r, std::uint32_t gx, std::uint32_t gy, std::uint32_t cx, std::uint32_t cy,
                            int iters) {
  const api::BufferOut* out = nullptr;
  for (const auto& b : r.outputs)
    if (b.arg_index == 1) out = &b;
  ASSERT_NE(out, nullptr);
  const std::uint32_t block = 256, n = cx * cy;
  ASSERT_EQ(out->bytes.size(), std::size_t{gx} * gy * block * 4);
  const std::uint32_t* v = reinterpret_cast<const std::uint32_t*>(out->bytes.data());
  for (std::uint32_t y = 0; y < gy; ++y)
    for (std::uint32_t x = 0; x < gx; ++x) {
      const std::uint32_t rank = x % cx + cx * (y % cy), next = (rank + 1) % n;
      const std::uint32_t nx = x - x % cx + next % cx, ny = y - y % cy + next / cx;
      for (std::uint32_t t = 0; t < block; ++t) {
        const std::uint32_t i = (y * gx + x) * block + t, j = (ny * gx + nx) * block + t;
        std::uint32_t f = j;
        for (int k = 0; k < iters; ++k) f = f * 3u + 1u;
        ASSERT_EQ(v[i], i + f) << "CTA (" << x << "," << y << ") thread " << t;
      }
    }
}

std::string cluster_inplace(std::uint32_t gx, std::uint32_t gy, std::uint32_t cx, std::uint32_t cy, int iters) {
  const std::size_t n = std::size_t{gx} * gy * 256;
  return R"({"source": "clusters.cu", "kernel": "cluster_inplace", "grid": [)" + std::to_string(gx) + ", " + std::to_string(gy) +
         R"(, 1], "block": 256, "cluster": [)" + std::to_string(cx) + ", " + std::to_string(cy) +
         R"(, 1], "args": [{"buffer": "u32", "count": )" + std::to_string(n) + R"(, "init": "iota"}, {"buffer": "u32", "count": )" +
         std::to_string(n) + R"(, "init": "iota"}, {"type": "i32", "value": )" + std::to_string(iters) + "}]}";
}

// "SM slice: K of 132 SMs (G GPCs of a+b SMs, ..." names GPCs that are the first of h200.yaml's
// topology.gpc_sms and add up to K.
void expect_whole_gpcs(const std::string& note) {
  unsigned k = 0, gpcs = 0;
  ASSERT_EQ(std::sscanf(note.c_str(), "SM slice: %u of 132 SMs (%u GPC", &k, &gpcs), 2) << note;
  const std::int64_t chip[] = {18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2};
  const std::size_t at = note.find(" of ", note.find("GPC"));
  unsigned sum = 0;
  const char* p = note.c_str() + at + 4;
  for (unsigned g = 0; g < gpcs; ++g) {
    char* end = nullptr;
    const long size = std::strtol(p, &end, 10);
    EXPECT_EQ(size, chip[g]) << "GPC " << g << ": " << note;
    sum += static_cast<unsigned>(size);
    p = end + 1;
  }
  EXPECT_EQ(sum, k) << note;
  EXPECT_LT(k, 132u) << note;
}

TEST(SmSlice, AClusterLaunchRunsWholeGpcsAndAgreesWithTimingEveryCta) {
  for (const auto& [cx, cy] : {std::pair{2u, 1u}, std::pair{2u, 2u}}) {
    const std::string spec = cluster_inplace(64, 64, cx, cy, 200);
    const api::RunResult sliced = run(spec, false, 2000000);  // the slice (2 GPCs, 1.5 M) fits: every CTA of it timed
    const auto j = nlohmann::json::parse(sliced.report_json);
    const std::string note = j["sampling"]["note"].get<std::string>();
    expect_whole_gpcs(note);
    // whole clusters: the slice completed a whole number of them, every CTA of each timed
    EXPECT_EQ(j["sampling"]["ctas_timed"].get<std::uint64_t>() % (cx * cy), 0u) << note;
    EXPECT_NE(note.find(" CTAs each)"), std::string::npos) << note;
    expect_cluster_inplace(sliced, 64, 64, cx, cy, 200);
    const api::RunResult full = run(spec, true, 0);
    expect_cluster_inplace(full, 64, 64, cx, cy, 200);
    std::printf("clusters of %ux%u: sliced %.2f us, full %.2f us\n", cx, cy, sliced.time_us, full.time_us);
    EXPECT_NEAR(sliced.time_us / full.time_us, 1.0, 0.05) << note << ": sliced " << sliced.time_us << " us, full " << full.time_us;
  }
}

// The warm-up runs whole clusters too (their CTAs only run together), and an L2 too small for
// the warm-up to finish leaves the rest of them, which still run once with the rest of the grid.
TEST(SmSlice, AClusterLaunchsWarmUpStoppedEarlyStillRunsEveryClusterOnce) {
  const std::string spec = cluster_inplace(64, 64, 2, 2, 8);
  const api::RunResult r = run(spec, false, 100000, 64 * 1024);
  const std::string note = nlohmann::json::parse(r.report_json)["sampling"]["note"].get<std::string>();
  unsigned last = 0, first = 0;
  ASSERT_EQ(std::sscanf(note.c_str() + note.find("ran clusters 0-"), "ran clusters 0-%u", &last), 1) << note;
  ASSERT_EQ(std::sscanf(note.c_str() + note.find("leave it: clusters "), "leave it: clusters %u", &first), 1) << note;
  EXPECT_GT(first, last + 1) << "the warm-up should have stopped before its first cluster: " << note;
  expect_cluster_inplace(r, 64, 64, 2, 2, 8);
}

// One CTA per SM (200 KB of shared memory): a CTA ending on one SM starts the next cluster on
// SMs that had nothing to do, and the sampler must learn of them (before, those SMs were never
// stepped again: 134 of the 512 CTAs ran, in a --full run that reported nothing wrong).
TEST(SmSlice, AClusterStartedWhenAnotherSmsCtaEndsRuns) {
  std::string spec = cluster_inplace(64, 8, 2, 1, 8);
  spec.insert(spec.find(R"("args")"), R"("dynamic_shared_bytes": 200000, )");
  const api::RunResult full = run(spec, true, 0);
  const auto j = nlohmann::json::parse(full.report_json);
  EXPECT_EQ(j["occupancy"]["blocks_per_sm"].get<int>(), 1);
  EXPECT_EQ(j["sampling"]["ctas_timed"].get<std::uint64_t>(), 512u) << j["sampling"]["note"];
  expect_cluster_inplace(full, 64, 8, 2, 1, 8);
}

// A sampled run without outputs probes the grid's corner CTAs, in a cluster launch their whole
// clusters: the last thread of the last cluster writes one element past `out`, a fault the slice
// (the first clusters) and its warm-up (the next ones) never reach.
TEST(SmSlice, AClusterLaunchsCornerClustersAreProbed) {
  std::string spec = cluster_inplace(64, 64, 2, 1, 8);
  const std::string n = std::to_string(64 * 64 * 256), short_n = std::to_string(64 * 64 * 256 - 1);
  spec.replace(spec.rfind(n), n.size(), short_n);  // out: one element short
  auto parsed = api::parse_launch_spec_text(spec, kData + "/kernels", "slice test");
  api::RunOptions o;
  o.detail_budget = 100000;
  const device::DeviceSpec d = device::load_builtin_device("h200");
  test::expect_error([&] { api::run_launch(parsed, d, o); }, ErrorKind::KernelFault, {"cluster_inplace", "(63,63,0)"});
  // in bounds, the corners the slice did not run are probed, each corner's cluster once
  const api::RunResult r = api::run_launch(api::parse_launch_spec_text(cluster_inplace(64, 64, 2, 1, 8), kData + "/kernels", "slice test"), d, o);
  const auto j = nlohmann::json::parse(r.report_json);
  EXPECT_EQ(j["checked"]["corner_ctas_probed"].get<std::uint64_t>(), 2u) << "CTAs (0,63) and (63,63): " << j["checked"];
  EXPECT_EQ(j["checked"]["corner_ctas_open"].get<std::uint64_t>(), 0u);
}

// cache: warm replays whole clusters (the last first, writes undone): the launch reads its
// inputs from the L2 and computes what it computes cold.
TEST(SmSlice, AClusterLaunchStartsWithTheL2APreviousRunLeft) {
  const std::string spec = cluster_inplace(64, 64, 2, 1, 8);
  auto parsed = api::parse_launch_spec_text(spec, kData + "/kernels", "slice test");
  api::RunOptions o;
  o.keep_outputs = true;
  o.detail_budget = 400000;
  const device::DeviceSpec d = device::load_builtin_device("h200");
  const api::RunResult cold = api::run_launch(parsed, d, o);
  o.cache = api::Cache::Warm;
  const api::RunResult warm = api::run_launch(parsed, d, o);
  const std::string note = nlohmann::json::parse(warm.report_json)["sampling"]["note"].get<std::string>();
  EXPECT_NE(note.find("cache warm: the L2 as a previous run left it (clusters "), std::string::npos) << note;
  EXPECT_LT(warm.time_us, cold.time_us) << note;
  expect_cluster_inplace(warm, 64, 64, 2, 1, 8);
}

// ---------------------------------------------------------------------------------------------
// the CU slice (MI300X: 8 XCDs of 38 CUs)

std::string hip(const char* spec) {
  std::string s = spec;
  s.replace(s.find("slice.cu"), 8, "slice.hip");
  return s;
}

TEST(CuSlice, RunsWholeXcdsAndUpdatesInPlaceExactlyOnce) {
  const api::RunResult r = run(hip(kAxpy), false, 50000, 0, "mi300x");
  const std::string note = nlohmann::json::parse(r.report_json)["sampling"]["note"].get<std::string>();
  ASSERT_NE(note.find("CU slice: 38 of 304 CUs (XCD 0 of 8"), std::string::npos) << note;
  // XCD 0 gets workgroups 0, 8, 16, ... of the 4096: 512 of them
  EXPECT_NE(note.find("ran the 512 of 4096 workgroups"), std::string::npos) << note;
  expect_axpy_once(r);
}

TEST(CuSlice, AgreesWithTimingEveryWorkgroup) {
  const std::string specs[] = {
      hip(R"({"source": "slice.cu", "kernel": "fma_loop", "grid": 2432, "block": 256,
              "args": [{"buffer": "f32", "count": 622592}, {"type": "i32", "value": 100}]})"),
      hip(R"({"source": "slice.cu", "kernel": "axpy_inplace", "grid": 4864, "block": 256,
              "args": [{"type": "f32", "value": 2.0}, {"buffer": "f32", "count": 1245184}, {"buffer": "f32", "count": 1245184},
                       {"type": "i32", "value": 1245184}]})"),
      // every workgroup reads one 16 KiB table: without the MALL warm-up the slice's XCD would
      // fetch it from HBM at an eighth of the bandwidth, where on the chip one XCD's reads bring
      // it into the MALL for all
      hip(R"({"source": "slice.cu", "kernel": "table_sum", "grid": 2432, "block": 256,
              "args": [{"buffer": "f32", "count": 4096, "init": "uniform"}, {"type": "i32", "value": 4096},
                       {"buffer": "f32", "count": 622592}, {"type": "i32", "value": 622592}]})")};
  for (const std::string& spec : specs) {
    const api::RunResult sliced = run(spec, false, 200000, 0, "mi300x");
    const std::string note = nlohmann::json::parse(sliced.report_json)["sampling"]["note"].get<std::string>();
    ASSERT_NE(note.find("CU slice"), std::string::npos) << note;
    const double full = run(spec, true, 0, 0, "mi300x").time_us;
    std::printf("%.70s...: sliced %.2f us, full %.2f us\n", spec.c_str(), sliced.time_us, full);
    EXPECT_NEAR(sliced.time_us / full, 1.0, 0.15) << spec << ": sliced " << sliced.time_us << " us, full " << full << " us";
  }
}

// A detail budget small enough that the windows and the drain (a quarter of the budget) end
// before the slice's CTAs do: the run is extrapolated from the windows, the path these tests check
// (with 20,000 the drain finished every CTA of the slice, and such a slice is timed, not
// extrapolated).
constexpr std::uint64_t kWindowBudget = 8000;

// A grid-stride Black-Scholes (1216 workgroups, a few per CU whatever the options): sampled on
// MI300X it came out 2.7-3.2x slower than --full from 2 M options up before the CU slice of whole
// XCDs; sampled by windows inside the slice it must agree with timing every workgroup.
// n options over 1216 x 256 threads (1 M: about 3.4 a thread; with so few, the windows and the
// drain finish an XCD's workgroups and the slice is timed whole, not extrapolated)
std::string black_scholes(const std::string& n) {
  return R"({"source": "slice.hip", "kernel": "black_scholes", "grid": 1216, "block": 256, "args": [
    {"buffer": "f32", "count": )" + n + R"(, "init": "uniform"}, {"buffer": "f32", "count": )" + n + R"(, "init": "uniform"},
    {"buffer": "f32", "count": )" + n + R"(, "init": "uniform"}, {"buffer": "f32", "count": )" + n + R"(}, {"buffer": "f32", "count": )" +
         n + R"(}, {"type": "f32", "value": 0.02}, {"type": "f32", "value": 0.3}, {"type": "i32", "value": )" + n + "}]}";
}

TEST(CuSlice, AGridStrideBlackScholesAgreesWithTimingEveryWorkgroup) {
  const std::string spec = black_scholes("4194304"), n = "4M";
  const api::RunResult sampled = run(spec, false, kWindowBudget, 0, "mi300x");
  const std::string note = nlohmann::json::parse(sampled.report_json)["sampling"]["note"].get<std::string>();
  ASSERT_NE(note.find("CU slice"), std::string::npos) << note;
  ASSERT_NE(note.find("extrapolated"), std::string::npos) << "the slice was meant to be sampled by windows: " << note;
  const double full = run(spec, true, 0, 0, "mi300x").time_us;
  std::printf("black_scholes %s: sampled %.2f us, full %.2f us (%s)\n", n.c_str(), sampled.time_us, full, note.c_str());
  EXPECT_NEAR(sampled.time_us / full, 1.0, 0.15);
}

// The report's memory counters count the whole kernel on both vendors, sampled (a slice timed by
// windows and extrapolated) or --full: MI300X sampled runs printed the window's bytes alone
// (8M-option Black-Scholes: 62 MB of HBM reads where the kernel reads 101 MB). H200: axpy;
// MI300X: Black-Scholes (an axpy is over before an XCD's window ends).
TEST(Sampling, MemoryCountersCountTheWholeKernelOnBothVendorsInBothModes) {
  for (const char* arch : {"h200", "mi300x"}) {
    // budgets under one SM's (XCD's) share of the work: the slice is itself sampled by windows
    const bool nv = std::string(arch) == "h200";
    const std::string spec = nv ? std::string(kAxpy) : black_scholes("2097152");
    const auto sampled = nlohmann::json::parse(run(spec, false, kWindowBudget, 0, arch).report_json);
    const auto full = nlohmann::json::parse(run(spec, true, 0, 0, arch).report_json);
    const std::string note = sampled["sampling"]["note"].get<std::string>();
    ASSERT_NE(note.find("extrapolated at"), std::string::npos) << arch << ": windows were meant to be extrapolated: " << note;
    const auto& ms = sampled["memory"];
    const auto& mf = full["memory"];
    std::printf("%s: HBM read %.0f / %.0f, write %.0f / %.0f, L2 %.0f / %.0f bytes (sampled / full)\n", arch,
                ms["dram"]["read_bytes"].get<double>(), mf["dram"]["read_bytes"].get<double>(), ms["dram"]["write_bytes"].get<double>(),
                mf["dram"]["write_bytes"].get<double>(), ms["l2"]["bytes"].get<double>(), mf["l2"]["bytes"].get<double>());
    const double moved = (nv ? 12.0 : 40.0) * 1048576;  // axpy: x and y read, y written; Black-Scholes: 3 read, 2 written
    EXPECT_NEAR(ms["l2"]["bytes"].get<double>(), mf["l2"]["bytes"].get<double>(), 0.1 * moved) << arch;
    EXPECT_NEAR(ms["dram"]["read_bytes"].get<double>(), mf["dram"]["read_bytes"].get<double>(), 0.1 * moved) << arch;
    EXPECT_NEAR(ms["dram"]["write_bytes"].get<double>(), mf["dram"]["write_bytes"].get<double>(), 0.1 * moved) << arch;
    EXPECT_NEAR(sampled["coalescing"]["loads"]["sectors"].get<double>(), full["coalescing"]["loads"]["sectors"].get<double>(),
                0.1 * full["coalescing"]["loads"]["sectors"].get<double>())
        << arch;
  }
}

// cache: warm on AMD: the workgroups of a previous run are replayed untimed (the last first, writes
// undone) into their XCD's L2 and the MALL. An in-place update of 8 MiB (1 MiB per XCD, within
// each 4 MiB L2) then reads nothing from HBM, writes what the cold run writes (the replayed lines
// are clean: the previous kernel's end wrote them back), takes less time, and still updates every
// element exactly once, timed in full and on a CU slice.
TEST(CuSlice, WarmCacheStartsWithTheL2sAndMallAPreviousRunLeft) {
  auto parsed = api::parse_launch_spec_text(hip(kAxpy), kData + "/kernels", "slice test");
  const device::DeviceSpec d = device::load_builtin_device("mi300x");
  for (const bool full : {true, false}) {
    api::RunOptions o;
    o.keep_outputs = true;
    o.full = full;
    o.detail_budget = full ? 0 : 50000;
    const api::RunResult cold = api::run_launch(parsed, d, o);
    o.cache = api::Cache::Warm;
    const api::RunResult warm = api::run_launch(parsed, d, o);
    const auto jc = nlohmann::json::parse(cold.report_json), jw = nlohmann::json::parse(warm.report_json);
    const std::string note = jw["sampling"]["note"].get<std::string>();
    EXPECT_NE(note.find("cache warm: the L2s and MALL as a previous run left them"), std::string::npos) << note;
    const double cold_read = jc["memory"]["dram"]["read_bytes"].get<double>(), warm_read = jw["memory"]["dram"]["read_bytes"].get<double>();
    EXPECT_GT(cold_read, 4e6) << "full " << full;
    EXPECT_LT(warm_read, 0.02 * cold_read) << note;
    EXPECT_NEAR(jw["memory"]["dram"]["write_bytes"].get<double>(), jc["memory"]["dram"]["write_bytes"].get<double>(),
                0.02 * jc["memory"]["dram"]["write_bytes"].get<double>())
        << note;
    EXPECT_LT(warm.time_us, 0.9 * cold.time_us) << note;
    expect_axpy_once(warm);
  }
}

}  // namespace
}  // namespace kernsim
