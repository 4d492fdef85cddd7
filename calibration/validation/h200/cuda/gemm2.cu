// GEMMs written for the H200 validation set (issue 17). Row-major everywhere.
//  - sgemm_naive32: C = A B (fp32, M x K times K x N), one thread per output in 32 x 32 blocks of
//    1024 threads; threadIdx.x walks the columns: a warp reads one A element (a broadcast) and 32
//    consecutive B elements (coalesced) per k. Grid (N/32, M/32).
//  - sgemm_naive32_rowx: the same with threadIdx.x walking the rows: a warp reads 32 A rows
//    (strided) and one B element per k. Grid (M/32, N/32).
//  - sgemm_f4_64: 64 x 64 block tile, K step 8, 256 threads, 4 x 4 outputs per thread, float4
//    loads from global and shared memory (A tile stored transposed). M, N % 64 == 0, K % 8 == 0.
//  - sgemm_f4_128: 128 x 128 block tile, K step 8, 256 threads, 8 x 8 outputs per thread (two
//    4-wide groups 64 apart in each direction), float4 loads. M, N % 128 == 0, K % 8 == 0.
//  - hgemm_mma_tn / _cpasync (f16) and bgemm_mma_tn (bf16): C (f32, M x N) = A (M x K) B^T with B
//    stored N x K (both operands K-contiguous, as nn.Linear keeps weights). 128 x 128 block tile,
//    K step 32, 8 warps (2 x 4), each warp 64 x 32 = 4 x 4 mma.sync.m16n8k16; fragments with
//    ldmatrix.x4 from padded shared tiles. _tn loads tiles with 16-byte loads to registers and
//    stores them (one buffer, two barriers per K step); _cpasync uses cp.async.cg into two buffers.
//    M, N % 128 == 0, K % 32 == 0. Grid (N/128, M/128), block 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void sgemm_naive32(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C) {
  int col = blockIdx.x * 32 + threadIdx.x;
  int row = blockIdx.y * 32 + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

extern "C" __global__ void sgemm_naive32_rowx(int M, int N, int K, const float* __restrict__ A,
                                              const float* __restrict__ B, float* __restrict__ C) {
  int row = blockIdx.x * 32 + threadIdx.x;
  int col = blockIdx.y * 32 + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

extern "C" __global__ void __launch_bounds__(256) sgemm_f4_64(int M, int N, int K, const float* __restrict__ A,
                                                              const float* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(16) float As[8][64];  // As[k][m]
  __shared__ __align__(16) float Bs[8][64];  // Bs[k][n]
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int bm = blockIdx.y * 64, bn = blockIdx.x * 64;
  float acc[4][4] = {};
  // loaders: A tile 64 x 8 = 128 float4 (row = tid / 2, k4 = tid % 2), B tile 8 x 64 = 128 float4
  for (int k0 = 0; k0 < K; k0 += 8) {
    if (tid < 128) {
      int r = tid / 2, c = (tid % 2) * 4;
      float4 a = *reinterpret_cast<const float4*>(A + (size_t)(bm + r) * K + k0 + c);
      As[c + 0][r] = a.x;
      As[c + 1][r] = a.y;
      As[c + 2][r] = a.z;
      As[c + 3][r] = a.w;
    } else {
      int t = tid - 128, r = t / 16, c = (t % 16) * 4;
      *reinterpret_cast<float4*>(&Bs[r][c]) = *reinterpret_cast<const float4*>(B + (size_t)(k0 + r) * N + bn + c);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float4 a = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
      float4 b = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
      float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
    *reinterpret_cast<float4*>(C + (size_t)(bm + ty * 4 + i) * N + bn + tx * 4) =
        make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}

extern "C" __global__ void __launch_bounds__(256) sgemm_f4_128(int M, int N, int K, const float* __restrict__ A,
                                                               const float* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(16) float As[8][128];  // As[k][m]
  __shared__ __align__(16) float Bs[8][128];  // Bs[k][n]
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int bm = blockIdx.y * 128, bn = blockIdx.x * 128;
  float acc[8][8] = {};
  // A tile 128 x 8 = 256 float4: row tid / 2, k4 (tid % 2); B tile 8 x 128 = 256 float4: row tid / 32
  const int ar = tid / 2, ac = (tid % 2) * 4;
  const int br = tid / 32, bc = (tid % 32) * 4;
  for (int k0 = 0; k0 < K; k0 += 8) {
    float4 a = *reinterpret_cast<const float4*>(A + (size_t)(bm + ar) * K + k0 + ac);
    float4 b = *reinterpret_cast<const float4*>(B + (size_t)(k0 + br) * N + bn + bc);
    As[ac + 0][ar] = a.x;
    As[ac + 1][ar] = a.y;
    As[ac + 2][ar] = a.z;
    As[ac + 3][ar] = a.w;
    *reinterpret_cast<float4*>(&Bs[br][bc]) = b;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float4 a0 = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
      float4 a1 = *reinterpret_cast<const float4*>(&As[k][64 + ty * 4]);
      float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
      float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][64 + tx * 4]);
      float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    int row = bm + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    *reinterpret_cast<float4*>(C + (size_t)row * N + bn + tx * 4) =
        make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(C + (size_t)row * N + bn + 64 + tx * 4) =
        make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

// ------------------------------------------------------------------------------ tensor cores

#define TC_BM 128
#define TC_BN 128
#define TC_BK 32
#define TC_LD (TC_BK + 8)  // 40 halves = 80 B per row: ldmatrix rows fall in distinct banks

__device__ __forceinline__ unsigned sm_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void ldsm_x4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(sm_addr(p)));
}

template <bool BF16>
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if (BF16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One K step of 32 over the tiles in shared memory: two k16 halves, each 4 A and 2 B ldmatrix.x4, 16 mma.
template <bool BF16>
__device__ __forceinline__ void tc_step(float (&acc)[4][4][4], const unsigned short* As, const unsigned short* Bs,
                                        int wm, int wn, int lane) {
#pragma unroll
  for (int kk = 0; kk < TC_BK; kk += 16) {
    unsigned a[4][4], b[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const unsigned short* p = As + (wm * 64 + i * 16 + (lane % 16)) * TC_LD + kk + (lane / 16) * 8;
      ldsm_x4(a[i][0], a[i][1], a[i][2], a[i][3], p);
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const unsigned short* p = Bs + (wn * 32 + j * 16 + (lane / 16) * 8 + (lane % 8)) * TC_LD + kk + ((lane / 8) % 2) * 8;
      ldsm_x4(b[2 * j][0], b[2 * j][1], b[2 * j + 1][0], b[2 * j + 1][1], p);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) mma16816<BF16>(acc[i][j], a[i], b[j][0], b[j][1]);
  }
}

template <bool BF16>
__device__ __forceinline__ void tc_store(const float (&acc)[4][4][4], float* C, int N, int bm, int bn, int wm, int wn,
                                         int lane) {
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int r = bm + wm * 64 + i * 16 + lane / 4;
      int c = bn + wn * 32 + j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(C + (size_t)r * N + c) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(C + (size_t)(r + 8) * N + c) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}

template <bool BF16>
__device__ __forceinline__ void gemm_mma_tn(const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
                                            float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) unsigned short As[TC_BM * TC_LD];
  __shared__ __align__(16) unsigned short Bs[TC_BN * TC_LD];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4;
  const int bm = blockIdx.y * TC_BM, bn = blockIdx.x * TC_BN;
  float acc[4][4][4] = {};
  for (int k0 = 0; k0 < K; k0 += TC_BK) {
    uint4 ra[2], rb[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // 512 16-byte chunks per operand tile: row = idx / 4, chunk = idx % 4
      int idx = tid + h * 256, r = idx / 4, c = (idx % 4) * 8;
      ra[h] = *reinterpret_cast<const uint4*>(A + (size_t)(bm + r) * K + k0 + c);
      rb[h] = *reinterpret_cast<const uint4*>(B + (size_t)(bn + r) * K + k0 + c);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int idx = tid + h * 256, r = idx / 4, c = (idx % 4) * 8;
      *reinterpret_cast<uint4*>(As + r * TC_LD + c) = ra[h];
      *reinterpret_cast<uint4*>(Bs + r * TC_LD + c) = rb[h];
    }
    __syncthreads();
    tc_step<BF16>(acc, As, Bs, wm, wn, lane);
    __syncthreads();
  }
  tc_store<BF16>(acc, C, N, bm, bn, wm, wn, lane);
}

extern "C" __global__ void __launch_bounds__(256) hgemm_mma_tn(const __half* A, const __half* B, float* C, int M, int N,
                                                               int K) {
  gemm_mma_tn<false>(reinterpret_cast<const unsigned short*>(A), reinterpret_cast<const unsigned short*>(B), C, M, N,
                     K);
}

extern "C" __global__ void __launch_bounds__(256) bgemm_mma_tn(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C,
                                                               int M, int N, int K) {
  gemm_mma_tn<true>(reinterpret_cast<const unsigned short*>(A), reinterpret_cast<const unsigned short*>(B), C, M, N,
                    K);
}

__device__ __forceinline__ void cp16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sm_addr(smem)), "l"(gmem));
}

extern "C" __global__ void __launch_bounds__(256) hgemm_mma_cpasync(const __half* Ah, const __half* Bh, float* C,
                                                                    int M, int N, int K) {
  __shared__ __align__(16) unsigned short As[2][TC_BM * TC_LD];
  __shared__ __align__(16) unsigned short Bs[2][TC_BN * TC_LD];
  const unsigned short* A = reinterpret_cast<const unsigned short*>(Ah);
  const unsigned short* B = reinterpret_cast<const unsigned short*>(Bh);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4;
  const int bm = blockIdx.y * TC_BM, bn = blockIdx.x * TC_BN;
  float acc[4][4][4] = {};
  auto issue = [&](int buf, int k0) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int idx = tid + h * 256, r = idx / 4, c = (idx % 4) * 8;
      cp16(&As[buf][r * TC_LD + c], A + (size_t)(bm + r) * K + k0 + c);
      cp16(&Bs[buf][r * TC_LD + c], B + (size_t)(bn + r) * K + k0 + c);
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  issue(0, 0);
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += TC_BK) {
    if (k0 + TC_BK < K) {
      issue(buf ^ 1, k0 + TC_BK);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    tc_step<false>(acc, As[buf], Bs[buf], wm, wn, lane);
    __syncthreads();
    buf ^= 1;
  }
  tc_store<false>(acc, C, N, bm, bn, wm, wn, lane);
}
