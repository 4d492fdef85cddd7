// The listener views that need no model change, fed synthetic events: the per-PC view (issue
// counts, stall cycles charged to the instruction waited for, memory traffic, the listing's text)
// and the Chrome/Perfetto trace view (names, merged issue runs, stalls by reason, CTA slots,
// the resident-warps counter, the event cap, deterministic output).
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cost_model/listing.h"
#include "cost_model/pc_view.h"
#include "cost_model/trace_view.h"
#include "test_util.h"

namespace kernsim {
namespace {

using nlohmann::json;
using sim::Stall;

sim::IssueEvent issue(int sm, int sub, std::uint32_t pc, double cycle, int warp = 0, int lanes = 32) {
  sim::IssueEvent e;
  e.sm = sm;
  e.sub = sub;
  e.pc = pc;
  e.cycle = cycle;
  e.warp = warp;
  e.lanes = lanes;
  e.cta = 7;
  return e;
}

sim::StallEvent stall(int sm, int sub, Stall why, double from, double cycles, std::uint32_t pc = sim::kNoPc, int warp = -1) {
  return {sm, sub, why, from, cycles, warp, pc};
}

cost::Listing listing() {
  cost::Listing l;
  for (const char* t : {"ld.global.f32 %f1, [%rd4];", "@%p1 bra $L__BB0_2;", "fma.rn.f32 %f3, %f1, %f2, %f3;"})
    l.push_back({t, cost::op_of(t), static_cast<std::uint32_t>(40 + l.size()), std::nullopt, "", 0});
  return l;
}

const json* find_pc(const json& rows, std::uint32_t pc) {
  for (const auto& r : rows)
    if (r["pc"] == pc) return &r;
  return nullptr;
}

TEST(Listing, OpIsTheMnemonicAfterAGuard) {
  EXPECT_EQ(cost::op_of("ld.global.f32 %f1, [%rd4];"), "ld.global.f32");
  EXPECT_EQ(cost::op_of("  @!%p1 bra $L__BB0_2;"), "bra");
  EXPECT_EQ(cost::op_of("ret;"), "ret");
  EXPECT_EQ(cost::op_of("v_add_f32_e32 v1, v2, v3"), "v_add_f32_e32");
}

TEST(PcView, CountsIssuesAndActiveThreadsPerPc) {
  cost::PcView v;
  v.on_issue(issue(0, 0, 2, 10, 0, 32));
  v.on_issue(issue(0, 1, 2, 11, 1, 16));
  v.on_issue(issue(1, 0, 0, 12));
  const json rows = v.by_pc();
  ASSERT_EQ(rows.size(), 2u) << "only instructions that issued or stalled: " << rows.dump();
  EXPECT_EQ(rows[0]["pc"], 0) << "sorted by pc";
  EXPECT_EQ(rows[1]["pc"], 2);
  EXPECT_EQ(rows[1]["issued"], 2);
  EXPECT_EQ(rows[1]["threads"], 48);
  EXPECT_FALSE(rows[0].contains("inst")) << "no listing, no text";
}

TEST(PcView, StallCyclesAreChargedToTheInstructionWaitedFor) {
  cost::PcView v;
  v.on_stall(stall(0, 0, Stall::MemoryDependency, 0, 100, 1, 3));
  v.on_stall(stall(0, 1, Stall::MemoryDependency, 0, 20, 1, 4));
  v.on_stall(stall(0, 0, Stall::PipeBusy, 100, 5, 1, 3));
  v.on_stall(stall(0, 0, Stall::ExecutionDependency, 105, 7, 2, 3));
  v.on_stall(stall(0, 2, Stall::Idle, 0, 50));
  const json rows = v.by_pc();
  ASSERT_EQ(rows.size(), 2u) << rows.dump();
  const json* one = find_pc(rows, 1);
  ASSERT_TRUE(one);
  EXPECT_EQ((*one)["issued"], 0) << "stalled but never issued in the window";
  EXPECT_DOUBLE_EQ((*one)["stall_cycles"]["memory_dependency"].get<double>(), 120);
  EXPECT_DOUBLE_EQ((*one)["stall_cycles"]["pipe_busy"].get<double>(), 5);
  EXPECT_FALSE((*one)["stall_cycles"].contains("execution_dependency")) << "that stall was for pc 2";
  EXPECT_DOUBLE_EQ((*one)["stall_cycles_total"].get<double>(), 125);
  EXPECT_DOUBLE_EQ((*find_pc(rows, 2))["stall_cycles"]["execution_dependency"].get<double>(), 7);
  EXPECT_DOUBLE_EQ(v.stall_cycles_without_pc()["idle"].get<double>(), 50) << "a stall with no warp goes to no pc";
}

TEST(PcView, MemoryAccessesAddUpPerLevel) {
  cost::PcView v;
  sim::MemAccessEvent a;
  a.pc = 0;
  a.level = mem::Level::L1;
  a.lanes = 32;
  a.bytes = 128;
  a.units = 4;
  a.issue = 10;
  a.done = 510;
  v.on_memory_access(a);
  a.issue = 20;
  a.done = 320;
  v.on_memory_access(a);
  a.pc = 2;
  a.level = mem::Level::Shared;
  a.units = 2;
  a.issue = 0;
  a.done = 30;
  v.on_memory_access(a);
  const json rows = v.by_pc();
  const json& l1 = (*find_pc(rows, 0))["memory"]["l1"];
  EXPECT_EQ(l1["accesses"], 2);
  EXPECT_EQ(l1["bytes"], 256);
  EXPECT_EQ(l1["sectors"], 8);
  EXPECT_DOUBLE_EQ(l1["avg_latency_cycles"].get<double>(), 400);
  EXPECT_FALSE((*find_pc(rows, 0))["memory"].contains("shared"));
  EXPECT_EQ((*find_pc(rows, 2))["memory"]["shared"]["wavefronts"], 2);
}

TEST(PcView, ListingLabelsRowsWithTextAndLine) {
  const cost::Listing l = listing();
  cost::PcView v(&l);
  v.on_issue(issue(0, 0, 1, 0));
  const json rows = v.by_pc();
  EXPECT_EQ(rows[0]["inst"], "@%p1 bra $L__BB0_2;");
  EXPECT_EQ(rows[0]["line"], 41);
}

TEST(PcView, ReportSaysASampledRunCoversTheTimedWindow) {
  cost::PcView v;
  v.on_issue(issue(0, 0, 0, 0));
  sim::TimingResult t;
  t.extrapolated = true;
  t.sampled_fraction = 0.25;
  json report;
  v.add_to(report, t);
  EXPECT_TRUE(report["by_pc"].is_array());
  EXPECT_EQ(report["by_pc_covers"]["whole_kernel"], false);
  EXPECT_DOUBLE_EQ(report["by_pc_covers"]["fraction_timed"].get<double>(), 0.25);
  EXPECT_THAT(report["by_pc_covers"]["note"].get<std::string>(), testing::HasSubstr("detailed window"));
}

// The trace of a small synthetic run on one SM at 1000 MHz (a cycle is 1 ns).
struct Traced {
  json j;
  std::string text;
};

Traced trace(cost::TraceView& v) {
  std::ostringstream o;
  v.write(o, {{"kernel", "k"}});
  return {json::parse(o.str()), o.str()};
}

cost::TraceOptions options(const cost::Listing* l = nullptr) {
  cost::TraceOptions o;
  o.clock_mhz = 1000;
  o.listing = l;
  return o;
}

void small_run(cost::TraceView& v) {
  v.on_issue(issue(3, 1, 0, 10));
  v.on_issue(issue(3, 1, 1, 11));
  v.on_issue(issue(3, 1, 2, 12));
  v.on_stall(stall(3, 1, Stall::MemoryDependency, 13, 500, 2, 0));
  v.on_issue(issue(3, 1, 2, 513));
  v.on_cta(3, 7, 0, 600);
  v.on_cta(3, 8, 100, 700);   // overlaps CTA 7: another slot
  v.on_cta(3, 9, 600, 900);   // starts when CTA 7 ends: its slot again
  v.on_residency(3, 8, 0, 100);
  v.on_residency(3, 16, 100, 700);
  v.on_residency(3, 8, 700, 900);
}

std::vector<json> with(const json& t, const std::string& key, const std::string& value) {
  std::vector<json> out;
  for (const auto& e : t["traceEvents"])
    if (e.value(key, std::string()) == value) out.push_back(e);
  return out;
}

TEST(TraceView, NamesAProcessPerSmAndAThreadPerSchedulerAndCtaSlot) {
  cost::TraceView v(options());
  small_run(v);
  const json t = trace(v).j;
  EXPECT_EQ(t["displayTimeUnit"], "ns");
  EXPECT_EQ(t["otherData"]["kernel"], "k");
  bool sm3 = false, sched1 = false, slot1 = false;
  for (const auto& e : with(t, "ph", "M")) {
    const std::string n = e["args"].value("name", std::string());
    if (e["name"] == "process_name" && e["pid"] == 3 && n == "SM 3") sm3 = true;
    if (e["name"] == "thread_name" && e["pid"] == 3 && e["tid"] == 1 && n == "scheduler 1") sched1 = true;
    if (e["name"] == "thread_name" && e["pid"] == 3 && n == "CTA slot 1") slot1 = true;
  }
  EXPECT_TRUE(sm3 && sched1 && slot1) << t.dump();
}

TEST(TraceView, ConsecutiveIssuesMergeIntoOneSliceEndedByAStall) {
  const cost::Listing l = listing();
  cost::TraceView v(options(&l));
  small_run(v);
  const json t = trace(v).j;
  const auto issues = with(t, "cat", "issue");
  ASSERT_EQ(issues.size(), 2u) << "three back-to-back issues, a stall, one issue";
  EXPECT_EQ(issues[0]["name"], "ld.global.f32 +2") << "named by the first instruction's mnemonic";
  EXPECT_DOUBLE_EQ(issues[0]["ts"].get<double>(), 0.010) << "cycle 10 at 1000 MHz";
  EXPECT_DOUBLE_EQ(issues[0]["dur"].get<double>(), 0.003) << "three one-cycle issue slots";
  EXPECT_EQ(issues[0]["args"]["n"], 3);
  EXPECT_EQ(issues[0]["args"]["pc"], 0);
  EXPECT_EQ(issues[0]["args"]["last_pc"], 2);
  EXPECT_EQ(issues[1]["name"], "fma.rn.f32");
  EXPECT_EQ(issues[0]["pid"], 3);
  EXPECT_EQ(issues[0]["tid"], 1);
}

TEST(TraceView, AGapWithoutAStallStartsANewRun) {
  cost::TraceOptions o = options();
  o.issue_slot_cycles = 4;  // an AMD SIMD: one issue every 4 cycles
  cost::TraceView v(o);
  v.on_issue(issue(0, 0, 0, 0));
  v.on_issue(issue(0, 0, 1, 0));   // a second port in the same cycle
  v.on_issue(issue(0, 0, 2, 4));   // the next visit, back to back
  v.on_issue(issue(0, 0, 0, 20));  // long after, no stall between (a model switching windows)
  const auto issues = with(trace(v).j, "cat", "issue");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0]["args"]["n"], 3);
  EXPECT_EQ(issues[0]["dur"], 0.008) << "through the third issue's slot";
  EXPECT_EQ(issues[1]["ts"], 0.02);
}

TEST(TraceView, StallsAreSlicesNamedByReasonWithTheWaitedForInstruction) {
  const cost::Listing l = listing();
  cost::TraceView v(options(&l));
  small_run(v);
  const auto stalls = with(trace(v).j, "cat", "stall");
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_EQ(stalls[0]["name"], "memory_dependency");
  EXPECT_EQ(stalls[0]["ph"], "X");
  EXPECT_DOUBLE_EQ(stalls[0]["ts"].get<double>(), 0.013);
  EXPECT_DOUBLE_EQ(stalls[0]["dur"].get<double>(), 0.5);
  EXPECT_EQ(stalls[0]["args"]["pc"], 2);
  EXPECT_EQ(stalls[0]["args"]["warp"], 0);
  EXPECT_EQ(stalls[0]["args"]["op"], "fma.rn.f32");
  EXPECT_EQ(stalls[0]["args"]["cycles"], 500);
}

TEST(TraceView, CtasTakeTheLowestFreeSlot) {
  cost::TraceView v(options());
  small_run(v);
  const auto ctas = with(trace(v).j, "cat", "cta");
  ASSERT_EQ(ctas.size(), 3u);
  std::map<std::string, int> tid;
  for (const auto& c : ctas) tid[c["name"].get<std::string>()] = c["tid"].get<int>();
  EXPECT_EQ(tid["CTA 7"], tid["CTA 9"]) << "CTA 9 starts as CTA 7 ends";
  EXPECT_NE(tid["CTA 7"], tid["CTA 8"]);
  for (const auto& c : ctas)
    if (c["name"] == "CTA 8") {
      EXPECT_DOUBLE_EQ(c["dur"].get<double>(), 0.6);
    }
}

TEST(TraceView, ResidentWarpsAreACounterThatDropsToZeroAtTheEnd) {
  cost::TraceView v(options());
  small_run(v);
  const auto c = with(trace(v).j, "ph", "C");
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[1]["args"]["warps"], 16);
  EXPECT_DOUBLE_EQ(c[3]["ts"].get<double>(), 0.9);
  EXPECT_EQ(c[3]["args"]["warps"], 0);
}

TEST(TraceView, SlicesOfOneThreadNeverOverlap) {
  // an issue run whose last slot would run past the stall that follows is cut where it starts;
  // times are whole nanoseconds (Perfetto rounds to them), so a cut mid-nanosecond still meets
  cost::TraceView v(options());
  v.on_issue(issue(0, 0, 0, 10));
  v.on_stall(stall(0, 0, Stall::PipeBusy, 10.6, 4));
  const auto t = trace(v).j;
  const auto issues = with(t, "cat", "issue"), stalls = with(t, "cat", "stall");
  ASSERT_EQ(issues.size(), 1u);
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_EQ(issues[0]["dur"], 0.001);
  EXPECT_EQ(stalls[0]["ts"], 0.011);
  EXPECT_DOUBLE_EQ(issues[0]["ts"].get<double>() + issues[0]["dur"].get<double>(), stalls[0]["ts"].get<double>());
}

TEST(TraceView, TimesAreMicrosecondsAtTheGivenClock) {
  cost::TraceOptions o = options();
  o.clock_mhz = 2000;  // two cycles a nanosecond
  cost::TraceView v(o);
  v.on_cta(0, 1, 4000, 10000);
  const auto c = with(trace(v).j, "cat", "cta");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]["ts"], 2);
  EXPECT_EQ(c[0]["dur"], 3);
}

TEST(TraceView, TheListingGoesToOtherDataByPc) {
  const cost::Listing l = listing();
  cost::TraceView v(options(&l));
  small_run(v);
  const json t = trace(v).j;
  ASSERT_EQ(t["otherData"]["instructions"].size(), 3u);
  EXPECT_EQ(t["otherData"]["instructions"][1], "@%p1 bra $L__BB0_2;");
}

TEST(TraceView, TheEventCapStopsRecordingAndSaysSo) {
  cost::TraceOptions o = options();
  o.max_events = 10;
  cost::TraceView v(o);
  for (int i = 0; i < 100; ++i) {
    v.on_issue(issue(0, 0, 0, 2.0 * i));
    v.on_stall(stall(0, 0, Stall::ExecutionDependency, 2.0 * i + 1, 1));
  }
  const json t = trace(v).j;
  int slices = 0;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X") ++slices;
  EXPECT_EQ(slices, 10);
  EXPECT_EQ(t["otherData"]["truncated"], true);
  EXPECT_EQ(t["otherData"]["dropped_events"], 190);
  const auto notes = with(t, "cat", "note");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0]["name"].get<std::string>(), testing::HasSubstr("truncated"));
  EXPECT_DOUBLE_EQ(notes[0]["ts"].get<double>(), 0.01) << "where the first dropped event began (cycle 10)";
}

TEST(TraceView, OutputIsDeterministic) {
  cost::TraceView a(options()), b(options());
  small_run(a);
  small_run(b);
  EXPECT_EQ(trace(a).text, trace(b).text);
}

TEST(TraceView, AnUnwritablePathIsAnIoErrorNamingIt) {
  cost::TraceView v(options());
  small_run(v);
  try {
    v.write_file("/nonexistent-dir/t.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_THAT(e.what(), testing::HasSubstr("/nonexistent-dir/t.json"));
  }
}

}  // namespace
}  // namespace kernsim
