// Matrix-core (MFMA) issue rate and dependent latency on CDNA, timed with the shader clock. The
// HIP twin of ../cuda/mma.cu: same kernel names, arguments and out[] layouts; one step is one
// MFMA of the shape below (FLOP per wave instruction = 2 M N K).
//
//   op     instruction                          FLOP/instr  targets
//   f16    v_mfma_f32_16x16x16_f16                  8192    gfx942, gfx950
//   bf16   v_mfma_f32_16x16x16_bf16                 8192    gfx942, gfx950
//   tf32   v_mfma_f32_16x16x8_xf32                  4096    gfx942 only (gfx950 has no xf32: the
//                                                           kernel reports 0 steps there)
//   s8     v_mfma_i32_16x16x32_i8                  16384    gfx942, gfx950
//   e4m3   v_mfma_f32_16x16x32_fp8_fp8             16384    gfx942, gfx950
//   f64    v_mfma_f64_16x16x4_f64                   2048    gfx942, gfx950
//   f16_k32   v_mfma_f32_16x16x32_f16              16384    gfx950 only (CDNA4 doubles the K of
//   bf16_k32  v_mfma_f32_16x16x32_bf16             16384      f16/bf16/i8 MFMAs; on gfx942 these
//   s8_k64    v_mfma_i32_16x16x64_i8               32768      kernels report 0 steps)
//   fp8_k128  v_mfma_scale_f32_16x16x128_f8f6f4    65536    gfx950 only; fp8 x fp8, scales 1.0
//   fp4_k128  v_mfma_scale_f32_16x16x128_f8f6f4    65536    gfx950 only; fp4 x fp4, scales 1.0
//
//   issue_mma_<op>  K = 4 independent accumulators per lane, U = 8 steps per loop iteration;
//                   launch workgroups of 1024 lanes (four waves per SIMD), one per CU.
//   lat_mma_<op>    one accumulator chain (each MFMA reads the previous result as C); one wave.
//
// out (u64) as in alu.hip.
#include <hip/hip_runtime.h>

#include "mb_helpers.h"  // mb_clock64, mb_realtime, mb_smid

typedef _Float16 mb_half4 __attribute__((ext_vector_type(4)));
typedef short mb_short4 __attribute__((ext_vector_type(4)));
typedef float mb_float2 __attribute__((ext_vector_type(2)));
typedef float mb_float4 __attribute__((ext_vector_type(4)));
typedef int mb_int4 __attribute__((ext_vector_type(4)));
typedef double mb_double4 __attribute__((ext_vector_type(4)));
typedef _Float16 mb_half8 __attribute__((ext_vector_type(8)));
typedef __bf16 mb_bf16x8 __attribute__((ext_vector_type(8)));
typedef int mb_int8 __attribute__((ext_vector_type(8)));

// By-value conversions: clang 22's __builtin_bit_cast of a vector element (c[3]) reads element 0.
static __device__ __forceinline__ unsigned f2u(float f) { return __builtin_bit_cast(unsigned, f); }
static __device__ __forceinline__ unsigned long long d2u(double d) { return __builtin_bit_cast(unsigned long long, d); }

static __device__ __forceinline__ unsigned long long fold4(mb_float4 c) { return f2u(c[0]) ^ f2u(c[1]) ^ f2u(c[2]) ^ f2u(c[3]); }

// ---- one MFMA per step; operands from the runtime argument x (never constant-folded) ----------

struct MmaF16 {
  using C = mb_float4;
  static constexpr bool kAvailable = true;
  mb_half4 a, b;
  __device__ explicit MmaF16(float x) {
    for (int i = 0; i < 4; ++i) { a[i] = (_Float16)(x * 0.25f); b[i] = (_Float16)(x * 0.5f); }
  }
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const { c = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0); }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

struct MmaBf16 {
  using C = mb_float4;
  static constexpr bool kAvailable = true;
  mb_short4 a, b;
  __device__ explicit MmaBf16(float x) {
    const short v = (short)(f2u(x) >> 16);
    for (int i = 0; i < 4; ++i) { a[i] = v; b[i] = (short)(v ^ 1); }
  }
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const { c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0); }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

struct MmaTf32 {
  using C = mb_float4;
#if defined(__gfx942__)
  static constexpr bool kAvailable = true;
#else
  static constexpr bool kAvailable = false;
#endif
  mb_float2 a, b;
  __device__ explicit MmaTf32(float x) : a{x, 0.5f * x}, b{0.25f * x, x} {}
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const {
#if defined(__gfx942__)
    c = __builtin_amdgcn_mfma_f32_16x16x8_xf32(a, b, c, 0, 0, 0);
#endif
  }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

struct MmaS8 {
  using C = mb_int4;
  static constexpr bool kAvailable = true;
  long a, b;
  __device__ explicit MmaS8(float x) : a((long)f2u(x) * 0x0101010101l), b(a ^ 0x0102030405060708l) {}
  __device__ C init(unsigned k) const { return C{0, 1, 2, (int)k}; }
  __device__ void step(C& c) const { c = __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, c, 0, 0, 0); }
  __device__ unsigned long long fold(C c) const { return (unsigned)(c[0] ^ c[1] ^ c[2] ^ c[3]); }
};

struct MmaE4m3 {
  using C = mb_float4;
  static constexpr bool kAvailable = true;
  long a, b;
  __device__ explicit MmaE4m3(float x) : a(0x3838383838383838l ^ (long)(f2u(x) & 1u)), b(0x3030303030303030l) {}
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const { c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0); }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

struct MmaF64 {
  using C = mb_double4;
  static constexpr bool kAvailable = true;
  double a, b;
  __device__ explicit MmaF64(float x) : a(0.5 * (double)x), b(0.25 * (double)x) {}
  __device__ C init(unsigned k) const { return C{0.0, 1.0, 2.0, (double)k}; }
  __device__ void step(C& c) const { c = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, c, 0, 0, 0); }
  __device__ unsigned long long fold(C c) const {
    return d2u(c[0]) ^ d2u(c[1]) ^ d2u(c[2]) ^ d2u(c[3]);
  }
};

// CDNA4 (gfx950) shapes.
#if defined(__gfx950__)
#define MB_GFX950 true
#else
#define MB_GFX950 false
#endif

struct MmaF16K32 {
  using C = mb_float4;
  static constexpr bool kAvailable = MB_GFX950;
  mb_half8 a, b;
  __device__ explicit MmaF16K32(float x) {
    for (int i = 0; i < 8; ++i) { a[i] = (_Float16)(x * 0.25f); b[i] = (_Float16)(x * 0.5f); }
  }
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const {
#if defined(__gfx950__)
    c = __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0);
#endif
  }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

struct MmaBf16K32 {
  using C = mb_float4;
  static constexpr bool kAvailable = MB_GFX950;
  mb_bf16x8 a, b;
  __device__ explicit MmaBf16K32(float x) {
    for (int i = 0; i < 8; ++i) { a[i] = (__bf16)(x * 0.25f); b[i] = (__bf16)(x * 0.5f); }
  }
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const {
#if defined(__gfx950__)
    c = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0);
#endif
  }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

struct MmaS8K64 {
  using C = mb_int4;
  static constexpr bool kAvailable = MB_GFX950;
  mb_int4 a, b;
  __device__ explicit MmaS8K64(float x) {
    for (int i = 0; i < 4; ++i) { a[i] = (int)(f2u(x) * 0x01010101u) + i; b[i] = a[i] ^ 0x01020304; }
  }
  __device__ C init(unsigned k) const { return C{0, 1, 2, (int)k}; }
  __device__ void step(C& c) const {
#if defined(__gfx950__)
    c = __builtin_amdgcn_mfma_i32_16x16x64_i8(a, b, c, 0, 0, 0);
#endif
  }
  __device__ unsigned long long fold(C c) const { return (unsigned)(c[0] ^ c[1] ^ c[2] ^ c[3]); }
};

// Block-scaled f8f6f4 with both operands in one format (0 = fp8 e4m3, 4 = fp4 e2m1) and E8M0
// scales of 127 (1.0).
template <int FMT>
struct MmaF8f6f4 {
  using C = mb_float4;
  static constexpr bool kAvailable = MB_GFX950;
  mb_int8 a, b;
  __device__ explicit MmaF8f6f4(float x) {
    for (int i = 0; i < 8; ++i) { a[i] = (int)(0x38383838u ^ (f2u(x) & 1u)) + i; b[i] = 0x30303030; }
  }
  __device__ C init(unsigned k) const { return C{0.f, 1.f, 2.f, (float)k}; }
  __device__ void step(C& c) const {
#if defined(__gfx950__)
    c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, c, FMT, FMT, 0, 127, 0, 127);
#endif
  }
  __device__ unsigned long long fold(C c) const { return fold4(c); }
};

// ---- kernel bodies ------------------------------------------------------------------------------

template <class Op, int K, int U>
static __device__ __forceinline__ void issue_body(unsigned long long* out, unsigned iters, float x) {
  const Op op(x);
  typename Op::C c[K];
#pragma unroll
  for (int k = 0; k < K; ++k) c[k] = op.init(threadIdx.x + 977u * static_cast<unsigned>(k));
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
  if (Op::kAvailable) {
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
#pragma unroll
        for (int k = 0; k < K; ++k) op.step(c[k]);
      }
    }
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  unsigned long long sink = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) sink ^= op.fold(c[k]);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
    if (blockIdx.x == 0) out[3 * gridDim.x + 1] = Op::kAvailable ? static_cast<unsigned long long>(iters) * U * K : 0;
  }
  if (sink == 0x5eed5eedull) out[3 * gridDim.x] = sink;
}

template <class Op, int U>
static __device__ __forceinline__ void lat_body(unsigned long long* out, unsigned iters, float x) {
  const Op op(x);
  typename Op::C c = op.init(threadIdx.x);
  op.step(c);
  if (threadIdx.x == 0) out[3] = op.fold(c);
  const unsigned long long t0 = mb_clock64();
  if (Op::kAvailable) {
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
      for (int u = 0; u < U; ++u) op.step(c);
    }
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[2] = op.fold(c);
    out[0] = t1 - t0;
    out[1] = Op::kAvailable ? static_cast<unsigned long long>(iters) * U : 0;
  }
}

#define MB_MMA_PAIR(NAME, OP)                                                                                    \
  extern "C" __global__ void __launch_bounds__(1024) issue_mma_##NAME(unsigned long long* out, unsigned iters, float x) { \
    issue_body<OP, 4, 8>(out, iters, x);                                                                         \
  }                                                                                                              \
  extern "C" __global__ void __launch_bounds__(64) lat_mma_##NAME(unsigned long long* out, unsigned iters, float x) {    \
    lat_body<OP, 32>(out, iters, x);                                                                             \
  }

MB_MMA_PAIR(f16, MmaF16)
MB_MMA_PAIR(bf16, MmaBf16)
MB_MMA_PAIR(tf32, MmaTf32)
MB_MMA_PAIR(s8, MmaS8)
MB_MMA_PAIR(e4m3, MmaE4m3)
MB_MMA_PAIR(f64, MmaF64)
MB_MMA_PAIR(f16_k32, MmaF16K32)
MB_MMA_PAIR(bf16_k32, MmaBf16K32)
MB_MMA_PAIR(s8_k64, MmaS8K64)
MB_MMA_PAIR(fp8_k128, MmaF8f6f4<0>)
MB_MMA_PAIR(fp4_k128, MmaF8f6f4<4>)
