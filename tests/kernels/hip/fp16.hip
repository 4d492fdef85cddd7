// HIP port of tests/kernels/cuda/fp16.cu: half and bfloat16 arithmetic and conversions through
// hip_fp16.h / hip_bf16.h.
//  - half_axpby:        out = a*x + b*y in __half arithmetic (__hmul, __hadd; a, b given as float)
//  - half2_fma_relu:    out = max(x*w + bias, 0) on __half2 pairs (__hfma2, __hmax2); n2 pairs
//  - bf16_mix:          out_f = float(x)*s + f (f32), out_b = x*bf16(s) + bf16(f) in bf16 arithmetic
//  - f16_roundtrip:     h = __float2half_rn(in*scale) (overflow to inf, subnormals), back = float(h)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

extern "C" __global__ void half_axpby(const __half* __restrict__ x, const __half* __restrict__ y,
                                      __half* __restrict__ out, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half ha = __float2half(a), hb = __float2half(b);
  out[i] = __hadd(__hmul(ha, x[i]), __hmul(hb, y[i]));
}

extern "C" __global__ void half2_fma_relu(const __half2* __restrict__ x, const __half2* __restrict__ w,
                                          const __half2* __restrict__ bias, __half2* __restrict__ out, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  const __half2 zero = __float2half2_rn(0.0f);
  out[i] = __hmax2(__hfma2(x[i], w[i], bias[i]), zero);
}

extern "C" __global__ void bf16_mix(const __hip_bfloat16* __restrict__ x, const float* __restrict__ f,
                                    float* __restrict__ out_f, __hip_bfloat16* __restrict__ out_b, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __hip_bfloat16 xb = x[i];
  out_f[i] = __bfloat162float(xb) * s + f[i];
  out_b[i] = __hadd(__hmul(xb, __float2bfloat16(s)), __float2bfloat16(f[i]));
}

extern "C" __global__ void f16_roundtrip(const float* __restrict__ in, __half* __restrict__ h,
                                         float* __restrict__ back, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half v = __float2half_rn(in[i] * scale);
  h[i] = v;
  back[i] = __half2float(v);
}
