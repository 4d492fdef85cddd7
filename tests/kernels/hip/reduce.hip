// HIP port of tests/kernels/cuda/reduce.cu for wave64: the shuffle reductions start at offset 32
// and combine one partial per 64-lane wave (blocks of up to 1024 threads have at most 16 waves).
//  - reduce_atomic_f32:  every element atomically added into one float (order-dependent rounding)
//  - reduce_shared_f32:  classic shared-memory tree, two loads per thread, one partial sum per block
//                        (blockDim.x must be a power of two <= 256)
//  - reduce_shuffle_f32: grid-stride accumulation, wave shuffles, one atomicAdd per block
//  - reduce_minmax_i32:  integer min and max with wave shuffles and atomicMin/atomicMax
//                        (out[0] and out[1] start at 0, so they hold min(0, min x) and max(0, max x))
//  - dot_f64:            double-precision dot product, shuffles on doubles, atomicAdd(double)
#include <hip/hip_runtime.h>

extern "C" __global__ void reduce_atomic_f32(const float* __restrict__ in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

extern "C" __global__ void reduce_shared_f32(const float* __restrict__ in, float* __restrict__ partial, int n) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
  float v = 0.0f;
  if (i < (unsigned)n) v = in[i];
  if (i + blockDim.x < (unsigned)n) v += in[i + blockDim.x];
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

__device__ __forceinline__ float wave_reduce_sum(float v) {
  for (int offset = 32; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  return v;
}

extern "C" __global__ void reduce_shuffle_f32(const float* __restrict__ in, float* out, int n) {
  __shared__ float wave_sums[16];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = wave_reduce_sum(v);
  int lane = threadIdx.x & 63, wave = threadIdx.x >> 6;
  if (lane == 0) wave_sums[wave] = v;
  __syncthreads();
  if (wave == 0) {
    int nwaves = (blockDim.x + 63) >> 6;
    v = lane < nwaves ? wave_sums[lane] : 0.0f;
    v = wave_reduce_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

extern "C" __global__ void reduce_minmax_i32(const int* __restrict__ in, int* out, int n) {
  int lo = 0x7fffffff, hi = -0x7fffffff - 1;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = in[i];
    lo = min(lo, v);
    hi = max(hi, v);
  }
  for (int offset = 32; offset > 0; offset >>= 1) {
    lo = min(lo, __shfl_xor(lo, offset));
    hi = max(hi, __shfl_xor(hi, offset));
  }
  if ((threadIdx.x & 63) == 0) {
    atomicMin(&out[0], lo);
    atomicMax(&out[1], hi);
  }
}

extern "C" __global__ void dot_f64(const double* __restrict__ x, const double* __restrict__ y, double* out, int n) {
  __shared__ double wave_sums[16];
  double v = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i] * y[i];
  for (int offset = 32; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  int lane = threadIdx.x & 63, wave = threadIdx.x >> 6;
  if (lane == 0) wave_sums[wave] = v;
  __syncthreads();
  if (wave == 0) {
    int nwaves = (blockDim.x + 63) >> 6;
    v = lane < nwaves ? wave_sums[lane] : 0.0;
    for (int offset = 32; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
    if (lane == 0) atomicAdd(out, v);
  }
}
