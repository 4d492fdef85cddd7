// RunOptions mean the same on every part: each test runs one launch per vendor (the STREAM triad
// in CUDA on the H200, in HIP on the MI300X; the endless kernel of faults.cu / faults.hip) through
// run_launch() and checks the field's effect — detail budget (and its KERNSIM_DETAIL_BUDGET
// override), full, max_instructions, wall_time_limit_s, dump_dir and keep_outputs.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/devices.h"
#include "api/launch_spec.h"
#include "api/run.h"
#include "test_util.h"

namespace kernsim::api {
namespace {

using test::expect_error;
using test::TempDir;

const std::string kData = KERNSIM_TEST_DATA;

struct Vendor {
  const char* arch;
  std::string corpus;  // the directory of stream.cu / stream.hip
  std::string stream;  // its file name
  std::string faults_dir;
  std::string faults;
  // triad elements past which a 20 000-instruction budget extrapolates (the AMD model's window
  // lasts at least four HBM round trips, so it needs a longer launch)
  std::int64_t big;
};

const Vendor kNvidia{"h200", kData + "/../kernels/cuda", "stream.cu", kData + "/kernels", "faults.cu", 1 << 20};
const Vendor kAmd{"mi300x", kData + "/../kernels/hip", "stream.hip", kData + "/amd", "faults.hip", 1 << 22};

// KERNSIM_DETAIL_BUDGET set for one scope (unset when `value` is null).
class ScopedBudgetEnv {
 public:
  explicit ScopedBudgetEnv(const char* value) {
    if (const char* old = std::getenv("KERNSIM_DETAIL_BUDGET")) old_ = old;
    if (value) setenv("KERNSIM_DETAIL_BUDGET", value, 1);
    else unsetenv("KERNSIM_DETAIL_BUDGET");
  }
  ~ScopedBudgetEnv() {
    if (old_.empty()) unsetenv("KERNSIM_DETAIL_BUDGET");
    else setenv("KERNSIM_DETAIL_BUDGET", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

// a[i] = b[i] + 3 c[i] over n elements, 256 threads a block.
LaunchSpec triad(const Vendor& v, std::int64_t n) {
  const std::string c = std::to_string(n);
  return parse_launch_spec_text(R"({"spec_version": 1, "source": ")" + v.stream + R"(", "kernel": "triad_f32", "grid": [)" +
                                    std::to_string((n + 255) / 256) + R"(], "block": [256], "args": [
      {"buffer": "f32", "count": )" + c + R"(, "init": "iota"}, {"buffer": "f32", "count": )" + c + R"(, "init": "iota"},
      {"buffer": "f32", "count": )" + c + R"(, "init": "zeros"}, {"type": "f32", "value": 3.0}, {"type": "i32", "value": )" + c + "}]}",
                                v.corpus, "test spec");
}

LaunchSpec endless(const Vendor& v) {
  return parse_launch_spec_text(R"({"spec_version": 1, "source": ")" + v.faults + R"(", "kernel": "endless", "grid": [1], "block": [64],
                                   "args": [{"buffer": "i32", "count": 1, "init": "zeros"}]})",
                                v.faults_dir, "test spec");
}

nlohmann::json sampling(const RunResult& r) { return nlohmann::json::parse(r.report_json)["sampling"]; }

RunResult run(const LaunchSpec& s, const Vendor& v, const RunOptions& o) { return run_launch(s, load_builtin_device(v.arch), o); }

class RunOptionsOnEveryVendor : public ::testing::TestWithParam<Vendor> {};

TEST_P(RunOptionsOnEveryVendor, DetailBudgetBoundsTheInstructionsTimedInDetail) {
  const ScopedBudgetEnv env(nullptr);
  const Vendor& v = GetParam();
  RunOptions o;
  o.detail_budget = 20'000;
  const nlohmann::json small = sampling(run(triad(v, v.big), v, o));
  EXPECT_TRUE(small["extrapolated"].get<bool>()) << v.arch;
  const nlohmann::json dflt = sampling(run(triad(v, v.big), v, RunOptions{}));
  EXPECT_LT(small["warp_instructions_timed"].get<double>(), dflt["warp_instructions_timed"].get<double>()) << v.arch;
}

TEST_P(RunOptionsOnEveryVendor, DetailBudgetOptionWinsOverTheEnvironment) {
  const Vendor& v = GetParam();
  RunOptions o;
  o.detail_budget = 20'000;
  double by_option = 0, by_env = 0, both = 0;
  {
    const ScopedBudgetEnv env(nullptr);
    by_option = sampling(run(triad(v, v.big), v, o))["warp_instructions_timed"].get<double>();
  }
  {
    const ScopedBudgetEnv env("20000");
    by_env = sampling(run(triad(v, v.big), v, RunOptions{}))["warp_instructions_timed"].get<double>();
  }
  {
    const ScopedBudgetEnv env("5000000");
    both = sampling(run(triad(v, v.big), v, o))["warp_instructions_timed"].get<double>();
  }
  EXPECT_EQ(by_env, by_option) << v.arch;
  // 5 M instructions would time this launch in full, 20 000 does not
  EXPECT_LT(by_option, sampling(run(triad(v, v.big), v, RunOptions{}))["warp_instructions_estimated"].get<double>()) << v.arch;
  EXPECT_EQ(both, by_option) << v.arch;
}

TEST_P(RunOptionsOnEveryVendor, DetailBudgetEnvironmentThatIsNotAPositiveIntegerIsAnError) {
  const Vendor& v = GetParam();
  for (const char* bad : {"lots", "", "0", "1e6"}) {
    const ScopedBudgetEnv env(bad);
    expect_error([&] { run(triad(v, 4096), v, RunOptions{}); }, ErrorKind::Usage,
                 {"KERNSIM_DETAIL_BUDGET", std::string("`") + bad + "`"});
  }
}

TEST_P(RunOptionsOnEveryVendor, FullTimesEveryBlockWhateverTheBudget) {
  const ScopedBudgetEnv env("20000");
  const Vendor& v = GetParam();
  RunOptions o;
  o.full = true;
  const nlohmann::json s = sampling(run(triad(v, v.big), v, o));
  EXPECT_FALSE(s["extrapolated"].get<bool>()) << v.arch;
  EXPECT_EQ(s["ctas_timed"], s["ctas"]) << v.arch;
}

TEST_P(RunOptionsOnEveryVendor, MaxInstructionsStopsTheLaunchAsAKernelFault) {
  const Vendor& v = GetParam();
  RunOptions o;
  o.max_instructions = 100;
  expect_error([&] { run(triad(v, 4096), v, o); }, ErrorKind::KernelFault, {"instruction limit of 100", "--max-instructions"});
  o.max_instructions = 0;  // the default limit: the triad fits
  EXPECT_GT(run(triad(v, 4096), v, o).cycles, 0) << v.arch;
}

// Sampled (not --full): the timed window ends with the CTA still spinning, the probes of its work
// cannot end it either, and the last resort runs it under the launch's own limits: a fault, never a
// time from a CTA that never ended.
TEST_P(RunOptionsOnEveryVendor, AKernelThatNeverEndsIsAFaultWhenSampledToo) {
  const Vendor& v = GetParam();
  RunOptions o;
  o.max_instructions = 3'000'000;
  expect_error([&] { run(endless(v), v, o); }, ErrorKind::KernelFault, {"instruction limit of 3000000"});
}

TEST_P(RunOptionsOnEveryVendor, WallTimeLimitStopsAnEndlessKernel) {
  const Vendor& v = GetParam();
  RunOptions o;
  o.full = true;
  o.wall_time_limit_s = 0.2;
  expect_error([&] { run(endless(v), v, o); }, ErrorKind::KernelFault, {"wall-time limit of 0.2"});
}

TEST_P(RunOptionsOnEveryVendor, DumpDirHoldsEachBufferBeforeAndAfter) {
  const Vendor& v = GetParam();
  TempDir t;
  RunOptions o;
  o.dump_dir = t.path() / "dumps";
  run(triad(v, 1000), v, o);  // sampled: the rest runs functionally so the dump is whole
  auto floats = [&](const std::string& name) {
    std::ifstream f(t.path() / "dumps" / name, std::ios::binary);
    std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<float> out(b.size() / 4);
    std::memcpy(out.data(), b.data(), b.size());
    return out;
  };
  for (const char* f : {"arg0.in.bin", "arg1.in.bin", "arg2.in.bin", "arg0.out.bin", "arg1.out.bin", "arg2.out.bin"})
    EXPECT_EQ(floats(f).size(), 1000u) << v.arch << " " << f;
  EXPECT_EQ(floats("arg2.in.bin")[999], 0.0f) << v.arch;
  EXPECT_EQ(floats("arg2.out.bin")[999], 999.0f + 3.0f * 999.0f) << v.arch;
}

TEST_P(RunOptionsOnEveryVendor, KeepOutputsReturnsEveryBufferAfterTheLaunch) {
  const Vendor& v = GetParam();
  RunOptions o;
  EXPECT_TRUE(run(triad(v, 1000), v, o).outputs.empty()) << v.arch;
  o.keep_outputs = true;
  const RunResult r = run(triad(v, 1000), v, o);
  ASSERT_EQ(r.outputs.size(), 3u) << v.arch;
  EXPECT_EQ(r.outputs[2].arg_index, 2u);
  ASSERT_EQ(r.outputs[2].bytes.size(), 4000u);
  float last = 0;
  std::memcpy(&last, r.outputs[2].bytes.data() + 3996, 4);
  EXPECT_EQ(last, 999.0f + 3.0f * 999.0f) << v.arch;
}

// j = next[j] for 24 hops from j = tid over a random map of 2^20 entries (compute.cu/.hip).
LaunchSpec chase(const Vendor& v) {
  std::string file = v.stream;
  file.replace(0, 6, "compute");
  return parse_launch_spec_text(R"({"spec_version": 1, "source": ")" + file + R"(", "kernel": "pointer_chase", "grid": [2048], "block": [64],
      "args": [{"buffer": "u32", "count": 1048576, "init": "randint:0:1048575"}, {"buffer": "u32", "count": 131072, "init": "zeros"},
               {"type": "i32", "value": 24}, {"type": "i32", "value": 1048576}]})",
                                v.corpus, "test spec");
}

// A sampled run that returns no output fills its computed input on demand (what its CTAs read);
// one that returns outputs fills it up front. The CTAs timed read the same values either way, so
// the two agree to the last digit; a gather that read unfilled pages as zeros would chase index
// 0 (one line, all hits) and be far faster.
TEST_P(RunOptionsOnEveryVendor, AnInputFilledOnDemandTimesAsOneFilledUpFront) {
  const Vendor& v = GetParam();
  ScopedBudgetEnv budget("20000");
  RunOptions o;
  const RunResult lazy = run(chase(v), v, o);
  ASSERT_TRUE(sampling(lazy)["extrapolated"].get<bool>()) << v.arch;
  o.keep_outputs = true;
  o.sampled_outputs = true;  // the buffers as the timed CTAs left them: the same timing path
  const RunResult eager = run(chase(v), v, o);
  EXPECT_EQ(lazy.time_us, eager.time_us) << v.arch;
  EXPECT_EQ(nlohmann::json::parse(lazy.report_json)["memory"], nlohmann::json::parse(eager.report_json)["memory"]) << v.arch;
}

INSTANTIATE_TEST_SUITE_P(Vendors, RunOptionsOnEveryVendor, ::testing::Values(kNvidia, kAmd),
                         [](const ::testing::TestParamInfo<Vendor>& i) { return std::string(i.param.arch); });

}  // namespace
}  // namespace kernsim::api
