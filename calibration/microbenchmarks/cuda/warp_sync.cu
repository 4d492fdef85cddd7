// Warp-level exchange and CTA barriers: the latency of shfl.sync, vote.sync, redux.sync and
// bar.sync, the shuffle throughput of an SM, and a warp's tree reduction (five shuffle + add
// levels), the building block of row reductions, softmax and scans.
//
//   lat_shfl_bfly(out, iters, seed)   one warp: a dependent chain of shfl.sync.bfly (SHFL.BFLY)
//   lat_shfl_idx(out, iters, seed)    the same with shfl.sync.idx, lane from a register (SHFL.IDX)
//   lat_vote(out, iters, seed)        vote.sync.ballot of a bit of the previous ballot (VOTE.ANY)
//   lat_redux(out, iters, seed)       redux.sync.add.u32 of the previous sum (REDUX.SUM + S2R/move)
//   lat_bar(out, iters, seed)         every thread of the CTA: back-to-back bar.sync 0 (BAR.SYNC);
//                                     launch with 1 to 32 warps
//   lat_warp_reduce(out, iters, seed) one warp: a float tree sum, 5 x (SHFL.BFLY + FADD) per step
//   issue_shfl(out, iters, seed)      every warp: 4 independent shfl.sync.bfly chains; one CTA of
//                                     1024 threads per SM
//
// Steps per loop iteration: 128 (lat_warp_reduce: one step is a whole tree sum of 5 levels and
// a multiply). out (u64) as in alu.cu: lat_*:
// [0] cycles, [1] steps, [2] sink; issue_*: [3b] t0, [3b+1] t1, [3b+2] smid, [3G+1] steps per
// thread.
//
// Inline PTX throughout, so the file needs no CUDA header and kernsim runs the same code. The
// host program (main, compiled only by nvcc on the GPU machine) times every launch spec in
// specs_sync/ (median of 21 CUDA-event timings) and prints one JSON document.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

static __device__ __forceinline__ void shfl_bfly(unsigned& v) {
  asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 31, -1;" : "+r"(v));
}
static __device__ __forceinline__ void shfl_idx(unsigned& v) {
  // source lane = the low 5 bits of the value itself: a register operand, not an immediate
  asm volatile("shfl.sync.idx.b32 %0, %0, %0, 31, -1;" : "+r"(v));
}
static __device__ __forceinline__ void vote_ballot(unsigned& v) {
  asm volatile("{ .reg .pred p; and.b32 %0, %0, 1; setp.ne.u32 p, %0, 0; vote.sync.ballot.b32 %0, p, -1; }" : "+r"(v));
}
static __device__ __forceinline__ void redux_add(unsigned& v) {
  asm volatile("redux.sync.add.u32 %0, %0, -1;" : "+r"(v));
}

#define MB_SYNC_LAT(NAME, STEP)                                                                   \
  extern "C" __global__ void NAME(unsigned long long* out, unsigned iters, unsigned seed) {       \
    unsigned v = (threadIdx.x * 2654435761u) ^ seed;                                              \
    STEP(v);                                                                                      \
    if (threadIdx.x == 0) out[3] = v; /* waits for the warm-up step */                            \
    const unsigned long long t0 = mb_clock64();                                                   \
    _Pragma("unroll 1") for (unsigned i = 0; i < iters; ++i) {                                    \
      _Pragma("unroll") for (int u = 0; u < 128; ++u) STEP(v);                                    \
    }                                                                                             \
    if (threadIdx.x == 0) out[2] = v; /* waits for the last step before the clock read */         \
    const unsigned long long t1 = mb_clock64();                                                   \
    if (threadIdx.x == 0) {                                                                       \
      out[0] = t1 - t0;                                                                           \
      out[1] = static_cast<unsigned long long>(iters) * 128;                                      \
    }                                                                                             \
  }

MB_SYNC_LAT(lat_shfl_bfly, shfl_bfly)
MB_SYNC_LAT(lat_shfl_idx, shfl_idx)
MB_SYNC_LAT(lat_vote, vote_ballot)
MB_SYNC_LAT(lat_redux, redux_add)

extern "C" __global__ void lat_bar(unsigned long long* out, unsigned iters, unsigned seed) {
  asm volatile("bar.sync 0;" ::: "memory");
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 128; ++u) asm volatile("bar.sync 0;" ::: "memory");
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = static_cast<unsigned long long>(iters) * 128;
    out[2] = seed;
  }
}

// One step = one tree sum of the warp: 5 levels of shfl.sync.bfly + add.f32 (offsets 16..1),
// each level depending on the one before; the next sum starts from this one's result.
extern "C" __global__ void lat_warp_reduce(unsigned long long* out, unsigned iters, unsigned seed) {
  float x = static_cast<float>((threadIdx.x ^ seed) & 7) * 0.25f;
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 128; ++u) {
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        float y;
        asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 31, -1;" : "=f"(y) : "f"(x), "r"(o));
        asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(y));
      }
      asm volatile("mul.f32 %0, %0, 0f3D000000;" : "+f"(x));  // x / 32: the sum stays finite
    }
  }
  if (threadIdx.x == 0) { unsigned u; asm("mov.b32 %0, %1;" : "=r"(u) : "f"(x)); out[2] = u; }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = static_cast<unsigned long long>(iters) * 128;
  }
}

extern "C" __global__ void __launch_bounds__(1024) issue_shfl(unsigned long long* out, unsigned iters, unsigned seed) {
  unsigned a[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = (threadIdx.x + 977u * k) ^ seed;
  asm volatile("bar.sync 0;" ::: "memory");
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 32; ++u) {
#pragma unroll
      for (int k = 0; k < 4; ++k) shfl_bfly(a[k]);
    }
  }
  asm volatile("bar.sync 0;" ::: "memory");
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
    if (blockIdx.x == 0) out[3 * gridDim.x + 1] = static_cast<unsigned long long>(iters) * 128;
  }
  if ((a[0] ^ a[1] ^ a[2] ^ a[3]) == 0x5eed5eedu) out[3 * gridDim.x] = a[0];
}

#ifndef __CUDA_ARCH__
#if defined(__NVCC__)
#include <string>

#include "standalone_host.cuh"  // CK, median_ms


using Kern = void (*)(unsigned long long*, unsigned, unsigned);

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  unsigned long long* out;
  const size_t out_words = 3 * 1056 + 4;
  CK(cudaMalloc(&out, out_words * 8));
  std::vector<unsigned long long> h(out_words);
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"results\": [\n", p.name, sms);
  bool first = true;
  auto result = [&](const std::string& name, double v, const char* unit, const std::string& spec, double us) {
    std::printf("%s{\"name\": \"%s\", \"value\": %.4f, \"unit\": \"%s\", \"params\": {\"spec\": \"%s\", \"time_us\": %.3f}}",
                first ? "" : ",\n", name.c_str(), v, unit, spec.c_str(), us);
    first = false;
  };
  struct Lat { const char* name; Kern k; const char* result; };
  const Lat lats[] = {{"lat_shfl_bfly", lat_shfl_bfly, "latency.shfl_bfly"}, {"lat_shfl_idx", lat_shfl_idx, "latency.shfl_idx"},
                      {"lat_vote", lat_vote, "latency.vote"}, {"lat_redux", lat_redux, "latency.redux"},
                      {"lat_warp_reduce", lat_warp_reduce, "latency.warp_reduce_step"}};
  std::vector<std::pair<std::string, double>> spec_us;
  const unsigned iters = 16;
  for (const Lat& l : lats) {
    CK(cudaMemset(out, 0, out_words * 8));
    const double us = 1000.0 * median_ms([&] { l.k<<<1, 32>>>(out, iters, 7u); }, 21);
    CK(cudaMemcpy(h.data(), out, out_words * 8, cudaMemcpyDeviceToHost));
    result(l.result, static_cast<double>(h[0]) / static_cast<double>(h[1]), "cycles", std::string("ms_") + l.name, us);
    spec_us.push_back({std::string("ms_") + l.name, us});
  }
  for (int warps : {1, 2, 4, 8, 16, 32}) {
    CK(cudaMemset(out, 0, out_words * 8));
    const double us = 1000.0 * median_ms([&] { lat_bar<<<1, 32 * warps>>>(out, iters, 7u); }, 21);
    CK(cudaMemcpy(h.data(), out, out_words * 8, cudaMemcpyDeviceToHost));
    const std::string id = "ms_lat_bar_w" + std::to_string(warps);
    result("latency.bar_w" + std::to_string(warps), static_cast<double>(h[0]) / static_cast<double>(h[1]), "cycles", id, us);
    spec_us.push_back({id, us});
  }
  {
    CK(cudaMemset(out, 0, out_words * 8));
    const unsigned grid = static_cast<unsigned>(sms);
    const double us = 1000.0 * median_ms([&] { issue_shfl<<<grid, 1024>>>(out, iters, 7u); }, 21);
    CK(cudaMemcpy(h.data(), out, out_words * 8, cudaMemcpyDeviceToHost));
    std::vector<double> per;
    for (unsigned b = 0; b < grid; ++b)
      per.push_back(static_cast<double>(h[3 * b + 1] - h[3 * b]) / (32.0 * static_cast<double>(h[3 * grid + 1]) / 4.0));
    std::sort(per.begin(), per.end());
    result("issue.shfl", per[per.size() / 2], "cycles/instr/SMSP", "ms_issue_shfl", us);
    spec_us.push_back({"ms_issue_shfl", us});
  }
  std::printf("],\n\"spec_us\": {");
  for (size_t i = 0; i < spec_us.size(); ++i) std::printf("%s\"%s\": %.3f", i ? ", " : "", spec_us[i].first.c_str(), spec_us[i].second);
  std::printf("}}\n");
  return 0;
}
#endif
#endif
