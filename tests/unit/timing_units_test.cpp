// Unit tests of the timing core's hardware units (sim/timing/units) and the sampler's rate
// arithmetic: each unit on its own, without a kernel, a compiler or a device file.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include "sim/timing/sampling.h"
#include "sim/timing/units/async_engine.h"
#include "sim/timing/units/barrier_unit.h"
#include "sim/timing/units/completion.h"
#include "sim/timing/units/cta_dispatcher.h"
#include "sim/timing/units/event_queue.h"
#include "sim/timing/units/pipe_set.h"
#include "sim/timing/units/range_scoreboard.h"
#include "sim/timing/units/scoreboard.h"
#include "sim/timing/units/wait_counters.h"

using namespace kernsim::sim;
using kernsim::isa::Unit;

TEST(Scoreboard, ResetMakesEveryRegisterReadyAtTheStart) {
  Scoreboard sb;
  sb.resize(4);
  sb.write(2, 500, true, 1);
  sb.reset(100);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(sb.at(r).ready, 100);
    EXPECT_FALSE(sb.at(r).from_memory);
  }
}

TEST(Scoreboard, ForwardCopiesThePendingValueAndItsOrigin) {
  Scoreboard sb;
  sb.resize(3);
  sb.reset(0);
  sb.write(0, 420, true, 0);
  sb.forward(1, 0);
  EXPECT_EQ(sb.at(1).ready, 420);
  EXPECT_TRUE(sb.at(1).from_memory);
  EXPECT_EQ(sb.latest(10), 420);
  EXPECT_EQ(sb.latest(900), 900);
}

TEST(PipeSet, OccupyKeepsOnlyThatPipeBusyWithoutSharing) {
  PipeSet p(false);
  p.reset(0);
  p.occupy(Unit::TensorF16, 10, 16);
  EXPECT_EQ(p.free_at(Unit::TensorF16), 26);
  EXPECT_EQ(p.free_at(Unit::Fp32), 0);
}

TEST(PipeSet, MatrixAndMathPipesHoldEachOtherWhenTheyShare) {
  PipeSet p(true);
  p.reset(0);
  p.occupy(Unit::TensorF16, 10, 16);
  EXPECT_EQ(p.free_at(Unit::Fp32), 26);
  EXPECT_EQ(p.free_at(Unit::IntAlu), 26);
  EXPECT_EQ(p.free_at(Unit::Sfu), 0);        // not a math pipe
  EXPECT_EQ(p.free_at(Unit::TensorF64), 0);  // DMMA is left out
  p.occupy(Unit::Fp32, 30, 2);
  EXPECT_EQ(p.free_at(Unit::TensorI8), 32);
}

TEST(BarrierUnit, ReleaseWaitsForEveryArrivalToBeCounted) {
  BarrierUnit b(2, 20);
  b.reset();
  b.arrive(100);
  b.arrive(100);
  b.arrive(100);  // counted at 102, 104, 106
  EXPECT_EQ(b.release(100), 126);
  EXPECT_EQ(b.release(200), 220);  // counting long done
}

TEST(BarrierUnit, WithoutCountingReleasesALatencyLater) {
  BarrierUnit b(0, 16);
  b.reset();
  EXPECT_EQ(b.release(50), 66);
}

TEST(CompletionObject, CompletesAtTheLastArrivalOnceAllAreRecorded) {
  CompletionObject o;
  o.expect(0, 2, 256);
  o.arrive(40);
  EXPECT_EQ(o.ready_at(), CompletionObject::kNever);
  o.complete_bytes(90, 128);
  o.arrive(30);
  EXPECT_FALSE(o.all_recorded());  // 128 bytes still expected
  o.complete_bytes(70, 128);
  EXPECT_EQ(o.ready_at(), 90);
  EXPECT_TRUE(o.complete_by(90));
  EXPECT_FALSE(o.complete_by(89));
}

TEST(AsyncGroups, WaitingForAllButTheNewestGroupIgnoresIt) {
  AsyncGroups g;
  g.reset(0);
  g.open_group().arrive(300);
  g.commit(10);
  g.open_group().arrive(900);
  g.commit(20);
  EXPECT_EQ(g.wait(1, 25), 300);   // the older group only
  EXPECT_EQ(g.wait(0, 25), 900);   // the remaining one (and the empty open group)
  EXPECT_EQ(g.wait(0, 950), 950);  // nothing left to wait for
}

TEST(AsyncGroups, WaitZeroIncludesTheOpenGroup) {
  AsyncGroups g;
  g.reset(0);
  g.open_group().arrive(500);
  EXPECT_EQ(g.wait(0, 1), 500);
}

// The seam asynchronous engines use: a warp hands a request to an engine and waits on the
// completion object the engine completes; the warp is ready when the engine's work is done.
TEST(AsyncEngine, AWarpWaitingOnAnEngineCompletionIsReadyWhenTheEngineFinishes) {
  PipelinedEngine copy("test copy", /*issue*/ 4, /*bytes per cycle*/ 64, /*latency*/ 100);
  CompletionObject barrier;  // an mbarrier phase expecting 2 KiB of transactions
  barrier.expect(0, 0, 2048);
  AsyncRequest a;
  a.issue = 10;
  a.bytes = 1024;
  a.target = &barrier;
  a.counts_arrival = false;
  const AsyncAccepted first = copy.accept(a);
  EXPECT_EQ(first.accepted, 10);
  EXPECT_EQ(first.done, 10 + 1024 / 64 + 100);
  EXPECT_FALSE(barrier.complete_by(1e9));  // half of the bytes are still outstanding
  AsyncRequest b = a;
  b.issue = 11;  // the engine's issue stage is busy until 14
  const AsyncAccepted second = copy.accept(b);
  EXPECT_EQ(second.accepted, 14);
  EXPECT_EQ(second.done, 10 + 2 * (1024 / 64) + 100);  // behind the first one's data
  // a warp that waits on the barrier (try_wait in a loop) may go on at its completion
  const double warp_ready = std::max(20.0, barrier.ready_at());
  EXPECT_EQ(warp_ready, second.done);
}

TEST(ClusterContext, MbarriersAreSharedByAddressAndClearedPerLaunch) {
  ClusterContext c;
  c.object_at(0x100).expect(0, 2);
  c.object_at(0x100).arrive(50);
  EXPECT_TRUE(c.has_object(0x100));
  c.object_at(0x100).arrive(70);
  EXPECT_EQ(c.object_at(0x100).ready_at(), 70);
  c.clear();
  EXPECT_FALSE(c.has_object(0x100));
}

TEST(DispatchClock, OneCtaPerDispatchIntervalAndPerUnitLaunchInterval) {
  DispatchClock d(1, 2, /*dispatch*/ 10, /*launch*/ 100);
  EXPECT_EQ(d.start(0, 0, 0), 0);
  EXPECT_EQ(d.start(0, 1, 0), 10);   // the dispatcher's next slot
  EXPECT_EQ(d.start(0, 0, 0), 100);  // unit 0 launched at 0
  EXPECT_EQ(d.start(0, 1, 500), 500);
}

// AMD: a CU still inside its launch interval does not hold its XCD's workgroup manager; the
// other CUs' workgroups are handed out one per dispatch interval meanwhile (held, unit 1 would
// wait for unit 0's start at 100).
TEST(DispatchClock, AUnitInItsLaunchIntervalDoesNotHoldAnAmdWorkgroupManager) {
  DispatchClock d(1, 2, /*dispatch*/ 10, /*launch*/ 100, /*unit_holds_dispatcher*/ false);
  EXPECT_EQ(d.start(0, 0, 0), 0);
  EXPECT_EQ(d.start(0, 0, 0), 100);  // handed over at 10, unit 0 starts it at 100
  EXPECT_EQ(d.start(0, 1, 0), 20);   // the manager's next slot, not after unit 0's start
  DispatchClock held(1, 2, 10, 100);
  EXPECT_EQ(held.start(0, 0, 0), 0);
  EXPECT_EQ(held.start(0, 0, 0), 100);
  EXPECT_EQ(held.start(0, 1, 0), 110);
}

TEST(DispatchClock, DomainsDispatchIndependently) {
  DispatchClock d(2, 2, 10, 0);
  EXPECT_EQ(d.start(0, 0, 0), 0);
  EXPECT_EQ(d.start(1, 1, 0), 0);  // another XCD's workgroup manager
  EXPECT_EQ(d.start(0, 1, 0), 10);
}

TEST(RoundRobinToUnits, CtaIGoesToUnitIModN) {
  RoundRobinToUnits q(3, 7);
  EXPECT_EQ(q.next(1), 1u);
  EXPECT_EQ(q.next(1), 4u);
  EXPECT_FALSE(q.empty(0));
  EXPECT_EQ(q.next(0), 0u);
  int remaining = 0;
  q.for_each_remaining([&](std::uint64_t) { ++remaining; });
  EXPECT_EQ(remaining, 4);  // 3, 6 on unit 0; 2, 5 on unit 2
  EXPECT_TRUE(q.empty(0) && q.empty(1) && q.empty(2));
}

// Two GPCs of 3 and 2 SMs (SMs 0-2 and 3-4), two slots per SM, clusters of 3 CTAs.
TEST(ClusterPlacer, AClustersCtasStartTogetherOnSmsOfOneGpc) {
  ClusterPlacer p({3, 2}, 2, 3, 4);
  EXPECT_EQ(p.largest_gpc_slots(), 6);
  const auto c0 = p.place();  // GPC 0, one CTA on each of its SMs
  ASSERT_EQ(c0.size(), 3u);
  EXPECT_EQ(c0[0], std::make_pair(0, 0));
  EXPECT_EQ(c0[1], std::make_pair(1, 0));
  EXPECT_EQ(c0[2], std::make_pair(2, 0));
  const auto c1 = p.place();  // GPC 1 (the GPCs take turns): 2 SMs, so one holds two of its CTAs
  ASSERT_EQ(c1.size(), 3u);
  for (const auto& [sm, slot] : c1) EXPECT_TRUE(sm == 3 || sm == 4) << sm;
  EXPECT_EQ(c1[0], std::make_pair(3, 0));
  EXPECT_EQ(c1[1], std::make_pair(4, 0));
  EXPECT_EQ(c1[2], std::make_pair(3, 1));
  const auto c2 = p.place();  // GPC 0's second slots
  ASSERT_EQ(c2.size(), 3u);
  for (const auto& [sm, slot] : c2) EXPECT_EQ(slot, 1) << sm;
  EXPECT_TRUE(p.place().empty());  // 1 slot left in GPC 1, none in GPC 0: cluster 3 waits
  EXPECT_EQ(p.next_cluster(), 3u);
  p.release(0, 0);
  p.release(1, 0);
  EXPECT_TRUE(p.place().empty());  // 2 free in GPC 0, 1 in GPC 1: still no GPC with 3
  p.release(2, 1);
  const auto c3 = p.place();
  ASSERT_EQ(c3.size(), 3u);
  for (const auto& [sm, slot] : c3) EXPECT_LT(sm, 3);
  EXPECT_TRUE(p.empty());
}

TEST(ClusterPlacer, AClusterLargerThanEveryGpcNeverFits) {
  ClusterPlacer p({2, 2}, 1, 3, 1);
  EXPECT_EQ(p.largest_gpc_slots(), 2);
  EXPECT_TRUE(p.place().empty());
  std::uint64_t left = 0;
  p.for_each_remaining([&](std::uint64_t) { ++left; });
  EXPECT_EQ(left, 1u);
}

// What an SM slice of whole GPCs is measured by: clusters in flight, not SMs. A GPC of 5 SMs with
// 2 CTAs each holds three clusters of 3 (one slot idle), one of 2 SMs holds one.
TEST(ClusterPlacer, CapacityCountsTheClustersAllGpcsHoldAtOnce) {
  ClusterPlacer p({5, 2}, 2, 3, 100);
  EXPECT_EQ(p.capacity(), 4);
  int placed = 0;
  while (!p.place().empty()) ++placed;
  EXPECT_EQ(placed, p.capacity());
  EXPECT_EQ(ClusterPlacer({2, 2}, 1, 3, 1).capacity(), 0);
}

// The sampler's queue must run events in the order std::priority_queue did (earliest first, the
// lower unit first on equal times), or simulations would change: the same random pushes, pops and
// replaced tops, with many equal times, give the same tops.
TEST(EventQueue, PopsInTheOrderOfAPriorityQueueOfPairs) {
  EventQueue q;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> ref;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> unit(0, 40), step(0, 6), op(0, 9);
  double now = 0;
  for (int i = 0; i < 20000; ++i) {
    const int o = op(rng);
    if (o < 3 || ref.empty()) {  // a unit woken at a time from now on
      const double t = now + step(rng) * 0.5;
      const int u = unit(rng);
      q.push({t, u});
      ref.push({t, u});
    } else {
      ASSERT_EQ(q.size(), ref.size());
      ASSERT_EQ(q.top().t, ref.top().first) << "event " << i;
      ASSERT_EQ(q.top().unit, ref.top().second) << "event " << i;
      now = ref.top().first;
      if (o < 7) {  // stepped: back with its next event
        const EventQueue::Event e{now + 1 + step(rng) * 0.5, ref.top().second};
        ref.pop();
        ref.push({e.t, e.unit});
        q.replace_top(e);
      } else {
        ref.pop();
        q.pop();
      }
    }
  }
}

TEST(WaitCounters, VmcntDecrementsInIssueOrder) {
  WaitCounters w;
  w.reset(0);
  w.push_vm(0, 500);
  w.push_vm(1, 200);  // completes early but counts only after the older one
  EXPECT_EQ(w.vm_at_most(1, 0), 500);
  EXPECT_EQ(w.vm_at_most(0, 0), 500);
  EXPECT_EQ(w.vm_at_most(2, 0), 0);  // two outstanding are allowed
  EXPECT_EQ(w.drain(), 500);
}

TEST(WaitCounters, LgkmcntCountsScalarOperationsInAnyOrder) {
  WaitCounters w;
  w.reset(0);
  w.push_other(0, 400);
  w.push_other(1, 100);
  EXPECT_EQ(w.lgkm_at_most(1, 0), 100);  // the earlier completion frees a count
  EXPECT_EQ(w.lgkm_at_most(0, 0), 400);
  EXPECT_EQ(w.lgkm_at_most(0, 400), 0);  // none outstanding after 400
}

TEST(RangeScoreboard, AReadWaitsForAnOverlappingPendingResult) {
  RangeScoreboard sb;
  sb.reset(0);
  const RegRange w[1] = {{10, 4}};
  sb.write(w, 1, 40, false, 0, 4);
  const RegRange hit[1] = {{12, 1}}, miss[1] = {{14, 2}};
  bool waited = false;
  EXPECT_EQ(sb.ready(hit, 1, -1, 0, 5, waited), 40);
  EXPECT_TRUE(waited);
  waited = false;
  EXPECT_EQ(sb.ready(miss, 1, -1, 0, 5, waited), 5);
  EXPECT_FALSE(waited);
}

TEST(RangeScoreboard, AnMfmaAccumulatorTakesAnMfmaResultEarly) {
  RangeScoreboard sb;
  sb.reset(0);
  const RegRange acc[1] = {{0, 16}};
  sb.write(acc, 1, 64, /*mfma*/ true, 0, 4);
  bool waited = false;
  EXPECT_EQ(sb.ready(acc, 1, /*acc*/ 0, /*forward*/ 8, 0, waited), 56);
  EXPECT_EQ(sb.ready(acc, 1, /*acc*/ -1, 8, 0, waited), 64);
}

TEST(RangeScoreboard, AResultReadyBeforeTheNextIssueIsNotKept) {
  RangeScoreboard sb;
  sb.reset(0);
  const RegRange r[1] = {{3, 1}};
  sb.write(r, 1, 4, false, 0, /*next issue*/ 4);
  bool waited = false;
  EXPECT_EQ(sb.ready(r, 1, -1, 0, 1, waited), 1);
  EXPECT_FALSE(waited);
}

TEST(SteadyRate, UsesTheSecondHalfOfTheCheckpoints) {
  std::vector<Progress> p;
  for (int i = 0; i <= 8; ++i) p.push_back({i * 100.0 + (i > 0 ? 400 : 0), static_cast<std::uint64_t>(i * 1000), 0, 0});
  // checkpoints 4..8: 4000 instructions in 400 cycles (the ramp from 0 to 500 is left out)
  EXPECT_DOUBLE_EQ(steady_rate(p, 0, p.back()), 10.0);
}

TEST(SteadyRate, HasConvergedOnlyWhenTheLastThreeQuartersAgree) {
  // 1000 instructions per checkpoint; checkpoint i at the time `at(i)`
  auto window = [](auto at) {
    std::vector<Progress> p;
    for (int i = 0; i <= 16; ++i) p.push_back({at(i), static_cast<std::uint64_t>(i * 1000), 0, 0});
    return p;
  };
  // a ramp over the first quarter, then 10 per cycle: converged
  EXPECT_TRUE(rate_converged(window([](int i) { return i <= 4 ? i * 400.0 : 1600 + (i - 4) * 100.0; }), 0, 0.02));
  // 1% slower every checkpoint: the quarters differ by more than 2%
  EXPECT_FALSE(rate_converged(window([](int i) { return 100.0 * (std::pow(1.01, i) - 1) / 0.01; }), 0, 0.02));
  // steady in the second half but twice as fast in the quarter before it: a phase that just changed
  EXPECT_FALSE(rate_converged(window([](int i) { return i <= 8 ? i * 50.0 : 400 + (i - 8) * 100.0; }), 0, 0.02));
  // two halves of the last half that disagree by 10%
  EXPECT_FALSE(rate_converged(window([](int i) { return i <= 12 ? i * 100.0 : 1200 + (i - 12) * 110.0; }), 0, 0.02));
  // too few checkpoints to tell
  std::vector<Progress> few = window([](int i) { return i * 100.0; });
  few.resize(6);
  EXPECT_FALSE(rate_converged(few, 0, 0.02));
  // the served work of the busiest shared resource bounds each span, as steady_rate's
  std::vector<Progress> busy = window([](int i) { return i * 100.0; });
  for (std::size_t i = 12; i < busy.size(); ++i) busy[i].shared_busy = 1200 + (static_cast<double>(i) - 12) * 150;
  EXPECT_FALSE(rate_converged(busy, 0, 0.02));
}

TEST(SteadyRate, IsBoundedByTheBusiestSharedResource) {
  std::vector<Progress> p;
  for (int i = 0; i <= 8; ++i) p.push_back({i * 100.0, static_cast<std::uint64_t>(i * 1000), i * 200.0, i * 300.0});
  EXPECT_DOUBLE_EQ(steady_rate(p, 0, p.back()), 4000.0 / 800.0);         // served work: 800 busy cycles
  EXPECT_DOUBLE_EQ(steady_rate(p, 0, p.back(), true), 4000.0 / 1200.0);  // committed work
}
