// How fast an SM's L1 serves global loads that hit, by the shape of the warp's request (lines and
// sectors it touches), and how many lines a power-of-two stride keeps in the L1. Written for
// issue 17 (the naive SGEMMs: kernsim's L1 serves their 2-line and 1-line hits at
// l1.lines_per_cycle = 1.0, a figure measured with ld.cg misses; Nsight Compute puts the H200's
// sgemm_naive_1024 and sgemm_naive32_2048 at 0.73-0.74 line lookups per cycle, and the 4096³ runs
// of both are 18-45% slower per k step than the 2048³ ones, where every A row and every B row is
// 16 KiB from the next).
//
// Part "rate": every SM runs 8 CTAs of 256 threads (its 64 warps); each warp issues `iters` x 8
// independent 4-byte loads of one request shape from a 64 KiB buffer the first pass brought into
// L1 (all later loads hit), and adds the values up (the buffer is zero). Shapes (lane l):
//   bcast1   every lane one address                 1 line, 1 sector
//   half2    address (l % 16) x 4                    1 line, 2 sectors (sgemm_naive's B)
//   full4    address l x 4                           1 line, 4 sectors (sgemm_naive32's B)
//   lines2   line (l / 16), one address per half    2 lines, 1 sector each (sgemm_naive's A)
//   lines2s2 line (l / 16), (l % 16) x 4 within it   2 lines, 2 sectors each
//   lines4   line (l / 8), one address per 8 lanes  4 lines, 1 sector each
//   lines8   line (l / 4)                           8 lines, 1 sector each
//   lines32  line l                                 32 lines, 1 sector each
//   v4full   16 bytes at l x 16 (ld.v4)             4 lines, 4 sectors each
// Lines of one request are 640 bytes apart (5 lines: not a power of two). Each shape runs with
// ld.global.nc (LDG.E.CONSTANT, as the SGEMMs' __restrict__ const loads) and ld.global.ca
// (LDG.E). Per SM: the span from its first CTA's start to its last CTA's end (clock64, SM-local),
// over the requests it served: cycles per request, per line, per sector.
//
// Part "stride": one warp on one SM walks N lines `stride` bytes apart, lane 0's address depending
// on the previous load's value (a dependent chase, one load in flight), lap after lap; laps 1..3
// timed: cycles per load ~32 while the N lines stay in L1, ~270 once they do not. Strides 128 B
// (contiguous lines: the reference), 1, 4, 8, 16, 32, 64 KiB; N 4 .. 512. The largest N at ~32
// cycles per stride tells which address bits pick the L1 set (a stride that maps every line to
// one set keeps only `ways` of them).
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o l1_rate l1_rate.cu
// Run:   ./l1_rate > l1_rate.json     (one JSON object; about half a minute)
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
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

constexpr int kShapes = 9;
constexpr unsigned kLineGap = 640;  // bytes between the lines of one request

// Byte offset of lane l's load for shape s (v4full: 16-byte loads).
__host__ __device__ inline unsigned shape_offset(int s, int l) {
  switch (s) {
    case 0: return 0;
    case 1: return (l % 16) * 4;
    case 2: return l * 4;
    case 3: return (l / 16) * kLineGap;
    case 4: return (l / 16) * kLineGap + (l % 16) * 4;
    case 5: return (l / 8) * kLineGap;
    case 6: return (l / 4) * kLineGap;
    case 7: return l * kLineGap;
    default: return (l / 8) * kLineGap + (l % 8) * 16;
  }
}

template <bool kNc>
__device__ __forceinline__ unsigned ld32(const char* p) {
  unsigned v;
  if (kNc)
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <bool kNc>
__device__ __forceinline__ unsigned ld128(const char* p) {
  unsigned a, b, c, d;
  if (kNc)
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
  else
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
  return a + b + c + d;
}

// span[2 * smid] = earliest CTA start on the SM, span[2 * smid + 1] = latest CTA end;
// reqs[smid] = warp requests the SM served in the timed part
template <bool kNc, int kShape>
__global__ void rate(const char* buf, int iters, unsigned long long* span, unsigned long long* reqs, unsigned* sink) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  // 8 request sites 8 KiB apart in a 64 KiB buffer; each warp starts at its own site
  const unsigned off = shape_offset(kShape, lane);
  unsigned v = 0;
  for (int k = 0; k < 8; ++k)  // first touch: bring the sites into L1 (untimed)
    v += kShape == 8 ? ld128<kNc>(buf + k * 8192 + off) : ld32<kNc>(buf + k * 8192 + off);
  __syncthreads();
  const unsigned long long t0 = mb_clock64();
  const char* base = buf + off + v;  // v is 0: the loads wait for the first touch
  for (int i = 0; i < iters; ++i) {
    unsigned s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const char* p = base + ((k + warp) & 7) * 8192;
      s += kShape == 8 ? ld128<kNc>(p) : ld32<kNc>(p);
    }
    v += s;
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    const unsigned sm = mb_smid();
    atomicMin(&span[2 * sm], t0);
    atomicMax(&span[2 * sm + 1], t1);
    atomicAdd(&reqs[sm], static_cast<unsigned long long>(iters) * 8 * (blockDim.x / 32));
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

using RateKernel = void (*)(const char*, int, unsigned long long*, unsigned long long*, unsigned*);
template <bool kNc>
std::array<RateKernel, kShapes> rate_kernels() {
  return {rate<kNc, 0>, rate<kNc, 1>, rate<kNc, 2>, rate<kNc, 3>, rate<kNc, 4>, rate<kNc, 5>, rate<kNc, 6>, rate<kNc, 7>, rate<kNc, 8>};
}

// one warp: lane 0 chases n lines `stride` bytes apart; out[0] = cycles of laps 1..3
__global__ void stride_chase(const char* buf, unsigned stride, int n, unsigned long long* out, unsigned* sink) {
  unsigned v = 0;
  unsigned long long t0 = 0;
  for (int lap = 0; lap < 4; ++lap) {
    if (lap == 1) t0 = mb_clock64();
    for (int i = 0; i < n; ++i) v = ld32<false>(buf + static_cast<size_t>(i) * stride + v);
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) out[0] = t1 - t0;
  sink[threadIdx.x] = v;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const size_t chase_bytes = static_cast<size_t>(512) * 65536 + 4096;
  char* buf;
  unsigned* sink;
  unsigned long long *span, *reqs, *out;
  CK(cudaMalloc(&buf, chase_bytes));
  CK(cudaMemset(buf, 0, chase_bytes));
  CK(cudaMalloc(&sink, static_cast<size_t>(sms) * 8 * 256 * sizeof(unsigned)));
  CK(cudaMalloc(&span, static_cast<size_t>(sms) * 2 * sizeof(unsigned long long)));
  CK(cudaMalloc(&reqs, static_cast<size_t>(sms) * sizeof(unsigned long long)));
  CK(cudaMalloc(&out, sizeof(unsigned long long)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const char* names[kShapes] = {"bcast1", "half2", "full4", "lines2", "lines2s2", "lines4", "lines8", "lines32", "v4full"};
  const int lines[kShapes] = {1, 1, 1, 2, 2, 4, 8, 32, 4};
  const int sectors[kShapes] = {1, 2, 4, 2, 4, 4, 8, 32, 16};
  const std::array<RateKernel, kShapes> kernels[2] = {rate_kernels<false>(), rate_kernels<true>()};

  std::printf("{\"device\": \"%s\", \"sms\": %d, \"clock_khz\": %d,\n", prop.name, sms, clock_khz);
  std::printf(" \"note\": \"rate: 8 CTAs x 256 threads per SM, loads that hit L1; cycles_per_request = median over SMs of (last CTA end - first CTA start) / warp requests; stride: one lane's dependent chase over n lines stride bytes apart, cycles per load over laps 1..3\",\n");
  std::printf(" \"rate\": [\n");
  const int iters = 512, grid = sms * 8, threads = 256;
  bool first = true;
  for (int nc = 1; nc >= 0; --nc)
    for (int s = 0; s < kShapes; ++s) {
      std::vector<double> runs;
      float best_ms = 1e30f;
      for (int r = 0; r < 3; ++r) {
        std::vector<unsigned long long> init(static_cast<size_t>(sms) * 2);
        for (int i = 0; i < sms; ++i) init[2 * i] = ~0ull, init[2 * i + 1] = 0;
        CK(cudaMemcpy(span, init.data(), init.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
        CK(cudaMemset(reqs, 0, static_cast<size_t>(sms) * sizeof(unsigned long long)));
        CK(cudaEventRecord(e0));
        kernels[nc][s]<<<grid, threads>>>(buf, iters, span, reqs, sink);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        best_ms = std::min(best_ms, ms);
        std::vector<unsigned long long> sp(static_cast<size_t>(sms) * 2), rq(static_cast<size_t>(sms));
        CK(cudaMemcpy(sp.data(), span, sp.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(rq.data(), reqs, rq.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        std::vector<double> per;
        for (int i = 0; i < sms; ++i)
          if (rq[i]) per.push_back(static_cast<double>(sp[2 * i + 1] - sp[2 * i]) / static_cast<double>(rq[i]));
        std::sort(per.begin(), per.end());
        runs.push_back(per[per.size() / 2]);
      }
      std::sort(runs.begin(), runs.end());
      const double c = runs[1];
      std::printf("%s  {\"shape\": \"%s\", \"op\": \"%s\", \"lines\": %d, \"sectors\": %d, \"cycles_per_request\": %.3f, \"cycles_per_line\": %.3f, \"cycles_per_sector\": %.3f, \"runs\": [%.3f, %.3f, %.3f], \"event_us\": %.1f}",
                  first ? "" : ",\n", names[s], nc ? "ld.global.nc" : "ld.global.ca", lines[s], sectors[s], c, c / lines[s], c / sectors[s],
                  runs[0], runs[1], runs[2], best_ms * 1000.0);
      first = false;
    }
  std::printf("\n ],\n \"stride\": [\n");
  const unsigned strides[] = {128, 1024, 4096, 8192, 16384, 32768, 65536};
  const int ns[] = {4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512};
  first = true;
  for (unsigned st : strides)
    for (int n : ns) {
      stride_chase<<<1, 32>>>(buf, st, n, out, sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      unsigned long long cyc = 0;
      CK(cudaMemcpy(&cyc, out, sizeof(cyc), cudaMemcpyDeviceToHost));
      std::printf("%s  {\"stride\": %u, \"lines\": %d, \"cycles_per_load\": %.2f}", first ? "" : ",\n", st, n,
                  static_cast<double>(cyc) / (3.0 * n));
      first = false;
    }
  std::printf("\n ]}\n");
  return 0;
}
