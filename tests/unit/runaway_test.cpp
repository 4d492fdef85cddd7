// Runaway launches: a warp spinning on a flag nobody writes stops fast as a named endless loop
// (sampled and --full), loops that progress or wait on another warp's store are left alone, a
// barrier that can never complete is a named deadlock, and the wall-time limit fires with its
// message. The kernels are PTX text written here (no clang needed).
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

// one warp waits for a flag that nothing sets
.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd1, %rd1;
$L_spin:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_spin;
  ret;
}

// a long loop whose registers change every iteration
.visible .entry count(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r2, [n];
  mov.u32 %r1, 0;
$L_count:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $L_count;
  st.global.u32 [%rd1], %r1;
  ret;
}

// warp 1 computes for a while, then sets the flag warp 0 spins on; warp 0 copies it to out
.visible .entry handoff(.param .u64 flag, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u32 %r4, [n];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra $L_wait;
  mov.u32 %r2, 0;
$L_work:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r4;
  @%p1 bra $L_work;
  st.volatile.global.u32 [%rd1], %r2;
  ret;
$L_wait:
  ld.volatile.global.u32 %r3, [%rd1];
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra $L_wait;
  st.global.u32 [%rd2], %r3;
  ret;
}

// warp 1 exits; warp 0 waits at a barrier for 64 threads
.visible .entry deadlock(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_out;
  bar.sync 1, 64;
$L_out:
  ret;
}
)";

std::filesystem::path kernel_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path d =
        std::filesystem::temp_directory_path() / ("kernsim_runaway_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::ofstream(d / "runaway.ptx") << kPtx;
    return d;
  }();
  return dir;
}

api::RunResult run_spec(const std::string& json, bool full, api::RunOptions opts = {}) {
  auto spec = api::parse_launch_spec_text(json, kernel_dir(), "test spec");
  opts.full = full;
  opts.keep_outputs = true;
  return api::run_launch(spec, device::load_builtin_device("h200"), opts);
}

const char* kSpin = R"({"source": "runaway.ptx", "kernel": "spin", "grid": 1, "block": 32,
                        "args": [{"buffer": "u32", "count": 1}]})";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Runaway, SpinOnAFlagNobodyWritesIsAnEndlessLoopWhenSampled) {
  const auto t0 = std::chrono::steady_clock::now();
  expect_error([] { run_spec(kSpin, false); }, ErrorKind::KernelFault,
               {"kernel `spin`", "block (0,0,0) warp 0", "endless loop at", "bra", "waits on address", "arg0",
                "nothing writes"});
  EXPECT_LT(seconds_since(t0), 10.0);
}

TEST(Runaway, SpinOnAFlagNobodyWritesIsAnEndlessLoopWhenTimedInFull) {
  const auto t0 = std::chrono::steady_clock::now();
  expect_error([] { run_spec(kSpin, true); }, ErrorKind::KernelFault, {"endless loop at", "waits on address", "arg0"});
  EXPECT_LT(seconds_since(t0), 10.0);
}

TEST(Runaway, SpinIsCaughtWithoutOutputsToo) {
  api::RunOptions o;
  auto spec = api::parse_launch_spec_text(kSpin, kernel_dir(), "test spec");
  expect_error([&] { api::run_launch(spec, device::load_builtin_device("h200"), o); }, ErrorKind::KernelFault,
               {"endless loop at"});
}

TEST(Runaway, LongFiniteLoopIsNotFlagged) {
  for (bool full : {false, true}) {
    auto r = run_spec(R"({"source": "runaway.ptx", "kernel": "count", "grid": 1, "block": 32,
                          "args": [{"buffer": "u32", "count": 1}, {"type": "u32", "value": 200000}]})",
                      full);
    ASSERT_EQ(r.outputs.size(), 1u);
    std::uint32_t v = 0;
    std::memcpy(&v, r.outputs[0].bytes.data(), 4);
    EXPECT_EQ(v, 200000u);
    EXPECT_GT(r.time_us, 0);
  }
}

TEST(Runaway, SpinOnAFlagAnotherWarpSetsIsNotFlagged) {
  for (bool full : {false, true}) {
    auto r = run_spec(R"({"source": "runaway.ptx", "kernel": "handoff", "grid": 1, "block": 64,
                          "args": [{"buffer": "u32", "count": 1}, {"buffer": "u32", "count": 1}, {"type": "u32", "value": 100000}]})",
                      full);
    ASSERT_EQ(r.outputs.size(), 2u);
    std::uint32_t v = 0;
    std::memcpy(&v, r.outputs[1].bytes.data(), 4);
    EXPECT_EQ(v, 100000u) << (full ? "--full" : "sampled");
  }
}

TEST(Runaway, BarrierThatCannotCompleteIsANamedDeadlock) {
  for (bool full : {false, true}) {
    const auto t0 = std::chrono::steady_clock::now();
    expect_error(
        [&] {
          run_spec(R"({"source": "runaway.ptx", "kernel": "deadlock", "grid": 1, "block": 64,
                                    "args": [{"buffer": "u32", "count": 1}]})",
                   full);
        },
        ErrorKind::KernelFault, {"deadlock", "barrier 1", "warp 0"});
    EXPECT_LT(seconds_since(t0), 10.0);
  }
}

TEST(Runaway, WallTimeLimitFiresWithItsMessage) {
  api::RunOptions o;
  o.wall_time_limit_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  expect_error(
      [&] {
        run_spec(R"({"source": "runaway.ptx", "kernel": "count", "grid": 1, "block": 32,
                                  "args": [{"buffer": "u32", "count": 1}, {"type": "u32", "value": 4000000000}]})",
                 true, o);
      },
      ErrorKind::KernelFault, {"kernel `count`", "wall-time limit of 0.2 s", "--time-limit", "wall_time_limit_s"});
  EXPECT_LT(seconds_since(t0), 5.0);
}

TEST(Runaway, DefaultWallTimeLimitIsSet) {
  EXPECT_GT(api::RunOptions{}.wall_time_limit_s, 0);
  EXPECT_EQ(api::RunOptions{}.wall_time_limit_s, api::kDefaultWallTimeLimitS);
}

}  // namespace
}  // namespace kernsim
