// HIP port of tests/kernels/cuda/transpose.cu (same kernels, same launch semantics).
// Matrix transpose out[c][r] = in[r][c] for a rows x cols row-major matrix, three ways:
//  - transpose_naive:        one element per thread; reads coalesced, writes strided
//  - transpose_tiled:        32x32 shared tile, both reads and writes coalesced, but the column
//                            read of the tile hits one shared bank 32 times
//  - transpose_tiled_padded: the same with a 33-float row pitch, free of bank conflicts
// The tiled kernels use blocks of 32 x 8 threads, each thread moving 4 elements; grid
// (ceil(cols/32), ceil(rows/32)). Partial edge tiles are guarded.
#include <hip/hip_runtime.h>

#define TILE 32

extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  for (int j = threadIdx.y; j < TILE; j += blockDim.y) {
    int y = blockIdx.y * TILE + j;
    if (x < cols && y < rows) tile[j][threadIdx.x] = in[(size_t)y * cols + x];
  }
  __syncthreads();
  int ox = blockIdx.y * TILE + threadIdx.x;  // column of out = row of in
  for (int j = threadIdx.y; j < TILE; j += blockDim.y) {
    int oy = blockIdx.x * TILE + j;  // row of out = column of in
    if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][j];
  }
}

extern "C" __global__ void transpose_tiled_padded(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                  int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  for (int j = threadIdx.y; j < TILE; j += blockDim.y) {
    int y = blockIdx.y * TILE + j;
    if (x < cols && y < rows) tile[j][threadIdx.x] = in[(size_t)y * cols + x];
  }
  __syncthreads();
  int ox = blockIdx.y * TILE + threadIdx.x;
  for (int j = threadIdx.y; j < TILE; j += blockDim.y) {
    int oy = blockIdx.x * TILE + j;
    if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][j];
  }
}
