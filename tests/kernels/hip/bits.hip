// HIP port of tests/kernels/cuda/bits.cu (same kernels, same launch semantics).
// Integer bit tricks through the CUDA integer intrinsics; eight results per element:
//   out[8i+0] = __popc(a)                 out[8i+4] = __funnelshift_rc(a, b, a >> 26)  (clamped shift)
//   out[8i+1] = __clz(a)                  out[8i+5] = __byte_perm(a, b, b & 0x7777)
//   out[8i+2] = __brev(a)                 out[8i+6] = __ffs(a)
//   out[8i+3] = __funnelshift_l(a, b, b)  out[8i+7] = __umulhi(a, b)
#include <hip/hip_runtime.h>

extern "C" __global__ void bit_tricks(const unsigned int* __restrict__ a, const unsigned int* __restrict__ b,
                                      unsigned int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int x = a[i], y = b[i];
  unsigned int* o = out + 8 * (size_t)i;
  o[0] = __popc(x);
  o[1] = __clz(x);
  o[2] = __brev(x);
  o[3] = __funnelshift_l(x, y, y);
  o[4] = __funnelshift_rc(x, y, x >> 26);
  o[5] = __byte_perm(x, y, y & 0x7777u);
  o[6] = __ffs(x);
  o[7] = __umulhi(x, y);
}
