// Matrix-core GEMM tiles through the __builtin_amdgcn_mfma_* builtins (the HIP counterpart of the
// CUDA corpus's wmma/mma kernels). C (M x N, row-major) = A (M x K, row-major) * B (K x N, row-major).
//
// Every kernel gives each 64-lane wave one tile of C and loops over K; a block of 4 waves covers
// a 2 x 2 arrangement of tiles. Waves whose tile lies outside C leave at once, so the grid may
// overhang. Operands are loaded straight from global memory in the documented MFMA register
// layouts (A: lane l holds row l % 16 of the tile, K elements kpl*(l / 16) .. +kpl-1; B the same with
// columns; the 4 accumulators of lane l hold rows 4*(l / 16) .. +3 of column l % 16 for 16x16
// tiles; for 32x32 tiles register r of lane l holds row 8*(r / 4) + 4*(l / 32) + r % 4, column l % 32).
//
//  - mfma_gemm_f32:   v_mfma_f32_16x16x4f32 (f32 inputs), M, N % 16 == 0, K % 4 == 0
//  - mfma_gemm_f32_32: v_mfma_f32_32x32x2f32, 32 x 32 tiles (16 accumulators), M, N % 32 == 0, K % 2 == 0
//  - mfma_gemm_f16:   gfx942 v_mfma_f32_16x16x16f16; gfx950 v_mfma_f32_16x16x32_f16; K % 32 == 0
//  - mfma_gemm_bf16:  gfx942 v_mfma_f32_16x16x16bf16_1k; gfx950 v_mfma_f32_16x16x32_bf16; K % 32 == 0
//  - mfma_gemm_i8:    gfx942 v_mfma_i32_16x16x32_i8; gfx950 v_mfma_i32_16x16x64_i8 (A, B bytes read as
//                     signed int8, C int32); K % 64 == 0
//  - mfma_gemm_fp8:   v_mfma_f32_16x16x32_fp8_fp8; A and B arrive as f32 and are converted in the
//                     kernel with v_cvt_pk_fp8_f32 to the part's own e4m3 format (FNUZ on gfx942,
//                     OCP on gfx950); values that both formats hold exactly give the same product
//                     on both parts. K % 32 == 0
//  - mfma_gemm_f64:   v_mfma_f64_16x16x4f64 (f64 in, f64 accumulate), K % 4 == 0
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));

// The wave's 16 x 16 tile: (tm, tn) of its top-left corner; false when it lies outside C.
__device__ __forceinline__ bool wave_tile16(int M, int N, int& tm, int& tn) {
  int wave = threadIdx.x >> 6;
  tm = (blockIdx.y * 2 + (wave >> 1)) * 16;
  tn = (blockIdx.x * 2 + (wave & 1)) * 16;
  return tm < M && tn < N;
}

template <class T>
__device__ __forceinline__ void store_tile16(T* C, int N, int tm, int tn, const T (&acc)[4]) {
  int lane = threadIdx.x & 63;
  for (int e = 0; e < 4; ++e) C[(size_t)(tm + 4 * (lane >> 4) + e) * N + tn + (lane & 15)] = acc[e];
}

extern "C" __global__ void mfma_gemm_f32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                         int M, int N, int K) {
  int tm, tn;
  if (!wave_tile16(M, N, tm, tn)) return;
  const int lane = threadIdx.x & 63, r = lane & 15, g = lane >> 4;
  f32x4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 4) {
    float a = A[(size_t)(tm + r) * K + k0 + g];
    float b = B[(size_t)(k0 + g) * N + tn + r];
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, acc, 0, 0, 0);
  }
  float out[4] = {acc[0], acc[1], acc[2], acc[3]};
  store_tile16(C, N, tm, tn, out);
}

extern "C" __global__ void mfma_gemm_f32_32(const float* __restrict__ A, const float* __restrict__ B,
                                            float* __restrict__ C, int M, int N, int K) {
  const int wave = threadIdx.x >> 6, lane = threadIdx.x & 63;
  const int tm = (blockIdx.y * 2 + (wave >> 1)) * 32, tn = (blockIdx.x * 2 + (wave & 1)) * 32;
  if (tm >= M || tn >= N) return;
  const int r = lane & 31, g = lane >> 5;
  f32x16 acc = {};
  for (int k0 = 0; k0 < K; k0 += 2) {
    float a = A[(size_t)(tm + r) * K + k0 + g];
    float b = B[(size_t)(k0 + g) * N + tn + r];
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, acc, 0, 0, 0);
  }
  for (int e = 0; e < 16; ++e) C[(size_t)(tm + 8 * (e >> 2) + 4 * g + (e & 3)) * N + tn + r] = acc[e];
}

extern "C" __global__ void mfma_gemm_f16(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C,
                                         int M, int N, int K) {
  int tm, tn;
  if (!wave_tile16(M, N, tm, tn)) return;
  const int lane = threadIdx.x & 63, r = lane & 15, g = lane >> 4;
  f32x4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__gfx950__)
  for (int k0 = 0; k0 < K; k0 += 32) {
    f16x8 a, b;
    for (int e = 0; e < 8; ++e) {
      a[e] = A[(size_t)(tm + r) * K + k0 + 8 * g + e].__x;
      b[e] = B[(size_t)(k0 + 8 * g + e) * N + tn + r].__x;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, acc, 0, 0, 0);
  }
#else
  for (int k0 = 0; k0 < K; k0 += 16) {
    f16x4 a, b;
    for (int e = 0; e < 4; ++e) {
      a[e] = A[(size_t)(tm + r) * K + k0 + 4 * g + e].__x;
      b[e] = B[(size_t)(k0 + 4 * g + e) * N + tn + r].__x;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  }
#endif
  float out[4] = {acc[0], acc[1], acc[2], acc[3]};
  store_tile16(C, N, tm, tn, out);
}

extern "C" __global__ void mfma_gemm_bf16(const __hip_bfloat16* __restrict__ A, const __hip_bfloat16* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K) {
  int tm, tn;
  if (!wave_tile16(M, N, tm, tn)) return;
  const int lane = threadIdx.x & 63, r = lane & 15, g = lane >> 4;
  f32x4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__gfx950__)
  for (int k0 = 0; k0 < K; k0 += 32) {
    bf16x8 a, b;
    for (int e = 0; e < 8; ++e) {
      a[e] = A[(size_t)(tm + r) * K + k0 + 8 * g + e].data;
      b[e] = B[(size_t)(k0 + 8 * g + e) * N + tn + r].data;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, acc, 0, 0, 0);
  }
#else
  for (int k0 = 0; k0 < K; k0 += 16) {
    i16x4 a, b;
    for (int e = 0; e < 4; ++e) {
      a[e] = (short)__bfloat16_as_ushort(A[(size_t)(tm + r) * K + k0 + 4 * g + e]);
      b[e] = (short)__bfloat16_as_ushort(B[(size_t)(k0 + 4 * g + e) * N + tn + r]);
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc, 0, 0, 0);
  }
#endif
  float out[4] = {acc[0], acc[1], acc[2], acc[3]};
  store_tile16(C, N, tm, tn, out);
}

extern "C" __global__ void mfma_gemm_i8(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                                        int* __restrict__ C, int M, int N, int K) {
  int tm, tn;
  if (!wave_tile16(M, N, tm, tn)) return;
  const int lane = threadIdx.x & 63, r = lane & 15, g = lane >> 4;
  i32x4 acc = {0, 0, 0, 0};
#if defined(__gfx950__)
  for (int k0 = 0; k0 < K; k0 += 64) {
    i32x4 a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
    for (int e = 0; e < 16; ++e) {
      a[e >> 2] |= (int)A[(size_t)(tm + r) * K + k0 + 16 * g + e] << (8 * (e & 3));
      b[e >> 2] |= (int)B[(size_t)(k0 + 16 * g + e) * N + tn + r] << (8 * (e & 3));
    }
    acc = __builtin_amdgcn_mfma_i32_16x16x64_i8(a, b, acc, 0, 0, 0);
  }
#else
  for (int k0 = 0; k0 < K; k0 += 32) {
    long a = 0, b = 0;
    for (int e = 0; e < 8; ++e) {
      a |= (long)A[(size_t)(tm + r) * K + k0 + 8 * g + e] << (8 * e);
      b |= (long)B[(size_t)(k0 + 8 * g + e) * N + tn + r] << (8 * e);
    }
    acc = __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, acc, 0, 0, 0);
  }
#endif
  int out[4] = {acc[0], acc[1], acc[2], acc[3]};
  store_tile16(C, N, tm, tn, out);
}

// Four floats to four e4m3 bytes of the part's own format, packed little-endian.
__device__ __forceinline__ int pack_fp8(float a, float b, float c, float d) {
  int lo = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, 0, false);
  return __builtin_amdgcn_cvt_pk_fp8_f32(c, d, lo, true);
}

extern "C" __global__ void mfma_gemm_fp8(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                         int M, int N, int K) {
  int tm, tn;
  if (!wave_tile16(M, N, tm, tn)) return;
  const int lane = threadIdx.x & 63, r = lane & 15, g = lane >> 4;
  f32x4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 32) {
    const float* a = A + (size_t)(tm + r) * K + k0 + 8 * g;
    float b[8];
    for (int e = 0; e < 8; ++e) b[e] = B[(size_t)(k0 + 8 * g + e) * N + tn + r];
    long pa = (long)(unsigned)pack_fp8(a[0], a[1], a[2], a[3]) | ((long)pack_fp8(a[4], a[5], a[6], a[7]) << 32);
    long pb = (long)(unsigned)pack_fp8(b[0], b[1], b[2], b[3]) | ((long)pack_fp8(b[4], b[5], b[6], b[7]) << 32);
    acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(pa, pb, acc, 0, 0, 0);
  }
  float out[4] = {acc[0], acc[1], acc[2], acc[3]};
  store_tile16(C, N, tm, tn, out);
}

extern "C" __global__ void mfma_gemm_f64(const double* __restrict__ A, const double* __restrict__ B, double* __restrict__ C,
                                         int M, int N, int K) {
  int tm, tn;
  if (!wave_tile16(M, N, tm, tn)) return;
  const int lane = threadIdx.x & 63, r = lane & 15, g = lane >> 4;
  f64x4 acc = {0.0, 0.0, 0.0, 0.0};
  for (int k0 = 0; k0 < K; k0 += 4) {
    double a = A[(size_t)(tm + r) * K + k0 + g];
    double b = B[(size_t)(k0 + g) * N + tn + r];
    acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, acc, 0, 0, 0);
  }
  double out[4] = {acc[0], acc[1], acc[2], acc[3]};
  store_tile16(C, N, tm, tn, out);
}
