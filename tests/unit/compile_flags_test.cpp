// Compile settings: the launch spec's `compile` object (flags, include_dirs, defines, std) parses
// with every malformed field named, reaches clang, and is part of the compile-cache key; CCCL
// headers from the CUDA toolkit compile without any setting.
#include "api/compile.h"
#include "api/launch_spec.h"
#include "device/loader.h"
#include "test_util.h"

namespace kernsim::api {
namespace {

using test::expect_error;
using test::TempDir;

std::string spec_with(const std::string& compile) {
  return R"({"source": "k.cu", "kernel": "k", "grid": [1], "block": [32], "args": [], "compile": )" + compile + "}";
}

LaunchSpec parse_in(const TempDir& dir, const std::string& compile) {
  return parse_launch_spec_text(spec_with(compile), dir.path(), "spec.json");
}

TEST(CompileSettings, SpecCompileObjectParsesEveryField) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "inc");
  LaunchSpec s = parse_in(dir, R"({"flags": ["-ffast-math"], "include_dirs": ["inc"],
                                   "defines": {"TILE": 32, "NAME": "x", "ON": null}, "std": "c++20"})");
  EXPECT_EQ(s.compile.flags, std::vector<std::string>{"-ffast-math"});
  ASSERT_EQ(s.compile.include_dirs.size(), 1u);
  EXPECT_EQ(s.compile.include_dirs[0], (dir.path() / "inc").lexically_normal());
  EXPECT_EQ(s.compile.std, "c++20");
  const std::vector<std::string> want = {
      "-I",         (dir.path() / "inc").lexically_normal().string(), "-DNAME=x", "-DON", "-DTILE=32", "-std=c++20",
      "-ffast-math"};
  EXPECT_EQ(clang_flags(s.compile), want);
}

TEST(CompileSettings, SpecWithoutCompileObjectHasNoSettings) {
  TempDir dir;
  LaunchSpec s = parse_launch_spec_text(R"({"source": "k.cu", "kernel": "k", "grid": [1], "block": [32], "args": []})",
                                        dir.path(), "spec.json");
  EXPECT_TRUE(s.compile.empty());
  EXPECT_TRUE(clang_flags(s.compile).empty());
}

TEST(CompileSettings, EveryBadFieldIsNamed) {
  TempDir dir;
  const auto bad = [&](const std::string& compile, std::initializer_list<std::string> needles) {
    expect_error([&] { parse_in(dir, compile); }, ErrorKind::LaunchSpec, needles);
  };
  bad(R"([])", {"spec.json", "`compile`", "must be an object"});
  bad(R"({"flag": []})", {"`compile.flag`", "unknown key"});
  bad(R"({"flags": "-O2"})", {"`compile.flags`", "array of strings"});
  bad(R"({"flags": [1]})", {"`compile.flags[0]`", "must be a string"});
  bad(R"({"flags": ["-O2", "k.cu"]})", {"`compile.flags[1]`", "not a flag"});
  bad(R"({"flags": ["-o"]})", {"`compile.flags[0]`", "kernsim sets this itself"});
  bad(R"({"flags": ["--cuda-gpu-arch=sm_80"]})", {"`compile.flags[0]`", "target"});
  bad(R"({"flags": ["-std=c++20"]})", {"`compile.flags[0]`", "`std`"});
  bad(R"({"include_dirs": ["nowhere"]})", {"`compile.include_dirs[0]`", "not a directory"});
  bad(R"({"defines": ["A"]})", {"`compile.defines`", "must be an object"});
  bad(R"({"defines": {"1A": 1}})", {"`compile.defines.1A`", "not a macro name"});
  bad(R"({"defines": {"A": [1]}})", {"`compile.defines.A`", "must be a string"});
  bad(R"({"std": "c++99"})", {"`compile.std`", "unknown language standard", "c++20"});
  bad(R"({"std": 20})", {"`compile.std`", "must be a string"});
}

TEST(CompileSettings, CallerSettingsComeAfterTheSpecs) {
  CompileSettings spec, cli;
  spec.defines = {{"A", "1"}};
  spec.std = "c++17";
  cli.defines = {{"A", "2"}};
  cli.std = "c++20";
  cli.flags = {"-ffast-math"};
  spec.add(cli);
  EXPECT_EQ(clang_flags(spec), (std::vector<std::string>{"-DA=1", "-DA=2", "-std=c++20", "-ffast-math"}));
}

const char* kScaled = R"(#ifndef SCALE
#error SCALE must be defined
#endif
extern "C" __global__ void k(float* x) { x[threadIdx.x] *= SCALE; }
)";

TEST(CompileSettings, SpecsDifferingOnlyInADefineCompileToDifferentPtx) {
  TempDir dir;
  const auto src = dir.write("k.cu", kScaled);
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  LaunchSpec three = parse_in(dir, R"({"defines": {"SCALE": "3.0f"}})");
  LaunchSpec five = parse_in(dir, R"({"defines": {"SCALE": "5.0f"}})");
  const std::string a = compile_source(src, h200, CompileOutput::Object, three.compile).bytes;
  const std::string b = compile_source(src, h200, CompileOutput::Object, five.compile).bytes;
  EXPECT_NE(a, b);
  EXPECT_THAT(a, ::testing::HasSubstr("0f40400000"));  // 3.0f
  EXPECT_THAT(b, ::testing::HasSubstr("0f40A00000"));  // 5.0f
  // the first settings again come from the cache, still with their own constant
  EXPECT_EQ(compile_source(src, h200, CompileOutput::Object, three.compile).bytes, a);
  expect_error([&] { compile_source(src, h200, CompileOutput::Object, {}); }, ErrorKind::Compile,
               {"SCALE must be defined"});
}

TEST(CompileSettings, IncludeDirsAndStdReachClang) {
  TempDir dir;
  dir.write("inc/scale.h", "constexpr float kScale = 7.0f;\n");
  const auto src = dir.write("k.cu", R"(#include "scale.h"
#if __cplusplus < 202002L
#error needs C++20
#endif
extern "C" __global__ void k(float* x) { x[threadIdx.x] *= kScale; }
)");
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  LaunchSpec s = parse_in(dir, R"({"include_dirs": ["inc"], "std": "c++20"})");
  EXPECT_THAT(compile_source(src, h200, CompileOutput::Object, s.compile).bytes, ::testing::HasSubstr("0f40E00000"));
}

TEST(CompileSettings, CcclHeadersCompileWithoutSettings) {
  TempDir dir;
  const auto src = dir.write("k.cu", R"(#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <cuda/std/type_traits>
namespace cg = cooperative_groups;
extern "C" __global__ void k(float* x) {
  using BR = cub::BlockReduce<float, 32>;
  __shared__ BR::TempStorage t;
  static_assert(cuda::std::is_same_v<float, cuda::std::remove_cv_t<const float>>);
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  x[tile.thread_rank()] = BR(t).Sum(x[threadIdx.x]);
}
)");
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  EXPECT_THAT(compile_source(src, h200, CompileOutput::Object).bytes, ::testing::HasSubstr(".entry k"));
}

// nvcc leniency: a special register written with a single `%` in an extended asm template, as
// nvcc-style headers do, compiles (clang alone rejects it); `%%`, operands and basic asm are kept.
TEST(CompileSettings, SinglePercentSpecialRegistersInExtendedAsmCompile) {
  TempDir dir;
  const auto src = dir.write("k.cu", R"(#define CLUSTER_X(v) asm volatile("mov.u32 %0, %clusterid.x;" : "=r"(v))
extern "C" __global__ void k(unsigned* out) {
  unsigned c, s, l;
  CLUSTER_X(c);
  asm("mov.u32 %0, %%smid;" : "=r"(s));
  asm volatile("mov.u32 %0, %laneid;"
               : "=r"(l));
  asm volatile("membar.gl;");
  out[threadIdx.x] = c + s + l;
}
)");
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  const std::string ptx = compile_source(src, h200, CompileOutput::Object).bytes;
  EXPECT_THAT(ptx, ::testing::HasSubstr("%clusterid.x;"));
  EXPECT_THAT(ptx, ::testing::HasSubstr("%smid;"));
  EXPECT_THAT(ptx, ::testing::HasSubstr("%laneid;"));
  EXPECT_THAT(ptx, ::testing::HasSubstr("membar.gl;"));
  EXPECT_THAT(ptx, ::testing::Not(::testing::HasSubstr("%%")));
}

// nvcc leniency: an asm template naming an operand its statement does not have (`%2` of two), in
// an `if constexpr` branch no instantiation takes, compiles as nvcc compiles it; the statement
// that is used keeps its instructions, and one that reached the PTX would stop by name.
TEST(CompileSettings, AsmWithAnOperandBeyondItsOperandsCompilesWhereNeverInstantiated) {
  TempDir dir;
  const auto src = dir.write("k.cu", R"(template <bool hint> __device__ unsigned add(unsigned a, unsigned b) {
  unsigned d;
  if constexpr (hint) {
    asm volatile("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a));  // %2: no such operand
  } else {
    asm volatile("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  }
  return d;
}
extern "C" __global__ void k(unsigned* out) { out[threadIdx.x] = add<false>(threadIdx.x, 7u); }
)");
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  const std::string ptx = compile_source(src, h200, CompileOutput::Object).bytes;
  EXPECT_THAT(ptx, ::testing::HasSubstr("add.u32"));
  EXPECT_THAT(ptx, ::testing::Not(::testing::HasSubstr("kernsim_invalid_asm_operand")));
  // instantiated, the replaced statement is in the PTX under its name
  const auto used = dir.write(
      "u.cu",
      R"(__device__ unsigned f(unsigned a) { unsigned d; asm volatile("mov.u32 %0, %3;" : "=r"(d) : "r"(a)); return d; }
extern "C" __global__ void k(unsigned* out) { out[threadIdx.x] = f(threadIdx.x); }
)");
  EXPECT_THAT(compile_source(used, h200, CompileOutput::Object).bytes,
              ::testing::HasSubstr("kernsim_invalid_asm_operand_3_of_2;"));
}

}  // namespace
}  // namespace kernsim::api
