// Kernels that reach scratch (a dynamically indexed private array), LDS and global memory through
// flat pointers, and a recursive device function (dynamic stack), for the AMD memory-space tests.
#include <hip/hip_runtime.h>

// Each work-item fills a private array and reads it back at a data-dependent index, so the array
// lives in scratch: out[i] = (i * 7 % 40) * 3 + i.
extern "C" __global__ void scratch_array(const int* __restrict__ idx, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a[40];
  for (int k = 0; k < 40; ++k) a[k] = (float)(k * 3 + i);
  out[i] = a[idx[i] % 40];
}

// A generic pointer: the same function reads global memory and LDS through flat addresses.
__device__ __noinline__ float sum3(const float* p) { return p[0] + p[1] + p[2]; }

// out[i] = sum3(&g[i]) + 10 * sum3(&s[t]) where s[t] = t.
extern "C" __global__ void flat_lds_global(const float* __restrict__ g, float* __restrict__ out) {
  __shared__ float s[130];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = (float)t;
  if (t < 2) s[128 + t] = (float)(128 + t);
  __syncthreads();
  out[i] = sum3(&g[i]) + 10.0f * sum3(&s[t]);
}

// Recursion needs a stack the compiler cannot size: fib(n % 12) by naive recursion.
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void recursive_fib(const int* __restrict__ n, int* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fib(n[i] % 12);
}
