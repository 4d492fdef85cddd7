// Kernels for the report tests (tests/unit/report_test.cpp): a loop whose body is one distinct
// source line, outputs with a NaN and an Inf, and two kernels with different bottlenecks.

// The loop body (the line marked HOT) runs `iters` times per thread; everything else once.
extern "C" __global__ void hot_line(const float* x, float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = x[i];
  for (int k = 0; k < iters; ++k)
    acc = acc * 0.999f + __sinf(acc) * 0.5f + static_cast<float>(k);  // HOT
  out[i] = acc;
}

// out[3] = 0/0 (NaN), out[5] = 1/0 (+Inf), every other element its index; `zero` is 0.
extern "C" __global__ void nan_inf(float* out, float zero, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = static_cast<float>(i);
  if (i == 3) v = zero / zero;
  if (i == 5) v = 1.0f / zero;
  out[i] = v;
}

// A streaming copy over many blocks: HBM-bound, every access coalesced.
extern "C" __global__ void stream_copy(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// A copy whose stores go 32 floats apart (each lane its own sector): uncoalesced stores.
extern "C" __global__ void strided_store(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[static_cast<long>(i) * 32 % n + i * 32 / n] = in[i];
}

// One warp, one dependent chain of multiply-adds: nothing near its limit, latency-bound.
extern "C" __global__ void chain(float* out, int iters) {
  float a = threadIdx.x;
  for (int k = 0; k < iters; ++k) a = a * 1.0001f + 0.5f;
  out[threadIdx.x] = a;
}
