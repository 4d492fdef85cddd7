// The report's source-line view (PTX `.file`/`.loc` -> `by_line`), the NaN/Inf check of output
// buffers, and the one-sentence bottleneck explanation: parser and helpers on small inputs, and
// whole launches of tests/data/kernels/report.cu whose hot line, bad elements and bottleneck are
// known from the source.
#include "cost_model/report.h"

#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "api/launch_spec.h"
#include "api/run.h"
#include "api/views.h"
#include "device/loader.h"
#include "isa/ptx/parser.h"
#include "test_util.h"

namespace kernsim {
namespace {

using nlohmann::json;
const std::string kData = KERNSIM_TEST_DATA;

json run(const std::string& kernel, const std::string& grid, const std::string& block, const std::string& args,
         bool full, std::string* text = nullptr, const std::string& source = "report.cu") {
  const std::string spec_json = R"({"source": ")" + source + R"(", "kernel": ")" + kernel + R"(", "grid": )" + grid +
                                R"(, "block": )" + block + R"(, "args": )" + args + "}";
  auto spec = api::parse_launch_spec_text(spec_json, kData + "/kernels", "report test");
  api::RunOptions o;
  o.full = full;
  const auto r = api::run_launch(spec, device::load_builtin_device("h200"), o);
  if (text) *text = r.report_text;
  return json::parse(r.report_json);
}

constexpr const char* kPtxWithLines = R"(.version 8.0
.target sm_90a
.address_size 64
.file 1 "/src/k.cu"
.file 2 "/src/inc.h", 1700000000, 120
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 1;
  .loc 1 7 3
  add.u32 %r1, %r1, 2;
  .loc 2 12 5, function_name $L__info_string0, inlined_at 1 8 1
  add.u32 %r1, %r1, 3;
  ret;
}
.visible .entry k2(.param .u64 out)
{
  ret;
}
)";

TEST(LineInfo, FileAndLocPlaceEachInstructionAtTheLastLocOfItsFunction) {
  const auto m = isa::ptx::parse_module(kPtxWithLines, "k.ptx");
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files.at(1), "/src/k.cu");
  EXPECT_EQ(m.files.at(2), "/src/inc.h");
  std::vector<std::pair<int, int>> pos;
  for (const auto& st : m.functions[0].body)
    if (st.kind == isa::ptx::ast::Statement::Kind::Instr) pos.push_back({st.instr.src_file, st.instr.src_line});
  ASSERT_EQ(pos.size(), 4u);
  EXPECT_EQ(pos[0], std::make_pair(0, 0));  // before any .loc
  EXPECT_EQ(pos[1], std::make_pair(1, 7));
  EXPECT_EQ(pos[2], std::make_pair(2, 12));  // the inlined position, not inlined_at's
  EXPECT_EQ(pos[3], std::make_pair(2, 12));
  // a new function starts without a position
  EXPECT_EQ(m.functions[1].body.back().instr.src_line, 0);
  const auto sources = api::ptx_line_sources(m);
  EXPECT_EQ(sources.size(), 3u);
  EXPECT_EQ(sources.at(11).first, "/src/k.cu");
  EXPECT_EQ(sources.at(11).second, 7u);
}

// AMDGCN: the code object's DWARF line table (HIP compiled with -gline-tables-only) gives each
// instruction its source line; by_line has the PTX path's shape and the loop body comes first.
TEST(LineInfo, AHipKernelsHotLoopBodyIsTheFirstLineOfItsCodeObjectsLineTable) {
  for (const char* source : {"report.hip", "report.cu"}) {  // a .cu on an AMD part is ported: the same path
    const std::string spec_json =
        R"({"source": ")" + std::string(source) + R"(", "kernel": "hot_line", "grid": 1, "block": 64,
        "args": [{"buffer": "f32", "count": 64, "init": "uniform"}, {"buffer": "f32", "count": 64}, {"type": "i32", "value": 200}]})";
    const auto spec = api::parse_launch_spec_text(spec_json, kData + "/kernels", "report test");
    api::RunOptions o;
    o.full = true;
    const auto r = api::run_launch(spec, device::load_builtin_device("mi300x"), o);
    const json j = json::parse(r.report_json);
    ASSERT_TRUE(j["by_line"].is_array()) << source;
    ASSERT_GE(j["by_line"].size(), 2u) << source;
    const json& top = j["by_line"][0];
    EXPECT_THAT(top["file"].get<std::string>(), testing::EndsWith(std::string("tests/data/kernels/") + source));
    EXPECT_EQ(top["line"], 9) << source;                      // the line marked HOT in both files
    EXPECT_GE(top["issued"].get<double>(), 200.0) << source;  // one wave, 200 iterations
    for (const char* key : {"pcs", "issued", "threads", "stall_cycles", "stall_cycles_total", "cycles"})
      EXPECT_TRUE(top.contains(key)) << source << " " << key;
    double by_line = 0, by_pc = 0;
    for (const auto& row : j["by_line"]) by_line += row["issued"].get<double>();
    for (const auto& row : j["by_pc"]) by_pc += row["issued"].get<double>();
    EXPECT_LE(by_line, by_pc) << source;
    EXPECT_GT(by_line, 0.9 * by_pc) << source;
    EXPECT_THAT(r.report_text, testing::HasSubstr(std::string(source) + ":9"));
  }
}

TEST(LineInfo, ACudaKernelsHotLoopBodyIsTheFirstLineWithItsFileAndText) {
  std::string text;
  const json j =
      run("hot_line", "1", "32", R"([{"buffer": "f32", "count": 32, "init": "uniform"}, {"buffer": "f32", "count": 32},
                     {"type": "i32", "value": 200}])",
          true, &text);
  ASSERT_TRUE(j["by_line"].is_array());
  ASSERT_GE(j["by_line"].size(), 2u);
  const json& top = j["by_line"][0];
  EXPECT_THAT(top["file"].get<std::string>(), testing::EndsWith("tests/data/kernels/report.cu"));
  EXPECT_EQ(top["line"], 9);  // the line marked HOT
  // the loop runs 200 times: the body issues far more than any line outside the loop
  EXPECT_GE(top["issued"].get<double>(), 200.0);
  // (lines of the kernel's file outside the loop run once per warp; an intrinsic's header line
  // inside the loop, such as __sinf's, may come close to the body's count)
  for (const auto& r : j["by_line"])
    if (r["file"] == top["file"] && r["line"] != 9 && r["line"] != 8)
      EXPECT_LT(r["issued"].get<double>(), 20.0) << r.dump();
  // the rows sum the by_pc rows that carry a line
  double by_line = 0, by_pc = 0;
  for (const auto& r : j["by_line"]) by_line += r["issued"].get<double>();
  for (const auto& r : j["by_pc"]) by_pc += r["issued"].get<double>();
  EXPECT_LE(by_line, by_pc);
  EXPECT_GT(by_line, 0.9 * by_pc);
  // the loads and stores of lines 7 and 10 count their sectors
  bool load_line = false;
  for (const auto& r : j["by_line"])
    if (r["line"] == 7) load_line = r.contains("memory") && r["memory"]["l1"]["requests"].get<int>() == 1;
  EXPECT_TRUE(load_line);
  EXPECT_THAT(text, testing::HasSubstr("report.cu:9"));
  EXPECT_THAT(text, testing::HasSubstr("acc = acc * 0.999f + __sinf(acc)"));  // the line's text
}

TEST(LineInfo, PtxWithoutLocGivesAnEmptyByLine) {
  std::string text;
  const json j = run("pred_imm", "1", "32", R"([{"buffer": "u32", "count": 32}])", true, &text, "pred_imm.ptx");
  ASSERT_TRUE(j["by_line"].is_array());
  EXPECT_TRUE(j["by_line"].empty());
  EXPECT_FALSE(j["by_pc"].empty());
  EXPECT_THAT(text, testing::Not(testing::HasSubstr("source lines")));
}

TEST(OutputCheck, CountsNanAndInfByBitPatternForEachFloatType) {
  const std::uint16_t h[] = {0x3c00, 0x7c00, 0x7e00, 0xfc00};  // 1, +Inf, NaN, -Inf
  auto c = api::nonfinite_elements(api::ElemType::F16, reinterpret_cast<const std::uint8_t*>(h), 4);
  ASSERT_TRUE(c);
  EXPECT_EQ((*c)["nan_count"], 1);
  EXPECT_EQ((*c)["inf_count"], 2);
  EXPECT_EQ((*c)["first_nan"], 2);
  EXPECT_EQ((*c)["first_inf"], 1);
  const std::uint16_t b[] = {0x7f80, 0x7fc1, 0x3f80};  // bf16 +Inf, NaN, 1
  c = api::nonfinite_elements(api::ElemType::BF16, reinterpret_cast<const std::uint8_t*>(b), 3);
  EXPECT_EQ((*c)["nan_count"], 1);
  EXPECT_EQ((*c)["inf_count"], 1);
  const double d[] = {1.0, 0.0, -std::numeric_limits<double>::infinity(), 3.0};
  c = api::nonfinite_elements(api::ElemType::F64, reinterpret_cast<const std::uint8_t*>(d), 4);
  EXPECT_EQ((*c)["nan_count"], 0);
  EXPECT_EQ((*c)["inf_count"], 1);
  EXPECT_TRUE((*c)["first_nan"].is_null());
  const std::int32_t i[] = {0x7f800000};  // an integer buffer is not checked
  EXPECT_FALSE(api::nonfinite_elements(api::ElemType::I32, reinterpret_cast<const std::uint8_t*>(i), 1));
}

TEST(OutputCheck, AKernelWritingZeroOverZeroIsReportedWithTheFirstIndex) {
  std::string text;
  const json j = run("nan_inf", "1", "64",
                     R"([{"buffer": "f32", "count": 64}, {"type": "f32", "value": 0.0}, {"type": "i32", "value": 64}])",
                     true, &text);
  ASSERT_EQ(j["outputs"].size(), 1u);
  const json& o = j["outputs"][0];
  EXPECT_EQ(o["arg"], 0);
  EXPECT_EQ(o["nan_count"], 1);
  EXPECT_EQ(o["inf_count"], 1);
  EXPECT_EQ(o["first_nan"], 3);
  EXPECT_EQ(o["first_inf"], 5);
  EXPECT_THAT(text,
              testing::HasSubstr("args[0] (f32[64]) holds 1 NaN (first at index 3) and 1 Inf (first at index 5)"));
  // clean outputs: counted, no warning
  const json k = run("nan_inf", "1", "64",
                     R"([{"buffer": "f32", "count": 64}, {"type": "f32", "value": 1.0}, {"type": "i32", "value": 64}])",
                     true, &text);
  EXPECT_EQ(k["outputs"][0]["nan_count"], 0);
  EXPECT_THAT(text, testing::Not(testing::HasSubstr("NaN")));
}

TEST(Explanation, UncoalescedStoresAreNamedWithTheirSectorsPerRequest) {
  const auto dev = device::load_builtin_device("h200");
  json j = {
      {"bottleneck", "dram"},
      {"utilization", {{"dram", 0.8}, {"l2", 0.3}, {"shared", 0.0}, {"compute", 0.1}, {"tensor", 0.0}}},
      {"speed_of_light", {{"dram_bytes_per_s", 3.9e12}, {"flops_per_s", 0.0}}},
      {"coalescing",
       {{"loads",
         {{"requests", 100}, {"sectors", 400}, {"sectors_per_request", 4.0}, {"sectors_needed_per_request", 4.0}}},
        {"stores",
         {{"requests", 100}, {"sectors", 1800}, {"sectors_per_request", 18.0}, {"sectors_needed_per_request", 4.0}}}}}};
  const std::string s = cost::explain_bottleneck(j, dev);
  EXPECT_THAT(s, testing::StartsWith("HBM-bound: 3.90 TB/s of the part's "));
  EXPECT_THAT(s, testing::HasSubstr("(HBM busy 80% of the time)"));
  EXPECT_THAT(s, testing::HasSubstr("stores are uncoalesced: 18.0 sectors per request where 4.0 would carry the bytes "
                                    "asked, 4.5x the loads' sectors"));
  // coalesced both ways: no clause
  j["coalescing"]["stores"]["sectors_per_request"] = 4.0;
  j["coalescing"]["stores"]["sectors"] = 400;
  EXPECT_THAT(cost::explain_bottleneck(j, dev), testing::Not(testing::HasSubstr("uncoalesced")));
}

json copy(const std::string& kernel, int n) {
  const std::string count = std::to_string(n);
  return run(kernel, std::to_string(n / 256), "256",
             R"([{"buffer": "f32", "count": )" + count + R"(}, {"buffer": "f32", "count": )" + count +
                 R"(}, {"type": "i32", "value": )" + count + "}]",
             false);
}

TEST(Explanation, ThreeKernelsWithDifferentBottlenecksGetDifferentSentencesWithTheirNumbers) {
  const auto dev = device::load_builtin_device("h200");
  // a 128 MiB streaming copy: HBM-bound, coalesced
  const json stream = copy("stream_copy", 1 << 25);
  EXPECT_EQ(stream["bottleneck"], "dram");
  const std::string s = stream["explanation"].get<std::string>();
  EXPECT_THAT(s, testing::StartsWith("HBM-bound: "));
  char tbps[64];
  std::snprintf(tbps, sizeof tbps, "%.2f TB/s of the part's %.2f TB/s",
                stream["speed_of_light"]["dram_bytes_per_s"].get<double>() / 1e12, dev.dram.bandwidth_gbps / 1e3);
  EXPECT_THAT(s, testing::HasSubstr(tbps));
  // a copy moves a good share of the part's bandwidth, and one float per lane is coalesced
  EXPECT_GT(stream["speed_of_light"]["dram_bytes_per_s"].get<double>(), 0.4 * dev.dram.bandwidth_gbps * 1e9);
  EXPECT_THAT(s, testing::Not(testing::HasSubstr("uncoalesced")));
  EXPECT_DOUBLE_EQ(stream["coalescing"]["loads"]["sectors_per_request"].get<double>(),
                   4.0);  // 32 lanes x 4 B = 4 sectors

  // the same copy with stores 32 floats apart: every lane its own sector, 8x what 128 B need
  const json strided = copy("strided_store", 1 << 23);
  const std::string t = strided["explanation"].get<std::string>();
  EXPECT_TRUE(strided["bottleneck"] == "dram" || strided["bottleneck"] == "l2") << t;
  EXPECT_THAT(t, testing::HasSubstr("stores are uncoalesced: 32.0 sectors per request where 4.0 would carry the bytes "
                                    "asked, 8.0x the loads' sectors"));

  // one warp, a dependent chain: nothing busy, the warp waits on its own results
  const json chain =
      run("chain", "1", "32", R"([{"buffer": "f32", "count": 32}, {"type": "i32", "value": 2000}])", true);
  EXPECT_EQ(chain["bottleneck"], "latency");
  const std::string c = chain["explanation"].get<std::string>();
  EXPECT_THAT(c, testing::StartsWith("latency-bound: "));
  // one warp on one of the part's schedulers, averaged over all of them
  double warps = 0;
  ASSERT_EQ(std::sscanf(c.c_str(), "latency-bound: %lf warps per scheduler", &warps), 1) << c;
  const double one = 1.0 / static_cast<double>(dev.sm.count * dev.sm.sub_partitions);
  EXPECT_GT(warps, 0.5 * one) << c;  // resident for most of the window
  EXPECT_LE(warps, 1.001 * one) << c;
  EXPECT_THAT(c, testing::HasSubstr("of the warps' waiting is execution_dependency"));
  EXPECT_NE(s, c);
}

}  // namespace
}  // namespace kernsim
