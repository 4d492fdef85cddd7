// HIP port of tests/kernels/cuda/template.cu (same kernels, same launch semantics).
// A templated kernel, as libraries write them: block_sum_t<T, BLOCK> reduces BLOCK consecutive
// elements per block with a shared-memory tree (one element per thread, blockDim.x == BLOCK) and
// writes out[blockIdx.x]. Its symbols are C++-mangled, e.g.
//   block_sum_t<float, 256> = _Z11block_sum_tIfLi256EEvPKT_PS0_i
//   block_sum_t<int, 128>   = _Z11block_sum_tIiLi128EEvPKT_PS0_i
// The host function below instantiates both, as real code does, through <<<>>> launches.
#include <hip/hip_runtime.h>

template <typename T, int BLOCK>
__global__ void block_sum_t(const T* __restrict__ in, T* __restrict__ out, int n) {
  __shared__ T s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
#pragma unroll
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

void launch_block_sums(const float* f_in, float* f_out, const int* i_in, int* i_out, int n, hipStream_t stream) {
  block_sum_t<float, 256><<<(n + 255) / 256, 256, 0, stream>>>(f_in, f_out, n);
  block_sum_t<int, 128><<<(n + 127) / 128, 128, 0, stream>>>(i_in, i_out, n);
}
