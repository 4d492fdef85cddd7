// HIP port of tests/kernels/cuda/histogram.cu (same kernels, same launch semantics).
// 256-bin byte histograms, hist[b] += count of bytes equal to b (hist must start at zero).
//  - histogram_global: one global atomicAdd per input byte; heavy contention on popular bins
//  - histogram_shared: per-block private histogram in shared memory (shared atomics, grid-stride
//                      loop), merged into the global one with one atomicAdd per non-empty bin
#include <hip/hip_runtime.h>

extern "C" __global__ void histogram_global(const unsigned char* __restrict__ data, unsigned int* hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[data[i]], 1u);
}

extern "C" __global__ void histogram_shared(const unsigned char* __restrict__ data, unsigned int* hist, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned int c = local[b];
    if (c) atomicAdd(&hist[b], c);
  }
}
