// HIP port of tests/kernels/cuda/call.cu (same kernels, same launch semantics).
// Real calls: __noinline__ device functions with parameters (scalars and a pointer) and return
// values, so the ISA keeps call/ret with the ABI's parameter passing instead of inlining.
//   y[i]      = horner(coeffs, deg, x[i])          polynomial c0 + c1 x + ... + c_deg x^deg (fmaf)
//   bucket[i] = bucket_of(x[i], -1, 1, 16)         which of 16 equal bins of [-1, 1) holds x
//   g[i]      = gcd_u32(u[i], w[i])                Euclid's algorithm, data-dependent trip count
#include <hip/hip_runtime.h>

__device__ __noinline__ float horner(const float* coeffs, int deg, float x) {
  float r = coeffs[deg];
  for (int k = deg - 1; k >= 0; --k) r = fmaf(r, x, coeffs[k]);
  return r;
}

__device__ __noinline__ int bucket_of(float v, float lo, float hi, int nbins) {
  if (v < lo) return 0;
  if (v >= hi) return nbins - 1;
  int b = (int)((v - lo) / (hi - lo) * nbins);
  return b < nbins - 1 ? b : nbins - 1;
}

__device__ __noinline__ unsigned int gcd_u32(unsigned int a, unsigned int b) {
  while (b != 0u) {
    unsigned int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

extern "C" __global__ void call_noinline(const float* __restrict__ x, const float* __restrict__ coeffs, int deg,
                                         const unsigned int* __restrict__ u, const unsigned int* __restrict__ w,
                                         float* __restrict__ y, int* __restrict__ bucket, unsigned int* __restrict__ g,
                                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = horner(coeffs, deg, v);
  bucket[i] = bucket_of(v, -1.0f, 1.0f, 16);
  g[i] = gcd_u32(u[i], w[i]);
}
