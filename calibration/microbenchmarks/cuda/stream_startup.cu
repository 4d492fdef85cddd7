// The start of a streaming launch on a cold L2 (issue 17, the short elementwise launches that
// kernsim predicts 15-25% fast while it gets the long ones right): where do the first
// microseconds go? Three parts, each printed as JSON lines.
//
//   1. "size" lines: one 16-byte load (ss_read) or load + store (ss_copy) per thread, 256-thread
//      CTAs, the grid covering n bytes, event-timed behind a 256 MiB read flush of another buffer
//      (the validation set's convention), median of 21, for 1..256 MiB; in three states of the
//      buffer's pages: "cold" (the flush only), "touched" (after the flush, a kernel in which every
//      CTA of 4 per SM reads word 0 of every 2 MiB page of the buffer: the pages' translations are
//      warm in every SM, about one line per page is in the L2) and "warm" (no flush: the previous
//      run's lines are in the L2 as far as they fit). cold - touched is what translation misses
//      cost a launch; touched against the long-stream rate is the HBM ramp.
//   2. "timeline" lines: one more cold run of each read size with every CTA stamping
//      %globaltimer when it starts and when its data is back (thread 0, after __syncthreads): the
//      first and last start, the last end, and the bytes whose CTAs finished in each 0.5 us bin
//      after the first start (the bandwidth of the first microseconds, CTA dispatch included).
//   3. "page_chase" lines: one thread, dependent loads (each address adds the previous value,
//      0), each pass after a read flush, five reps on their own 128 pages of a 4 GiB buffer:
//      "new_page" visits a page no run visited before on each load, "same_page_new_line" then a
//      not yet read line of each page it just visited (translation warm, data cold), "one_page"
//      128-byte-apart lines of one visited page (the plain HBM miss), "new_64k" a fresh 64 KiB
//      block each load inside 8 visited pages. clock64 cycles per load.
//
//   nvcc -O3 -arch=sm_90a calibration/microbenchmarks/cuda/stream_startup.cu -o ss && ./ss
// (calibration/validation/device/s7_stream_startup.sh runs it on the GPU machine.)

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer

extern "C" __global__ void ss_read(const uint4* __restrict__ x, long long n16, unsigned* sink, unsigned long long* stamps) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long t0 = 0;
  if (stamps && threadIdx.x == 0) t0 = mb_globaltimer();
  unsigned s = 0;
  if (i < n16) {
    const uint4 v = x[i];
    s = v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x9e3779b9u) sink[threadIdx.x] = s;
  if (stamps) {
    __syncthreads();
    if (threadIdx.x == 0) {
      stamps[2 * blockIdx.x] = t0;
      stamps[2 * blockIdx.x + 1] = mb_globaltimer();
    }
  }
}

extern "C" __global__ void ss_copy(const uint4* __restrict__ x, uint4* __restrict__ y, long long n16) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n16) y[i] = x[i];
}

// every CTA reads word 0 of every 2 MiB page of [p, p + bytes)
extern "C" __global__ void ss_touch(const unsigned* p, long long bytes, unsigned* sink) {
  unsigned s = 0;
  for (long long off = static_cast<long long>(threadIdx.x) << 21; off < bytes; off += static_cast<long long>(blockDim.x) << 21)
    s += p[off / 4];
  if (s == 0x9e3779b9u) sink[threadIdx.x] = s;
}

extern "C" __global__ void ss_flush(const uint4* p, long long n16, unsigned* sink) {
  unsigned s = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    s += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x9e3779b9u) sink[threadIdx.x] = s;
}

// One thread: `n` dependent loads at base + offs[k] (bytes); out[0] = cycles, out[1] = the sum.
extern "C" __global__ void ss_chase(const unsigned* base, const long long* offs, int n, unsigned long long* out) {
  unsigned v = 0;
  const unsigned long long t0 = mb_clock64();
  for (int k = 0; k < n; ++k) v += base[(offs[k] + v) / 4];
  const unsigned long long t1 = mb_clock64();
  out[0] = t1 - t0;
  out[1] = v;
}

#if defined(__NVCC__)
#include <cstring>
#include <string>

#include "standalone_host.cuh"

int main() {
  const long long flush_bytes = 256ll << 20, max_bytes = 256ll << 20, chase_bytes = 4ll << 30;
  uint4 *x, *y, *fl;
  unsigned *sink, *cbuf;
  unsigned long long *stamps, *cout;
  long long* offs;
  CK(cudaMalloc(&x, max_bytes));
  CK(cudaMalloc(&y, max_bytes));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&cbuf, chase_bytes));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&stamps, (max_bytes / 4096) * 2 * 8));
  CK(cudaMalloc(&cout, 16));
  CK(cudaMalloc(&offs, 4096 * 8));
  CK(cudaMemset(x, 0, max_bytes));
  CK(cudaMemset(y, 0, max_bytes));
  CK(cudaMemset(fl, 0, flush_bytes));
  CK(cudaMemset(cbuf, 0, chase_bytes));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned fgrid = static_cast<unsigned>(sms) * 8;
  auto flush = [&] { ss_flush<<<fgrid, 256>>>(fl, flush_bytes / 16, sink); };
  const char* states[] = {"cold", "touched", "warm"};
  // 1. launch times by size and page state
  for (int k = 0; k < 2; ++k) {
    for (long long mb = 1; mb <= 256; mb *= 2) {
      const long long bytes = mb << 20, n16 = bytes / 16;
      const unsigned grid = static_cast<unsigned>((n16 + 255) / 256);
      for (int st = 0; st < 3; ++st) {
        auto before = [&] {
          if (st < 2) flush();
          if (st == 1) {
            ss_touch<<<static_cast<unsigned>(sms) * 4, 128>>>(reinterpret_cast<const unsigned*>(x), bytes, sink);
            if (k == 1) ss_touch<<<static_cast<unsigned>(sms) * 4, 128>>>(reinterpret_cast<const unsigned*>(y), bytes, sink);
          }
        };
        auto launch = [&] {
          if (k == 0) ss_read<<<grid, 256>>>(x, n16, sink, nullptr);
          else ss_copy<<<grid, 256>>>(x, y, n16);
        };
        const std::vector<float> t = event_times_ms(launch, 21, before, 3);
        std::printf("{\"part\": \"size\", \"kernel\": \"%s\", \"mib\": %lld, \"ctas\": %u, \"state\": \"%s\", \"median_us\": %.3f, "
                    "\"p10_us\": %.3f, \"p90_us\": %.3f}\n",
                    k == 0 ? "read" : "copy", mb, grid, states[st], t[t.size() / 2] * 1e3, t[t.size() / 10] * 1e3,
                    t[t.size() * 9 / 10] * 1e3);
        std::fflush(stdout);
      }
    }
  }
  // 2. timelines of cold reads
  for (long long mb = 1; mb <= 256; mb *= 2) {
    const long long bytes = mb << 20, n16 = bytes / 16;
    const unsigned grid = static_cast<unsigned>((n16 + 255) / 256);
    flush();
    ss_read<<<grid, 256>>>(x, n16, sink, stamps);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> s(2 * static_cast<std::size_t>(grid));
    CK(cudaMemcpy(s.data(), stamps, s.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long first = ~0ull, last_start = 0, last_end = 0;
    for (unsigned b = 0; b < grid; ++b) {
      first = std::min(first, s[2 * b]);
      last_start = std::max(last_start, s[2 * b]);
      last_end = std::max(last_end, s[2 * b + 1]);
    }
    std::vector<double> bins(static_cast<std::size_t>((last_end - first) / 500 + 1), 0.0);
    for (unsigned b = 0; b < grid; ++b) bins[static_cast<std::size_t>((s[2 * b + 1] - first) / 500)] += 256.0 * 16.0;
    std::printf("{\"part\": \"timeline\", \"mib\": %lld, \"ctas\": %u, \"last_start_ns\": %llu, \"last_end_ns\": %llu, \"gbps_per_500ns\": [",
                mb, grid, last_start - first, last_end - first);
    for (std::size_t i = 0; i < bins.size() && i < 200; ++i) std::printf("%s%.0f", i ? ", " : "", bins[i] / 500.0);
    std::printf("]}\n");
    std::fflush(stdout);
  }
  // 3. one thread's dependent loads after a read flush; rep r uses its own 128 pages of the 4 GiB
  // buffer, so "new_page" meets pages no earlier run visited
  const int n = 128;
  std::vector<long long> o(static_cast<std::size_t>(n));
  const char* patterns[] = {"new_page", "same_page_new_line", "one_page", "new_64k"};
  std::vector<double> c[4];
  for (int r = 0; r < 5; ++r) {
    const long long page0 = 128ll * r;
    for (int pat = 0; pat < 4; ++pat) {
      for (int k = 0; k < n; ++k) {
        long long off = 0;
        if (pat == 0) off = (page0 + k) << 21;
        if (pat == 1) off = ((page0 + k) << 21) + 4096;
        if (pat == 2) off = (page0 << 21) + 8192 + 128ll * k;
        if (pat == 3) off = ((page0 + k % 8) << 21) + ((static_cast<long long>(k / 8) + 1) << 16);
        o[static_cast<std::size_t>(k)] = off;
      }
      CK(cudaMemcpy(offs, o.data(), n * 8, cudaMemcpyHostToDevice));
      flush();
      ss_chase<<<1, 1>>>(cbuf, offs, n, cout);
      unsigned long long h[2];
      CK(cudaMemcpy(h, cout, 16, cudaMemcpyDeviceToHost));
      c[pat].push_back(static_cast<double>(h[0]) / n);
    }
  }
  for (int pat = 0; pat < 4; ++pat) {
    std::sort(c[pat].begin(), c[pat].end());
    std::printf("{\"part\": \"page_chase\", \"pattern\": \"%s\", \"loads\": %d, \"cycles_per_load_median\": %.1f, \"min\": %.1f, "
                "\"max\": %.1f}\n",
                patterns[pat], n, c[pat][c[pat].size() / 2], c[pat].front(), c[pat].back());
  }
  return 0;
}
#endif
