// Per-instruction-class issue rate (throughput) and dependent latency on the non-tensor pipes,
// timed with clock64() inside the kernel. Plain launches: one u64 output buffer and two scalars.
//
//   issue_<op>(out, iters, x)  every thread runs K independent chains, U steps each per loop
//                              iteration. Launch one full wave (e.g. 132 SMs x blocks that fit,
//                              256 threads each). Each block records t0, t1 (clock64, around
//                              __syncthreads) and its SM id; per SM, cycles per warp-instruction
//                              per sub-partition = (max t1 - min t0) / (warp-instrs on the SM / 4).
//   lat_<op>(out, iters, x)    one chain; launch one warp. cycles per step = out[0] / out[1].
//
// A pure integer-add chain cannot be measured from PTX: ptxas reassociates `a + b + c` with
// loop-invariant b, c into one add, or turns a+b+b into IMAD/LEA. The add is therefore measured
// alternating with xor (iadd_lop), and LOP3 alone (lop3); add alone ~ 2*iadd_lop - lop3.
//
// Every step is inline PTX (volatile) so LLVM keeps it; the chains start from distinct values so
// ptxas cannot merge them; the loop over `iters` is not unrolled so the SASS body is exactly
// K x U steps plus 3 loop instructions. kSass is the number of SASS instructions of the measured
// class one step becomes on sm_90a (checked by run_cuda.py --dry-run with cuobjdump):
//
//   op          PTX per step                          SASS per step (sm_90a, CUDA 13.0)
//   ffma        fma.rn.f32                            FFMA
//   fadd        add.rn.f32 (.rn: no contraction)      FADD
//   imad        mad.lo.u32                            IMAD
//   lop3        lop3.b32 (xor of three)               LOP3.LUT
//   iadd_lop    add.u32 + xor.b32                     VIADD + LOP3.LUT
//   mufu_ex2    neg.f32 + ex2.approx.ftz.f32          MUFU.EX2 (negation folded into the operand)
//   mufu_rsq    rsqrt.approx.ftz.f32                  MUFU.RSQ
//   mufu_sin    sin.approx.ftz.f32                    FMUL.RZ + MUFU.SIN
//   dfma        fma.rn.f64                            DFMA
//   hfma2       fma.rn.f16x2                          HFMA2 / HFMA2.MMA (ptxas alternates pipes)
//   cvt         cvt.rni.s32.f32 + cvt.rn.f32.s32      F2I.NTZ + I2FP.F32.S32
//
// out (u64) of issue_*: [3*b+0] t0, [3*b+1] t1, [3*b+2] smid of block b; [3*G] sink;
// [3*G+1] steps per thread (G = gridDim.x). lat_*: [0] cycles, [1] steps, [2] sink.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

static __device__ __forceinline__ unsigned f2u(float f) {
  unsigned u;
  asm("mov.b32 %0, %1;" : "=r"(u) : "f"(f));
  return u;
}
static __device__ __forceinline__ unsigned long long d2u(double d) {
  unsigned long long u;
  asm("mov.b64 %0, %1;" : "=l"(u) : "d"(d));
  return u;
}

// ---- operations: constants from the runtime argument x, distinct chain starts, one step -------

struct OpFfma {
  using T = float;
  static constexpr int kSass = 1;
  float b, c;
  __device__ explicit OpFfma(float x) : b(0.5f * x), c(x) {}
  __device__ T init(unsigned k) const { return c + static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(a) : "f"(b), "f"(c)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpFadd {
  using T = float;
  static constexpr int kSass = 1;
  float b;
  __device__ explicit OpFadd(float x) : b(x * 1.0e-3f) {}
  __device__ T init(unsigned k) const { return static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(a) : "f"(b)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpImad {
  using T = unsigned;
  static constexpr int kSass = 1;
  unsigned b, c;
  __device__ explicit OpImad(float x) : b(f2u(x) | 3u), c(f2u(x) >> 7) {}
  __device__ T init(unsigned k) const { return c + k * 0x9e3779b9u; }
  __device__ void step(T& a) const { asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a) : "r"(b), "r"(c)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpLop3 {
  using T = unsigned;
  static constexpr int kSass = 1;
  unsigned b, c;
  __device__ explicit OpLop3(float x) : b(f2u(x)), c(f2u(x) * 0x9e3779b9u) {}
  __device__ T init(unsigned k) const { return k * 0x85ebca6bu; }
  __device__ void step(T& a) const { asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(a) : "r"(b), "r"(c)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpIaddLop {
  using T = unsigned;
  static constexpr int kSass = 2;
  unsigned b, c;
  __device__ explicit OpIaddLop(float x) : b(f2u(x)), c(f2u(x) * 0x85ebca6bu) {}
  __device__ T init(unsigned k) const { return k * 0x9e3779b9u; }
  __device__ void step(T& a) const {
    asm volatile("add.u32 %0, %0, %1;" : "+r"(a) : "r"(b));
    asm volatile("xor.b32 %0, %0, %1;" : "+r"(a) : "r"(c));
  }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpMufuEx2 {  // a = 2^-a: converges to ~0.641, stays finite
  using T = float;
  static constexpr int kSass = 1;
  __device__ explicit OpMufuEx2(float) {}
  __device__ T init(unsigned k) const { return 0.001f * static_cast<float>(k); }
  __device__ void step(T& a) const {
    asm volatile("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }" : "+f"(a));
  }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpMufuRsq {  // a = 1/sqrt(a): converges to 1
  using T = float;
  static constexpr int kSass = 1;
  __device__ explicit OpMufuRsq(float) {}
  __device__ T init(unsigned k) const { return 2.0f + static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpMufuSin {  // a = sin(a); SASS: FMUL.RZ (scale by 1/2pi) + MUFU.SIN
  using T = float;
  static constexpr int kSass = 1;  // counted: MUFU.SIN
  __device__ explicit OpMufuSin(float) {}
  __device__ T init(unsigned k) const { return 1.0f + 0.001f * static_cast<float>(k); }
  __device__ void step(T& a) const { asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a)); }
  __device__ unsigned long long fold(T a) const { return f2u(a); }
};

struct OpDfma {
  using T = double;
  static constexpr int kSass = 1;
  double b, c;
  __device__ explicit OpDfma(float x) : b(0.5 * static_cast<double>(x)), c(static_cast<double>(x)) {}
  __device__ T init(unsigned k) const { return c + static_cast<double>(k); }
  __device__ void step(T& a) const { asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(a) : "d"(b), "d"(c)); }
  __device__ unsigned long long fold(T a) const { return d2u(a); }
};

struct OpHfma2 {  // half2 a = a * 0.5 + 0.25 (per half), bits in a u32
  using T = unsigned;
  static constexpr int kSass = 1;
  unsigned b, c;
  __device__ explicit OpHfma2(float x) : b(0x38003800u ^ (f2u(x) & 0x00010001u)), c(0x34003400u) {}
  __device__ T init(unsigned k) const { return 0x3c003c00u + (k & 0xffu); }
  __device__ void step(T& a) const { asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(a) : "r"(b), "r"(c)); }
  __device__ unsigned long long fold(T a) const { return a; }
};

struct OpCvt {  // float -> int (round to nearest) -> float
  using T = float;
  static constexpr int kSass = 2;
  __device__ explicit OpCvt(float) {}
  __device__ T init(unsigned k) const { return 1.5f + static_cast<float>(k); }
  __device__ void step(T& a) const {
    asm volatile("{ .reg .s32 i; cvt.rni.s32.f32 i, %0; cvt.rn.f32.s32 %0, i; }" : "+f"(a));
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
  if (threadIdx.x == 0) out[3] = op.fold(a);  // waits for the warm-up step
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < U; ++u) op.step(a);
  }
  if (threadIdx.x == 0) out[2] = op.fold(a);  // waits for the last step before the clock read
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = static_cast<unsigned long long>(iters) * U;
  }
}

// K chains x U steps per iteration: 128 steps per loop iteration (3 loop instructions besides).
#define MB_ALU_PAIR(NAME, OP, K, U, MINB)                                                   \
  extern "C" __global__ void __launch_bounds__(256, MINB)                                   \
      issue_##NAME(unsigned long long* out, unsigned iters, float x) {                      \
    issue_body<OP, K, U>(out, iters, x);                                                    \
  }                                                                                         \
  extern "C" __global__ void lat_##NAME(unsigned long long* out, unsigned iters, float x) { \
    lat_body<OP, 128>(out, iters, x);                                                       \
  }

MB_ALU_PAIR(ffma, OpFfma, 8, 16, 8)
MB_ALU_PAIR(fadd, OpFadd, 8, 16, 8)
MB_ALU_PAIR(imad, OpImad, 8, 16, 8)
MB_ALU_PAIR(lop3, OpLop3, 8, 16, 8)
MB_ALU_PAIR(iadd_lop, OpIaddLop, 8, 8, 8)
MB_ALU_PAIR(mufu_ex2, OpMufuEx2, 8, 16, 8)
MB_ALU_PAIR(mufu_rsq, OpMufuRsq, 8, 16, 8)
MB_ALU_PAIR(mufu_sin, OpMufuSin, 8, 16, 8)
MB_ALU_PAIR(dfma, OpDfma, 8, 16, 4)
MB_ALU_PAIR(hfma2, OpHfma2, 8, 16, 8)
MB_ALU_PAIR(cvt, OpCvt, 8, 8, 8)
