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

// One warp per CTA: a dependent chain of `iters` FMAs, so a CTA's length is known.
extern "C" __global__ void fma_chain_cta(float* out, int iters) {
  float x = threadIdx.x;
  for (int i = 0; i < iters; ++i) asm volatile("fma.rn.f32 %0, %0, 0f3F7FFFFF, 0f3A000000;" : "+f"(x));
  out[blockIdx.x * 32 + threadIdx.x] = x;
}
