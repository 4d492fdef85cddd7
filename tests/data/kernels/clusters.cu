// Thread-block clusters (sm_90): kernels with __cluster_dims__ and cooperative_groups'
// this_cluster() as CUDA programmers write them. The tests (tests/unit/cluster_test.cpp) check
// their outputs against sums and permutations computed by hand.
// clang provides the sm_90 cluster intrinsics CUDA's headers declare (sm_90_rt.h); cooperative
// groups offers this_cluster() once told so.
#define _CG_CLUSTER_INTRINSICS_AVAILABLE 1
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// A cluster-wide sum through distributed shared memory: each CTA of a cluster of 4 sums its 128
// elements into its own shared memory; after cluster.sync() rank 0 reads the other CTAs'
// partial sums through map_shared_rank and writes the cluster's total.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_sum(const float* in, float* out) {
  __shared__ float part[128];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  for (unsigned s = 64; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  cluster.sync();
  if (cluster.block_rank() == 0 && t == 0) {
    float total = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) total += *cluster.map_shared_rank(&part[0], r);
    out[blockIdx.x / 4] = total;
  }
  cluster.sync();  // the others' shared memory stays until rank 0 has read it
}

// A ring: every CTA writes its values into the shared memory of the next rank (remote stores),
// syncs, and writes out what its predecessor sent. The cluster shape comes from the launch.
extern "C" __global__ void cluster_ring(const int* in, int* out) {
  __shared__ int inbox[64];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned r = cluster.block_rank(), n = cluster.num_blocks();
  int* next = cluster.map_shared_rank(&inbox[0], (r + 1) % n);
  next[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x] * 10 + static_cast<int>(r);
  cluster.sync();
  out[blockIdx.x * 64 + threadIdx.x] = inbox[threadIdx.x];
  cluster.sync();
}

// Remote atomics: every thread of every CTA adds 1 to a counter in rank 0's shared memory.
extern "C" __global__ void __cluster_dims__(2, 2, 1) cluster_count(unsigned* out) {
  __shared__ unsigned counter;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) counter = 0;
  cluster.sync();
  atomicAdd(cluster.map_shared_rank(&counter, 0), 1u);
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) out[blockIdx.x / 2 + blockIdx.y] = counter;
  cluster.sync();
}

// The cluster special registers, one row of 8 per CTA: clusterid.x/y, cluster_ctaid.x/y,
// cluster_ctarank, cluster_nctarank, nclusterid.x, is_explicit_cluster.
extern "C" __global__ void cluster_ids(unsigned* out) {
  unsigned v[8];
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(v[0]));
  asm("mov.u32 %0, %%clusterid.y;" : "=r"(v[1]));
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v[2]));
  asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v[3]));
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[4]));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[5]));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(v[6]));
  asm("mov.u32 %0, %%is_explicit_cluster;" : "=r"(v[7]));
  if (threadIdx.x == 0)
    for (int i = 0; i < 8; ++i) out[(blockIdx.y * gridDim.x + blockIdx.x) * 8 + i] = v[i];
}

// Warp 0 of rank 0 waits at __syncthreads() for warp 1, which waits at the cluster barrier
// for warp 0: a deadlock no thread can leave.
extern "C" __global__ void cluster_deadlock(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (cluster.block_rank() == 0 && threadIdx.x < 32) __syncthreads();
  else cluster.sync();
  out[0] = 1;
}

// The SM-slice tests: every CTA runs `iters` integer steps on its input, hands the result to the
// next rank through distributed shared memory and adds what it receives to its output in place,
// so each element must change exactly once however the launch is sampled:
// out[i] += f(in[j]), j the same thread of the next rank's CTA, f(v) = v * 3 + 1 applied `iters`
// times (CTAs numbered x fastest over a 2D grid).
extern "C" __global__ void cluster_inplace(const unsigned* in, unsigned* out, int iters) {
  __shared__ unsigned inbox[256];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned r = cluster.block_rank(), n = cluster.num_blocks();
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  for (int k = 0; k < iters; ++k) v = v * 3u + 1u;
  unsigned* prev = cluster.map_shared_rank(&inbox[0], (r + n - 1) % n);
  prev[threadIdx.x] = v;
  cluster.sync();
  out[i] += inbox[threadIdx.x];
  cluster.sync();
}
