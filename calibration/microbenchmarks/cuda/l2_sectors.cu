// What an L2 read request costs by the sectors it carries, for ld.global.cg and for cp.async.cg
// (LDGSTS), every SM reading distinct L2-resident lines. Written for issue 17 (the cp.async GEMMs:
// mma_f16_2048's copies alone, mma_gemm_parts mode 1, take 95 us on the H200 where kernsim's L2
// serves them in 69; its tiles are read as 64-byte half-line pieces, whose cost kernsim takes from
// a fit over 1- and 4-sector requests, l2.read_request_overhead, never measured at 2 sectors).
//
// Every warp instruction moves 512 bytes (32 lanes x 16 bytes) as 16 sectors: S = 4 sectors of
// 4 lines, S = 2 of 8 lines (the GEMM's half lines), S = 1 of 16 lines (lanes 2s and 2s+1 share a
// sector). At each step the chip's warps read lines side by side in a 32 MiB buffer (L2-resident
// after an untimed launch; no two warps read a line at the same step, so no requests merge): 4 instructions per
// iteration, then (cp.async) commit and wait for the group before the last, or (ld.cg) the loaded
// values summed. 4 CTAs of 256 threads per SM (32 warps). Per SM: the span from its first CTA's
// start to its last CTA's end (clock64) over its line requests: SM-cycles per line request and
// bytes per SM-cycle; the launch's event time gives the chip's rate.
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o l2_sectors l2_sectors.cu
// Run:   ./l2_sectors > l2_sectors.json     (one JSON object; a few seconds)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mb_helpers.cuh"

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::printf("{\"error\": \"%s at line %d\"}\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

constexpr unsigned long long kBufBytes = 32ull << 20;
constexpr unsigned long long kLines = kBufBytes / 128;

// Byte offset of lane l's 16 bytes in instruction j of warp-iteration t of warp gw (S sectors a line).
template <int S>
__device__ __forceinline__ unsigned long long offset(unsigned long long gw, unsigned long long nw, unsigned long long t, int j, int l) {
  constexpr int lines = 16 / S;  // lines per instruction
  const unsigned long long first = ((t * nw + gw) * 4 + j) * lines;  // the chip's warps side by side at each step
  const int line = l / (2 * S), within = l % (2 * S);  // 2 lanes a sector
  return ((first + line) % kLines) * 128 + within * 16;
}

template <bool kAsync, int S>
__global__ void __launch_bounds__(256) l2req(const char* buf, int iters, unsigned long long* span, unsigned long long* reqs, unsigned* sink) {
  __shared__ __align__(16) char stage[8][2][4][512];  // per warp: two groups of four 512-byte copies
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const unsigned long long gw = static_cast<unsigned long long>(blockIdx.x) * 8 + warp, nw = static_cast<unsigned long long>(gridDim.x) * 8;
  unsigned v = 0;
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
  for (int it = 0; it < iters; ++it) {
    if (kAsync) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&stage[warp][it & 1][j][lane * 16]));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(buf + offset<S>(gw, nw, it, j, lane)) : "memory");
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      unsigned r[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[j][0]), "=r"(r[j][1]), "=r"(r[j][2]), "=r"(r[j][3])
                     : "l"(buf + offset<S>(gw, nw, it, j, lane))
                     : "memory");
#pragma unroll
      for (int j = 0; j < 4; ++j) v ^= r[j][0] ^ r[j][3];
    }
  }
  if (kAsync) {
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    v = *reinterpret_cast<unsigned*>(&stage[warp][0][0][lane * 16]);
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    const unsigned sm = mb_smid();
    atomicMin(&span[2 * sm], t0);
    atomicMax(&span[2 * sm + 1], t1);
    atomicAdd(&reqs[sm], static_cast<unsigned long long>(iters) * 4 * (16 / S) * 8);  // line requests
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

using Kernel = void (*)(const char*, int, unsigned long long*, unsigned long long*, unsigned*);

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  char* buf;
  unsigned* sink;
  unsigned long long *span, *reqs;
  const int grid = sms * 4, threads = 256, iters = 256;
  CK(cudaMalloc(&buf, kBufBytes));
  CK(cudaMemset(buf, 0, kBufBytes));
  CK(cudaMalloc(&sink, static_cast<size_t>(grid) * threads * sizeof(unsigned)));
  CK(cudaMalloc(&span, static_cast<size_t>(sms) * 2 * sizeof(unsigned long long)));
  CK(cudaMalloc(&reqs, static_cast<size_t>(sms) * sizeof(unsigned long long)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  struct Case {
    const char* op;
    int sectors;
    Kernel k;
  };
  const Case cases[] = {{"ld.global.cg.v4", 4, l2req<false, 4>}, {"ld.global.cg.v4", 2, l2req<false, 2>},
                        {"ld.global.cg.v4", 1, l2req<false, 1>}, {"cp.async.cg", 4, l2req<true, 4>},
                        {"cp.async.cg", 2, l2req<true, 2>},      {"cp.async.cg", 1, l2req<true, 1>}};
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"clock_khz\": %d, \"grid\": %d, \"block\": %d, \"iters\": %d, \"buffer_bytes\": %llu,\n", prop.name,
              sms, clock_khz, grid, threads, iters, kBufBytes);
  std::printf(" \"note\": \"every warp instruction 512 B as 16 sectors, `sectors` of each line; distinct lines per warp, L2-resident; sm_cycles_per_line_request = median over SMs of (last CTA end - first CTA start) / line requests; chip_gbs from the event time (median of 5)\",\n");
  std::printf(" \"results\": [\n");
  bool first = true;
  for (const Case& c : cases) {
    c.k<<<grid, threads>>>(buf, iters, span, reqs, sink);  // warm: the buffer's lines into L2
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> per_runs, ev;
    for (int r = 0; r < 5; ++r) {
      std::vector<unsigned long long> init(static_cast<size_t>(sms) * 2);
      for (int i = 0; i < sms; ++i) init[2 * i] = ~0ull, init[2 * i + 1] = 0;
      CK(cudaMemcpy(span, init.data(), init.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
      CK(cudaMemset(reqs, 0, static_cast<size_t>(sms) * sizeof(unsigned long long)));
      CK(cudaEventRecord(e0));
      c.k<<<grid, threads>>>(buf, iters, span, reqs, sink);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      ev.push_back(ms);
      std::vector<unsigned long long> sp(static_cast<size_t>(sms) * 2), rq(static_cast<size_t>(sms));
      CK(cudaMemcpy(sp.data(), span, sp.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(rq.data(), reqs, rq.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      std::vector<double> per;
      for (int i = 0; i < sms; ++i)
        if (rq[i]) per.push_back(static_cast<double>(sp[2 * i + 1] - sp[2 * i]) / static_cast<double>(rq[i]));
      std::sort(per.begin(), per.end());
      per_runs.push_back(per[per.size() / 2]);
    }
    std::sort(per_runs.begin(), per_runs.end());
    std::sort(ev.begin(), ev.end());
    const double cyc = per_runs[2];
    const double bytes = static_cast<double>(grid) * 8 * iters * 4 * 512;
    std::printf("%s  {\"op\": \"%s\", \"sectors\": %d, \"lines_per_instruction\": %d, \"sm_cycles_per_line_request\": %.3f, \"bytes_per_sm_cycle\": %.2f, \"event_us\": %.2f, \"chip_gbs\": %.1f}",
                first ? "" : ",\n", c.op, c.sectors, 16 / c.sectors, cyc, 32.0 * c.sectors / cyc, ev[2] * 1000.0, bytes / (ev[2] * 1e6));
    first = false;
  }
  std::printf("\n ]}\n");
  return 0;
}
