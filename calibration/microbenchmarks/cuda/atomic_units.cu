// How the L2's atomic units serve global atomics: throughput per address, per line, per 512-byte
// span and across spans, for red/atom add.u32, red/atom add.f32 and atom.cas.b32, from one SM
// and from every SM. Written for issue 17 (atomics on few lines: the grown set's
// atomic_f32_8lines_16M is +50% in kernsim, atomic_f32_64lines_16M -37%, atomic_u32_4096addr_16M
// -29%), so that the model's structure is chosen from data, not fitted to those launches.
//
// One kernel per operation. A warp's instruction `it` sends its active lanes (lanes 0 .. lanes-1)
// to K = per_req distinct addresses of a set of `naddr` addresses `stride` words apart: lane l
// goes to slot (base + l % K) mod naddr, base = (warp + it) * K mod naddr. So lanes l, l + K, ...
// share an address within a request (as `out[i % naddr]` does in the validation kernels), and
// successive instructions and warps go round the whole set. Patterns (the `pattern` field):
//   addr1_lane1      one lane, one address: each request is one op on the same word
//   addr1_warp       32 lanes on one word (same-address ops inside a request)
//   sameK_Nlines     K = N addresses one per line (stride 32), 32/N lanes each (the 8lines launch)
//   sameK_1line      K addresses in one line (stride 1), 32/K lanes each
//   packed_L         L lines of 32 consecutive words, a whole line per request (4 sectors);
//                    L = 1, 2, 4 lie in one 512-byte span, 8 in 1 KiB, ... (per line / per span)
//   sector_L         lanes 0-7 only: one sector per request, the set L lines of 8 words each
//   perline_N        one address per line (stride 32), 32 lines per request (the 64lines launch)
//   perspan_N        one address per 512-byte span (stride 128), 32 spans per request
//   per1k_N          one address per KiB (stride 256)
//   distinct         every lane its own word, 2^20 words (no contention)
// Grids: "all" = 2 CTAs of 512 threads per SM (32 warps per SM, every SM); "one" = one CTA of
// 1024 threads (one SM). The return value of atom/cas is summed and kept (never a dependence
// between successive atomics of a thread). cas compares against a value that rarely matches
// (it is still a read-modify-write at the L2).
//
// Each case: the buffer zeroed, a sizing launch, `iters` scaled so that a launch takes ~1.5 ms,
// one warm-up, 7 timed launches (CUDA events), median. Atomic targets stay L2-resident (at most
// 4 MiB), so no flush. ops_per_clk = thread ops / (median time x measured SM clock);
// req_per_clk = warp instructions per clock; lines_per_req / sectors_per_req from the addresses.
// The SM clock is measured twice (a clock64 spin timed by events) around the run.
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o atomic_units atomic_units.cu
// Run:   ./atomic_units > atomic_units.json        (prints one JSON object; ~20-40 s)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::printf("{\"error\": \"%s at line %d\"}\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

enum Op { kRedU32 = 0, kAtomU32 = 1, kRedF32 = 2, kAtomF32 = 3, kCasU32 = 4 };
static const char* const kOpNames[] = {"red.add.u32", "atom.add.u32", "red.add.f32", "atom.add.f32", "atom.cas.b32"};

template <int OP>
__global__ void __launch_bounds__(1024) atom_pattern(unsigned* buf, unsigned naddr, unsigned stride, unsigned per_req,
                                                     unsigned lanes, unsigned iters, unsigned* sink) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned base = static_cast<unsigned>((static_cast<unsigned long long>(warp) * per_req) % naddr);
  const unsigned off = lane % per_req;
  const bool on = lane < lanes;
  unsigned acc = 0;
  for (unsigned it = 0; it < iters; ++it) {
    unsigned slot = base + off;
    if (slot >= naddr) slot -= naddr;
    unsigned* p = buf + static_cast<size_t>(slot) * stride;
    if (on) {
      if (OP == kRedU32) {
        asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(1u) : "memory");
      } else if (OP == kAtomU32) {
        unsigned r;
        asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(1u) : "memory");
        acc += r;
      } else if (OP == kRedF32) {
        asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(1.0f) : "memory");
      } else if (OP == kAtomF32) {
        float r;
        asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(r) : "l"(p), "f"(1.0f) : "memory");
        acc += __float_as_uint(r);
      } else {
        unsigned r;
        asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;"
                     : "=r"(r)
                     : "l"(p), "r"(0x7fff0000u + it), "r"(it)
                     : "memory");
        acc += r;
      }
    }
    base += per_req;
    if (base >= naddr) base -= naddr;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;  // keeps the returns; practically never written
}

struct Pattern {
  std::string name;
  unsigned naddr, stride, per_req, lanes;
};

static void launch(int op, int grid, int block, unsigned* buf, const Pattern& p, unsigned iters, unsigned* sink) {
  switch (op) {
    case kRedU32:
      atom_pattern<kRedU32><<<grid, block>>>(buf, p.naddr, p.stride, p.per_req, p.lanes, iters, sink);
      break;
    case kAtomU32:
      atom_pattern<kAtomU32><<<grid, block>>>(buf, p.naddr, p.stride, p.per_req, p.lanes, iters, sink);
      break;
    case kRedF32:
      atom_pattern<kRedF32><<<grid, block>>>(buf, p.naddr, p.stride, p.per_req, p.lanes, iters, sink);
      break;
    case kAtomF32:
      atom_pattern<kAtomF32><<<grid, block>>>(buf, p.naddr, p.stride, p.per_req, p.lanes, iters, sink);
      break;
    default:
      atom_pattern<kCasU32><<<grid, block>>>(buf, p.naddr, p.stride, p.per_req, p.lanes, iters, sink);
      break;
  }
}

__global__ void spin(unsigned long long cycles, unsigned long long* out) {
  const unsigned long long t0 = clock64();
  unsigned long long t = t0;
  while (t - t0 < cycles) t = clock64();
  if (threadIdx.x == 0) out[0] = t - t0;
}

static double event_ms(cudaEvent_t a, cudaEvent_t b) {
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// SM clock in MHz: a clock64 spin of 20 M cycles timed by events
static double measure_clock_mhz(cudaEvent_t a, cudaEvent_t b, unsigned long long* dev) {
  const unsigned long long cycles = 20000000ull;
  spin<<<1, 32>>>(cycles / 10, dev);
  CK(cudaEventRecord(a));
  spin<<<1, 32>>>(cycles, dev);
  CK(cudaEventRecord(b));
  const double ms = event_ms(a, b);
  unsigned long long got = 0;
  CK(cudaMemcpy(&got, dev, sizeof(got), cudaMemcpyDeviceToHost));
  return static_cast<double>(got) / (ms * 1e3);
}

// distinct 128-byte lines and 32-byte sectors one request (instruction 0 of warp 0) touches
static void request_shape(const Pattern& p, int& lines, int& sectors) {
  std::set<unsigned long long> l, s;
  for (unsigned lane = 0; lane < p.lanes; ++lane) {
    unsigned slot = lane % p.per_req;
    if (slot >= p.naddr) slot -= p.naddr;
    const unsigned long long byte = 4ull * slot * p.stride;
    l.insert(byte / 128);
    s.insert(byte / 32);
  }
  lines = static_cast<int>(l.size());
  sectors = static_cast<int>(s.size());
}

static std::vector<Pattern> patterns() {
  std::vector<Pattern> v;
  v.push_back({"addr1_lane1", 1, 1, 1, 1});
  v.push_back({"addr1_warp", 1, 1, 1, 32});
  for (unsigned n : {2u, 4u, 8u, 16u})
    v.push_back({"same" + std::to_string(32 / n) + "_" + std::to_string(n) + "lines", n, 32, n, 32});
  for (unsigned k : {8u, 32u})
    v.push_back({"same" + std::to_string(32 / k) + "_1line_" + std::to_string(k) + "addr", k, 1, k, 32});
  for (unsigned L : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 1024u})
    v.push_back({"packed_" + std::to_string(L), 32 * L, 1, 32, 32});
  for (unsigned L : {1u, 4u, 16u, 64u, 256u}) v.push_back({"sector_" + std::to_string(L), 8 * L, 1, 8, 8});
  for (unsigned n : {32u, 64u, 128u, 256u, 1024u, 4096u}) v.push_back({"perline_" + std::to_string(n), n, 32, 32, 32});
  for (unsigned n : {32u, 64u, 256u}) v.push_back({"perspan_" + std::to_string(n), n, 128, 32, 32});
  for (unsigned n : {32u, 64u}) v.push_back({"per1k_" + std::to_string(n), n, 256, 32, 32});
  v.push_back({"distinct", 1u << 20, 1, 32, 32});
  return v;
}

// the patterns the return / float-return / CAS forms and the one-SM grid run (a subset)
static bool in_subset(const std::string& n) {
  static const char* const keep[] = {"addr1_lane1", "addr1_warp",   "same4_8lines", "same1_1line_32addr",
                                     "packed_1",    "packed_4",     "packed_32",    "sector_1",
                                     "perline_64",  "perline_1024", "distinct"};
  for (const char* k : keep)
    if (n == k) return true;
  return false;
}

int main() {
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  const size_t buf_bytes = size_t{4} << 20;  // 4 MiB: every pattern's set fits
  unsigned* buf = nullptr;
  unsigned* sink = nullptr;
  unsigned long long* clk = nullptr;
  CK(cudaMalloc(&buf, buf_bytes));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&clk, 64));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const double mhz0 = measure_clock_mhz(a, b, clk);
  std::printf("{\"benchmark\": \"atomic_units\", \"device\": \"%s\", \"sms\": %d, \"clock_mhz_before\": %.1f,\n",
              prop.name, sms, mhz0);
  std::printf(" \"results\": [\n");
  bool first = true;
  const double target_ms = 1.5;
  for (int op = 0; op < 5; ++op) {
    for (const Pattern& p : patterns()) {
      if (op != kRedU32 && op != kRedF32 && !in_subset(p.name)) continue;
      for (int g = 0; g < 2; ++g) {
        if (g == 1 && !in_subset(p.name)) continue;
        const int grid = g == 0 ? 2 * sms : 1, block = g == 0 ? 512 : 1024;
        if (static_cast<size_t>(p.naddr) * p.stride * 4 > buf_bytes) continue;
        CK(cudaMemset(buf, 0, buf_bytes));
        unsigned iters = 16;
        CK(cudaEventRecord(a));
        launch(op, grid, block, buf, p, iters, sink);
        CK(cudaEventRecord(b));
        CK(cudaGetLastError());
        const double probe = event_ms(a, b);
        const double scale = target_ms / std::max(probe, 1e-3);
        iters = static_cast<unsigned>(std::min(65536.0, std::max(16.0, iters * scale)));
        iters = std::max(16u, iters / 8 * 8);
        launch(op, grid, block, buf, p, iters, sink);  // warm-up
        std::vector<double> ms;
        for (int r = 0; r < 7; ++r) {
          CK(cudaEventRecord(a));
          launch(op, grid, block, buf, p, iters, sink);
          CK(cudaEventRecord(b));
          ms.push_back(event_ms(a, b));
        }
        CK(cudaGetLastError());
        std::sort(ms.begin(), ms.end());
        const double med = ms[3];
        const double warps = static_cast<double>(grid) * block / 32.0;
        const double reqs = warps * iters, ops = reqs * p.lanes;
        const double clocks = med * 1e-3 * mhz0 * 1e6;
        int lines = 0, sectors = 0;
        request_shape(p, lines, sectors);
        std::printf(
            "%s  {\"op\": \"%s\", \"pattern\": \"%s\", \"grid\": \"%s\", \"naddr\": %u, \"stride_words\": %u, "
            "\"addrs_per_req\": %u, \"lanes\": %u, \"lines_per_req\": %d, \"sectors_per_req\": %d, \"iters\": %u, "
            "\"ms\": %.5f, \"min_ms\": %.5f, \"max_ms\": %.5f, \"ops_per_clk\": %.4f, \"req_per_clk\": %.5f, "
            "\"clk_per_op_per_addr\": %.3f}",
            first ? "" : ",\n", kOpNames[op], p.name.c_str(), g == 0 ? "all" : "one", p.naddr, p.stride, p.per_req,
            p.lanes, lines, sectors, iters, med, ms[0], ms[6], ops / clocks, reqs / clocks,
            clocks / (ops / std::min<double>(p.naddr, 1e9)));
        first = false;
        std::fflush(stdout);
      }
    }
  }
  const double mhz1 = measure_clock_mhz(a, b, clk);
  std::printf("\n ],\n \"clock_mhz_after\": %.1f}\n", mhz1);
  CK(cudaFree(buf));
  CK(cudaFree(sink));
  CK(cudaFree(clk));
  return 0;
}
