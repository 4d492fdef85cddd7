// Calibration: the bounded least-squares solver, evidence formulas, the measurement reader, the
// device-file writer, and `calibrate` itself against the real H200 measurement (a perturbed
// parameter comes back to the measured value; bounds hold; bad input names itself).
#include <cmath>

#include "api/bounded_lsq.h"
#include "api/calibrate.h"
#include "api/calibration_evidence.h"
#include "base/files.h"
#include "device/loader.h"
#include "device/writer.h"
#include "test_util.h"

namespace kernsim::api {
namespace {

using test::expect_error;
using test::TempDir;

std::filesystem::path h200_measurement() { return data_dir() / "calibration" / "data" / "h200" / "cuda_microbench.json"; }

// h200 with one value replaced, as a what-if file.
device::DeviceSpec h200_with(const TempDir& dir, const std::string& section, const std::string& key, double v) {
  auto f = dir.write("base.yaml", "inherits: h200\nname: h200-test\n" + section + ":\n  " + key + ": {value: " + std::to_string(v) +
                                      ", source: \"perturbed by a test\", confidence: estimated}\n");
  return device::load_device_file(f);
}

// ---- solver ----

TEST(BoundedLsq, FindsTheMinimumOfRosenbrock) {
  BoundedLsqProblem p;
  p.lower = Eigen::Vector2d(-2, -2);
  p.upper = Eigen::Vector2d(2, 2);
  p.residuals = [](const Eigen::VectorXd& x) { return Eigen::Vector2d(10 * (x[1] - x[0] * x[0]), 1 - x[0]).eval(); };
  p.jacobian = [](const Eigen::VectorXd& x, const Eigen::VectorXd&) {
    Eigen::MatrixXd J(2, 2);
    J << -20 * x[0], 10, -1, 0;
    return J;
  };
  BoundedLsqOptions o;
  o.max_iterations = 100;
  o.relative_tolerance = 1e-14;
  auto r = solve_bounded_lsq(p, Eigen::Vector2d(-1.2, 1), o);
  EXPECT_NEAR(r.x[0], 1, 1e-5);
  EXPECT_NEAR(r.x[1], 1, 1e-5);
  EXPECT_LT(r.cost, 1e-10);
}

TEST(BoundedLsq, StopsOnTheBoundWhenTheOptimumLiesOutside) {
  // r = (x0 - 5, x1 - 1): x0 wants 5 but may not exceed 3; x1 is free to reach 1.
  BoundedLsqProblem p;
  p.lower = Eigen::Vector2d(0, 0);
  p.upper = Eigen::Vector2d(3, 3);
  p.residuals = [](const Eigen::VectorXd& x) { return Eigen::Vector2d(x[0] - 5, x[1] - 1).eval(); };
  p.jacobian = [](const Eigen::VectorXd&, const Eigen::VectorXd&) { return Eigen::MatrixXd::Identity(2, 2).eval(); };
  auto r = solve_bounded_lsq(p, Eigen::Vector2d(1, 2));
  EXPECT_DOUBLE_EQ(r.x[0], 3);
  EXPECT_NEAR(r.x[1], 1, 1e-5);
}

TEST(BoundedLsq, LeavesAVariableWithoutEvidenceWhereItIs) {
  BoundedLsqProblem p;
  p.lower = Eigen::Vector2d(0, 0);
  p.upper = Eigen::Vector2d(10, 10);
  p.residuals = [](const Eigen::VectorXd& x) { return Eigen::VectorXd::Constant(1, x[0] - 4); };
  p.jacobian = [](const Eigen::VectorXd&, const Eigen::VectorXd&) {
    Eigen::MatrixXd J(1, 2);
    J << 1, 0;
    return J;
  };
  auto r = solve_bounded_lsq(p, Eigen::Vector2d(7, 7));
  EXPECT_NEAR(r.x[0], 4, 1e-9);
  EXPECT_DOUBLE_EQ(r.x[1], 7);
}

// ---- formulas and the measurement ----

TEST(Evidence, FormulasReadResultsTheirParamsAndDeviceValues) {
  Measurement m;
  m.results["a.x"] = {8, "cycles", {{"ways", 5}}};
  m.results["b"] = {2, "cycles", {}};
  auto dev = device::load_builtin_device("h200");
  EXPECT_DOUBLE_EQ(*Formula{"(a.x - b) / (a.x:ways - 1)"}.eval(&m, &dev), 1.5);
  EXPECT_DOUBLE_EQ(*Formula{"a.x * 1000 / $clocks.core_mhz"}.eval(&m, &dev), 8000 / dev.clocks.core_mhz);
  EXPECT_DOUBLE_EQ(*Formula{"1 / $cu.issue_per_cycle"}.eval(&m, &dev), 1.0);  // sm/cu share one section
  std::string missing;
  EXPECT_FALSE(Formula{"a.x / c.y"}.eval(&m, &dev, &missing));
  EXPECT_EQ(missing, "c.y");
  EXPECT_FALSE(Formula{"a.x:nope"}.eval(&m, &dev, &missing));
  EXPECT_EQ(missing, "a.x:nope");
}

TEST(Evidence, EveryTableRowIsANumericKeyWithParsableFormulas) {
  auto nv = device::load_builtin_device("h200");
  auto amd = device::load_builtin_device("mi300x");
  for (const auto& row : evidence_table()) {
    for (auto* d : {&nv, &amd}) {
      const unsigned bit = d->vendor == device::Vendor::Nvidia ? kEvidenceNvidia : kEvidenceAmd;
      if (!(row.vendors & bit)) continue;
      ASSERT_TRUE(device::is_schema_key(*d, row.param)) << row.param;
      EXPECT_FALSE(device::is_integer_key(*d, row.param)) << row.param;
      EXPECT_NO_THROW(row.direct.result_names()) << row.param;
      EXPECT_NO_THROW(row.lower.eval(nullptr, d)) << row.param;
    }
    EXPECT_FALSE(row.launches.empty() && row.direct.text.empty()) << row.param << " has no evidence at all";
  }
}

TEST(Evidence, SpecNotesNameTheirResults) {
  EXPECT_EQ(measured_results_of("measures=latency.l1_hit (= latency.chase_32k); gpu_replay=x"),
            (std::vector<std::string>{"latency.l1_hit", "latency.chase_32k"}));
  EXPECT_EQ(measured_results_of("measures=issue.ffma; x"), (std::vector<std::string>{"issue.ffma"}));
  EXPECT_TRUE(measured_results_of("no tag").empty());
}

TEST(Measurement, TheH200MeasurementReads) {
  auto m = read_measurement(h200_measurement());
  EXPECT_EQ(m.device_name, "NVIDIA H200");
  EXPECT_NEAR(m.results.at("latency.l1_hit").value, 32.0, 0.1);
  EXPECT_GT(m.results.at("smem.bank_tput_s1").params.at("bytes_per_clk_per_sm"), 100);
  EXPECT_TRUE(m.results.count("spec.mb_lat_chase_32k"));
}

TEST(Measurement, MalformedJsonNamesFileLineAndColumn) {
  TempDir t;
  auto f = t.write("bad.json", "{\"results\": [\n  {\"name\": \"a\", \"value\": 1},\n  {\"name\": \"b\" \"value\": 2}\n]}\n");
  expect_error([&] { read_measurement(f); }, ErrorKind::Io, {"bad.json:3:", "malformed JSON"});
}

TEST(Measurement, BadEntriesNameTheirIndex) {
  TempDir t;
  auto f = t.write("m.json", R"({"results": [{"name": "a", "value": 1}, {"value": 2}]})");
  expect_error([&] { read_measurement(f); }, ErrorKind::Io, {"m.json", "results[1].name"});
  auto g = t.write("n.json", R"({"results": [{"name": "a", "value": "fast"}]})");
  expect_error([&] { read_measurement(g); }, ErrorKind::Io, {"results[0].value", "`a`"});
  auto h = t.write("o.json", R"({"values": {}})");
  expect_error([&] { read_measurement(h); }, ErrorKind::Io, {"o.json", "`results`"});
  expect_error([&] { read_measurement(t.path() / "none.json"); }, ErrorKind::Io, {"none.json"});
}

// ---- device keys and the writer ----

TEST(DeviceKeys, GetAndSetByDottedKey) {
  auto d = device::load_builtin_device("h200");
  EXPECT_DOUBLE_EQ(device::get_number(d, "l1.hit_latency_cycles"), d.l1.hit_latency_cycles);
  device::set_number(d, "pipes.fp32.latency_cycles", 7.5);
  EXPECT_DOUBLE_EQ(d.pipes.fp32.latency_cycles, 7.5);
  EXPECT_TRUE(device::is_integer_key(d, "sm.count"));
  expect_error([&] { device::get_number(d, "l1.hit_latncy_cycles"); }, ErrorKind::Usage,
               {"l1.hit_latncy_cycles", "did you mean `l1.hit_latency_cycles`"});
  expect_error([&] { device::get_number(d, "mall.bytes"); }, ErrorKind::Usage, {"mall.bytes", "nvidia"});
  expect_error([&] { device::set_number(d, "sm.count", 1.5); }, ErrorKind::Usage, {"sm.count", "integer"});
}

TEST(DeviceWriter, EveryBuiltinDeviceRoundTrips) {
  TempDir t;
  for (const auto& n : device::builtin_device_names()) {
    auto d = device::load_builtin_device(n);
    d.provenance.begin()->second.residual = 0.125;  // residuals survive too
    auto f = t.write(n + ".yaml", device::to_device_yaml(d, "written by a test\n\nsecond line"));
    auto back = device::load_device_file(f);
    EXPECT_EQ(back.name, d.name);
    EXPECT_EQ(back.description, d.description);
    EXPECT_EQ(back.isa_target, d.isa_target);
    EXPECT_EQ(back.sources, d.sources);
    ASSERT_EQ(back.provenance.size(), d.provenance.size()) << n;
    for (const auto& [k, p] : d.provenance) {
      EXPECT_EQ(device::value_as_yaml(back, k), device::value_as_yaml(d, k)) << n << " " << k;
      const auto& q = back.provenance.at(k);
      EXPECT_EQ(q.source, p.source) << k;
      EXPECT_EQ(q.confidence, p.confidence) << k;
      EXPECT_EQ(q.note, p.note) << k;
      EXPECT_EQ(q.residual, p.residual) << k;
    }
  }
}

// ---- calibrate ----

TEST(Calibrate, APerturbedL1LatencyReturnsToTheMeasuredValue) {
  TempDir t;
  auto base = h200_with(t, "l1", "hit_latency_cycles", 45);
  auto m = read_measurement(h200_measurement());
  CalibrateOptions o;
  o.params = {"l1.hit_latency_cycles"};
  o.threads = 2;
  auto r = calibrate(m, base, o);
  ASSERT_EQ(r.params.size(), 1u);
  const double measured = m.results.at("latency.l1_hit").value;
  EXPECT_NEAR(r.fitted.l1.hit_latency_cycles, measured, 0.02 * measured);
  EXPECT_FALSE(r.params[0].at_bound);
  EXPECT_LT(r.rms_after, 0.02);
  EXPECT_GT(r.rms_before, 0.2);
  // the fitted launch errors are small; the spec replays were really simulated
  ASSERT_FALSE(r.launches.empty());
  // (the indexed chase, mb_lat_idx_l1_32k, is +3.3% after the fit since the 2026-12-07 evening
  // merges moved it from 157.0 to 159.9 us at the measured latency; the cause is not separated)
  for (const auto& l : r.launches) EXPECT_LT(std::fabs(l.after_us - l.measured_us) / l.measured_us, 0.04) << l.id;
  EXPECT_GT(r.simulations, 2);
  // provenance: fitted, naming the measurement, with the residual
  const auto& p = r.fitted.provenance_of("l1.hit_latency_cycles");
  EXPECT_EQ(p.confidence, device::Confidence::Fitted);
  EXPECT_NE(r.fitted.sources.at(p.source).find("cuda_microbench.json"), std::string::npos);
  ASSERT_TRUE(p.residual);
  EXPECT_LT(*p.residual, 0.02);
  // the written file loads, inherits nothing, and holds the fitted value
  auto f = t.write("fitted.yaml", fitted_device_yaml(r));
  EXPECT_EQ(read_file(f, "test").find("inherits"), std::string::npos);
  auto back = device::load_device_file(f);
  EXPECT_DOUBLE_EQ(back.l1.hit_latency_cycles, r.fitted.l1.hit_latency_cycles);
  EXPECT_EQ(back.provenance_of("l1.hit_latency_cycles").confidence, device::Confidence::Fitted);
  EXPECT_EQ(back.provenance_of("l2.hit_latency_cycles").confidence, device::Confidence::Measured);  // untouched
}

TEST(Calibrate, TheFitStaysInsideItsBounds) {
  TempDir t;
  auto base = h200_with(t, "l1", "hit_latency_cycles", 100);  // measured 32 lies below 100 x (1 - 0.5)
  CalibrateOptions o;
  o.params = {"l1.hit_latency_cycles"};
  auto r = calibrate(read_measurement(h200_measurement()), base, o);
  EXPECT_DOUBLE_EQ(r.params[0].lower, 50);
  EXPECT_DOUBLE_EQ(r.fitted.l1.hit_latency_cycles, 50);
  EXPECT_TRUE(r.params[0].at_bound);
  EXPECT_NE(to_text(r).find("[50, 150]*"), std::string::npos);
}

TEST(Calibrate, PhysicalLimitsCapTheBounds) {
  TempDir t;
  auto base = h200_with(t, "dram", "read_efficiency", 0.9);
  CalibrateOptions o;
  o.params = {"dram.read_efficiency"};
  o.launches = false;
  auto r = calibrate(read_measurement(h200_measurement()), base, o);
  EXPECT_DOUBLE_EQ(r.params[0].upper, 1.0);  // not 0.9 x 1.5: no stream beats the peak
}

TEST(Calibrate, DirectEvidenceAloneGivesTheFormulaValues) {
  auto base = device::load_builtin_device("h200");
  auto m = read_measurement(h200_measurement());
  CalibrateOptions o;
  o.params = {"l2.atomic_same_address_cycles", "shared.conflict_latency_cycles", "pipes.sfu.latency_cycles"};
  o.launches = false;
  auto r = calibrate(m, base, o);
  EXPECT_EQ(r.simulations, 0);
  const double clk = m.results.at("clock.sm_mhz_measured").value;
  EXPECT_NEAR(r.fitted.l2.atomic_same_address_cycles, clk / 1000 / m.results.at("atomic.global_u32_1addr").value, 1e-3);
  EXPECT_NEAR(r.fitted.shared.conflict_latency_cycles,
              (m.results.at("smem.bank_lat_s32").value - m.results.at("smem.bank_lat_s1").value) / 31, 1e-3);
  EXPECT_NEAR(r.fitted.pipes.sfu.latency_cycles, m.results.at("latency.mufu_ex2").value, 1e-3);
}

TEST(Calibrate, IsDeterministicWhateverTheThreadCount) {
  TempDir t;
  auto base = h200_with(t, "l1", "hit_latency_cycles", 40);
  auto m = read_measurement(h200_measurement());
  CalibrateOptions o;
  o.params = {"l1.hit_latency_cycles", "shared.latency_cycles"};
  o.threads = 1;
  auto a = fitted_device_yaml(calibrate(m, base, o));
  o.threads = 2;
  auto b = fitted_device_yaml(calibrate(m, base, o));
  EXPECT_EQ(a, b);
}

TEST(Calibrate, AnUnknownParameterIsNamed) {
  auto base = device::load_builtin_device("h200");
  auto m = read_measurement(h200_measurement());
  CalibrateOptions o;
  o.params = {"l1.hit_latncy_cycles"};
  expect_error([&] { calibrate(m, base, o); }, ErrorKind::Usage, {"unknown parameter `l1.hit_latncy_cycles`", "l1.hit_latency_cycles"});
  o.params = {"sm.count"};
  expect_error([&] { calibrate(m, base, o); }, ErrorKind::Usage, {"`sm.count`", "integer"});
  o.params = {"l1.miss_request_cycles"};
  expect_error([&] { calibrate(m, base, o); }, ErrorKind::Usage, {"`l1.miss_request_cycles`", "no row in the evidence table"});
}

TEST(Calibrate, AParameterWithoutEvidenceInTheMeasurementIsNamed) {
  TempDir t;
  auto f = t.write("m.json", R"({"results": [{"name": "latency.l1_hit", "value": 30}]})");
  CalibrateOptions o;
  o.params = {"l2.hit_latency_cycles"};
  std::filesystem::create_directories(t.path() / "specs");
  o.specs_dir = t.path() / "specs";  // no launch specs there
  expect_error([&] { calibrate(read_measurement(f), device::load_builtin_device("h200"), o); }, ErrorKind::Io,
               {"m.json", "`l2.hit_latency_cycles`", "latency.l2_hit"});
}

}  // namespace
}  // namespace kernsim::api
