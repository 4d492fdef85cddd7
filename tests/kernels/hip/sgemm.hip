// HIP port of tests/kernels/cuda/sgemm.cu (same kernels, same launch semantics).
// Single-precision GEMM, C = alpha * A * B + beta * C, all row-major: A is M x K, B is K x N,
// C is M x N. Three steps of the classic optimisation ladder; all handle any M, N, K.
//  - sgemm_naive:    one output per thread, K-loop straight from global memory;
//                    block (16,16), grid (ceil(N/16), ceil(M/16))
//  - sgemm_tiled:    16x16 shared-memory tiles of A and B; same launch shape
//  - sgemm_regblock: 64x64 block tile, BK = 8, each of 16x16 threads keeps a 4x4 register tile
//                    (rows ty + 16*i, columns tx + 16*j); block (16,16), grid (ceil(N/64), ceil(M/64))
#include <hip/hip_runtime.h>

extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
  }
}

#define GEMM_TILE 16

extern "C" __global__ void sgemm_tiled(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[GEMM_TILE][GEMM_TILE];
  __shared__ float Bs[GEMM_TILE][GEMM_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * GEMM_TILE + ty;
  int col = blockIdx.x * GEMM_TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < GEMM_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}

#define RB_BM 64
#define RB_BN 64
#define RB_BK 8
#define RB_T 4

extern "C" __global__ void sgemm_regblock(int M, int N, int K, float alpha, const float* __restrict__ A,
                                          const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[RB_BK][RB_BM];  // k-major, so one k gives a thread its 4 rows
  __shared__ float Bs[RB_BK][RB_BN];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * 16 + tx;
  int row0 = blockIdx.y * RB_BM, col0 = blockIdx.x * RB_BN;
  float acc[RB_T][RB_T];
#pragma unroll
  for (int i = 0; i < RB_T; ++i)
#pragma unroll
    for (int j = 0; j < RB_T; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += RB_BK) {
#pragma unroll
    for (int p = 0; p < 2; ++p) {  // 64 x 8 elements of A, 256 threads, 2 each
      int e = tid + 256 * p;
      int r = e / RB_BK, k = e % RB_BK;
      int gr = row0 + r, gk = k0 + k;
      As[k][r] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
    }
#pragma unroll
    for (int p = 0; p < 2; ++p) {  // 8 x 64 elements of B
      int e = tid + 256 * p;
      int k = e / RB_BN, c = e % RB_BN;
      int gk = k0 + k, gc = col0 + c;
      Bs[k][c] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < RB_BK; ++k) {
      float a[RB_T], b[RB_T];
#pragma unroll
      for (int i = 0; i < RB_T; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < RB_T; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < RB_T; ++i)
#pragma unroll
        for (int j = 0; j < RB_T; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < RB_T; ++i)
#pragma unroll
    for (int j = 0; j < RB_T; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N) C[(size_t)r * N + c] = alpha * acc[i][j] + beta * C[(size_t)r * N + c];
    }
}
