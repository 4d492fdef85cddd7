// Device files: the built-in parts load with full provenance; every class of bad file gets an
// error naming the file, the key and (where there is one) the line.
#include <fstream>
#include <sstream>

#include "device/loader.h"
#include "test_util.h"

namespace kernsim::device {
namespace {

using test::expect_error;
using test::TempDir;

// A minimal-but-complete NVIDIA file, built from h200.yaml by dropping or editing lines.
std::string h200_text() {
  std::ifstream in(builtin_device_dir() / "h200.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replace_line_containing(std::string text, const std::string& needle, const std::string& with) {
  auto pos = text.find(needle);
  EXPECT_NE(pos, std::string::npos) << needle;
  auto start = text.rfind('\n', pos) + 1;
  auto end = text.find('\n', pos);
  return text.replace(start, end - start, with);
}

TEST(DeviceFiles, EveryBuiltinDeviceLoads) {
  auto names = builtin_device_names();
  for (const char* want : {"h100", "h200", "b200", "mi300x", "mi355x"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  for (const auto& n : names) {
    DeviceSpec d = load_builtin_device(n);
    EXPECT_GT(d.sm.count, 0) << n;
    EXPECT_GT(d.clocks.core_mhz, 0) << n;
    EXPECT_FALSE(d.isa_target.empty()) << n;
  }
}

TEST(DeviceFiles, EveryRequiredKeyOfEveryDeviceHasProvenance) {
  for (const auto& n : builtin_device_names()) {
    DeviceSpec d = load_builtin_device(n);
    std::string vendor = to_string(d.vendor);
    for (const auto& row : device_schema()) {
      if (row.vendors != "both" && row.vendors != vendor) continue;
      if (!row.required) continue;
      ASSERT_TRUE(d.provenance.count(row.key)) << n << ": " << row.key;
      const Provenance& p = d.provenance.at(row.key);
      EXPECT_FALSE(p.source.empty()) << n << ": " << row.key;
    }
  }
}

TEST(DeviceFiles, PartsHaveTheirPublishedShape) {
  auto h200 = load_builtin_device("h200");
  EXPECT_EQ(h200.vendor, Vendor::Nvidia);
  EXPECT_EQ(h200.sm.count, 132);
  EXPECT_EQ(h200.sm.warp_size, 32);
  EXPECT_EQ(h200.isa_target, "sm_90a");
  auto mi = load_builtin_device("mi300x");
  EXPECT_EQ(mi.vendor, Vendor::Amd);
  EXPECT_EQ(mi.sm.count, 304);
  EXPECT_EQ(mi.sm.warp_size, 64);
  EXPECT_EQ(mi.l2.instances, 8);
  EXPECT_EQ(mi.topology.dies * mi.topology.units_per_die, mi.sm.count);
  auto mi355 = load_builtin_device("mi355x");
  EXPECT_EQ(mi355.topology.dies * mi355.topology.units_per_die, mi355.sm.count);
  EXPECT_FALSE(mi355.provenance.count("pipes.tensor_tf32.issue_cycles")) << "gfx950 has no xf32 MFMA";
}

TEST(DeviceFiles, AliasesResolve) {
  EXPECT_EQ(load_builtin_device("sm_90a").name, "h200");
  EXPECT_EQ(load_builtin_device("gfx942").name, "mi300x");
  EXPECT_EQ(load_builtin_device("H200").name, "h200");
}

TEST(DeviceFiles, UnknownArchNamesTheKnownOnes) {
  expect_error([] { load_builtin_device("h300"); }, ErrorKind::Usage, {"h300", "h200", "mi300x"});
}

TEST(DeviceFiles, InheritsChangesOneNumber) {
  TempDir t;
  auto f = t.write("bigl2.yaml",
                   "inherits: h200\nname: bigl2\nl2:\n  bytes: {value: 125829120, source: what-if, confidence: estimated}\n");
  DeviceSpec d = load_device_file(f);
  DeviceSpec base = load_builtin_device("h200");
  EXPECT_EQ(d.name, "bigl2");
  EXPECT_EQ(d.l2.bytes, 125829120);
  EXPECT_EQ(d.sm.count, base.sm.count);
  EXPECT_EQ(d.dram.bandwidth_gbps, base.dram.bandwidth_gbps);
  EXPECT_EQ(d.provenance.at("l2.bytes").file, f.string());
  EXPECT_EQ(d.provenance.at("l2.bytes").confidence, Confidence::Estimated);
  EXPECT_NE(d.provenance.at("sm.count").file, f.string());
}

TEST(DeviceFiles, InheritsByRelativePathAndChains) {
  TempDir t;
  t.write("a.yaml",
          "inherits: h200\nname: a\nsm:\n  count: {value: 100, source: x-y, confidence: estimated}\n"
          "topology:\n  gpc_sms: {value: [20, 20, 20, 20, 20], source: x-y, confidence: estimated}\n");
  auto b = t.write("b.yaml", "inherits: a.yaml\nname: b\nclocks:\n  core_mhz: {value: 1000, source: x-y, confidence: estimated}\n");
  DeviceSpec d = load_device_file(b);
  EXPECT_EQ(d.sm.count, 100);
  EXPECT_EQ(d.clocks.core_mhz, 1000);
}

TEST(DeviceFiles, InheritanceCycleIsAnError) {
  TempDir t;
  t.write("a.yaml", "inherits: b.yaml\n");
  auto b = t.write("b.yaml", "inherits: a.yaml\n");
  expect_error([&] { load_device_file(b); }, ErrorKind::DeviceFile, {"cycle"});
}

TEST(DeviceFiles, InheritingAMissingDeviceNamesIt) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h900\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"x.yaml:1", "h900"});
}

TEST(DeviceFiles, MissingRequiredKeyNamesFileAndKey) {
  TempDir t;
  std::string text = replace_line_containing(h200_text(), "  count: {value: 132", "");
  auto f = t.write("nocount.yaml", text);
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"nocount.yaml", "missing required key `sm.count`"});
}

TEST(DeviceFiles, TheTensorEngineKeysAreRequiredAndChecked) {
  TempDir t;
  auto f = t.write("nowgmma.yaml", replace_line_containing(h200_text(), "  wgmma_flops_per_cycle_f16:", ""));
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"nowgmma.yaml", "missing required key `sm.wgmma_flops_per_cycle_f16`"});
  auto g = t.write("zero.yaml", "inherits: h200\nname: zero\nsm:\n  wgmma_flops_per_cycle_tf32: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"zero.yaml:4", "`sm.wgmma_flops_per_cycle_tf32`", "must be positive"});
  auto h = t.write("neg.yaml", "inherits: h200\nname: neg\nsm:\n  wgmma_latency_cycles: {value: -1, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"`sm.wgmma_latency_cycles`", "non-negative"});
}

TEST(DeviceFiles, UnknownKeyNamesKeyLineAndSuggestion) {
  TempDir t;
  std::string text = replace_line_containing(h200_text(), "  count: {value: 132",
                                             "  cont: {value: 132, source: LOCAL_M7, confidence: measured}");
  auto f = t.write("typo.yaml", text);
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"typo.yaml:", "unknown key `sm.cont`", "sm.count"});
}

TEST(DeviceFiles, UnknownTopLevelKeyIsAnError) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nfrobnicate:\n  speed: {value: 1, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"unknown key `frobnicate.speed`"});
}

TEST(DeviceFiles, KeyOfTheOtherVendorIsAnError) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\ncu:\n  count: {value: 1, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"`cu.count`", "does not apply to a nvidia device"});
}

TEST(DeviceFiles, BareNumberWithoutProvenanceIsAnError) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nsm:\n  count: 140\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"x.yaml:3", "`sm.count`", "provenance"});
}

TEST(DeviceFiles, MissingSourceOrConfidenceIsAnError) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nsm:\n  count: {value: 140, confidence: measured}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"`sm.count`", "missing `source`"});
  auto g = t.write("y.yaml", "inherits: h200\nsm:\n  count: {value: 140, source: a-b}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"`sm.count`", "missing `confidence`"});
}

TEST(DeviceFiles, UnknownConfidenceIsAnError) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nsm:\n  count: {value: 140, source: a-b, confidence: guessed}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"`sm.count`", "guessed"});
}

TEST(DeviceFiles, PublishedMeasurementIsItsOwnConfidence) {
  TempDir t;
  auto f = t.write("x.yaml",
                   "inherits: h200\nname: x\nl2:\n  hit_latency_cycles: {value: 295, source: a-b, confidence: published-measurement}\n");
  DeviceSpec d = load_device_file(f);
  EXPECT_EQ(d.provenance.at("l2.hit_latency_cycles").confidence, Confidence::PublishedMeasurement);
  EXPECT_STREQ(to_string(Confidence::PublishedMeasurement), "published-measurement");
  EXPECT_EQ(d.confidence_histogram()[Confidence::PublishedMeasurement], 1);
  auto g = t.write("y.yaml", "inherits: h200\nsm:\n  count: {value: 140, source: a-b, confidence: published}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"`sm.count`", "published-measurement"});
}

TEST(DeviceFiles, UndefinedSourceKeyIsAnError) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nsm:\n  count: {value: 140, source: NOPE_REF, confidence: measured}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"`sm.count`", "NOPE_REF", "sources"});
}

TEST(DeviceFiles, WrongValueTypesAreErrors) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nsm:\n  count: {value: many, source: a-b, confidence: measured}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"`sm.count`", "many"});
  auto g = t.write("y.yaml", "inherits: h200\nsm:\n  count: {value: 1.5, source: a-b, confidence: measured}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"`sm.count`", "integer"});
  auto h = t.write("z.yaml", "inherits: h200\nlimits:\n  max_block_dim: {value: [1, 2], source: a-b, confidence: measured}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"`limits.max_block_dim`", "three"});
  auto k = t.write("w.yaml", "inherits: h200\nclocks:\n  core_mhz: {value: -5, source: a-b, confidence: measured}\n");
  expect_error([&] { load_device_file(k); }, ErrorKind::DeviceFile, {"`clocks.core_mhz`", "non-negative"});
}

// What the models cannot hold is rejected at load, naming the file and line the value came
// from, the key and the limit (a count of 0 was a division by zero in the simulation).
TEST(DeviceFiles, ZeroCountsAndSizesAreRejectedWithTheKeyAndTheLimit) {
  TempDir t;
  auto f = t.write("nosm.yaml", "inherits: h200\nsm:\n  count: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"nosm.yaml:3", "`sm.count`", "at least 1", "got 0"});
  auto g = t.write("nol2.yaml", "inherits: h200\nl2:\n  bytes: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"nol2.yaml:3", "`l2.bytes`", "at least 1"});
  auto h = t.write("nobanks.yaml", "inherits: mi300x\nshared:\n  banks: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"nobanks.yaml:3", "`shared.banks`", "at least 1"});
  auto k = t.write("nobw.yaml", "inherits: h200\ndram:\n  bandwidth_gbps: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(k); }, ErrorKind::DeviceFile, {"`dram.bandwidth_gbps`", "must be positive"});
  auto e = t.write("noeff.yaml", "inherits: h200\ndram:\n  read_efficiency: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(e); }, ErrorKind::DeviceFile, {"`dram.read_efficiency`", "must be positive"});
}

TEST(DeviceFiles, NanAndInfinityAreRejected) {
  TempDir t;
  auto f = t.write("nan.yaml", "inherits: h200\nl2:\n  hit_latency_cycles: {value: .nan, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"nan.yaml:3", "`l2.hit_latency_cycles`"});
  auto g = t.write("inf.yaml", "inherits: h200\ndram:\n  bandwidth_gbps: {value: .inf, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"inf.yaml:3", "`dram.bandwidth_gbps`", "finite"});
  auto h = t.write("infint.yaml", "inherits: h200\nsm:\n  count: {value: .inf, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"infint.yaml:3", "`sm.count`", "integer"});
  auto k = t.write("huge.yaml", "inherits: h200\nl2:\n  bytes: {value: 1e30, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(k); }, ErrorKind::DeviceFile, {"huge.yaml:3", "`l2.bytes`", "integer"});
}

TEST(DeviceFiles, ValuesBeyondWhatTheModelHoldsNameTheLimit) {
  TempDir t;
  auto f = t.write("w64.yaml", "inherits: h200\nsm:\n  warp_size: {value: 64, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"w64.yaml:3", "`sm.warp_size`", "must be 32", "got 64"});
  auto g = t.write("w128.yaml", "inherits: mi300x\ncu:\n  warp_size: {value: 128, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"w128.yaml:3", "`cu.warp_size`", "64", "got 128"});
  // 128-byte lines of 16-byte sectors: 8 sectors, the sector cache keeps 4
  auto h = t.write("s16.yaml", "inherits: h200\nl1:\n  sector_bytes: {value: 16, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"s16.yaml:3", "`l1.sector_bytes`", "8 sectors per line", "above the 4"});
  auto k = t.write("l96.yaml", "inherits: h200\nl2:\n  line_bytes: {value: 96, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(k); }, ErrorKind::DeviceFile, {"l96.yaml:3", "`l2.line_bytes`", "power of two"});
  auto a = t.write("l256.yaml",
                   "inherits: mi300x\nl1:\n  line_bytes: {value: 256, source: a-b, confidence: estimated}\n"
                   "  sector_bytes: {value: 256, source: a-b, confidence: estimated}\n"
                   "l2:\n  line_bytes: {value: 256, source: a-b, confidence: estimated}\n"
                   "  sector_bytes: {value: 256, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(a); }, ErrorKind::DeviceFile, {"l256.yaml:", "sector_bytes`", "above the 128"});
  auto s = t.write("slots.yaml", "inherits: mi300x\ncu:\n  max_warps: {value: 30, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(s); }, ErrorKind::DeviceFile, {"slots.yaml:3", "`cu.max_warps`", "multiple of cu.sub_partitions"});
}

// The GPC layout: every NVIDIA part has one whose SMs add up to the part's, and a layout that
// does not, a cluster limit above what a GPC holds or a list that is not of positive integers is
// rejected with the key.
TEST(DeviceFiles, NvidiaPartsHaveAGpcLayoutThatAddsUp) {
  for (const char* n : {"h100", "h200", "b200"}) {
    DeviceSpec d = load_builtin_device(n);
    std::int64_t sum = 0;
    for (std::int64_t g : d.topology.gpc_sms) sum += g;
    EXPECT_EQ(sum, d.sm.count) << n;
    EXPECT_EQ(d.topology.max_cluster_ctas, 8) << n;
    EXPECT_EQ(d.topology.max_cluster_ctas_nonportable, 16) << n;
  }
  // the H200's groups hold as many clusters of each size as cudaOccupancyMaxActiveClusters said
  // on the GPU (calibration/data/h200/gpc_layout.txt: 16 -> 7, 8 -> 15, 4 -> 30, 2 -> 66)
  const DeviceSpec h200 = load_builtin_device("h200");
  for (const auto& [size, clusters] : std::vector<std::pair<int, int>>{{16, 7}, {8, 15}, {4, 30}, {2, 66}}) {
    int fit = 0;
    for (std::int64_t g : h200.topology.gpc_sms) fit += static_cast<int>(g / size);
    EXPECT_EQ(fit, clusters) << "clusters of " << size;
  }
  EXPECT_TRUE(load_builtin_device("mi300x").topology.gpc_sms.empty());
}

TEST(DeviceFiles, AGpcLayoutThatDoesNotAddUpIsRejected) {
  TempDir t;
  auto f = t.write("gpc.yaml", "inherits: h200\ntopology:\n  gpc_sms: {value: [18, 18, 16], source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"gpc.yaml:3", "`topology.gpc_sms`", "add up to 52", "sm.count (132)"});
  auto g = t.write("gpc0.yaml", "inherits: h200\ntopology:\n  gpc_sms: {value: [132, 0], source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"gpc0.yaml:3", "`topology.gpc_sms`", "element 1", "positive integer"});
  auto h = t.write("gpcs.yaml", "inherits: h200\ntopology:\n  gpc_sms: {value: 132, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"gpcs.yaml:3", "`topology.gpc_sms`", "list of integers"});
  auto k = t.write("big.yaml", "inherits: h200\ntopology:\n  max_cluster_ctas_nonportable: {value: 1024, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(k); }, ErrorKind::DeviceFile, {"big.yaml:3", "`topology.max_cluster_ctas_nonportable`", "largest GPC"});
  auto m = t.write("small.yaml", "inherits: h200\ntopology:\n  max_cluster_ctas_nonportable: {value: 4, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(m); }, ErrorKind::DeviceFile, {"`topology.max_cluster_ctas_nonportable`", "at least topology.max_cluster_ctas (8)"});
}

// A value inherited unchanged is reported where it was set: the parent file and its line.
TEST(DeviceFiles, ALimitErrorNamesTheFileTheValueCameFrom) {
  TempDir t;
  std::string text = replace_line_containing(h200_text(), "  banks: {value: 32", "  banks: {value: 0, source: a-b, confidence: estimated}");
  t.write("zero.yaml", text);
  auto child = t.write("child.yaml", "inherits: zero.yaml\nname: child\n");
  expect_error([&] { load_device_file(child); }, ErrorKind::DeviceFile, {"zero.yaml:", "`shared.banks`"});
}

TEST(DeviceFiles, AmdPartsGiveTheRealtimeReferenceClock) {
  for (const char* n : {"mi300x", "mi355x"}) {
    DeviceSpec d = load_builtin_device(n);
    EXPECT_EQ(d.clocks.realtime_mhz, 100) << n << ": s_memrealtime's REFCLK";
    EXPECT_EQ(d.sm.max_warps_per_sub(), 8) << n << ": 8 wave slots per SIMD";
  }
  EXPECT_EQ(load_builtin_device("h200").sm.max_warps_per_sub(), 16);
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nclocks:\n  realtime_mhz: {value: 100, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"`clocks.realtime_mhz`", "does not apply to a nvidia device"});
  auto g = t.write("y.yaml", "inherits: mi300x\nclocks:\n  realtime_mhz: {value: 0, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"y.yaml:3", "`clocks.realtime_mhz`", "must be positive"});
}

TEST(DeviceFiles, YamlSyntaxErrorNamesTheLine) {
  TempDir t;
  auto f = t.write("x.yaml", "inherits: h200\nsm:\n  count: {value: 140, source: [unclosed\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"x.yaml:", "YAML syntax error"});
}

TEST(DeviceFiles, MissingFileIsAnIoError) {
  expect_error([] { load_device_file("/nonexistent/dev.yaml"); }, ErrorKind::Io, {"/nonexistent/dev.yaml"});
}

TEST(DeviceFiles, VersionIsRequiredAndChecked) {
  TempDir t;
  auto f = t.write("x.yaml", "name: x\nvendor: nvidia\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"kernsim_device"});
  auto g = t.write("y.yaml", "kernsim_device: 7\nname: x\nvendor: nvidia\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"version `7`"});
}

TEST(DeviceFiles, ResolveDeviceRejectsBothArchAndFile) {
  expect_error([] { resolve_device(std::string("h200"), std::string("x.yaml")); }, ErrorKind::Usage, {"not both"});
  EXPECT_EQ(resolve_device(std::nullopt, std::nullopt).name, "h200");
}

TEST(DeviceFiles, TheWarpSchedulerIsAPolicyTheModelHas) {
  TempDir t;
  auto f = t.write("lrr.yaml", "inherits: h200\nsm:\n  warp_scheduler: {value: loose_round_robin, source: a-b, confidence: estimated}\n");
  EXPECT_EQ(load_device_file(f).sm.warp_scheduler, "loose_round_robin");
  auto g = t.write("fifo.yaml", "inherits: h200\nsm:\n  warp_scheduler: {value: fifo, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"fifo.yaml:3", "`sm.warp_scheduler`", "greedy_then_oldest"});
  auto h = t.write("amd_gto.yaml", "inherits: mi300x\ncu:\n  warp_scheduler: {value: greedy_then_oldest, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"amd_gto.yaml:3", "`cu.warp_scheduler`", "oldest_first_by_priority"});
}

TEST(DeviceFiles, TheL1SetHashAndTheCarveoutStepsAreChecked) {
  TempDir t;
  auto f = t.write("mod.yaml", "inherits: h200\nl1:\n  set_hash: {value: modulo, source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(f); }, ErrorKind::DeviceFile, {"mod.yaml:3", "`l1.set_hash`", "multiplicative, xor"});
  auto g = t.write("steps.yaml", "inherits: h200\nshared:\n  carveout_steps_bytes: {value: [16384, 8192, 233472], source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(g); }, ErrorKind::DeviceFile, {"steps.yaml:3", "`shared.carveout_steps_bytes`", "rising"});
  auto h = t.write("small.yaml", "inherits: h200\nshared:\n  carveout_steps_bytes: {value: [8192, 65536], source: a-b, confidence: estimated}\n");
  expect_error([&] { load_device_file(h); }, ErrorKind::DeviceFile, {"small.yaml:3", "`shared.carveout_steps_bytes`", "shared.bytes_per_unit"});
  EXPECT_EQ(load_builtin_device("h200").l1.set_hash, "xor");
  EXPECT_EQ(load_builtin_device("h100").shared.carveout_steps_bytes.back(), 233472) << "inherited";
}

}  // namespace
}  // namespace kernsim::device
