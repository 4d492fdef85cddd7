// Global atomics under contention, written for the H200 validation set (issue 17).
//  - atomic_lines_f32 / _u32: element i adds into out[(i % naddr) * stride]: naddr addresses
//    `stride` words apart (stride 1: the addresses share 128-byte lines; stride 32: one per line).
//  - hist_pow_*: a histogram whose bins are skewed by a power law: x uniform in [-1, 1),
//    u = |x| squared `squarings` times, bin = min(int(u * nbins), nbins - 1) (u^1, u^4, u^16:
//    ever more of the input lands in the low bins). Global atomics per element; shared-memory
//    privatised copies (grid-stride, nbins u32 of dynamic shared memory); warp-aggregated global
//    atomics (__match_any_sync: one atomic per distinct bin per warp).

extern "C" __global__ void atomic_lines_f32(const float* __restrict__ in, float* out, int n, int naddr, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out + (i % naddr) * stride, in[i]);
}

extern "C" __global__ void atomic_lines_u32(const unsigned* __restrict__ in, unsigned* out, int n, int naddr,
                                            int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out + (i % naddr) * stride, in[i] & 0xffu);
}

__device__ __forceinline__ int pow_bin(float x, int nbins, int squarings) {
  float u = fabsf(x);
  for (int s = 0; s < squarings; ++s) u = u * u;
  int b = (int)(u * (float)nbins);
  return b < nbins - 1 ? b : nbins - 1;
}

extern "C" __global__ void hist_pow_global(const float* __restrict__ in, unsigned* bins, int n, int nbins,
                                           int squarings) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(bins + pow_bin(in[i], nbins, squarings), 1u);
}

extern "C" __global__ void hist_pow_shared(const float* __restrict__ in, unsigned* bins, int n, int nbins,
                                           int squarings) {
  extern __shared__ unsigned local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(local + pow_bin(in[i], nbins, squarings), 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local[b]) atomicAdd(bins + b, local[b]);
}

extern "C" __global__ void hist_pow_warpagg(const float* __restrict__ in, unsigned* bins, int n, int nbins,
                                            int squarings) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned active = __ballot_sync(0xffffffffu, i < n);
  if (i >= n) return;
  int b = pow_bin(in[i], nbins, squarings);
  unsigned peers = __match_any_sync(active, b);
  int lane = threadIdx.x & 31;
  if ((__ffs(peers) - 1) == lane) atomicAdd(bins + b, (unsigned)__popc(peers));
}
