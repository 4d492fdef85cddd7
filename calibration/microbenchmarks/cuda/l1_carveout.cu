// How much L1 a kernel gets on Hopper, by the shared memory its CTAs take (the driver's carveout),
// measured as the footprint at which re-reading stops hitting in L1. Written for issue 17 (row
// softmax and norms: kernsim's L1 held rows the H200 does not keep; the pointer chase puts the
// L1 of a one-CTA kernel without shared memory between 240 and 248 KB of lines).
//
// Kernel reread: every warp owns `lines` consecutive 128-byte lines of its own and walks them in
// order, lap after lap; lane l loads word l of the line (one whole line per warp instruction), and
// each load's address depends on the value the previous load returned (the buffer is zero), so a
// warp has one load in flight and its time per load is the latency: ~32 cycles from L1, ~260 from
// L2. The first lap fills; laps 1.. are timed (clock64 per warp). With an LRU L1 the re-reads hit
// while the SM's footprint (warps x lines x 128 B) fits and stop hitting soon after: the knee of
// cycles_per_load over the footprint is the L1's capacity for that carveout.
//
// Sweep: CTAs of 256 threads (8 warps), 1 per SM (grid 132) or 8 per SM (grid 1056: the SM's 64
// warps), dynamic shared memory S per CTA chosen so that S + 1 KB reserved per CTA needs each of
// the documented carveout steps 8, 16, 32, 64, 100 KB; footprints 96 .. 320 KB per SM. One more
// run sets cudaFuncAttributePreferredSharedMemoryCarveout = 0 (prefer the largest L1) with S = 0.
// The launch is also timed with events (median of 5).
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o l1_carveout l1_carveout.cu
// Run:   ./l1_carveout > l1_carveout.json     (one JSON object; well under a minute)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::printf("{\"error\": \"%s at line %d\"}\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__device__ __forceinline__ unsigned ld_global(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// out[gw] = cycles of the timed laps of global warp gw; sink[gw] keeps the chain live
template <int kVariant>
__global__ void reread(const unsigned* buf, unsigned long long* out, unsigned* sink, int lines, int laps) {
  extern __shared__ unsigned smem[];  // only its size matters (the carveout); touched so it is kept
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned* region = buf + static_cast<size_t>(gw) * lines * 32;
  unsigned v = 0;
  unsigned long long t0 = 0;
  for (int lap = 0; lap < laps; ++lap) {
    if (lap == 1) {
      __syncwarp();
      t0 = clock64();
    }
    for (int i = 0; i < lines; ++i) v = ld_global(region + i * 32 + lane + v);
  }
  __syncwarp();
  const unsigned long long t1 = clock64();
  if (v == 12345u) smem[threadIdx.x] = v;  // never true (the buffer is zero)
  if (lane == 0) out[gw] = t1 - t0;
  sink[gw * 32 + lane] = v + (kVariant == 1 && v ? smem[0] : 0u);
}

struct Result {
  int ctas_per_sm, smem, footprint_kb, pref_carveout;
  double median, p10, p90, event_us;
};

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const int laps = 4, threads = 256, warps_per_cta = threads / 32;
  const int max_footprint_kb = 320;
  const size_t max_warps = static_cast<size_t>(sms) * 8 * warps_per_cta;
  const size_t max_lines_per_warp = static_cast<size_t>(max_footprint_kb) * 1024 / 128 / warps_per_cta;  // 1 CTA per SM
  unsigned *buf, *sink;
  unsigned long long* out;
  CK(cudaMalloc(&buf, static_cast<size_t>(sms) * max_footprint_kb * 1024 + 4096));
  CK(cudaMemset(buf, 0, static_cast<size_t>(sms) * max_footprint_kb * 1024 + 4096));
  CK(cudaMalloc(&out, max_warps * sizeof(unsigned long long)));
  CK(cudaMalloc(&sink, max_warps * 32 * sizeof(unsigned)));
  (void)max_lines_per_warp;
  CK(cudaFuncSetAttribute(reread<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 110 * 1024));
  CK(cudaFuncSetAttribute(reread<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 110 * 1024));
  CK(cudaFuncSetAttribute(reread<1>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  // S per CTA: the reserved 1 KB makes S + 1 KB per CTA; with c CTAs per SM, c x (S + 1 KB)
  // lands in the step named in the comment
  struct Case { int ctas, smem, pref; };
  std::vector<Case> cases = {
      {1, 0, -1},           // 1 KB   -> 8 KB step (or 0 if the reservation does not count)
      {1, 8 * 1024, -1},    // 9 KB   -> 16
      {1, 24 * 1024, -1},   // 25 KB  -> 32
      {1, 48 * 1024, -1},   // 49 KB  -> 64
      {1, 80 * 1024, -1},   // 81 KB  -> 100
      {1, 0, 0},            // S = 0, preferred carveout 0 (largest L1)
      {8, 0, -1},           // 8 KB   -> 8
      {8, 1024, -1},        // 16 KB  -> 16
      {8, 3 * 1024, -1},    // 32 KB  -> 32
      {8, 7 * 1024, -1},    // 64 KB  -> 64
  };
  const int footprints[] = {96, 128, 160, 192, 208, 216, 224, 232, 240, 244, 248, 252, 256, 264, 272, 288, 320};
  std::vector<Result> results;
  for (const Case& c : cases) {
    for (int fkb : footprints) {
      const int warps_per_sm = c.ctas * warps_per_cta;
      const int lines = fkb * 1024 / 128 / warps_per_sm;
      if (lines < 1) continue;
      const int grid = sms * c.ctas;
      auto launch = [&] {
        if (c.pref == 0)
          reread<1><<<grid, threads, c.smem>>>(buf, out, sink, lines, laps);
        else
          reread<0><<<grid, threads, c.smem>>>(buf, out, sink, lines, laps);
      };
      launch();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<float> ev;
      for (int r = 0; r < 5; ++r) {
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ev.push_back(ms);
      }
      std::sort(ev.begin(), ev.end());
      const size_t nw = static_cast<size_t>(grid) * warps_per_cta;
      std::vector<unsigned long long> cyc(nw);
      CK(cudaMemcpy(cyc.data(), out, nw * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      std::vector<double> per(nw);
      const double loads = static_cast<double>(laps - 1) * lines;
      for (size_t i = 0; i < nw; ++i) per[i] = static_cast<double>(cyc[i]) / loads;
      std::sort(per.begin(), per.end());
      results.push_back({c.ctas, c.smem, fkb, c.pref, per[nw / 2], per[nw / 10], per[nw * 9 / 10], ev[2] * 1000.0});
    }
  }
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"clock_khz\": %d, \"laps_timed\": %d, \"threads\": %d,\n", prop.name, sms,
              clock_khz, laps - 1, threads);
  std::printf(" \"note\": \"cycles_per_load: median (p10, p90) over the warps of clock64 cycles per dependent whole-line load in laps 1..; footprint_kb per SM; smem per CTA in bytes (+1 KB reserved); pref_carveout -1: not set\",\n");
  std::printf(" \"results\": [\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::printf("  {\"ctas_per_sm\": %d, \"smem_per_cta\": %d, \"pref_carveout\": %d, \"footprint_kb\": %d, \"cycles_per_load\": %.2f, \"p10\": %.2f, \"p90\": %.2f, \"event_us\": %.2f}%s\n",
                r.ctas_per_sm, r.smem, r.pref_carveout, r.footprint_kb, r.median, r.p10, r.p90, r.event_us,
                i + 1 < results.size() ? "," : "");
  }
  std::printf(" ]}\n");
  return 0;
}
