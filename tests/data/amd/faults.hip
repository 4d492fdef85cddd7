// Kernels that fault, for the AMD error-path tests (tests/unit/amd_functional_test.cpp).
#include <hip/hip_runtime.h>

// Writes out[i] for i < n: with n past the buffer's end, work-items past it write out of bounds.
extern "C" __global__ void oob_write(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

// Work-item 5 of every block reads one element past the end of `in`.
extern "C" __global__ void oob_read_one(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = threadIdx.x == 5 ? n : i;
  if (i < n) out[i] = in[j] * 2.0f;
}

// Reads through a pointer argument that may be null.
extern "C" __global__ void null_deref(const float* p, float* out) {
  out[threadIdx.x] = p[threadIdx.x];
}

// Never terminates, and the endless-loop watch cannot prove it: the spin counts its iterations,
// so the wave's registers never repeat; the instruction and wall-time limits stop it. (clang turns
// faults.cu's atomicAdd(flag, 0) spin into a plain load for gfx942, which the watch does catch.)
extern "C" __global__ void endless(int* flag) {
  unsigned n = 0;
  while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) ++n;
  if (n == 7u) flag[0] = 2;  // keeps n live
}

// Never terminates, and provably so: a plain load of a flag nothing writes.
extern "C" __global__ void spin_on_flag(int* flag) {
  while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) {
  }
}

// Wave 0 waits on an LDS flag that wave 3 (threads 192-255) sets after counting to n; every
// thread then writes what it saw.
extern "C" __global__ void wait_for_last_wave(int* out, int n) {
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 192) {
    int c = 0;
    for (int i = 0; i < n; ++i) c += (i & 1) ? 1 : 1;
    flag = c;
  }
  int seen = 0;
  if (threadIdx.x < 64 || threadIdx.x >= 192)
    while ((seen = flag) == 0) {
    }
  out[threadIdx.x] = (threadIdx.x < 64 || threadIdx.x >= 192) ? seen : n;
}

// Indexes a 64-float LDS array with a work-item-controlled index.
extern "C" __global__ void lds_oob(const int* idx, float* out) {
  __shared__ float s[64];
  s[threadIdx.x & 63] = (float)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[idx[threadIdx.x]];
}
