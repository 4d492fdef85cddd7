// Row-wise softmax y[r][c] = exp(x[r][c] - max_r) / sum_c exp(x[r][c] - max_r), row-major rows x cols.
//  - softmax_rows_block: one block per row; block-wide max and sum through warp shuffles and a
//                        32-float shared scratch; three passes over the row (max, sum, write)
//  - softmax_rows_warp:  one warp per row (blockDim.x / 32 rows per block), shuffles only

__device__ __forceinline__ float warp_max_f32(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum_f32(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Every thread of the block returns the block-wide result. blockDim.x must be a multiple of 32.
__device__ float block_max_f32(float v, float* scratch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  v = warp_max_f32(v);
  __syncthreads();  // scratch may still be read by the previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < nwarps ? scratch[lane] : -INFINITY;
  return warp_max_f32(v);
}

__device__ float block_sum_f32(float v, float* scratch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  v = warp_sum_f32(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < nwarps ? scratch[lane] : 0.0f;
  return warp_sum_f32(v);
}

extern "C" __global__ void softmax_rows_block(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float scratch[32];
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
  int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps leave together
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  m = warp_max_f32(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += __expf(x[c] - m);
  s = warp_sum_f32(s);
  float inv = 1.0f / s;
  for (int c = lane; c < cols; c += 32) y[c] = __expf(x[c] - m) * inv;
}
