// wmma fragment loads from global memory, over and over from the same L1-resident 16x16 tile
// whose rows lie `ld` halves apart (one 128-byte line per row when ld = 64): the cost is the L1's
// line lookups of ptxas's LDG instructions (tests/unit/nvidia_timing_test.cpp).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void wmma_load_loop(const __half* a, float* out, int iters, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> f;
  float acc = 0.0f;
  for (int i = 0; i < iters; ++i) {
    wmma::load_matrix_sync(f, a + (i & 1) * 16, ld);
    acc += __half2float(f.x[0]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
