// A warp reduction written for 32-lane warps, as much CUDA code is: a 32-lane mask, a reduction
// from offset 16, lane arithmetic with 32, a ballot kept in 32 bits. Correct on NVIDIA parts; on
// a 64-lane AMD wave the broadcast from lane 0 and the ballot cover lanes 0-31 only (the port's
// warp32-* warnings, docs/cuda_on_amd.md; tests/unit/cuda_port_test.cpp checks both).
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffff

// warp_sum[i]: the sum of in[] over thread i's warp; below[i]: how many threads of i's warp have
// in[] < limit; total: the sum of in[] (one atomicAdd per warp).
extern "C" __global__ void warp_sums32(const float* in, float* warp_sum, int* below, float* total, float limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  unsigned votes = __ballot_sync(FULL_MASK, v < limit);
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  float s = __shfl_sync(FULL_MASK, v, 0);
  if (i < n) {
    warp_sum[i] = s;
    below[i] = __popc(votes);
  }
  if (threadIdx.x % 32 == 0) atomicAdd(total, v);
}
