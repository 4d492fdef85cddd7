// Launch spec version 2 arguments (docs/launch_spec.md, "Structs passed by value"): structs laid
// out with C alignment, raw bytes checked against the PTX parameter, a buffer given for a scalar
// parameter refused by name, and kernel names with template arguments resolved as Python does.
// Expected bytes are written out here from the C layout rules, never taken from kernsim.
#include <cstring>

#include "api/compile.h"
#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "sim/functional/tensor_map.h"
#include "test_util.h"

namespace kernsim::api {
namespace {

using test::expect_error;
using test::TempDir;

LaunchSpec parse(const std::string& args, int version = 2, const std::filesystem::path& dir = "/base",
                 const std::string& kernel = "k") {
  return parse_launch_spec_text(R"({"spec_version": )" + std::to_string(version) +
                                    R"(, "source": "k.cu", "kernel": ")" + kernel +
                                    R"(", "grid": [1], "block": [64], "args": [)" + args + "]}",
                                dir, "spec.json");
}

TEST(LaunchArgs, StructMembersSitAtTheirCAlignment) {
  // struct { uint8_t a; float b; __half2 c; int64_t d; }: a@0, b@4, c@8 (align 4), d@16; 24 bytes, align 8
  const LaunchSpec s = parse(R"({"struct": [{"type": "u8", "value": 7}, {"type": "f32", "value": 2.0},
                                            {"type": "f16x2", "value": [1.0, 2.0]}, {"type": "i64", "value": -1}]})");
  ASSERT_TRUE(s.args[0].is_aggregate);
  const AggregateArg& g = s.args[0].aggregate;
  const std::vector<std::uint8_t> want = {7,    0,    0,    0,    0x00, 0x00, 0x00, 0x40,  // 2.0f = 0x40000000
                                          0x00, 0x3c, 0x00, 0x40,  // f16 1.0 = 0x3c00, 2.0 = 0x4000
                                          0,    0,    0,    0,     // padding to 16
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(g.bytes, want);
  EXPECT_EQ(g.align, 8u);
  EXPECT_EQ(g.desc, "struct {u8, f32, f16x2, i64}");
}

TEST(LaunchArgs, NestedStructsAndArraysPadToTheirAlignment) {
  // struct { uint8_t a; struct { uint16_t v[3]; } b; }: b@2 (align 2), 6 bytes; the whole 8 bytes
  const LaunchSpec s =
      parse(R"({"struct": [{"type": "u8", "value": 1}, {"struct": [{"type": "u16", "value": [2, 3, 772]}]}]})");
  const std::vector<std::uint8_t> want = {1, 0, 2, 0, 3, 0, 4, 3};
  EXPECT_EQ(s.args[0].aggregate.bytes, want);
  EXPECT_EQ(s.args[0].aggregate.align, 2u);
  // struct { double x; char c; }: 16 bytes, the tail padded to the alignment
  EXPECT_EQ(
      parse(R"({"struct": [{"type": "f64", "value": 0}, {"type": "i8", "value": -2}]})").args[0].aggregate.bytes.size(),
      16u);
}

TEST(LaunchArgs, RawBytesAreHexInOrder) {
  const LaunchSpec s = parse(R"({"bytes": "0aFF10", "align": 1})");
  EXPECT_EQ(s.args[0].aggregate.bytes, (std::vector<std::uint8_t>{0x0a, 0xff, 0x10}));
  EXPECT_TRUE(s.args[0].aggregate.align_given);
  EXPECT_FALSE(parse(R"({"bytes": "00"})").args[0].aggregate.align_given);
}

TEST(LaunchArgs, MalformedStructsNameTheField) {
  expect_error([] { parse(R"({"struct": [{"type": "i32", "value": 1}]})", 1); }, ErrorKind::LaunchSpec,
               {"args[0]", "spec_version\": 2"});
  expect_error([] { parse(R"({"struct": [{"type": "i32", "value": 1}, {"type": "u8", "value": 256}]})"); },
               ErrorKind::LaunchSpec, {"args[0].struct[1].value", "out of range for u8"});
  expect_error([] { parse(R"({"struct": [{"type": "f16x2", "value": [1.0]}]})"); }, ErrorKind::LaunchSpec,
               {"args[0].struct[0].value", "f16x2 takes 2 numbers"});
  expect_error([] { parse(R"({"struct": [{"type": "f128", "value": 1}]})"); }, ErrorKind::LaunchSpec,
               {"args[0].struct[0].type", "f128"});
  expect_error([] { parse(R"({"struct": []})"); }, ErrorKind::LaunchSpec, {"args[0].struct", "non-empty"});
  expect_error([] { parse(R"({"bytes": "0g"})"); }, ErrorKind::LaunchSpec, {"args[0].bytes", "hex digit"});
  expect_error([] { parse(R"({"bytes": "abc"})"); }, ErrorKind::LaunchSpec, {"args[0].bytes", "even"});
  expect_error([] { parse(R"({"bytes": "00", "align": 3})"); }, ErrorKind::LaunchSpec,
               {"args[0].align", "power of two"});
}

// ---------------------------------------------------------------------------------------------
// launches: the layout reaches the kernel, the parameter's size and alignment are checked

const char* kStructKernel = R"(#include <cuda_fp16.h>
struct Params { __half2 h; int n; };
// out[i] = low(h) * i + high(h) for i < n
__global__ void scale_h(float* out, Params p) {
  int i = threadIdx.x;
  if (i < p.n) out[i] = __low2float(p.h) * i + __high2float(p.h);
}
struct Wide { double d; int n; };
__global__ void wide(float* out, Wide w) { if (threadIdx.x < w.n) out[threadIdx.x] = (float)w.d; }
extern "C" __global__ void by_size(float* out, unsigned long n) { if (threadIdx.x < n) out[threadIdx.x] = 1.0f; }
template <class T> __global__ void fill(T* out, T v) { out[threadIdx.x] = v; }
template __global__ void fill<float>(float*, float);
template <class T> __global__ void twice(T* out) { out[threadIdx.x] *= 2; }
template __global__ void twice<float>(float*);
template __global__ void twice<int>(int*);
)";

std::vector<float> run_f32(const TempDir& d, const std::string& kernel, const std::string& args, const char* arch) {
  RunOptions o;
  o.full = true;
  o.keep_outputs = true;
  const RunResult r = run_launch(parse(args, 2, d.path(), kernel), device::load_builtin_device(arch), o);
  std::vector<float> v(r.outputs.at(0).bytes.size() / 4);
  std::memcpy(v.data(), r.outputs.at(0).bytes.data(), v.size() * 4);
  return v;
}

TEST(LaunchArgs, StructByValueReachesTheKernelOnH200AndMi300x) {
  TempDir d;
  d.write("k.cu", kStructKernel);
  const std::string args =
      R"({"buffer": "f32", "count": 64}, {"struct": [{"type": "f16x2", "value": [2.0, 0.5]}, {"type": "i32", "value": 10}]})";
  for (const char* arch : {"h200", "mi300x"}) {
    const std::vector<float> out = run_f32(d, "scale_h", args, arch);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], i < 10 ? 2.0f * i + 0.5f : 0.0f) << arch << " " << i;
  }
  // the same bytes written out: __half2 {2.0, 0.5} = 0x4000, 0x3800; n = 10
  const std::vector<float> raw =
      run_f32(d, "scale_h", R"({"buffer": "f32", "count": 64}, {"bytes": "004000380a000000", "align": 4})", "h200");
  EXPECT_EQ(raw[3], 6.5f);
}

TEST(LaunchArgs, StructOfTheWrongSizeOrAlignmentNamesTheParameter) {
  TempDir d;
  d.write("k.cu", kStructKernel);
  const auto h200 = device::load_builtin_device("h200");
  expect_error(
      [&] {
        run_launch(parse(R"({"buffer": "f32", "count": 64}, {"struct": [{"type": "f16x2", "value": [2.0, 0.5]}]})", 2,
                         d.path(), "scale_h"),
                   h200, {});
      },
      ErrorKind::LaunchSpec, {"args[1]", "4 bytes, the parameter 8", ".align 4 .b8 [8]"});
  // struct { double d; int n; } is 16 bytes aligned to 8: 16 bytes aligned to 4 are refused
  expect_error(
      [&] {
        run_launch(parse(R"({"buffer": "f32", "count": 64}, {"bytes": "00000000000000000000000000000000", "align": 4})",
                         2, d.path(), "wide"),
                   h200, {});
      },
      ErrorKind::LaunchSpec, {"args[1]", "align to 4 bytes, the parameter to 8"});
  expect_error(
      [&] {
        run_launch(parse(R"({"buffer": "f32", "count": 64}, {"type": "u64", "value": 0})", 2, d.path(), "scale_h"),
                   h200, {});
      },
      ErrorKind::LaunchSpec, {"args[1]", "struct passed by value"});
}

TEST(LaunchArgs, BufferForAScalarParameterIsAnErrorNamingIt) {
  TempDir d;
  d.write("k.cu", kStructKernel);
  const std::string args = R"({"buffer": "f32", "count": 64}, {"buffer": "f32", "count": 64})";
  expect_error([&] { run_launch(parse(args, 2, d.path(), "by_size"), device::load_builtin_device("h200"), {}); },
               ErrorKind::LaunchSpec, {"args[1]", "a buffer was given for a scalar parameter", "u64"});
  expect_error([&] { run_launch(parse(args, 2, d.path(), "by_size"), device::load_builtin_device("mi300x"), {}); },
               ErrorKind::LaunchSpec, {"args[1]", "a buffer was given for a value parameter"});
  // the integer itself is fine
  EXPECT_EQ(run_f32(d, "by_size", R"({"buffer": "f32", "count": 64}, {"type": "u64", "value": 3})", "h200")[2], 1.0f);
}

TEST(LaunchArgs, TemplateKernelNamesResolveAsInPython) {
  TempDir d;
  d.write("k.cu", kStructKernel);
  const std::string fill = R"({"buffer": "f32", "count": 64}, {"type": "f32", "value": 4.5})";
  EXPECT_EQ(run_f32(d, "fill<float>", fill, "h200")[5], 4.5f) << "short name with template arguments";
  EXPECT_EQ(run_f32(d, "fill", fill, "h200")[5], 4.5f) << "the one instance of fill";
  EXPECT_EQ(run_f32(d, "void fill<float>(float*, float)", fill, "h200")[5], 4.5f) << "full signature";
  EXPECT_EQ(run_f32(d, "twice<float>", R"({"buffer": "f32", "count": 64, "init": "iota"})", "h200")[5], 10.0f);
  expect_error(
      [&] {
        run_launch(parse(R"({"buffer": "f32", "count": 64})", 2, d.path(), "twice"),
                   device::load_builtin_device("h200"), {});
      },
      ErrorKind::LaunchSpec, {"`twice` matches 2 kernels", "twice<int>"});
}

TEST(LaunchArgs, StarterSpecRunsAndTypesArgumentsFromTheSignature) {
  TempDir d;
  d.write("k.cu", kStructKernel);
  const auto h200 = device::load_builtin_device("h200");
  const std::string text = starter_spec(d.path() / "k.cu", h200, "fill<float>", {2, 1, 1}, {64, 1, 1});
  EXPECT_THAT(text, ::testing::HasSubstr(R"x({"buffer":"f32","count":1024,"init":"uniform","name":"arg0 (float*)"})x"));
  EXPECT_THAT(text, ::testing::HasSubstr(R"x({"type":"f32","value":1.0,"name":"arg1 (float)"})x"));
  EXPECT_THAT(text, ::testing::HasSubstr(R"("grid": [2,1,1])"));
  const LaunchSpec s = parse_launch_spec_text(text, d.path(), "starter");
  EXPECT_GT(run_launch(s, h200, {}).time_us, 0);
  // a struct is zero bytes of the parameter's size and alignment; an unsigned long a u64
  const std::string st = starter_spec(d.path() / "k.cu", h200, "wide", {1, 1, 1}, {64, 1, 1});
  EXPECT_THAT(st,
              ::testing::HasSubstr(R"x({"bytes":"00000000000000000000000000000000","align":8,"name":"arg1 (Wide)"})x"));
  EXPECT_THAT(starter_spec(d.path() / "k.cu", h200, "by_size", {1, 1, 1}, {64, 1, 1}),
              ::testing::HasSubstr(R"({"type":"u64","value":0)"));
  // on AMD an 8-byte struct is an 8-byte by-value argument in the metadata: the signature says it is a struct
  EXPECT_THAT(starter_spec(d.path() / "k.cu", device::load_builtin_device("mi300x"), "scale_h", {1, 1, 1}, {64, 1, 1}),
              ::testing::HasSubstr(R"x({"bytes":"0000000000000000","name":"arg1 (Params)"})x"));
}

// ---------------------------------------------------------------------------------------------
// structs that hold pointers and tensor maps (ThunderKittens' `gl`, CUTLASS's argument structs),
// and spec-level buffers that no parameter takes

LaunchSpec parse_with_buffers(const std::string& args, const std::string& buffers,
                              const std::filesystem::path& dir = "/base", const std::string& kernel = "k",
                              const std::string& source = "k.cu") {
  return parse_launch_spec_text(R"({"spec_version": 2, "source": ")" + source + R"(", "kernel": ")" + kernel +
                                    R"(", "grid": [1], "block": [64], "buffers": {)" + buffers + R"(}, "args": [)" +
                                    args + "]}",
                                dir, "spec.json");
}

TEST(LaunchArgs, PointerAndTensorMapMembersAreHolesAtTheirCAlignment) {
  // struct { float* p; char c; struct { CUtensorMap m; char e; } d; int n; }: p@0, c@8, d@128
  // (CUtensorMap aligns to 128 in CUDA 13: m@128, e@256, d is 256 bytes), n@384; 512 bytes, align 128
  const LaunchSpec s = parse_with_buffers(
      R"({"struct": [{"pointer": "A", "offset_bytes": 16}, {"type": "i8", "value": 1},
                     {"struct": [{"tensor_map": {"buffer": "A", "dtype": "f32", "dims": [64], "box": [16]}}, {"bytes": "00"}]},
                     {"type": "i32", "value": 5}]})",
      R"("A": {"buffer": "f32", "count": 64})");
  ASSERT_EQ(s.args.size(), 2u);
  EXPECT_EQ(s.num_params(), 1u);
  EXPECT_EQ(s.args[1].extra_name, "A");
  EXPECT_EQ(s.arg_label(1), "buffers.A");
  const AggregateArg& g = s.args[0].aggregate;
  EXPECT_EQ(g.bytes.size(), 512u);
  EXPECT_EQ(g.align, 128u);
  EXPECT_EQ(g.bytes[8], 1);
  EXPECT_EQ(g.bytes[384], 5);
  ASSERT_EQ(g.holes.size(), 2u);
  EXPECT_EQ(g.holes[0].offset, 0u);
  EXPECT_EQ(g.holes[0].target, 1u);
  EXPECT_EQ(g.holes[0].offset_bytes, 16);
  EXPECT_TRUE(g.holes[1].is_tensor_map);
  EXPECT_EQ(g.holes[1].offset, 128u);
  EXPECT_EQ(g.holes[1].tensor_map.buffer, 1u);
  // a CUDA 12 map aligns to 64
  EXPECT_EQ(
      parse_with_buffers(
          R"({"struct": [{"type": "i8", "value": 1}, {"tensor_map": {"buffer": "A", "dtype": "f32", "dims": [64], "box": [16]}, "align": 64}]})",
          R"("A": {"buffer": "f32", "count": 64})")
          .args[0]
          .aggregate.holes[0]
          .offset,
      64u);
}

TEST(LaunchArgs, BadBufferReferencesNameTheField) {
  const std::string a = R"("A": {"buffer": "f32", "count": 64})";
  expect_error([&] { parse_with_buffers(R"({"struct": [{"pointer": "B"}]})", a); }, ErrorKind::LaunchSpec,
               {"args[0].struct[0].pointer", "no buffer named `B`"});
  expect_error([&] { parse_with_buffers(R"({"struct": [{"pointer": "A", "offset_bytes": 257}]})", a); },
               ErrorKind::LaunchSpec, {"args[0].struct[0].offset_bytes", "buffers.A"});
  expect_error([&] { parse_with_buffers(R"({"type": "i32", "value": 1}, {"struct": [{"pointer": 0}]})", a); },
               ErrorKind::LaunchSpec, {"args[1].struct[0].pointer", "args[0] is not a buffer"});
  expect_error(
      [&] {
        parse_with_buffers(
            R"({"struct": [{"tensor_map": {"buffer": "A", "dtype": "f32", "dims": [64], "box": [16]}, "align": 32}]})",
            a);
      },
      ErrorKind::LaunchSpec, {"args[0].struct[0].align", "64 (CUDA 12) or 128"});
  expect_error(
      [&] { parse_with_buffers(R"({"struct": [{"pointer": "A"}]})", R"("arg1": {"buffer": "f32", "count": 4})"); },
      ErrorKind::LaunchSpec, {"buffers.arg1", "dumps"});
  expect_error([&] { parse_with_buffers(R"({"struct": [{"pointer": "A"}]})", R"("A": {"type": "f32", "value": 4})"); },
               ErrorKind::LaunchSpec, {"buffers.A", "must be a buffer"});
}

const char* kHolesKernel = R"(struct View { const float* in; int n; float* out; };
// out[i] = 2 in[i] for i < n, through pointers the struct holds
__global__ void twice_view(View v) { int i = threadIdx.x; if (i < v.n) v.out[i] = 2.0f * v.in[i]; }
)";
const char* kMapKernel = R"(#include <cuda.h>
struct WithMap { float* out; CUtensorMap map; };
// copies the map's 128 bytes out, as the kernel received them
__global__ void map_bytes(const __grid_constant__ WithMap w) {
  const unsigned* m = reinterpret_cast<const unsigned*>(&w.map);
  if (threadIdx.x < 32) w.out[threadIdx.x] = __uint_as_float(m[threadIdx.x]);
}
)";

TEST(LaunchArgs, PointersInAStructReachSpecLevelBuffersOnH200AndMi300x) {
  TempDir d;
  d.write("k.cu", kHolesKernel);
  for (const char* arch : {"h200", "mi300x"}) {
    RunOptions o;
    o.full = true;
    o.keep_outputs = true;
    const LaunchSpec s = parse_with_buffers(
        R"({"struct": [{"pointer": "in", "offset_bytes": 8}, {"type": "i32", "value": 40}, {"pointer": "out"}]})",
        R"("in": {"buffer": "f32", "count": 64, "init": "iota"}, "out": {"buffer": "f32", "count": 64})", d.path(),
        "twice_view");
    const RunResult r = run_launch(s, device::load_builtin_device(arch), o);
    ASSERT_EQ(r.outputs.size(), 2u) << arch;  // in (args index 1) and out (2), in name order
    EXPECT_EQ(r.outputs[1].arg_index, 2u);
    std::vector<float> out(64);
    std::memcpy(out.data(), r.outputs[1].bytes.data(), 256);
    // in = 0, 1, 2, ...; the pointer starts 8 bytes (two floats) in
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], i < 40 ? 2.0f * (i + 2) : 0.0f) << arch << " " << i;
  }
}

TEST(LaunchArgs, TensorMapInAStructIsTheEncodedMapOfItsBuffer) {
  TempDir d;
  d.write("m.cu", kMapKernel);
  RunOptions o;
  o.full = true;
  o.keep_outputs = true;
  const LaunchSpec s = parse_with_buffers(
      R"({"struct": [{"pointer": "out"}, {"tensor_map": {"buffer": "t", "dtype": "bf16", "dims": [64, 32, 2], "strides_bytes": [256, 128],
                                                        "box": [64, 16, 1], "swizzle": "128B"}}]})",
      R"("out": {"buffer": "f32", "count": 32}, "t": {"buffer": "bf16", "count": 8192})", d.path(), "map_bytes",
      "m.cu");
  const RunResult r = run_launch(s, device::load_builtin_device("h200"), o);
  // the strides are not ordered (ThunderKittens' swizzled maps): 128 < 256 is accepted
  const auto m = sim::decode_tensor_map(r.outputs.at(0).bytes.data());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->rank, 3);
  EXPECT_EQ(m->dims[1], 32u);
  EXPECT_EQ(m->strides[2], 128u);
  EXPECT_EQ(m->box[1], 16u);
  EXPECT_EQ(m->swizzle, sim::TmapSwizzle::B128);
  EXPECT_NE(m->address, 0u);
  // on AMD a tensor map is refused by name (a kernel the port compiles: the map never reaches it)
  d.write("k.cu", kHolesKernel);
  const LaunchSpec amd =
      parse_with_buffers(R"({"struct": [{"tensor_map": {"buffer": "t", "dtype": "f32", "dims": [64], "box": [16]}}]})",
                         R"("t": {"buffer": "f32", "count": 64})", d.path(), "twice_view");
  expect_error([&] { run_launch(amd, device::load_builtin_device("mi300x"), o); }, ErrorKind::LaunchSpec,
               {"args[0].struct[0].tensor_map", "NVIDIA sm_90+"});
}

}  // namespace
}  // namespace kernsim::api
