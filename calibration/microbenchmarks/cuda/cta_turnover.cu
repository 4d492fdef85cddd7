// CTA turnover: how long a CTA slot on an SM stays empty between one CTA's end and the next
// CTA's first instruction, when the chip-wide dispatcher is not the limit (each CTA spins long
// enough that an SM needs a new CTA far less often than the dispatcher can hand one out).
//
//   cta_life(out, spin, sink)        every CTA: thread 0 reads clock64 first thing (t0); all
//                                    threads spin until t0 + spin; barrier; thread 0 reads
//                                    clock64 (t1) and records t0, t1, smid in out[4b..4b+2]
//   cta_life_store(out, spin, sink)  the same, then every thread stores one word to `sink`
//                                    after t1 (the stores of a copy kernel's last instruction)
//
// The host program (main, compiled only by nvcc on the GPU machine) launches 20 waves of 8
// CTAs of 256 threads per SM and prints, per kernel, the median gap between a slot freeing
// (the k-th earliest t1 on an SM) and the next CTA starting there (the (k+8)-th earliest t0).

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

static __device__ __forceinline__ unsigned long long life_body(unsigned long long* out, unsigned spin) {
  const unsigned long long t0 = mb_clock64();
  while (mb_clock64() < t0 + spin) {
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[4 * blockIdx.x + 0] = t0;
    out[4 * blockIdx.x + 1] = t1;
    out[4 * blockIdx.x + 2] = mb_smid();
  }
  return t1;
}

extern "C" __global__ void cta_life(unsigned long long* out, unsigned spin, unsigned* sink) {
  life_body(out, spin);
}

extern "C" __global__ void cta_life_store(unsigned long long* out, unsigned spin, unsigned* sink) {
  const unsigned long long t1 = life_body(out, spin);
  sink[static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x] = static_cast<unsigned>(t1);
}

#ifndef __CUDA_ARCH__
#if defined(__NVCC__)
#include <map>

#include "standalone_host.cuh"  // CK, median_ms

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount, per_sm = 8, waves = 20, threads = 256;
  const int grid = sms * per_sm * waves;
  unsigned long long* out;
  unsigned* sink;
  CK(cudaMalloc(&out, static_cast<size_t>(grid) * 32));
  CK(cudaMalloc(&sink, static_cast<size_t>(grid) * threads * 4));
  std::vector<unsigned long long> h(static_cast<size_t>(grid) * 4);
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"ctas_per_sm\": %d, \"threads\": %d, \"results\": [\n", p.name, sms, per_sm, threads);
  bool first = true;
  for (int store = 0; store < 2; ++store)
    for (unsigned spin : {2000u, 8000u}) {
      std::vector<double> gaps;
      for (int rep = 0; rep < 3; ++rep) {
        CK(cudaMemset(out, 0, static_cast<size_t>(grid) * 32));
        if (store) cta_life_store<<<grid, threads>>>(out, spin, sink);
        else cta_life<<<grid, threads>>>(out, spin, sink);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
        std::map<unsigned long long, std::pair<std::vector<unsigned long long>, std::vector<unsigned long long>>> by_sm;
        for (int b = 0; b < grid; ++b) {
          by_sm[h[4 * b + 2]].first.push_back(h[4 * b]);
          by_sm[h[4 * b + 2]].second.push_back(h[4 * b + 1]);
        }
        for (auto& [sm, v] : by_sm) {
          auto& st = v.first;
          auto& en = v.second;
          std::sort(st.begin(), st.end());
          std::sort(en.begin(), en.end());
          for (size_t i = per_sm; i < st.size(); ++i)
            if (st[i] > en[i - per_sm]) gaps.push_back(static_cast<double>(st[i] - en[i - per_sm]));
        }
      }
      std::sort(gaps.begin(), gaps.end());
      const auto q = [&](double f) { return gaps.empty() ? -1.0 : gaps[static_cast<size_t>(f * (gaps.size() - 1))]; };
      std::printf("%s{\"kernel\": \"%s\", \"spin\": %u, \"gap_cycles_p10\": %.0f, \"gap_cycles_median\": %.0f, \"gap_cycles_p90\": %.0f, \"n\": %zu}",
                  first ? "" : ",\n", store ? "cta_life_store" : "cta_life", spin, q(0.1), q(0.5), q(0.9), gaps.size());
      first = false;
    }
  std::printf("]}\n");
  return 0;
}
#endif
#endif
