// The latency of one halo load, timed by itself (issue 17, the marching 3-D stencils of the grown
// validation set: on an H100 their x-halo loads, counted as L2 hits by ncu, take ~800 cycles each,
// calibration/data/h100/march/). Standalone: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a
// halo_latency.cu; run as `./a.out MATRIX.csv` (the far-L2 matrix goes to that file, everything else
// is one JSON document on stdout). Every section starts from a clean cold L2 (a 256 MiB read flush),
// then warms the lines it calls "warm" with ld.global.cg from another launch. Times are clock64
// cycles on the SM; a load's latency is the stamp before it to the stamp after a shared store of
// its value (in-order issue: the store waits for the value).
//
//   alone          one warp, lane 0: an L2 hit (warm line, through the L1 with ld.global.nc) and an
//                  HBM miss (cold line), 64 lines each
//   behind_miss    an L2 hit issued while an HBM miss is outstanding:
//                    same_warp      the warp loads a cold line (32 lanes, 4 sectors), then one warm
//                                   sector (all lanes the same word), times the warm load
//                    divergent      the march's shape: full-warp cold load, then lane 0 alone (a
//                                   divergent branch) loads one warm sector and stores it to shared
//                    other_warp_1   warp 1 loads 1 cold line, warp 0 times one warm load ~20 cycles later
//                    other_warp_8   warp 1 loads 8 cold lines at once, the same
//                    same_smsp_*    the same with warp 4, on warp 0's SM sub-partition
//                  each next to the same warm load with nothing outstanding ("none"), 64 trials
//   fill_in_flight two CTAs on two SMs (too much shared memory for two per SM): the filler loads a
//                  cold line (4 sectors) and raises a flag right after issuing; the reader polls
//                  the flag, waits d cycles and loads one sector of the same line (sector 0, which
//                  the filler asked for too, or sector 3), d = 0..1200 in steps of 100, 8 trials each;
//                  the reader also times a warm and a cold line of its own each trial
//   far_l2         one CTA per SM (grid = SMs, one warp, too much shared memory for two): lane 0
//                  times ld.global.cg of the same 128 warm lines, one at a time; prints a histogram
//                  of all latencies and per-SM/per-line means; the whole matrix (SM x line) goes to
//                  MATRIX.csv: which lines are far from which SMs
//   march          st7_march (256^3, block (32, 8), grid (8, 32)) with clock64 stamps (lane 0 of
//                  every warp: loop top, after the x halo, after the y halo, loop end) in three
//                  forms: dense (the grid as in the validation set), sparse (only odd x-columns
//                  of CTAs launched: no neighbour fetches their x-halo lines, so those are HBM
//                  misses), dense_cg (halo loads as ld.global.cg, not through the L1's nc path);
//                  per form: x-halo cycles (mean and deciles of warps ty 1..6), y-halo of warps 0
//                  and 7, iteration, flushed time (CUDA events, median of 9), and CTAs per SM
#include <cstdint>

#include "mb_helpers.cuh"  // mb_clock64, mb_smid

#define IDX(x, y, z) (((size_t)(z) * ny + (y)) * nx + (x))

static __device__ __forceinline__ unsigned ld_nc(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ unsigned ld_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ unsigned ld_vol(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ void st_vol(unsigned* p, unsigned v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ void sts(unsigned* p, unsigned v) {
  asm volatile("st.volatile.shared.u32 [%0], %1;" ::"l"(__cvta_generic_to_shared(p)), "r"(v) : "memory");
}
static __device__ __forceinline__ void spin(unsigned long long cycles) {
  const unsigned long long t = mb_clock64();
  while (mb_clock64() - t < cycles) {
  }
}

// Warms `n` words spaced `stride` words apart with ld.global.cg (L2 only).
__global__ void warm(const unsigned* mem, unsigned n, unsigned stride, unsigned* sink) {
  unsigned acc = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += ld_cg(mem + (size_t)i * stride);
  if (acc == 0x12345678u) sink[0] = acc;
}

// 256 MiB read: the L2 ends clean and holds none of the measured lines.
__global__ void flush_read(const uint4* buf, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint4 v = buf[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 0x12345678u) sink[0] = acc;
}

constexpr int kTrials = 64;
constexpr unsigned kWarmStride = 32 * 37;    // words between warm lines (37 lines: different slices)
constexpr unsigned kColdStride = 32 * 1031;  // words between cold lines

// alone: out[i] hit, out[64 + i] miss.
__global__ void alone(const unsigned* warm_lines, const unsigned* cold_lines, unsigned long long* out) {
  __shared__ unsigned s[64];
  if (threadIdx.x != 0) return;
  for (int i = 0; i < kTrials; ++i) {
    unsigned long long t0 = mb_clock64();
    sts(&s[0], ld_nc(warm_lines + (size_t)i * kWarmStride));
    unsigned long long t1 = mb_clock64();
    out[i] = t1 - t0;
    t0 = mb_clock64();
    sts(&s[1], ld_nc(cold_lines + (size_t)i * kColdStride));
    t1 = mb_clock64();
    out[kTrials + i] = t1 - t0;
  }
}

// behind_miss, kMode: 0 same_warp, 1 divergent, 2 other_warp_1, 3 other_warp_8 (warp 1: another
// SM sub-partition), 4 same_smsp_warp_1, 5 same_smsp_warp_8 (warp 4: warp 0's sub-partition, warps
// being dealt to sub-partitions by warp index mod 4). Two warps (modes 0-3) or five (4-5).
// out[i]: the warm load with the miss outstanding; out[64 + i]: the same warm-line shape with
// nothing outstanding (a different warm line); out[128 + i]: the miss's own latency (modes 0, 1).
template <int kMode>
__global__ void behind_miss(const unsigned* warm_lines, const unsigned* cold_lines, unsigned long long* out) {
  __shared__ unsigned s[64];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int i = 0; i < kTrials; ++i) {
    const unsigned* w = warm_lines + (size_t)(2 * i) * kWarmStride;
    const unsigned* w_alone = warm_lines + (size_t)(2 * i + 1) * kWarmStride;
    const unsigned* c = cold_lines + (size_t)i * 8 * kColdStride;
    __syncthreads();
    if (warp == 0) {  // reference: the warm load alone (its address through the clock as below)
      const unsigned long long t0 = mb_clock64();
      const unsigned* wa = w_alone + (t0 >> 62);
      if (kMode == 1) {
        if (lane == 0) sts(&s[0], ld_nc(wa));
        __syncwarp();
      } else {
        sts(&s[lane], ld_nc(wa));
      }
      const unsigned long long t1 = mb_clock64();
      if (lane == 0) out[kTrials + i] = t1 - t0;
    }
    __syncthreads();
    if (kMode <= 1) {
      if (warp != 0) continue;
      const unsigned long long t0 = mb_clock64();
      const unsigned m = ld_nc(c + lane);  // one cold line, 4 sectors
      // the warm load's address goes through a clock read after the cold load (t >> 62 is 0), so
      // ptxas cannot issue it first; its latency is timed from that read
      const unsigned long long tm = mb_clock64();
      const unsigned* wm = w + (tm >> 62);
      if (kMode == 1) {
        if (lane == 0) sts(&s[0], ld_nc(wm));
        __syncwarp();
      } else {
        sts(&s[lane], ld_nc(wm));
      }
      const unsigned long long t1 = mb_clock64();
      sts(&s[32 + lane], m);
      const unsigned long long t2 = mb_clock64();
      if (lane == 0) {
        out[i] = t1 - tm;
        out[2 * kTrials + i] = t2 - t0;
      }
    } else if (warp == (kMode >= 4 ? 4 : 1)) {
      unsigned m = 0;
#pragma unroll
      for (int j = 0; j < ((kMode == 3 || kMode == 5) ? 8 : 1); ++j) m += ld_nc(c + (size_t)j * kColdStride + lane);
      sts(&s[32 + lane], m);
    } else if (warp == 0) {
      spin(20);
      const unsigned long long t0 = mb_clock64();
      sts(&s[lane], ld_nc(w));
      const unsigned long long t1 = mb_clock64();
      if (lane == 0) out[i] = t1 - t0;
    }
  }
}

constexpr int kDelays = 13;  // d = 0, 100, .., 1200
constexpr int kFillReps = 8;
constexpr int kFillTrials = kDelays * 2 * kFillReps;

// fill_in_flight: two CTAs of one warp. ctl[0] ready (reader -> filler), ctl[1] flag (filler ->
// reader), ctl[2..3] the two CTAs' SM ids. out[5 t + 0..4] for trial t: filler latency, reader
// latency on the filled line, reader's warm-hit latency, reader's cold-miss latency, cycles the
// reader polled before it saw the flag.
__global__ void fill_in_flight(const unsigned* lines, const unsigned* warm_lines, const unsigned* cold_lines,
                               unsigned* ctl, unsigned long long* out) {
  extern __shared__ unsigned dyn[];
  const int lane = threadIdx.x & 31;
  if (lane == 0) ctl[2 + blockIdx.x] = mb_smid();
  for (int t = 0; t < kFillTrials; ++t) {
    const unsigned* line = lines + (size_t)t * kColdStride;
    if (blockIdx.x == 0) {  // filler
      if (lane == 0)
        while (ld_vol(&ctl[0]) != (unsigned)t + 1) {
        }
      __syncwarp();
      const unsigned long long t0 = mb_clock64();
      const unsigned m = ld_nc(line + lane);
      if (lane == 0) st_vol(&ctl[1], t + 1);
      sts(&dyn[lane], m);
      const unsigned long long t1 = mb_clock64();
      if (lane == 0) out[5 * t] = t1 - t0;
    } else if (lane == 0) {  // reader
      const int d = (t % kDelays) * 100, sector = (t / kDelays) % 2 ? 3 : 0;
      // its own references first (nothing outstanding), then the handshake
      unsigned long long t0 = mb_clock64();
      sts(&dyn[0], ld_nc(warm_lines + (size_t)t * kWarmStride));
      unsigned long long t1 = mb_clock64();
      out[5 * t + 2] = t1 - t0;
      t0 = mb_clock64();
      sts(&dyn[1], ld_nc(cold_lines + (size_t)t * kColdStride));
      t1 = mb_clock64();
      out[5 * t + 3] = t1 - t0;
      st_vol(&ctl[0], t + 1);
      const unsigned long long p0 = mb_clock64();
      while (ld_vol(&ctl[1]) != (unsigned)t + 1) {
      }
      const unsigned long long p1 = mb_clock64();
      spin(d);
      t0 = mb_clock64();
      sts(&dyn[2], ld_nc(line + sector * 8));
      t1 = mb_clock64();
      out[5 * t + 1] = t1 - t0;
      out[5 * t + 4] = p1 - p0;
    }
    __syncwarp();
  }
}

constexpr int kFarLines = 128;

// far_l2: out[cta * 129 + 0] the SM id, out[cta * 129 + 1 + j] line j's latency.
__global__ void far_l2(const unsigned* warm_lines, unsigned long long* out) {
  extern __shared__ unsigned dyn[];
  if (threadIdx.x != 0) return;
  unsigned long long* o = out + (size_t)blockIdx.x * (kFarLines + 1);
  o[0] = mb_smid();
  for (int j = 0; j < kFarLines; ++j) {
    const unsigned long long t0 = mb_clock64();
    sts(&dyn[0], ld_cg(warm_lines + (size_t)j * kWarmStride));
    const unsigned long long t1 = mb_clock64();
    o[1 + j] = t1 - t0;
  }
}

// march: st7_march with stamps. kHalo: 0 the validation kernel's loads, 1 halo loads as
// ld.global.cg. xcol_mul/xcol_add map blockIdx.x to the tile column (1, 0 dense; 2, 1 sparse).
// trace[(warp * (nz - 2) + (z - 1)) * 4 + k]: loop top, after x halo, after y halo, loop end.
// cta_sm[cta]: the SM.
template <int kHalo>
__global__ void march(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, int xcol_mul,
                      int xcol_add, long long* __restrict__ trace, unsigned* __restrict__ cta_sm) {
  __shared__ float t[8 + 2][32 + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int bx = blockIdx.x * xcol_mul + xcol_add;
  const int x = bx * 32 + tx, y = blockIdx.y * 8 + ty;
  const int cta = blockIdx.y * gridDim.x + blockIdx.x, warp = cta * 8 + ty;
  if (tx == 0 && ty == 0) cta_sm[cta] = mb_smid();
  auto halo = [&](int hx, int hy, int hz) -> float {
    if (kHalo == 1) {
      float v;
      asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(in + IDX(hx, hy, hz)) : "memory");
      return v;
    }
    return in[IDX(hx, hy, hz)];
  };
  float below = in[IDX(x, y, 0)];
  float cur = in[IDX(x, y, 1)];
  out[IDX(x, y, 0)] = below;
  for (int z = 1; z < nz - 1; ++z) {
    const long long t0 = (long long)mb_clock64();
    const float above = in[IDX(x, y, z + 1)];
    t[ty + 1][tx + 1] = cur;
    if (tx == 0) t[ty + 1][0] = x > 0 ? halo(x - 1, y, z) : 0.0f;
    if (tx == 31) t[ty + 1][33] = x < nx - 1 ? halo(x + 1, y, z) : 0.0f;
    const long long t1 = (long long)mb_clock64();
    if (ty == 0) t[0][tx + 1] = y > 0 ? halo(x, y - 1, z) : 0.0f;
    if (ty == 7) t[9][tx + 1] = y < ny - 1 ? halo(x, y + 1, z) : 0.0f;
    const long long t2 = (long long)mb_clock64();
    __syncthreads();
    float r = cur;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1)
      r = 0.4f * cur + 0.1f * (t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] + below + above);
    out[IDX(x, y, z)] = r;
    __syncthreads();
    if (tx == 0) {
      long long* p = trace + ((size_t)warp * (nz - 2) + (z - 1)) * 4;
      p[0] = t0;
      p[1] = t1;
      p[2] = t2;
      p[3] = (long long)mb_clock64();
    }
    below = cur;
    cur = above;
  }
  out[IDX(x, y, nz - 1)] = cur;
}

#if defined(__NVCC__)
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "standalone_host.cuh"

static double median(std::vector<double> v) {
  if (v.empty()) return -1.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
static std::vector<unsigned long long> fetch(const unsigned long long* d, size_t n) {
  std::vector<unsigned long long> h(n);
  CK(cudaMemcpy(h.data(), d, n * 8, cudaMemcpyDeviceToHost));
  return h;
}
static void print_deciles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("[");
  for (int d = 0; d <= 10; ++d)
    std::printf("%.0f%s", v.empty() ? -1.0 : v[std::min(v.size() - 1, v.size() * d / 10)], d < 10 ? ", " : "");
  std::printf("]");
}

int main(int argc, char** argv) {
  const char* matrix_path = argc > 1 ? argv[1] : "far_l2_matrix.csv";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  // 256 MiB of lines: words [0, 8 Mi) warm candidates, [16 Mi, 64 Mi) cold lines
  const size_t words = (size_t)64 << 20;
  unsigned *mem, *sink, *ctl;
  CK(cudaMalloc(&mem, words * 4));
  CK(cudaMemset(mem, 0, words * 4));
  const size_t flush_words = (size_t)64 << 20;
  unsigned* flush;
  CK(cudaMalloc(&flush, flush_words * 4));
  CK(cudaMemset(flush, 0, flush_words * 4));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&ctl, 64));
  unsigned long long* out;
  const size_t out_words = (size_t)sms * (kFarLines + 1) + 4096;
  CK(cudaMalloc(&out, out_words * 8));
  const unsigned* warm_base = mem;
  const unsigned* cold_base = mem + ((size_t)16 << 20);
  auto read_flush = [&] {
    flush_read<<<4 * sms, 512>>>(reinterpret_cast<const uint4*>(flush), flush_words / 4, sink);
    CK(cudaDeviceSynchronize());
  };
  auto flush_queued = [&] {
    flush_read<<<4 * sms, 512>>>(reinterpret_cast<const uint4*>(flush), flush_words / 4, sink);
  };
  auto warm_lines = [&](const unsigned* base, unsigned n) {
    warm<<<sms, 128>>>(base, n, kWarmStride, sink);
    CK(cudaDeviceSynchronize());
  };
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"clock_khz\": %d,\n", prop.name, sms, clock_khz);

  // alone
  {
    read_flush();
    warm_lines(warm_base, kTrials);
    CK(cudaMemset(out, 0, 2 * kTrials * 8));
    alone<<<1, 32>>>(warm_base, cold_base, out);
    CK(cudaDeviceSynchronize());
    const auto h = fetch(out, 2 * kTrials);
    std::vector<double> hit(h.begin() + 1, h.begin() + kTrials), miss(h.begin() + kTrials + 1, h.begin() + 2 * kTrials);
    std::printf("\"alone\": {\"l2_hit_median\": %.0f, \"l2_hit_deciles\": ", median(hit));
    print_deciles(hit);
    std::printf(", \"hbm_miss_median\": %.0f, \"hbm_miss_deciles\": ", median(miss));
    print_deciles(miss);
    std::printf("},\n");
  }

  // behind_miss
  {
    const char* names[] = {"same_warp",    "divergent",        "other_warp_1",
                           "other_warp_8", "same_smsp_warp_1", "same_smsp_warp_8"};
    std::printf("\"behind_miss\": {\n");
    for (int m = 0; m < 6; ++m) {
      read_flush();
      warm_lines(warm_base, 2 * kTrials);
      CK(cudaMemset(out, 0, 3 * kTrials * 8));
      switch (m) {
        case 0:
          behind_miss<0><<<1, 64>>>(warm_base, cold_base, out);
          break;
        case 1:
          behind_miss<1><<<1, 64>>>(warm_base, cold_base, out);
          break;
        case 2:
          behind_miss<2><<<1, 64>>>(warm_base, cold_base, out);
          break;
        case 3:
          behind_miss<3><<<1, 64>>>(warm_base, cold_base, out);
          break;
        case 4:
          behind_miss<4><<<1, 160>>>(warm_base, cold_base, out);
          break;
        default:
          behind_miss<5><<<1, 160>>>(warm_base, cold_base, out);
          break;
      }
      CK(cudaDeviceSynchronize());
      const auto h = fetch(out, 3 * kTrials);
      std::vector<double> with(h.begin() + 1, h.begin() + kTrials),
          none(h.begin() + kTrials + 1, h.begin() + 2 * kTrials),
          miss(h.begin() + 2 * kTrials + 1, h.begin() + 3 * kTrials);
      std::printf("  \"%s\": {\"hit_with_miss_outstanding_median\": %.0f, \"deciles\": ", names[m], median(with));
      print_deciles(with);
      std::printf(", \"hit_alone_median\": %.0f", median(none));
      if (m <= 1) std::printf(", \"miss_median\": %.0f", median(miss));
      std::printf("}%s\n", m < 5 ? "," : "");
    }
    std::printf("},\n");
  }

  // fill_in_flight
  {
    read_flush();
    warm_lines(warm_base, kFillTrials);
    CK(cudaMemset(ctl, 0, 64));
    CK(cudaMemset(out, 0, 5 * kFillTrials * 8));
    const int smem = 160 * 1024;  // one CTA per SM
    CK(cudaFuncSetAttribute(fill_in_flight, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    fill_in_flight<<<2, 32, smem>>>(cold_base + ((size_t)24 << 20), warm_base, cold_base, ctl, out);
    CK(cudaDeviceSynchronize());
    const auto h = fetch(out, 5 * kFillTrials);
    unsigned sm_ids[4];
    CK(cudaMemcpy(sm_ids, ctl, 16, cudaMemcpyDeviceToHost));
    std::printf("\"fill_in_flight\": {\"filler_sm\": %u, \"reader_sm\": %u, \"by_delay\": [\n", sm_ids[2], sm_ids[3]);
    for (int d = 0; d < kDelays; ++d) {
      std::printf("  {\"delay\": %d", d * 100);
      for (int s = 0; s < 2; ++s) {
        std::vector<double> fl, rd, wh, cm, poll;
        for (int t = 0; t < kFillTrials; ++t) {
          if (t % kDelays != d || (t / kDelays) % 2 != s || t < kDelays * 2) continue;  // first round: warm-up
          fl.push_back(h[5 * t]);
          rd.push_back(h[5 * t + 1]);
          wh.push_back(h[5 * t + 2]);
          cm.push_back(h[5 * t + 3]);
          poll.push_back(h[5 * t + 4]);
        }
        std::printf(
            ", \"sector%d\": {\"reader\": %.0f, \"filler\": %.0f, \"reader_warm_hit\": %.0f, \"reader_cold_miss\": "
            "%.0f, \"poll\": %.0f}",
            s ? 3 : 0, median(rd), median(fl), median(wh), median(cm), median(poll));
      }
      std::printf("}%s\n", d < kDelays - 1 ? "," : "");
    }
    std::printf("]},\n");
  }

  // far_l2
  {
    read_flush();
    warm_lines(warm_base, kFarLines);
    const int smem = 160 * 1024;
    CK(cudaFuncSetAttribute(far_l2, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaMemset(out, 0, out_words * 8));
    far_l2<<<sms, 32, smem>>>(warm_base, out);  // a first pass: every line in the L2 from every SM
    CK(cudaDeviceSynchronize());
    far_l2<<<sms, 32, smem>>>(warm_base, out);
    CK(cudaDeviceSynchronize());
    const auto h = fetch(out, (size_t)sms * (kFarLines + 1));
    std::vector<double> all;
    std::map<int, int> hist;  // 16-cycle bins
    FILE* f = std::fopen(matrix_path, "w");
    if (f) std::fprintf(f, "sm");
    for (int j = 0; f && j < kFarLines; ++j) std::fprintf(f, ",line%d", j);
    if (f) std::fprintf(f, "\n");
    for (int b = 0; b < sms; ++b) {
      const unsigned long long* o = &h[(size_t)b * (kFarLines + 1)];
      if (f) std::fprintf(f, "%llu", o[0]);
      for (int j = 0; j < kFarLines; ++j) {
        if (f) std::fprintf(f, ",%llu", o[1 + j]);
        if (j == 0) continue;
        all.push_back((double)o[1 + j]);
        ++hist[(int)(o[1 + j] / 16) * 16];
      }
      if (f) std::fprintf(f, "\n");
    }
    if (f) std::fclose(f);
    std::printf("\"far_l2\": {\"median\": %.0f, \"deciles\": ", median(all));
    print_deciles(all);
    std::printf(", \"histogram_16cycle_bins\": {");
    bool first = true;
    for (const auto& [bin, n] : hist) {
      std::printf("%s\"%d\": %d", first ? "" : ", ", bin, n);
      first = false;
    }
    std::printf("}, \"matrix_csv\": \"%s\"},\n", matrix_path);
  }

  // march
  {
    const int nx = 256, ny = 256, nz = 256;
    const size_t n = (size_t)nx * ny * nz;
    float *in, *mout;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&mout, n * 4));
    std::vector<float> hin(n);
    for (size_t i = 0; i < n; ++i) hin[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    CK(cudaMemcpy(in, hin.data(), n * 4, cudaMemcpyHostToDevice));
    const size_t trace_n = (size_t)8 * 32 * 8 * (nz - 2) * 4;
    long long* trace;
    unsigned* cta_sm;
    CK(cudaMalloc(&trace, trace_n * 8));
    CK(cudaMalloc(&cta_sm, 256 * 4));
    const char* names[] = {"dense", "sparse", "dense_cg"};
    std::printf("\"march_256\": {\n");
    for (int m = 0; m < 3; ++m) {
      const int mul = m == 1 ? 2 : 1, add = m == 1 ? 1 : 0;
      const dim3 grid(m == 1 ? 4 : 8, 32), block(32, 8);
      auto launch = [&] {
        if (m == 2)
          march<1><<<grid, block>>>(in, mout, nx, ny, nz, mul, add, trace, cta_sm);
        else
          march<0><<<grid, block>>>(in, mout, nx, ny, nz, mul, add, trace, cta_sm);
      };
      const auto times = event_times_ms(launch, 9, flush_queued, 2);
      CK(cudaMemset(trace, 0, trace_n * 8));
      read_flush();
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<long long> tr(trace_n);
      CK(cudaMemcpy(tr.data(), trace, trace_n * 8, cudaMemcpyDeviceToHost));
      const int ctas = grid.x * grid.y;
      std::vector<unsigned> sm(ctas);
      CK(cudaMemcpy(sm.data(), cta_sm, ctas * 4, cudaMemcpyDeviceToHost));
      std::map<unsigned, int> per_sm;
      for (unsigned s : sm) ++per_sm[s];
      int two = 0;
      for (const auto& [s, k] : per_sm) two += k >= 2;
      std::vector<double> xh, yh, it;
      for (int w = 0; w < ctas * 8; ++w) {
        const int ty = w % 8;
        for (int z = 20; z < nz - 22; ++z) {
          const long long* p = &tr[((size_t)w * (nz - 2) + z) * 4];
          if (ty >= 1 && ty <= 6) xh.push_back((double)(p[1] - p[0]));
          if (ty == 0 || ty == 7) yh.push_back((double)(p[2] - p[1]));
          it.push_back((double)(p[4] - p[0]));  // the next iteration's loop top
        }
      }
      double xs = 0;
      for (double v : xh) xs += v;
      std::printf(
          "  \"%s\": {\"flushed_us\": %.2f, \"ctas\": %d, \"sms_used\": %zu, \"sms_with_2_or_more\": %d, "
          "\"x_halo_mean\": %.1f, \"x_halo_deciles\": ",
          names[m], times[times.size() / 2] * 1e3, ctas, per_sm.size(), two, xh.empty() ? -1.0 : xs / xh.size());
      print_deciles(xh);
      std::printf(", \"y_halo_median_ty0_7\": %.0f, \"iteration_median\": %.0f}%s\n", median(yh), median(it),
                  m < 2 ? "," : "");
    }
    std::printf("}\n}\n");
  }
  return 0;
}
#endif
