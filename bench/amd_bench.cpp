// Google Benchmark targets for the AMD functional executor (sim/functional/amd_*.cpp): how many
// thread-instructions per second one core executes (lanes active per wave instruction, summed;
// a scalar instruction counts one). The kernels come from the HIP corpus, compiled once through
// the frontend (and its cache) for gfx942; each iteration runs every workgroup of the launch.
//
//   BM_AmdTriad        STREAM triad, 2^20 floats, 256-thread blocks: global loads/stores, v_fmac
//   BM_AmdSgemmTile    sgemm_regblock, 128 x 128 x 128: LDS tiles, barriers, 16 FMAs per lane per k
//   BM_AmdMfmaF16      mfma_gemm_f16, 128 x 128 x 128: v_mfma_f32_16x16x16f16 tiles
//   BM_AmdReduceShared reduce_shared_f32, 2^20 floats: LDS tree with a barrier per level
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>

#include "base/files.h"
#include "frontends/compile.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"
#include "sim/functional/amd_exec.h"

namespace {

using namespace kernsim;

struct Compiled {
  std::shared_ptr<const isa::amdgcn::CodeObject> code;
  std::unique_ptr<isa::amdgcn::Program> prog;
};

const Compiled& compiled(const std::string& file) {
  static std::map<std::string, Compiled> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  frontends::CompileOptions co;
  co.target = "gfx942";
  const auto path = data_dir() / "tests" / "kernels" / "hip" / file;
  frontends::DeviceModule m = frontends::compile(path, co);
  Compiled c;
  c.code = std::make_shared<const isa::amdgcn::CodeObject>(isa::amdgcn::read_code_object(m.binary, path.string()));
  c.prog = std::make_unique<isa::amdgcn::Program>(isa::amdgcn::decode(c.code, path.string()));
  return cache.emplace(file, std::move(c)).first->second;
}

// Kernel arguments as the kernarg segment wants them: 8-byte pointers, 4-byte scalars, each at
// the offset the code object metadata gives.
struct Args {
  std::vector<std::uint8_t> bytes;
  std::size_t next = 0;
  void put(const void* p, std::size_t n, std::size_t align) {
    next = (next + align - 1) / align * align;
    if (bytes.size() < next + n) bytes.resize(next + n);
    std::memcpy(bytes.data() + next, p, n);
    next += n;
  }
  Args& ptr(std::uint64_t a) { put(&a, 8, 8); return *this; }
  Args& i32(std::int32_t v) { put(&v, 4, 4); return *this; }
  Args& f32(float v) { put(&v, 4, 4); return *this; }
};

std::uint64_t buffer(sim::GlobalMemory& mem, std::size_t floats, const char* name) {
  const std::uint64_t a = mem.allocate(floats * 4, name);
  float* p = reinterpret_cast<float*>(mem.find(a, 1)->data());
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (std::size_t i = 0; i < floats; ++i) p[i] = u(rng);
  return a;
}

std::uint64_t half_buffer(sim::GlobalMemory& mem, std::size_t n, const char* name) {
  const std::uint64_t a = mem.allocate(n * 2, name);
  std::uint16_t* p = reinterpret_cast<std::uint16_t*>(mem.find(a, 1)->data());
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint16_t>(0x3800 + (i % 512));  // 0.5 .. 1.0 in f16
  return a;
}

void run(benchmark::State& state, const std::string& file, const std::string& kernel, sim::LaunchDims dims, sim::GlobalMemory& mem,
         const Args& args) {
  const Compiled& c = compiled(file);
  const isa::amdgcn::Kernel* k = c.code->find(kernel);
  if (!k) {
    state.SkipWithError(("no kernel " + kernel).c_str());
    return;
  }
  const std::uint64_t base = sim::map_code_object(*c.code, mem, file);
  std::uint64_t thread_insts = 0, wave_insts = 0;
  for (auto _ : state) {
    sim::AmdExecOptions o;
    o.kernel_name = kernel;
    sim::AmdKernel kern(*c.prog, *k, mem, base, dims, args.bytes, o);
    kern.run_all();
    thread_insts += kern.thread_instructions();
    wave_insts += kern.wave_instructions();
  }
  state.counters["thread_inst/s"] = benchmark::Counter(static_cast<double>(thread_insts), benchmark::Counter::kIsRate);
  state.counters["wave_inst/s"] = benchmark::Counter(static_cast<double>(wave_insts), benchmark::Counter::kIsRate);
}

void BM_AmdTriad(benchmark::State& state) {
  const int n = 1 << 20;
  sim::GlobalMemory mem;
  const std::uint64_t b = buffer(mem, n, "b"), c = buffer(mem, n, "c"), a = buffer(mem, n, "a");
  Args args;
  args.ptr(b).ptr(c).ptr(a).f32(3.0f).i32(n);
  sim::LaunchDims d;
  d.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
  d.block = {256, 1, 1};
  run(state, "stream.hip", "triad_f32", d, mem, args);
}
BENCHMARK(BM_AmdTriad)->Unit(benchmark::kMillisecond);

void BM_AmdSgemmTile(benchmark::State& state) {
  const int M = 128, N = 128, K = 128;
  sim::GlobalMemory mem;
  const std::uint64_t A = buffer(mem, M * K, "A"), B = buffer(mem, K * N, "B"), C = buffer(mem, M * N, "C");
  Args args;
  args.i32(M).i32(N).i32(K).f32(1.0f).ptr(A).ptr(B).f32(0.5f).ptr(C);
  sim::LaunchDims d;
  d.grid = {N / 64, M / 64, 1};
  d.block = {16, 16, 1};
  run(state, "sgemm.hip", "sgemm_regblock", d, mem, args);
}
BENCHMARK(BM_AmdSgemmTile)->Unit(benchmark::kMillisecond);

void BM_AmdMfmaF16(benchmark::State& state) {
  const int M = 128, N = 128, K = 128;
  sim::GlobalMemory mem;
  const std::uint64_t A = half_buffer(mem, M * K, "A"), B = half_buffer(mem, K * N, "B"), C = buffer(mem, M * N, "C");
  Args args;
  args.ptr(A).ptr(B).ptr(C).i32(M).i32(N).i32(K);
  sim::LaunchDims d;
  d.grid = {N / 32, M / 32, 1};
  d.block = {256, 1, 1};
  run(state, "mfma_gemm.hip", "mfma_gemm_f16", d, mem, args);
}
BENCHMARK(BM_AmdMfmaF16)->Unit(benchmark::kMillisecond);

void BM_AmdReduceShared(benchmark::State& state) {
  const int n = 1 << 20;
  sim::GlobalMemory mem;
  const std::uint64_t in = buffer(mem, n, "in"), out = buffer(mem, n / 512, "partial");
  Args args;
  args.ptr(in).ptr(out).i32(n);
  sim::LaunchDims d;
  d.grid = {static_cast<std::uint32_t>(n / 512), 1, 1};
  d.block = {256, 1, 1};
  run(state, "reduce.hip", "reduce_shared_f32", d, mem, args);
}
BENCHMARK(BM_AmdReduceShared)->Unit(benchmark::kMillisecond);

}  // namespace
