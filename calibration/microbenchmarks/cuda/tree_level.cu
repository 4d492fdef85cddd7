// What one level of a shared-memory tree reduction costs a CTA on Hopper, and how fast an SM turns
// over CTAs that do nothing but such a tree. Written for issue 17 (block reductions): the H200
// runs block_sum_t<float,256> (tree fully unrolled, 6 SASS instructions a level) and
// sum_tree_sequential (the same tree as a loop, 10 a level) at the same ~300 cycles per CTA per
// SM, while kernsim times the unrolled one 25% faster: it charges instructions the part hides
// behind a per-level cost kernsim does not have. This measures that cost.
//
// Part 1, one CTA per SM (grid 132), in-kernel clock64 by warp 0 around the tree (after a
// __syncthreads that starts everyone together), median over the CTAs:
//   tree_unrolled<B>   s[t] = x; sync; for stride B/2..1 (unrolled): if (t < stride) s[t] += s[t + stride]; sync
//   tree_loop          the same with the stride from blockDim.x (a run-time loop)
//   bar_only           the same number of __syncthreads with nothing between them
//   chain              every thread: s[t] = v; sync; v = s[t ^ 1] + v (all threads active each level)
// for blocks of 64, 128, 256, 512, 1024 threads: cycles per level = (t1 - t0) / levels.
// Part 2, CTA throughput (event-timed, median of 9, L2-resident input so HBM does not bound it):
//   sum_unrolled256 / sum_loop / load_store_only over grids of 8448 .. 135168 CTAs of 256 threads:
//   ns per CTA and SM-cycles per CTA per SM = time x clock x SMs / CTAs.
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o tree_level tree_level.cu
// Run:   ./tree_level > tree_level.json     (one JSON object; a few seconds)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::printf("{\"error\": \"%s at line %d\"}\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

template <int B>
__global__ void tree_unrolled(const float* in, float* out, unsigned long long* cyc) {
  __shared__ float s[B];
  const int t = threadIdx.x;
  const float x = in[blockIdx.x * B + t];
  __syncthreads();
  const unsigned long long t0 = clock64();
  s[t] = x;
  __syncthreads();
#pragma unroll
  for (int stride = B / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  const unsigned long long t1 = clock64();
  if (t == 0) {
    out[blockIdx.x] = s[0];
    cyc[blockIdx.x] = t1 - t0;
  }
}

__global__ void tree_loop(const float* in, float* out, unsigned long long* cyc) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  const float x = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  const unsigned long long t0 = clock64();
  s[t] = x;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  const unsigned long long t1 = clock64();
  if (t == 0) {
    out[blockIdx.x] = s[0];
    cyc[blockIdx.x] = t1 - t0;
  }
}

__global__ void bar_only(const float* in, float* out, unsigned long long* cyc) {
  const unsigned t = threadIdx.x;
  float x = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  const unsigned long long t0 = clock64();
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) __syncthreads();
  const unsigned long long t1 = clock64();
  if (t == 0) {
    out[blockIdx.x] = x;
    cyc[blockIdx.x] = t1 - t0;
  }
}

__global__ void chain(const float* in, float* out, unsigned long long* cyc) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  float v = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  const unsigned long long t0 = clock64();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    s[t] = v;
    __syncthreads();
    v = s[t ^ 1u] + v;
    __syncthreads();  // the next level's store must not overwrite what another thread reads
  }
  const unsigned long long t1 = clock64();
  if (t == 0) cyc[blockIdx.x] = t1 - t0;
  out[blockIdx.x * blockDim.x + t] = v;
}

// Part 2: whole CTAs
__global__ void sum_unrolled256(const float* in, float* out, unsigned long long*) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  s[t] = in[(blockIdx.x & 4095) * 256 + t];
  __syncthreads();
#pragma unroll
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void sum_loop(const float* in, float* out, unsigned long long*) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  s[t] = in[(blockIdx.x & 4095) * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void load_store_only(const float* in, float* out, unsigned long long*) {
  const unsigned t = threadIdx.x;
  const float x = in[(blockIdx.x & 4095) * blockDim.x + t];
  if (t == 0) out[blockIdx.x] = x;
}

using Kernel = void (*)(const float*, float*, unsigned long long*);

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const int max_ctas = 135168;
  float *in, *out;
  unsigned long long* cyc;
  CK(cudaMalloc(&in, 4096 * 1024 * sizeof(float)));
  CK(cudaMemset(in, 0, 4096 * 1024 * sizeof(float)));
  CK(cudaMalloc(&out, (static_cast<size_t>(max_ctas) + static_cast<size_t>(sms) * 1024) * sizeof(float)));
  CK(cudaMalloc(&cyc, max_ctas * sizeof(unsigned long long)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  std::printf("{\"device\": \"%s\", \"sms\": %d, \"clock_khz\": %d,\n \"levels\": [\n", prop.name, sms, clock_khz);
  struct L { const char* name; int block; Kernel k; bool dyn; };
  const L lv[] = {{"tree_unrolled", 64, tree_unrolled<64>, false},   {"tree_unrolled", 128, tree_unrolled<128>, false},
                  {"tree_unrolled", 256, tree_unrolled<256>, false}, {"tree_unrolled", 512, tree_unrolled<512>, false},
                  {"tree_unrolled", 1024, tree_unrolled<1024>, false}};
  bool first = true;
  auto level_row = [&](const char* name, int block, Kernel k, bool dyn) {
    int levels = 0;
    for (int b = block / 2; b > 0; b >>= 1) ++levels;
    if (std::string(name) == "tree_unrolled" || std::string(name) == "tree_loop" || std::string(name) == "bar_only") ++levels;  // the sync after the store
    std::vector<double> med;
    for (int rep = 0; rep < 5; ++rep) {
      k<<<sms, block, dyn ? block * sizeof(float) : 0>>>(in, out, cyc);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<unsigned long long> c(sms);
      CK(cudaMemcpy(c.data(), cyc, sms * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      std::sort(c.begin(), c.end());
      med.push_back(static_cast<double>(c[sms / 2]));
    }
    std::sort(med.begin(), med.end());
    std::printf("%s  {\"kernel\": \"%s\", \"block\": %d, \"levels\": %d, \"cycles\": %.1f, \"cycles_per_level\": %.2f}", first ? "" : ",\n",
                name, block, levels, med[2], med[2] / levels);
    first = false;
  };
  for (const L& l : lv) level_row(l.name, l.block, l.k, l.dyn);
  for (int b : {64, 128, 256, 512, 1024}) {
    level_row("tree_loop", b, tree_loop, true);
    level_row("bar_only", b, bar_only, false);
    level_row("chain", b, chain, true);
  }
  std::printf("\n ],\n \"ctas\": [\n");
  first = true;
  struct C { const char* name; Kernel k; bool dyn; };
  const C cs[] = {{"sum_unrolled256", sum_unrolled256, false}, {"sum_loop", sum_loop, true}, {"load_store_only", load_store_only, false}};
  for (const C& c : cs)
    for (int grid : {8448, 33792, 135168}) {
      std::vector<float> ms;
      for (int rep = 0; rep < 9; ++rep) {
        CK(cudaEventRecord(e0));
        c.k<<<grid, 256, c.dyn ? 256 * sizeof(float) : 0>>>(in, out, cyc);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float m = 0;
        CK(cudaEventElapsedTime(&m, e0, e1));
        ms.push_back(m);
      }
      CK(cudaGetLastError());
      std::sort(ms.begin(), ms.end());
      const double us = ms[4] * 1000.0;
      std::printf("%s  {\"kernel\": \"%s\", \"grid\": %d, \"block\": 256, \"us\": %.3f, \"ns_per_cta\": %.4f, \"sm_cycles_per_cta_per_sm\": %.1f}",
                  first ? "" : ",\n", c.name, grid, us, us * 1000.0 / grid, us * 1e-6 * clock_khz * 1e3 * sms / grid);
      first = false;
    }
  std::printf("\n ]}\n");
  return 0;
}
