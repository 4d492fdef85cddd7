// CTA launch cost by CTA shape: empty kernels and one-store-per-thread kernels over grids of
// 1056..33792 CTAs of 32..1024 threads. Tells a per-CTA dispatch cost from a per-warp one.
// Timed like the validation launches: each launch queued behind an L2 flush (a 256 MiB read),
// CUDA events around the launch, median of 21. The exact launches of specs_launch/*.json.
extern "C" __global__ void ls_empty() {}

extern "C" __global__ void ls_store(unsigned* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

extern "C" __global__ void ls_flush_read(const float4* p, unsigned long long n, float* sink) {
  float a = 0.0f;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
    float4 v = p[i];
    a += v.x + v.y + v.z + v.w;
  }
  if (a == 1234.5f) sink[0] = a;
}

#ifndef __CUDA_ARCH__
#if defined(__NVCC__)
#include "standalone_host.cuh"  // CK, median_ms

int main() {
  float4* fl;
  float* sink;
  CK(cudaMalloc(&fl, 256u << 20));
  CK(cudaMemset(fl, 0, 256u << 20));
  CK(cudaMalloc(&sink, 64));
  unsigned* out;
  CK(cudaMalloc(&out, (size_t)33792 * 1024 * 4));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::printf("{\"device_note\": \"event time of one launch queued behind a 256 MiB read flush; median of 21\", \"us\": {\n");
  const char* sep = "";
  for (int store = 0; store < 2; ++store)
    for (int grid : {1056, 8448, 33792})
      for (int block : {32, 128, 256, 1024}) {
        std::vector<float> t;
        for (int r = 0; r < 22; ++r) {
          ls_flush_read<<<132 * 8, 256>>>(fl, (256ull << 20) / 16, sink);
          CK(cudaEventRecord(a));
          if (store) ls_store<<<grid, block>>>(out); else ls_empty<<<grid, block>>>();
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float ms;
          CK(cudaEventElapsedTime(&ms, a, b));
          if (r) t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        std::printf("%s\"ls_%s_%dx%d\": %.3f", sep, store ? "store" : "empty", grid, block, t[t.size() / 2] * 1e3);
        sep = ",\n";
      }
  std::printf("\n}}\n");
  return 0;
}
#endif
#endif
