// HIP port of tests/kernels/cuda/compute.cu (same kernels, same launch semantics).
// Compute- and latency-bound kernels for the timing model.
//  - fma_chain:      each thread runs one dependent chain x = fmaf(x, a, b), iters times
//                    (latency-bound per warp); x starts at (global thread id % 1024) / 1024
//  - fma_chain_ilp4: four independent chains of iters/4 steps each (same FMA count, 4-way ILP),
//                    starting at x0 + {0, 0.25, 0.5, 0.75}; writes the sum of the four
//  - pointer_chase:  each thread follows j = next[j] for `steps` hops from j = tid % n and
//                    writes the final index; every load depends on the previous one
#include <hip/hip_runtime.h>

extern "C" __global__ void fma_chain(float* __restrict__ out, int iters, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = (float)(i & 1023) * (1.0f / 1024.0f);
  for (int k = 0; k < iters; ++k) x = fmaf(x, a, b);
  out[i] = x;
}

extern "C" __global__ void fma_chain_ilp4(float* __restrict__ out, int iters, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x0 = (float)(i & 1023) * (1.0f / 1024.0f);
  float x1 = x0 + 0.25f, x2 = x0 + 0.5f, x3 = x0 + 0.75f;
  for (int k = 0; k < iters / 4; ++k) {
    x0 = fmaf(x0, a, b);
    x1 = fmaf(x1, a, b);
    x2 = fmaf(x2, a, b);
    x3 = fmaf(x3, a, b);
  }
  out[i] = (x0 + x1) + (x2 + x3);
}

extern "C" __global__ void pointer_chase(const unsigned int* __restrict__ next, unsigned int* __restrict__ out,
                                         int steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int j = (unsigned int)(i % n);
  for (int s = 0; s < steps; ++s) j = next[j];
  out[i] = j;
}
