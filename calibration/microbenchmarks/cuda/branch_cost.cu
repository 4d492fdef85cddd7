// What control flow costs a warp on Hopper (issue 17 item 1). kernsim's device files carry the branch
// pipe's latency as an estimate (pipes.branch, "not yet measured") and a taken branch or a divergent
// split and reconvergence (BSSY/BSYNC in the SASS) costs a warp about one issue cycle in kernsim;
// smem_pipe.cu's phases on an H100 show a body that warp 0 runs behind a branch costing ~87 cycles
// more a phase than the same body predicated (calibration/data/h100/s6/smem), and the marching
// stencils' divergent halo paths are ~600 cycles a plane slower on the part than in kernsim.
// Standalone: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a branch_cost.cu; one JSON object out.
//
// One CTA on one SM, clock64 around `iters` trips of a `#pragma unroll 1` loop (cycles per trip,
// median of 5 launches), warp 0 timed; every kernel has a no-branch twin so differences isolate the
// control flow:
//   chain_k        k dependent IADDs a trip (k = 1, 4, 16): the loop's back branch against k ALU
//                  latencies (slope = IADD latency, intercept = the taken back branch + loop test)
//   unif_if        a warp-uniform `if (flag)` (run-time flag, always true) around 24 dependent adds
//                  and a shared store (ptxas 13.0 keeps it a branch) | the same body unconditional
//   unif_skip      the same `if` with flag false (the body skipped: one taken branch)
//   div2_alu       the march's x-halo shape without loads: lane 0 / lane 31 each run 8 dependent
//                  IADDs + STS on two sibling paths (if / else if), the other lanes skip | all lanes
//                  run the body once
//   div2_ld        the same paths each loading one warm (L2-resident) word with ld.global.nc and
//                  storing it to shared | the two loads issued by the whole warp one after another
//                  (each waited for: a dependent address)
//   div1_ld        one path (lane 0 only) with the load | the load by the whole warp
//   switch7        switch_ops' shape: `switch (sel)` over 7 one-instruction cases and a default, sel
//                  read from shared memory each trip, 8 different values in every warp (eight paths;
//                  an unbounded selector: a BRX jump table, as switch_ops) | the same code with
//                  sel = 0 in every lane (one path)
// with 1 warp and with 8 warps per CTA (all warps run the same code; warp 0's cycles).
#include <cstdint>

#include "mb_helpers.cuh"  // mb_clock64

static __device__ __forceinline__ unsigned ldnc(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// An ALU step and a shared store the compiler can neither fold nor drop.
static __device__ __forceinline__ void step(unsigned& x, unsigned a) { asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(a)); }
static __device__ __forceinline__ void sts(unsigned* p, unsigned v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(p)), "r"(v) : "memory");
}

// kMode: 0..2 chain k = 1, 4, 16; 3 unif_if; 4 unif_if twin; 5 unif_skip; 6 div2_alu; 7 div2_alu twin;
// 8 div2_ld; 9 div2_ld twin; 10 div1_ld; 11 div1_ld twin; 12 switch7; 13 switch7 with one path
template <int kMode>
__global__ void branch_cost(const unsigned* __restrict__ warm, int iters, int flag, unsigned* __restrict__ sink,
                            unsigned long long* __restrict__ cyc) {
  __shared__ unsigned s[64];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned x = threadIdx.x + (unsigned)flag;
  unsigned off = 0;
  const unsigned zero = (unsigned)flag - 1u;  // 0 at run time (flag is 1): keeps the loads' chain
  if (warp == 0) s[32 + lane] = kMode == 12 ? (lane * 3u + 1u) & 7u : 0u;  // switch7: the lane's case
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    if (kMode <= 2) {
      constexpr int k = kMode == 0 ? 1 : kMode == 1 ? 4 : 16;
#pragma unroll
      for (int j = 0; j < k; ++j) step(x, 1u);
    } else if (kMode == 3 || kMode == 5) {
      if (flag != (kMode == 5 ? 1 : 0)) {
#pragma unroll
        for (int j = 0; j < 24; ++j) step(x, (unsigned)i);
        sts(&s[warp], x);
      }
    } else if (kMode == 4) {
#pragma unroll
      for (int j = 0; j < 24; ++j) step(x, (unsigned)i);
      sts(&s[warp], x);
    } else if (kMode == 6) {
      if (lane == 0) {
#pragma unroll
        for (int j = 0; j < 8; ++j) step(x, (unsigned)i);
        sts(&s[warp * 2], x);
      } else if (lane == 31) {
#pragma unroll
        for (int j = 0; j < 8; ++j) step(x, (unsigned)i + 1u);
        sts(&s[warp * 2 + 1], x);
      }
    } else if (kMode == 7) {
#pragma unroll
      for (int j = 0; j < 8; ++j) step(x, (unsigned)i);
      sts(&s[warp * 2 + (lane & 1)], x);
    } else if (kMode == 8) {
      // the addresses depend on the previous trip's values (off), so each trip's loads wait for them
      if (lane == 0) {
        const unsigned v = ldnc(warm + (i * 64u + off));
        sts(&s[warp * 2], v);
        off = v & zero;
      } else if (lane == 31) {
        const unsigned v = ldnc(warm + (i * 64u + 32u + off));
        sts(&s[warp * 2 + 1], v);
        off = v & zero;
      }
    } else if (kMode == 9) {
      const unsigned v = ldnc(warm + (i * 64u + off));
      sts(&s[warp * 2], v);
      const unsigned w = ldnc(warm + (i * 64u + 32u + (v & zero)));
      sts(&s[warp * 2 + 1], w);
      off = w & zero;
    } else if (kMode == 10) {
      if (lane == 0) {
        const unsigned v = ldnc(warm + (i * 64u + off));
        sts(&s[warp * 2], v);
        off = v & zero;
      }
    } else if (kMode == 11) {
      const unsigned v = ldnc(warm + (i * 64u + off));
      sts(&s[warp * 2], v);
      off = v & zero;
    } else {
      unsigned sel;  // from shared memory: ptxas cannot bound it, so the switch becomes a BRX jump table
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(sel) : "r"((unsigned)__cvta_generic_to_shared(&s[32 + lane])));
      unsigned r;
      switch (sel) {
        case 0: r = x + (unsigned)i; break;
        case 1: r = x - (unsigned)i; break;
        case 2: r = x * (unsigned)i; break;
        case 3: r = x ^ (unsigned)i; break;
        case 4: r = x | (unsigned)i; break;
        case 5: r = x & (unsigned)i; break;
        case 6: r = x * x + (unsigned)i; break;
        default: r = 0u; break;
      }
      x = r + 1u;
    }
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  if (x == 0x5eed5eedu) sink[threadIdx.x] = x + off;
}

// Warms `n` words (65536: 256 KiB) with ld.global.cg: L2-resident, not in the timed SM's L1 (the
// timed loads touch each line once: line i * 2 and i * 2 + 1 of trip i, 512 trips).
__global__ void warm_cg(const unsigned* mem, unsigned n, unsigned* sink) {
  unsigned acc = 0;
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(mem + i));
    acc += v;
  }
  if (acc == 0x12345678u) sink[0] = acc;
}

#if defined(__NVCC__)
#include <algorithm>
#include <vector>

#include "standalone_host.cuh"

template <int M>
static double run(const unsigned* warm, int iters, int flag, unsigned* sink, unsigned long long* cyc, int warps, unsigned* wsink) {
  std::vector<unsigned long long> v;
  for (int r = 0; r < 6; ++r) {
    warm_cg<<<1, 256>>>(warm, 65536, wsink);
    branch_cost<M><<<1, 32 * warps>>>(warm, iters, flag, sink, cyc);
    CK(cudaDeviceSynchronize());
    unsigned long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    if (r > 0) v.push_back(c);
  }
  std::sort(v.begin(), v.end());
  return (double)v[v.size() / 2] / iters;
}

int main() {
  unsigned *warm, *sink, *wsink;
  unsigned long long* cyc;
  CK(cudaMalloc(&warm, 65536 * 4));
  CK(cudaMemset(warm, 0, 65536 * 4));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&wsink, 64));
  CK(cudaMalloc(&cyc, 64));
  const int iters = 4096;
  const char* names[] = {"chain_1", "chain_4", "chain_16", "unif_if", "unif_if_twin", "unif_skip", "div2_alu",
                         "div2_alu_twin", "div2_ld", "div2_ld_twin", "div1_ld", "div1_ld_twin", "switch7", "switch7_uniform"};
  std::printf("{\n  \"cycles_per_trip\": {\n");
  for (int warps : {1, 8}) {
    std::printf("    \"warps_%d\": {", warps);
    for (int m = 0; m < 14; ++m) {
      double c = 0;
      switch (m) {
        case 0: c = run<0>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 1: c = run<1>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 2: c = run<2>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 3: c = run<3>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 4: c = run<4>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 5: c = run<5>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 6: c = run<6>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 7: c = run<7>(warm, iters, 1, sink, cyc, warps, wsink); break;
        case 8: c = run<8>(warm, iters / 8, 1, sink, cyc, warps, wsink); break;
        case 9: c = run<9>(warm, iters / 8, 1, sink, cyc, warps, wsink); break;
        case 10: c = run<10>(warm, iters / 8, 1, sink, cyc, warps, wsink); break;
        case 11: c = run<11>(warm, iters / 8, 1, sink, cyc, warps, wsink); break;
        case 12: c = run<12>(warm, iters, 1, sink, cyc, warps, wsink); break;
        default: c = run<13>(warm, iters, 1, sink, cyc, warps, wsink); break;
      }
      std::printf("%s\"%s\": %.2f", m ? ", " : "", names[m], c);
    }
    std::printf("}%s\n", warps == 1 ? "," : "");
  }
  std::printf("  }\n}\n");
  return 0;
}
#endif

#if !defined(__NVCC__)
// kernsim's specs (calibration/microbenchmarks/cuda/specs_sync/ms_branch_*.json) launch these instances.
#define KS_INST(M) template __global__ void branch_cost<M>(const unsigned* __restrict__, int, int, unsigned* __restrict__, unsigned long long* __restrict__);
KS_INST(0)
KS_INST(1)
KS_INST(2)
KS_INST(3)
KS_INST(4)
KS_INST(5)
KS_INST(6)
KS_INST(7)
KS_INST(8)
KS_INST(9)
KS_INST(10)
KS_INST(11)
KS_INST(12)
KS_INST(13)
#endif
