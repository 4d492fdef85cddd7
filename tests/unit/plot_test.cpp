// `kernsim run --plot`: the roofline and timeline SVGs (cost_model/plot_view.h). The roofline's
// point must lie where the report's FLOP/s over its DRAM bytes/s put it on the log axes the SVG
// declares, and its HBM and FP32 roofs must be the device file's numbers; the timeline must draw
// every CTA the model timed and never more resident at once than the SMs' slots. Expected values
// come from the report and the device file, recomputed here, never from the SVG's own text.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "test_util.h"

namespace kernsim {
namespace {

using nlohmann::json;
const std::string kData = KERNSIM_TEST_DATA;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// the value of attribute `name` in the first element that matches `element` (a regex prefix)
double attr(const std::string& svg, const std::string& element, const std::string& name) {
  std::smatch m;
  const std::regex re(element + "[^>]*?\\b" + name + "=\"([^\"]+)\"");
  if (!std::regex_search(svg, m, re)) ADD_FAILURE() << "no " << name << " in " << element;
  return m.empty() ? std::nan("") : std::stod(m[1]);
}

struct Plotted {
  json report;
  std::string roofline, timeline;
};

Plotted run_plotted(const std::string& arch, const std::string& grid, int iters) {
  test::TempDir d;
  const std::string spec_json = R"({"source": "report.cu", "kernel": "hot_line", "grid": )" + grid +
                                R"(, "block": 128, "args": [{"buffer": "f32", "count": 1048576, "init": "uniform"},
                                    {"buffer": "f32", "count": 1048576}, {"type": "i32", "value": )" +
                                std::to_string(iters) + "}]}";
  const auto spec = api::parse_launch_spec_text(spec_json, kData + "/kernels", "plot test");
  api::RunOptions o;
  o.full = true;
  o.roofline_path = d.path() / "roofline.svg";
  o.timeline_path = d.path() / "timeline.svg";
  const auto r = api::run_launch(spec, device::load_builtin_device(arch), o);
  return {json::parse(r.report_json), slurp(*o.roofline_path), slurp(*o.timeline_path)};
}

double log_position(double v, double lo, double hi, double a, double b) {
  return a + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (b - a);
}

TEST(Plot, RooflinePointLiesAtTheReportsIntensityAndFlopRate) {
  for (const char* arch : {"h200", "mi300x"}) {
    const Plotted p = run_plotted(arch, "64", 64);
    const json& sol = p.report["speed_of_light"];
    const double flops = sol["flops_per_s"].get<double>(), bytes = sol["dram_bytes_per_s"].get<double>();
    ASSERT_GT(flops, 0) << arch;
    ASSERT_GT(bytes, 0) << arch;
    const std::string& s = p.roofline;
    const double x0 = attr(s, "<svg", "data-x0"), x1 = attr(s, "<svg", "data-x1"), y0 = attr(s, "<svg", "data-y0"),
                 y1 = attr(s, "<svg", "data-y1");
    const double xmin = attr(s, "<svg", "data-xmin"), xmax = attr(s, "<svg", "data-xmax"),
                 ymin = attr(s, "<svg", "data-ymin"), ymax = attr(s, "<svg", "data-ymax");
    const double intensity = flops / bytes;
    ASSERT_LE(xmin, intensity);
    ASSERT_GE(xmax, intensity);
    ASSERT_LE(ymin, flops);
    ASSERT_GE(ymax, flops);
    EXPECT_NEAR(attr(s, "<circle id=\"launch\"", "cx"), log_position(intensity, xmin, xmax, x0, x1), 0.01) << arch;
    EXPECT_NEAR(attr(s, "<circle id=\"launch\"", "cy"), log_position(flops, ymin, ymax, y1, y0), 0.01) << arch;
  }
}

TEST(Plot, RooflineRoofsAreTheDeviceFilesNumbers) {
  const Plotted p = run_plotted("h200", "64", 64);
  const auto dev = device::load_builtin_device("h200");
  const std::string& s = p.roofline;
  EXPECT_NEAR(attr(s, "class=\"roof memory\" data-name=\"HBM\"", "data-peak"), dev.dram.bandwidth_gbps * 1e9, 1e3);
  // FP32: every scheduler's FMA pipe, a warp's lanes each issue_cycles, 2 FLOP per FMA (hot_line
  // has no tensor instructions, so the part is timed at its core clock)
  const double fp32 = static_cast<double>(dev.sm.count * dev.sm.sub_partitions * dev.sm.warp_size) /
                      dev.pipes.fp32.issue_cycles * 2 * dev.clocks.core_mhz * 1e6;
  EXPECT_NEAR(attr(s, "class=\"roof compute\" data-name=\"FP32\"", "data-peak"), fp32, fp32 * 1e-5);
  // the HBM roof's first end lies on y = B x
  const double xmin = attr(s, "<svg", "data-xmin"), xmax = attr(s, "<svg", "data-xmax"),
               ymin = attr(s, "<svg", "data-ymin"), ymax = attr(s, "<svg", "data-ymax");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(s, m, std::regex("<line x1=\"([^\"]+)\" y1=\"([^\"]+)\"[^>]*data-name=\"HBM\"")))
      << "no HBM roof";
  const double lx = std::stod(m[1]), ly = std::stod(m[2]);
  const double x_at = std::pow(10.0, std::log10(xmin) + (lx - attr(s, "<svg", "data-x0")) /
                                                            (attr(s, "<svg", "data-x1") - attr(s, "<svg", "data-x0")) *
                                                            (std::log10(xmax) - std::log10(xmin)));
  EXPECT_NEAR(ly,
              log_position(dev.dram.bandwidth_gbps * 1e9 * x_at, ymin, ymax, attr(s, "<svg", "data-y1"),
                           attr(s, "<svg", "data-y0")),
              0.05);
}

TEST(Plot, TimelineDrawsEveryTimedCtaWithinTheSlots) {
  // 1056 CTAs of 128 threads on h200's 132 SMs: several waves
  const Plotted p = run_plotted("h200", "1056", 8);
  const std::string& s = p.timeline;
  const double ctas = attr(s, "<svg", "data-ctas");
  EXPECT_EQ(ctas, p.report["sampling"]["ctas_timed"].get<double>());
  std::size_t rects = 0;
  for (std::size_t at = s.find("class=\"cta\""); at != std::string::npos; at = s.find("class=\"cta\"", at + 1)) ++rects;
  EXPECT_EQ(static_cast<double>(rects), ctas);
  const double sms = attr(s, "<svg", "data-sms"), capacity = attr(s, "<svg", "data-capacity");
  EXPECT_EQ(capacity, sms * p.report["occupancy"]["blocks_per_sm"].get<double>());
  EXPECT_LE(attr(s, "<svg", "data-max-resident"), capacity);
  EXPECT_GT(attr(s, "<svg", "data-max-resident"), 0);
  // the window ends when the last CTA does: the report's cycles at the core clock
  EXPECT_NEAR(attr(s, "<svg", "data-t-end-us"), p.report["cycles"].get<double>() / p.report["clock_mhz"].get<double>(),
              0.02 * p.report["cycles"].get<double>() / p.report["clock_mhz"].get<double>());
}

}  // namespace
}  // namespace kernsim
