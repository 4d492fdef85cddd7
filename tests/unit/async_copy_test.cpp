// mbarriers, bulk copies and TMA (sim/functional/ptx_async.cpp): each result is checked against a
// hand computation of the PTX ISA's rules or a reference computed here, never against kernsim.
// The kernels are PTX in tests/data/kernels (no clang needed).
#include <cstring>
#include <fstream>
#include <iterator>

#include "api/launch_spec.h"
#include "api/run.h"
#include "base/float16.h"
#include "device/loader.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const std::string kData = KERNSIM_TEST_DATA;

api::RunResult run_spec(const std::string& json, api::RunOptions opts = {},
                        const device::DeviceSpec& dev = device::load_builtin_device("h200")) {
  auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "test spec");
  opts.full = true;
  opts.keep_outputs = true;
  return api::run_launch(spec, dev, opts);
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

TEST(Mbarrier, LabelsBelongToTheirBlock) {
  auto r = run_spec(R"({"source": "mbarrier.ptx", "kernel": "mbar_scoped_labels", "grid": 1, "block": 1,
                        "args": [{"buffer": "u32", "count": 1}]})");
  EXPECT_EQ(words<std::uint32_t>(r, 0)[0], 3u)
      << "the outer loop ran three times; each wait left by its own block's label";
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

namespace kernsim {
namespace {

// The raw bytes of argument `arg` (outputs are listed by argument index).
template <class T>
const T* arg_words(const api::RunResult& r, std::size_t arg) {
  for (const auto& o : r.outputs)
    if (o.arg_index == arg) return reinterpret_cast<const T*>(o.bytes.data());
  ADD_FAILURE() << "no output for argument " << arg;
  return nullptr;
}

// A 40 x 20 f32 tensor (rows of 160 bytes), boxes of 32 x 8 at (x, y) = (20, 16): the box runs
// past the tensor's right and bottom edges.
std::string tma_spec(const std::string& swizzle, const std::string& oob, const std::string& box = "[32, 8]",
                     const std::string& strides = "[160]", int bytes = 1024) {
  auto map = [&](int buffer) {
    return R"({"tensor_map": {"buffer": )" + std::to_string(buffer) +
           R"(, "dtype": "f32", "dims": [40, 20], "strides_bytes": )" + strides + R"(, "box": )" + box +
           R"(, "swizzle": ")" + swizzle + R"(", "oob_fill": ")" + oob + R"(", "l2_promotion": "256B"}})";
  };
  return R"({"spec_version": 2, "source": "tma.ptx", "kernel": "tma_2d", "grid": 1, "block": 32, "args": [)" + map(3) +
         ", " + map(5) + ", " + map(6) +
         R"(, {"buffer": "f32", "count": 800, "init": "uniform"}, {"buffer": "u32", "count": 256},
         {"buffer": "f32", "count": 800}, {"buffer": "f32", "count": 800, "init": "iota"},
         {"type": "u32", "value": 20}, {"type": "u32", "value": 16}, {"type": "u32", "value": 16}, {"type": "u32", "value": 14},
         {"type": "u32", "value": )" +
         std::to_string(bytes) + "}]}";
}

// The shared-memory offset of box element (row r, column c) of 4-byte elements, 32 per row: the
// CUDA guide's swizzle XORs the 16-byte chunk index (address bits 4..6) with bits 7..9 (128B),
// 7..8 (64B) or 7 (32B).
std::uint32_t swizzled(int r, int c, int bits) {
  const std::uint32_t lin = static_cast<std::uint32_t>(r * 32 + c) * 4;
  const std::uint32_t chunk = (lin >> 4) & 7, row = (lin >> 7) & 7, mask = (1u << bits) - 1;
  return (lin & ~0x70u) | (((chunk & ~mask) | ((chunk ^ row) & mask)) << 4);
}

TEST(Tma, TileLoadsWriteTheBoxSwizzledWithOutOfBoundsZerosAndStoresClipAtTheEdges) {
  for (const auto& [name, bits] :
       std::vector<std::pair<std::string, int>>{{"none", 0}, {"32B", 1}, {"64B", 2}, {"128B", 3}}) {
    SCOPED_TRACE(name);
    const int cols = bits == 1 ? 8 : bits == 2 ? 16 : 32;  // the widest box each swizzle span allows
    auto r = run_spec(tma_spec(name, "zero", "[" + std::to_string(cols) + ", 8]", "[160]", cols * 8 * 4));
    const auto* src = arg_words<float>(r, 3);
    const auto* out = arg_words<float>(r, 4);
    const auto* dst = arg_words<float>(r, 5);
    const auto* acc = arg_words<float>(r, 6);
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < cols; ++x) {
        const bool in = 20 + x < 40 && 16 + y < 20;
        const float want = in ? src[(16 + y) * 40 + 20 + x] : 0.0f;
        const std::uint32_t lin = static_cast<std::uint32_t>(y * cols + x) * 4;
        const std::uint32_t at = cols == 32 ? swizzled(y, x, bits) : (lin ^ (((lin >> 7) & ((1u << bits) - 1)) << 4));
        ASSERT_EQ(out[at / 4], want) << "box element (" << x << "," << y << ")";
      }
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 40; ++x) {
        const int bx = x - 16, by = y - 14;  // the stored box's element
        const bool in_box = bx >= 0 && bx < cols && by >= 0 && by < 8;
        const bool loaded = in_box && 20 + bx < 40 && 16 + by < 20;
        const float v = loaded ? src[(16 + by) * 40 + 20 + bx] : 0.0f;
        ASSERT_EQ(dst[y * 40 + x], in_box ? v : 0.0f) << "stored tensor (" << x << "," << y << ")";
        ASSERT_EQ(acc[y * 40 + x], static_cast<float>(y * 40 + x) + (in_box ? v : 0.0f))
            << "reduced tensor (" << x << "," << y << ")";
      }
  }
}

// Rank 0 of a cluster of two loads one box multicast to both CTAs: each CTA's shared memory
// holds the box (the source's elements, read here) and each one's own mbarrier completed, sampled
// (timed) and --full.
TEST(Tma, AMulticastLoadFillsEveryCtaOfTheMaskAndCompletesEachOnesBarrier) {
  for (bool full : {true, false}) {
    SCOPED_TRACE(full ? "full" : "sampled");
    const std::string spec =
        R"({"spec_version": 2, "source": "tma.ptx", "kernel": "tma_multicast", "grid": 2, "block": 32,
            "cluster": [2, 1, 1], "args": [
            {"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [40, 20], "strides_bytes": [160], "box": [16, 8],
                            "swizzle": "none", "oob_fill": "zero", "l2_promotion": "256B"}},
            {"buffer": "f32", "count": 800, "init": "uniform"}, {"buffer": "f32", "count": 256},
            {"type": "u32", "value": 4}, {"type": "u32", "value": 10}, {"type": "u32", "value": 512}]})";
    api::RunOptions o;
    o.full = full;
    o.keep_outputs = true;
    auto r = api::run_launch(api::parse_launch_spec_text(spec, kData + "/kernels", "test spec"),
                             device::load_builtin_device("h200"), o);
    const auto* src = arg_words<float>(r, 1);
    const auto* out = arg_words<float>(r, 2);
    for (int rank = 0; rank < 2; ++rank)
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 16; ++x)
          ASSERT_EQ(out[rank * 128 + y * 16 + x], src[(10 + y) * 40 + 4 + x])
              << "rank " << rank << " (" << x << "," << y << ")";
    EXPECT_GT(r.time_us, 0.0);
  }
}

// cp.async.bulk .multicast::cluster: 512 bytes from element 4 of src in both CTAs' shared memory.
TEST(BulkCopy, AMulticastCopyFillsEveryCtaOfTheMask) {
  const std::string spec =
      R"({"spec_version": 2, "source": "tma.ptx", "kernel": "bulk_multicast", "grid": 2, "block": 32,
          "cluster": [2, 1, 1], "args": [
          {"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [40, 20], "strides_bytes": [160], "box": [16, 8],
                          "swizzle": "none", "oob_fill": "zero", "l2_promotion": "256B"}},
          {"buffer": "f32", "count": 800, "init": "uniform"}, {"buffer": "f32", "count": 256},
          {"type": "u32", "value": 4}, {"type": "u32", "value": 10}, {"type": "u32", "value": 512}]})";
  auto r = run_spec(spec);
  const auto* src = arg_words<float>(r, 1);
  const auto* out = arg_words<float>(r, 2);
  for (int rank = 0; rank < 2; ++rank)
    for (int i = 0; i < 128; ++i) ASSERT_EQ(out[rank * 128 + i], src[4 + i]) << "rank " << rank << " word " << i;
}

TEST(Tma, NanRequestZeroFmaFillsOutOfBoundsElementsWithNaN) {
  auto r = run_spec(tma_spec("128B", "nan_request_zero_fma"));
  const auto* out = arg_words<std::uint32_t>(r, 4);
  EXPECT_EQ(out[swizzled(7, 31, 3) / 4], 0x7fffffffu) << "element (51, 23) is outside the 40 x 20 tensor";
  EXPECT_NE(out[swizzled(0, 0, 3) / 4], 0x7fffffffu) << "element (20, 16) is inside";
}

TEST(Tma, BadTensorMapsAreNamedAsTheDriverWouldRejectThem) {
  auto bad = [](const std::string& spec, std::initializer_list<std::string> needles) {
    expect_error([&] { run_spec(spec); }, ErrorKind::LaunchSpec, needles);
  };
  bad(tma_spec("128B", "zero", "[300, 8]"), {"args[0].tensor_map.box[0]", "1 to 256"});
  bad(tma_spec("none", "zero", "[32, 8]", "[100]"), {"args[0].tensor_map.strides_bytes[0]", "not a multiple of 16"});
  bad(tma_spec("64B", "zero"), {"args[0].tensor_map.box[0]", "128 bytes, more than the 64-byte swizzle span"});
  bad(tma_spec("none", "zero", "[32]"), {"args[0].tensor_map.box", "needs 2 extents"});
  std::string v1 = tma_spec("none", "zero");
  v1.replace(v1.find("\"spec_version\": 2"), 17, "\"spec_version\": 1");
  bad(v1, {"args[0]", "tensor_map argument needs \"spec_version\": 2"});
  std::string dtype = tma_spec("none", "zero");
  dtype.replace(dtype.find("\"f32\""), 5, "\"f8\"");
  bad(dtype, {"args[0].tensor_map.dtype", "unknown tensor-map type `f8`"});
  // Missing keys are named, in the map and in an inline buffer (a fuzzing finding: both threw
  // nlohmann's out_of_range, an internal error).
  std::string no_dtype = tma_spec("none", "zero");
  no_dtype.replace(no_dtype.find("\"dtype\": \"f32\","), 15, "");
  bad(no_dtype, {"args[0].tensor_map.dtype", "missing"});
  bad(R"({"spec_version": 2, "source": "tma.ptx", "kernel": "tma_load", "grid": 1, "block": 32, "args": [
          {"tensor_map": {"buffer": {"count": 8}, "dtype": "f32", "dims": [8], "box": [8]}}]})",
      {"args[0].tensor_map.buffer.buffer", "missing"});
}

}  // namespace
}  // namespace kernsim

namespace kernsim {
namespace {

// Cycles of tma_time over a 256 x 1024 f32 tensor: two boxes of `rows` x 64 loaded one after the other.
double tma_cycles(int rows, int x1, int y1, const device::DeviceSpec& dev = device::load_builtin_device("h200")) {
  const std::string spec =
      R"({"spec_version": 2, "source": "tma.ptx", "kernel": "tma_time", "grid": 1, "block": 1, "args": [
      {"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [256, 1024], "strides_bytes": [1024], "box": [32, )" +
      std::to_string(rows) + R"(]}},
      {"buffer": "f32", "count": 262144}, {"type": "u32", "value": 0}, {"type": "u32", "value": 0},
      {"type": "u32", "value": )" +
      std::to_string(x1) + R"(}, {"type": "u32", "value": )" + std::to_string(y1) + R"(},
      {"type": "u32", "value": )" +
      std::to_string(rows * 32 * 4) + "}]}";
  return run_spec(spec, {}, dev).cycles;
}

// The warp that issues a cp.async.bulk.tensor spends tma.warp_issue_cycles on it (134 measured
// on the H100, tma_engine.cu): with 5000 each of tma_time's two loads holds its warp past the
// load's own completion, so the launch takes at least twice that; with none, far less.
TEST(TmaTiming, TheIssuingWarpSpendsItsIssueCycles) {
  auto dev = device::load_builtin_device("h200");
  dev.tma.warp_issue_cycles = 0;
  const double none = tma_cycles(32, 0, 512, dev);
  dev.tma.warp_issue_cycles = 5000;
  const double slow = tma_cycles(32, 0, 512, dev);
  EXPECT_GT(slow, 2 * 5000);
  EXPECT_LT(none, 5000);
}

TEST(TmaTiming, MoreBytesTakeLongerAndAnL2HitBeatsHbm) {
  const double small = tma_cycles(32, 0, 512), large = tma_cycles(128, 0, 512);
  EXPECT_GT(large, small) << "a box of 4x the bytes (16 KiB against 4 KiB) takes longer";
  const double again = tma_cycles(32, 0, 0), fresh = tma_cycles(32, 0, 512);
  EXPECT_LT(again, fresh) << "loading the same box again (from L2) is faster than a new one (from HBM)";
}

}  // namespace
}  // namespace kernsim

namespace kernsim {
namespace {

// Triton's device-side descriptors (tl.make_tensor_descriptor): the kernel zeroes a 128-byte map
// in shared memory, fills it with tensormap.replace, copies it to its global scratch with
// tensormap.cp_fenceproxy, and loads and stores 64 x 64 f16 boxes through it.
TEST(Tma, TritonDeviceSideTensorDescriptorsRun) {
  auto r = run_spec(
      R"({"source": "triton_tensor_desc.ptx", "kernel": "copy_desc", "grid": 2, "block": 128, "dynamic_shared_bytes": 8200,
                        "args": [{"buffer": "f16", "count": 8192, "init": "uniform"}, {"buffer": "f16", "count": 8192},
                                 {"type": "u32", "value": 128}, {"type": "u32", "value": 64}, {"buffer": "u8", "count": 512},
                                 {"type": "u64", "value": 0}]})");
  const auto* a = arg_words<std::uint16_t>(r, 0);
  const auto* b = arg_words<std::uint16_t>(r, 1);
  for (int i = 0; i < 8192; ++i) ASSERT_EQ(half_to_float(b[i]), 2.0f * half_to_float(a[i])) << "element " << i;
}

}  // namespace
}  // namespace kernsim

namespace kernsim {
namespace {

// Triton's host-side TensorDescriptor arguments: a 128-byte map, its shape and strides per
// descriptor; the maps own their buffers (no other parameter takes them).
TEST(Tma, TritonHostSideTensorDescriptorsTakeMapsWithInlineBuffers) {
  const std::string map =
      R"("dtype": "f16", "dims": [64, 128], "strides_bytes": [128], "box": [64, 64], "swizzle": "128B"}},
      {"type": "u32", "value": 128}, {"type": "u32", "value": 64}, {"type": "u64", "value": 64}, {"type": "u64", "value": 1})";
  auto r =
      run_spec(R"({"spec_version": 2, "source": "triton_host_desc.ptx", "kernel": "copy_host", "grid": 2, "block": 128,
      "dynamic_shared_bytes": 8200, "args": [
      {"tensor_map": {"buffer": {"buffer": "f16", "count": 8192, "init": "uniform"}, )" +
               map + R"(, {"tensor_map": {"buffer": {"buffer": "f16", "count": 8192}, )" + map +
               R"(, {"type": "u64", "value": 0}, {"type": "u64", "value": 0}]})");
  const auto* a = arg_words<std::uint16_t>(r, 0);
  const auto* b = arg_words<std::uint16_t>(r, 5);
  for (int i = 0; i < 8192; ++i) ASSERT_EQ(half_to_float(b[i]), 2.0f * half_to_float(a[i])) << "element " << i;
}

}  // namespace
}  // namespace kernsim
