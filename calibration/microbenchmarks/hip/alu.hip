// Per-instruction-class issue rate and dependent latency on the CDNA VALU, timed with the shader
// clock. The HIP twin of ../cuda/alu.cu (same kernel names, arguments, out[] layouts; result names
// mean the same class of instruction):
//
//   op          AMDGCN per step                        note
//   ffma        v_fma_f32
//   fadd        v_add_f32
//   imad        v_mul_lo_u32                           32-bit integer multiply (the int_mul pipe)
//   lop3        v_xor_b32                              integer logic (the int_alu pipe)
//   iadd_lop    v_add_u32 + v_xor_b32                  2 instructions per step
//   mufu_ex2    v_exp_f32 with a negated operand       transcendental (a = 2^-a)
//   mufu_rsq    v_rsq_f32
//   mufu_sin    v_sin_f32                              (argument in revolutions)
//   dfma        v_fma_f64
//   hfma2       v_pk_fma_f16                           packed half
//   cvt         v_cvt_i32_f32 + v_cvt_f32_i32          2 instructions per step
//
//   issue_<op>(out, iters, x)  every lane runs K independent chains of U steps per loop iteration;
//                              launch workgroups of 1024 lanes (four waves per SIMD), one per CU. Per
//                              workgroup: cycles per wave instruction per SIMD = (t1 - t0) /
//                              (steps x instructions per step x waves per SIMD).
//   lat_<op>(out, iters, x)    one chain; launch one wave. cycles per step = out[0] / out[1].
//
// out (u64) of issue_*: [3*b+0] t0, [3*b+1] t1, [3*b+2] CU id of workgroup b; [3*G] sink;
// [3*G+1] steps per lane (G = gridDim.x). lat_*: [0] cycles, [1] steps, [2] sink, [3] warm sink.
#include <hip/hip_runtime.h>

#include "mb_helpers.h"  // mb_clock64, mb_realtime, mb_smid

static __device__ __forceinline__ unsigned f2u(float f) { return __builtin_bit_cast(unsigned, f); }
static __device__ __forceinline__ unsigned long long d2u(double d) { return __builtin_bit_cast(unsigned long long, d); }

// ---- operations: constants from the runtime argument x, distinct chain starts, one step -------

struct OpFfma {
  using T = float;
  static constexpr int kInstrs = 1;
  float b, c;
  __device__ explicit OpFfma(float x) : b(0.5f * x), c(x) {}
  __device__ T init(unsigned k) const { return c + static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("v_fma_f32 %0, %0, %1, %2" : "+v"(a) : "v"(b), "v"(c)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpFadd {
  using T = float;
  static constexpr int kInstrs = 1;
  float b;
  __device__ explicit OpFadd(float x) : b(x * 1.0e-3f) {}
  __device__ T init(unsigned k) const { return static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("v_add_f32 %0, %0, %1" : "+v"(a) : "v"(b)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpImad {
  using T = unsigned;
  static constexpr int kInstrs = 1;
  unsigned b;
  __device__ explicit OpImad(float x) : b(f2u(x) | 3u) {}
  __device__ T init(unsigned k) const { return 1u + k * 0x9e3779b9u; }
  __device__ void step(T& a) const { asm volatile("v_mul_lo_u32 %0, %0, %1" : "+v"(a) : "v"(b)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpLop3 {
  using T = unsigned;
  static constexpr int kInstrs = 1;
  unsigned b;
  __device__ explicit OpLop3(float x) : b(f2u(x)) {}
  __device__ T init(unsigned k) const { return k * 0x85ebca6bu; }
  __device__ void step(T& a) const { asm volatile("v_xor_b32 %0, %0, %1" : "+v"(a) : "v"(b)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpIaddLop {
  using T = unsigned;
  static constexpr int kInstrs = 2;
  unsigned b, c;
  __device__ explicit OpIaddLop(float x) : b(f2u(x)), c(f2u(x) * 0x85ebca6bu) {}
  __device__ T init(unsigned k) const { return k * 0x9e3779b9u; }
  __device__ void step(T& a) const { asm volatile("v_add_u32 %0, %0, %1\n\tv_xor_b32 %0, %0, %2" : "+v"(a) : "v"(b), "v"(c)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpMufuEx2 {  // a = 2^-a: converges to ~0.641
  using T = float;
  static constexpr int kInstrs = 1;
  __device__ explicit OpMufuEx2(float) {}
  __device__ T init(unsigned k) const { return 0.001f * static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("v_exp_f32_e64 %0, -%0" : "+v"(a)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpMufuRsq {  // a = 1/sqrt(a): converges to 1
  using T = float;
  static constexpr int kInstrs = 1;
  __device__ explicit OpMufuRsq(float) {}
  __device__ T init(unsigned k) const { return 2.0f + static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("v_rsq_f32 %0, %0" : "+v"(a)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpMufuSin {  // a = sin(2 pi a)
  using T = float;
  static constexpr int kInstrs = 1;
  __device__ explicit OpMufuSin(float) {}
  __device__ T init(unsigned k) const { return 0.1f + 0.001f * static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("v_sin_f32 %0, %0" : "+v"(a)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpDfma {
  using T = double;
  static constexpr int kInstrs = 1;
  double b, c;
  __device__ explicit OpDfma(float x) : b(0.5 * static_cast<double>(x)), c(static_cast<double>(x)) {}
  __device__ T init(unsigned k) const { return c + static_cast<double>(k); }
  __device__ void step(T& a) const { asm volatile("v_fma_f64 %0, %0, %1, %2" : "+v"(a) : "v"(b), "v"(c)); }
  __device__ unsigned long long fold(T a) const { return d2u(a); }
};

struct OpHfma2 {  // half2 a = a * 0.5 + 0.25 per half, bits in a u32
  using T = unsigned;
  static constexpr int kInstrs = 1;
  unsigned b, c;
  __device__ explicit OpHfma2(float x) : b(0x38003800u ^ (f2u(x) & 0x00010001u)), c(0x34003400u) {}
  __device__ T init(unsigned k) const { return 0x3c003c00u + (k & 0xffu); }
  __device__ void step(T& a) const { asm volatile("v_pk_fma_f16 %0, %0, %1, %2" : "+v"(a) : "v"(b), "v"(c)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpCvt {  // float -> int (round to nearest even) -> float
  using T = float;
  static constexpr int kInstrs = 2;
  __device__ explicit OpCvt(float) {}
  __device__ T init(unsigned k) const { return 1.5f + static_cast<float>(k); }
  __device__ void step(T& a) const {
    unsigned t;
    asm volatile("v_cvt_i32_f32 %1, %0\n\tv_cvt_f32_i32 %0, %1" : "+v"(a), "=&v"(t));
  }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

// ---- kernel bodies ------------------------------------------------------------------------------

template <class Op, int K, int U>
static __device__ __forceinline__ void issue_body(unsigned long long* out, unsigned iters, float x) {
  const Op op(x);
  typename Op::T a[K];
#pragma unroll
  for (int k = 0; k < K; ++k) a[k] = op.init(threadIdx.x + 1u + 977u * static_cast<unsigned>(k));
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int k = 0; k < K; ++k) op.step(a[k]);
    }
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  unsigned long long sink = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) sink ^= op.fold(a[k]);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
    if (blockIdx.x == 0) out[3 * gridDim.x + 1] = static_cast<unsigned long long>(iters) * U * K;
  }
  if (sink == 0x5eed5eedull) out[3 * gridDim.x] = sink;
}

template <class Op, int U>
static __device__ __forceinline__ void lat_body(unsigned long long* out, unsigned iters, float x) {
  const Op op(x);
  typename Op::T a = op.init(threadIdx.x + 1u);
  op.step(a);
  if (threadIdx.x == 0) out[3] = op.fold(a);
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < U; ++u) op.step(a);
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[2] = op.fold(a);
    out[0] = t1 - t0;
    out[1] = static_cast<unsigned long long>(iters) * U;
  }
}

#define MB_ALU_PAIR(NAME, OP, K, U)                                                             \
  extern "C" __global__ void __launch_bounds__(1024) issue_##NAME(unsigned long long* out, unsigned iters, float x) { \
    issue_body<OP, K, U>(out, iters, x);                                                        \
  }                                                                                             \
  extern "C" __global__ void __launch_bounds__(64) lat_##NAME(unsigned long long* out, unsigned iters, float x) {    \
    lat_body<OP, 128>(out, iters, x);                                                           \
  }

MB_ALU_PAIR(ffma, OpFfma, 8, 16)
MB_ALU_PAIR(fadd, OpFadd, 8, 16)
MB_ALU_PAIR(imad, OpImad, 8, 16)
MB_ALU_PAIR(lop3, OpLop3, 8, 16)
MB_ALU_PAIR(iadd_lop, OpIaddLop, 8, 8)
MB_ALU_PAIR(mufu_ex2, OpMufuEx2, 8, 16)
MB_ALU_PAIR(mufu_rsq, OpMufuRsq, 8, 16)
MB_ALU_PAIR(mufu_sin, OpMufuSin, 8, 16)
MB_ALU_PAIR(dfma, OpDfma, 8, 16)
MB_ALU_PAIR(hfma2, OpHfma2, 8, 16)
MB_ALU_PAIR(cvt, OpCvt, 8, 8)
