// Two questions the tensor-core GEMM (tests/kernels/cuda/mma_gemm.cu) raised; see
// calibration/data/h200/mma_gemm_parts.json: its mma-only and its copy-only variants are both
// ~30% slower on the H200 than kernsim predicts.
//
// 1. mix_<pipe>_<k>: does an HMMA hold up the issue of other instructions? Each warp runs four
//    independent mma.sync m16n8k16 accumulators, each mma followed by k independent FFMA
//    (pipe ffma) or LOP3 (pipe lop) instructions. 32 warps per SM (8 per scheduler).
// 2. copy_<how>_<shape>: what a line request costs the SM when the data goes to shared memory
//    (cp.async.cg, 16 bytes per lane) against registers (ld.global.cg.v4), for warp accesses of
//    4 whole lines (shape full: 512 contiguous bytes) or 8 half lines (shape half: 64 bytes of
//    each of 8 rows 8 KiB apart, the A tile of the GEMM). An 8 MiB L2-resident buffer.
//
//   nvcc -O3 -arch=sm_90a -o tensor_copy_paths tensor_copy_paths.cu && ./tensor_copy_paths
// prints one JSON object: per kernel, cycles per SM (max over each CTA's warps of the clock span),
// the derived rate (cycles per mma per scheduler, or cycles per line request per SM), and the
// median event time of the launch (replays: calibration/microbenchmarks/cuda/specs_tensor_copy).
#include "mb_helpers.cuh"  // mb_clock64

// out: [2*b] t0 (min over the CTA's warps), [2*b+1] t1 (max)
template <int K, bool LOP, bool MMA = true>
static __device__ __forceinline__ void mix_body(unsigned long long* out, int iters) {
  unsigned a0 = 0x3c003c00u ^ threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = a0 + 4, b1 = a0 + 5;
  float c[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) c[i][j] = 0.0f;
  float f[8];
  unsigned u[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    f[i] = threadIdx.x * 1e-3f + i;
    u[i] = threadIdx.x * 7u + i;
  }
  __shared__ unsigned long long t0s, t1s, g0s, g1s;
  if (threadIdx.x == 0) { t0s = ~0ull; t1s = 0; g0s = ~0ull; g1s = 0; }
  __syncthreads();
  const unsigned long long g0 = mb_globaltimer(), t0 = mb_clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      if (MMA)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(c[m][0]), "+f"(c[m][1]), "+f"(c[m][2]), "+f"(c[m][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (LOP) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(u[(m * K + k) % 8]) : "r"(a0), "r"(b0));
        else asm volatile("fma.rn.f32 %0, %0, 0f3F800001, 0f3F800000;" : "+f"(f[(m * K + k) % 8]));
      }
    }
  }
  const unsigned long long t1 = mb_clock64(), g1 = mb_globaltimer();
  atomicMin(&t0s, t0);
  atomicMax(&t1s, t1);
  atomicMin(&g0s, g0);
  atomicMax(&g1s, g1);
  __syncthreads();
  float s = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) s += c[i][0] + c[i][3] + f[i] + f[i + 4] + __uint_as_float(u[i] ^ u[i + 4]);
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = t0s;
    out[2 * blockIdx.x + 1] = t1s + (s == 12345.0f ? 1 : 0);
    out[2 * gridDim.x + 2 * blockIdx.x] = g0s;
    out[2 * gridDim.x + 2 * blockIdx.x + 1] = g1s;
  }
}

#define MIX(NAME, K, LOP) \
  extern "C" __global__ void __launch_bounds__(1024) NAME(unsigned long long* out, int iters) { mix_body<K, LOP>(out, iters); }
MIX(mix_ffma_0, 0, false)
MIX(mix_ffma_2, 2, false)
MIX(mix_ffma_4, 4, false)
MIX(mix_ffma_6, 6, false)
MIX(mix_ffma_8, 8, false)
MIX(mix_lop_2, 2, true)
MIX(mix_lop_4, 4, true)
MIX(mix_lop_8, 8, true)
extern "C" __global__ void __launch_bounds__(1024) ffma_only_8(unsigned long long* out, int iters) { mix_body<8, false, false>(out, iters); }

// Byte offset of lane `l`'s 16 bytes in instruction j of warp-iteration t. Each warp-iteration
// takes a pseudo-random 2 KiB slot of the buffer (`slots` of them, a power of two), so that SMs do
// not walk the same lines in step. Shape full: 4 instructions of 512 contiguous bytes; shape half:
// the slot's 2 KiB as 32 rows of 64 bytes, rows 8 KiB apart (slots then pair with rows).
template <bool HALF>
static __device__ __forceinline__ unsigned long long copy_offset(unsigned long long t, unsigned long long slots, int j, int l) {
  const unsigned long long slot = (t * 2654435761ull) & (slots - 1);
  if (!HALF) return slot * 2048 + j * 512 + l * 16;
  const unsigned long long row = (slot / 128) * 32 + j * 8 + l / 4, col = (slot % 128) * 64 + (l % 4) * 16;
  return row * 8192 + col;
}

template <bool ASYNC, bool HALF>
static __device__ __forceinline__ void copy_body(const char* buf, unsigned long long* out, int iters, unsigned long long slots) {
  __shared__ __align__(16) char stage[32][2][2048];  // per warp: two stages of four 512-byte copies
  __shared__ unsigned long long t0s, t1s;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) { t0s = ~0ull; t1s = 0; }
  __syncthreads();
  unsigned sink = 0;
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    const unsigned long long t = (static_cast<unsigned long long>(blockIdx.x) * 32 + warp) * iters + it;
    if (ASYNC) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&stage[warp][it & 1][j * 512 + lane * 16]));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(buf + copy_offset<HALF>(t, slots, j, lane)) : "memory");
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      unsigned v[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v[j][0]), "=r"(v[j][1]), "=r"(v[j][2]), "=r"(v[j][3])
                     : "l"(buf + copy_offset<HALF>(t, slots, j, lane))
                     : "memory");
#pragma unroll
      for (int j = 0; j < 4; ++j) sink ^= v[j][0] ^ v[j][3];
    }
  }
  if (ASYNC) asm volatile("cp.async.wait_group 0;" ::: "memory");
  const unsigned long long t1 = mb_clock64();
  atomicMin(&t0s, t0);
  atomicMax(&t1s, t1);
  __syncthreads();
  if (ASYNC) sink = *reinterpret_cast<unsigned*>(&stage[warp][0][lane * 16]);
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = t0s;
    out[2 * blockIdx.x + 1] = t1s + (sink == 0x5eed5eedu ? 1 : 0);
  }
}

#define COPY(NAME, ASYNC, HALF)                                                                                      \
  extern "C" __global__ void __launch_bounds__(1024) NAME(const char* buf, unsigned long long* out, int iters,        \
                                                          unsigned long long slots) {                                \
    copy_body<ASYNC, HALF>(buf, out, iters, slots);                                                                  \
  }
COPY(copy_async_full, true, false)
COPY(copy_async_half, true, true)
COPY(copy_ldcg_full, false, false)
COPY(copy_ldcg_half, false, true)

// Round trip of one warp's 512-byte access, alone on the GPU: issue, wait for the data, next.
template <bool ASYNC>
static __device__ __forceinline__ void copy_lat_body(const char* buf, unsigned long long* out, int iters, unsigned long long slots) {
  __shared__ __align__(16) char stage[512];
  const int lane = threadIdx.x % 32;
  unsigned sink = 0;
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    const char* src = buf + copy_offset<false>(static_cast<unsigned long long>(it), slots, 0, lane) + (sink & 1);
    if (ASYNC) {
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&stage[lane * 16]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      sink += *reinterpret_cast<volatile unsigned*>(&stage[lane * 16]) & 2;
    } else {
      unsigned v0, v1, v2, v3;
      asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "l"(src) : "memory");
      sink += v0 & 2;
    }
  }
  const unsigned long long t1 = mb_clock64();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = sink;
  }
}
extern "C" __global__ void copy_lat_async(const char* buf, unsigned long long* out, int iters, unsigned long long slots) {
  copy_lat_body<true>(buf, out, iters, slots);
}
extern "C" __global__ void copy_lat_ldcg(const char* buf, unsigned long long* out, int iters, unsigned long long slots) {
  copy_lat_body<false>(buf, out, iters, slots);
}

#if defined(__NVCC__)
#include "standalone_host.cuh"

int main() {
  const int sms = 132;
  unsigned long long* out;
  char* buf;
  CK(cudaMalloc(&out, 4 * sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&buf, 1ull << 30));
  CK(cudaMemset(buf, 1, 1ull << 30));
  std::vector<unsigned long long> h(4 * sms);
  auto per_sm_cycles = [&]() {
    CK(cudaMemcpy(h.data(), out, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::vector<double> c;
    for (int b = 0; b < sms; ++b) c.push_back(static_cast<double>(h[2 * b + 1] - h[2 * b]));
    std::sort(c.begin(), c.end());
    return c[c.size() / 2];
  };
  // mix kernels: the SM clock while they ran, clock64 cycles over globaltimer ns, median over SMs
  auto mhz = [&]() {
    std::vector<double> f;
    for (int b = 0; b < sms; ++b) f.push_back(1e3 * static_cast<double>(h[2 * b + 1] - h[2 * b]) / static_cast<double>(h[2 * sms + 2 * b + 1] - h[2 * sms + 2 * b]));
    std::sort(f.begin(), f.end());
    return f[f.size() / 2];
  };
  std::printf("{\"what\": \"mix: cycles per mma per scheduler with k filler instructions per mma; copy: SM-cycles per line request\", \"rows\": [");
  struct Mix { const char* name; void (*k)(unsigned long long*, int); int fill; };
  const Mix mixes[] = {{"mix_ffma_0", mix_ffma_0, 0}, {"mix_ffma_2", mix_ffma_2, 2}, {"mix_ffma_4", mix_ffma_4, 4},
                       {"mix_ffma_6", mix_ffma_6, 6}, {"mix_ffma_8", mix_ffma_8, 8}, {"mix_lop_2", mix_lop_2, 2},
                       {"mix_lop_4", mix_lop_4, 4},   {"mix_lop_8", mix_lop_8, 8},   {"ffma_only_8", ffma_only_8, 8}};
  bool first = true;
  for (int mix_iters : {512, 8192})
    for (const Mix& m : mixes) {
      const double us = 1000.0 * median_ms([&] { m.k<<<sms, 1024>>>(out, mix_iters); }, 15);
      const double cyc = per_sm_cycles();
      std::printf("%s{\"kernel\": \"%s\", \"grid\": %d, \"block\": 1024, \"iters\": %d, \"fill_per_mma\": %d, \"sm_cycles\": %.0f, "
                  "\"cycles_per_mma_per_smsp\": %.3f, \"sm_mhz\": %.1f, \"median_us\": %.3f}",
                  first ? "" : ", ", m.name, sms, mix_iters, m.fill, cyc, cyc / (mix_iters * 4.0 * 8), mhz(), us);
      first = false;
    }
  struct Copy { const char* name; void (*k)(const char*, unsigned long long*, int, unsigned long long); int lines; };
  const Copy copies[] = {{"copy_async_full", copy_async_full, 4}, {"copy_async_half", copy_async_half, 8},
                         {"copy_ldcg_full", copy_ldcg_full, 4}, {"copy_ldcg_half", copy_ldcg_half, 8}};
  const int copy_iters = 256;
  // 8 MiB (L2-resident) and 1 GiB (HBM) of 2 KiB slots; 8, 16 or 32 warps per SM
  for (unsigned long long bytes : {8ull << 20, 1ull << 30})
    for (int threads : {256, 512, 1024})
      for (const Copy& c : copies) {
        const unsigned long long slots = bytes / 2048;
        const double us = 1000.0 * median_ms([&] { c.k<<<sms, threads>>>(buf, out, copy_iters, slots); }, 15);
        const double cyc = per_sm_cycles();
        const double requests = threads / 32.0 * copy_iters * 4 * c.lines;
        std::printf(", {\"kernel\": \"%s\", \"grid\": %d, \"block\": %d, \"iters\": %d, \"footprint_bytes\": %llu, \"lines_per_instruction\": %d, "
                    "\"sm_cycles\": %.0f, \"sm_cycles_per_line_request\": %.3f, \"bytes_per_sm_cycle\": %.2f, \"median_us\": %.3f}",
                    c.name, sms, threads, copy_iters, bytes, c.lines, cyc, cyc / requests, threads / 32.0 * copy_iters * 2048 / cyc, us);
      }
  for (unsigned long long bytes : {8ull << 20, 1ull << 30})
    for (int async = 1; async >= 0; --async) {
      const int iters = 2048;
      const double us = 1000.0 * median_ms([&] { (async ? copy_lat_async : copy_lat_ldcg)<<<1, 32>>>(buf, out, iters, bytes / 2048); }, 15);
      CK(cudaMemcpy(h.data(), out, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      std::printf(", {\"kernel\": \"%s\", \"grid\": 1, \"block\": 32, \"iters\": %d, \"footprint_bytes\": %llu, \"cycles_per_access\": %.1f, \"median_us\": %.3f}",
                  async ? "copy_lat_async" : "copy_lat_ldcg", iters, bytes, static_cast<double>(h[0]) / iters, us);
    }
  std::printf("]}\n");
  return 0;
}
#endif
