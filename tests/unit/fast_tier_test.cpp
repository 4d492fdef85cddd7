// The fast tier (cost_model/fast_model.h, fast_profile.h): the analytical model's pieces on
// synthetic profiles, each expectation computed here from the device file's numbers (never read
// back from kernsim's output), and the functional sample's coalescing counts on a PTX kernel whose
// sectors and lines per warp are known by hand.
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "api/launch_spec.h"
#include "api/run.h"
#include "cost_model/fast_model.h"
#include "cost_model/fast_profile.h"
#include "device/loader.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/global_memory.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const std::string kData = KERNSIM_TEST_DATA;

// A streaming CTA: `mb` MiB read from one buffer and as much written to another, coalesced, no
// reuse, a short dependent path; `ctas` of them cover both buffers exactly.
cost::KernelProfile stream_profile(double bytes_per_cta, std::uint64_t ctas, bool write = true) {
  cost::KernelProfile p;
  p.ctas_sampled = 1;
  p.warps_per_cta = 8;
  const double sectors = bytes_per_cta / 32;
  p.load_sectors = sectors;
  p.load_lines = sectors / 4;
  p.load_insts = sectors / 4;
  p.warp_insts = 4 * p.load_insts;
  p.issue_slots = p.warp_insts;
  if (write) {
    p.store_sectors = sectors;
    p.store_lines = sectors / 4;
    p.store_insts = sectors / 4;
  }
  p.path_cycles = 100;
  p.path_miss_loads = 1;
  p.buffers.push_back({bytes_per_cta * static_cast<double>(ctas), bytes_per_cta, 0});
  if (write) p.buffers.push_back({bytes_per_cta * static_cast<double>(ctas), 0, bytes_per_cta});
  return p;
}

cost::LaunchGeometry geometry(std::uint64_t ctas, int threads = 256, int regs = 32, std::int64_t shared = 0) {
  cost::LaunchGeometry g;
  g.ctas = ctas;
  g.threads_per_block = threads;
  g.registers_per_thread = regs;
  g.shared_per_block = shared;
  return g;
}

// p = 16: the join is nearly the largest term alone, so the bandwidth term can be checked exactly
device::FastTier near_max() {
  return {16, 1, 1};
}

TEST(FastModel, ABandwidthBoundLaunchTakesItsBytesOverTheDeviceFilesHbmBandwidth) {
  const auto dev = device::load_builtin_device("h200");
  const std::uint64_t ctas = 4096;
  const double per_cta = 64 * 1024;  // 256 MiB read in all, nothing written
  const auto r = cost::predict(stream_profile(per_cta, ctas, false), geometry(ctas), dev, near_max());
  const double bytes = per_cta * ctas;
  const double expect_us = bytes / (dev.dram.bandwidth_gbps * 1e9 * dev.dram.read_efficiency) * 1e6;
  EXPECT_NEAR(r.kernel_us, expect_us, 0.03 * expect_us);
  EXPECT_EQ(r.bottleneck, "dram");
  EXPECT_DOUBLE_EQ(r.dram_read_bytes, bytes);
  EXPECT_DOUBLE_EQ(r.dram_write_bytes, 0);
}

TEST(FastModel, ABandwidthBoundLaunchScalesWithItsBytesAndInverselyWithHbmBandwidth) {
  auto dev = device::load_builtin_device("h200");
  const double per_cta = 64 * 1024;
  const auto one = cost::predict(stream_profile(per_cta, 4096), geometry(4096), dev, near_max());
  const auto two = cost::predict(stream_profile(per_cta, 8192), geometry(8192), dev, near_max());
  EXPECT_NEAR(two.kernel_us / one.kernel_us, 2.0, 0.05);
  dev.dram.bandwidth_gbps /= 2;
  const auto half = cost::predict(stream_profile(per_cta, 4096), geometry(4096), dev, near_max());
  EXPECT_NEAR(half.kernel_us / one.kernel_us, 2.0, 0.05);
  // a read+write stream runs at the copy efficiency
  const double expect_us = 2 * per_cta * 4096 / (2 * dev.dram.bandwidth_gbps * 1e9 * dev.dram.copy_efficiency) * 1e6;
  EXPECT_NEAR(one.kernel_us, expect_us, 0.03 * expect_us);
}

TEST(FastModel, OccupancyComesFromRegistersAndSharedMemory) {
  const auto dev = device::load_builtin_device("h200");
  const auto p = stream_profile(1024, 1000);
  // 64 registers x 32 lanes = 2048 per warp (a multiple of the 256 granule); 8 warps per block:
  // 65536 / 16384 = 4 blocks
  auto r = cost::predict(p, geometry(1000, 256, 64, 0), dev, near_max());
  EXPECT_EQ(r.occupancy.blocks_per_unit, static_cast<int>(dev.sm.registers / (64 * 32 * 8)));
  EXPECT_EQ(r.occupancy.limiter, "registers");
  // 100 KiB of shared memory (+ the 1 KiB reserve, in 128-byte granules): 233472 / 103424 = 2
  r = cost::predict(p, geometry(1000, 256, 32, 100 * 1024), dev, near_max());
  const std::int64_t per_block = (100 * 1024 + dev.shared.reserved_per_block_bytes + 127) / 128 * 128;
  EXPECT_EQ(r.occupancy.blocks_per_unit, static_cast<int>(dev.shared.bytes_per_unit / per_block));
  EXPECT_EQ(r.occupancy.limiter, "shared");
}

TEST(FastModel, FewerResidentCtasMeanMoreRoundsOfTheDependentPath) {
  const auto dev = device::load_builtin_device("h200");
  auto p = stream_profile(128, 132 * 64);
  p.path_cycles = 50000;  // latency-bound: a long dependent chain per CTA
  const auto many = cost::predict(p, geometry(132 * 64, 256, 32, 0), dev, near_max());          // 8 CTAs per SM
  const auto few = cost::predict(p, geometry(132 * 64, 256, 32, 100 * 1024), dev, near_max());  // 2 CTAs per SM
  EXPECT_EQ(many.rounds, 8);
  EXPECT_EQ(few.rounds, 32);
  EXPECT_EQ(few.bottleneck, "latency");
  EXPECT_NEAR(few.kernel_us / many.kernel_us, 4.0, 0.2);
}

TEST(FastModel, TheIssueTermIsTheBusiestPipeOverTheSchedulers) {
  const auto dev = device::load_builtin_device("h200");
  cost::KernelProfile p;
  p.ctas_sampled = 1;
  p.warps_per_cta = 8;
  p.path_cycles = 10;
  // 8 warps x 1000 fp64 instructions: 8000 x issue_cycles busy cycles on one scheduler's fp64 pipe
  p.unit_insts[static_cast<int>(isa::Unit::Fp64)] = 8000;
  p.unit_busy[static_cast<int>(isa::Unit::Fp64)] = 8000 * dev.pipes.fp64.issue_cycles;
  p.warp_insts = p.issue_slots = 8000;
  const std::uint64_t ctas = 132 * 8;  // 8 per SM
  const auto r = cost::predict(p, geometry(ctas), dev, near_max());
  const double expect = 8 * 8000 * dev.pipes.fp64.issue_cycles / dev.sm.sub_partitions;  // cycles per SM
  EXPECT_NEAR(r.cycles, expect, 0.03 * expect);
  EXPECT_EQ(r.bottleneck, "compute");
}

TEST(FastModel, AtomicsOnOneSharedAddressSerialiseAcrossTheChip) {
  const auto dev = device::load_builtin_device("h200");
  cost::KernelProfile p;
  p.ctas_sampled = 2;
  p.warps_per_cta = 1;
  p.atomic_insts = p.atomic_requests = 1;
  p.atomic_hot_address_ops = 1;
  p.atomic_lines = 1;
  p.atomic_hot_shared = true;
  const auto r = cost::predict(p, geometry(100000, 32), dev, near_max());
  const double expect = 100000 * dev.l2.atomic_same_address_cycles;
  EXPECT_NEAR(r.cycles, expect, 0.03 * expect);
  EXPECT_EQ(r.bottleneck, "atomics");
}

TEST(FastModel, NamesTheMissingCoefficientsOfAPartWithoutAFit) {
  auto dev = device::load_builtin_device("h200");
  dev.fast = {};
  expect_error([&] { cost::predict(stream_profile(1024, 10), geometry(10), dev); }, ErrorKind::NotImplemented,
               {"fast.overlap_exponent", "h200"});
}

// The functional sample's coalescing counts: per CTA of 4 warps, a[i] loads 4 sectors and 1 line
// per warp; a[32 i] 32 sectors and 32 lines per warp; the stores out[i] 4 sectors and 1 line.
nlohmann::json fast_profile_of(int stride) {
  const std::string spec = R"({"source": "fast_strided.ptx", "kernel": "strided", "grid": 4, "block": 128,
      "args": [{"buffer": "f32", "count": 16384, "init": "iota"}, {"buffer": "f32", "count": 512, "init": "zeros"},
               {"type": "u32", "value": )" +
                           std::to_string(stride) + "}]}";
  api::RunOptions o;
  o.tier = api::Tier::Fast;
  const auto r = api::run_launch(api::parse_launch_spec_text(spec, kData + "/kernels", "test spec"),
                                 device::load_builtin_device("h200"), o);
  const auto j = nlohmann::json::parse(r.report_json);
  EXPECT_EQ(j["tier"], "fast");
  EXPECT_TRUE(j.contains("bottleneck"));
  return j["fast"]["profile"];
}

TEST(FastSample, CountsSectorsAndLinesPerWarpFromTheSampledAddresses) {
  const auto unit = fast_profile_of(1);
  EXPECT_DOUBLE_EQ(unit["load_insts"].get<double>(), 4);
  EXPECT_DOUBLE_EQ(unit["load_sectors"].get<double>(), 16);
  EXPECT_DOUBLE_EQ(unit["load_lines"].get<double>(), 4);
  EXPECT_DOUBLE_EQ(unit["store_sectors"].get<double>(), 16);
  EXPECT_DOUBLE_EQ(unit["store_lines"].get<double>(), 4);
  EXPECT_DOUBLE_EQ(unit["store_partial_sectors"].get<double>(), 0);
  const auto strided = fast_profile_of(32);
  EXPECT_DOUBLE_EQ(strided["load_sectors"].get<double>(), 128);
  EXPECT_DOUBLE_EQ(strided["load_lines"].get<double>(), 128);
  EXPECT_DOUBLE_EQ(strided["store_sectors"].get<double>(), 16);
  // the footprint per CTA: 512 bytes of `a` at stride 1, 128 sectors' 4 KiB at stride 32
  EXPECT_DOUBLE_EQ(unit["buffers"][0][1].get<double>(), 512);
  EXPECT_DOUBLE_EQ(strided["buffers"][0][1].get<double>(), 128 * 32);
}

// The profile of one CTA of tests/data/kernels/fast_loop.ptx (64 threads, n elements), sampled
// with a per-CTA cap of `cap` warp instructions (0: the CTA runs whole); `ran` gets the warp
// instructions it executed.
cost::KernelProfile loop_profile(std::uint32_t n, std::uint64_t cap, std::uint64_t& ran,
                                 const char* kernel = "loop_sum") {
  std::ifstream in(kData + "/kernels/fast_loop.ptx");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto prog =
      isa::ptx::decode_kernel(isa::ptx::parse_module(text, "fast_loop.ptx"), kernel, text, "fast_loop.ptx");
  const device::DeviceSpec dev = device::load_builtin_device("h200");
  sim::GlobalMemory mem;
  const std::uint64_t a = mem.allocate(std::uint64_t{n} * 4, "a"), out = mem.allocate(64 * 4, "out");
  std::vector<std::uint8_t> params(20, 0);
  std::memcpy(params.data(), &a, 8);
  std::memcpy(params.data() + 8, &out, 8);
  std::memcpy(params.data() + 16, &n, 4);
  sim::LaunchDims dims;
  dims.block = {64, 1, 1};
  sim::PtxKernel k(prog, mem, dims, params, {});
  sim::KernelResources res;
  res.threads_per_block = 64;
  res.registers_per_thread = 32;
  cost::SampleOptions o;
  o.cta_budget = cap;
  const cost::KernelProfile p = cost::profile_ptx(k, dev, sim::compute_occupancy(dev, res), o);
  ran = k.warp_instructions();
  return p;
}

// A cut CTA's instructions, loads, load sectors and bytes read within 1% of the whole CTA's.
void expect_counts_near(const cost::KernelProfile& whole, const cost::KernelProfile& cut) {
  for (auto [w, c] : {std::pair{whole.warp_insts, cut.warp_insts},
                      {whole.load_insts, cut.load_insts},
                      {whole.load_sectors, cut.load_sectors},
                      {whole.buffers[0].read_bytes_per_cta, cut.buffers[0].read_bytes_per_cta}})
    EXPECT_NEAR(c, w, 0.01 * w) << "whole " << w;
}

TEST(FastSample, ALongCtaIsCutInItsCountedLoopsAndScaledToItsWholeWork) {
  // 64 threads, 2 warps, n = 64 * 6000: each loop goes round 6000 times per warp (7 and 9
  // instructions an iteration), then one store per warp. Whole: 2 x (6000 x 16 + ~20) warp
  // instructions, 2 x 12000 loads of 4 sectors (1 line each) and 2 stores of 4 sectors.
  std::uint64_t whole_ran = 0, cut_ran = 0;
  const cost::KernelProfile whole = loop_profile(64 * 6000, 0, whole_ran);
  const cost::KernelProfile cut = loop_profile(64 * 6000, 2000, cut_ran);
  EXPECT_TRUE(whole.complete);
  EXPECT_FALSE(cut.complete);
  EXPECT_GT(whole_ran, 2u * 6000 * 16);
  EXPECT_LT(cut_ran, 2u * 6000 * 16 / 4);  // the cut CTA executed under a quarter of it (both loops cut)
  EXPECT_DOUBLE_EQ(whole.load_insts, 2 * 12000);
  EXPECT_DOUBLE_EQ(whole.load_sectors, 4 * 2 * 12000);
  // the cut CTA's counts come within 1% of the whole CTA's: the iterations it skipped are counted
  expect_counts_near(whole, cut);
  // the dependent path within 3%: the second loop's re-reads find a smaller footprint in L1
  EXPECT_NEAR(cut.path_cycles, whole.path_cycles, 0.03 * whole.path_cycles);
  // the epilogue after the loops still ran: its stores are counted once, not scaled
  EXPECT_DOUBLE_EQ(cut.store_sectors, 8);
  EXPECT_DOUBLE_EQ(cut.buffers[1].write_bytes_per_cta, 64 * 4);
}

TEST(FastSample, AWarpThatStepsOutOfItsLoopBeforeTheSetTestVoidsTheCut) {
  // loop_sum_out_of_line: the loads sit after the loop's backward branch, so a warp cut at the
  // loop's top leaves the loop's range before the test the cut sets. Such a cut must count
  // nothing again (the loop goes on): the counts stay the whole CTA's, never a multiple of them
  // (the cp.async GEMMs' 97x over-count on the grown validation set).
  std::uint64_t whole_ran = 0, cut_ran = 0;
  const cost::KernelProfile whole = loop_profile(64 * 6000, 0, whole_ran, "loop_sum_out_of_line");
  const cost::KernelProfile cut = loop_profile(64 * 6000, 2000, cut_ran, "loop_sum_out_of_line");
  EXPECT_DOUBLE_EQ(whole.load_insts, 2 * 6000);
  expect_counts_near(whole, cut);
  EXPECT_NEAR(cut.path_cycles, whole.path_cycles, 0.03 * whole.path_cycles);
}

TEST(FastTier, RefusesWhatASampleCannotGive) {
  const std::string spec = R"({"source": "fast_strided.ptx", "kernel": "strided", "grid": 4, "block": 128,
      "args": [{"buffer": "f32", "count": 16384, "init": "iota"}, {"buffer": "f32", "count": 512, "init": "zeros"},
               {"type": "u32", "value": 1}]})";
  api::RunOptions o;
  o.tier = api::Tier::Fast;
  o.keep_outputs = true;
  expect_error(
      [&] {
        api::run_launch(api::parse_launch_spec_text(spec, kData + "/kernels", "test spec"),
                        device::load_builtin_device("h200"), o);
      },
      ErrorKind::Usage, {"fast tier", "--tier detailed"});
  expect_error([] { api::parse_tier("quick", "--tier"); }, ErrorKind::Usage, {"--tier", "quick"});
}

TEST(LazyMemory, FillsOnlyThePagesAnAccessReaches) {
  sim::GlobalMemory mem;
  int calls = 0;
  const std::uint64_t size = 5 * sim::Allocation::kLazyPage + 100;
  const std::uint64_t base =
      mem.allocate_lazy(size, "lazy", [&](std::uint64_t off, std::uint64_t n, std::uint8_t* dst) {
        ++calls;
        for (std::uint64_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>((off + i) * 7);
      });
  const std::uint64_t at = 2 * sim::Allocation::kLazyPage + 5;
  sim::Allocation* a = mem.find(base + at, 8);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(calls, 1);
  for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(a->data()[at + i], static_cast<std::uint8_t>((at + i) * 7));
  EXPECT_FALSE(a->filled[0]);
  EXPECT_TRUE(a->filled[2]);
  mem.find(base + at + 16, 4);  // the same page: no second fill
  EXPECT_EQ(calls, 1);
  // an access across a page boundary fills both pages; the short last page ends at the buffer's end
  mem.find(base + size - 4 - sim::Allocation::kLazyPage, sim::Allocation::kLazyPage);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(a->data()[size - 1], static_cast<std::uint8_t>((size - 1) * 7));
  EXPECT_EQ(mem.find(base + size, 1), nullptr);  // still bounds-checked
}

// The detailed tier's pages (kLazyPageDetailed); once every page is filled the allocation drops
// its filler (no test per access any more) and its bytes are the initial values throughout.
TEST(LazyMemory, AnAllocationWhosePagesAreAllFilledTurnsEager) {
  sim::GlobalMemory mem;
  int calls = 0;
  const std::uint64_t page = sim::Allocation::kLazyPageDetailed, size = 3 * page + 10;
  const std::uint64_t base = mem.allocate_lazy(
      size, "lazy",
      [&](std::uint64_t off, std::uint64_t n, std::uint8_t* dst) {
        ++calls;
        for (std::uint64_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>((off + i) * 13);
      },
      page);
  sim::Allocation* a = mem.find(base + page + 3, 4);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(a->lazy());
  EXPECT_EQ(a->unfilled, 3u);
  mem.find(base, 2 * page);  // pages 0 and 1: only page 0 is new
  EXPECT_EQ(calls, 2);
  mem.materialize_all();  // pages 2 and 3 (10 bytes)
  EXPECT_EQ(calls, 4);
  EXPECT_FALSE(a->lazy());
  EXPECT_EQ(a->unfilled, 0u);
  mem.find(base + size - 1, 1);
  a->materialize(0, size);
  EXPECT_EQ(calls, 4);
  for (std::uint64_t i = 0; i < size; ++i) ASSERT_EQ(a->data()[i], static_cast<std::uint8_t>(i * 13)) << i;
}

}  // namespace
}  // namespace kernsim
