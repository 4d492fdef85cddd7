// Reductions, from the naive to the usual optimised forms:
//  - reduce_atomic_f32:  every element atomically added into one float (order-dependent rounding)
//  - reduce_shared_f32:  classic shared-memory tree, two loads per thread, one partial sum per block
//                        (blockDim.x must be a power of two <= 256)
//  - reduce_shuffle_f32: grid-stride accumulation, warp shuffles, one atomicAdd per block
//  - reduce_minmax_i32:  integer min and max with warp shuffles and atomicMin/atomicMax
//                        (out[0] and out[1] start at 0, so they hold min(0, min x) and max(0, max x))
//  - dot_f64:            double-precision dot product, shuffles on doubles, atomicAdd(double)

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

__device__ __forceinline__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

extern "C" __global__ void reduce_shuffle_f32(const float* __restrict__ in, float* out, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = warp_reduce_sum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) >> 5;
    v = lane < nwarps ? warp_sums[lane] : 0.0f;
    v = warp_reduce_sum(v);
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
  for (int offset = 16; offset > 0; offset >>= 1) {
    lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
    hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&out[0], lo);
    atomicMax(&out[1], hi);
  }
}

extern "C" __global__ void dot_f64(const double* __restrict__ x, const double* __restrict__ y, double* out, int n) {
  __shared__ double warp_sums[32];
  double v = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i] * y[i];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) >> 5;
    v = lane < nwarps ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) atomicAdd(out, v);
  }
}
