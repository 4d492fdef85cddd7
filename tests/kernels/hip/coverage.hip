// HIP-only kernels that reach instruction sequences the ported corpus does not: 64-bit integer
// division and remainder (long v_mad_u64_u32 / carry chains), 64-bit bit operations, float and
// integer atomics on global memory and LDS (CAS loops, inc/dec wrap-around), the rest of the math
// library (pow, erf, cbrt, fmod, rounding modes, sincos, f64 pow/tanh/cbrt/fmod), f16 and bf16
// conversions and arithmetic, and the DPP / swizzle builtins.
//  - cov_int:     8 i64 results and 4 u32 results per element (see the stores)
//  - cov_atomics: one accumulator set updated by every work-item (order-independent results)
//  - cov_math:    12 f32, 6 f64, 2 f16 and 2 bf16 results per element
//  - cov_wave:    4 results per element: quad_perm [2,3,0,1], swizzle xor 1, 64-bit __shfl_xor 3,
//                 and row_shr DPP multiplied by zero (the value itself)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

extern "C" __global__ void cov_int(const long long* __restrict__ a, const int* __restrict__ b, long long* __restrict__ o,
                                   unsigned* __restrict__ u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i];
  int y = b[i] | 1;
  long long* r = o + 8 * (size_t)i;
  r[0] = x / y;
  r[1] = x % y;
  r[2] = (unsigned long long)x / (unsigned)((y & 0x7fffffff) | 1);
  r[3] = __popcll(x) + __clzll(x) + __ffsll(x);
  r[4] = x >> (y & 63);
  r[5] = (unsigned long long)x >> (y & 31);
  r[6] = (long long)__umul64hi(x, y);
  r[7] = __mul64hi(x, x);
  unsigned* v = u + 4 * (size_t)i;
  v[0] = (unsigned)y / 7u;
  v[1] = y % 13;
  v[2] = __builtin_amdgcn_readfirstlane(y);
  v[3] = min(y, 5) * max(y, -3);
}

extern "C" __global__ void cov_atomics(float* f, int* c, unsigned* u, double* d, int n) {
  __shared__ float s[64];
  __shared__ int si[4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 64) s[threadIdx.x] = 0;
  if (threadIdx.x < 4) si[threadIdx.x] = 0;
  __syncthreads();
  if (i < n) {
    atomicMax(f, (float)i);
    atomicMin(f + 1, -(float)i);
    atomicExch(c, 42);
    atomicCAS(c + 1, 0, 7);
    atomicInc(u, 100u);
    atomicDec(u + 1, 50u);
    atomicAdd(d, 0.5);
    atomicSub(c + 2, 3);
    atomicAnd(c + 3, ~(1 << (i & 31)));
    atomicOr(c + 4, 1 << (i & 31));
    atomicXor(c + 5, i);
    atomicAdd(&s[i & 63], 1.0f);
    atomicMax(&si[0], i);
    atomicMin(&si[1], -i);
    atomicExch(&si[2], 7);
    atomicCAS(&si[3], 0, 1);
  }
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(f + 2, s[threadIdx.x]);
  if (threadIdx.x == 0) atomicAdd(c + 6, si[0] + si[1] + si[2] + si[3]);
}

extern "C" __global__ void cov_math(const float* __restrict__ x, const double* __restrict__ y, float* __restrict__ o,
                                    double* __restrict__ od, __half* __restrict__ h, __hip_bfloat16* __restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  double w = y[i];
  float* r = o + 12 * (size_t)i;
  r[0] = powf(fabsf(v), 1.3f);
  r[1] = erff(v);
  r[2] = cbrtf(v);
  r[3] = atan2f(v, 0.7f);
  r[4] = fmodf(v * 10.f, 3.f);
  r[5] = floorf(v * 7.f) + ceilf(v * 3.f) + roundf(v * 5.f) + truncf(v * 11.f);
  r[6] = (float)__float2int_rn(v * 100.f);
  r[7] = log1pf(fabsf(v));
  r[8] = expm1f(v);
  r[9] = hypotf(v, 2.f);
  float s, c;
  sincosf(v, &s, &c);
  r[10] = s + c;
  r[11] = v / (v * v + 0.5f);
  double* rd = od + 6 * (size_t)i;
  rd[0] = w / (w * w + 0.25);
  rd[1] = pow(fabs(w), 0.7);
  rd[2] = tanh(w);
  rd[3] = cbrt(w);
  rd[4] = fmod(w * 9, 2.5);
  rd[5] = (double)(long long)(w * 1e6);
  __half hv = __float2half(v);
  h[2 * i] = __hfma(hv, hv, __float2half(0.25f));
  h[2 * i + 1] = hsqrt(__habs(hv));
  b[2 * i] = __float2bfloat16(v * 3.3f);
  b[2 * i + 1] = __hadd(__float2bfloat16(v), __float2bfloat16((float)w));
}

extern "C" __global__ void cov_wave(const float* __restrict__ x, float* __restrict__ o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  float s = v + __int_as_float(__builtin_amdgcn_mov_dpp(__float_as_int(v), 0x111, 0xf, 0xf, false)) * 0.0f;
  int q = __builtin_amdgcn_update_dpp(0, __float_as_int(v), 0x4e, 0xf, 0xf, false);
  int sw = __builtin_amdgcn_ds_swizzle(__float_as_int(v), 0x041f);
  double dd = __shfl_xor((double)v, 3);
  if (i < n) {
    float* r = o + 4 * (size_t)i;
    r[0] = __int_as_float(q);
    r[1] = __int_as_float(sw);
    r[2] = (float)dd;
    r[3] = s;
  }
}

// CUDA-compatible helpers of kernsim's HIP headers: dynamic shared memory (both spellings),
// __ldg, __activemask, __shfl_down_sync, clocks, non-temporal loads and stores, workgroup votes
// (__syncthreads_count/and/or), frexpf, modff, sincospif, normcdff, rnorm3df, double halves and
// __rhadd. 12 results per element.
extern "C" __global__ void cov_misc(const float* __restrict__ x, float* __restrict__ o, int n) {
  extern __shared__ float dyn[];
  HIP_DYNAMIC_SHARED(float, dyn2)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? __ldg(&x[i]) : 0.f;
  dyn[threadIdx.x] = v;
  __syncthreads();
  float w = dyn2[(threadIdx.x + 1) % blockDim.x];
  unsigned long long m = __activemask();
  float s = __shfl_down_sync(0xffffffffffffffffull, v, 1);
  long long t0 = clock64();
  long long t1 = wall_clock64();
  float nt = __builtin_nontemporal_load(&x[i % n]);
  int cnt = __syncthreads_count(v > 100.f);
  int all = __syncthreads_and(v >= 0.f);
  int any = __syncthreads_or(v > 200.f);
  int e;
  float fr = frexpf(v + 1.f, &e);
  float ip;
  float fp = modff(v * 0.37f, &ip);
  float sp, cp;
  sincospif(v * 0.01f, &sp, &cp);
  if (i < n) {
    float* r = o + 12 * (size_t)i;
    r[0] = w + s;
    r[1] = (float)__popcll(m);
    r[2] = (t1 >= 0 && t0 >= 0) ? 1.f : 0.f;
    __builtin_nontemporal_store(nt, &r[3]);
    r[4] = (float)cnt;
    r[5] = (float)(all * 2 + any);
    r[6] = fr * 100 + e;
    r[7] = fp + ip * 10;
    r[8] = sp + cp;
    r[9] = normcdff(v * 0.01f);
    r[10] = rnorm3df(v, 1.f, 2.f);
    r[11] = (float)__double2hiint(__hiloint2double(i, 7)) + __rhadd(i, 1);
  }
}
