// CSR SpMV y = A x over matrices with power-law row lengths, written for the H200 validation set
// (issue 17). Row pointers come from calibration/validation/h200/ext_inputs.py (a few rows hold tens
// of thousands of nonzeros, most a handful); columns are uniform random.
//  - spmv_pl_thread: one thread per row.
//  - spmv_pl_warp:   one warp per row, lanes stride the row, shuffle sum (blockDim.x % 32 == 0).
//  - spmv_pl_sub8:   8 lanes per row (4 rows per warp), shuffle sum within the group.

extern "C" __global__ void spmv_pl_thread(int rows, const int* __restrict__ rowptr, const int* __restrict__ col,
                                          const float* __restrict__ val, const float* __restrict__ x,
                                          float* __restrict__ y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int j = rowptr[r]; j < rowptr[r + 1]; ++j) acc += val[j] * x[col[j]];
  y[r] = acc;
}

extern "C" __global__ void spmv_pl_warp(int rows, const int* __restrict__ rowptr, const int* __restrict__ col,
                                        const float* __restrict__ val, const float* __restrict__ x,
                                        float* __restrict__ y) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int j = rowptr[r] + lane; j < rowptr[r + 1]; j += 32) acc += val[j] * x[col[j]];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) y[r] = acc;
}

extern "C" __global__ void spmv_pl_sub8(int rows, const int* __restrict__ rowptr, const int* __restrict__ col,
                                        const float* __restrict__ val, const float* __restrict__ x,
                                        float* __restrict__ y) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int r = t / 8, sub = t % 8;
  float acc = 0.0f;
  if (r < rows)
    for (int j = rowptr[r] + sub; j < rowptr[r + 1]; j += 8) acc += val[j] * x[col[j]];
  for (int off = 4; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off, 8);
  if (r < rows && sub == 0) y[r] = acc;
}
