// Launch specs: the documented format parses; every malformed field gets an error naming it.
#include <cstring>

#include "api/launch_spec.h"
#include "base/float16.h"
#include "device/loader.h"
#include "test_util.h"

namespace kernsim::api {
namespace {

using test::expect_error;
using test::TempDir;

const char* kSaxpy = R"({"source": "kernels/saxpy.cu", "kernel": "saxpy",
  "grid": [4096,1,1], "block": [256,1,1], "dynamic_shared_bytes": 0,
  "args": [ {"type": "u64", "value": 1048576}, {"type": "f32", "value": 2.0},
            {"buffer": "f32", "count": 1048576, "init": "uniform"},
            {"buffer": "f32", "count": 1048576, "init": "zeros"} ],
  "id": "saxpy-1m", "family": "stream", "notes": "n", "flops": 2097152, "min_bytes": 12582912})";

LaunchSpec parse(const std::string& text, const std::filesystem::path& dir = "/base") {
  return parse_launch_spec_text(text, dir, "spec.json");
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  auto p = text.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return text.replace(p, from.size(), to);
}

TEST(LaunchSpec, DocumentedExampleParses) {
  LaunchSpec s = parse(kSaxpy);
  EXPECT_EQ(s.source, std::filesystem::path("/base/kernels/saxpy.cu"));
  EXPECT_EQ(s.kernel, "saxpy");
  EXPECT_EQ(s.grid[0], 4096);
  EXPECT_EQ(s.block[0], 256);
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_FALSE(s.args[0].is_buffer);
  EXPECT_EQ(s.args[0].scalar.type, ScalarType::U64);
  EXPECT_EQ(s.args[0].scalar.bits, 1048576u);
  float two;
  std::uint32_t bits = static_cast<std::uint32_t>(s.args[1].scalar.bits);
  std::memcpy(&two, &bits, 4);
  EXPECT_EQ(two, 2.0f);
  EXPECT_TRUE(s.args[2].is_buffer);
  EXPECT_EQ(s.args[2].buffer.count, 1048576);
  EXPECT_EQ(s.args[2].buffer.init.kind, Init::Kind::Uniform);
  EXPECT_EQ(s.family, "stream");
  EXPECT_EQ(*s.flops, 2097152);
  EXPECT_EQ(s.num_blocks(), 4096);
}

TEST(LaunchSpec, ShortDimsArePaddedWithOnes) {
  LaunchSpec s = parse(with(kSaxpy, "\"grid\": [4096,1,1]", "\"grid\": [64, 2]"));
  EXPECT_EQ(s.grid[1], 2);
  EXPECT_EQ(s.grid[2], 1);
}

TEST(LaunchSpec, SyntaxErrorGivesLineAndColumn) {
  expect_error([] { parse("{\n  \"source\": \"a.cu\",\n  \"kernel\": oops\n}"); }, ErrorKind::LaunchSpec,
               {"spec.json:3:", "JSON syntax error"});
}

TEST(LaunchSpec, UnknownKeysAreErrors) {
  expect_error([] { parse(with(kSaxpy, "\"notes\"", "\"nots\"")); }, ErrorKind::LaunchSpec, {"`nots`", "unknown key"});
  expect_error([] { parse(with(kSaxpy, "\"init\": \"zeros\"", "\"init\": \"zeros\", \"stride\": 2")); },
               ErrorKind::LaunchSpec, {"`args[3].stride`", "unknown key"});
}

TEST(LaunchSpec, MissingRequiredKeys) {
  expect_error([] { parse(with(kSaxpy, "\"kernel\": \"saxpy\",", "")); }, ErrorKind::LaunchSpec, {"`kernel`", "missing"});
  expect_error([] { parse(with(kSaxpy, "\"source\": \"kernels/saxpy.cu\",", "")); }, ErrorKind::LaunchSpec, {"`source`"});
}

TEST(LaunchSpec, ZeroOrNegativeSizesAreErrors) {
  expect_error([] { parse(with(kSaxpy, "[4096,1,1]", "[0,1,1]")); }, ErrorKind::LaunchSpec, {"`grid`", "positive"});
  expect_error([] { parse(with(kSaxpy, "[256,1,1]", "[256,-2,1]")); }, ErrorKind::LaunchSpec, {"`block`", "positive"});
  expect_error([] { parse(with(kSaxpy, "\"count\": 1048576, \"init\": \"zeros\"", "\"count\": 0")); }, ErrorKind::LaunchSpec,
               {"`args[3].count`", "positive"});
  expect_error([] { parse(with(kSaxpy, "\"dynamic_shared_bytes\": 0", "\"dynamic_shared_bytes\": -4")); },
               ErrorKind::LaunchSpec, {"`dynamic_shared_bytes`"});
  expect_error([] { parse(with(kSaxpy, "[4096,1,1]", "[]")); }, ErrorKind::LaunchSpec, {"`grid`"});
}

TEST(LaunchSpec, ScalarTypeAndRangeErrors) {
  expect_error([] { parse(with(kSaxpy, "\"type\": \"u64\"", "\"type\": \"u128\"")); }, ErrorKind::LaunchSpec,
               {"`args[0].type`", "u128"});
  expect_error([] { parse(with(kSaxpy, "{\"type\": \"u64\", \"value\": 1048576}", "{\"type\": \"i32\", \"value\": 3000000000}")); },
               ErrorKind::LaunchSpec, {"`args[0].value`", "i32"});
  expect_error([] { parse(with(kSaxpy, "{\"type\": \"u64\", \"value\": 1048576}", "{\"type\": \"u32\", \"value\": -1}")); },
               ErrorKind::LaunchSpec, {"`args[0].value`", "negative"});
  expect_error([] { parse(with(kSaxpy, "{\"type\": \"u64\", \"value\": 1048576}", "{\"type\": \"i64\", \"value\": 1.5}")); },
               ErrorKind::LaunchSpec, {"`args[0].value`", "integer"});
  expect_error([] { parse(with(kSaxpy, "{\"type\": \"u64\", \"value\": 1048576}", "{\"type\": \"f32\", \"value\": \"2\"}")); },
               ErrorKind::LaunchSpec, {"`args[0].value`", "number"});
  expect_error([] { parse(with(kSaxpy, "{\"type\": \"u64\", \"value\": 1048576}", "{\"type\": \"f32\"}")); },
               ErrorKind::LaunchSpec, {"`args[0].value`", "missing"});
}

TEST(LaunchSpec, BufferTypeAndInitErrors) {
  expect_error([] { parse(with(kSaxpy, "\"buffer\": \"f32\", \"count\": 1048576, \"init\": \"zeros\"", "\"buffer\": \"f8\", \"count\": 4")); },
               ErrorKind::LaunchSpec, {"`args[3].buffer`", "f8"});
  expect_error([] { parse(with(kSaxpy, "\"init\": \"zeros\"", "\"init\": \"gaussian\"")); }, ErrorKind::LaunchSpec,
               {"`args[3].init`", "gaussian"});
  expect_error([] { parse(with(kSaxpy, "\"init\": \"zeros\"", "\"init\": \"randint:5\"")); }, ErrorKind::LaunchSpec,
               {"`args[3].init`", "randint"});
  expect_error([] { parse(with(kSaxpy, "\"init\": \"zeros\"", "\"init\": \"randint:9:2\"")); }, ErrorKind::LaunchSpec,
               {"`args[3].init`", "greater"});
  expect_error([] { parse(with(kSaxpy, "\"init\": \"zeros\"", "\"init\": \"randint:a:b\"")); }, ErrorKind::LaunchSpec,
               {"`args[3].init`"});
  expect_error([] { parse(with(kSaxpy, "{\"type\": \"u64\", \"value\": 1048576}", "{\"value\": 3}")); },
               ErrorKind::LaunchSpec, {"`args[0]`", "type"});
}

TEST(LaunchSpec, FileInitErrorsNameTheFile) {
  TempDir t;
  t.write("short.bin", std::string(10, 'x'));
  t.write("exact.bin", std::string(16, 'x'));
  std::string spec = with(kSaxpy, "\"buffer\": \"f32\", \"count\": 1048576, \"init\": \"zeros\"", "\"buffer\": \"f32\", \"count\": 4, \"init\": \"file:INIT\"");
  expect_error([&] { parse(with(spec, "INIT", "missing.bin"), t.path()); }, ErrorKind::LaunchSpec,
               {"`args[3].init`", "missing.bin", "not found"});
  expect_error([&] { parse(with(spec, "INIT", "short.bin"), t.path()); }, ErrorKind::LaunchSpec,
               {"`args[3].init`", "short.bin", "too short", "10 bytes", "16"});
  LaunchSpec s = parse(with(spec, "INIT", "exact.bin"), t.path());
  auto bytes = make_initial_bytes(s, 3);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), std::string(16, 'x'));
}

TEST(LaunchSpec, InitialValuesFollowTheInitRule) {
  std::string spec = R"({"source": "a.cu", "kernel": "k", "grid": 1, "block": 1, "seed": 5, "args": [
      {"buffer": "i32", "count": 100, "init": "iota"},
      {"buffer": "f32", "count": 1000, "init": "uniform"},
      {"buffer": "i32", "count": 1000, "init": "randint:-3:4"},
      {"buffer": "f16", "count": 10, "init": "iota"},
      {"buffer": "u8", "count": 10}]})";
  LaunchSpec s = parse(spec);
  auto iota = make_initial_bytes(s, 0);
  for (int i = 0; i < 100; ++i) {
    std::int32_t v;
    std::memcpy(&v, iota.data() + 4 * i, 4);
    EXPECT_EQ(v, i);
  }
  auto uni = make_initial_bytes(s, 1);
  float mn = 2, mx = -2;
  for (int i = 0; i < 1000; ++i) {
    float v;
    std::memcpy(&v, uni.data() + 4 * i, 4);
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  EXPECT_GE(mn, -1.0f);
  EXPECT_LT(mx, 1.0f);
  EXPECT_LT(mn, -0.9f);  // really spread over the range
  EXPECT_GT(mx, 0.9f);
  EXPECT_EQ(uni, make_initial_bytes(s, 1)) << "deterministic";
  auto ri = make_initial_bytes(s, 2);
  bool saw_lo = false, saw_hi = false;
  for (int i = 0; i < 1000; ++i) {
    std::int32_t v;
    std::memcpy(&v, ri.data() + 4 * i, 4);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 4);
    saw_lo |= v == -3;
    saw_hi |= v == 4;
  }
  EXPECT_TRUE(saw_lo && saw_hi) << "bounds are inclusive";
  auto h = make_initial_bytes(s, 3);
  std::uint16_t h7;
  std::memcpy(&h7, h.data() + 14, 2);
  EXPECT_EQ(half_to_float(h7), 7.0f);
  EXPECT_EQ(make_initial_bytes(s, 4), std::vector<std::uint8_t>(10, 0));
  LaunchSpec other = parse(with(spec, "\"seed\": 5", "\"seed\": 6"));
  EXPECT_NE(make_initial_bytes(other, 1), uni) << "seed changes the data";
}

TEST(LaunchSpec, VersionIsChecked) {
  EXPECT_EQ(parse(with(kSaxpy, "{\"source\"", "{\"spec_version\": 1, \"source\"")).spec_version, 1);
  EXPECT_EQ(parse(with(kSaxpy, "{\"source\"", "{\"spec_version\": 2, \"source\"")).spec_version, 2) << "tensor maps came with 2";
  expect_error([] { parse(with(kSaxpy, "{\"source\"", "{\"spec_version\": 3, \"source\"")); }, ErrorKind::LaunchSpec,
               {"`spec_version`", "unsupported"});
}

TEST(LaunchSpec, DeviceLimitsAreEnforced) {
  auto h200 = device::load_builtin_device("h200");
  LaunchSpec ok = parse(kSaxpy);
  EXPECT_NO_THROW(validate_against_device(ok, h200));
  LaunchSpec big_block = parse(with(kSaxpy, "[256,1,1]", "[2048,1,1]"));
  expect_error([&] { validate_against_device(big_block, h200); }, ErrorKind::LaunchSpec, {"`block`", "2048", "1024", "h200"});
  LaunchSpec too_many = parse(with(kSaxpy, "[256,1,1]", "[64,32,1]"));
  expect_error([&] { validate_against_device(too_many, h200); }, ErrorKind::LaunchSpec, {"`block`", "2048 threads"});
  LaunchSpec grid_y = parse(with(kSaxpy, "[4096,1,1]", "[1,70000,1]"));
  expect_error([&] { validate_against_device(grid_y, h200); }, ErrorKind::LaunchSpec, {"`grid`", "grid.y", "65535"});
  LaunchSpec smem = parse(with(kSaxpy, "\"dynamic_shared_bytes\": 0", "\"dynamic_shared_bytes\": 300000"));
  expect_error([&] { validate_against_device(smem, h200); }, ErrorKind::LaunchSpec, {"`dynamic_shared_bytes`", "300000"});
  auto mi = device::load_builtin_device("mi300x");
  LaunchSpec lds = parse(with(kSaxpy, "\"dynamic_shared_bytes\": 0", "\"dynamic_shared_bytes\": 70000"));
  expect_error([&] { validate_against_device(lds, mi); }, ErrorKind::LaunchSpec, {"65536", "mi300x"});
}

}  // namespace
}  // namespace kernsim::api
