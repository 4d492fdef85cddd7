// HIP port of tests/kernels/cuda/stream.cu (same kernels, same launch semantics).
// Streaming kernels in the style of STREAM: copy, scale, triad and saxpy, each in the scalar
// one-element-per-thread form and, where engineers usually vectorise, a float4 form.
// Memory-bound; every element is touched once. The float4 kernels handle n % 4 tail elements
// with a scalar loop in the last thread, so n need not be a multiple of 4.
#include <hip/hip_runtime.h>

// out[i] = in[i]
extern "C" __global__ void copy_f32(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// out[i] = in[i], 16 bytes per thread; launch ceil(n/4) threads.
extern "C" __global__ void copy_f32x4(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base = i * 4;
  if (base + 3 < n) {
    reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
  } else {
    for (int j = base; j < n; ++j) out[j] = in[j];
  }
}

// out[i] = q * in[i]
extern "C" __global__ void scale_f32(const float* __restrict__ in, float* __restrict__ out, float q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = q * in[i];
}

// a[i] = b[i] + q * c[i]  (STREAM triad)
extern "C" __global__ void triad_f32(const float* __restrict__ b, const float* __restrict__ c, float* __restrict__ a,
                                     float q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + q * c[i];
}

// Triad with float4 loads and stores; launch ceil(n/4) threads.
extern "C" __global__ void triad_f32x4(const float* __restrict__ b, const float* __restrict__ c, float* __restrict__ a,
                                       float q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base = i * 4;
  if (base + 3 < n) {
    float4 vb = reinterpret_cast<const float4*>(b)[i];
    float4 vc = reinterpret_cast<const float4*>(c)[i];
    float4 va;
    va.x = vb.x + q * vc.x;
    va.y = vb.y + q * vc.y;
    va.z = vb.z + q * vc.z;
    va.w = vb.w + q * vc.w;
    reinterpret_cast<float4*>(a)[i] = va;
  } else {
    for (int j = base; j < n; ++j) a[j] = b[j] + q * c[j];
  }
}

// y = a*x + y with a grid-stride loop: any grid size covers any n.
extern "C" __global__ void saxpy_grid_stride(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}
