// Tensor-core GEMM through the CUDA WMMA API: C (f32, M x N, row-major) = A (f16, M x K, row-major)
// * B (f16, K x N, row-major), f32 accumulation. Each warp computes one 16x16 tile of C; a block of
// 4 warps covers a 32x32 tile (warps 2 x 2). M, N and K must be multiples of 16; warps whose tile
// lies outside C leave at once, so the grid may overhang. Grid (ceil(N/32), ceil(M/32)), block 128.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void wmma_gemm_f16(const __half* __restrict__ A, const __half* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K) {
  int warp = threadIdx.x / 32;
  int tile_m = (blockIdx.y * 2 + warp / 2) * 16;
  int tile_n = (blockIdx.x * 2 + warp % 2) * 16;
  if (tile_m >= M || tile_n >= N) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tile_m * K + k, K);
    wmma::load_matrix_sync(b, B + (size_t)k * N + tile_n, N);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + (size_t)tile_m * N + tile_n, c, N, wmma::mem_row_major);
}
