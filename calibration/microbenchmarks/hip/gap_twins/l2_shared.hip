// A twin of the launch behind the published MI300X "L2 read bandwidth" (RRZE-HPC gpu-benches,
// gpu-cache, mi300x.txt), written here for kernsim from that benchmark's description: one
// workgroup per CU, every workgroup reading the same region (two halves, multiplied element by
// element and summed) `passes` times with ordinary float4 loads (through the vL1D, which the
// region overflows). Its bandwidth is workgroups x passes x region bytes / time, taken here as the
// difference of two pass counts so that the first (cold) pass cancels.
#include <hip/hip_runtime.h>

extern "C" __global__ void l2_shared_sum(float4* out, const float4* __restrict__ region, int half, int passes) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  const float4* a = region + threadIdx.x;
  const float4* b = a + half;
  for (int p = 0; p < passes; ++p) {
#pragma unroll 8
    for (int i = 0; i < half; i += blockDim.x) {
      const float4 x = a[i], y = b[i];
      acc.x += x.x * y.x;
      acc.y += x.y * y.y;
      acc.z += x.z * y.z;
      acc.w += x.w * y.w;
    }
    acc.x *= 1.3f;
  }
  if (acc.x == 1233.f) out[threadIdx.x] = acc;
}
