// What an acq_rel atomic costs beyond a relaxed one (issue 17 item 1: tr_sum_atomic_64M, Triton's
// one `tl.atomic_add` per program, is predicted 18% fast). ptxas 13.0 turns PTX
// `atom.global.gpu.acq_rel.add.f32` into MEMBAR.ALL.GPU; ERRBAR; CGAERRBAR; ATOMG.E.ADD.F32.STRONG.GPU;
// CCTL.IVALL (read off the grown set's tr_sum_atomic_64M SASS); kernsim times the fence as one cycle.
// Three parts, one JSON line each:
//
//   1. "chain": one thread, 512 dependent operations, clock64 cycles per operation, L2-resident
//      address: fence.acq_rel.gpu alone, st.global + fence.acq_rel.gpu, atom.relaxed.gpu.add.u32
//      and atom.acq_rel.gpu.add.u32 (v = atom(p, v)).
//   2. "fence_loaded": the same fence chain in CTA 0 while 1056 other CTAs stream reads (HBM
//      busy): does the fence wait for the SM's other warps' loads, or only its own thread's?
//   3. "sum": the Triton sum's shape, 16384 CTAs of 256 threads each reducing 4096 floats (16
//      per thread, 4 float4 loads) to one value that thread 0 adds to one address with atom
//      acq_rel (Triton's), atom relaxed, red relaxed, or stores to its own slot (no atomic);
//      event time behind a 256 MiB read flush, median of 21.
//
//   nvcc -O3 -arch=sm_90a calibration/microbenchmarks/cuda/fence_atomic.cu -o fa && ./fa
// (calibration/validation/device/s7_fence_atomic.sh runs it on the GPU machine.)

#include "mb_helpers.cuh"  // mb_clock64

template <int KIND>
__global__ void fa_chain(unsigned* p, int n, unsigned long long* out) {
  unsigned v = 0;
  const unsigned long long t0 = mb_clock64();
  for (int k = 0; k < n; ++k) {
    if (KIND == 0) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    if (KIND == 1) {
      asm volatile("st.global.u32 [%0], %1;" ::"l"(p + 64 + (k & 31) * 32), "r"(v + k) : "memory");
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    if (KIND == 2) asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(v) : "l"(p), "r"(v + 1) : "memory");
    if (KIND == 3) asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(v) : "l"(p), "r"(v + 1) : "memory");
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = v;
  }
}

// CTA 0, thread 0: the fence chain; the other CTAs stream-read `s` (n16 float4, grid-stride)
__global__ void fa_fence_loaded(unsigned* p, int n, unsigned long long* out, const uint4* s, long long n16, unsigned* sink) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      const unsigned long long t0 = mb_clock64();
      for (int k = 0; k < n; ++k) asm volatile("fence.acq_rel.gpu;" ::: "memory");
      out[0] = mb_clock64() - t0;
    }
    return;
  }
  unsigned acc = 0;
  for (long long i = static_cast<long long>(blockIdx.x - 1) * blockDim.x + threadIdx.x; i < n16;
       i += static_cast<long long>(gridDim.x - 1) * blockDim.x) {
    const uint4 v = s[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
}

template <int MODE>
__device__ __forceinline__ void fa_sum(const float4* __restrict__ x, float* out, float* slots) {
  const long long base = static_cast<long long>(blockIdx.x) * 1024 + threadIdx.x;
  float a = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float4 v = x[base + 256 * j];
    a += v.x + v.y + v.z + v.w;
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
  __shared__ float w[8];
  if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int i = 0; i < 8; ++i) t += w[i];
    float r;
    if (MODE == 0) asm volatile("atom.acq_rel.gpu.global.add.f32 %0, [%1], %2;" : "=f"(r) : "l"(out), "f"(t) : "memory");
    if (MODE == 1) asm volatile("atom.relaxed.gpu.global.add.f32 %0, [%1], %2;" : "=f"(r) : "l"(out), "f"(t) : "memory");
    if (MODE == 2) asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" ::"l"(out), "f"(t) : "memory");
    if (MODE == 3) slots[blockIdx.x] = t;
  }
  __syncthreads();
}
// one kernel per mode, by name, so that kernsim's specs (cuda/specs_fence) find them
extern "C" __global__ void __launch_bounds__(256) fa_sum_atom_acq_rel(const float4* x, float* out, float* slots) { fa_sum<0>(x, out, slots); }
extern "C" __global__ void __launch_bounds__(256) fa_sum_atom_relaxed(const float4* x, float* out, float* slots) { fa_sum<1>(x, out, slots); }
extern "C" __global__ void __launch_bounds__(256) fa_sum_red_relaxed(const float4* x, float* out, float* slots) { fa_sum<2>(x, out, slots); }
extern "C" __global__ void __launch_bounds__(256) fa_sum_store_slot(const float4* x, float* out, float* slots) { fa_sum<3>(x, out, slots); }

#if defined(__NVCC__)
#include <string>

#include "standalone_host.cuh"

int main() {
  const long long flush_bytes = 256ll << 20, sum_bytes = 256ll << 20;
  unsigned* p;
  unsigned long long* out;
  uint4* fl;
  float4* x;
  float *acc, *slots;
  unsigned* sink;
  CK(cudaMalloc(&p, 1 << 20));
  CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&x, sum_bytes));
  CK(cudaMalloc(&acc, 64));
  CK(cudaMalloc(&slots, 1 << 20));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMemset(p, 0, 1 << 20));
  CK(cudaMemset(fl, 0, flush_bytes));
  CK(cudaMemset(x, 0, sum_bytes));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int n = 512;
  auto chain = [&](const char* name, auto kernel) {
    std::vector<double> c;
    for (int r = 0; r < 7; ++r) {
      kernel<<<1, 1>>>(p, n, out);
      unsigned long long h[2];
      CK(cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost));
      c.push_back(static_cast<double>(h[0]) / n);
    }
    std::sort(c.begin(), c.end());
    std::printf("{\"part\": \"chain\", \"op\": \"%s\", \"n\": %d, \"cycles_per_op_median\": %.1f, \"min\": %.1f, \"max\": %.1f}\n", name, n,
                c[c.size() / 2], c.front(), c.back());
    std::fflush(stdout);
  };
  chain("fence.acq_rel.gpu", fa_chain<0>);
  chain("st.global+fence.acq_rel.gpu", fa_chain<1>);
  chain("atom.relaxed.gpu.add.u32", fa_chain<2>);
  chain("atom.acq_rel.gpu.add.u32", fa_chain<3>);
  {
    std::vector<double> c;
    for (int r = 0; r < 7; ++r) {
      fa_fence_loaded<<<1 + sms * 8, 256>>>(p, n, out, fl, flush_bytes / 16, sink);
      unsigned long long h;
      CK(cudaMemcpy(&h, out, 8, cudaMemcpyDeviceToHost));
      c.push_back(static_cast<double>(h) / n);
    }
    std::sort(c.begin(), c.end());
    std::printf("{\"part\": \"fence_loaded\", \"stream_ctas\": %d, \"cycles_per_fence_median\": %.1f, \"min\": %.1f, \"max\": %.1f}\n", sms * 8,
                c[c.size() / 2], c.front(), c.back());
    std::fflush(stdout);
  }
  const unsigned grid = static_cast<unsigned>(sum_bytes / 16384);
  const char* modes[] = {"atom_acq_rel", "atom_relaxed", "red_relaxed", "store_slot"};
  for (int m = 0; m < 4; ++m) {
    auto flush = [&] { fa_fence_loaded<<<1 + sms * 8, 256>>>(p, 1, out, fl, flush_bytes / 16, sink); };
    auto launch = [&] {
      if (m == 0) fa_sum_atom_acq_rel<<<grid, 256>>>(x, acc, slots);
      if (m == 1) fa_sum_atom_relaxed<<<grid, 256>>>(x, acc, slots);
      if (m == 2) fa_sum_red_relaxed<<<grid, 256>>>(x, acc, slots);
      if (m == 3) fa_sum_store_slot<<<grid, 256>>>(x, acc, slots);
    };
    const std::vector<float> t = event_times_ms(launch, 21, flush, 3);
    std::printf("{\"part\": \"sum\", \"mode\": \"%s\", \"ctas\": %u, \"bytes\": %lld, \"median_us\": %.3f, \"p10_us\": %.3f, \"p90_us\": %.3f}\n",
                modes[m], grid, sum_bytes, t[t.size() / 2] * 1e3, t[t.size() / 10] * 1e3, t[t.size() * 9 / 10] * 1e3);
    std::fflush(stdout);
  }
  return 0;
}
#endif
