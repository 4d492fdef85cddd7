// One small kernel per MFMA shape, for the AMD MFMA layout tests: a single wave multiplies
// A[blocks][M][K] by B[blocks][K][N] (small integers, exact in every input format) and stores
// D[blocks][M][N] as floats. Operands are gathered and results scattered with the documented lane
// layouts (see sim/functional/amd_mfma.cpp); the test compares with a plain matrix product.
#include <hip/hip_runtime.h>

template <int M, int K, int NB, int KPL>
__device__ float a_elem(const float* A, int e) {
  const int l = threadIdx.x, g = l / M, blk = NB == 1 ? 0 : g, k = NB == 1 ? g * KPL + e : e;
  return A[(blk * M + l % M) * K + k];
}
template <int N, int K, int NB, int KPL>
__device__ float b_elem(const float* B, int e) {
  const int l = threadIdx.x, g = l / N, blk = NB == 1 ? 0 : g, k = NB == 1 ? g * KPL + e : e;
  return B[(blk * K + k) * N + l % N];
}
template <int M, int N, int R, class V>
__device__ void store_d(float* D, const V& acc) {
  const int l = threadIdx.x;
  for (int r = 0; r < R; ++r) {
    const int q = (r / 4) * (64 / N) + l / N, i = 4 * (q % (M / 4)) + r % 4, blk = q / (M / 4);
    D[(blk * M + i) * N + l % N] = (float)acc[r];
  }
}

// operand packers: KPL values of one lane into the builtin's operand type
template <int KPL, class G> __device__ float pk_f32(G g) { return g(0); }
template <int KPL, class G> __device__ double pk_f64(G g) { return g(0); }
template <int KPL, class G> __device__ auto pk_f16(G g) {
  _Float16 __attribute__((ext_vector_type(KPL))) v;
  for (int e = 0; e < KPL; ++e) v[e] = (_Float16)g(e);
  return v;
}
template <int KPL, class G> __device__ auto pk_bf16s(G g) {  // bf16 bits in shorts (gfx942 builtins)
  short __attribute__((ext_vector_type(KPL))) v;
  for (int e = 0; e < KPL; ++e) v[e] = (short)(__builtin_bit_cast(unsigned, g(e)) >> 16);
  return v;
}
template <int KPL, class G> __device__ auto pk_bf16(G g) {  // __bf16 vectors (gfx950 builtins)
  __bf16 __attribute__((ext_vector_type(KPL))) v;
  for (int e = 0; e < KPL; ++e) v[e] = (__bf16)g(e);
  return v;
}
template <int KPL, class G> __device__ auto pk_i8(G g) {
  int w[KPL / 4];
  for (int i = 0; i < KPL / 4; ++i) w[i] = 0;
  for (int e = 0; e < KPL; ++e) w[e / 4] |= ((int)(signed char)(int)g(e) & 0xff) << (8 * (e % 4));
  if constexpr (KPL == 4) return w[0];
  else if constexpr (KPL == 8) return (long)(unsigned)w[0] | ((long)w[1] << 32);
  else {
    int __attribute__((ext_vector_type(KPL / 4))) v;
    for (int i = 0; i < KPL / 4; ++i) v[i] = w[i];
    return v;
  }
}
template <bool BF8, class G> __device__ long pk_f8(G g) {
  int w[2];
  for (int i = 0; i < 2; ++i) {
    int lo = BF8 ? __builtin_amdgcn_cvt_pk_bf8_f32(g(4 * i), g(4 * i + 1), 0, false) : __builtin_amdgcn_cvt_pk_fp8_f32(g(4 * i), g(4 * i + 1), 0, false);
    w[i] = BF8 ? __builtin_amdgcn_cvt_pk_bf8_f32(g(4 * i + 2), g(4 * i + 3), lo, true) : __builtin_amdgcn_cvt_pk_fp8_f32(g(4 * i + 2), g(4 * i + 3), lo, true);
  }
  return (long)(unsigned)w[0] | ((long)w[1] << 32);
}

#define MFMA(name, M, N, K, NB, CT, PA, PB, BUILTIN)                                            \
  extern "C" __global__ void name(const float* A, const float* B, float* D) {                  \
    constexpr int KPL = NB == 1 ? K * M / 64 : K;                                              \
    constexpr int R = M * N * NB / 64;                                                         \
    auto a = PA([&](int e) { return a_elem<M, K, NB, KPL>(A, e); });                           \
    auto b = PB([&](int e) { return b_elem<N, K, NB, KPL>(B, e); });                           \
    CT __attribute__((ext_vector_type(R))) c = {};                                             \
    c = BUILTIN(a, b, c, 0, 0, 0);                                                             \
    store_d<M, N, R>(D, c);                                                                    \
  }

#define F32(k) pk_f32<k>
#define F16(k) pk_f16<k>
#define I8(k) pk_i8<k>

MFMA(f32_32x32x1, 32, 32, 1, 2, float, pk_f32<1>, pk_f32<1>, __builtin_amdgcn_mfma_f32_32x32x1f32)
MFMA(f32_16x16x1, 16, 16, 1, 4, float, pk_f32<1>, pk_f32<1>, __builtin_amdgcn_mfma_f32_16x16x1f32)
MFMA(f32_4x4x1, 4, 4, 1, 16, float, pk_f32<1>, pk_f32<1>, __builtin_amdgcn_mfma_f32_4x4x1f32)
MFMA(f32_32x32x2, 32, 32, 2, 1, float, pk_f32<1>, pk_f32<1>, __builtin_amdgcn_mfma_f32_32x32x2f32)
MFMA(f32_16x16x4, 16, 16, 4, 1, float, pk_f32<1>, pk_f32<1>, __builtin_amdgcn_mfma_f32_16x16x4f32)
MFMA(f16_32x32x4, 32, 32, 4, 2, float, pk_f16<4>, pk_f16<4>, __builtin_amdgcn_mfma_f32_32x32x4f16)
MFMA(f16_16x16x4, 16, 16, 4, 4, float, pk_f16<4>, pk_f16<4>, __builtin_amdgcn_mfma_f32_16x16x4f16)
MFMA(f16_4x4x4, 4, 4, 4, 16, float, pk_f16<4>, pk_f16<4>, __builtin_amdgcn_mfma_f32_4x4x4f16)
MFMA(f16_32x32x8, 32, 32, 8, 1, float, pk_f16<4>, pk_f16<4>, __builtin_amdgcn_mfma_f32_32x32x8f16)
MFMA(f16_16x16x16, 16, 16, 16, 1, float, pk_f16<4>, pk_f16<4>, __builtin_amdgcn_mfma_f32_16x16x16f16)
MFMA(bf16_32x32x4, 32, 32, 4, 2, float, pk_bf16s<4>, pk_bf16s<4>, __builtin_amdgcn_mfma_f32_32x32x4bf16_1k)
MFMA(bf16_16x16x4, 16, 16, 4, 4, float, pk_bf16s<4>, pk_bf16s<4>, __builtin_amdgcn_mfma_f32_16x16x4bf16_1k)
MFMA(bf16_4x4x4, 4, 4, 4, 16, float, pk_bf16s<4>, pk_bf16s<4>, __builtin_amdgcn_mfma_f32_4x4x4bf16_1k)
MFMA(bf16_32x32x8, 32, 32, 8, 1, float, pk_bf16s<4>, pk_bf16s<4>, __builtin_amdgcn_mfma_f32_32x32x8bf16_1k)
MFMA(bf16_16x16x16, 16, 16, 16, 1, float, pk_bf16s<4>, pk_bf16s<4>, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k)
MFMA(i8_32x32x4, 32, 32, 4, 2, int, pk_i8<4>, pk_i8<4>, __builtin_amdgcn_mfma_i32_32x32x4i8)
MFMA(i8_16x16x4, 16, 16, 4, 4, int, pk_i8<4>, pk_i8<4>, __builtin_amdgcn_mfma_i32_16x16x4i8)
MFMA(i8_4x4x4, 4, 4, 4, 16, int, pk_i8<4>, pk_i8<4>, __builtin_amdgcn_mfma_i32_4x4x4i8)
MFMA(fp8_16x16x32, 16, 16, 32, 1, float, pk_f8<false>, pk_f8<false>, __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8)
MFMA(bf8_fp8_16x16x32, 16, 16, 32, 1, float, pk_f8<true>, pk_f8<false>, __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8)
MFMA(fp8_bf8_16x16x32, 16, 16, 32, 1, float, pk_f8<false>, pk_f8<true>, __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8)
MFMA(bf8_32x32x16, 32, 32, 16, 1, float, pk_f8<true>, pk_f8<true>, __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8)
MFMA(f64_16x16x4, 16, 16, 4, 1, double, pk_f64<1>, pk_f64<1>, __builtin_amdgcn_mfma_f64_16x16x4f64)
#if defined(__gfx950__)
// Block-scaled f8f6f4 MFMA (gfx950). Inputs are integers in [-3, 3], exact in every format; each
// lane's E8M0 scale is 2^((row + k_group) % 3 - 1) for A and 2^((column + k_group) % 3 - 1) for B,
// placed in the scale register's byte SA / SB (the other bytes hold junk).
__device__ unsigned small_code(float v, int fmt) {  // fmt 0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4
  const int a = (int)(v < 0 ? -v : v);
  static const unsigned char codes[5][4] = {
      {0x00, 0x38, 0x40, 0x44}, {0x00, 0x3c, 0x40, 0x42}, {0x00, 0x08, 0x10, 0x14}, {0x00, 0x0c, 0x10, 0x12}, {0x0, 0x2, 0x4, 0x5}};
  const unsigned sign = fmt <= 1 ? 0x80 : fmt <= 3 ? 0x20 : 0x8;
  return codes[fmt][a] | (v < 0 ? sign : 0u);
}
template <int FMT, class G>
__device__ auto pk_f8f6f4(G g) {
  const int bits = FMT <= 1 ? 8 : FMT <= 3 ? 6 : 4;
  int __attribute__((ext_vector_type(8))) v = {};
  for (int e = 0; e < 32; ++e) {
    const unsigned long long c = small_code(g(e), FMT);
    const int bit = e * bits, reg = bit / 32, sh = bit % 32;
    v[reg] |= (int)(unsigned)(c << sh);
    if (sh + bits > 32) v[reg + 1] |= (int)(unsigned)(c >> (32 - sh));
  }
  return v;
}
#define MFMA_SCALED(name, M, N, K, FA, FB, SA, SB, BUILTIN)                                       \
  extern "C" __global__ void name(const float* A, const float* B, float* D) {                    \
    constexpr int R = M * N / 64;                                                                \
    const int l = threadIdx.x;                                                                   \
    auto a = pk_f8f6f4<FA>([&](int e) { return a_elem<M, K, 1, 32>(A, e); });                    \
    auto b = pk_f8f6f4<FB>([&](int e) { return b_elem<N, K, 1, 32>(B, e); });                    \
    const int ea = 126 + ((l % M) + l / M) % 3, eb = 126 + ((l % N) + l / N) % 3;             \
    const int sa = (int)((0x5a5a5a5au & ~(0xffu << (8 * SA))) | ((unsigned)ea << (8 * SA)));    \
    const int sb = (int)((0xa5a5a5a5u & ~(0xffu << (8 * SB))) | ((unsigned)eb << (8 * SB)));    \
    float __attribute__((ext_vector_type(R))) c = {};                                          \
    c = BUILTIN(a, b, c, FA, FB, SA, sa, SB, sb);                                                 \
    store_d<M, N, R>(D, c);                                                                      \
  }
MFMA_SCALED(scaled_fp4_fp4_16x16x128, 16, 16, 128, 4, 4, 0, 0, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4)
MFMA_SCALED(scaled_fp6_bf6_16x16x128, 16, 16, 128, 2, 3, 1, 2, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4)
MFMA_SCALED(scaled_fp8_bf8_32x32x64, 32, 32, 64, 0, 1, 3, 1, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4)
MFMA_SCALED(scaled_fp4_fp6_32x32x64, 32, 32, 64, 4, 2, 2, 3, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4)
MFMA(f16_16x16x32, 16, 16, 32, 1, float, pk_f16<8>, pk_f16<8>, __builtin_amdgcn_mfma_f32_16x16x32_f16)
MFMA(f16_32x32x16, 32, 32, 16, 1, float, pk_f16<8>, pk_f16<8>, __builtin_amdgcn_mfma_f32_32x32x16_f16)
MFMA(bf16_16x16x32, 16, 16, 32, 1, float, pk_bf16<8>, pk_bf16<8>, __builtin_amdgcn_mfma_f32_16x16x32_bf16)
MFMA(bf16_32x32x16, 32, 32, 16, 1, float, pk_bf16<8>, pk_bf16<8>, __builtin_amdgcn_mfma_f32_32x32x16_bf16)
MFMA(i8_16x16x64, 16, 16, 64, 1, int, pk_i8<16>, pk_i8<16>, __builtin_amdgcn_mfma_i32_16x16x64_i8)
MFMA(i8_32x32x32, 32, 32, 32, 1, int, pk_i8<16>, pk_i8<16>, __builtin_amdgcn_mfma_i32_32x32x32_i8)
#else
MFMA(i8_32x32x16, 32, 32, 16, 1, int, pk_i8<8>, pk_i8<8>, __builtin_amdgcn_mfma_i32_32x32x16_i8)
MFMA(i8_16x16x32, 16, 16, 32, 1, int, pk_i8<8>, pk_i8<8>, __builtin_amdgcn_mfma_i32_16x16x32_i8)
#endif
