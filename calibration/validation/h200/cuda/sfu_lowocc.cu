// Special-function-unit (MUFU) work at low occupancy, written for the H200 validation set (issue 17).
// Each thread iterates a contracting map whose step goes through the SFU, so the result settles at
// the map's fixed point whatever the SFU's rounding (checked against numpy in float64):
//  - sfu_sin_chain: x = 0.5 * __sinf(x) + 0.25, one dependent chain (MUFU.SIN latency-bound).
//  - sfu_exp_ilp4:  four independent chains x = __expf(-x) (MUFU.EX2 behind an FMUL).
//  - sfu_rsqrt_log: x = rsqrtf(x + 1) and y = __logf(y + 2), two chains interleaved.
//  - sfu_sin_fma8:  a __sinf chain with eight dependent FMAs per step between SFU calls.
// out[t] holds the chains' sum for thread t; x0 = 0.1 + 1e-6 * t.

extern "C" __global__ void sfu_sin_chain(float* __restrict__ out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0.1f + 1e-6f * t;
  for (int i = 0; i < iters; ++i) x = 0.5f * __sinf(x) + 0.25f;
  out[t] = x;
}

extern "C" __global__ void sfu_exp_ilp4(float* __restrict__ out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = 0.1f + 1e-6f * t, b = a + 0.2f, c = a + 0.4f, d = a + 0.6f;
  for (int i = 0; i < iters; ++i) {
    a = __expf(-a);
    b = __expf(-b);
    c = __expf(-c);
    d = __expf(-d);
  }
  out[t] = a + b + c + d;
}

extern "C" __global__ void sfu_rsqrt_log(float* __restrict__ out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0.1f + 1e-6f * t, y = x;
  for (int i = 0; i < iters; ++i) {
    x = rsqrtf(x + 1.0f);
    y = __logf(y + 2.0f);
  }
  out[t] = x + y;
}

extern "C" __global__ void sfu_sin_fma8(float* __restrict__ out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0.1f + 1e-6f * t;
  for (int i = 0; i < iters; ++i) {
    float s = __sinf(x);
#pragma unroll
    for (int k = 0; k < 8; ++k) s = s * 0.9f + 0.01f;
    x = 0.5f * s + 0.25f;
  }
  out[t] = x;
}
