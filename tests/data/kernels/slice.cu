// Kernels for the SM-slice tests: an in-place update (each element must change exactly once,
// however the timing model samples) and a compute-heavy loop.
extern "C" __global__ void axpy_inplace(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fma_loop(float* out, int iters) {
  float v = threadIdx.x * 0.001f, w = 1.0001f;
  for (int k = 0; k < iters; ++k) v = v * w + 0.5f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
