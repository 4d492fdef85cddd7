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

TEST(SmSlice, InPlaceUpdateHappensExactlyOnce) {
  const api::RunResult r = run(kAxpy, false, 50000);
  const auto j = nlohmann::json::parse(r.report_json);
  ASSERT_NE(j["sampling"]["note"].get<std::string>().find("SM slice"), std::string::npos) << j["sampling"]["note"];
  expect_axpy_once(r);
}

TEST(SmSlice, WarmUpStoppedEarlyStillRunsEveryCtaOnce) {
  // an L2 of 64 KiB is full after a few of the warm-up CTAs (run last first); the ones it did
  // not need run with the rest of the grid
  const api::RunResult r = run(kAxpy, false, 50000, 64 * 1024);
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

}  // namespace
}  // namespace kernsim
