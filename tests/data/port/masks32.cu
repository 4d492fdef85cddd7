// Lane masks narrower than 64 bits that no line pattern can see, for the CUDA-on-AMD port's
// compiler-side check (the port header's diagnose_if on *_sync overloads, docs/cuda_on_amd.md):
// the mask comes from a kernel parameter, a struct member, a pointer, a function parameter or a
// run-time expression. tests/unit/cuda_port_test.cpp expects a warp32-mask warning on the lines
// marked `warned` and none on the others.
struct Opts {
  unsigned mask;
  int n;
};

__device__ float xor1(float v, unsigned m) { return v + __shfl_xor_sync(m, v, 1); }  // warned: a 32-bit parameter

extern "C" __global__ void masks32(float* x, unsigned kmask, Opts o, const unsigned* masks, int n) {
  float v = x[threadIdx.x];
  v = xor1(v, 3u);
  v += __ballot_sync(kmask, v > 0) ? 1.0f : 0.0f;  // warned: a kernel parameter
  v += __any_sync(o.mask, v > 1);                  // warned: a struct member
  v += __all_sync(masks[n], v > 2);                // warned: read through a pointer
  v += __shfl_down_sync((1u << n) - 1, v, 1);      // warned: built at run time
  v += __shfl_sync(-1, v, 0);
  v += __shfl_sync(__activemask(), v, 0);
  __syncwarp(__activemask());
  x[threadIdx.x] = v;
}
