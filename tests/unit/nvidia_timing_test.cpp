// NVIDIA SM timing mechanisms (sim/timing/nvidia_machine.cpp) against the device file's numbers:
// the cost of one more loop iteration (the difference of two launches, which cancels launch,
// set-up and drain) must be what the device file says that iteration's instructions cost.
#include <string>

#include <nlohmann/json.hpp>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "test_util.h"

namespace kernsim {
namespace {

const std::string kData = KERNSIM_TEST_DATA;

double cycles(const std::string& kernel, int threads, int iters, const device::DeviceSpec& d) {
  const std::string json = R"({"source": "sync.cu", "kernel": ")" + kernel + R"(", "grid": 1, "block": )" +
                           std::to_string(threads) + R"(, "args": [{"buffer": "u32", "count": 1024}, {"type": "i32", "value": )" +
                           std::to_string(iters) + "}]}";
  auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "nvidia timing test");
  api::RunOptions o;
  o.full = true;
  const api::RunResult r = api::run_launch(spec, d, o);
  return r.cycles;
}

// Cycles of one more iteration of the kernel's loop.
double per_iteration(const std::string& kernel, int threads, const device::DeviceSpec& d) {
  return (cycles(kernel, threads, 400, d) - cycles(kernel, threads, 200, d)) / 200.0;
}

TEST(NvidiaTiming, BarrierCostGrowsWithTheWarpsThatArrive) {
  const auto d = device::load_builtin_device("h200");
  const double one = per_iteration("bar_loop", 32, d);
  // one warp: at least the barrier's latency and its one arrival (plus the loop's own instructions)
  EXPECT_GE(one, d.sm.barrier_latency_cycles + d.sm.barrier_cycles_per_warp);
  for (int warps : {8, 32}) {
    const double extra = d.sm.barrier_cycles_per_warp * (warps - 1);
    EXPECT_NEAR(per_iteration("bar_loop", 32 * warps, d) - one, extra, 0.15 * extra + 2) << warps << " warps";
  }
}

TEST(NvidiaTiming, VoteAndReduxChainsTakeTheirLatencies) {
  const auto d = device::load_builtin_device("h200");
  // vote: setp (ALU) then vote, dependent
  const double vote = d.sm.vote_latency_cycles + d.pipes.int_alu.latency_cycles;
  EXPECT_NEAR(per_iteration("vote_loop", 32, d), vote, 0.2 * vote);
  EXPECT_NEAR(per_iteration("redux_loop", 32, d), d.sm.redux_latency_cycles, 0.2 * d.sm.redux_latency_cycles);
  // a what-if device with a slower REDUX is slower by the difference
  auto slow = d;
  slow.sm.redux_latency_cycles += 40;
  EXPECT_NEAR(per_iteration("redux_loop", 32, slow) - per_iteration("redux_loop", 32, d), 40.0, 4.0);
}

TEST(NvidiaTiming, FoldedNegationCostsNothingAndSinPaysItsRangeReduction) {
  const auto d = device::load_builtin_device("h200");
  const double sfu = d.pipes.sfu.latency_cycles, fma = d.pipes.fp32.latency_cycles;
  // neg.f32 read only by the ex2: an operand modifier, the chain is the MUFU's latency alone
  EXPECT_NEAR(per_iteration("ex2_neg_loop", 32, d), sfu, 1.0);
  // the negation also read by a mov: a real instruction, in the chain
  EXPECT_GE(per_iteration("ex2_neg_kept_loop", 32, d), sfu + d.pipes.fp32.latency_cycles - 0.5);
  // sin.approx: FMUL.RZ then MUFU.SIN
  EXPECT_NEAR(per_iteration("sin_loop", 32, d), sfu + fma, 1.0);
}

// ex2/rsqrt.approx.f32 without .ftz: ptxas's SASS is FSETP, @!P FMUL, MUFU, @!P FMUL, one chain
// (sfu_rsqrt_log of the grown validation set ran at half its speed with the MUFU alone).
TEST(NvidiaTiming, NonFtzSfuChainsPayTheirDenormalGuards) {
  const auto d = device::load_builtin_device("h200");
  const double sfu = d.pipes.sfu.latency_cycles, fma = d.pipes.fp32.latency_cycles;
  EXPECT_NEAR(per_iteration("ex2_ftz_loop", 32, d), sfu, 1.0);
  // sfu_pipe.cu (sm.mufu_guard_latency_cycles): the guard's FSETP predicate is slow, so the guard
  // costs far more than three FP32 latencies; a device without the key charges those
  const double guard = d.sm.mufu_guard_latency_cycles;
  ASSERT_GT(guard, 3 * fma + 4);
  EXPECT_NEAR(per_iteration("ex2_loop", 32, d), sfu + guard, 1.0);
  EXPECT_NEAR(per_iteration("rsqrt_loop", 32, d), sfu + guard, 1.0);
  auto no_key = d;
  no_key.sm.mufu_guard_latency_cycles = 0;
  EXPECT_NEAR(per_iteration("ex2_loop", 32, no_key), sfu + 3 * fma, 1.0);
}

// sm.taken_branch_cycles: a warp whose next instruction is not the one after (a taken branch, the
// switch to another divergent path) waits that long before it issues again; absent, it waits the
// issue cycle only (the timing before the key existed).
TEST(NvidiaTiming, AControlTransferHoldsTheWarpForTheTakenBranchCycles) {
  auto d = device::load_builtin_device("h200");
  d.sm.taken_branch_cycles = 0;
  const double loop0 = per_iteration("add_loop", 32, d), div0 = per_iteration("div2_loop", 32, d);
  auto slow = d;
  slow.sm.taken_branch_cycles = 41;
  const double loop = per_iteration("add_loop", 32, slow), div = per_iteration("div2_loop", 32, slow);
  // the loop's trip: one transfer (its back branch); an add's latency hid 40 of the 41 cycles before
  EXPECT_GT(loop - loop0, 40.0 - d.pipes.int_alu.latency_cycles - 1) << loop0 << " -> " << loop;
  EXPECT_LT(loop - loop0, 2 * 40.0) << "one transfer a trip";
  // the divergent trip: into the first path, to the second, to the reconvergence point, back: more
  EXPECT_GT(div - div0, 3 * (40.0 - d.pipes.int_alu.latency_cycles)) << div0 << " -> " << div;
  // a key of one cycle is the issue cycle: no change
  auto one = d;
  one.sm.taken_branch_cycles = 1;
  EXPECT_DOUBLE_EQ(per_iteration("div2_loop", 32, one), div0);
}

// atomicAdd(&hist[bin], 1u) with its result unread is ATOMS.POPC.INC in ptxas's SASS: the lanes on
// one word are served together (hist_pow_shared_p16_256b_32M of the grown set, ~23 lanes a warp on
// one bin: the H200 takes at most 18.4 cycles per warp instruction, kernsim took 24 serialising
// them); an add of a run-time value (ATOMS.ADD) serialises its lanes on one word.
TEST(NvidiaTiming, SharedIncrementsOfOneWordAreServedTogether) {
  const auto d = device::load_builtin_device("h200");
  const double wavefront = d.shared.banks * d.shared.bank_width_bytes / d.shared.bytes_per_cycle;  // cycles
  const double add = per_iteration("add_one_word_loop", 1024, d), inc = per_iteration("inc_one_word_loop", 1024, d);
  EXPECT_NEAR(add, 32 * 32 * wavefront, 0.1 * 32 * 32 * wavefront) << "32 warps x 32 lanes on one word";
  EXPECT_LT(inc, 0.2 * add) << "one wavefront per warp";
}

// An LDS with every lane predicated off (what the warps that skip an if-converted body issue)
// still takes the shared pipe for one wavefront: smem_pipe.cu on the H100, 0.997 cycles per
// instruction per SM (1.013 for a conflict-free access with every lane on).
TEST(NvidiaTiming, PredicatedOffSharedAccessesTakeAWavefront) {
  const auto d = device::load_builtin_device("h200");
  const double wavefront = d.shared.banks * d.shared.bank_width_bytes / d.shared.bytes_per_cycle;
  const double per = per_iteration("lds_off_loop", 1024, d);
  EXPECT_NEAR(per, 32 * 8 * wavefront, 0.1 * 32 * 8 * wavefront) << "32 warps x 8 LDS, one wavefront each";
}

// A warp's loads that go past L1 return in issue order (halo_latency.cu on the H100: an L2 hit
// issued behind the same warp's HBM miss came back after 711 cycles, alone 294; the miss 726).
TEST(NvidiaTiming, AWarpsL2HitBehindItsMissReturnsWithTheMiss) {
  const auto d = device::load_builtin_device("h200");
  auto run = [&](const std::string& kernel, int iters) {
    const std::string json = R"({"source": "sync.cu", "kernel": ")" + kernel + R"(", "grid": 1, "block": 32,
      "args": [{"buffer": "u32", "count": 1048576}, {"buffer": "u32", "count": 1024}, {"type": "i32", "value": )" +
                             std::to_string(iters) + "}]}";
    auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "nvidia timing test");
    api::RunOptions o;
    o.full = true;
    return api::run_launch(spec, d, o).cycles;
  };
  // a step waits for the hit; issued after the step's miss, the hit comes back with it
  const double behind = (run("hit_behind_miss_loop", 200) - run("hit_behind_miss_loop", 100)) / 100.0;
  const double alone = (run("hit_only_loop", 200) - run("hit_only_loop", 100)) / 100.0;
  EXPECT_GT(alone, d.l2.hit_latency_cycles) << "a step is at least the hit's latency";
  EXPECT_GT(behind, alone + 0.25 * d.l2.hit_latency_cycles) << "the hit waits for the miss issued before it";
}

// ptxas loads a 16x16 f16 wmma fragment with four LDG.E of 4 bytes per lane in the mma.sync
// layout, each covering 8 rows: with rows a line apart that is 32 L1 line lookups per fragment
// (Nsight Compute on the H200: 8 sectors per load instruction), against 16 lines if the fragment
// were one access of 16 bytes per lane. Many warps on one SM hitting in L1: the L1's line rate
// sets the time.
TEST(NvidiaTiming, WmmaFragmentLoadsCostTheLinesOfPtxasLoads) {
  const auto d = device::load_builtin_device("h200");
  auto per_iter = [&](int iters) {
    const std::string json = R"({"source": "wmma_load.cu", "kernel": "wmma_load_loop", "grid": 1, "block": 1024,
      "args": [{"buffer": "f16", "count": 2048, "init": "uniform"}, {"buffer": "f32", "count": 1024},
               {"type": "i32", "value": )" + std::to_string(iters) + R"(}, {"type": "i32", "value": 64}]})";
    auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "nvidia timing test");
    api::RunOptions o;
    o.full = true;
    return api::run_launch(spec, d, o).cycles;
  };
  const double cycles = (per_iter(200) - per_iter(100)) / 100.0;
  const double lookups = 32 /* warps */ * 4 /* LDG */ * 8 /* lines each */;
  EXPECT_NEAR(cycles, lookups / d.l1.lines_per_cycle, 0.2 * lookups / d.l1.lines_per_cycle);
}

// An HMMA and the FFMAs around it hold each other's pipes (sm.tensor_shares_math_pipes): per
// scheduler, each mma costs its issue interval plus its four FFMAs' (two warps per scheduler).
TEST(NvidiaTiming, MatrixAndFmaInstructionsDoNotOverlap) {
  const auto d = device::load_builtin_device("h200");
  ASSERT_EQ(d.sm.tensor_shares_math_pipes, 1);
  const double shared = 2 * 4 * (d.pipes.tensor_f16.issue_cycles + 4 * d.pipes.fp32.issue_cycles);
  EXPECT_NEAR(per_iteration("mma_ffma_loop", 256, d), shared, 0.15 * shared);
  auto apart = d;  // a what-if part whose tensor pipe runs beside the FMA pipe
  apart.sm.tensor_shares_math_pipes = 0;
  EXPECT_LT(per_iteration("mma_ffma_loop", 256, apart), 0.8 * shared);
}

// A kernel with matrix instructions runs at clocks.tensor_mhz, one without at clocks.core_mhz.
TEST(NvidiaTiming, TensorKernelsRunAtTheTensorClock) {
  const auto d = device::load_builtin_device("h200");
  ASSERT_LT(d.clocks.tensor_mhz, d.clocks.core_mhz);
  auto run = [&](const char* kernel) {
    const std::string json = R"({"source": "sync.cu", "kernel": ")" + std::string(kernel) +
                             R"(", "grid": 1, "block": 32, "args": [{"buffer": "u32", "count": 1024}, {"type": "i32", "value": 100}]})";
    auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "nvidia timing test");
    api::RunOptions o;
    o.full = true;
    return api::run_launch(spec, d, o);
  };
  for (const char* k : {"mma_ffma_loop", "redux_loop"}) {
    const api::RunResult r = run(k);
    const double mhz = std::string(k) == "redux_loop" ? d.clocks.core_mhz : d.clocks.tensor_mhz;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.report_json)["clock_mhz"].get<double>(), mhz) << k;
    EXPECT_NEAR(r.time_us, r.cycles / mhz + d.launch.overhead_us, 1e-6) << k;
  }
  // HBM latency is fixed in time: fewer cycles of the slower clock
  const auto t = device::at_tensor_clock(d);
  EXPECT_DOUBLE_EQ(t.dram.latency_cycles, d.dram.latency_cycles * d.clocks.tensor_mhz / d.clocks.core_mhz);
  EXPECT_DOUBLE_EQ(t.l2.hit_latency_cycles, d.l2.hit_latency_cycles);
}

// The L2 has its own clock (clocks.l2_mhz, measured constant while the SM clock moved): when the
// SM slows to the tensor or wgmma clock, the L2 serves as many bytes and atomics per second, so
// more per SM cycle; without the key its rates stay per SM cycle (they slow with the SM).
TEST(NvidiaTiming, TheL2KeepsItsClockWhenTheSmSlows) {
  const auto d = device::load_builtin_device("h200");
  ASSERT_GT(d.clocks.l2_mhz, 0);
  for (bool wgmma : {false, true}) {
    const auto t = device::at_tensor_clock(d, wgmma);
    ASSERT_LT(t.clocks.core_mhz, d.clocks.core_mhz);
    EXPECT_DOUBLE_EQ(t.clocks.core_mhz, wgmma ? d.clocks.wgmma_mhz : d.clocks.tensor_mhz);
    EXPECT_NEAR(t.l2.bytes_per_cycle * t.clocks.core_mhz, d.l2.bytes_per_cycle * d.clocks.core_mhz, 1e-6);
    EXPECT_NEAR(t.l2.atomic_ops_per_cycle * t.clocks.core_mhz, d.l2.atomic_ops_per_cycle * d.clocks.core_mhz, 1e-9);
    EXPECT_NEAR(t.l2.atomic_same_address_cycles / t.clocks.core_mhz, d.l2.atomic_same_address_cycles / d.clocks.core_mhz, 1e-12);
  }
  auto old = d;
  old.clocks.l2_mhz = 0;
  EXPECT_DOUBLE_EQ(device::at_tensor_clock(old, true).l2.bytes_per_cycle, d.l2.bytes_per_cycle);
}

// A value crossing between the FMA and the ALU pipe arrives sm.cross_pipe_latency_cycles later
// (pipe_forward.cu on the H200: 10.39 against 8.45-8.51 cycles per two-instruction step).
TEST(NvidiaTiming, ValuesCrossingBetweenFmaAndAluPipesArriveLater) {
  const auto d = device::load_builtin_device("h200");
  ASSERT_GT(d.sm.cross_pipe_latency_cycles, 0);
  const double same = per_iteration("lop_shf_loop", 32, d), cross = per_iteration("imad_lop_loop", 32, d);
  EXPECT_NEAR(cross - same, 2 * d.sm.cross_pipe_latency_cycles, 0.3);
  auto bypass = d;  // a what-if part that forwards across pipes for free
  bypass.sm.cross_pipe_latency_cycles = 0;
  EXPECT_NEAR(per_iteration("imad_lop_loop", 32, bypass), per_iteration("lop_shf_loop", 32, bypass), 0.3);
}

// A CTA slot takes its next CTA sm.cta_turnover_cycles after the previous one ends. On a
// what-if part of one SM with four CTA slots (one single-warp CTA per scheduler: latency-bound,
// no contention), four waves of CTAs per slot pay three turnovers each.
TEST(NvidiaTiming, FreedCtaSlotWaitsTheTurnoverBeforeTheNextCta) {
  const auto d = device::load_builtin_device("h200");
  auto with = [&](double turnover) {
    auto dev = d;
    dev.sm.count = 1;
    dev.sm.max_blocks = 4;
    dev.sm.cta_turnover_cycles = turnover;
    auto spec = api::parse_launch_spec_text(R"({"source": "sync.cu", "kernel": "fma_chain_cta", "grid": 16, "block": 32,
        "args": [{"buffer": "f32", "count": 512}, {"type": "i32", "value": 1000}]})", kData + "/kernels", "nvidia timing test");
    api::RunOptions o;
    o.full = true;
    return api::run_launch(spec, dev, o).cycles;
  };
  EXPECT_NEAR(with(d.sm.cta_turnover_cycles + 300) - with(d.sm.cta_turnover_cycles), 3 * 300.0, 0.1 * 900);
}

// Achieved occupancy is the time-average of resident warps over the SM's maximum: never above
// 100%, however CTAs' ends (known ahead, stores still draining) interleave with other events.
TEST(NvidiaTiming, AchievedOccupancyNeverExceedsTheMaximum) {
  const auto d = device::load_builtin_device("h200");
  auto spec = api::parse_launch_spec_text(R"({"source": "slice.cu", "kernel": "axpy_inplace", "grid": 4096, "block": 256,
      "args": [{"type": "f32", "value": 2.0}, {"buffer": "f32", "count": 1048576, "init": "iota"},
               {"buffer": "f32", "count": 1048576, "init": "iota"}, {"type": "i32", "value": 1048576}]})", kData + "/kernels", "occupancy test");
  api::RunOptions o;
  o.full = true;
  const auto j = nlohmann::json::parse(api::run_launch(spec, d, o).report_json);
  const double achieved = j["occupancy"]["achieved"].get<double>();
  EXPECT_LE(achieved, 1.0);
  EXPECT_GT(achieved, 0.3) << "4096 CTAs of 8 warps keep the SMs mostly full";
}

}  // namespace
}  // namespace kernsim
