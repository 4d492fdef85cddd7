// Kernels written against CCCL as CUDA programmers use it: CUB's BlockReduce and cooperative
// groups' tiled partitions with cg::reduce. Both headers come from the CUDA toolkit
// (include/cccl in CUDA 13), which kernsim's CUDA frontend puts on clang's include path.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>

namespace cg = cooperative_groups;

// One sum per block of 128 elements (zero past n) through cub::BlockReduce.
extern "C" __global__ void cub_block_sum_f32(const float* in, float* out, int n) {
  using BlockReduce = cub::BlockReduce<float, 128>;
  __shared__ typename BlockReduce::TempStorage temp;
  const int i = blockIdx.x * 128 + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const float sum = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// One sum per 16-thread tile (zero past n): tiled_partition<16> and cg::reduce with cg::plus;
// the tile's rank-0 thread writes it.
extern "C" __global__ void cg_tile_sum_f32(const float* in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const float sum = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) out[i / 16] = sum;
}
