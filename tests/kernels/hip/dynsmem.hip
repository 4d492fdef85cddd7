// HIP port of tests/kernels/cuda/dynsmem.cu (same kernels, same launch semantics).
// Dynamic shared memory (extern __shared__, size chosen at launch): each block stages its chunk of
// blockDim.x floats and writes it back reversed within the chunk (a short last chunk is reversed
// within its own length). Launch with dynamic_shared_bytes = 4 * blockDim.x.
#include <hip/hip_runtime.h>

extern "C" __global__ void reverse_dynsmem(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float stage[];
  int base = blockIdx.x * blockDim.x;
  int t = threadIdx.x;
  int count = min((int)blockDim.x, n - base);
  if (t < count) stage[t] = in[base + t];
  __syncthreads();
  if (t < count) out[base + t] = stage[count - 1 - t];
}
