// mbarriers, bulk copies and TMA (sim/functional/ptx_async.cpp): each result is checked against a
// hand computation of the PTX ISA's rules or a reference computed here, never against kernsim.
// The kernels are PTX in tests/data/kernels (no clang needed).
#include <cstring>
#include <fstream>
#include <iterator>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const std::string kData = KERNSIM_TEST_DATA;

api::RunResult run_spec(const std::string& json, api::RunOptions opts = {}) {
  auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "test spec");
  opts.full = true;
  opts.keep_outputs = true;
  return api::run_launch(spec, device::load_builtin_device("h200"), opts);
}

template <class T>
const T* words(const api::RunResult& r, std::size_t i) {
  return reinterpret_cast<const T*>(r.outputs.at(i).bytes.data());
}

TEST(Mbarrier, ArrivalsInLaneOrderCompleteThePhaseAndTokensCarryTheirPhase) {
  auto r = run_spec(R"({"source": "mbarrier.ptx", "kernel": "mbar_arrive", "grid": 1, "block": 32,
                        "args": [{"buffer": "u32", "count": 128}]})");
  const auto* v = words<std::uint32_t>(r, 0);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(v[4 * t], 31u - t) << "pending arrivals left by thread " << t << "'s arrival";
    EXPECT_EQ(v[4 * t + 1], 1u) << "the token's phase completed";
    EXPECT_EQ(v[4 * t + 2], 1u) << "phase parity 0 completed";
    EXPECT_EQ(v[4 * t + 3], 0u) << "phase parity 1 (the current one) has not";
  }
}

TEST(Mbarrier, TransactionBytesHoldThePhaseUntilTheyAreComplete) {
  auto r = run_spec(R"({"source": "mbarrier.ptx", "kernel": "mbar_tx", "grid": 1, "block": 1,
                        "args": [{"buffer": "u32", "count": 8}]})");
  const auto* v = words<std::uint32_t>(r, 0);
  EXPECT_EQ(v[0], 0u) << "arrived, 64 bytes expected";
  EXPECT_EQ(v[1], 0u) << "96 bytes expected";
  EXPECT_EQ(v[2], 0u) << "32 bytes still outstanding";
  EXPECT_EQ(v[3], 1u) << "all bytes complete";
  EXPECT_EQ(v[4], 1u) << "an arrival of count 2 on a barrier of 3 leaves 1";
  EXPECT_EQ(v[5], 1u) << "arrive_drop made the next phase expect 2 arrivals: one arrival leaves 1";
  EXPECT_EQ(v[6], 1u) << "the arrive_drop token's phase completed";
}

TEST(Mbarrier, ProducerAndConsumerWarpsHandOverEveryRound) {
  for (const char* n : {"1", "5"}) {
    auto r = run_spec(std::string(R"({"source": "mbarrier.ptx", "kernel": "mbar_pipeline", "grid": 2, "block": 64,
                        "args": [{"buffer": "u32", "count": 160}, {"type": "u32", "value": )") +
                      n + "}]}");
    const auto* v = words<std::uint32_t>(r, 0);
    const int rounds = std::stoi(n);
    for (int i = 0; i < rounds; ++i)
      for (int l = 0; l < 32; ++l)
        ASSERT_EQ(v[i * 32 + l], static_cast<std::uint32_t>(i * 10 + l)) << "round " << i << " lane " << l;
  }
}

TEST(Mbarrier, AWaitNothingCanCompleteIsANamedDeadlock) {
  expect_error(
      [] {
        run_spec(R"({"source": "mbarrier.ptx", "kernel": "mbar_deadlock", "grid": 1, "block": 64,
                                 "args": [{"buffer": "u32", "count": 1}]})");
      },
      ErrorKind::KernelFault,
      {"mbarrier deadlock", "warp 0 waits on the mbarrier at shared 0x0", "1 of 2 arrivals pending", "warp 1 waits",
       "mbarrier.try_wait"});
}

TEST(Mbarrier, AWaitOnMemoryThatIsNoMbarrierIsNamed) {
  expect_error(
      [] {
        run_spec(R"({"source": "mbarrier.ptx", "kernel": "mbar_uninit", "grid": 1, "block": 32,
                                 "args": [{"buffer": "u32", "count": 1}]})");
      },
      ErrorKind::KernelFault, {"not initialised", "mbarrier.try_wait", "thread (0,0,0)"});
}

}  // namespace
}  // namespace kernsim

namespace kernsim {
namespace {

TEST(BulkCopy, GlobalSharedClusterAndReductionCopiesMoveEveryByte) {
  auto r = run_spec(R"({"source": "bulk_copy.ptx", "kernel": "bulk_copy", "grid": 1, "block": 32,
                        "args": [{"buffer": "u32", "count": 64, "init": "randint:0:100000"}, {"buffer": "u32", "count": 64},
                                 {"buffer": "u32", "count": 64}, {"buffer": "u32", "count": 64, "init": "iota"},
                                 {"buffer": "u32", "count": 64}]})");
  const auto* in = words<std::uint32_t>(r, 0);
  const auto* out = words<std::uint32_t>(r, 1);
  const auto* out2 = words<std::uint32_t>(r, 2);
  const auto* out3 = words<std::uint32_t>(r, 3);
  const auto* out4 = words<std::uint32_t>(r, 4);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(out[i], in[i]) << "global -> shared, word " << i;
    EXPECT_EQ(out4[i], in[i]) << "shared -> shared::cluster, word " << i;
    EXPECT_EQ(out2[i], in[i]) << "shared -> global, word " << i;
    EXPECT_EQ(out3[i], static_cast<std::uint32_t>(i) + in[i]) << "add-reduction into iota, word " << i;
  }
}

TEST(BulkCopy, ASizeThatIsNoMultipleOf16IsNamed) {
  expect_error(
      [] {
        run_spec(R"({"source": "bulk_copy.ptx", "kernel": "bulk_bad_size", "grid": 1, "block": 1,
                                 "args": [{"buffer": "u32", "count": 64}]})");
      },
      ErrorKind::KernelFault, {"bulk copy size 100 is not a multiple of 16 bytes", "cp.async.bulk"});
}

TEST(Mbarrier, TheFunctionalDriverNamesADeadlockToo) {
  std::ifstream f(kData + "/kernels/mbarrier.ptx");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto ast = isa::ptx::parse_module(text, "mbarrier.ptx");
  auto prog = isa::ptx::decode_kernel(ast, "mbar_deadlock", text, "mbarrier.ptx");
  sim::GlobalMemory mem;
  std::vector<std::uint8_t> params(8, 0);
  sim::LaunchDims dims;
  dims.block = {64, 1, 1};
  sim::ExecOptions o;
  o.kernel_name = "mbar_deadlock";
  sim::PtxKernel k(prog, mem, dims, params, o);
  expect_error([&] { k.run_all(); }, ErrorKind::KernelFault, {"mbarrier deadlock", "1 of 2 arrivals pending"});
}

}  // namespace
}  // namespace kernsim
