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

// Black-Scholes call and put prices over n options, a grid-stride loop (the grid is a few
// workgroups per CU whatever n is): the sampled-against-full case of issue 17 item 3.
__device__ inline float cnd(float d) {
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  const float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  const float c = 0.39894228040143267f * expf(-0.5f * d * d) * poly;
  return d > 0.0f ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(const float* s, const float* x, const float* t, float* call, float* put, float r,
                                         float v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float st = s[i] * 40.0f + 10.0f, xt = x[i] * 40.0f + 10.0f, tt = t[i] * 2.0f + 0.25f;
    const float sq = sqrtf(tt);
    const float d1 = (logf(st / xt) + (r + 0.5f * v * v) * tt) / (v * sq), d2 = d1 - v * sq;
    const float e = expf(-r * tt);
    call[i] = st * cnd(d1) - xt * e * cnd(d2);
    put[i] = xt * e * (1.0f - cnd(d2)) - st * (1.0f - cnd(d1));
  }
}
