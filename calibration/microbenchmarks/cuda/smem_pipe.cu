// What the shared-memory pipe charges beyond conflict-free wavefronts (issue 17: the grown
// set's shared-memory kernels with bank conflicts run ~1.5-2x slower on the H200 than one
// wavefront per cycle; scan_blelloch's SASS predicates its up/down-sweep bodies, so every warp
// issues their LDS/STS with few or no lanes on). Standalone: nvcc -O3
// -gencode=arch=compute_90a,code=sm_90a smem_pipe.cu && ./a.out (one JSON document on stdout).
// Times are clock64 cycles on the SM.
//
//   tput      one CTA of 1024 threads per SM, every warp issuing 8 independent shared accesses
//             per iteration (inline PTX, so ptxas keeps each as one instruction): cycles per
//             warp instruction per SM for LDS and STS conflict-free, n-way conflicted (n = 2, 8,
//             32), with one lane on, and with every lane predicated off (@p false at run time);
//             and ld.global.nc (L1 hits) all lanes on and predicated off
//   atoms     shared atomic increments (`red.shared.add.u32 [a], 1`: ATOMS.POPC.INC, the
//             histograms' `atomicAdd(&s[bin], 1u)`) and adds of a run-time value (ATOMS.ADD) on
//             1, 2, 4, 8, 32 words (and 4 words in one bank): cycles per warp instruction per SM.
//             Are same-address increments combined?
//   hol       one warp issues K (0, 1, 4, 8) 32-way conflicted LDS back to back (the rest of
//             its 8 predicated off); a second warp,
//             ~10 cycles later, times one access: an LDG L1 hit, an LDG L2 hit (ld.cg), a
//             conflict-free LDS. Does a global load wait behind queued shared wavefronts?
//   phases    one CTA of 16 warps (scan_blelloch's shape) looping over phases `body; bar.sync`:
//             body = LDS a, LDS b, IADD, STS b with n-way conflicts (n = 1, 32) by warp 0 only;
//             every other warp either skips it (a loop of one trip: a real branch) or issues it
//             with every lane predicated off (ptxas's if-converted form); also no body (the
//             barrier alone) and the body with STS only. Cycles per phase, 1 and 4 CTAs per SM.
#include <cstdint>

#include "mb_helpers.cuh"  // mb_clock64, mb_smid

static __device__ __forceinline__ unsigned saddr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// v = @on ld.shared [a] (v kept when off)
static __device__ __forceinline__ void lds_p(unsigned& v, unsigned a, unsigned on) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p ld.shared.u32 %0, [%1]; }"
               : "+r"(v)
               : "r"(a), "r"(on)
               : "memory");
}
static __device__ __forceinline__ void sts_p(unsigned a, unsigned v, unsigned on) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p st.shared.u32 [%0], %1; }" ::"r"(a), "r"(v), "r"(on)
               : "memory");
}
static __device__ __forceinline__ void ldg_p(unsigned& v, const unsigned* a, unsigned on) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p ld.global.nc.u32 %0, [%1]; }"
               : "+r"(v)
               : "l"(a), "r"(on)
               : "memory");
}

// Eight predicated accesses in one inline-PTX block: ptxas keeps them predicated (eight separate
// blocks it turned into branches around each access). Lane address a (shared) or ga (global).
static __device__ __forceinline__ void lds8(unsigned (&v)[8], unsigned a, unsigned on) {
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %8, 0;\n"
      "@p ld.shared.u32 %0, [%9];\n@p ld.shared.u32 %1, [%9];\n@p ld.shared.u32 %2, [%9];\n@p ld.shared.u32 %3, [%9];\n"
      "@p ld.shared.u32 %4, [%9];\n@p ld.shared.u32 %5, [%9];\n@p ld.shared.u32 %6, [%9];\n@p ld.shared.u32 %7, [%9]; }"
      : "+r"(v[0]), "+r"(v[1]), "+r"(v[2]), "+r"(v[3]), "+r"(v[4]), "+r"(v[5]), "+r"(v[6]), "+r"(v[7])
      : "r"(on), "r"(a)
      : "memory");
}
static __device__ __forceinline__ void sts8(unsigned a, unsigned x, unsigned on) {
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %2, 0;\n"
      "@p st.shared.u32 [%0], %1;\n@p st.shared.u32 [%0], %1;\n@p st.shared.u32 [%0], %1;\n@p st.shared.u32 [%0], %1;\n"
      "@p st.shared.u32 [%0], %1;\n@p st.shared.u32 [%0], %1;\n@p st.shared.u32 [%0], %1;\n@p st.shared.u32 [%0], %1; "
      "}" ::"r"(a),
      "r"(x), "r"(on)
      : "memory");
}
static __device__ __forceinline__ void ldg8(unsigned (&v)[8], const unsigned* a, unsigned on) {
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %8, 0;\n"
      "@p ld.global.nc.u32 %0, [%9];\n@p ld.global.nc.u32 %1, [%9];\n@p ld.global.nc.u32 %2, [%9];\n@p "
      "ld.global.nc.u32 %3, [%9];\n"
      "@p ld.global.nc.u32 %4, [%9];\n@p ld.global.nc.u32 %5, [%9];\n@p ld.global.nc.u32 %6, [%9];\n@p "
      "ld.global.nc.u32 %7, [%9]; }"
      : "+r"(v[0]), "+r"(v[1]), "+r"(v[2]), "+r"(v[3]), "+r"(v[4]), "+r"(v[5]), "+r"(v[6]), "+r"(v[7])
      : "r"(on), "l"(a)
      : "memory");
}
// The first k of eight 32-way conflicted loads (lane address a, the k-th at a + 4 k) on.
static __device__ __forceinline__ void lds8_first(unsigned (&v)[8], unsigned a, unsigned k) {
  asm volatile(
      "{ .reg .pred p<8>;\n"
      "setp.gt.u32 p0, %8, 0; setp.gt.u32 p1, %8, 1; setp.gt.u32 p2, %8, 2; setp.gt.u32 p3, %8, 3;\n"
      "setp.gt.u32 p4, %8, 4; setp.gt.u32 p5, %8, 5; setp.gt.u32 p6, %8, 6; setp.gt.u32 p7, %8, 7;\n"
      "@p0 ld.shared.u32 %0, [%9];\n@p1 ld.shared.u32 %1, [%9+4];\n@p2 ld.shared.u32 %2, [%9+8];\n@p3 ld.shared.u32 "
      "%3, [%9+12];\n"
      "@p4 ld.shared.u32 %4, [%9+16];\n@p5 ld.shared.u32 %5, [%9+20];\n@p6 ld.shared.u32 %6, [%9+24];\n@p7 "
      "ld.shared.u32 %7, [%9+28]; }"
      : "+r"(v[0]), "+r"(v[1]), "+r"(v[2]), "+r"(v[3]), "+r"(v[4]), "+r"(v[5]), "+r"(v[6]), "+r"(v[7])
      : "r"(k), "r"(a)
      : "memory");
}

// kOp: 0 LDS, 1 STS, 2 LDG (L1-resident `g`). Lane l accesses word l * stride (mod 4096 words);
// it is on when (lane_mask >> l) & 1. out[3 b + 0..2]: t0, t1, smid of block b.
template <int kOp>
__global__ void __launch_bounds__(1024)
    tput(unsigned stride, unsigned lane_mask, int iters, const unsigned* g, unsigned long long* out) {
  __shared__ unsigned s[4096];
  const unsigned lane = threadIdx.x & 31;
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = i;
  __syncthreads();
  const unsigned on = (lane_mask >> lane) & 1u;
  const unsigned a = saddr(&s[(lane * stride) & 4095]);
  const unsigned* ga = g + ((lane * stride) & 4095);
  unsigned v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  const unsigned long long t0 = mb_clock64();
  for (int i = 0; i < iters; ++i) {
    if (kOp == 0)
      lds8(v, a, on);
    else if (kOp == 1)
      sts8(a, v[i & 7] + i, on);
    else
      ldg8(v, ga, on);
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
  }
  unsigned x = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) x ^= v[k];
  if (x == 0x5eed5eedu) out[0] = x;
}

// atoms: shared atomic increments, lane l on word (l % naddr) * spread, eight per iteration:
// kInc 1 `red.shared.add.u32 [a], 1` (ptxas: ATOMS.POPC.INC, what `atomicAdd(&s[i], 1u)` with its
// result unused compiles to: the histograms of the grown set), 0 the same with a run-time value
// (ATOMS.ADD). out as tput.
template <int kInc>
__global__ void __launch_bounds__(1024)
    atoms(unsigned naddr, unsigned spread, unsigned inc, int iters, unsigned long long* out) {
  __shared__ unsigned s[4096];
  const unsigned lane = threadIdx.x & 31;
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = 0;
  __syncthreads();
  const unsigned a = saddr(&s[((lane % naddr) * spread) & 4095]);
  const unsigned long long t0 = mb_clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if (kInc)
        asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(a) : "memory");
      else
        asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a), "r"(inc) : "memory");
    }
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
  }
  if (s[lane] == 0x5eed5eedu) out[0] = 1;
}

// hol: warp 1 issues `k` (<= 8) 32-way LDS (stride 32 words), warp 0 times one access of kind `probe`
// (0 LDG L1 hit, 1 LDG L2 hit, 2 LDS conflict-free) issued ~10 cycles after warp 1's first.
// out[t]: the probe's latency in trial t (32 trials).
__global__ void hol(const unsigned* g, int k, int probe, unsigned long long* out) {
  __shared__ unsigned s[4096];
  __shared__ unsigned sink[64];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = i;
  unsigned acc = 0;
  if (warp == 0) acc = __ldg(g + lane);  // the L1 line (the probe's ld.global.nc hits)
  __syncthreads();
  const unsigned a32 = saddr(&s[(lane * 32) & 4095]), a1 = saddr(&s[lane]);
  for (int t = 0; t < 32; ++t) {
    __syncthreads();
    if (warp == 1) {  // k <= 8: eight registers, all k loads in the pipe together
      unsigned v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      lds8_first(v, a32, (unsigned)k);
      sink[32 + lane] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    } else {
      const unsigned long long w0 = mb_clock64();
      while (mb_clock64() - w0 < 10) {
      }
      unsigned v = 0;
      const unsigned long long t0 = mb_clock64();
      if (probe == 0)
        ldg_p(v, g + lane, 1u);
      else if (probe == 1)
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(g + 4096 + lane) : "memory");
      else
        lds_p(v, a1, 1u);
      asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(saddr(&sink[lane])), "r"(v) : "memory");
      const unsigned long long t1 = mb_clock64();
      if (lane == 0) out[t] = t1 - t0;
    }
  }
  if (acc == 0x5eed5eedu) out[63] = acc;
}

// phases: `phases` iterations of body + bar.sync. kMode: 0 barrier alone, 1 warp 0 runs the body
// (the others skip it through a loop of `one` trips: a branch ptxas cannot predicate), 2 every
// warp issues the body, only warp 0's lanes on, 3 as 2 with the body's STS only. Lane l of warp 0
// accesses words l * stride (LDS a) and l * stride + 1 (LDS b, STS b). out[3 b + 0..2] as tput.
template <int kMode>
__global__ void phases(unsigned stride, int phases, int one, unsigned long long* out) {
  __shared__ unsigned s[8192];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (unsigned i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = i;
  __syncthreads();
  const unsigned on = warp == 0 ? 1u : 0u;
  const unsigned aa = saddr(&s[(lane * stride) & 4095]), ab = saddr(&s[((lane * stride) & 4095) + 4096]);
  const unsigned long long t0 = mb_clock64();
  for (int p = 0; p < phases; ++p) {
    if (kMode == 1) {
      for (int r = 0; r < (warp == 0 ? one : 0); ++r) {
        unsigned x = 0, y = 0;
        lds_p(x, aa, 1u);
        lds_p(y, ab, 1u);
        sts_p(ab, x + y, 1u);
      }
    } else if (kMode == 2) {
      unsigned x = 0, y = 0;
      lds_p(x, aa, on);
      lds_p(y, ab, on);
      sts_p(ab, x + y, on);
    } else if (kMode == 3) {
      sts_p(ab, p, on);
    }
    __syncthreads();
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = t0;
    out[3 * blockIdx.x + 1] = t1;
    out[3 * blockIdx.x + 2] = mb_smid();
  }
}

#if defined(__NVCC__)
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "standalone_host.cuh"

// Mean per-CTA span (cycles) of the CTAs of one launch.
static double mean_span(const unsigned long long* d, int ctas) {
  std::vector<unsigned long long> h(3 * ctas);
  CK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
  double s = 0;
  for (int b = 0; b < ctas; ++b) s += (double)(h[3 * b + 1] - h[3 * b]);
  return s / ctas;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  unsigned* g;
  CK(cudaMalloc(&g, 1 << 20));
  CK(cudaMemset(g, 0, 1 << 20));
  unsigned long long* out;
  CK(cudaMalloc(&out, 3 * 8 * sms * 8 + 4096));
  std::printf("{\"device\": \"%s\", \"sms\": %d,\n", prop.name, sms);

  // tput
  {
    struct Case {
      const char* name;
      int op;
      unsigned stride;
      unsigned mask;
    };
    const Case cases[] = {{"lds_1way", 0, 1, ~0u},
                          {"lds_2way", 0, 2, ~0u},
                          {"lds_8way", 0, 8, ~0u},
                          {"lds_32way", 0, 32, ~0u},
                          {"lds_one_lane", 0, 1, 1u},
                          {"lds_all_off", 0, 1, 0u},
                          {"lds_32way_half", 0, 32, 0xffffu},
                          {"sts_1way", 1, 1, ~0u},
                          {"sts_2way", 1, 2, ~0u},
                          {"sts_8way", 1, 8, ~0u},
                          {"sts_32way", 1, 32, ~0u},
                          {"sts_one_lane", 1, 1, 1u},
                          {"sts_all_off", 1, 1, 0u},
                          {"ldg_l1hit", 2, 1, ~0u},
                          {"ldg_all_off", 2, 1, 0u}};
    const int iters = 256;
    std::printf("\"tput_cycles_per_warp_instruction_per_sm\": {");
    bool first = true;
    for (const Case& c : cases) {
      auto launch = [&] {
        if (c.op == 0)
          tput<0><<<sms, 1024>>>(c.stride, c.mask, iters, g, out);
        else if (c.op == 1)
          tput<1><<<sms, 1024>>>(c.stride, c.mask, iters, g, out);
        else
          tput<2><<<sms, 1024>>>(c.stride, c.mask, iters, g, out);
      };
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<double> v;
      for (int r = 0; r < 5; ++r) {
        launch();
        CK(cudaDeviceSynchronize());
        v.push_back(mean_span(out, sms) / (32.0 * iters * 8));
      }
      std::sort(v.begin(), v.end());
      std::printf("%s\"%s\": %.3f", first ? "" : ", ", c.name, v[2]);
      first = false;
    }
    std::printf("},\n");
  }

  // atoms
  {
    struct Case {
      const char* name;
      int inc;
      unsigned naddr;
      unsigned spread;
    };
    const Case cases[] = {
        {"popc_inc_1addr", 1, 1, 1}, {"popc_inc_2addr", 1, 2, 1},   {"popc_inc_4addr", 1, 4, 1},
        {"popc_inc_8addr", 1, 8, 1}, {"popc_inc_32addr", 1, 32, 1}, {"popc_inc_4addr_1bank", 1, 4, 32},
        {"add_1addr", 0, 1, 1},      {"add_4addr", 0, 4, 1},        {"add_32addr", 0, 32, 1}};
    const int iters = 64;
    std::printf("\"atoms_cycles_per_warp_instruction_per_sm\": {");
    bool first = true;
    for (const Case& c : cases) {
      auto launch = [&] {
        if (c.inc)
          atoms<1><<<sms, 1024>>>(c.naddr, c.spread, 1u, iters, out);
        else
          atoms<0><<<sms, 1024>>>(c.naddr, c.spread, 1u, iters, out);
      };
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<double> v;
      for (int r = 0; r < 5; ++r) {
        launch();
        CK(cudaDeviceSynchronize());
        v.push_back(mean_span(out, sms) / (32.0 * iters * 8));
      }
      std::sort(v.begin(), v.end());
      std::printf("%s\"%s\": %.3f", first ? "" : ", ", c.name, v[2]);
      first = false;
    }
    std::printf("},\n");
  }

  // hol
  {
    const char* probes[] = {"ldg_l1_hit", "ldg_l2_hit", "lds_1way"};
    std::printf("\"hol_probe_latency_median\": {");
    for (int p = 0; p < 3; ++p) {
      std::printf("%s\"%s\": {", p ? ", " : "", probes[p]);
      const int ks[] = {0, 1, 4, 8};
      for (int i = 0; i < 4; ++i) {
        hol<<<1, 64>>>(g, ks[i], p, out);
        CK(cudaDeviceSynchronize());
        std::vector<unsigned long long> h(32);
        CK(cudaMemcpy(h.data(), out, 32 * 8, cudaMemcpyDeviceToHost));
        std::sort(h.begin() + 2, h.end());
        std::printf("%s\"k%d\": %llu", i ? ", " : "", ks[i], h[17]);
      }
      std::printf("}");
    }
    std::printf("},\n");
  }

  // phases
  {
    const char* modes[] = {"barrier_only", "warp0_branch", "all_warps_predicated", "sts_only_predicated"};
    const int nph = 2000;
    std::printf("\"phase_cycles\": {");
    bool first = true;
    for (int per_sm = 1; per_sm <= 4; per_sm *= 4)
      for (int m = 0; m < 4; ++m)
        for (unsigned stride : {1u, 32u}) {
          if (m == 0 && stride == 32) continue;
          const int ctas = sms * per_sm;
          auto launch = [&] {
            switch (m) {
              case 0:
                phases<0><<<ctas, 512>>>(stride, nph, 1, out);
                break;
              case 1:
                phases<1><<<ctas, 512>>>(stride, nph, 1, out);
                break;
              case 2:
                phases<2><<<ctas, 512>>>(stride, nph, 1, out);
                break;
              default:
                phases<3><<<ctas, 512>>>(stride, nph, 1, out);
                break;
            }
          };
          launch();
          CK(cudaDeviceSynchronize());
          std::vector<double> v;
          for (int r = 0; r < 3; ++r) {
            launch();
            CK(cudaDeviceSynchronize());
            v.push_back(mean_span(out, ctas) / nph);
          }
          std::sort(v.begin(), v.end());
          std::printf("%s\"%s_%uway_%dcta\": %.1f", first ? "" : ", ", modes[m], stride == 32 ? 32u : 1u, per_sm, v[1]);
          first = false;
        }
    std::printf("}\n}\n");
  }
  return 0;
}
#endif

#if !defined(__NVCC__)
// kernsim's specs (calibration/microbenchmarks/cuda/specs_sync/ms_phases_*.json) launch these instances.
template __global__ void phases<0>(unsigned, int, int, unsigned long long*);
template __global__ void phases<1>(unsigned, int, int, unsigned long long*);
template __global__ void phases<2>(unsigned, int, int, unsigned long long*);
template __global__ void phases<3>(unsigned, int, int, unsigned long long*);
#endif
