// HIP port of tests/kernels/cuda/math.cu (same kernels, same launch semantics).
// Math library and intrinsic functions, several results per element.
//  math_f32 (8 per element):  expf(x), logf(|x| + 1e-3), sinf(3x), rsqrtf(|x| + 0.01),
//                             __fdividef(x, 1.5 + x*x), sqrtf(|x|), __expf(x), tanhf(x)
//  math_f64 (6 per element):  exp(x), log(|x| + 1e-3), sin(3x), sqrt(|x|), rsqrt(|x| + 0.01),
//                             atan2(x, 0.5)
#include <hip/hip_runtime.h>

extern "C" __global__ void math_f32(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float* o = out + 8 * (size_t)i;
  o[0] = expf(v);
  o[1] = logf(fabsf(v) + 1e-3f);
  o[2] = sinf(3.0f * v);
  o[3] = rsqrtf(fabsf(v) + 0.01f);
  o[4] = __fdividef(v, 1.5f + v * v);
  o[5] = sqrtf(fabsf(v));
  o[6] = __expf(v);
  o[7] = tanhf(v);
}

extern "C" __global__ void math_f64(const double* __restrict__ x, double* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  double* o = out + 6 * (size_t)i;
  o[0] = exp(v);
  o[1] = log(fabs(v) + 1e-3);
  o[2] = sin(3.0 * v);
  o[3] = sqrt(fabs(v));
  o[4] = rsqrt(fabs(v) + 0.01);
  o[5] = atan2(v, 0.5);
}
