// Google Benchmark targets for the AMD functional executor (sim/functional/amd_*.cpp) and the AMD
// CU timing model (sim/timing/amd_machine.cpp): how many thread-instructions per second one core
// executes (lanes active per wave instruction, summed; a scalar instruction counts one), and how
// many wave instructions per second it times. The kernels come from the HIP corpus, compiled once
// through the frontend (and its cache) for gfx942; each iteration runs every workgroup of the
// launch — BM_Amd<Name> functionally, BM_AmdTimed<Name> through the timing model on MI300X
// (every workgroup timed in detail, as `kernsim run --full`).
//
//   Triad        STREAM triad, 2^20 floats, 256-thread blocks: global loads/stores, v_fmac
//   SgemmTile    sgemm_regblock, 128 x 128 x 128: LDS tiles, barriers, 16 FMAs per lane per k
//   MfmaF16      mfma_gemm_f16, 128 x 128 x 128: v_mfma_f32_16x16x16f16 tiles
//   ReduceShared reduce_shared_f32, 2^20 floats: LDS tree with a barrier per level
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>

#include "base/files.h"
#include "frontends/compile.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"
#include "device/loader.h"
#include "sim/functional/amd_exec.h"
#include "sim/timing/timing.h"

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

// One launch of a corpus kernel: its memory (buffers initialised once), arguments and shape.
struct Launch {
  std::string file, kernel;
  sim::LaunchDims dims;
  sim::GlobalMemory mem;
  Args args;
};

void run(benchmark::State& state, Launch& l, bool timed) {
  const Compiled& c = compiled(l.file);
  const isa::amdgcn::Kernel* k = c.code->find(l.kernel);
  if (!k) {
    state.SkipWithError(("no kernel " + l.kernel).c_str());
    return;
  }
  static const device::DeviceSpec dev = device::load_builtin_device("mi300x");
  const std::uint64_t base = sim::map_code_object(*c.code, l.mem, l.file);
  std::uint64_t thread_insts = 0, wave_insts = 0;
  for (auto _ : state) {
    sim::AmdExecOptions o;
    o.kernel_name = l.kernel;
    sim::AmdKernel kern(*c.prog, *k, l.mem, base, l.dims, l.args.bytes, o);
    if (timed) {
      sim::AmdResources res;
      res.threads_per_block = static_cast<int>(l.dims.threads_per_block());
      res.vgprs = k->vgpr_count;
      res.agprs = k->agpr_count;
      res.accum_offset = k->kd.accum_offset;
      res.sgprs = k->sgpr_count;
      res.lds_per_block = k->group_segment_fixed_size + l.dims.dynamic_shared;
      sim::TimingOptions to;
      to.full = true;
      sim::Listener none;
      benchmark::DoNotOptimize(sim::time_amd_kernel(dev, kern, res, to, none).cycles);
    } else {
      kern.run_all();
    }
    thread_insts += kern.thread_instructions();
    wave_insts += kern.wave_instructions();
  }
  state.counters["thread_inst/s"] = benchmark::Counter(static_cast<double>(thread_insts), benchmark::Counter::kIsRate);
  state.counters["wave_inst/s"] = benchmark::Counter(static_cast<double>(wave_insts), benchmark::Counter::kIsRate);
}

void triad(Launch& l) {
  const int n = 1 << 20;
  const std::uint64_t b = buffer(l.mem, n, "b"), c = buffer(l.mem, n, "c"), a = buffer(l.mem, n, "a");
  l.args.ptr(b).ptr(c).ptr(a).f32(3.0f).i32(n);
  l.dims.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
  l.dims.block = {256, 1, 1};
  l.file = "stream.hip";
  l.kernel = "triad_f32";
}

void sgemm_tile(Launch& l) {
  const int M = 128, N = 128, K = 128;
  const std::uint64_t A = buffer(l.mem, M * K, "A"), B = buffer(l.mem, K * N, "B"), C = buffer(l.mem, M * N, "C");
  l.args.i32(M).i32(N).i32(K).f32(1.0f).ptr(A).ptr(B).f32(0.5f).ptr(C);
  l.dims.grid = {N / 64, M / 64, 1};
  l.dims.block = {16, 16, 1};
  l.file = "sgemm.hip";
  l.kernel = "sgemm_regblock";
}

void mfma_f16(Launch& l) {
  const int M = 128, N = 128, K = 128;
  const std::uint64_t A = half_buffer(l.mem, M * K, "A"), B = half_buffer(l.mem, K * N, "B"), C = buffer(l.mem, M * N, "C");
  l.args.ptr(A).ptr(B).ptr(C).i32(M).i32(N).i32(K);
  l.dims.grid = {N / 32, M / 32, 1};
  l.dims.block = {256, 1, 1};
  l.file = "mfma_gemm.hip";
  l.kernel = "mfma_gemm_f16";
}

void reduce_shared(Launch& l) {
  const int n = 1 << 20;
  const std::uint64_t in = buffer(l.mem, n, "in"), out = buffer(l.mem, n / 512, "partial");
  l.args.ptr(in).ptr(out).i32(n);
  l.dims.grid = {static_cast<std::uint32_t>(n / 512), 1, 1};
  l.dims.block = {256, 1, 1};
  l.file = "reduce.hip";
  l.kernel = "reduce_shared_f32";
}

template <void (*Setup)(Launch&), bool Timed>
void bench(benchmark::State& state) {
  Launch l;
  Setup(l);
  run(state, l, Timed);
}

BENCHMARK(bench<triad, false>)->Name("BM_AmdTriad")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<sgemm_tile, false>)->Name("BM_AmdSgemmTile")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<mfma_f16, false>)->Name("BM_AmdMfmaF16")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<reduce_shared, false>)->Name("BM_AmdReduceShared")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<triad, true>)->Name("BM_AmdTimedTriad")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<sgemm_tile, true>)->Name("BM_AmdTimedSgemmTile")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<mfma_f16, true>)->Name("BM_AmdTimedMfmaF16")->Unit(benchmark::kMillisecond);
BENCHMARK(bench<reduce_shared, true>)->Name("BM_AmdTimedReduceShared")->Unit(benchmark::kMillisecond);

}  // namespace
