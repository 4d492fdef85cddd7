// Thread-block clusters (sm_90) through the library: CUDA kernels using cooperative_groups'
// this_cluster() and a PTX kernel spelling distributed shared memory out, checked against sums
// and permutations computed here; bad cluster shapes and a cluster barrier nothing can complete
// are named errors; the cluster barrier and remote shared memory cost what the device file says.
#include <cstring>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const std::string kData = KERNSIM_TEST_DATA;

api::RunResult run(const std::string& json, const device::DeviceSpec& dev = device::load_builtin_device("h200"),
                   bool full = true, std::uint64_t budget = 0) {
  auto spec = api::parse_launch_spec_text(json, kData + "/kernels", "cluster test");
  api::RunOptions o;
  o.full = full;
  o.detail_budget = budget;
  o.keep_outputs = true;
  return api::run_launch(spec, dev, o);
}

template <class T>
std::vector<T> output(const api::RunResult& r, std::size_t arg) {
  for (const auto& b : r.outputs)
    if (b.arg_index == arg) {
      std::vector<T> v(b.bytes.size() / sizeof(T));
      std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
      return v;
    }
  ADD_FAILURE() << "no output for argument " << arg;
  return {};
}

// An SM slice runs clusters 0..k-1 and asks which cluster a CTA belongs to: cluster_of undoes
// cluster_cta for every CTA of a 3D grid of 3D clusters, and each cluster has its CTAs once.
TEST(Clusters, EveryCtaBelongsToTheClusterThatListsIt) {
  sim::LaunchDims d;
  d.grid = {6, 4, 3};
  d.cluster = {3, 2, 1};
  std::vector<int> seen(d.num_blocks(), 0);
  for (std::uint64_t c = 0; c < d.num_clusters(); ++c)
    for (std::uint32_t r = 0; r < d.cluster_ctas(); ++r) {
      const std::uint64_t id = d.cluster_cta(c, r);
      ASSERT_LT(id, d.num_blocks());
      EXPECT_EQ(d.cluster_of(id), c) << "CTA " << id << " rank " << r;
      ++seen[id];
    }
  for (std::uint64_t id = 0; id < d.num_blocks(); ++id) EXPECT_EQ(seen[id], 1) << "CTA " << id;
  // CTA (4, 3, 2): cluster (1, 1, 2) of the 2 x 2 x 3 grid of clusters
  EXPECT_EQ(d.cluster_of(4 + 6 * (3 + 4 * 2)), 1u + 2 * (1 + 2 * 2));
}

// Eight CTAs of 128 elements (0, 1, 2, ...) in clusters of 4: each cluster's sum of 512.
TEST(Clusters, AClusterSumsThroughDistributedSharedMemory) {
  for (bool full : {true, false}) {
    const auto r =
        run(R"({"source": "clusters.cu", "kernel": "cluster_sum", "grid": 8, "block": 128, "cluster": [4, 1, 1],
                           "args": [{"buffer": "f32", "count": 1024, "init": "iota"}, {"buffer": "f32", "count": 2}]})",
            device::load_builtin_device("h200"), full);
    const auto out = output<float>(r, 1);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], 511.0f * 512 / 2);                 // 0 + ... + 511
    EXPECT_EQ(out[1], 512.0f * 512 + 511.0f * 512 / 2);  // 512 + ... + 1023
  }
}

// Every CTA stores into the next rank's shared memory: CTA b receives from the rank before it.
void expect_ring(const std::vector<int>& out, int ctas, int cluster) {
  ASSERT_EQ(out.size(), static_cast<std::size_t>(ctas) * 64);
  for (int b = 0; b < ctas; ++b) {
    const int rank = b % cluster, base = b - rank, pred_rank = (rank + cluster - 1) % cluster, pred = base + pred_rank;
    for (int t = 0; t < 64; ++t)
      ASSERT_EQ(out[static_cast<std::size_t>(b * 64 + t)], (pred * 64 + t) * 10 + pred_rank)
          << "CTA " << b << " thread " << t;
  }
}

TEST(Clusters, ARingExchangesBetweenRanksForEveryClusterShape) {
  for (int c : {2, 4, 8}) {
    const std::string spec =
        R"({"source": "clusters.cu", "kernel": "cluster_ring", "grid": 16, "block": 64, "cluster": [)" +
        std::to_string(c) +
        R"(, 1, 1], "args": [{"buffer": "i32", "count": 1024, "init": "iota"}, {"buffer": "i32", "count": 1024}]})";
    expect_ring(output<int>(run(spec), 1), 16, c);
  }
  // 16 CTAs per cluster: only with the non-portable opt-in
  expect_ring(
      output<int>(
          run(R"({"source": "clusters.cu", "kernel": "cluster_ring", "grid": 32, "block": 64, "cluster": [16, 1, 1],
                                  "cluster_nonportable": true,
                                  "args": [{"buffer": "i32", "count": 2048, "init": "iota"}, {"buffer": "i32", "count": 2048}]})"),
          1),
      32, 16);
}

// A grid of several waves timed on a few thousand instructions: the clusters in flight when the
// window closes and those never started still run, each once and as a whole.
TEST(Clusters, ASampledLaunchStillRunsEveryClusterOnce) {
  const auto r =
      run(R"({"source": "clusters.cu", "kernel": "cluster_ring", "grid": 8192, "block": 64, "cluster": [4, 1, 1],
                         "args": [{"buffer": "i32", "count": 524288, "init": "iota"}, {"buffer": "i32", "count": 524288}]})",
          device::load_builtin_device("h200"), false, 20000);
  EXPECT_NE(r.report_json.find("extrapolated"), std::string::npos);
  expect_ring(output<int>(r, 1), 8192, 4);
}

TEST(Clusters, RemoteAtomicsCountEveryThreadOfTheCluster) {
  const auto r =
      run(R"({"source": "clusters.cu", "kernel": "cluster_count", "grid": [4, 2, 1], "block": 96, "cluster": [2, 2, 1],
                         "args": [{"buffer": "u32", "count": 2}]})");
  const auto out = output<std::uint32_t>(r, 0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], 4u * 96);
  EXPECT_EQ(out[1], 4u * 96);
}

TEST(Clusters, SpecialRegistersDescribeTheCluster) {
  const char* spec = R"({"source": "clusters.cu", "kernel": "cluster_ids", "grid": [4, 2, 1], "block": 32, %s
                         "args": [{"buffer": "u32", "count": 64}]})";
  char buf[512];
  std::snprintf(buf, sizeof buf, spec, R"("cluster": [2, 1, 1],)");
  const auto with = output<std::uint32_t>(run(buf), 0);
  std::snprintf(buf, sizeof buf, spec, "");
  const auto without = output<std::uint32_t>(run(buf), 0);
  ASSERT_EQ(with.size(), 64u);
  for (std::uint32_t by = 0; by < 2; ++by)
    for (std::uint32_t bx = 0; bx < 4; ++bx) {
      const std::size_t o = (by * 4 + bx) * 8;
      const std::vector<std::uint32_t> want = {bx / 2, by, bx % 2, 0, bx % 2, 2, 2, 1};
      const std::vector<std::uint32_t> alone = {bx, by, 0, 0, 0, 1, 4, 0};  // clusters of one, implicit
      EXPECT_EQ(
          std::vector<std::uint32_t>(with.begin() + static_cast<long>(o), with.begin() + static_cast<long>(o + 8)),
          want)
          << bx << "," << by;
      EXPECT_EQ(std::vector<std::uint32_t>(without.begin() + static_cast<long>(o),
                                           without.begin() + static_cast<long>(o + 8)),
                alone)
          << bx << "," << by;
    }
}

TEST(Clusters, PtxMapaAndTheSharedClusterWindowReachTheOtherCta) {
  // .reqnctapercluster 2 gives the shape; the spec need not
  const auto out =
      output<std::uint32_t>(run(R"({"source": "cluster_dsmem.ptx", "kernel": "dsmem_pair", "grid": 4, "block": 32,
                                                 "args": [{"buffer": "u32", "count": 512}]})"),
                            0);
  ASSERT_EQ(out.size(), 512u);
  for (std::uint32_t b = 0; b < 4; ++b)
    for (std::uint32_t t = 0; t < 32; ++t) {
      const std::size_t o = (b * 32 + t) * 4;
      const std::uint32_t other = ((b % 2) ^ 1) * 100 + t;
      EXPECT_EQ(out[o], other) << "ld.shared::cluster, CTA " << b;
      EXPECT_EQ(out[o + 1], other) << "generic ld, CTA " << b;
      EXPECT_EQ(out[o + 2], 1u) << "isspacep.shared::cluster";
      EXPECT_EQ(out[o + 3], 2 * ((b % 2) ^ 1))
          << "isspacep.shared::cta of the other CTA's address (0) + 2 x getctarank";
    }
}

TEST(Clusters, BadClusterShapesAreNamed) {
  const std::string ring = R"("source": "clusters.cu", "kernel": "cluster_ring", "block": 64,
                              "args": [{"buffer": "i32", "count": 2048}, {"buffer": "i32", "count": 2048}])";
  expect_error([&] { run("{" + ring + R"(, "grid": 6, "cluster": [4, 1, 1]})"); }, ErrorKind::LaunchSpec,
               {"`grid`", "grid.x = 6 is not a multiple of the cluster's 4"});
  expect_error([&] { run("{" + ring + R"(, "grid": 16, "cluster": [16, 1, 1]})"); }, ErrorKind::LaunchSpec,
               {"`cluster`", "16 CTAs exceeds the portable 8", "cluster_nonportable"});
  expect_error([&] { run("{" + ring + R"(, "grid": 32, "cluster": [32, 1, 1], "cluster_nonportable": true})"); },
               ErrorKind::LaunchSpec, {"`cluster`", "32 CTAs exceeds h200's largest, 16"});
  expect_error(
      [&] { run("{" + ring + R"(, "grid": 4, "cluster": [4, 1, 1]})", device::load_builtin_device("mi300x")); },
      ErrorKind::LaunchSpec, {"`cluster`", "no thread-block clusters", "on mi300x"});
  // the PTX kernel's own shape and limits
  expect_error(
      [] {
        run(R"({"source": "cluster_dsmem.ptx", "kernel": "dsmem_pair", "grid": 4, "block": 32, "cluster": [4, 1, 1],
                            "args": [{"buffer": "u32", "count": 512}]})");
      },
      ErrorKind::LaunchSpec, {"requires clusters of (2,1,1)", ".reqnctapercluster"});
  expect_error(
      [] {
        run(R"({"source": "cluster_dsmem.ptx", "kernel": "explicit_only", "grid": 4, "block": 32,
                            "args": [{"buffer": "u32", "count": 4}]})");
      },
      ErrorKind::LaunchSpec, {".explicitcluster", "must give `cluster`"});
  expect_error(
      [] {
        run(R"({"source": "cluster_dsmem.ptx", "kernel": "explicit_only", "grid": 8, "block": 32, "cluster": [8, 1, 1],
                            "args": [{"buffer": "u32", "count": 8}]})");
      },
      ErrorKind::LaunchSpec, {"8 CTAs exceeds kernel `explicit_only`'s .maxclusterrank 4"});
  const auto ok =
      output<std::uint32_t>(run(R"({"source": "cluster_dsmem.ptx", "kernel": "explicit_only", "grid": 8, "block": 32,
                                                "cluster": [4, 1, 1], "args": [{"buffer": "u32", "count": 8}]})"),
                            0);
  EXPECT_EQ(ok, std::vector<std::uint32_t>(8, 4u));
}

// GPCs of 4 SMs, one CTA of 200 KB shared memory per SM: a cluster of 8 has no GPC to run on.
TEST(Clusters, AClusterThatFitsNoGpcIsALaunchError) {
  test::TempDir t;
  std::string gpcs = "[4";
  for (int i = 1; i < 33; ++i) gpcs += ", 4";
  const auto f = t.write("small_gpcs.yaml", "inherits: h200\nname: small_gpcs\ntopology:\n  gpc_sms: {value: " + gpcs +
                                                "], source: what-if, confidence: estimated}\n");
  const device::DeviceSpec d = device::load_device_file(f);
  expect_error(
      [&] {
        run(R"({"source": "clusters.cu", "kernel": "cluster_ring", "grid": 16, "block": 64, "cluster": [8, 1, 1],
                             "dynamic_shared_bytes": 200000,
                             "args": [{"buffer": "i32", "count": 1024}, {"buffer": "i32", "count": 1024}]})",
            d);
      },
      ErrorKind::LaunchSpec, {"cluster of 8 CTAs x", "does not fit a GPC of 4 SMs", "1 such CTA per SM"});
  // clusters of 4 fit those GPCs
  expect_ring(
      output<int>(
          run(R"({"source": "clusters.cu", "kernel": "cluster_ring", "grid": 16, "block": 64, "cluster": [4, 1, 1],
                                  "dynamic_shared_bytes": 200000,
                                  "args": [{"buffer": "i32", "count": 1024, "init": "iota"}, {"buffer": "i32", "count": 1024}]})",
              d),
          1),
      16, 4);
}

TEST(Clusters, AClusterBarrierNoThreadCanCompleteIsADeadlock) {
  for (bool full : {true, false})
    expect_error(
        [&] {
          run(R"({"source": "clusters.cu", "kernel": "cluster_deadlock", "grid": 2, "block": 64, "cluster": [2, 1, 1],
                               "args": [{"buffer": "i32", "count": 1}]})",
              device::load_builtin_device("h200"), full);
        },
        ErrorKind::KernelFault,
        {"kernel `cluster_deadlock`", "cluster (0,0,0)", "cluster barrier deadlock", "CTA rank 0", "bar.sync"});
}

// The device file's numbers, and what they do: remote stores before a cluster barrier cost the
// DSMEM latency, a cluster of one pays none of it.
TEST(Clusters, DistributedSharedMemoryCostsItsDeviceFileLatency) {
  const device::DeviceSpec h200 = device::load_builtin_device("h200");
  EXPECT_GT(h200.shared.dsmem_latency_cycles,
            h200.shared.latency_cycles);  // the SM-to-SM network is farther than the own SM's banks
  EXPECT_LT(h200.shared.dsmem_latency_cycles, h200.l2.hit_latency_cycles);            // and nearer than L2
  EXPECT_LT(h200.shared.dsmem_bytes_per_cycle, h200.shared.bytes_per_cycle);          // and narrower
  EXPECT_GT(h200.sm.cluster_barrier_latency_cycles, h200.sm.barrier_latency_cycles);  // a cluster barrier crosses SMs
  EXPECT_LT(h200.sm.cluster_barrier_relaxed_latency_cycles,
            h200.sm.cluster_barrier_latency_cycles);  // no release fence
  EXPECT_LT(h200.sm.cluster_barrier_one_cta_latency_cycles,
            h200.sm.cluster_barrier_relaxed_latency_cycles);  // no other SM
  auto ring = [&](int c, const device::DeviceSpec& d) {
    return run(R"({"source": "clusters.cu", "kernel": "cluster_ring", "grid": 8, "block": 64, "cluster": [)" +
                   std::to_string(c) +
                   R"(, 1, 1], "args": [{"buffer": "i32", "count": 512}, {"buffer": "i32", "count": 512}]})",
               d)
        .cycles;
  };
  device::DeviceSpec slow = h200;
  slow.shared.dsmem_latency_cycles += 1000;
  device::DeviceSpec slow_barrier = h200;
  slow_barrier.sm.cluster_barrier_latency_cycles += 1000;
  const double local = ring(1, h200), remote = ring(4, h200);
  EXPECT_GT(remote - local, 0.5 * h200.shared.dsmem_latency_cycles) << local << " " << remote;
  EXPECT_NEAR(ring(4, slow) - remote, 1000, 50);           // one remote store per warp waits before the first barrier
  EXPECT_NEAR(ring(1, slow), local, 1e-9);                 // a cluster of one reaches no other SM
  EXPECT_NEAR(ring(4, slow_barrier) - remote, 2000, 100);  // two cluster barriers
  EXPECT_NEAR(ring(1, slow_barrier), local, 1e-9);         // a CTA launched as a cluster of one has its own latency
  // dsmem_pair's second barrier has a .relaxed arrival, its first the default one
  auto pair = [&](const device::DeviceSpec& d) {
    return run(R"({"source": "cluster_dsmem.ptx", "kernel": "dsmem_pair", "grid": 2, "block": 32, "args": [{"buffer": "u32", "count": 256}]})",
               d)
        .cycles;
  };
  device::DeviceSpec slow_relaxed = h200;
  slow_relaxed.sm.cluster_barrier_relaxed_latency_cycles += 1000;
  EXPECT_NEAR(pair(slow_relaxed) - pair(h200), 1000, 50);
  EXPECT_NEAR(pair(slow_barrier) - pair(h200), 1000, 50);
}

}  // namespace
}  // namespace kernsim
