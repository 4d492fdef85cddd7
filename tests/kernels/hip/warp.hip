// Wave-level primitives for wave64 (the HIP counterpart of tests/kernels/cuda/warp.cu). Every lane of
// every launched wave takes part, lanes past n contribute a fixed value and write nothing.
// blockDim.x % 64 == 0.
//  - wave_vote: 8 results per element (v = in[i], or -1 for lanes past n; b = __ballot(v > 0)):
//      out[8i+0] = low 32 bits of b            out[8i+4] = __popcll(__ballot(v & 1))
//      out[8i+1] = high 32 bits of b           out[8i+5] = __lane_id()
//      out[8i+2] = __all(v > -100)             out[8i+6] = number of lanes below this one with v > 0
//      out[8i+3] = __any(v > 120)              out[8i+7] = wave maximum of (v & 0xff) by __shfl_xor
//  - wave_shuffles: 5 results per element (v = in[i], or 0 past n):
//      __shfl_xor(v, 37), __shfl_up(v, 3), __shfl_down(v, 7, width 16),
//      __shfl(v, (lane*7 + 3) & 63), __shfl(v, 2*lane + 1, width 8)
#include <hip/hip_runtime.h>

extern "C" __global__ void wave_vote(const int* __restrict__ in, unsigned int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = i < n;
  int v = valid ? in[i] : -1;
  unsigned long long b = __ballot(v > 0);
  unsigned lane = __lane_id();
  unsigned r2 = __all(v > -100);
  unsigned r3 = __any(v > 120);
  unsigned r4 = __popcll(__ballot(v & 1));
  unsigned r6 = __popcll(b & ((1ull << lane) - 1));
  int m = v & 0xff;
  for (int o = 32; o > 0; o >>= 1) m = max(m, __shfl_xor(m, o));
  if (valid) {
    unsigned* o = out + 8 * (size_t)i;
    o[0] = (unsigned)b; o[1] = (unsigned)(b >> 32); o[2] = r2; o[3] = r3;
    o[4] = r4; o[5] = lane; o[6] = r6; o[7] = (unsigned)m;
  }
}

extern "C" __global__ void wave_shuffles(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 63;
  bool valid = i < n;
  float v = valid ? in[i] : 0.0f;
  float r0 = __shfl_xor(v, 37);
  float r1 = __shfl_up(v, 3);
  float r2 = __shfl_down(v, 7, 16);
  float r3 = __shfl(v, (lane * 7 + 3) & 63);
  float r4 = __shfl(v, 2 * lane + 1, 8);
  if (valid) {
    float* o = out + 5 * (size_t)i;
    o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3; o[4] = r4;
  }
}
