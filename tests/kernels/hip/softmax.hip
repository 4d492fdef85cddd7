// HIP port of tests/kernels/cuda/softmax.cu for wave64. Row-wise softmax
// y[r][c] = exp(x[r][c] - max_r) / sum_c exp(x[r][c] - max_r), row-major rows x cols.
//  - softmax_rows_block: one block per row; block-wide max and sum through wave shuffles and a
//                        16-float shared scratch; three passes over the row (max, sum, write)
//  - softmax_rows_warp:  one wave per row (blockDim.x / 64 rows per block), shuffles only
#include <hip/hip_runtime.h>

__device__ __forceinline__ float wave_max_f32(float v) {
  for (int o = 32; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));
  return v;
}

__device__ __forceinline__ float wave_sum_f32(float v) {
  for (int o = 32; o > 0; o >>= 1) v += __shfl_xor(v, o);
  return v;
}

// Every thread of the block returns the block-wide result. blockDim.x must be a multiple of 64.
__device__ float block_max_f32(float v, float* scratch) {
  int lane = threadIdx.x & 63, wave = threadIdx.x >> 6, nwaves = blockDim.x >> 6;
  v = wave_max_f32(v);
  __syncthreads();  // scratch may still be read by the previous reduction
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < nwaves ? scratch[lane] : -INFINITY;
  return wave_max_f32(v);
}

__device__ float block_sum_f32(float v, float* scratch) {
  int lane = threadIdx.x & 63, wave = threadIdx.x >> 6, nwaves = blockDim.x >> 6;
  v = wave_sum_f32(v);
  __syncthreads();
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < nwaves ? scratch[lane] : 0.0f;
  return wave_sum_f32(v);
}

extern "C" __global__ void softmax_rows_block(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float scratch[16];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  m = block_max_f32(m, scratch);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
  s = block_sum_f32(s, scratch);
  float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) * inv;
}

extern "C" __global__ void softmax_rows_warp(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x >> 6) + (threadIdx.x >> 6);
  int lane = threadIdx.x & 63;
  if (row >= rows) return;  // whole waves leave together
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 64) m = fmaxf(m, x[c]);
  m = wave_max_f32(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += 64) s += __expf(x[c] - m);
  s = wave_sum_f32(s);
  float inv = 1.0f / s;
  for (int c = lane; c < cols; c += 64) y[c] = __expf(x[c] - m) * inv;
}
