// HIP port of tests/kernels/cuda/layernorm.cu for wave64. Row normalisations over a rows x cols
// row-major matrix:
//  - layernorm_rows:    one block per row, two-pass mean and variance (biased), then
//                       y = (x - mean) * rsqrt(var + eps) * gamma + beta
//  - rmsnorm_rows_warp: one wave per row, y = x * rsqrt(mean(x^2) + eps) * w
// blockDim.x must be a multiple of 64.
#include <hip/hip_runtime.h>

__device__ __forceinline__ float ln_wave_sum(float v) {
  for (int o = 32; o > 0; o >>= 1) v += __shfl_xor(v, o);
  return v;
}

__device__ float ln_block_sum(float v, float* scratch) {
  int lane = threadIdx.x & 63, wave = threadIdx.x >> 6, nwaves = blockDim.x >> 6;
  v = ln_wave_sum(v);
  __syncthreads();
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < nwaves ? scratch[lane] : 0.0f;
  return ln_wave_sum(v);
}

extern "C" __global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                          float eps) {
  __shared__ float scratch[16];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  float mean = ln_block_sum(s, scratch) / cols;
  float sq = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = xr[c] - mean;
    sq += d * d;
  }
  float var = ln_block_sum(sq, scratch) / cols;
  float rstd = rsqrtf(var + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" __global__ void rmsnorm_rows_warp(const float* __restrict__ x, const float* __restrict__ w,
                                             float* __restrict__ y, int rows, int cols, float eps) {
  int row = blockIdx.x * (blockDim.x >> 6) + (threadIdx.x >> 6);
  int lane = threadIdx.x & 63;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float sq = 0.0f;
  for (int c = lane; c < cols; c += 64) sq += xr[c] * xr[c];
  sq = ln_wave_sum(sq);
  float r = rsqrtf(sq / cols + eps);
  for (int c = lane; c < cols; c += 64) yr[c] = xr[c] * r * w[c];
}
