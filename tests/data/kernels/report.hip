// The HIP twin of report.cu's hot_line for the AMDGCN line-info test (tests/unit/report_test.cpp,
// LineInfo.AHipKernelsHotLoopBodyIsTheFirstLineOfItsCodeObjectsLineTable).
#include <hip/hip_runtime.h>

extern "C" __global__ void hot_line(const float* x, float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = x[i];
  for (int k = 0; k < iters; ++k)
    acc = acc * 0.999f + __sinf(acc) * 0.5f + static_cast<float>(k);  // HOT
  out[i] = acc;
}
