// Where the marching 3-D stencil's plane goes (issue 17 item 1: st7_march_256 and st13_march_256
// of the grown H200 set are ~1.5x fast in kernsim; an H100 trace of march_halo.cu shows the x-halo
// section at ~1600 cycles where one HBM miss and one L2 hit would take ~1000, and the section after
// the first barrier at ~420 where kernsim takes ~150). march_halo.cu's nvcc build unrolls and
// software-pipelines the loop (the above-plane load issued an iteration early), unlike the
// validation kernel (clang PTX through ptxas: one iteration a trip, the load at the loop top), so
// this file keeps the validation kernel's shape: `#pragma unroll 1`, the loads in program order
// (asm volatile ld.global.nc, as clang's `ld.global.nc.b32`), the x halo as clang writes it
// (if lane 0 ... else if lane 31 ...: two sibling divergent paths under one reconvergence).
// Standalone: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a march_phases.cu; prints one JSON object.
//
// 256 x 256 x 256 floats, block (32, 8), grid (8, 32) (two CTAs on most SMs, as st7_march_256).
// Every variant stamps clock64 per iteration in registers (no trace stores in the loop) and lane 0 of
// each warp writes the sums of its sections over iterations 16 .. nz - 18 at the end:
//   x    loop top -> after the x halo's shared stores     (above-plane load + x halo)
//   y    -> after the y halo's (warps 0 and 7 load a row)
//   mid  -> after the output store is issued (first barrier, 4 LDS, the stencil, STG)
//   tail -> the next loop top (the second barrier; the barrier is DEFER_BLOCKING, so its wait
//           lands in the next section that needs it)
// Variants (kMode):
//   0 orig       the validation kernel
//   1 lane0      only lane 0 loads its x halo (lane 31 stores 0): one divergent load, not two
//   2 halofirst  the x and y halo loads and stores before the above-plane load (not behind a miss)
//   3 nostore    no output store in the loop (the stencil summed in a register, stored at the end)
//   4 nohalo     no halo loads (zeros stored): the above-plane load and the barriers alone
//   5 xpred      the x halo as one predicated load by lanes 0 and 31 (one request, no divergence)
//   6 stafter    the output store after the second barrier (not between the LDS and the barrier)
//   7 stagger    orig, but each CTA first spins (linear CTA id % 8) x 256 cycles, so the CTAs' above-
//                plane loads do not reach HBM as one synchronised burst (kernsim's HBM queue sees
//                the load averaged over ~4 latencies, not the bursts)
// Printed per variant: flushed time (CUDA events after a 256 MiB read flush, median of 9) and the
// mean section cycles of warps ty 1..6 and of ty 0 and 7, and cycles per iteration.
#include <cstdint>

#include "mb_helpers.cuh"  // mb_clock64

#define IDX(x, y, z) (((size_t)(z) * ny + (y)) * nx + (x))

static __device__ __forceinline__ float ldnc(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

constexpr int kZ0 = 16;  // first iteration counted (z index)

template <int kMode>
__global__ void __launch_bounds__(256) march_phases(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                                    int nz, float c0, float c1, unsigned long long* __restrict__ sums) {
  __shared__ float t[8 + 2][32 + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx, y = blockIdx.y * 8 + ty;
  float below = ldnc(&in[IDX(x, y, 0)]);
  float cur = ldnc(&in[IDX(x, y, 1)]);
  out[IDX(x, y, 0)] = below;
  unsigned long long sx = 0, sy = 0, smid = 0, stail = 0, tprev = 0;
  float acc = 0.0f;
  const bool inner = x > 0 && x < nx - 1 && y > 0 && y < ny - 1;
  if (kMode == 7) {
    const unsigned long long start = mb_clock64();
    const unsigned long long spin = (unsigned long long)((blockIdx.y * gridDim.x + blockIdx.x) % 8) * 256;
    while (mb_clock64() - start < spin) {
    }
  }
#pragma unroll 1
  for (int z = 1; z < nz - 1; ++z) {
    const unsigned long long t0 = mb_clock64();
    if (z > kZ0 && z < nz - kZ0) stail += t0 - tprev;
    float above = 0.0f;
    if (kMode != 2) above = ldnc(&in[IDX(x, y, z + 1)]);
    t[ty + 1][tx + 1] = cur;
    if (kMode == 4) {
      if (tx == 0) t[ty + 1][0] = 0.0f;
      else if (tx == 31) t[ty + 1][33] = 0.0f;
    } else if (kMode == 5) {
      const bool hx = (tx == 0 && x > 0) || (tx == 31 && x < nx - 1);
      const float v = hx ? ldnc(&in[IDX(tx == 0 ? x - 1 : x + 1, y, z)]) : 0.0f;
      if (tx == 0 || tx == 31) t[ty + 1][tx == 0 ? 0 : 33] = v;
    } else {
      if (tx == 0) t[ty + 1][0] = x > 0 ? ldnc(&in[IDX(x - 1, y, z)]) : 0.0f;
      else if (tx == 31) t[ty + 1][33] = (kMode != 1 && x < nx - 1) ? ldnc(&in[IDX(x + 1, y, z)]) : 0.0f;
    }
    const unsigned long long t1 = mb_clock64();
    if (kMode == 4) {
      if (ty == 0) t[0][tx + 1] = 0.0f;
      else if (ty == 7) t[9][tx + 1] = 0.0f;
    } else {
      if (ty == 0) t[0][tx + 1] = y > 0 ? ldnc(&in[IDX(x, y - 1, z)]) : 0.0f;
      else if (ty == 7) t[9][tx + 1] = y < ny - 1 ? ldnc(&in[IDX(x, y + 1, z)]) : 0.0f;
    }
    if (kMode == 2) above = ldnc(&in[IDX(x, y, z + 1)]);
    const unsigned long long t2 = mb_clock64();
    __syncthreads();
    float r = cur;
    if (inner) r = c0 * cur + c1 * (t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] + below + above);
    if (kMode == 3) acc += r;
    else if (kMode != 6) out[IDX(x, y, z)] = r;
    const unsigned long long t3 = mb_clock64();
    __syncthreads();
    if (kMode == 6) out[IDX(x, y, z)] = r;
    if (z >= kZ0 && z < nz - kZ0) {
      sx += t1 - t0;
      sy += t2 - t1;
      smid += t3 - t2;
    }
    tprev = t3;
    below = cur;
    cur = above;
  }
  out[IDX(x, y, nz - 1)] = cur + acc * 1e-30f;
  if (tx == 0) {
    unsigned long long* p = sums + ((size_t)(blockIdx.y * gridDim.x + blockIdx.x) * 8 + ty) * 4;
    p[0] = sx;
    p[1] = sy;
    p[2] = smid;
    p[3] = stail;
  }
}

// The L2 flush: reads 256 MiB (the L2 ends clean, as the validation set is measured).
__global__ void flush_read(const float4* __restrict__ buf, size_t n, float* __restrict__ sink) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = buf[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.0f) sink[0] = acc;
}

#if defined(__NVCC__)
#include <vector>

#include "standalone_host.cuh"

int main() {
  const int nx = 256, ny = 256, nz = 256;
  const size_t n = (size_t)nx * ny * nz;
  float *in, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  const size_t flush_n = (size_t)64 << 20;  // 256 MiB
  float *flush, *sink;
  CK(cudaMalloc(&flush, flush_n * 4));
  CK(cudaMemset(flush, 0, flush_n * 4));
  CK(cudaMalloc(&sink, 4096));
  const dim3 grid(nx / 32, ny / 8), block(32, 8);
  const int warps = grid.x * grid.y * 8;
  unsigned long long* sums;
  CK(cudaMalloc(&sums, (size_t)warps * 4 * 8));
  auto read_flush = [&] { flush_read<<<1056, 512>>>(reinterpret_cast<const float4*>(flush), flush_n / 4, sink); };
  const char* names[] = {"orig", "lane0", "halofirst", "nostore", "nohalo", "xpred", "stafter", "stagger"};
  const int iters = nz - 2 * kZ0;
  int clk = 0;
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  std::printf("{\n  \"clock_khz\": %d, \"counted_iterations\": %d,\n  \"march_phases_256\": {\n", clk, iters);
  for (int m = 0; m < 8; ++m) {
    auto launch = [&] {
      switch (m) {
        case 0: march_phases<0><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        case 1: march_phases<1><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        case 2: march_phases<2><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        case 3: march_phases<3><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        case 4: march_phases<4><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        case 5: march_phases<5><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        case 6: march_phases<6><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
        default: march_phases<7><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, sums); break;
      }
    };
    auto flushed = event_times_ms(launch, 9, read_flush, 2);
    // the sums of the last flushed launch
    std::vector<unsigned long long> s((size_t)warps * 4);
    CK(cudaMemcpy(s.data(), sums, s.size() * 8, cudaMemcpyDeviceToHost));
    double mid_rows[4] = {0, 0, 0, 0}, edge_rows[4] = {0, 0, 0, 0};
    long nm = 0, ne = 0;
    for (int w = 0; w < warps; ++w) {
      const int ty = w % 8;
      double* d = (ty == 0 || ty == 7) ? edge_rows : mid_rows;
      for (int k = 0; k < 4; ++k) d[k] += (double)s[(size_t)w * 4 + k] / iters;
      (ty == 0 || ty == 7) ? ++ne : ++nm;
    }
    for (int k = 0; k < 4; ++k) {
      mid_rows[k] /= nm;
      edge_rows[k] /= ne;
    }
    const double us = flushed[flushed.size() / 2] * 1e3;
    std::printf("    \"%s\": {\"flushed_us\": %.2f, \"min_us\": %.2f, \"cycles_per_plane\": %.1f,\n", names[m], us, flushed[0] * 1e3,
                us * clk / 1e3 / (nz - 2));
    std::printf("      \"ty1_6\": {\"x\": %.1f, \"y\": %.1f, \"mid\": %.1f, \"tail\": %.1f},\n", mid_rows[0], mid_rows[1], mid_rows[2],
                mid_rows[3]);
    std::printf("      \"ty0_7\": {\"x\": %.1f, \"y\": %.1f, \"mid\": %.1f, \"tail\": %.1f}}%s\n", edge_rows[0], edge_rows[1], edge_rows[2],
                edge_rows[3], m < 7 ? "," : "");
  }
  std::printf("  }\n}\n");
  return 0;
}
#endif

#if !defined(__NVCC__)
// kernsim's specs (calibration/microbenchmarks/cuda/specs_march) launch these instances.
#define KS_INST(M)                                                                                                   \
  template __global__ void march_phases<M>(const float* __restrict__, float* __restrict__, int, int, int, float, float, \
                                           unsigned long long* __restrict__);
KS_INST(0)
KS_INST(1)
KS_INST(2)
KS_INST(3)
KS_INST(4)
KS_INST(5)
KS_INST(6)
KS_INST(7)
#endif
