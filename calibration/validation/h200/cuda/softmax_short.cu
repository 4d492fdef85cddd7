// Row softmax over short rows, one thread per row, written for the H200 validation set (issue 17).
//  - softmax_thread_16 / _32 / _64: the row (COLS floats) is loaded into registers with float4
//    loads (adjacent threads read rows COLS * 4 bytes apart), then max, exp, sum and the scaled
//    row stored with float4 stores.
//  - softmax_thread_dyn: any row length; three passes over the row in global memory (max, sum of
//    exponentials, write), as a first version is written.
//  - softmax_warp_32: for contrast, one warp per 32-float row: one element per lane, shuffles.
//  in and out are rows x COLS floats, row-major.

template <int COLS>
__device__ __forceinline__ void softmax_thread_row(const float* __restrict__ in, float* __restrict__ out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float4* src = reinterpret_cast<const float4*>(in + (size_t)r * COLS);
  float v[COLS];
#pragma unroll
  for (int c = 0; c < COLS / 4; ++c) {
    float4 q = src[c];
    v[4 * c] = q.x;
    v[4 * c + 1] = q.y;
    v[4 * c + 2] = q.z;
    v[4 * c + 3] = q.w;
  }
  float m = v[0];
#pragma unroll
  for (int c = 1; c < COLS; ++c) m = fmaxf(m, v[c]);
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < COLS; ++c) {
    v[c] = __expf(v[c] - m);
    s += v[c];
  }
  float inv = 1.0f / s;
  float4* dst = reinterpret_cast<float4*>(out + (size_t)r * COLS);
#pragma unroll
  for (int c = 0; c < COLS / 4; ++c)
    dst[c] = make_float4(v[4 * c] * inv, v[4 * c + 1] * inv, v[4 * c + 2] * inv, v[4 * c + 3] * inv);
}

extern "C" __global__ void softmax_thread_16(const float* __restrict__ in, float* __restrict__ out, int rows) {
  softmax_thread_row<16>(in, out, rows);
}
extern "C" __global__ void softmax_thread_32(const float* __restrict__ in, float* __restrict__ out, int rows) {
  softmax_thread_row<32>(in, out, rows);
}
extern "C" __global__ void softmax_thread_64(const float* __restrict__ in, float* __restrict__ out, int rows) {
  softmax_thread_row<64>(in, out, rows);
}

extern "C" __global__ void softmax_thread_dyn(const float* __restrict__ in, float* __restrict__ out, int rows,
                                              int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
  float inv = 1.0f / s;
  float* y = out + (size_t)r * cols;
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) * inv;
}

extern "C" __global__ void softmax_warp_32(const float* __restrict__ in, float* __restrict__ out, int rows) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= rows) return;
  float v = in[(size_t)r * 32 + lane];
  float m = v;
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float e = __expf(v - m), s = e;
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
  out[(size_t)r * 32 + lane] = e / s;
}
