// HIP port of tests/kernels/cuda/spmv.cu for wave64. Sparse matrix-vector product y = A x with A in
// CSR form (row_ptr[rows+1], col_idx[nnz], vals[nnz]).
//  - spmv_csr_scalar: one thread per row; uncoalesced, unbalanced when row lengths vary
//  - spmv_csr_vector: one wave per row (blockDim.x / 64 rows per block), lanes stride the row,
//                     shuffle reduction, lane 0 writes
#include <hip/hip_runtime.h>

extern "C" __global__ void spmv_csr_scalar(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                           const float* __restrict__ vals, const float* __restrict__ x,
                                           float* __restrict__ y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; ++j) s += vals[j] * x[col_idx[j]];
    y[r] = s;
  }
}

extern "C" __global__ void spmv_csr_vector(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                           const float* __restrict__ vals, const float* __restrict__ x,
                                           float* __restrict__ y) {
  int r = blockIdx.x * (blockDim.x >> 6) + (threadIdx.x >> 6);
  int lane = threadIdx.x & 63;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += 64) s += vals[j] * x[col_idx[j]];
  for (int o = 32; o > 0; o >>= 1) s += __shfl_down(s, o);
  if (lane == 0) y[r] = s;
}
