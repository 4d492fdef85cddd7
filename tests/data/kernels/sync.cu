// Warp-wide operations and CTA barriers in loops, for the NVIDIA timing tests
// (tests/unit/nvidia_timing_test.cpp). Inline PTX: exactly one instruction of each kind per step.
extern "C" __global__ void bar_loop(float* out, int iters) {
  for (int i = 0; i < iters; ++i) asm volatile("bar.sync 0;" ::: "memory");
  if (threadIdx.x == 0) out[blockIdx.x] = 1.0f;
}

extern "C" __global__ void vote_loop(unsigned* out, int iters) {
  unsigned v = threadIdx.x;
  for (int i = 0; i < iters; ++i)
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; vote.sync.ballot.b32 %0, p, -1; }" : "+r"(v));
  out[threadIdx.x] = v;
}

extern "C" __global__ void redux_loop(unsigned* out, int iters) {
  unsigned v = threadIdx.x;
  for (int i = 0; i < iters; ++i) asm volatile("redux.sync.add.u32 %0, %0, -1;" : "+r"(v));
  out[threadIdx.x] = v;
}

// MUFU chains: ex2 of a negated value (ptxas folds the negation into the MUFU operand), the
// same with the negation also stored (then it is a real instruction), and sin (FMUL.RZ + MUFU).
extern "C" __global__ void ex2_neg_loop(unsigned* out, int iters) {
  float v = threadIdx.x * 1e-3f;
  for (int i = 0; i < iters; ++i) asm volatile("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }" : "+f"(v));
  out[threadIdx.x] = __float_as_uint(v);
}

extern "C" __global__ void ex2_neg_kept_loop(unsigned* out, int iters) {
  float v = threadIdx.x * 1e-3f;
  unsigned acc = 0;
  for (int i = 0; i < iters; ++i) {
    unsigned t;
    asm volatile("{ .reg .f32 n; neg.f32 n, %1; mov.b32 %0, n; ex2.approx.ftz.f32 %1, n; }" : "=r"(t), "+f"(v));
    acc ^= t;
  }
  out[threadIdx.x] = __float_as_uint(v) ^ acc;
}

extern "C" __global__ void sin_loop(unsigned* out, int iters) {
  float v = threadIdx.x * 1e-3f;
  for (int i = 0; i < iters; ++i) asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(v));
  out[threadIdx.x] = __float_as_uint(v);
}

// The same SFU chains without .ftz: ptxas wraps each MUFU in FP32 denormal fixes (FSETP, FMUL,
// MUFU, FMUL), all in the chain.
extern "C" __global__ void ex2_loop(unsigned* out, int iters) {
  float v = threadIdx.x * 1e-3f;
  for (int i = 0; i < iters; ++i) asm volatile("ex2.approx.f32 %0, %0;" : "+f"(v));
  out[threadIdx.x] = __float_as_uint(v);
}

extern "C" __global__ void ex2_ftz_loop(unsigned* out, int iters) {
  float v = threadIdx.x * 1e-3f;
  for (int i = 0; i < iters; ++i) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(v));
  out[threadIdx.x] = __float_as_uint(v);
}

extern "C" __global__ void rsqrt_loop(unsigned* out, int iters) {
  float v = 1.0f + threadIdx.x * 1e-3f;
  for (int i = 0; i < iters; ++i) asm volatile("rsqrt.approx.f32 %0, %0;" : "+f"(v));
  out[threadIdx.x] = __float_as_uint(v);
}

// Four independent mma.sync m16n8k16 accumulators per warp, each mma followed by four
// independent FFMAs: on the H200 the two do not overlap (tensor_copy_paths.json).
extern "C" __global__ void mma_ffma_loop(unsigned* out, int iters) {
  unsigned a = 0x3c003c00u ^ threadIdx.x;
  float c[4][4] = {}, f[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};"
                   : "+f"(c[m][0]), "+f"(c[m][1]), "+f"(c[m][2]), "+f"(c[m][3])
                   : "r"(a));
#pragma unroll
      for (int k = 0; k < 4; ++k) asm volatile("fma.rn.f32 %0, %0, 0f3F800001, 0f3F800000;" : "+f"(f[k]));
    }
  out[threadIdx.x] = __float_as_uint(c[0][0] + c[1][1] + c[2][2] + c[3][3] + f[0] + f[1] + f[2] + f[3]);
}

// Dependent chains of two-instruction steps: LOP3 -> SHF stays on the ALU pipe, IMAD -> LOP3
// crosses between the FMA and ALU pipes twice per step.
extern "C" __global__ void lop_shf_loop(unsigned* out, int iters) {
  unsigned a = threadIdx.x + 1u, p = 0x9e3779b9u, q = 7u;
  for (int i = 0; i < iters; ++i) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96; shf.l.wrap.b32 %0, %0, %0, %1;" : "+r"(a) : "r"(p), "r"(q));
  out[threadIdx.x] = a;
}

extern "C" __global__ void imad_lop_loop(unsigned* out, int iters) {
  unsigned a = threadIdx.x + 1u, p = 0x9e3779b9u, q = 7u;
  for (int i = 0; i < iters; ++i) asm volatile("mad.lo.u32 %0, %0, %1, %2; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(a) : "r"(p), "r"(q));
  out[threadIdx.x] = a;
}

// One warp per CTA: a dependent chain of `iters` FMAs, so a CTA's length is known.
extern "C" __global__ void fma_chain_cta(float* out, int iters) {
  float x = threadIdx.x;
  for (int i = 0; i < iters; ++i) asm volatile("fma.rn.f32 %0, %0, 0f3F7FFFFF, 0f3A000000;" : "+f"(x));
  out[blockIdx.x * 32 + threadIdx.x] = x;
}

// Shared atomic adds by every lane to one word: of the constant 1 with the result unread (ptxas:
// ATOMS.POPC.INC, the lanes' count added once) and of a run-time value (ATOMS.ADD, lane by lane).
// The word's index comes from memory (0 at run time), so the address is not provably uniform
// (a uniform one is warp-aggregated).
extern "C" __global__ void inc_one_word_loop(unsigned* out, int iters) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  const unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x & out[1022]]);
  for (int i = 0; i < iters; ++i) asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(a) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void add_one_word_loop(unsigned* out, int iters) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  const unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x & out[1022]]);
  const unsigned v = out[1023] + 1;  // a run-time value
  for (int i = 0; i < iters; ++i) asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// Eight ld.shared per step with every lane predicated off (the predicate comes from memory: 0),
// as ptxas's if-converted bodies issue them in the warps whose lanes all skip the body.
extern "C" __global__ void lds_off_loop(unsigned* out, int iters) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  const unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x & 31]), on = out[1022];
  unsigned v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0, v6 = 0, v7 = 0;
  for (int i = 0; i < iters; ++i)
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %8, 0;\n"
                 "@p ld.shared.u32 %0, [%9];\n@p ld.shared.u32 %1, [%9];\n@p ld.shared.u32 %2, [%9];\n@p ld.shared.u32 %3, [%9];\n"
                 "@p ld.shared.u32 %4, [%9];\n@p ld.shared.u32 %5, [%9];\n@p ld.shared.u32 %6, [%9];\n@p ld.shared.u32 %7, [%9]; }"
                 : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3), "+r"(v4), "+r"(v5), "+r"(v6), "+r"(v7)
                 : "r"(on), "r"(a)
                 : "memory");
  out[threadIdx.x] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7;
}

// One warp: each step loads a line no step has touched (an HBM miss), then one word every step
// (both ld.global.cg, which ptxas and kernsim keep in order)
// reads with ld.global.cg (an L2 hit after the first), whose value (0) the next step's addresses
// depend on: a step takes the hit's latency, or the miss's if the hit waits for it.
extern "C" __global__ void hit_behind_miss_loop(const unsigned* buf, unsigned* out, int iters) {
  unsigned h = 0, acc = 0;
  for (int i = 0; i < iters; ++i) {
    const unsigned* cold = buf + 1024 + (size_t)i * 64 + h + threadIdx.x;  // 256 bytes apart: a new line each step
    unsigned m, w;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(m) : "l"(cold) : "memory");  // .cg: kept before the next
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w) : "l"(buf + h) : "memory");
    h = w;
    acc += m;
  }
  out[threadIdx.x] = acc + h;
}

// The same without the misses: a step is the hit's latency.
extern "C" __global__ void hit_only_loop(const unsigned* buf, unsigned* out, int iters) {
  unsigned h = 0;
  for (int i = 0; i < iters; ++i) {
    unsigned w;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w) : "l"(buf + h) : "memory");
    h = w;
  }
  out[threadIdx.x] = h;
}

// One dependent add a trip: the loop's back branch is the trip's one control transfer.
extern "C" __global__ void add_loop(unsigned* out, int iters) {
  unsigned v = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < iters; ++i) asm volatile("add.u32 %0, %0, 1;" : "+r"(v));
  out[threadIdx.x] = v;
}

// The marching stencil's x-halo control flow: lane 0 and lane 31 run sibling paths (if / else if),
// the other lanes skip both; one add on each path.
extern "C" __global__ void div2_loop(unsigned* out, int iters) {
  unsigned v = threadIdx.x;
  const unsigned lane = threadIdx.x & 31;
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    if (lane == 0)
      asm volatile("add.u32 %0, %0, 1;" : "+r"(v));
    else if (lane == 31)
      asm volatile("add.u32 %0, %0, 3;" : "+r"(v));
  }
  out[threadIdx.x] = v;
}
