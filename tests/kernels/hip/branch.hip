// HIP port of tests/kernels/cuda/branch.cu (same kernels, same launch semantics).
// Data-dependent control flow: divergent loops, if/else chains and a switch.
//  - collatz_steps:   steps[i] = number of Collatz steps from start[i] to 1, capped at max_steps;
//                     trip counts differ per lane, so warps diverge and reconverge
//  - piecewise_chain: y = f(x) with a five-way if/else chain on the value of x
//  - switch_ops:      out = op[i] selects one of seven binary operations on a[i], b[i]
//                     (a switch that compilers lower to a jump table or a compare chain);
//                     unknown opcodes give 0
#include <hip/hip_runtime.h>

extern "C" __global__ void collatz_steps(const unsigned int* __restrict__ start, unsigned int* __restrict__ steps,
                                         int n, unsigned int max_steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int v = start[i];
  unsigned int s = 0;
  while (v > 1u && s < max_steps) {
    v = (v & 1u) ? 3u * v + 1u : v >> 1;
    ++s;
  }
  steps[i] = s;
}

extern "C" __global__ void piecewise_chain(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float r;
  if (v < -0.5f) {
    r = -1.0f - v * v;
  } else if (v < 0.0f) {
    r = 2.0f * v;
  } else if (v < 0.25f) {
    r = v * v * v;
  } else if (v < 0.75f) {
    r = sqrtf(v);
  } else {
    r = 1.0f / v;
  }
  y[i] = r;
}

extern "C" __global__ void switch_ops(const int* __restrict__ op, const float* __restrict__ a,
                                      const float* __restrict__ b, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], r;
  switch (op[i]) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = fmaxf(x, y); break;
    case 4: r = fminf(x, y); break;
    case 5: r = x * x + y; break;
    case 6: r = fabsf(x - y); break;
    default: r = 0.0f; break;
  }
  out[i] = r;
}
