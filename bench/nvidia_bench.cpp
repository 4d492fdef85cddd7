// Google Benchmark targets for the NVIDIA path.
//
// Functional executor (sim/functional/ptx_*.cpp): thread-instructions per second on one core
// (active lanes per warp instruction, summed), every CTA of the launch run functionally:
//   BM_PtxTriad        STREAM triad, 2^20 floats
//   BM_PtxSgemmTiled   sgemm_tiled 256 x 256 x 256: shared-memory tiles, barriers
//   BM_PtxReduceShared reduce_shared_f32, 2^20 floats
//   BM_PtxMmaGemm      mma_gemm_f16 256 x 256 x 256: ldmatrix, mma.sync m16n8k16 f32.f16.f16.f32
//   BM_PtxFmaLazy      triad over 2^20 floats from lazily filled inputs (1 KiB pages, the detailed
//                      tier's): the page test of every access, full-warp fma.rn.f32
// Timing model (sim/timing/nvidia_machine.cpp, the cycle loop with its memory system): a whole
// `kernsim run` of a launch through the library (compile cache warm), as users see it; the
// counter is warp instructions timed in detail per second:
//   BM_RunTriad4M      triad over 2^22 floats (sampled: SM slice)
//   BM_RunSgemmTiled   sgemm_tiled 1024^3 (sampled)
//   BM_RunFull         triad over 2^20 floats, every CTA timed (--full)
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "api/launch_spec.h"
#include "api/run.h"
#include "base/files.h"
#include "device/loader.h"
#include "frontends/compile.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/ptx_exec.h"

namespace {

using namespace kernsim;

const isa::ptx::Program& program(const std::string& file, const std::string& kernel) {
  static std::map<std::string, std::unique_ptr<isa::ptx::Program>> cache;
  const std::string key = file + ":" + kernel;
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  frontends::CompileOptions co;
  co.target = "sm_90a";
  const auto path = data_dir() / "tests" / "kernels" / "cuda" / file;
  frontends::DeviceModule m = frontends::compile(path, co);
  auto ast = isa::ptx::parse_module(m.text, path.string());
  auto p = std::make_unique<isa::ptx::Program>(isa::ptx::decode_kernel(ast, kernel, m.text, path.string()));
  return *cache.emplace(key, std::move(p)).first->second;
}

struct Params {
  std::vector<std::uint8_t> bytes;
  void put(const void* p, std::size_t n) {
    const std::size_t at = (bytes.size() + n - 1) / n * n;
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
  }
  Params& ptr(std::uint64_t a) { put(&a, 8); return *this; }
  Params& i32(std::int32_t v) { put(&v, 4); return *this; }
  Params& f32(float v) { put(&v, 4); return *this; }
};

std::uint64_t buffer(sim::GlobalMemory& mem, std::size_t floats, const char* name) {
  const std::uint64_t a = mem.allocate(floats * 4, name);
  float* p = reinterpret_cast<float*>(mem.find(a, 1)->data());
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (std::size_t i = 0; i < floats; ++i) p[i] = u(rng);
  return a;
}

void functional(benchmark::State& state, const std::string& file, const std::string& kernel, sim::LaunchDims dims,
                sim::GlobalMemory& mem, const Params& params) {
  const isa::ptx::Program& prog = program(file, kernel);
  sim::map_program_statics(prog, mem);
  std::uint64_t thread_insts = 0;
  for (auto _ : state) {
    sim::ExecOptions o;
    o.kernel_name = kernel;
    sim::PtxKernel k(prog, mem, dims, params.bytes, o);
    k.run_all();
    thread_insts += k.thread_instructions();
  }
  state.counters["thread_inst/s"] = benchmark::Counter(static_cast<double>(thread_insts), benchmark::Counter::kIsRate);
}

void BM_PtxTriad(benchmark::State& state) {
  const int n = 1 << 20;
  sim::GlobalMemory mem;
  const std::uint64_t b = buffer(mem, n, "b"), c = buffer(mem, n, "c"), a = buffer(mem, n, "a");
  Params p;
  p.ptr(b).ptr(c).ptr(a).f32(3.0f).i32(n);
  sim::LaunchDims d;
  d.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
  d.block = {256, 1, 1};
  functional(state, "stream.cu", "triad_f32", d, mem, p);
}
BENCHMARK(BM_PtxTriad)->Unit(benchmark::kMillisecond);

void BM_PtxSgemmTiled(benchmark::State& state) {
  const int n = 256;
  sim::GlobalMemory mem;
  const std::uint64_t A = buffer(mem, n * n, "A"), B = buffer(mem, n * n, "B"), C = buffer(mem, n * n, "C");
  Params p;
  p.i32(n).i32(n).i32(n).f32(1.0f).ptr(A).ptr(B).f32(0.0f).ptr(C);
  sim::LaunchDims d;
  d.grid = {static_cast<std::uint32_t>(n / 16), static_cast<std::uint32_t>(n / 16), 1};
  d.block = {16, 16, 1};
  functional(state, "sgemm.cu", "sgemm_tiled", d, mem, p);
}
BENCHMARK(BM_PtxSgemmTiled)->Unit(benchmark::kMillisecond);

void BM_PtxReduceShared(benchmark::State& state) {
  const int n = 1 << 20;
  sim::GlobalMemory mem;
  const std::uint64_t in = buffer(mem, n, "in"), part = buffer(mem, n / 256, "partial");
  Params p;
  p.ptr(in).ptr(part).i32(n);
  sim::LaunchDims d;
  d.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
  d.block = {256, 1, 1};
  functional(state, "reduce.cu", "reduce_shared_f32", d, mem, p);
}
BENCHMARK(BM_PtxReduceShared)->Unit(benchmark::kMillisecond);

// f16 values in [-1, 1] (bit patterns of the halves of 0..1 by 1/1024 steps, either sign)
std::uint64_t half_buffer(sim::GlobalMemory& mem, std::size_t halves, const char* name) {
  const std::uint64_t a = mem.allocate(halves * 2, name);
  auto* p = reinterpret_cast<std::uint16_t*>(mem.find(a, 1)->data());
  std::mt19937 rng(7);
  for (std::size_t i = 0; i < halves; ++i) p[i] = static_cast<std::uint16_t>((rng() & 0x8000u) | (rng() % 0x3c00u));
  return a;
}

void BM_PtxMmaGemm(benchmark::State& state) {
  const int n = 256;
  sim::GlobalMemory mem;
  const std::uint64_t A = half_buffer(mem, n * n, "A"), B = half_buffer(mem, n * n, "B"), C = buffer(mem, n * n, "C");
  Params p;
  p.ptr(A).ptr(B).ptr(C).i32(n).i32(n).i32(n);
  sim::LaunchDims d;
  d.grid = {static_cast<std::uint32_t>(n / 64), static_cast<std::uint32_t>(n / 64), 1};
  d.block = {128, 1, 1};
  functional(state, "mma_gemm.cu", "mma_gemm_f16", d, mem, p);
}
BENCHMARK(BM_PtxMmaGemm)->Unit(benchmark::kMillisecond);

void BM_PtxFmaLazy(benchmark::State& state) {
  const int n = 1 << 20;
  auto fill = [](std::uint64_t off, std::uint64_t bytes, std::uint8_t* dst) {
    for (std::uint64_t i = 0; i < bytes; ++i) dst[i] = static_cast<std::uint8_t>((off + i) * 37 % 61);
  };
  const isa::ptx::Program& prog = program("stream.cu", "triad_f32");
  std::uint64_t thread_insts = 0;
  for (auto _ : state) {
    sim::GlobalMemory mem;  // fresh lazy inputs: every page is filled once, every access tests its page
    const std::uint64_t b = mem.allocate_lazy(n * 4, "b", fill, sim::Allocation::kLazyPageDetailed);
    const std::uint64_t c = mem.allocate_lazy(n * 4, "c", fill, sim::Allocation::kLazyPageDetailed);
    const std::uint64_t a = mem.allocate(n * 4, "a");
    Params p;
    p.ptr(b).ptr(c).ptr(a).f32(3.0f).i32(n);
    sim::LaunchDims d;
    d.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
    d.block = {256, 1, 1};
    sim::map_program_statics(prog, mem);
    sim::ExecOptions o;
    o.kernel_name = "triad_f32";
    sim::PtxKernel k(prog, mem, d, p.bytes, o);
    k.run_all();
    thread_insts += k.thread_instructions();
  }
  state.counters["thread_inst/s"] = benchmark::Counter(static_cast<double>(thread_insts), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PtxFmaLazy)->Unit(benchmark::kMillisecond);

void timed(benchmark::State& state, const std::string& json, bool full) {
  const auto spec = api::parse_launch_spec_text(json, (data_dir() / "tests" / "kernels" / "cuda").string(), "bench spec");
  const auto dev = device::load_builtin_device("h200");
  api::RunOptions o;
  o.full = full;
  o.wall_time_limit_s = 0;  // a benchmark (under valgrind too) runs to its end
  double timed_insts = 0;
  for (auto _ : state) {
    const api::RunResult r = api::run_launch(spec, dev, o);
    timed_insts += nlohmann::json::parse(r.report_json)["sampling"]["warp_instructions_timed"].get<double>();
  }
  state.counters["timed_warp_inst/s"] = benchmark::Counter(timed_insts, benchmark::Counter::kIsRate);
}

void BM_RunTriad4M(benchmark::State& state) {
  timed(state, R"({"source": "stream.cu", "kernel": "triad_f32", "grid": 16384, "block": 256,
    "args": [{"buffer": "f32", "count": 4194304, "init": "uniform"}, {"buffer": "f32", "count": 4194304, "init": "uniform"},
             {"buffer": "f32", "count": 4194304}, {"type": "f32", "value": 3.0}, {"type": "i32", "value": 4194304}]})", false);
}
BENCHMARK(BM_RunTriad4M)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RunSgemmTiled(benchmark::State& state) {
  timed(state, R"({"source": "sgemm.cu", "kernel": "sgemm_tiled", "grid": [64, 64], "block": [16, 16],
    "args": [{"type": "i32", "value": 1024}, {"type": "i32", "value": 1024}, {"type": "i32", "value": 1024}, {"type": "f32", "value": 1.0},
             {"buffer": "f32", "count": 1048576, "init": "uniform"}, {"buffer": "f32", "count": 1048576, "init": "uniform"},
             {"type": "f32", "value": 0.0}, {"buffer": "f32", "count": 1048576}]})", false);
}
BENCHMARK(BM_RunSgemmTiled)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RunFull(benchmark::State& state) {
  timed(state, R"({"source": "stream.cu", "kernel": "triad_f32", "grid": 4096, "block": 256,
    "args": [{"buffer": "f32", "count": 1048576, "init": "uniform"}, {"buffer": "f32", "count": 1048576, "init": "uniform"},
             {"buffer": "f32", "count": 1048576}, {"type": "f32", "value": 3.0}, {"type": "i32", "value": 1048576}]})", true);
}
BENCHMARK(BM_RunFull)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
