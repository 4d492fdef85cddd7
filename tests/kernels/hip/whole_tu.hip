// A complete HIP program in one translation unit: host main() allocates device memory, launches
// the kernel with <<<>>>, copies back and checks. kernsim compiles only the device side; this file
// proves that a whole TU (host code, includes, main) goes through unchanged.
//   vec_add_tu: c[i] = a[i] + b[i]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <hip/hip_runtime.h>

extern "C" __global__ void vec_add_tu(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                                  \
  do {                                                                               \
    hipError_t err_ = (call);                                                       \
    if (err_ != hipSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(err_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

int main() {
  const int n = 1000003;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 1.0f - i;
  }
  float *da, *db, *dc;
  CHECK(hipMalloc(&da, n * sizeof(float)));
  CHECK(hipMalloc(&db, n * sizeof(float)));
  CHECK(hipMalloc(&dc, n * sizeof(float)));
  CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
  const int block = 256;
  vec_add_tu<<<(n + block - 1) / block, block>>>(da, db, dc, n);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) ++bad;
  std::printf("vec_add_tu: %d mismatches of %d\n", bad, n);
  CHECK(hipFree(da));
  CHECK(hipFree(db));
  CHECK(hipFree(dc));
  return bad ? 1 : 0;
}
