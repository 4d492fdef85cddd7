// The functional simulator through the library: faults stop the kernel with errors that name
// kernel, PTX line, thread, address and buffer, and corrupt nothing; control flow reconverges.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "frontends/compile.h"
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

TEST(Functional, OutOfBoundsWriteNamesKernelLineThreadAndBuffer) {
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "oob_write", "grid": 1, "block": 64,
                                 "args": [{"buffer": "f32", "count": 64}, {"type": "i32", "value": 64}]})"); },
               ErrorKind::KernelFault, {"kernel `oob_write`", "PTX line", "st.global", "thread (0,0,0)", "out of bounds",
                                        "past the end of arg0 (f32[64])"});
}

TEST(Functional, OutOfBoundsReadNamesTheOffendingThread) {
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "oob_read_one", "grid": 2, "block": 32,
                                 "args": [{"buffer": "f32", "count": 64}, {"buffer": "f32", "count": 64}, {"type": "i32", "value": 64}]})"); },
               ErrorKind::KernelFault, {"thread (5,0,0)", "block (1,0,0)", "ld.global", "arg0 (f32[64])"});
}

TEST(Functional, MisalignedAccessIsAFault) {
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "misaligned", "grid": 1, "block": 32,
                                 "args": [{"buffer": "u8", "count": 256}, {"buffer": "f32", "count": 32}]})"); },
               ErrorKind::KernelFault, {"misaligned 4-byte access", "thread (0,0,0)"});
}

TEST(Functional, NullPointerIsNamed) {
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "null_deref", "grid": 1, "block": 32,
                                 "args": [{"type": "u64", "value": 0}, {"buffer": "f32", "count": 32}]})"); },
               ErrorKind::KernelFault, {"null pointer read"});
}

TEST(Functional, EndlessKernelStopsAtTheInstructionLimit) {
  api::RunOptions o;
  o.max_instructions = 20000;
  expect_error([&] { run_spec(R"({"source": "faults.cu", "kernel": "endless", "grid": 1, "block": 32,
                                  "args": [{"buffer": "i32", "count": 1}]})", o); },
               ErrorKind::KernelFault, {"instruction limit of 20000", "--max-instructions"});
}

TEST(Functional, UnknownInstructionIsNamedWithItsLine) {
  expect_error([] { run_spec(R"({"source": "unknown_inst.ptx", "kernel": "uses_tex", "grid": 1, "block": 32,
                                 "args": [{"buffer": "f32", "count": 32}]})"); },
               ErrorKind::Unsupported, {"tex.1d.v4.f32.s32", "PTX line 18"});
}

TEST(Functional, Sm100ThreeInputMinMaxF32x2AndB128Registers) {
  auto on_b200 = [](const std::string& json) {
    auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "test spec");
    api::RunOptions o;
    o.full = true;
    o.keep_outputs = true;
    return api::run_launch(spec, device::load_builtin_device("b200"), o);
  };
  // PTX 8.0's min/max of three (Triton's sm_100a attention): integers, and f32 where a NaN input is
  // ignored unless .NaN asks for it to win.
  auto r = on_b200(R"({"source": "sm100_features.ptx", "kernel": "max3", "grid": 1, "block": 32,
                       "args": [{"buffer": "u32", "count": 192}]})");
  ASSERT_EQ(r.outputs.size(), 1u);
  const auto* u = reinterpret_cast<const std::int32_t*>(r.outputs[0].bytes.data());
  const auto* f = reinterpret_cast<const float*>(r.outputs[0].bytes.data());
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(u[6 * t], std::max(t + 1, 7)) << t;
    EXPECT_EQ(u[6 * t + 1], std::min(t, 7)) << t;
    EXPECT_EQ(f[6 * t + 2], std::max(static_cast<float>(t), 10.0f)) << t;
    EXPECT_EQ(f[6 * t + 3], std::min(static_cast<float>(t), 10.0f)) << t;
    EXPECT_TRUE(std::isnan(f[6 * t + 4])) << t;
  }
  // .f32x2: element 0 in the low half; a = (t, 0.5), b = (2, -3): a+b, a-b, a*b, a*b+a
  auto q = on_b200(R"({"source": "sm100_features.ptx", "kernel": "f32x2", "grid": 1, "block": 32,
                       "args": [{"buffer": "f32", "count": 256}]})");
  ASSERT_EQ(q.outputs.size(), 1u);
  const auto* g = reinterpret_cast<const float*>(q.outputs[0].bytes.data());
  for (int t = 0; t < 32; ++t) {
    const float x = static_cast<float>(t);
    const float want[8] = {x + 2, 0.5f - 3, x - 2, 0.5f + 3, 2 * x, -1.5f, 3 * x, -1.0f};
    for (int k = 0; k < 8; ++k) EXPECT_EQ(g[8 * t + k], want[k]) << "thread " << t << " value " << k;
  }
  // .b128 registers (a range of two): ld/st.global.b128 swap the buffer's two 16-byte halves
  auto h = on_b200(R"({"source": "sm100_features.ptx", "kernel": "reg128", "grid": 1, "block": 1,
                       "args": [{"buffer": "u32", "count": 8, "init": "iota"}]})");
  const auto* hw = reinterpret_cast<const std::uint32_t*>(h.outputs[0].bytes.data());
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(hw[i], (i + 4) % 8) << "word " << i;
}

TEST(Functional, WmmaFragmentFaultsAndUnsupportedTypesAreNamed) {
  // a fragment read past its buffer: the lane, the address and the buffer it overruns
  expect_error([] { run_spec(R"({"source": "wmma_load.cu", "kernel": "wmma_load_loop", "grid": 1, "block": 32,
                                 "args": [{"buffer": "f16", "count": 200}, {"buffer": "f32", "count": 32},
                                          {"type": "i32", "value": 2}, {"type": "i32", "value": 64}]})"); },
               ErrorKind::KernelFault, {"wmma.load.a.sync", "thread (3,0,0)", "out of bounds", "arg0 (f16[200])"});
  expect_error([] { run_spec(R"({"source": "wmma_f64.ptx", "kernel": "wmma_f64", "grid": 1, "block": 32,
                                 "args": [{"buffer": "f64", "count": 64}]})"); },
               ErrorKind::Unsupported, {"wmma.load/store of .f64 fragments", "PTX line 12"});
}

TEST(Functional, FaultingStoreWritesNothing) {
  // Warp 0's store has lanes 0-15 in bounds and 16-31 out: the instruction faults before any
  // lane writes, so the buffer stays untouched.
  frontends::CompileOptions co;
  co.target = "sm_90a";
  auto mod = frontends::compile(kData + "/kernels/faults.cu", co);
  auto ast = isa::ptx::parse_module(mod.text, "faults.cu");
  auto prog = isa::ptx::decode_kernel(ast, "oob_write", mod.text, "faults.cu");
  sim::GlobalMemory mem;
  std::uint64_t out = mem.allocate(64 * 4, "out");
  std::vector<std::uint8_t> params(16, 0);
  std::memcpy(params.data(), &out, 8);
  int n = 48;
  std::memcpy(params.data() + 8, &n, 4);
  sim::LaunchDims dims;
  dims.block = {64, 1, 1};
  sim::PtxKernel k(prog, mem, dims, params, {});
  EXPECT_THROW(k.run_all(), Error);
  const std::uint8_t* data = mem.find(out, 1)->data();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(data[i], 0) << "byte " << i << " was written";
}

TEST(Functional, PredicateImmediatesAreZeroOrOneInEveryLane) {
  auto r = run_spec(R"({"source": "pred_imm.ptx", "kernel": "pred_imm", "grid": 1, "block": 32,
                        "args": [{"buffer": "u32", "count": 32}]})");
  ASSERT_EQ(r.outputs.size(), 1u);
  const auto* v = reinterpret_cast<const std::uint32_t*>(r.outputs[0].bytes.data());
  for (int t = 0; t < 32; ++t) EXPECT_EQ(v[t], t == 3 ? 2u + 4u + 8u : 2u + 8u) << "thread " << t;
}

TEST(Functional, DivergentPathsReconverge) {
  auto r = run_spec(R"({"source": "divergence.cu", "kernel": "diverge", "grid": 1, "block": 32,
                        "args": [{"buffer": "i32", "count": 32}]})");
  ASSERT_EQ(r.outputs.size(), 1u);
  const auto* v = reinterpret_cast<const std::int32_t*>(r.outputs[0].bytes.data());
  for (int t = 0; t < 32; ++t) {
    int want = 0;
    if (t & 1) want = (t & 2) ? 3 : 1;
    else for (int k = 0; k < t % 7; ++k) want += k;
    if (t == 5) EXPECT_EQ(v[t], 0);
    else EXPECT_EQ(v[t], want * 1000 + 31) << "thread " << t;
  }
}

TEST(LaunchChecks, ArgumentCountAndTypesAreCheckedAgainstTheKernel) {
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "oob_write", "grid": 1, "block": 32,
                                 "args": [{"buffer": "f32", "count": 64}]})"); },
               ErrorKind::LaunchSpec, {"`args`", "takes 2 parameters", "gives 1"});
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "oob_write", "grid": 1, "block": 32,
                                 "args": [{"buffer": "f32", "count": 64}, {"type": "f32", "value": 1}]})"); },
               ErrorKind::LaunchSpec, {"`args[1]`", "does not match", ".u32"});
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "oob_write", "grid": 1, "block": 32,
                                 "args": [{"buffer": "f32", "count": 64}, {"buffer": "i32", "count": 4}]})"); },
               ErrorKind::LaunchSpec, {"`args[1]`", "64-bit pointer"});
}

TEST(LaunchChecks, UnknownKernelListsTheKernels) {
  expect_error([] { run_spec(R"({"source": "faults.cu", "kernel": "nope", "grid": 1, "block": 32, "args": []})"); },
               ErrorKind::LaunchSpec, {"no kernel `nope`", "oob_write", "misaligned"});
}

TEST(LaunchChecks, CompileErrorsShowClangDiagnostics) {
  test::TempDir t;
  t.write("bad.cu", "__global__ void k(int* p) { p[0] = undefined_thing; }\n");
  auto spec = api::parse_launch_spec_text(R"({"source": "bad.cu", "kernel": "k", "grid": 1, "block": 1,
                                              "args": [{"buffer": "i32", "count": 1}]})", t.path(), "spec");
  expect_error([&] { api::run_launch(spec, device::load_builtin_device("h200"), {}); }, ErrorKind::Compile,
               {"bad.cu", "undefined_thing"});
}

}  // namespace
}  // namespace kernsim
