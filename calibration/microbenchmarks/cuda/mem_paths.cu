// Memory request paths of one SM: how fast an SM can send scattered loads and stores to L2
// (line requests per cycle, partial vs whole sectors), and the HBM latency seen under load.
//
//   st_pattern / ld_pattern   every warp accesses `lines` distinct 128-byte lines per instruction
//                             (lane stride = 128/lines... see below), over a small per-CTA region
//                             that stays in L2, so nothing but the SM->L2 path limits them.
//   chase_under_load          CTA 0's first thread chases pointers through a DRAM-sized buffer
//                             while every other CTA streams reads from another buffer.
//
// The kernels are plain launches (zeros/iota buffers, scalar args), so kernsim runs the same
// code; the host program (main, compiled only by nvcc on the GPU machine) times them and prints
// one JSON document.
#include <cstdint>

// lane l of warp w accesses word  region_base + ((l * stride_words + it * 32 * stride_words) mod region_words)
// (region_words a power of two: the index is masked, no division)
// stride_words = 1: one line, whole sectors; 8: 8 lines x 4 sectors, one word each (partial);
// 32: 32 lines, one word of one sector each (partial).
extern "C" __global__ void st_pattern(unsigned* buf, unsigned stride_words, unsigned iters, unsigned region_words) {
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned* region = buf + (size_t)blockIdx.x * region_words;
  unsigned off = (warp * 32 * stride_words * 4) & (region_words - 1);
  for (unsigned it = 0; it < iters; ++it) {
    unsigned idx = (off + lane * stride_words) & (region_words - 1);
    region[idx] = it;
    off = (off + 32 * stride_words) & (region_words - 1);
  }
}

// Eight stores per thread that together fill each thread's 32-byte sector (the out[8*i+j] pattern).
extern "C" __global__ void st_fill8(unsigned* buf, unsigned iters, unsigned region_words) {
  unsigned* region = buf + (size_t)blockIdx.x * region_words;
  unsigned off = (threadIdx.x * 8) & (region_words - 1);
  for (unsigned it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) region[off + j] = it + j;
    off = (off + blockDim.x * 8) & (region_words - 1);
  }
}

extern "C" __global__ void ld_pattern(const unsigned* buf, unsigned* out, unsigned stride_words, unsigned iters,
                                      unsigned region_words) {
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned* region = buf + (size_t)blockIdx.x * region_words;
  unsigned off = (warp * 32 * stride_words * 4) & (region_words - 1);
  unsigned acc = 0;
  for (unsigned it = 0; it < iters; it += 4) {
    unsigned a0 = __ldcg(region + ((off + lane * stride_words) & (region_words - 1)));
    off = (off + 32 * stride_words) & (region_words - 1);
    unsigned a1 = __ldcg(region + ((off + lane * stride_words) & (region_words - 1)));
    off = (off + 32 * stride_words) & (region_words - 1);
    unsigned a2 = __ldcg(region + ((off + lane * stride_words) & (region_words - 1)));
    off = (off + 32 * stride_words) & (region_words - 1);
    unsigned a3 = __ldcg(region + ((off + lane * stride_words) & (region_words - 1)));
    off = (off + 32 * stride_words) & (region_words - 1);
    acc += a0 ^ a1 ^ a2 ^ a3;
  }
  if (acc == 0x12345678u) out[threadIdx.x] = acc;
}

// One store per thread at word i * stride_words of a buffer far larger than L2: every store
// writes fresh lines, so the lines reach HBM written whole (stride 1) or in part (stride > 1).
extern "C" __global__ void st_scatter(unsigned* buf, unsigned stride_words, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[(size_t)i * stride_words] = i;
}

// One load per thread at word i * stride_words (fresh lines from HBM); the sum of a block is
// written only if it is a value the zero buffer never gives, so only the loads cost.
extern "C" __global__ void ld_scatter(const unsigned* buf, unsigned* out, unsigned stride_words, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? buf[(size_t)i * stride_words] : 0u;
  if (v == 0x12345678u) out[threadIdx.x] = v;
}

// Reads n float4s: the L2 flush of the timed HBM launches (leaves the L2 clean).
extern "C" __global__ void flush_read(const float4* p, unsigned long long n, float* sink) {
  float a = 0.0f;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
    float4 v = p[i];
    a += v.x + v.y + v.z + v.w;
  }
  if (a == 1234.5f) sink[0] = a;
}

// Thread 0 of CTA 0: `steps` dependent loads through `chain` (node i holds i + jump, in words);
// all other threads stream-read `stream` (grid-stride), so HBM is busy while the chase runs.
extern "C" __global__ void chase_under_load(const unsigned* chain, unsigned chain_words, unsigned jump, unsigned steps,
                                            const float4* stream, unsigned long long stream_vec4, float* sink,
                                            unsigned long long* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned idx = 0;
    unsigned long long t0 = clock64();
    for (unsigned s = 0; s < steps; ++s) idx = (__ldcg(chain + idx) + idx + jump) & (chain_words - 1);
    unsigned long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = steps;
    out[2] = idx;
    return;
  }
  if (blockIdx.x == 0) return;
  float acc = 0.0f;
  unsigned long long n = (unsigned long long)(gridDim.x - 1) * blockDim.x;
  for (unsigned long long i = (unsigned long long)(blockIdx.x - 1) * blockDim.x + threadIdx.x; i < stream_vec4; i += n) {
    float4 v = __ldcs(stream + i);
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f) sink[0] = acc;
}

#ifndef __CUDA_ARCH__
#if defined(__NVCC__)
#include <string>

#include "standalone_host.cuh"  // CK, median_ms


// The same, with the L2 flushed before each timed launch by reading 256 MiB: the L2 is left
// holding clean lines only, so the launch pays for no write-back of the flush (a memset flush
// would leave ~50 MiB of dirty lines).
static float4* g_flush = nullptr;
static float* g_sink = nullptr;
template <class F> static double median_ms_flushed(F launch, int reps) {
  if (!g_flush) {
    CK(cudaMalloc(&g_flush, 256u << 20));
    CK(cudaMemset(g_flush, 0, 256u << 20));
    CK(cudaMalloc(&g_sink, 64));
  }
  // each launch queues behind the flush
  const std::vector<float> t =
      event_times_ms(launch, reps, [] { flush_read<<<132 * 8, 256>>>(g_flush, (256ull << 20) / 16, g_sink); }, 0);
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "stores-once") {  // one launch of each store pattern, for ncu
    unsigned* b;
    CK(cudaMalloc(&b, (size_t)1056 * 4096 * 4));
    for (unsigned stride : {1u, 8u, 32u}) st_pattern<<<1056, 256>>>(b, stride, 256, 4096);
    st_fill8<<<1056, 256>>>(b, 32, 4096);
    for (unsigned stride : {1u, 8u, 32u}) st_pattern<<<1, 1024>>>(b, stride, 1024, 32768);
    st_fill8<<<1, 1024>>>(b, 128, 32768);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "scatter-once") {  // one launch of each, for ncu
    const unsigned n = 2u << 20;
    unsigned *big, *out;
    CK(cudaMalloc(&big, (size_t)n * 32 * 4));
    CK(cudaMalloc(&out, 4096));
    CK(cudaMemset(big, 0, (size_t)n * 32 * 4));
    for (unsigned stride : {1u, 2u, 8u, 32u}) {
      st_scatter<<<n / 256, 256>>>(big, stride, n);
      ld_scatter<<<n / 256, 256>>>(big, out, stride, n);
    }
    CK(cudaDeviceSynchronize());
    return 0;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clk_khz = 0;
  CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0));
  const int sms = p.multiProcessorCount;
  const unsigned region_words = 4096;  // 16 KiB per CTA, 17 MB in all: the data stays in L2
  const int ctas = sms * 8, threads = 256;
  unsigned* buf;
  CK(cudaMalloc(&buf, (size_t)ctas * region_words * 4));
  CK(cudaMemset(buf, 0, (size_t)ctas * region_words * 4));
  unsigned* out;
  CK(cudaMalloc(&out, 4096));
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"clock_khz\": %d, \"results\": [\n", p.name, sms, clk_khz);
  const unsigned iters = 4096;
  bool first = true;
  auto emit = [&](const char* name, unsigned stride, double ms, double lines_per_inst) {
    const double warp_insts = (double)ctas * (threads / 32) * iters;
    const double per_sm_line_requests = warp_insts * lines_per_inst / sms;
    const double cycles = ms * 1e-3 * 1.98e9;
    std::printf("%s{\"name\": \"%s\", \"stride_words\": %u, \"ms\": %.4f, \"lines_per_instruction\": %.0f, "
                "\"sm_cycles_per_line_request\": %.4f}\n", first ? "" : ",", name, stride, ms, lines_per_inst,
                cycles / per_sm_line_requests);
    first = false;
  };
  for (unsigned stride : {1u, 8u, 32u}) {
    double ms = median_ms([&] { st_pattern<<<ctas, threads>>>(buf, stride, iters, region_words); }, 21);
    emit("store", stride, ms, stride == 1 ? 1 : stride == 8 ? 8 : 32);
    double ms2 = median_ms([&] { ld_pattern<<<ctas, threads>>>(buf, out, stride, iters, region_words); }, 21);
    emit("load_cg", stride, ms2, stride == 1 ? 1 : stride == 8 ? 8 : 32);
  }
  {
    double ms = median_ms([&] { st_fill8<<<ctas, threads>>>(buf, iters / 8, region_words); }, 21);
    emit("store_fill8", 8, ms, 8);
  }
  std::printf("],\n\"spec_us\": {\n");
  {  // the exact launches of calibration/microbenchmarks/cuda/specs_paths (iters = 256), event-timed
    const char* sep = "";
    for (unsigned stride : {1u, 8u, 32u}) {
      double a = median_ms([&] { st_pattern<<<ctas, threads>>>(buf, stride, 256, region_words); }, 21);
      double b = median_ms([&] { ld_pattern<<<ctas, threads>>>(buf, out, stride, 256, region_words); }, 21);
      std::printf("%s\"mp_store_s%u\": %.3f, \"mp_load_s%u\": %.3f", sep, stride, a * 1e3, stride, b * 1e3);
      sep = ",\n";
    }
    double c = median_ms([&] { st_fill8<<<ctas, threads>>>(buf, 32, region_words); }, 21);
    std::printf(",\n\"mp_store_fill8\": %.3f\n},\n", c * 1e3);
  }
  // One SM alone (one CTA of 1024 threads): what limits a single SM's line requests, as
  // opposed to the whole chip's (above). The exact launches of specs_paths/mp1_*.
  {
    const unsigned r1 = 32768, it1 = 1024;  // 128 KiB region
    std::printf("\"single_sm\": {\n");
    const char* sep = "";
    for (unsigned stride : {1u, 8u, 32u}) {
      double a = median_ms([&] { st_pattern<<<1, 1024>>>(buf, stride, it1, r1); }, 21);
      double b = median_ms([&] { ld_pattern<<<1, 1024>>>(buf, out, stride, it1, r1); }, 21);
      const double lines = 32.0 * it1 * (stride == 1 ? 1 : stride);
      std::printf("%s\"mp1_store_s%u\": {\"us\": %.3f, \"cycles_per_line_request\": %.4f}, \"mp1_load_s%u\": {\"us\": %.3f, \"cycles_per_line_request\": %.4f}",
                  sep, stride, a * 1e3, a * 1e-3 * 1.98e9 / lines, stride, b * 1e3, b * 1e-3 * 1.98e9 / lines);
      sep = ",\n";
    }
    double c = median_ms([&] { st_fill8<<<1, 1024>>>(buf, it1 / 8, r1); }, 21);
    std::printf(",\n\"mp1_store_fill8\": {\"us\": %.3f, \"cycles_per_line_request\": %.4f}\n},\n", c * 1e3,
                c * 1e-3 * 1.98e9 / (32.0 * 8 * (it1 / 8) * 8));
  }
  // Scattered stores and loads to HBM (L2 flushed first): 2M threads, one word each, at
  // stride 1/2/8/32 words. The exact launches of specs_paths/msc_*.
  {
    const unsigned n = 2u << 20;
    unsigned* big;
    CK(cudaMalloc(&big, (size_t)n * 32 * 4));
    CK(cudaMemset(big, 0, (size_t)n * 32 * 4));
    std::printf("\"scatter\": {\n");
    const char* sep = "";
    for (unsigned stride : {1u, 2u, 8u, 32u}) {
      double a = median_ms_flushed([&] { st_scatter<<<n / 256, 256>>>(big, stride, n); }, 21);
      double b = median_ms_flushed([&] { ld_scatter<<<n / 256, 256>>>(big, out, stride, n); }, 21);
      std::printf("%s\"msc_store_s%u\": %.3f, \"msc_load_s%u\": %.3f", sep, stride, a * 1e3, stride, b * 1e3);
      sep = ",\n";
    }
    std::printf("\n},\n");
    CK(cudaFree(big));
  }
  // HBM latency under load
  const unsigned chain_words = 64u << 20;  // 256 MiB
  unsigned* chain;
  CK(cudaMalloc(&chain, (size_t)chain_words * 4));
  CK(cudaMemset(chain, 0, (size_t)chain_words * 4));
  const unsigned long long stream_vec4 = (1ull << 30) / 16;  // 1 GiB
  float4* stream;
  CK(cudaMalloc(&stream, stream_vec4 * 16));
  CK(cudaMemset(stream, 0, stream_vec4 * 16));
  unsigned long long* res;
  CK(cudaMalloc(&res, 64));
  float* sink;
  CK(cudaMalloc(&sink, 64));
  std::printf("\"loaded_latency\": [\n");
  first = true;
  for (int stream_ctas : {0, sms / 4, sms, sms * 4, sms * 8}) {
    double ms = median_ms([&] { chase_under_load<<<1 + stream_ctas, 256>>>(chain, chain_words, 40503u * 1024u + 1, 2000, stream, stream_vec4, sink, res); }, 5);
    unsigned long long h[3];
    CK(cudaMemcpy(h, res, sizeof h, cudaMemcpyDeviceToHost));
    std::printf("%s{\"stream_ctas\": %d, \"ms\": %.4f, \"chase_cycles_per_step\": %.2f}\n", first ? "" : ",", stream_ctas, ms,
                (double)h[0] / (double)h[1]);
    first = false;
  }
  std::printf("]}\n");
  return 0;
}
#endif
#endif
