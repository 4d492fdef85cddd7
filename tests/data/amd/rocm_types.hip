// ROCm's HIP spellings that kernsim's HIP headers give (frontends/hip_include): the vector types
// as classes (HIP_vector_type<T, N>: N-component and braced constructors, Native_vec_ and .data,
// component-wise operators with scalars), bf16 and half math under ROCm's names, and the fp8 pair
// and quad types. One lane per row of 16 output floats; the test computes each value itself.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_fp8.h>

__device__ int2 pass(int2 v) { return v; }  // a braced argument: pass({a, b})

extern "C" __global__ void rocm_types(const float* in, float* out) {
  const int l = threadIdx.x;
  const float x = in[l];
  float* o = out + 16 * l;
  int4 i4 = int4(l, 2 * l, 3, -l);  // four components, functional-cast style
  int2 i2 = pass({l, 7});
  float4 f = {x, 1, 2u, 3.0};       // braced, each converted to float
  f = f * 2.0f + float4(1.0f) - 1.0f / f;
  float4::Native_vec_ nv = f.data;  // the clang vector under the class
  nv = nv * 0.5f;
  const float4 g(nv);
  o[0] = (float)(i4.x + i4.y + i4.z + i4.w);  // l + 2l + 3 - l
  o[1] = (float)(i2.x * i2.y);                // 7 l
  o[2] = f.x;                                 // 2x + 1 - 1/x
  o[3] = f.w;                                 // 3*2 + 1 - 1/3
  o[4] = g.y;                                 // (1*2 + 1 - 1) / 2
  o[5] = (i4 == int4(l, 2 * l, 3, -l)) ? 1.0f : 0.0f;
  const __hip_bfloat162 b2 = __float22bfloat162_rn(make_float2(x, -x));
  const __hip_bfloat162 e = h2exp2(b2);
  o[6] = __low2float(e);                       // bf16(2^bf16(x))
  o[7] = __high2float(__habs2(b2));            // |bf16(-x)|
  o[8] = __bfloat162float(__hmax2(b2, __float2bfloat162_rn(0.0f)).y);  // max(bf16(-x), 0)
  o[9] = __half2float(hlog2(__float2half(x + 2.0f)));                  // half(log2(half(x + 2)))
  const __hip_fp8x4_e4m3 q(make_float4(x, 2.0f * x, 448.0f, 1000.0f));
  const float4 back = q;
  o[10] = back.x;  // e4m3(x)
  o[11] = back.z;  // 448: the largest finite e4m3
  o[12] = back.w;  // 1000 saturates to 448
  o[13] = (float)(q.__x & 0xff);  // byte 0 is element 0
  const __hip_fp8x2_e4m3 p(make_float2(-1.5f, 0.25f));
  o[14] = (float)p.__x;  // e4m3 -1.5 = 0xbc, 0.25 = 0x28: 0x28bc
  o[15] = ((float2)p).x;
}
