// The embedding API (api/embed.h) and host-data buffers: what the Python package relies on.
#include <cstring>

#include "api/embed.h"
#include "api/launch_spec.h"
#include "base/files.h"
#include "test_util.h"

namespace kernsim::api {
namespace {

using test::expect_error;
using test::TempDir;

// A kernel written as PTX text by hand, so these tests do not depend on clang's output:
// out[i] = in[i] * 2 for i < n, one thread per element.
const char* kDoublePtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry twice(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, %f1;
  st.global.f32 [%rd5], %f2;
DONE:
  ret;
}
.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [flag];
LOOP:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra LOOP;
  ret;
}
// Counts while it waits: its registers never repeat (within 2^32 iterations), so no endless-loop
// check can tell; only a limit stops it.
.visible .entry count_forever(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r2, 0;
COUNT:
  ld.volatile.global.u32 %r1, [%rd1];
  add.u32 %r2, %r2, 1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra COUNT;
  ret;
}
)";

Arg host_buffer(const std::vector<float>& v) {
  Arg a;
  a.is_buffer = true;
  a.buffer.type = ElemType::F32;
  a.buffer.count = static_cast<std::int64_t>(v.size());
  a.buffer.init.kind = Init::Kind::Host;
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(v.size() * 4);
  std::memcpy(bytes->data(), v.data(), bytes->size());
  a.buffer.init.host = bytes;
  return a;
}

Arg u32(std::uint32_t x) {
  Arg a;
  a.scalar.type = ScalarType::U32;
  a.scalar.bits = x;
  return a;
}

LaunchSpec twice_spec(const std::filesystem::path& ptx, std::uint32_t n, std::uint32_t count_in) {
  LaunchSpec s;
  s.source = ptx;
  s.kernel = "twice";
  s.grid = {static_cast<std::int64_t>((n + 63) / 64), 1, 1};
  s.block = {64, 1, 1};
  std::vector<float> in(count_in), out(count_in, -7.0f);
  for (std::uint32_t i = 0; i < count_in; ++i) in[i] = 0.5f * static_cast<float>(i) - 3.0f;
  s.args = {host_buffer(in), host_buffer(out), u32(n)};
  return s;
}

TEST(Embed, HostInitCopiesTheGivenBytes) {
  LaunchSpec s;
  s.args = {host_buffer({1.5f, -2.0f, 3.25f})};
  std::vector<std::uint8_t> b = make_initial_bytes(s, 0);
  ASSERT_EQ(b.size(), 12u);
  float f[3];
  std::memcpy(f, b.data(), 12);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[2], 3.25f);
}

TEST(Embed, HostInitWithTheWrongSizeNamesTheArgument) {
  LaunchSpec s;
  s.args = {host_buffer({1.0f, 2.0f})};
  s.args[0].buffer.count = 3;
  expect_error([&] { make_initial_bytes(s, 0); }, ErrorKind::LaunchSpec, {"args[0]", "8 bytes", "holds 12"});
}

TEST(Embed, SourceTextIsStoredByContent) {
  TempDir cache;
  setenv("KERNSIM_CACHE_DIR", cache.path().c_str(), 1);
  auto a = source_from_text("// a\n", ".cu");
  auto b = source_from_text("// a\n", ".cu");
  auto c = source_from_text("// b\n", ".cu");
  unsetenv("KERNSIM_CACHE_DIR");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.extension(), ".cu");
  EXPECT_EQ(read_file(a), "// a\n");
  EXPECT_EQ(read_file(c), "// b\n");
  expect_error([] { source_from_text("x", "cu"); }, ErrorKind::Usage, {"dot"});
}

TEST(Embed, DescribeModuleListsKernelsAndParameters) {
  TempDir dir;
  auto ptx = dir.write("k.ptx", kDoublePtx);
  ModuleDesc m = describe_module(ptx, "sm_90a");
  EXPECT_EQ(m.isa, "ptx");
  ASSERT_EQ(m.kernels.size(), 3u);  // twice, spin, count_forever
  const KernelDesc& k = m.kernels[0].name == "twice" ? m.kernels[0] : m.kernels[1];
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_TRUE(k.params[0].is_pointer);
  EXPECT_EQ(k.params[0].bytes, 8);
  EXPECT_EQ(k.params[2].type, "u32");
  EXPECT_EQ(k.params[2].bytes, 4);
  EXPECT_FALSE(k.params[2].is_pointer);
  EXPECT_GT(k.resources.registers, 0);
}

TEST(Embed, RunJobsReturnsOutputsAndPerJobErrors) {
  TempDir dir;
  auto ptx = dir.write("k.ptx", kDoublePtx);
  std::vector<Job> jobs(3);
  jobs[0].spec = twice_spec(ptx, 100, 100);
  jobs[0].arch = "h200";
  jobs[0].options.full = true;
  jobs[0].options.keep_outputs = true;
  jobs[1] = jobs[0];
  jobs[1].spec = twice_spec(ptx, 100, 90);  // n larger than the buffers: out of bounds
  jobs[2] = jobs[0];
  jobs[2].arch = "no_such_part";
  auto r = run_jobs(jobs, 2);
  ASSERT_TRUE(r[0].ok) << r[0].error;
  ASSERT_EQ(r[0].result.outputs.size(), 2u);
  const auto& out = r[0].result.outputs[1];
  EXPECT_EQ(out.arg_index, 1u);
  std::vector<float> got(100);
  std::memcpy(got.data(), out.bytes.data(), 400);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], 2.0f * (0.5f * static_cast<float>(i) - 3.0f)) << i;
  EXPECT_GT(r[0].result.time_us, 0);
  EXPECT_FALSE(r[1].ok);
  EXPECT_EQ(r[1].error_kind, ErrorKind::KernelFault);
  EXPECT_FALSE(r[2].ok);
  EXPECT_THAT(r[2].error, ::testing::HasSubstr("no_such_part"));
}

TEST(Embed, RunJobsResultsDoNotDependOnWorkers) {
  TempDir dir;
  auto ptx = dir.write("k.ptx", kDoublePtx);
  std::vector<Job> jobs;
  for (std::uint32_t n : {1000u, 5000u, 64u, 20000u}) {
    Job j;
    j.spec = twice_spec(ptx, n, n);
    j.arch = "h200";
    jobs.push_back(j);
  }
  auto one = run_jobs(jobs, 1);
  auto two = run_jobs(jobs, 2);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(one[i].ok && two[i].ok);
    EXPECT_EQ(one[i].result.time_us, two[i].result.time_us);
    EXPECT_EQ(one[i].result.cycles, two[i].result.cycles);
  }
  EXPECT_LT(one[2].result.cycles, one[3].result.cycles);  // more work, more cycles
}

TEST(Embed, WallTimeLimitStopsAnEndlessKernel) {
  TempDir dir;
  auto ptx = dir.write("k.ptx", kDoublePtx);
  Job j;
  j.spec.source = ptx;
  j.spec.kernel = "count_forever";
  j.spec.args = {host_buffer({0.0f})};
  j.arch = "h200";
  j.options.full = true;
  j.options.max_instructions = 1ull << 62;
  j.options.wall_time_limit_s = 0.3;
  auto r = run_jobs({j}, 1);
  ASSERT_FALSE(r[0].ok);
  EXPECT_EQ(r[0].error_kind, ErrorKind::KernelFault);
  EXPECT_THAT(r[0].error, ::testing::HasSubstr("wall-time limit"));
  EXPECT_LT(r[0].wall_s, 5.0);
  // a spin whose state repeats is stopped sooner, as an endless loop
  j.spec.kernel = "spin";
  auto e = run_jobs({j}, 1);
  ASSERT_FALSE(e[0].ok);
  EXPECT_EQ(e[0].error_kind, ErrorKind::KernelFault);
  EXPECT_THAT(e[0].error, ::testing::HasSubstr("endless loop"));
}

}  // namespace
}  // namespace kernsim::api
