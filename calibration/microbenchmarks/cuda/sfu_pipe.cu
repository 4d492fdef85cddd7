// What one warp, or a few, see from the MUFU (SFU) pipe: dependent latency per function in the
// forms compilers emit (the .ftz MUFU alone, and the non-ftz forms with ptxas's denormal guards:
// FSETP + predicated FMULs around the MUFU), the latency a predicate set by FSETP adds before a
// predicated instruction, and the MUFU throughput of a sub-partition with 1, 2, 4, 8 warps.
// Written for issue 17 (low-occupancy SFU work: the grown set's sfu_exp_ilp4 launches, one warp
// per sub-partition, run 31% slower on the H200 than kernsim predicts, sfu_rsqrt_log 25%).
//
// Each kernel runs K independent chains per thread, U = 8 steps of one operation per loop
// iteration (the loop itself not unrolled), every step inline PTX so that LLVM keeps it as
// written; ptxas then emits the SASS in the note of each case. Every warp records clock64 around
// its loop: cycles_per_step = median over warps of (t1 - t0) / steps (a step advances all K
// chains once); smsp_cycles_per_op = (max t1 - min t0 of a CTA) / (operations of the CTA's
// busiest sub-partition), warps going to sub-partitions round-robin (warp w -> w % 4).
// Grid: one CTA per SM (every SM), block 32 (one warp on the SM), 128 (one warp per
// sub-partition), 256, 512, 1024 (2, 4, 8 per sub-partition).
//
// Operations (a: the chain's value, c and k: run-time constants, so nothing folds):
//   fmul       mul.f32 a, a, c                              FMUL (FMA-pipe reference)
//   ex2_ftz    ex2.approx.ftz.f32 a, -a                     MUFU.EX2 (negation folded)
//   ex2_ftz_mul  mul.f32 t, a, c; ex2.approx.ftz.f32 a, t   FMUL + MUFU.EX2 (MUFU -> FMA pipe -> MUFU)
//   ex2        mul.f32 t, a, c; ex2.approx.f32 a, t         FMUL, FSETP, @P FMUL, MUFU.EX2, @P FMUL
//                                                           (clang's __expf without flush-to-zero)
//   rsq_ftz    add.f32 t, a, 1; rsqrt.approx.ftz.f32 a, t   FADD + MUFU.RSQ
//   rsq        add.f32 t, a, 1; rsqrt.approx.f32 a, t       FADD + ptxas's guards + MUFU.RSQ
//   lg2_ftz    add.f32 t, a, 2; lg2.approx.ftz.f32 a, t     FADD + MUFU.LG2
//   lg2        add.f32 t, a, 2; lg2.approx.f32 a, t         FADD + guards + MUFU.LG2 (+ FADD)
//   sin        sin.approx.f32 a, a                          FMUL.RZ + MUFU.SIN
//   pred       setp.lt.f32 p, a, c; @p mul.f32 a, a, k      FSETP -> predicated FMUL (the predicate's latency)
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o sfu_pipe sfu_pipe.cu
// Run:   ./sfu_pipe > sfu_pipe.json          (prints one JSON object; a few seconds)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::printf("{\"error\": \"%s at line %d\"}\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

struct Fmul {
  static __device__ __forceinline__ void step(float& a, float c, float) {
    asm volatile("mul.f32 %0, %0, %1;" : "+f"(a) : "f"(c));
  }
};
struct Ex2Ftz {
  static __device__ __forceinline__ void step(float& a, float, float) {
    asm volatile("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }" : "+f"(a));
  }
};
struct Ex2FtzMul {
  static __device__ __forceinline__ void step(float& a, float c, float) {
    asm volatile("{ .reg .f32 t; mul.f32 t, %0, %1; ex2.approx.ftz.f32 %0, t; }" : "+f"(a) : "f"(c));
  }
};
struct Ex2 {
  static __device__ __forceinline__ void step(float& a, float c, float) {
    asm volatile("{ .reg .f32 t; mul.f32 t, %0, %1; ex2.approx.f32 %0, t; }" : "+f"(a) : "f"(c));
  }
};
struct RsqFtz {
  static __device__ __forceinline__ void step(float& a, float, float) {
    asm volatile("{ .reg .f32 t; add.f32 t, %0, 0f3F800000; rsqrt.approx.ftz.f32 %0, t; }" : "+f"(a));
  }
};
struct Rsq {
  static __device__ __forceinline__ void step(float& a, float, float) {
    asm volatile("{ .reg .f32 t; add.f32 t, %0, 0f3F800000; rsqrt.approx.f32 %0, t; }" : "+f"(a));
  }
};
struct Lg2Ftz {
  static __device__ __forceinline__ void step(float& a, float, float) {
    asm volatile("{ .reg .f32 t; add.f32 t, %0, 0f40000000; lg2.approx.ftz.f32 %0, t; }" : "+f"(a));
  }
};
struct Lg2 {
  static __device__ __forceinline__ void step(float& a, float, float) {
    asm volatile("{ .reg .f32 t; add.f32 t, %0, 0f40000000; lg2.approx.f32 %0, t; }" : "+f"(a));
  }
};
struct Sin {
  static __device__ __forceinline__ void step(float& a, float, float) {
    asm volatile("sin.approx.f32 %0, %0;" : "+f"(a));
  }
};
struct Pred {
  static __device__ __forceinline__ void step(float& a, float c, float k) {
    asm volatile("{ .reg .pred p; setp.lt.f32 p, %0, %1; @p mul.f32 %0, %0, %2; }" : "+f"(a) : "f"(c), "f"(k));
  }
};

// out: per warp [2 * gw] t0, [2 * gw + 1] t1 (gw: warp index in the grid); sink at out[2 * warps]
template <class OP, int K>
__global__ void __launch_bounds__(1024) sfu_body(unsigned long long* out, unsigned iters, float c, float k, float x) {
  float a[K];
#pragma unroll
  for (int j = 0; j < K; ++j) a[j] = x + 0.01f * j + 1e-6f * threadIdx.x;
  __syncwarp();
  const unsigned long long t0 = clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
#pragma unroll
      for (int j = 0; j < K; ++j) OP::step(a[j], c, k);
    }
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) s += a[j];
  __syncwarp();
  const unsigned long long t1 = clock64();
  const unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if ((threadIdx.x & 31) == 0) {
    out[2 * gw] = t0;
    out[2 * gw + 1] = t1;
  }
  if (s == 1234.5f) out[2 * (gridDim.x * blockDim.x / 32)] = 1;  // keeps the chains
}

using Kernel = void (*)(unsigned long long*, unsigned, float, float, float);
struct Case {
  const char* op;
  int k;
  int mufu_per_step;  // MUFU instructions one chain's step issues (0 for fmul / pred)
  Kernel fn;
  float c, kk, x;
};

int main() {
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  const float log2e_neg = -1.44269504f;
  const Case cases[] = {
      {"fmul", 1, 0, sfu_body<Fmul, 1>, 1.0000001f, 0, 1.0f},
      {"pred", 1, 0, sfu_body<Pred, 1>, 1e30f, 1.0000001f, 1.0f},
      {"ex2_ftz", 1, 1, sfu_body<Ex2Ftz, 1>, 0, 0, 0.5f},
      {"ex2_ftz_mul", 1, 1, sfu_body<Ex2FtzMul, 1>, log2e_neg, 0, 0.5f},
      {"ex2", 1, 1, sfu_body<Ex2, 1>, log2e_neg, 0, 0.5f},
      {"rsq_ftz", 1, 1, sfu_body<RsqFtz, 1>, 0, 0, 0.5f},
      {"rsq", 1, 1, sfu_body<Rsq, 1>, 0, 0, 0.5f},
      {"lg2_ftz", 1, 1, sfu_body<Lg2Ftz, 1>, 0, 0, 0.5f},
      {"lg2", 1, 1, sfu_body<Lg2, 1>, 0, 0, 0.5f},
      {"sin", 1, 1, sfu_body<Sin, 1>, 0, 0, 0.5f},
      {"ex2_ftz", 4, 1, sfu_body<Ex2Ftz, 4>, 0, 0, 0.5f},
      {"ex2_ftz_mul", 4, 1, sfu_body<Ex2FtzMul, 4>, log2e_neg, 0, 0.5f},
      {"ex2", 4, 1, sfu_body<Ex2, 4>, log2e_neg, 0, 0.5f},
      {"rsq", 4, 1, sfu_body<Rsq, 4>, 0, 0, 0.5f},
      {"lg2", 4, 1, sfu_body<Lg2, 4>, 0, 0, 0.5f},
      {"rsq", 2, 1, sfu_body<Rsq, 2>, 0, 0, 0.5f},
      {"lg2", 2, 1, sfu_body<Lg2, 2>, 0, 0, 0.5f},
      {"ex2_ftz", 8, 1, sfu_body<Ex2Ftz, 8>, 0, 0, 0.5f},
      {"ex2", 8, 1, sfu_body<Ex2, 8>, log2e_neg, 0, 0.5f},
  };
  const int blocks[] = {32, 128, 256, 512, 1024};
  const unsigned iters = 2048;  // x 8 steps
  const int max_warps = sms * 1024 / 32;
  unsigned long long* out = nullptr;
  CK(cudaMalloc(&out, sizeof(unsigned long long) * (2 * max_warps + 1)));
  std::vector<unsigned long long> host(2 * max_warps + 1);
  std::printf("{\"benchmark\": \"sfu_pipe\", \"device\": \"%s\", \"sms\": %d, \"steps_per_warp\": %u,\n", prop.name,
              sms, iters * 8);
  std::printf(" \"results\": [\n");
  bool first = true;
  for (const Case& cs : cases) {
    for (int block : blocks) {
      // latency chains (K = 1) only with few warps; throughput cases over every block size
      if (cs.k == 1 && block > 128) continue;
      const int grid = sms, warps = grid * block / 32;
      cs.fn<<<grid, block>>>(out, iters / 8, cs.c, cs.kk, cs.x);  // warm-up (instruction cache)
      CK(cudaGetLastError());
      cs.fn<<<grid, block>>>(out, iters, cs.c, cs.kk, cs.x);
      CK(cudaGetLastError());
      CK(cudaMemcpy(host.data(), out, sizeof(unsigned long long) * 2 * warps, cudaMemcpyDeviceToHost));
      const double steps = iters * 8.0;
      std::vector<double> per_step;
      std::vector<double> span;  // per CTA: max t1 - min t0
      const int wpb = block / 32;
      for (int b = 0; b < grid; ++b) {
        unsigned long long lo = ~0ull, hi = 0;
        for (int w = 0; w < wpb; ++w) {
          const unsigned long long t0 = host[2 * (b * wpb + w)], t1 = host[2 * (b * wpb + w) + 1];
          per_step.push_back(static_cast<double>(t1 - t0) / steps);
          lo = std::min(lo, t0);
          hi = std::max(hi, t1);
        }
        span.push_back(static_cast<double>(hi - lo));
      }
      std::sort(per_step.begin(), per_step.end());
      std::sort(span.begin(), span.end());
      const int busiest = (wpb + 3) / 4;  // warps on the busiest sub-partition
      const double ops = steps * cs.k * busiest * std::max(1, cs.mufu_per_step);
      std::printf(
          "%s  {\"op\": \"%s\", \"chains\": %d, \"block\": %d, \"warps_per_smsp\": %.2f, \"cycles_per_step\": %.3f, "
          "\"cycles_per_step_min\": %.3f, \"cycles_per_step_max\": %.3f, \"smsp_cycles_per_op\": %.3f}",
          first ? "" : ",\n", cs.op, cs.k, block, wpb / 4.0, per_step[per_step.size() / 2], per_step.front(),
          per_step.back(), span[span.size() / 2] / ops);
      first = false;
      std::fflush(stdout);
    }
  }
  std::printf("\n ]}\n");
  CK(cudaFree(out));
  return 0;
}
