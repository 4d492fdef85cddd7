// Warp-level tensor-core instructions (mma.sync, legacy HMMA/IMMA/DMMA path): issue rate and
// dependent latency, timed with clock64() inside the kernel. Plain launches, as in alu.cu:
//
//   issue_mma_<t>(out, iters, x)  K = 4 independent accumulators per warp, U = 8 steps each per
//                                 loop iteration; one full wave of 256-thread blocks. Same out
//                                 layout and per-SM formula as alu.cu.
//   lat_mma_<t>(out, iters, x)    one warp, one accumulator chain d = A*B + d.
//
//   t      PTX                                                    FLOP/instr  SASS (sm_90a, CUDA 13.0)
//   f16    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32       4096       HMMA.16816.F32
//   bf16   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32     4096       HMMA.16816.F32.BF16
//   tf32   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32      2048       HMMA.1688.F32.TF32
//   s8     mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32         8192 (OP)  IMMA.16832.S8.S8
//   e4m3   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32     8192       no native FP8 mma.sync on
//          sm_90: 12x F2FP.F16.E4M3.UNPACK_B + 2x HMMA.16816.F32 + 4x FADD (see README.md)
//   f16v   as f16, with the operand updates of e4m3                4096       HMMA.16816.F32
//   f64    mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64          512       DMMA.8x8x4
//
// A and B fragments are fixed per thread (finite, non-trivial values from x and threadIdx), except
// in the varying kernels (e4m3, f16v): ptxas lowers the e4m3 mma on sm_90 to P = HMMA(unpack(A),
// unpack(B), 0) followed by FADDs into the accumulator; with loop-invariant A, B it hoists P out of
// the loop (which is then FADDs only), and with A, B shared by several chains it computes P once.
// issue/lat_mma_e4m3 and issue/lat_mma_f16v therefore add a constant to all six A/B registers
// before every mma (6 x add.u32 -> IADD3/VIADD on the integer pipe, off the accumulator chain), so
// that every mma converts and multiplies fresh operands: the worst case, no operand reuse.
// f16v vs f16 shows what the operand updates cost by themselves.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

static __device__ __forceinline__ unsigned mma_bits(float x, unsigned salt) {
  unsigned u;
  asm("mov.b32 %0, %1;" : "=r"(u) : "f"(x));
  u ^= (threadIdx.x + 1u) * 0x9e3779b9u + salt * 0x85ebca6bu;
  return u;
}

// Accumulator fragment of four 32-bit values (f32 or s32 bit patterns).
struct Acc4 {
  unsigned r[4];
};

// mma.sync with an m16n8 C/D tile (4 x 32-bit per lane), A 4 x b32, B 2 x b32 per lane.
#define MB_MMA_4x4(NAME, PTX, MASK, VARY)                                                              \
  struct NAME {                                                                                        \
    using T = Acc4;                                                                                    \
    static constexpr int kSass = 1;                                                                    \
    unsigned a0, a1, a2, a3, b0, b1;                                                                   \
    __device__ void vary() {                                                                           \
      if (VARY) {                                                                                      \
        asm volatile("add.u32 %0, %0, 0x01010101;" : "+r"(a0));                                        \
        asm volatile("add.u32 %0, %0, 0x01030101;" : "+r"(a1));                                        \
        asm volatile("add.u32 %0, %0, 0x01010501;" : "+r"(a2));                                        \
        asm volatile("add.u32 %0, %0, 0x07010101;" : "+r"(a3));                                        \
        asm volatile("add.u32 %0, %0, 0x01010109;" : "+r"(b0));                                        \
        asm volatile("add.u32 %0, %0, 0x010b0101;" : "+r"(b1));                                        \
      }                                                                                                \
    }                                                                                                  \
    __device__ explicit NAME(float x)                                                                  \
        : a0(mma_bits(x, 1) & (MASK)),                                                                 \
          a1(mma_bits(x, 2) & (MASK)),                                                                 \
          a2(mma_bits(x, 3) & (MASK)),                                                                 \
          a3(mma_bits(x, 4) & (MASK)),                                                                 \
          b0(mma_bits(x, 5) & (MASK)),                                                                 \
          b1(mma_bits(x, 6) & (MASK)) {}                                                               \
    __device__ T init(unsigned k) const {                                                              \
      T t;                                                                                             \
      t.r[0] = k & 0xffu;                                                                              \
      t.r[1] = (k >> 8) & 0xffu;                                                                       \
      t.r[2] = 0u;                                                                                     \
      t.r[3] = 1u;                                                                                     \
      return t;                                                                                        \
    }                                                                                                  \
    __device__ void step(T& d) const {                                                                 \
      asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                        \
                   : "+r"(d.r[0]), "+r"(d.r[1]), "+r"(d.r[2]), "+r"(d.r[3])                            \
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));                            \
    }                                                                                                  \
    __device__ unsigned long long fold(const T& d) const { return d.r[0] ^ d.r[1] ^ d.r[2] ^ d.r[3]; } \
  };

// Masks keep the inputs finite and small: f16/bf16 pairs with exponent below 1.0, tf32 with
// exponent fixed at [0.5, 1), fp8 e4m3 bytes below 1.0 (never the NaN code 0x7f).
MB_MMA_4x4(OpMmaF16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 0x37ff37ffu, false)
    MB_MMA_4x4(OpMmaF16v, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 0x37ff37ffu, true)
        MB_MMA_4x4(OpMmaBf16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 0x3f3f3f3fu, false)
            MB_MMA_4x4(OpMmaS8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 0xffffffffu, false)
                MB_MMA_4x4(OpMmaE4m3, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 0x37373737u, true)

                    struct OpMmaTf32 {
  using T = Acc4;
  static constexpr int kSass = 1;
  unsigned a0, a1, a2, a3, b0, b1;
  __device__ void vary() {}
  __device__ static unsigned tf(unsigned u) { return 0x3f000000u | (u & 0x007fe000u); }
  __device__ explicit OpMmaTf32(float x)
      : a0(tf(mma_bits(x, 1))),
        a1(tf(mma_bits(x, 2))),
        a2(tf(mma_bits(x, 3))),
        a3(tf(mma_bits(x, 4))),
        b0(tf(mma_bits(x, 5))),
        b1(tf(mma_bits(x, 6))) {}
  __device__ T init(unsigned k) const {
    T t;
    t.r[0] = k & 0xffu;
    t.r[1] = (k >> 8) & 0xffu;
    t.r[2] = 0u;
    t.r[3] = 1u;
    return t;
  }
  __device__ void step(T& d) const {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+r"(d.r[0]), "+r"(d.r[1]), "+r"(d.r[2]), "+r"(d.r[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  __device__ unsigned long long fold(const T& d) const { return d.r[0] ^ d.r[1] ^ d.r[2] ^ d.r[3]; }
};

struct Acc2d {
  double r[2];
};

struct OpDmma {
  using T = Acc2d;
  static constexpr int kSass = 1;
  double a, b;
  __device__ void vary() {}
  __device__ explicit OpDmma(float x)
      : a(0.5 + 0.25 * static_cast<double>(x) + 1.0e-3 * static_cast<double>(threadIdx.x)),
        b(0.75 - 1.0e-3 * static_cast<double>(threadIdx.x)) {}
  __device__ T init(unsigned k) const {
    T t;
    t.r[0] = static_cast<double>(k);
    t.r[1] = 1.0;
    return t;
  }
  __device__ void step(T& d) const {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d.r[0]), "+d"(d.r[1])
                 : "d"(a), "d"(b));
  }
  __device__ unsigned long long fold(const T& d) const {
    unsigned long long u0, u1;
    asm("mov.b64 %0, %1;" : "=l"(u0) : "d"(d.r[0]));
    asm("mov.b64 %0, %1;" : "=l"(u1) : "d"(d.r[1]));
    return u0 ^ u1;
  }
};

// ---- kernel bodies (same protocol as alu.cu) ----------------------------------------------------

template <class Op, int K, int U>
static __device__ __forceinline__ void mma_issue_body(unsigned long long* out, unsigned iters, float x) {
  Op op(x);
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
      for (int k = 0; k < K; ++k) {
        op.vary();
        op.step(a[k]);
      }
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
static __device__ __forceinline__ void mma_lat_body(unsigned long long* out, unsigned iters, float x) {
  Op op(x);
  typename Op::T a = op.init(threadIdx.x + 1u);
  op.step(a);
  if (threadIdx.x == 0) out[3] = op.fold(a);
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      op.vary();
      op.step(a);
    }
  }
  if (threadIdx.x == 0) out[2] = op.fold(a);
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = static_cast<unsigned long long>(iters) * U;
  }
}

#define MB_MMA_PAIR(NAME, OP)                                                               \
  extern "C" __global__ void __launch_bounds__(256, 4)                                      \
      issue_##NAME(unsigned long long* out, unsigned iters, float x) {                      \
    mma_issue_body<OP, 4, 8>(out, iters, x);                                                \
  }                                                                                         \
  extern "C" __global__ void lat_##NAME(unsigned long long* out, unsigned iters, float x) { \
    mma_lat_body<OP, 32>(out, iters, x);                                                    \
  }

MB_MMA_PAIR(mma_f16, OpMmaF16)
MB_MMA_PAIR(mma_f16v, OpMmaF16v)
MB_MMA_PAIR(mma_bf16, OpMmaBf16)
MB_MMA_PAIR(mma_tf32, OpMmaTf32)
MB_MMA_PAIR(mma_s8, OpMmaS8)
MB_MMA_PAIR(mma_e4m3, OpMmaE4m3)
MB_MMA_PAIR(dmma_f64, OpDmma)
