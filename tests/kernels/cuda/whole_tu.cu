// A complete CUDA program in one translation unit: host main() allocates device memory, launches
// the kernel with <<<>>>, copies back and checks. kernsim compiles only the device side; this file
// proves that a whole TU (host code, includes, main) goes through unchanged.
//   vec_add_tu: c[i] = a[i] + b[i]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

extern "C" __global__ void vec_add_tu(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
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
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const int block = 256;
  vec_add_tu<<<(n + block - 1) / block, block>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) ++bad;
  std::printf("vec_add_tu: %d mismatches of %d\n", bad, n);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return bad ? 1 : 0;
}
