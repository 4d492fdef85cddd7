// Host side shared by the standalone microbenchmark programs (mem_paths.cu, launch_shapes.cu,
// warp_sync.cu, loaded_latency.cu, cta_turnover.cu, tensor_first_use.cu, tensor_copy_paths.cu,
// mma_gemm_parts.cu, pipe_forward.cu): compiled only by nvcc, inside their
// `#if defined(__NVCC__)` host sections. A CUDA error ends the program with one JSON line.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("{\"error\": \"%s at line %d\"}\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

// CUDA-event timings (ms) of `reps` launches of `launch`, sorted, after `warmups` untimed ones;
// `before()` is queued ahead of every launch (an L2 flush, say), outside the timed span.
template <class F, class B> static std::vector<float> event_times_ms(F launch, int reps, B before, int warmups) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < warmups; ++r) {
    before();
    launch();
  }
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    before();
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t;
}

// Median of `reps` CUDA-event timings (ms) of `launch`, after one untimed warm-up launch.
template <class F> static double median_ms(F launch, int reps) {
  const std::vector<float> t = event_times_ms(launch, reps, [] {}, 1);
  return t[t.size() / 2];
}
