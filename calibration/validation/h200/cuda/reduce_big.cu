// Sums over hundreds of MB, written for the H200 validation set (issue 17): the tree reductions of
// the classic CUDA reduction ladder and grid-stride warp-shuffle reductions.
//  - sum_tree_interleaved: one element per thread, shared tree with interleaved addressing
//    (tid % (2s) == 0: divergent warps), one partial per block.
//  - sum_tree_sequential:  one element per thread, sequential addressing (tid < s).
//  - sum_tree_firstadd:    two elements per thread added on load, sequential tree down to 64,
//    then the last warp with shuffles.
//  All three need blockDim.x a power of two <= 1024 (dynamic shared memory of blockDim.x floats).
//  - sum_shuffle_gs / sum_shuffle_gs_f4: grid-stride (float / float4 loads), warp shuffles, the
//    warps' sums through shared memory, one atomicAdd per block into out[0] (n % 4 == 0 for f4).

extern "C" __global__ void sum_tree_interleaved(const float* __restrict__ in, float* __restrict__ partial, int n) {
  extern __shared__ float s[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned step = 1; step < blockDim.x; step *= 2) {
    if (tid % (2 * step) == 0) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void sum_tree_sequential(const float* __restrict__ in, float* __restrict__ partial, int n) {
  extern __shared__ float s[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (tid < step) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void sum_tree_firstadd(const float* __restrict__ in, float* __restrict__ partial, int n) {
  extern __shared__ float s[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (2 * blockDim.x) + tid;
  float v = i < (unsigned)n ? in[i] : 0.0f;
  if (i + blockDim.x < (unsigned)n) v += in[i + blockDim.x];
  s[tid] = v;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step >= 32; step >>= 1) {
    if (tid < step) s[tid] = v = v + s[tid + step];
    __syncthreads();
  }
  if (tid < 32) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0) partial[blockIdx.x] = v;
  }
}

__device__ __forceinline__ float block_sum_to_lane0(float v) {
  __shared__ float warp_sums[32];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = 0.0f;
  if (warp == 0) {
    if (lane < (int)(blockDim.x >> 5)) v = warp_sums[lane];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  }
  return v;
}

extern "C" __global__ void sum_shuffle_gs(const float* __restrict__ in, float* out, long long n) {
  float v = 0.0f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    v += in[i];
  v = block_sum_to_lane0(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}

extern "C" __global__ void sum_shuffle_gs_f4(const float4* __restrict__ in, float* out, long long n4) {
  float v = 0.0f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
       i += (long long)gridDim.x * blockDim.x) {
    float4 q = in[i];
    v += (q.x + q.y) + (q.z + q.w);
  }
  v = block_sum_to_lane0(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}
