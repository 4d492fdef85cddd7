// Tensor-core GEMM tile written against the PTX ISA the way hand-tuned kernels are:
// cp.async (global -> shared, 16 bytes, double-buffered), ldmatrix (shared -> fragments) and
// mma.sync.m16n8k16 (f16 x f16 -> f32).
//   C (f32, M x N, row-major) = A (f16, M x K, row-major) * B (f16, K x N, row-major)
// Block: 128 threads = 4 warps, block tile 64 x 64, K step 32; each warp owns a 32 x 32 sub-tile
// (2 m16 tiles x 4 n8 tiles). Requires M % 64 == 0, N % 64 == 0, K % 32 == 0; blocks outside C
// return at once, so the grid may overhang. Grid (ceil(N/64), ceil(M/64)), block 128.
#include <cuda_fp16.h>

#define MMA_BM 64
#define MMA_BN 64
#define MMA_BK 32
#define MMA_A_STRIDE (MMA_BK + 8)  // 40 halves = 80 B rows: 16-B aligned, ldmatrix rows spread over banks
#define MMA_B_STRIDE (MMA_BN + 8)  // 72 halves = 144 B rows

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(smem)), "l"(gmem));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most one committed group is still in flight.
__device__ __forceinline__ void cp_async_wait_one() { asm volatile("cp.async.wait_group 1;\n" ::); }

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(smem)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(smem)));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(128) mma_gemm_f16(const __half* __restrict__ A,
                                                               const __half* __restrict__ B, float* __restrict__ C,
                                                               int M, int N, int K) {
  __shared__ __align__(16) __half As[2][MMA_BM * MMA_A_STRIDE];
  __shared__ __align__(16) __half Bs[2][MMA_BK * MMA_B_STRIDE];
  const int bm = blockIdx.y * MMA_BM, bn = blockIdx.x * MMA_BN;
  if (bm >= M || bn >= N) return;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int warp_m = (warp >> 1) * 32, warp_n = (warp & 1) * 32;

  // Each thread copies two 16-byte chunks of the A tile (64 rows x 4 chunks) and two of the
  // B tile (32 rows x 8 chunks).
  auto load_tile = [&](int kt, int stage) {
    int k0 = kt * MMA_BK;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      int c = tid + 128 * p;
      int row = c >> 2, col = (c & 3) * 8;
      cp_async_16(&As[stage][row * MMA_A_STRIDE + col], A + (size_t)(bm + row) * K + k0 + col);
    }
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      int c = tid + 128 * p;
      int row = c >> 3, col = (c & 7) * 8;
      cp_async_16(&Bs[stage][row * MMA_B_STRIDE + col], B + (size_t)(k0 + row) * N + bn + col);
    }
  };

  float acc[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  const int ktiles = K / MMA_BK;
  load_tile(0, 0);
  cp_async_commit();
  for (int kt = 0; kt < ktiles; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < ktiles) load_tile(kt + 1, cur ^ 1);
    cp_async_commit();  // possibly empty: keeps the group count uniform
    cp_async_wait_one();
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < MMA_BK; kk += 16) {
      unsigned a[2][4];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
        // lanes 0-15 address rows 0-15 at column kk, lanes 16-31 the same rows at kk + 8
        int row = warp_m + mi * 16 + (lane & 15);
        int col = kk + (lane >> 4) * 8;
        ldmatrix_x4(a[mi], &As[cur][row * MMA_A_STRIDE + col]);
      }
      unsigned b[4][2];
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        // transposed load of a 16 (k) x 16 (n) block: registers 0,1 feed n8 tile 2*np, 2,3 tile 2*np+1
        unsigned r[4];
        int krow = kk + (lane & 15);
        int col = warp_n + np * 16 + (lane >> 4) * 8;
        ldmatrix_x4_trans(r, &Bs[cur][krow * MMA_B_STRIDE + col]);
        b[2 * np][0] = r[0];
        b[2 * np][1] = r[1];
        b[2 * np + 1][0] = r[2];
        b[2 * np + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma_16816(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
    __syncthreads();  // the next iteration's copy overwrites the stage just read
  }

  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      int row = bm + warp_m + mi * 16 + g;
      int col = bn + warp_n + ni * 8 + t * 2;
      *reinterpret_cast<float2*>(&C[(size_t)row * N + col]) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(&C[(size_t)(row + 8) * N + col]) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
    }
}
