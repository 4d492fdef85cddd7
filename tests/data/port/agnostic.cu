// The same warp reduction written without a warp width: warpSize, __activemask(), a 64-bit-safe
// ballot. Correct on 32-lane warps and on 64-lane AMD waves, and the port finds nothing to warn
// about (tests/unit/cuda_port_test.cpp).
#include <cuda_runtime.h>

extern "C" __global__ void warp_sums(const float* in, float* warp_sum, int* below, float* total, float limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  auto votes = __ballot_sync(__activemask(), v < limit);
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(__activemask(), v, offset);
  float s = __shfl_sync(__activemask(), v, 0);
  if (i < n) {
    warp_sum[i] = s;
    below[i] = __popc(votes);
  }
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}
