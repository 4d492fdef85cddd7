// Row normalisations over a rows x cols row-major matrix:
//  - layernorm_rows: one block per row, two-pass mean and variance (biased), then
//                    y = (x - mean) * rsqrt(var + eps) * gamma + beta
//  - rmsnorm_rows_warp: one warp per row, y = x * rsqrt(mean(x^2) + eps) * w
// blockDim.x must be a multiple of 32.

__device__ __forceinline__ float ln_warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ float ln_block_sum(float v, float* scratch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  v = ln_warp_sum(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < nwarps ? scratch[lane] : 0.0f;
  return ln_warp_sum(v);
}

extern "C" __global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                          float eps) {
  __shared__ float scratch[32];
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
  int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float sq = 0.0f;
  for (int c = lane; c < cols; c += 32) sq += xr[c] * xr[c];
  sq = ln_warp_sum(sq);
  float r = rsqrtf(sq / cols + eps);
  for (int c = lane; c < cols; c += 32) yr[c] = xr[c] * r * w[c];
}
