// Do reads of the same sectors by several SMs at about the same time reach the L2 once or once
// per SM? Triton's Hopper GEMMs show 32-42% fewer L2 read sectors (ncu lts__t_sectors_srcunit_tex)
// than their tiles request (calibration/data/h200/ncu_hopper_l2.tar.gz), with L1 bypassed
// (cp.async.cg). This program reads L2-resident regions with ld.global.cg.v4 (L1 bypassed) from
// groups of CTAs that share a region, and prints the time; run it under ncu for the sectors.
//
//   mode share_k   : CTAs of a cluster of k (one GPC, started together) read the same region in
//                    the same order (lockstep)
//   mode stagger_k : the same regions, each CTA of the cluster starting at another chunk (the same
//                    sectors, not at the same time)
//   mode pairs     : no cluster, CTAs 2i and 2i+1 share (wherever the dispatcher puts them)
//   mode all       : every CTA reads region 0
//   mode delay_2_D : share_2 with the second CTA starting D cycles late (how close in time two
//                    reads must be to merge)
//   mode cold_2    : share_2 with the L2 flushed first and one pass (reads that miss the L2)
// Expected sectors, had every SM its own request: grid x passes x region_bytes / 32.
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o l2_merge l2_merge.cu
// Run:   ./l2_merge [region_kib=256] [passes=8]   (prints one line per mode: time, GB/s requested)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static __device__ __forceinline__ unsigned ld_cg(const uint4* p) {
  unsigned a, b, c, d;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
  return a ^ b ^ c ^ d;
}

// region: which region this CTA reads; start: the chunk it starts at
extern "C" __global__ void __launch_bounds__(256) l2_merge_read(const uint4* buf, unsigned* out, unsigned* smids,
                                                                unsigned region_vec, unsigned passes, unsigned group,
                                                                unsigned stagger, unsigned delay, unsigned by_sm) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const unsigned tpc = smid / 2u;
  // by_sm: the region is chosen by where the CTA runs: 1 its TPC, 2 its GPC ((smid/2) mod 8 on
  // the H200), 3/4/5 groups of 2/3/4 TPCs of one GPC (TPCs t, t+8, t+16, ... share a GPC)
  const unsigned region = by_sm == 0 ? blockIdx.x / group
                          : by_sm == 1 ? tpc
                          : by_sm == 2 ? tpc % 8u
                                       : tpc % 8u + 8u * (tpc / (8u * (by_sm - 1u)));
  const unsigned rank = blockIdx.x % group;
  const unsigned chunk = blockDim.x * 4u;
  const unsigned nchunks = region_vec / chunk;
  unsigned c = stagger ? (rank * (nchunks / group)) % nchunks : 0u;
  const uint4* base = buf + static_cast<unsigned long long>(region) * region_vec;
  unsigned acc = 0;
  if (delay) {  // rank r starts r x delay cycles late
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0));
    for (;;) {
      unsigned long long t;
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
      if (t - t0 >= static_cast<unsigned long long>(rank) * delay) break;
    }
  }
  for (unsigned p = 0; p < passes; ++p) {
    for (unsigned j = 0; j < nchunks; ++j) {
      const uint4* q = base + static_cast<unsigned long long>(c) * chunk + threadIdx.x;
      acc ^= ld_cg(q) ^ ld_cg(q + blockDim.x) ^ ld_cg(q + 2u * blockDim.x) ^ ld_cg(q + 3u * blockDim.x);
      c = (c + 1u == nchunks) ? 0u : c + 1u;
    }
  }
  if (threadIdx.x == 0) smids[blockIdx.x] = smid;
  if (acc == 0x9e3779b9u) out[0] = acc;
}

int main(int argc, char** argv) {
  const unsigned region_kib = argc > 1 ? atoi(argv[1]) : 256;
  const unsigned passes = argc > 2 ? atoi(argv[2]) : 8;
  const unsigned grid = 128;  // divisible by every cluster size used (by_sm modes: 132, one per SM)
  const unsigned region_vec = region_kib * 1024 / 16;
  uint4* buf;
  unsigned *out, *smids;
  CK(cudaMalloc(&buf, static_cast<size_t>(grid) * region_vec * 16));
  CK(cudaMemset(buf, 1, static_cast<size_t>(grid) * region_vec * 16));
  CK(cudaMalloc(&out, 4));
  CK(cudaMalloc(&smids, 132 * 4));
  // one CTA per SM: take most of the shared memory
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(l2_merge_read, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(l2_merge_read, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  struct Mode {
    const char* name;
    unsigned cluster, group, stagger, delay = 0, cold = 0, by_sm = 0;
  } modes[] = {{"distinct", 1, 1, 0},   {"pairs", 1, 2, 0},     {"share_2", 2, 2, 0},   {"stagger_2", 2, 2, 1},
               {"share_4", 4, 4, 0},    {"share_8", 8, 8, 0},   {"stagger_8", 8, 8, 1}, {"share_16", 16, 16, 0},
               {"all", 1, grid, 0},     {"delay_2_100", 2, 2, 0, 100},  {"delay_2_300", 2, 2, 0, 300},
               {"delay_2_1000", 2, 2, 0, 1000}, {"delay_2_3000", 2, 2, 0, 3000}, {"delay_2_10000", 2, 2, 0, 10000},
               {"cold_1", 1, 1, 0, 0, 1}, {"cold_2", 2, 2, 0, 0, 1}, {"cold_16", 16, 16, 0, 0, 1},
               {"delay_2_5000", 2, 2, 0, 5000}, {"delay_2_7000", 2, 2, 0, 7000},
               {"sm_tpc", 1, 1, 0, 0, 0, 1}, {"sm_gpc", 1, 1, 0, 0, 0, 2}, {"sm_2tpc", 1, 1, 0, 0, 0, 3},
               {"sm_3tpc", 1, 1, 0, 0, 0, 4}, {"sm_4tpc", 1, 1, 0, 0, 0, 5}};
  const size_t flush_bytes = 256u << 20;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  unsigned host_smids[132];
  printf("mode        cluster  us(median of 5)  requested_GB/s  smids(first 8)\n");
  for (const Mode& m : modes) {
    cudaLaunchConfig_t cfg = {};
    const unsigned g = m.by_sm ? 132u : grid;
    cfg.gridDim = dim3(g);
    cfg.blockDim = dim3(256);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = m.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    float t[5];
    for (int r = 0; r < 6; ++r) {
      if (m.cold) CK(cudaMemset(flush, r, flush_bytes));
      CK(cudaEventRecord(e0));
      CK(cudaLaunchKernelEx(&cfg, l2_merge_read, (const uint4*)buf, out, smids, region_vec, m.cold ? 1u : passes, m.group,
                            m.stagger, m.delay, m.by_sm));
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      if (r > 0) CK(cudaEventElapsedTime(&t[r - 1], e0, e1));
    }
    for (int i = 0; i < 5; ++i)
      for (int j = i + 1; j < 5; ++j)
        if (t[j] < t[i]) {
          float x = t[i];
          t[i] = t[j];
          t[j] = x;
        }
    CK(cudaMemcpy(host_smids, smids, grid * 4, cudaMemcpyDeviceToHost));
    const double bytes = static_cast<double>(g) * (m.cold ? 1u : passes) * region_vec * 16.0;
    printf("%-13s %7u %16.2f %15.1f  ", m.name, m.cluster, t[2] * 1e3, bytes / (t[2] * 1e-3) / 1e9);
    for (int i = 0; i < 8; ++i) printf("%u ", host_smids[i]);
    printf("\n");
  }
  return 0;
}
