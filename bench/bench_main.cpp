// Google Benchmark targets. The hot loops (functional execution, the timing cycle loop) get
// their benchmarks beside them as they land; this file also times the device-file loader and
// the launch-spec parser, which run once per launch in an RL loop.
#include <benchmark/benchmark.h>

#include "api/launch_spec.h"
#include "device/loader.h"

static void BM_LoadDeviceFile(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(kernsim::device::load_builtin_device("h200"));
}
BENCHMARK(BM_LoadDeviceFile);

static void BM_ParseLaunchSpec(benchmark::State& state) {
  const std::string text = R"({"source": "k.cu", "kernel": "saxpy", "grid": [4096], "block": [256],
    "args": [{"type": "u64", "value": 1048576}, {"type": "f32", "value": 2.0},
             {"buffer": "f32", "count": 1048576, "init": "uniform"},
             {"buffer": "f32", "count": 1048576, "init": "zeros"}]})";
  for (auto _ : state) benchmark::DoNotOptimize(kernsim::api::parse_launch_spec_text(text, ".", "bench"));
}
BENCHMARK(BM_ParseLaunchSpec);

BENCHMARK_MAIN();
