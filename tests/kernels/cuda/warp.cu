// Warp-level primitives. Every lane of every launched warp takes part (the collectives use the
// full mask), lanes past n contribute a fixed value and write nothing. blockDim.x % 32 == 0.
//  - warp_vote: 8 results per element:
//      out[8i+0] = __ballot_sync(v > 0)           out[8i+4] = __reduce_add_sync(v & 0xff)
//      out[8i+1] = __all_sync(v > -100)           out[8i+5] = __reduce_max_sync((unsigned)(v & 0xff))
//      out[8i+2] = __any_sync(v > 120)            out[8i+6] = (unsigned)__reduce_min_sync(v)
//      out[8i+3] = __match_any_sync(v & 7)        out[8i+7] = __match_all_sync(v & 0x100, &pred) | pred
//    (v = in[i], or -1 for lanes past n; out[8i+7] holds the mask with bit 0 forced to the predicate
//     so both results show: match_all's mask is either 0 or 0xffffffff)
//  - warp_shuffles: 5 results per element (v = in[i], or 0 past n):
//      __shfl_xor_sync(v, 5), __shfl_up_sync(v, 3), __shfl_down_sync(v, 7, width 16),
//      __shfl_sync(v, (lane*7 + 3) & 31), __shfl_sync(v, 2*lane + 1, width 8)

extern "C" __global__ void warp_vote(const int* __restrict__ in, unsigned int* __restrict__ out, int n) {
  const unsigned full = 0xffffffffu;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = i < n;
  int v = valid ? in[i] : -1;
  unsigned r0 = __ballot_sync(full, v > 0);
  unsigned r1 = __all_sync(full, v > -100);
  unsigned r2 = __any_sync(full, v > 120);
  unsigned r3 = __match_any_sync(full, v & 7);
  unsigned r4 = __reduce_add_sync(full, (unsigned)(v & 0xff));
  unsigned r5 = __reduce_max_sync(full, (unsigned)(v & 0xff));
  unsigned r6 = (unsigned)__reduce_min_sync(full, v);
  int pred = 0;
  unsigned r7 = __match_all_sync(full, v & 0x100, &pred);
  r7 = (r7 & ~1u) | (pred ? 1u : 0u);
  if (valid) {
    unsigned* o = out + 8 * (size_t)i;
    o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3;
    o[4] = r4; o[5] = r5; o[6] = r6; o[7] = r7;
  }
}

extern "C" __global__ void warp_shuffles(const float* __restrict__ in, float* __restrict__ out, int n) {
  const unsigned full = 0xffffffffu;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  bool valid = i < n;
  float v = valid ? in[i] : 0.0f;
  float r0 = __shfl_xor_sync(full, v, 5);
  float r1 = __shfl_up_sync(full, v, 3);
  float r2 = __shfl_down_sync(full, v, 7, 16);
  float r3 = __shfl_sync(full, v, (lane * 7 + 3) & 31);
  float r4 = __shfl_sync(full, v, 2 * lane + 1, 8);
  if (valid) {
    float* o = out + 5 * (size_t)i;
    o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3; o[4] = r4;
  }
}
