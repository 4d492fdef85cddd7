// L2 state left by the flush before a timed launch: what a streaming kernel pays when the flush
// *wrote* its buffer (KernelBench's `torch.empty(256 MiB).fill_(42)`: the L2 is left full of dirty
// lines) against a flush that *read* it (the L2 is left clean) and no flush at all (the previous
// run of the same launch left its own lines).
//
//   fs_relu(x, out, n)      out[i] = max(x[i], 0), one element per thread, 256-thread blocks: the
//                           KernelBench ReLU candidate's kernel (read n floats, write n floats)
//   fs_read(x, out, n)      reads n floats, writes only if one is NaN (never): read traffic only
//   fs_write(out, n)        out[i] = 1.0f: write traffic only
//   fl_fill(p, n16)         the write flush: 16-byte stores of 42 over 256 MiB, grid-stride
//   fl_read(p, n16, sink)   the read flush: 16-byte loads over 256 MiB, one store per thread
//                           only if the sum is an unlikely value
//
// The host program (main, compiled only by nvcc on the GPU machine) prints one JSON line per
// (kernel, elements, flush mode): the median, p10 and p90 event time of 30 launches, each queued
// behind its flush. `--ncu` runs each (kernel, elements, flush) once, for Nsight Compute with
// `--cache-control none` (dram__bytes_read.sum / dram__bytes_write.sum of the timed kernel).
//
//   nvcc -O3 -arch=sm_90a calibration/microbenchmarks/cuda/flush_state.cu -o fs && ./fs

extern "C" __global__ void fs_relu(const float* __restrict__ x, float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

extern "C" __global__ void fs_read(const float* __restrict__ x, float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    if (v != v) out[i] = v;
  }
}

extern "C" __global__ void fs_write(float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

extern "C" __global__ void fl_fill(uint4* p, long long n16) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    p[i] = make_uint4(42u, 0u, 42u, 0u);
}

extern "C" __global__ void fl_read(const uint4* p, long long n16, unsigned* sink) {
  unsigned s = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    s += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x9e3779b9u) sink[threadIdx.x] = s;
}

#if defined(__NVCC__)
#include <cstring>
#include <string>

#include "standalone_host.cuh"

int main(int argc, char** argv) {
  const bool ncu = argc > 1 && std::strcmp(argv[1], "--ncu") == 0;
  const long long flush_bytes = 256ll << 20;
  const long long max_n = 64ll << 20;  // 256 MiB per buffer
  float *x, *out;
  uint4* fl;
  unsigned* sink;
  CK(cudaMalloc(&x, max_n * 4));
  CK(cudaMalloc(&out, max_n * 4));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMemset(x, 0, max_n * 4));
  CK(cudaMemset(out, 0, max_n * 4));
  CK(cudaMemset(fl, 0, flush_bytes));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned fgrid = static_cast<unsigned>(sms) * 8;
  const char* modes[] = {"none", "read", "write"};
  const char* kernels[] = {"relu", "read", "write"};
  const long long sizes[] = {1ll << 20, 2ll << 20, 4ll << 20, 8ll << 20, 16ll << 20, 32ll << 20, 64ll << 20};
  for (const char* k : kernels) {
    for (long long n : sizes) {
      const unsigned grid = static_cast<unsigned>((n + 255) / 256);
      for (int m = 0; m < 3; ++m) {
        auto flush = [&] {
          if (m == 1) fl_read<<<fgrid, 256>>>(fl, flush_bytes / 16, sink);
          if (m == 2) fl_fill<<<fgrid, 256>>>(fl, flush_bytes / 16);
        };
        auto launch = [&] {
          if (std::strcmp(k, "relu") == 0) fs_relu<<<grid, 256>>>(x, out, n);
          else if (std::strcmp(k, "read") == 0) fs_read<<<grid, 256>>>(x, out, n);
          else fs_write<<<grid, 256>>>(out, n);
        };
        if (ncu) {
          flush();
          launch();
          CK(cudaDeviceSynchronize());
          std::printf("{\"kernel\": \"%s\", \"n\": %lld, \"flush\": \"%s\", \"ncu\": 1}\n", k, n, modes[m]);
          continue;
        }
        const std::vector<float> t = event_times_ms(launch, 30, flush, 3);
        std::printf("{\"kernel\": \"%s\", \"n\": %lld, \"bytes_per_buffer\": %lld, \"flush\": \"%s\", \"median_us\": %.3f, "
                    "\"p10_us\": %.3f, \"p90_us\": %.3f, \"min_us\": %.3f}\n",
                    k, n, n * 4, modes[m], t[t.size() / 2] * 1e3, t[t.size() / 10] * 1e3,
                    t[t.size() * 9 / 10] * 1e3, t[0] * 1e3);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
#endif
