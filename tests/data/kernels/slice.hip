// HIP twins of slice.cu for the CU-slice tests (sim/timing/amd_machine.cpp): an in-place update
// (each element must change exactly once, however the timing model samples), a compute-heavy
// loop, and a lookup every workgroup makes in one shared table (the MALL warm-up's case).
#include <hip/hip_runtime.h>

extern "C" __global__ void axpy_inplace(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fma_loop(float* out, int iters) {
  float v = threadIdx.x * 0.001f, w = 1.0001f;
  for (int k = 0; k < iters; ++k) v = v * w + 0.5f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// out[i] = sum over k of table[(i + 64 k) % m]: every workgroup reads the whole table.
extern "C" __global__ void table_sum(const float* table, int m, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = 0; k < m; k += 64) s += table[(threadIdx.x + k) % m];
  out[i] = s;
}
