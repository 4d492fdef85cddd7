// The AMD CU timing model, one rule per test: each runs microkernels (tests/data/amd/
// timing_kernels.s, gfx942) or corpus kernels on a modelled part and checks a timing the rule
// determines — usually the difference between two kernels that differ only in the instructions
// under test, so launch, dispatch and the kernel-argument load cancel out.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "frontends/compile.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"
#include "sim/functional/amd_exec.h"
#include "sim/functional/global_memory.h"
#include "sim/timing/amd_occupancy.h"
#include "sim/timing/amd_policies.h"
#include "sim/timing/timing.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const std::string kAmd = std::string(KERNSIM_TEST_DATA) + "/amd";
const std::string kHip = std::string(KERNSIM_TEST_DATA) + "/../kernels/hip";

// A launch of one microkernel of timing_kernels.s: one workgroup of `block` work-items, an output
// buffer, and for the LDS kernels a stride argument.
api::LaunchSpec micro(const std::string& kernel, int block, int stride = 0) {
  std::string args = R"({"buffer": "f32", "count": 4096, "init": "zeros"})";
  if (stride) args += R"(, {"type": "i32", "value": )" + std::to_string(stride) + "}";
  return api::parse_launch_spec_text(R"({"spec_version": 1, "source": "timing_kernels.s", "kernel": ")" + kernel +
                                         R"(", "grid": [1], "block": [)" + std::to_string(block) + R"(], "args": [)" + args + "]}",
                                     kAmd, "test spec");
}

api::RunResult run(const api::LaunchSpec& spec, const device::DeviceSpec& dev, bool full = true) {
  api::RunOptions o;
  o.full = full;
  return api::run_launch(spec, dev, o);
}

double cycles(const std::string& kernel, int block, const device::DeviceSpec& dev, int stride = 0) {
  return run(micro(kernel, block, stride), dev).cycles;
}

const device::DeviceSpec& mi300x() {
  static const device::DeviceSpec d = device::load_builtin_device("mi300x");
  return d;
}

// ---------------------------------------------------------------------------------------------
// the SIMD: issue and dependencies

TEST(AmdTiming, DependentChainTakesLatencyTimesLength) {
  // a part whose transcendentals take 40 cycles to a dependent but occupy the SIMD for 16
  test::TempDir t;
  const auto file = t.write("slow_trans.yaml", R"(inherits: mi300x
name: mi300x-slow-trans
pipes:
  sfu: {issue_cycles: {value: 16, source: what-if, confidence: estimated},
        latency_cycles: {value: 40, source: what-if, confidence: estimated}}
)");
  const device::DeviceSpec d = device::load_device_file(file);
  // 64 more dependent v_exp_f32 cost 64 latencies; 64 more independent ones 64 issue intervals
  EXPECT_NEAR(cycles("exp_chain128", 64, d) - cycles("exp_chain64", 64, d), 64 * 40.0, 1.0);
  EXPECT_NEAR(cycles("exp_indep128", 64, d) - cycles("exp_indep64", 64, d), 64 * 16.0, 1.0);
  // on the built-in part latency and issue are equal
  const double sfu = mi300x().pipes.sfu.latency_cycles;
  EXPECT_NEAR(cycles("exp_chain128", 64, mi300x()) - cycles("exp_chain64", 64, mi300x()), 64 * sfu, 1.0);
}

TEST(AmdTiming, IndependentWavesOnFourSimdsOverlap) {
  const device::DeviceSpec& d = mi300x();
  const double one = cycles("exp_chain128", 64, d) - cycles("exp_chain64", 64, d);
  const double four = cycles("exp_chain128", 256, d) - cycles("exp_chain64", 256, d);   // one wave per SIMD
  const double eight = cycles("exp_chain128", 512, d) - cycles("exp_chain64", 512, d);  // two waves per SIMD
  EXPECT_NEAR(four, one, 0.02 * one);
  EXPECT_NEAR(eight, 2 * one, 0.02 * one) << "two waves on one SIMD share its VALU";
}

TEST(AmdTiming, WaitcntStallsUntilTheLoadReturns) {
  // one cold load, then 64 transcendentals: waiting for the load first serialises them
  const device::DeviceSpec& d = mi300x();
  const double wait_first = cycles("load_wait_then_chain", 64, d), wait_last = cycles("load_chain_then_wait", 64, d);
  EXPECT_NEAR(wait_first - wait_last, d.dram.latency_cycles, 0.1 * d.dram.latency_cycles);
}

TEST(AmdTiming, VmcntCountsDownInIssueOrder) {
  // a cold load, then a vL1D hit: `s_waitcnt vmcnt(1)` must wait for the older, cold load even
  // though the younger hit is back long before
  const device::DeviceSpec& d = mi300x();
  const double wait1 = cycles("vmcnt_wait1", 64, d), wait2 = cycles("vmcnt_wait2", 64, d);
  EXPECT_GT(wait1 - wait2, 0.8 * d.dram.latency_cycles);
}

TEST(AmdTiming, LdsBankConflictsSerialiseTheAccess) {
  // four waves read LDS word lane * stride: with stride N (a power of two up to the bank count)
  // N lanes share each bank, so every read takes N bank passes of the wave's lane groups
  const device::DeviceSpec& d = mi300x();
  const double groups = 64.0 / static_cast<double>(d.shared.banks);  // lane groups of a conflict-free wave64 read
  auto per_read = [&](int stride) {
    return (cycles("lds_reads128", 256, d, stride) - cycles("lds_reads64", 256, d, stride)) / (64.0 * 4);
  };
  double prev = 0;
  for (int n : {1, 2, 4, 8, 16, 32}) {
    const double p = per_read(n);
    EXPECT_GE(p, prev) << "stride " << n;
    if (n >= 4) EXPECT_NEAR(p, groups * n, 0.1 * groups * n) << n << "-way conflict";
    prev = p;
  }
  EXPECT_GT(per_read(32) / per_read(1), 10.0);
}

TEST(AmdTiming, ConflictFreeLdsStreamReachesTheDevicesLdsBandwidth) {
  // 16 waves of one workgroup stream conflict-free LDS reads (8 in flight per wave). ds_read_b64
  // moves 512 bytes per wave instruction: the SIMD pairs' ports, not the issue, bound it, so the
  // CU reaches shared.bytes_per_cycle (MI300X 128, MI355X 256).
  std::map<std::string, double> per_b32;
  for (const char* arch : {"mi300x", "mi355x"}) {
    const device::DeviceSpec d = device::load_builtin_device(arch);
    const double extra_reads = 64.0 * 16;  // 64 more reads in each of 16 waves
    const double b64 = cycles("lds_reads_b64_128", 1024, d) - cycles("lds_reads_b64_64", 1024, d);
    const double bytes_per_cycle = extra_reads * 64 * 8 / b64;
    EXPECT_GT(bytes_per_cycle, 0.85 * d.shared.bytes_per_cycle) << arch;
    EXPECT_LT(bytes_per_cycle, 1.02 * d.shared.bytes_per_cycle) << arch;
    per_b32[arch] = (cycles("lds_reads128", 1024, d, 1) - cycles("lds_reads64", 1024, d, 1)) / extra_reads;
  }
  // ds_read_b32 (256 bytes a wave instruction): MI355X's 64 banks and faster ports must not make
  // it slower than MI300X. It was (2.37 against 2.25 cycles per read per CU): the port took an
  // instruction only when idle, and MI355X's 2-cycle transfers left the pair's other SIMD, one
  // cycle out of phase, shut out at each of its issue opportunities.
  EXPECT_LT(per_b32["mi355x"], per_b32["mi300x"]);
}

TEST(AmdTiming, MfmaOccupiesTheMatrixCoreAndForwardsItsAccumulator) {
  const device::DeviceSpec& d = mi300x();
  int idx = -1;
  for (int i = 0; i < device::kNumMfmaShapes; ++i)
    if (std::string(device::kMfmaShapes[i]) == "f32_16x16x16_f16") idx = i;
  ASSERT_GE(idx, 0);
  const double c = d.mfma[static_cast<std::size_t>(idx)].cycles, extra = d.sm.mfma_read_extra_cycles;
  // D -> next C: back to back at the instruction's cycles
  EXPECT_NEAR(cycles("mfma_acc32", 64, d) - cycles("mfma_acc16", 64, d), 16 * c, 1.0);
  // D -> next A: the result is read after the last pass plus the read delay
  EXPECT_NEAR(cycles("mfma_srca32", 64, d) - cycles("mfma_srca16", 64, d), 16 * (c + extra), 1.0);
  // two waves on one SIMD take turns on its matrix core
  EXPECT_NEAR(cycles("mfma_acc32", 512, d) - cycles("mfma_acc16", 512, d), 2 * 16 * c, 2.0);
}

TEST(AmdTiming, NopHoldsTheWaveAndSleepSleepsItsUnits) {
  const device::DeviceSpec& d = mi300x();
  const double interval = d.sm.issue_interval_cycles;
  // s_nop 7: eight wait states, one issue opportunity each
  EXPECT_NEAR(cycles("nop7_32", 64, d) - cycles("nop7_16", 64, d), 16 * 8 * interval, 1.0);
  // s_sleep 2: two sleep units after its own issue
  EXPECT_NEAR(cycles("sleep2_32", 64, d) - cycles("sleep2_16", 64, d), 16 * (interval + 2 * d.sm.sleep_unit_cycles), 1.0);
}

TEST(AmdTiming, MissingMfmaTimingNamesTheDeviceKey) {
  // a device file without the shape's timing: the run stops naming the key, never guesses
  std::ifstream in(device::builtin_device_dir() / "mi300x.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str(), kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  f32_16x16x16_f16:", 0) == 0) {
      std::getline(lines, line);  // its valu_blocked_cycles line
      continue;
    }
    kept += line + "\n";
  }
  test::TempDir t;
  const device::DeviceSpec d = device::load_device_file(t.write("mi300x_no_f16_mfma.yaml", kept));
  expect_error([&] { cycles("mfma_acc16", 64, d); }, ErrorKind::DeviceFile,
               {"mfma.f32_16x16x16_f16.cycles", "v_mfma_f32_16x16x16_f16"});
}

TEST(AmdTiming, MfmaShapeWithoutBothKeysIsRejected) {
  test::TempDir t;
  const auto file = t.write("half.yaml", R"(inherits: mi300x
name: half
mfma:
  f32_32x32x64_f8f6f4_f8: {cycles: {value: 64, source: what-if, confidence: estimated}}
)");
  expect_error([&] { device::load_device_file(file); }, ErrorKind::DeviceFile,
               {"mfma.f32_32x32x64_f8f6f4_f8.valu_blocked_cycles", "is missing"});
}

// ---------------------------------------------------------------------------------------------
// occupancy

TEST(AmdOccupancy, VgprsAgprsSgprsAndLdsLimitTheWorkgroupsPerCu) {
  const device::DeviceSpec& d = mi300x();
  sim::AmdResources k;
  k.threads_per_block = 256;  // four waves
  k.vgprs = 32;
  k.sgprs = 32;
  sim::AmdOccupancy o = sim::compute_amd_occupancy(d, k);
  EXPECT_EQ(o.waves_per_simd, 8);  // wave slots
  EXPECT_EQ(o.blocks_per_unit, 8);
  EXPECT_EQ(o.limiter, "waves");
  k.vgprs = 128;  // 512 / 128 = 4 waves per SIMD, 16 per CU
  o = sim::compute_amd_occupancy(d, k);
  EXPECT_EQ(o.waves_per_simd, 4);
  EXPECT_EQ(o.blocks_per_unit, 4);
  EXPECT_EQ(o.limiter, "vgprs");
  k.vgprs = 100;  // AGPRs from accum_offset 100 on: 100 + 128 = 228, in granules of 8: 232 -> 2 waves per SIMD
  k.accum_offset = 100;
  k.agprs = 128;
  o = sim::compute_amd_occupancy(d, k);
  EXPECT_EQ(o.vgprs_per_wave, 232);
  EXPECT_EQ(o.blocks_per_unit, 2);
  k = {};
  k.threads_per_block = 256;
  k.vgprs = 32;
  k.sgprs = 112;  // 800 / 112 = 7 waves per SIMD
  o = sim::compute_amd_occupancy(d, k);
  EXPECT_EQ(o.waves_per_simd, 7);
  EXPECT_EQ(o.blocks_per_unit, 7);
  EXPECT_EQ(o.limiter, "sgprs");
  k.sgprs = 32;
  k.lds_per_block = 40 * 1024;  // 64 KiB of LDS per CU on MI300X, 160 KiB on MI355X
  o = sim::compute_amd_occupancy(d, k);
  EXPECT_EQ(o.blocks_per_unit, 1);
  EXPECT_EQ(o.limiter, "lds");
  EXPECT_EQ(sim::compute_amd_occupancy(device::load_builtin_device("mi355x"), k).blocks_per_unit, 4);
  k.lds_per_block = 0;
  k.threads_per_block = 64;  // one wave per workgroup: 32 wave slots
  EXPECT_EQ(sim::compute_amd_occupancy(d, k).blocks_per_unit, 32);
  k.threads_per_block = 1024;
  k.vgprs = 256;  // 2 waves per SIMD = 8 per CU < 16 waves of one workgroup
  expect_error([&] { sim::compute_amd_occupancy(d, k); }, ErrorKind::LaunchSpec, {"does not fit a CU", "256 VGPRs"});
}

// ---------------------------------------------------------------------------------------------
// dispatch

TEST(AmdDispatch, XcdRoundRobinHandsWorkgroupsToXcdsInTurn) {
  sim::XcdRoundRobin rr(8, 20, 8);
  for (int x = 0; x < 8; ++x) EXPECT_EQ(rr.next(x), static_cast<std::uint64_t>(x));
  EXPECT_EQ(rr.next(3), 11u);
  EXPECT_EQ(rr.next(3), 19u);
  EXPECT_TRUE(rr.empty(3));
  EXPECT_FALSE(rr.empty(4));
}

TEST(AmdDispatch, ASliceOfTwoXcdsGetsOnlyTheirWorkgroups) {
  sim::XcdRoundRobin rr(8, 20, 2);
  std::vector<std::uint64_t> got;
  rr.for_each_remaining([&](std::uint64_t id) { got.push_back(id); });
  EXPECT_EQ(got, (std::vector<std::uint64_t>{0, 8, 16, 1, 9, 17}));  // XCD 0's, then XCD 1's
}

// Records which CU ran each workgroup.
struct CtaLog : sim::Listener {
  std::map<std::uint64_t, int> cu_of;
  void on_cta(int cu, std::uint64_t id, double, double) override { cu_of[id] = cu; }
};

TEST(AmdDispatch, WorkgroupIGoesToXcdIModEight) {
  // the kernel straight on the timing model, with a listener that sees every workgroup's CU
  const device::DeviceSpec& d = mi300x();
  frontends::CompileOptions co;
  co.target = d.isa_target;
  const frontends::DeviceModule mod = frontends::compile(kAmd + "/timing_kernels.s", co);
  auto code = std::make_shared<const isa::amdgcn::CodeObject>(isa::amdgcn::read_code_object(mod.binary, "timing_kernels.s"));
  const isa::amdgcn::Program prog = isa::amdgcn::decode(code, "timing_kernels.s");
  const isa::amdgcn::Kernel& k = *code->find("exp_chain64");
  sim::GlobalMemory mem;
  const std::uint64_t base = sim::map_code_object(*code, mem, "timing_kernels.s");
  const std::uint64_t out = mem.allocate(4096 * 4, "out");
  std::vector<std::uint8_t> args(8);
  std::memcpy(args.data(), &out, 8);
  sim::LaunchDims dims;
  dims.grid = {1000, 1, 1};
  dims.block = {64, 1, 1};
  sim::AmdExecOptions eo;
  eo.kernel_name = "exp_chain64";
  sim::AmdKernel kernel(prog, k, mem, base, dims, args, eo);
  sim::AmdResources res;
  res.threads_per_block = 64;
  res.vgprs = k.vgpr_count;
  res.sgprs = k.sgpr_count;
  sim::TimingOptions to;
  to.full = true;
  CtaLog log;
  sim::time_amd_kernel(d, kernel, res, to, log);
  ASSERT_EQ(log.cu_of.size(), 1000u);
  const int per_xcd = static_cast<int>(d.topology.units_per_die);
  std::map<int, int> per_cu;
  for (const auto& [id, cu] : log.cu_of) {
    EXPECT_EQ(cu / per_xcd, static_cast<int>(id % 8)) << "workgroup " << id;
    ++per_cu[cu];
  }
  EXPECT_EQ(per_cu.size(), static_cast<std::size_t>(d.sm.count)) << "1000 workgroups spread over every CU";
}

TEST(AmdDispatch, HwIdReportsTheCuSimdAndWaveSlotTheWorkgroupRunsOn) {
  // s_getreg_b32 HW_ID / XCC_ID in every wave (kernel hw_id) against the CU the timing model's
  // listener saw each workgroup start on; they used to read zero for every CU field
  const device::DeviceSpec& d = mi300x();
  frontends::CompileOptions co;
  co.target = d.isa_target;
  const frontends::DeviceModule mod = frontends::compile(kAmd + "/timing_kernels.s", co);
  auto code = std::make_shared<const isa::amdgcn::CodeObject>(isa::amdgcn::read_code_object(mod.binary, "timing_kernels.s"));
  const isa::amdgcn::Program prog = isa::amdgcn::decode(code, "timing_kernels.s");
  const isa::amdgcn::Kernel& k = *code->find("hw_id");
  sim::GlobalMemory mem;
  const std::uint64_t base = sim::map_code_object(*code, mem, "timing_kernels.s");
  constexpr int kGrid = 700;  // more than one workgroup per CU
  const std::uint64_t out = mem.allocate(kGrid * 4 * 8, "out");
  std::vector<std::uint8_t> args(8);
  std::memcpy(args.data(), &out, 8);
  sim::LaunchDims dims;
  dims.grid = {kGrid, 1, 1};
  dims.block = {256, 1, 1};
  sim::AmdExecOptions eo;
  eo.kernel_name = "hw_id";
  sim::AmdKernel kernel(prog, k, mem, base, dims, args, eo);
  sim::AmdResources res;
  res.threads_per_block = 256;
  res.vgprs = k.vgpr_count;
  res.sgprs = k.sgpr_count;
  sim::TimingOptions to;
  to.full = true;
  CtaLog log;
  sim::time_amd_kernel(d, kernel, res, to, log);
  ASSERT_EQ(log.cu_of.size(), static_cast<std::size_t>(kGrid));
  const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(mem.find(out, 8)->data());
  const int per_xcd = static_cast<int>(d.topology.units_per_die);
  std::map<std::uint32_t, int> cu_of_id;  // decoded (XCC, SE, SH, CU) -> CU
  for (int wg = 0; wg < kGrid; ++wg) {
    const int cu = log.cu_of[static_cast<std::uint64_t>(wg)];
    unsigned simds = 0;
    for (int wave = 0; wave < 4; ++wave) {
      const std::uint32_t hw = words[2 * (4 * wg + wave)], xcc = words[2 * (4 * wg + wave) + 1];
      const std::uint32_t slot = hw & 0xf, simd = (hw >> 4) & 3, cu_id = (hw >> 8) & 0xf, sh = (hw >> 12) & 1, se = (hw >> 13) & 3;
      EXPECT_EQ(hw >> 15, 0u) << "TG, VM, QUEUE, STATE, ME read zero";
      EXPECT_EQ(static_cast<int>(xcc), cu / per_xcd) << "workgroup " << wg;
      EXPECT_EQ(static_cast<int>(se << 5 | sh << 4 | cu_id), cu % per_xcd) << "workgroup " << wg;
      EXPECT_LT(slot, 8u);  // 8 wave slots per SIMD
      simds |= 1u << simd;
      const std::uint32_t id = xcc << 8 | se << 5 | sh << 4 | cu_id;  // mb_smid in the HIP microbenchmarks
      const auto [it, fresh] = cu_of_id.emplace(id, cu);
      EXPECT_EQ(it->second, cu) << "one id, one CU";
    }
    EXPECT_EQ(simds, 0xfu) << "the four waves of workgroup " << wg << " on the four SIMDs";
  }
  EXPECT_EQ(cu_of_id.size(), static_cast<std::size_t>(d.sm.count)) << "every CU reports its own id";
}

TEST(AmdTiming, SmemtimeReadsTheModelsClock) {
  // s_memtime reads the model's shader clock (it read the instruction count): one CU's consecutive
  // workgroups (cta_stamp's method: 4 per CU, their CU from HW_ID) are cu.block_launch_cycles apart
  const device::DeviceSpec& d = mi300x();
  const api::LaunchSpec spec = api::parse_launch_spec_text(
      R"({"spec_version": 1, "source": "launch.hip", "kernel": "cta_stamp", "grid": [1216], "block": [64],
          "args": [{"buffer": "i64", "count": 2432, "init": "zeros", "name": "out"}]})",
      std::string(KERNSIM_TEST_DATA) + "/../../calibration/microbenchmarks/hip", "cta_stamp spec");
  api::RunOptions o;
  o.full = true;
  o.keep_outputs = true;
  const api::RunResult r = api::run_launch(spec, d, o);
  ASSERT_EQ(r.outputs.size(), 1u);
  const auto* v = reinterpret_cast<const std::uint64_t*>(r.outputs[0].bytes.data());
  std::map<std::uint64_t, std::vector<std::uint64_t>> starts;  // CU id -> s_memtime at entry
  for (int wg = 0; wg < 1216; ++wg) {
    EXPECT_LT(static_cast<double>(v[2 * wg]), r.cycles) << "a shader-clock value, not an instruction count";
    starts[v[2 * wg + 1]].push_back(v[2 * wg]);
  }
  EXPECT_EQ(starts.size(), static_cast<std::size_t>(d.sm.count));
  for (auto& [cu, t] : starts) {
    ASSERT_EQ(t.size(), 4u) << "CU " << cu;
    std::sort(t.begin(), t.end());
    for (std::size_t i = 1; i < t.size(); ++i)
      EXPECT_GE(static_cast<double>(t[i] - t[i - 1]), d.sm.block_launch_cycles - 8) << "CU " << cu;  // 2 issue intervals of phase
  }
}

// ---------------------------------------------------------------------------------------------
// whole kernels

api::LaunchSpec stream_spec(const std::string& kernel, std::int64_t n, int per_thread) {
  const std::int64_t grid = (n / per_thread + 255) / 256;
  std::string extra = kernel == "triad_f32" ? R"({"buffer": "f32", "count": )" + std::to_string(n) + R"(, "init": "uniform"}, )" : "";
  std::string scal = kernel == "triad_f32" ? R"({"type": "f32", "value": 3.0}, )" : "";
  return api::parse_launch_spec_text(R"({"spec_version": 1, "source": "stream.hip", "kernel": ")" + kernel + R"(", "grid": [)" +
                                         std::to_string(grid) + R"(], "block": [256], "args": [{"buffer": "f32", "count": )" +
                                         std::to_string(n) + R"(, "init": "uniform"}, )" + extra + R"({"buffer": "f32", "count": )" +
                                         std::to_string(n) + R"(}, )" + scal + R"({"type": "i32", "value": )" + std::to_string(n) + "}]}",
                                     kHip, "stream spec");
}

TEST(AmdTiming, StreamingCopyApproachesTheDeviceFilesHbmBandwidth) {
  for (const char* arch : {"mi300x", "mi355x"}) {
    const device::DeviceSpec d = device::load_builtin_device(arch);
    const std::int64_t n = 1 << 23;  // 32 MiB per array, more than the L2s hold
    const api::RunResult r = run(stream_spec("copy_f32x4", n, 4), d, false);
    const double bytes_per_s = 8.0 * static_cast<double>(n) / (r.cycles / (d.clocks.core_mhz * 1e6));
    const double sustainable = d.dram.bandwidth_gbps * 1e9 * d.dram.copy_efficiency;
    EXPECT_GT(bytes_per_s, 0.8 * sustainable) << arch;
    EXPECT_LT(bytes_per_s, 1.1 * sustainable) << arch;
  }
}

TEST(AmdTiming, SampledRunTracksTheFullRun) {
  const std::int64_t n = 1 << 21;
  setenv("KERNSIM_DETAIL_BUDGET", "100000", 1);
  const double sampled = run(stream_spec("triad_f32", n, 1), mi300x(), false).cycles;
  unsetenv("KERNSIM_DETAIL_BUDGET");
  const double full = run(stream_spec("triad_f32", n, 1), mi300x(), true).cycles;
  EXPECT_NEAR(sampled, full, 0.15 * full);
}

TEST(AmdTiming, ResultsAreDeterministic) {
  const api::LaunchSpec s = stream_spec("triad_f32", 1 << 16, 1);
  const api::RunResult a = run(s, mi300x()), b = run(s, mi300x());
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.report_json, b.report_json);
}

TEST(AmdTiming, ReportHasTheNvidiaShapeAndTheMall) {
  const api::RunResult r = run(stream_spec("triad_f32", 1 << 16, 1), mi300x());
  const nlohmann::json j = nlohmann::json::parse(r.report_json);
  for (const char* key : {"time_us", "cycles", "occupancy", "units", "stall_reasons", "memory", "speed_of_light", "bottleneck", "sampling"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["memory"].contains("mall"));
  EXPECT_GT(j["time_us"].get<double>(), mi300x().launch.overhead_us);
}

}  // namespace
}  // namespace kernsim
