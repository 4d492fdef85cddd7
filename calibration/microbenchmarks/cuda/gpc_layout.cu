// GPC layout: which SMs share a GPC, read from where the CTAs of thread-block clusters run (a
// cluster never spans GPCs). Gives the device file's topology.gpc_sms (today an estimate).
//
//   cluster_smid(out)   each CTA records %smid and %clusterid.x in out[2b], out[2b+1]; every CTA
//                       takes the SM's whole shared memory so that one CTA runs per SM
//
// The host program (nvcc -O3 -arch=sm_90a gpc_layout.cu && ./a.out; compiled only by nvcc on
// the GPU machine) launches clusters of 16, 8, 4 and 2 CTAs (16 with the non-portable opt-in),
// many waves each, joins the SMs of every cluster (union-find) and prints the groups: each is
// one GPC (or part of one, if no cluster ever joined its halves), with its SMs, and
// cudaOccupancyMaxActiveClusters for each size.

#include "mb_helpers.cuh"  // mb_smid

__global__ void cluster_smid(unsigned* out) {
  extern __shared__ unsigned char fill[];
  unsigned cid;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  if (threadIdx.x == 0) {
    fill[0] = 1;
    out[2 * blockIdx.x] = mb_smid();
    out[2 * blockIdx.x + 1] = cid;
  }
}

#ifndef __CUDA_ARCH__
#if defined(__NVCC__)
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "standalone_host.cuh"  // CK

static int find(std::vector<int>& p, int x) { return p[x] == x ? x : p[x] = find(p, p[x]); }

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount, smem = static_cast<int>(p.sharedMemPerBlockOptin);
  CK(cudaFuncSetAttribute(cluster_smid, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(cluster_smid, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::vector<int> parent(static_cast<size_t>(sms));
  std::iota(parent.begin(), parent.end(), 0);
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"max_active_clusters\": {", p.name, sms);
  bool first = true;
  for (int size : {16, 8, 4, 2}) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(size);
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = static_cast<size_t>(smem);
    const int grid = size * (8 * sms / size);  // eight waves of clusters
    cfg.gridDim = dim3(static_cast<unsigned>(grid));
    int active = 0;
    CK(cudaOccupancyMaxActiveClusters(&active, cluster_smid, &cfg));
    std::printf("%s\"%d\": %d", first ? "" : ", ", size, active);
    first = false;
    unsigned* out;
    CK(cudaMalloc(&out, static_cast<size_t>(grid) * 8));
    std::vector<unsigned> h(static_cast<size_t>(grid) * 2);
    for (int rep = 0; rep < 10; ++rep) {
      CK(cudaLaunchKernelEx(&cfg, cluster_smid, out));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), out, h.size() * 4, cudaMemcpyDeviceToHost));
      std::map<unsigned, int> first_sm;  // cluster -> an SM it ran on
      for (int b = 0; b < grid; ++b) {
        const int sm = static_cast<int>(h[2 * b]);
        auto [it, fresh] = first_sm.emplace(h[2 * b + 1], sm);
        if (!fresh) parent[static_cast<size_t>(find(parent, sm))] = find(parent, it->second);
      }
    }
    CK(cudaFree(out));
  }
  std::map<int, std::vector<int>> groups;
  for (int s = 0; s < sms; ++s) groups[find(parent, s)].push_back(s);
  std::vector<std::vector<int>> g;
  for (auto& [root, v] : groups) g.push_back(v);
  std::sort(g.begin(), g.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::printf("}, \"gpc_sms\": [");
  for (size_t i = 0; i < g.size(); ++i) std::printf("%s%zu", i ? ", " : "", g[i].size());
  std::printf("], \"gpcs\": [");
  for (size_t i = 0; i < g.size(); ++i) {
    std::printf("%s[", i ? ", " : "");
    for (size_t j = 0; j < g[i].size(); ++j) std::printf("%s%d", j ? ", " : "", g[i][j]);
    std::printf("]");
  }
  std::printf("]}\n");
  return 0;
}
#endif
#endif
