// The CUDA-on-AMD port (frontends/cuda_port.h, docs/cuda_on_amd.md): a CUDA source runs on
// mi300x compiled as HIP, and the places where it assumes 32-lane warps carry named warnings.
// The end-to-end tests compare outputs with what each warp width must give, computed here from
// the inputs: the 32-lane kernel is right on H200 and wrong on MI300X exactly where its warnings
// say, the warp-size-agnostic kernel is right on both and has no warning.
#include "frontends/cuda_port.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "frontends/compile.h"
#include "test_util.h"

namespace kernsim {
namespace {

using nlohmann::json;

const std::string kPort = std::string(KERNSIM_TEST_DATA) + "/port";

// A preprocessed text of one user file, as `clang -E` marks it.
std::string pre(const std::string& body) {
  return "# 1 \"k.cu\"\n" + body;
}

TEST(CudaPortScan, FindsEach32LaneAssumptionOnItsLine) {
  const auto s = frontends::scan_cuda_port(pre("__global__ void k(float* x) {\n"
                                               "  float v = __shfl_xor_sync(0xffffffffu, x[0], 1);\n"
                                               "  int lane = threadIdx.x & 31;\n"
                                               "  int warp = threadIdx.x >> 5;\n"
                                               "  for (int o = 16; o > 0; o >>= 1)\n"
                                               "    v += __shfl_down_sync(m, v, o);\n"
                                               "  float last = __shfl_sync(m, v, 31);\n"
                                               "#define WARP_SIZE 32\n"
                                               "  constexpr int kWarpSize = 32;\n"
                                               "  if (__activemask() == 0xFFFFFFFF) x[1] = v;\n"
                                               "}\n"),
                                           "/nonexistent/kernsim/headers");
  std::map<int, std::string> at;
  for (const auto& w : s.warnings) at[w.line] = w.name;
  EXPECT_EQ(at[2], "warp32-mask");
  EXPECT_EQ(at[3], "warp32-lane-math");
  EXPECT_EQ(at[4], "warp32-lane-math");
  EXPECT_EQ(at[5], "warp32-shuffle");
  EXPECT_EQ(at[7], "warp32-shuffle");
  EXPECT_EQ(at[8], "warp32-warp-size");
  EXPECT_EQ(at[9], "warp32-warp-size");
  EXPECT_EQ(at[10], "warp32-mask") << "a full 32-lane mask compared with the active mask";
  EXPECT_EQ(s.warnings.size(), 8u);
  for (const auto& w : s.warnings) {
    EXPECT_EQ(w.file, "k.cu");
    EXPECT_FALSE(w.message.empty()) << w.name;
  }
}

// What a line alone does not show: values that flow from a lane index, a ballot, a 32-lane mask or
// the constant 16 through variables, and shared arrays of 32 (docs/cuda_on_amd.md's former misses).
TEST(CudaPortScan, FollowsLaneBallotMaskAndSixteenThroughVariables) {
  const auto s =
      frontends::scan_cuda_port(pre("__global__ void k(float* x, int* out) {\n"
                                    "  int i = threadIdx.x;\n"
                                    "  int j = i + 1;\n"
                                    "  int l = j & 31;\n"  // lane math on a variable two steps from threadIdx
                                    "  auto b = __ballot_sync(__activemask(), x[0] > 0);\n"
                                    "  if (b == 0xffffffff) out[0] = 1;\n"  // a 64-bit ballot against 32 lanes
                                    "  unsigned full = 0xffffffffu;\n"
                                    "  float v = __shfl_xor_sync(full, x[0], 1);\n"  // a mask variable not named mask
                                    "  const int half = 16;\n"
                                    "  for (int o = half; o > 0; o /= 2)\n"
                                    "    v += __shfl_down_sync(__activemask(), v, o);\n"
                                    "  __shared__ float partial[32];\n"
                                    "  int n = out[1];\n"
                                    "  out[2] = n / 32;\n"  // n is no lane index: not warned
                                    "}\n"),
                                "/nonexistent/kernsim/headers");
  std::map<int, std::string> at;
  for (const auto& w : s.warnings) at[w.line] = w.name;
  EXPECT_EQ(at[4], "warp32-lane-math");
  EXPECT_EQ(at[6], "warp32-mask");
  EXPECT_EQ(at[8], "warp32-mask");
  EXPECT_EQ(at[10], "warp32-shuffle");
  EXPECT_EQ(at[12], "warp32-shared-array");
  EXPECT_EQ(at.count(14), 0u) << at[14];
  EXPECT_EQ(s.warnings.size(), 5u);
}

// The flow across calls, members, pointers and initialisers (each line was a miss before): a
// parameter a call passes a lane index to, a function returning one, a pointer parameter written
// with one, a struct initialised with one (and passed on), an array written through a pointer to
// it, a brace-initialised variable, 32 kept in a variable, a 32-bit mask handed to a function.
TEST(CudaPortScan, FollowsLaneValuesIntoFunctionsMembersPointersAndReturns) {
  const auto s =
      frontends::scan_cuda_port(pre("__device__ int group_of(int t) {\n"
                                    "  return t / 32;\n"  // 2: t is threadIdx.x at the call on line 17
                                    "}\n"
                                    "__device__ int tix() { return threadIdx.x; }\n"
                                    "__device__ void index_into(int* out) {\n"
                                    "  *out = threadIdx.x;\n"
                                    "}\n"
                                    "struct Ctx { int t; };\n"
                                    "__device__ int slot_of(Ctx c) {\n"
                                    "  return c.t & 31;\n"  // 10: c is a lane-derived Ctx at line 30
                                    "}\n"
                                    "__device__ float red(float v, unsigned m) {\n"
                                    "  return v + __shfl_xor_sync(m, v, 1);\n"  // 13: m is 0xffffffff at line 33
                                    "}\n"
                                    "__device__ int other(int t) { return t / 32; }\n"  // 15: called with n only
                                    "__global__ void k(int* x, int n, float f) {\n"
                                    "  int g = group_of(threadIdx.x);\n"
                                    "  int a = tix();\n"
                                    "  int r0 = a % 32;\n"  // 19
                                    "  int b;\n"
                                    "  index_into(&b);\n"
                                    "  int r1 = b >> 5;\n"  // 22
                                    "  Ctx c{(int)threadIdx.x};\n"
                                    "  int r2 = c.t & 31;\n"  // 24
                                    "  int idx[4];\n"
                                    "  int* q = idx;\n"
                                    "  q[0] = threadIdx.x;\n"
                                    "  int r3 = idx[0] / 32;\n"  // 28
                                    "  int s{n};\n"
                                    "  int r4 = slot_of(c) + s;\n"
                                    "  int ws = 32;\n"
                                    "  int r5 = threadIdx.x / ws;\n"  // 32
                                    "  int r = red(f, 0xffffffff) + other(n) + n / 32;\n"
                                    "  x[0] = r + r0 + r1 + r2 + r3 + r4 + r5 + g;\n"
                                    "}\n"),
                                "/nonexistent/kernsim/headers");
  std::map<int, std::string> at;
  for (const auto& w : s.warnings) at[w.line] = w.name;
  EXPECT_EQ(at[2], "warp32-lane-math") << "a parameter a call gave threadIdx.x";
  EXPECT_EQ(at[19], "warp32-lane-math") << "a value of a function that returns threadIdx.x";
  EXPECT_EQ(at[22], "warp32-lane-math") << "a variable a callee wrote threadIdx.x into through a pointer";
  EXPECT_EQ(at[24], "warp32-lane-math") << "a struct brace-initialised with threadIdx.x";
  EXPECT_EQ(at[10], "warp32-lane-math") << "that struct passed by value";
  EXPECT_EQ(at[28], "warp32-lane-math") << "an array written through a pointer to it";
  EXPECT_EQ(at[32], "warp32-lane-math") << "32 kept in a variable";
  EXPECT_EQ(at[13], "warp32-mask") << "a full 32-lane mask passed to a function's parameter";
  EXPECT_EQ(at.count(15), 0u) << "other()'s t is no lane index: " << at[15];
  EXPECT_EQ(at.count(33), 0u) << "n / 32: n is no lane index: " << at[33];
  EXPECT_EQ(s.warnings.size(), 8u);
}

TEST(CudaPortScan, WarpSizeAgnosticSpellingsAreNotWarned) {
  const auto s = frontends::scan_cuda_port(
      pre("__global__ void k(float* x, int n) {\n"
          "  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;\n"
          "  float v = __shfl_xor_sync(__activemask(), x[0], 1);\n"
          "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(__activemask(), v, o);\n"
          "  unsigned long long full = 0xffffffffffffffffull;\n"
          "  int tile = n / 32;\n"  // 32 with no lane or warp in sight
          "  x[lane] = v * 32.0f;\n"
          "}\n"),
      "/nonexistent/kernsim/headers");
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front().name << " on line " << s.warnings.front().line;
}

TEST(CudaPortScan, SystemAndKernsimHeadersAreNotScanned) {
  const std::string t =
      "# 1 \"/usr/include/x.h\" 1 3\n"
      "int a = threadIdx.x % 32;\n"
      "# 1 \"/opt/kernsim/hip_include/hip/hip_runtime.h\" 1\n"
      "int b = threadIdx.x % 32;\n"
      "# 7 \"k.cu\" 2\n"
      "int c = threadIdx.x % 32;\n";
  const auto s = frontends::scan_cuda_port(t, "/opt/kernsim/hip_include");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0].file, "k.cu");
  EXPECT_EQ(s.warnings[0].line, 7) << "the line marker's number";
}

TEST(CudaPortScan, BallotNarrowedTo32BitsComesFromTheCompilersDiagnostic) {
  frontends::PortScan s = frontends::scan_cuda_port(pre("auto m = __ballot_sync(__activemask(), p);\n"
                                                        "unsigned int n = m;\n"
                                                        "unsigned int q = (unsigned long long)r;\n"),
                                                    "/nonexistent");
  const std::string err =
      "k.cu:2:20: warning: implicit conversion loses integer precision: 'unsigned long long' to 'unsigned int' "
      "[-Wshorten-64-to-32]\n"
      "k.cu:3:20: warning: implicit conversion loses integer precision: 'unsigned long long' to 'unsigned int' "
      "[-Wshorten-64-to-32]\n";
  frontends::add_ballot_width_warnings(s, err);
  ASSERT_EQ(s.warnings.size(), 1u) << "line 3 narrows something that is not a ballot";
  EXPECT_EQ(s.warnings[0].name, "warp32-ballot-width");
  EXPECT_EQ(s.warnings[0].line, 2);
}

// The compiler's half: masks narrower than 64 bits by type, wherever they come from
// (tests/data/port/masks32.cu marks the lines).
TEST(CudaPortScan, MasksNarrowerThan64BitsAreFoundByTheCompiler) {
  frontends::CompileOptions co;
  co.target = "gfx942";
  co.use_cache = false;
  const frontends::DeviceModule m = frontends::compile(kPort + "/masks32.cu", co);
  std::set<int> mask_lines;
  for (const auto& w : m.warnings)
    if (w.name == "warp32-mask") mask_lines.insert(w.line);
  std::set<int> want;
  std::ifstream f(kPort + "/masks32.cu");
  std::string text;
  for (int line = 1; std::getline(f, text); ++line)
    if (text.find("// warned") != std::string::npos) want.insert(line);
  ASSERT_EQ(want.size(), 5u);
  EXPECT_EQ(mask_lines, want);
}

// ---------------------------------------------------------------------------------------------
// end to end: tests/data/port/{warp32,agnostic}.cu (in = 0, 1, ..., 255; two blocks of 128)

struct Outputs {
  std::vector<float> warp_sum;
  std::vector<int> below;
  float total = 0;
  json report;
};

Outputs run(const std::string& spec_file, const char* arch) {
  const api::LaunchSpec spec = api::parse_launch_spec(kPort + "/" + spec_file);
  api::RunOptions o;
  o.full = true;
  o.keep_outputs = true;
  const api::RunResult r = api::run_launch(spec, device::load_builtin_device(arch), o);
  Outputs out;
  out.report = json::parse(r.report_json);
  for (const auto& b : r.outputs) {
    if (b.arg_index == 1) out.warp_sum.resize(256), std::memcpy(out.warp_sum.data(), b.bytes.data(), 1024);
    if (b.arg_index == 2) out.below.resize(256), std::memcpy(out.below.data(), b.bytes.data(), 1024);
    if (b.arg_index == 3) std::memcpy(&out.total, b.bytes.data(), 4);
  }
  EXPECT_EQ(out.warp_sum.size(), 256u);
  return out;
}

// sum of in[i] = i over [first, first + n)
float iota_sum(int first, int n) {
  return static_cast<float>(n * first + n * (n - 1) / 2);
}
int below_limit(int first, int n) {
  return std::max(0, std::min(first + n, 40) - first);
}  // in[i] < 40

TEST(CudaOnAmd, Warp32KernelIsRightOnH200) {
  const Outputs o = run("warp32.json", "h200");
  for (int i = 0; i < 256; ++i) {
    EXPECT_EQ(o.warp_sum[i], iota_sum(i / 32 * 32, 32)) << i;
    EXPECT_EQ(o.below[i], below_limit(i / 32 * 32, 32)) << i;
  }
  EXPECT_EQ(o.total, iota_sum(0, 256));
  EXPECT_FALSE(o.report.contains("warnings")) << "no port on an NVIDIA part";
}

TEST(CudaOnAmd, Warp32KernelRunsOnMi300xWrongWhereItsWarningsSay) {
  const Outputs o = run("warp32.json", "mi300x");
  for (int i = 0; i < 256; ++i) {
    // a 64-lane wave: lanes 32-63 read lane 0's sum (lanes 0-31) and lanes 0-31's ballot
    const int wave = i / 64 * 64;
    EXPECT_EQ(o.warp_sum[i], iota_sum(wave, 32)) << i;
    EXPECT_EQ(o.below[i], below_limit(wave, 32)) << i;
  }
  EXPECT_NE(o.warp_sum[32], iota_sum(32, 32)) << "the second 32-lane warp's sum is lost";
  EXPECT_EQ(o.total, iota_sum(0, 256)) << "lanes 0 and 32 (threadIdx.x % 32 == 0) both add: the total is right";
  EXPECT_EQ(o.report["launch"]["port"], "cuda-as-hip");
  std::map<std::string, std::set<int>> lines;
  for (const auto& w : o.report.at("warnings")) {
    EXPECT_NE(w["file"].get<std::string>().find("warp32.cu"), std::string::npos);
    lines[w["name"]].insert(w["line"].get<int>());
  }
  EXPECT_EQ(lines["warp32-mask"], (std::set<int>{14, 15, 16})) << "FULL_MASK (a macro) and 0xffffffff";
  EXPECT_EQ(lines["warp32-ballot-width"], (std::set<int>{14})) << "unsigned votes = __ballot_sync(...)";
  EXPECT_EQ(lines["warp32-shuffle"], (std::set<int>{15})) << "the loop from offset 16";
  EXPECT_EQ(lines["warp32-lane-math"], (std::set<int>{21})) << "threadIdx.x % 32";
}

TEST(CudaOnAmd, WarpSizeAgnosticKernelIsRightOnMi300xWithoutWarnings) {
  const Outputs o = run("agnostic.json", "mi300x");
  for (int i = 0; i < 256; ++i) {
    EXPECT_EQ(o.warp_sum[i], iota_sum(i / 64 * 64, 64)) << i;
    EXPECT_EQ(o.below[i], below_limit(i / 64 * 64, 64)) << i;
  }
  EXPECT_EQ(o.total, iota_sum(0, 256));
  EXPECT_EQ(o.report["launch"]["port"], "cuda-as-hip");
  EXPECT_TRUE(o.report.at("warnings").empty()) << o.report["warnings"].dump();
}

TEST(CudaOnAmd, MissingCudaLibraryHeaderIsUnsupportedByName) {
  test::TempDir d;
  d.write("k.cu", "#include <cooperative_groups.h>\n__global__ void k(float* x) { x[0] = 1; }\n");
  const std::string spec =
      R"({"source": "k.cu", "kernel": "k", "grid": [1], "block": [64], "args": [{"buffer": "f32", "count": 1}]})";
  test::expect_error(
      [&] {
        api::run_launch(api::parse_launch_spec_text(spec, d.path(), "spec"), device::load_builtin_device("mi300x"), {});
      },
      ErrorKind::Unsupported, {"cooperative_groups.h", "CUDA on AMD"});
}

TEST(CudaOnAmd, InlinePtxIsUnsupportedByName) {
  test::TempDir d;
  d.write("k.cu",
          "__global__ void k(unsigned* x) {\n  unsigned v;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(v));\n  x[0] = "
          "v;\n}\n");
  const std::string spec =
      R"({"source": "k.cu", "kernel": "k", "grid": [1], "block": [64], "args": [{"buffer": "u32", "count": 1}]})";
  test::expect_error(
      [&] {
        api::run_launch(api::parse_launch_spec_text(spec, d.path(), "spec"), device::load_builtin_device("mi300x"), {});
      },
      ErrorKind::Unsupported, {"inline assembly", "k.cu:3"});
}

}  // namespace
}  // namespace kernsim
