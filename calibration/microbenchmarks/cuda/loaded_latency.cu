// HBM latency under load: how the latency of a dependent load grows with the bandwidth the rest
// of the chip is pulling from HBM. Memory-level-parallelism-bound kernels (one element per
// thread, few warps, grid-stride loops with one load in flight) run at bytes-in-flight /
// latency, so this curve, not the unloaded latency, sets their speed.
//
//   chase_loaded<U>(chain, mask, seed, steps, stream, stream_vec4, out)
//     CTA 0, thread 0: `steps` dependent 4-byte loads at pseudo-random lines of `chain` (an LCG
//       over word indices masked by `mask`, mixed with the loaded value, so each load waits for
//       the one before; a 2 GiB region: every step misses the L2). Records clock64 and
//       %globaltimer every 64 steps: out[2k], out[2k+1] for mark k (k = 0 .. steps/64), and the
//       chase position in out[SINK + k] (SINK after the streaming CTAs' stamps).
//     CTAs 1..: grid-stride streaming read of `stream` (16-byte loads, U independent loads in
//       flight per thread per iteration), recording %globaltimer at start and end:
//       out[OFF + 2(b-1)], out[OFF + 2(b-1) + 1], OFF = 2 * (steps / 64 + 1).
//
// The host program (main, compiled only by nvcc on the GPU machine) runs the chase alone and
// with 1, 2, 4 and 8 streaming CTAs per SM at U = 1 and 4, and prints one JSON document: per
// configuration the stream's bandwidth and the chase's cycles per step while every streaming
// CTA was running.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

struct alignas(16) MbF4 {
  float x, y, z, w;
};

static __device__ __forceinline__ unsigned ld_cg_u32(const unsigned* p) {
  return *reinterpret_cast<const volatile unsigned*>(p);  // ld.volatile: not cached in L1, never elided
}

template <int U>
static __device__ __forceinline__ void chase_loaded_body(const unsigned* chain, unsigned mask, unsigned seed, unsigned steps,
                                                         const MbF4* stream, unsigned long long stream_vec4,
                                                         unsigned long long* out) {
  const unsigned marks = steps / 64;
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    unsigned idx = (seed * 2654435761u) & mask & ~31u;
    const unsigned long long sink = 2ull * (marks + 1) + 2ull * (gridDim.x - 1);  // after the stream CTAs' stamps
    out[0] = mb_clock64();
    out[1] = mb_globaltimer();
    for (unsigned m = 1; m <= marks; ++m) {
      for (int s = 0; s < 64; ++s) {
        const unsigned v = ld_cg_u32(chain + idx);
        idx = ((idx * 1664525u + 1013904223u + v) & mask) & ~31u;  // a fresh 128-byte line each step
      }
      out[sink + m] = idx;  // a store of the last step's result: the clock read waits for the chain
      out[2 * m] = mb_clock64();
      out[2 * m + 1] = mb_globaltimer();
    }
    return;
  }
  const unsigned long long off = 2ull * (marks + 1) + 2ull * (blockIdx.x - 1);
  if (threadIdx.x == 0) out[off] = mb_globaltimer();
  float acc = 0.0f;
  const unsigned long long nthreads = static_cast<unsigned long long>(gridDim.x - 1) * blockDim.x;
  const unsigned long long t = static_cast<unsigned long long>(blockIdx.x - 1) * blockDim.x + threadIdx.x;
  for (unsigned long long i = t; i + (U - 1) * nthreads < stream_vec4; i += U * nthreads) {
    MbF4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = stream[i + u * nthreads];
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  __syncthreads();
  if (threadIdx.x == 0) out[off + 1] = mb_globaltimer();
  if (acc == 1234.5f) out[off] = 0;
}

extern "C" __global__ void chase_loaded_u1(const unsigned* chain, unsigned mask, unsigned seed, unsigned steps,
                                           const MbF4* stream, unsigned long long stream_vec4, unsigned long long* out) {
  chase_loaded_body<1>(chain, mask, seed, steps, stream, stream_vec4, out);
}
extern "C" __global__ void chase_loaded_u4(const unsigned* chain, unsigned mask, unsigned seed, unsigned steps,
                                           const MbF4* stream, unsigned long long stream_vec4, unsigned long long* out) {
  chase_loaded_body<4>(chain, mask, seed, steps, stream, stream_vec4, out);
}

#ifndef __CUDA_ARCH__
#if defined(__NVCC__)
#include "standalone_host.cuh"  // CK, median_ms

using Kern = void (*)(const unsigned*, unsigned, unsigned, unsigned, const MbF4*, unsigned long long, unsigned long long*);

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const unsigned long long chain_bytes = 2ull << 30, stream_bytes = 8ull << 30;
  unsigned* chain;
  MbF4* stream;
  CK(cudaMalloc(&chain, chain_bytes));
  CK(cudaMemset(chain, 0, chain_bytes));
  CK(cudaMalloc(&stream, stream_bytes));
  CK(cudaMemset(stream, 0, stream_bytes));
  const unsigned mask = static_cast<unsigned>(chain_bytes / 4 - 1);
  const unsigned steps = 64 * 64;
  const size_t out_words = 2 * (steps / 64 + 1) + 2 * 8 * 132 + (steps / 64 + 1) + 16;
  unsigned long long* out;
  CK(cudaMalloc(&out, out_words * 8));
  std::vector<unsigned long long> h(out_words);
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"steps\": %u, \"stream_bytes\": %llu, \"results\": [\n", p.name, sms, steps, stream_bytes);
  bool first = true;
  unsigned seed = 1;
  struct Cfg { int per_sm; int u; };
  const Cfg cfgs[] = {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {6, 1}, {8, 1}, {1, 4}, {2, 4}, {4, 4}, {8, 4}};
  for (const Cfg& c : cfgs) {
    const Kern k = c.u == 1 ? chase_loaded_u1 : chase_loaded_u4;
    // the chasing CTA takes a slot on one SM: with 8 streaming CTAs per SM one fewer, so all start at once
    const int stream_ctas = c.per_sm * sms - (c.per_sm == 8 ? 1 : 0);
    std::vector<double> lat, bw;
    for (int rep = 0; rep < 4; ++rep) {
      CK(cudaMemset(out, 0, out_words * 8));
      k<<<1 + stream_ctas, 256>>>(chain, mask, seed++, steps, stream, stream_bytes / 16, out);
      CK(cudaDeviceSynchronize());
      if (rep == 0) continue;  // warm-up
      CK(cudaMemcpy(h.data(), out, out_words * 8, cudaMemcpyDeviceToHost));
      const unsigned marks = steps / 64;
      const size_t off = 2 * (marks + 1);
      unsigned long long s0 = 0, s1 = ~0ull, lo = ~0ull, hi = 0;
      for (int b = 0; b < stream_ctas; ++b) {
        s0 = std::max(s0, h[off + 2 * b]);
        s1 = std::min(s1, h[off + 2 * b + 1]);
        lo = std::min(lo, h[off + 2 * b]);
        hi = std::max(hi, h[off + 2 * b + 1]);
      }
      // chase marks inside the window where every streaming CTA was running
      int m0 = -1, m1 = -1;
      for (unsigned m = 0; m <= marks; ++m) {
        const unsigned long long g = h[2 * m + 1];
        if (stream_ctas == 0 || (g >= s0 && g <= s1)) {
          if (m0 < 0) m0 = static_cast<int>(m);
          m1 = static_cast<int>(m);
        }
      }
      if (m0 >= 0 && m1 > m0) lat.push_back(static_cast<double>(h[2 * m1] - h[2 * m0]) / (64.0 * (m1 - m0)));
      if (stream_ctas > 0) bw.push_back(static_cast<double>(stream_bytes) / static_cast<double>(hi - lo));  // bytes/ns = GB/s
    }
    std::sort(lat.begin(), lat.end());
    std::sort(bw.begin(), bw.end());
    std::printf("%s{\"stream_ctas_per_sm\": %d, \"loads_in_flight_per_thread\": %d, \"stream_gbps\": %.1f, \"chase_cycles_per_step\": %.1f, \"samples\": %zu}",
                first ? "" : ",\n", c.per_sm, c.u, bw.empty() ? 0.0 : bw[bw.size() / 2], lat.empty() ? -1.0 : lat[lat.size() / 2], lat.size());
    first = false;
  }
  std::printf("]}\n");
  return 0;
}
#endif
#endif
