// Why a 3-D stencil that marches along z through a shared-memory plane (the grown validation
// set's st7_march, calibration/validation/h200/cuda/stencil3d_smem.cu) takes about 2000 cycles
// per plane on the H200, and what L1 hits of one-sector and two-line requests cost (the naive
// SGEMMs' A and B reads). Written for issue 17; standalone (nvcc -O3 -arch=sm_90 march_halo.cu).
//
// Part 1, the march (256 x 256 x 256 floats, block (32, 8), grid (8, 32), as st7_march_256):
//   orig      st7_march itself: above-plane load, then the x halo (lanes 0 and 31, two divergent
//             paths) and the y halo (warps 0 and 7), each load followed by its shared store
//   nohalo    the same without the halo loads (zeros): the above-plane load and the barriers
//   hoisted   the halo loads issued right after the above-plane load, branch-free (one predicated
//             x-halo load and one y-halo load per lane), stored after them
//   trace     orig with clock64 stamps (lane 0 of every warp): loop top, after the x halo's
//             stores, after the y halo's, after the first barrier, at the loop's end
// Each timed after a 256 MiB read flush (clean cold L2, as the validation set) and with no flush
// (the grid's 64 MiB mostly in the 60 MiB L2).
//
// Part 2, L1 hits: 2 CTAs of 1024 threads per SM read a 16 KiB L1-resident region with
// ld.global.nc, eight independent loads per iteration, in five request shapes: one sector
// (a warp-wide broadcast), one line (32 consecutive floats), half a line (16 floats, both
// half-warps the same), two lines one sector each (half-warps on two rows), two lines two sectors
// each. Prints requests per SM-cycle (clock64 over each CTA).
#include <algorithm>
#include <cstdint>
#include <cstdio>

#define IDX(x, y, z) (((size_t)(z) * ny + (y)) * nx + (x))

__device__ __forceinline__ long long stamp() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

template <int kMode>
__global__ void march(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, float c0, float c1,
                      long long* __restrict__ trace) {
  __shared__ float t[8 + 2][32 + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx, y = blockIdx.y * 8 + ty;
  float below = in[IDX(x, y, 0)];
  float cur = in[IDX(x, y, 1)];
  out[IDX(x, y, 0)] = below;
  const int warp = (blockIdx.y * gridDim.x + blockIdx.x) * 8 + ty;
  for (int z = 1; z < nz - 1; ++z) {
    long long t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    if (kMode == 3) t0 = stamp();
    float above = in[IDX(x, y, z + 1)];
    if (kMode == 2) {
      const bool hx = (tx == 0 && x > 0) || (tx == 31 && x < nx - 1);
      const bool hy = (ty == 0 && y > 0) || (ty == 7 && y < ny - 1);
      const float vx = hx ? __ldg(&in[IDX(tx == 0 ? x - 1 : x + 1, y, z)]) : 0.0f;
      const float vy = hy ? __ldg(&in[IDX(x, ty == 0 ? y - 1 : y + 1, z)]) : 0.0f;
      t[ty + 1][tx + 1] = cur;
      if (tx == 0 || tx == 31) t[ty + 1][tx == 0 ? 0 : 33] = vx;
      if (ty == 0 || ty == 7) t[ty == 0 ? 0 : 9][tx + 1] = vy;
    } else {
      t[ty + 1][tx + 1] = cur;
      if (kMode == 1) {
        if (tx == 0) t[ty + 1][0] = 0.0f;
        if (tx == 31) t[ty + 1][33] = 0.0f;
        if (ty == 0) t[0][tx + 1] = 0.0f;
        if (ty == 7) t[9][tx + 1] = 0.0f;
      } else {
        if (tx == 0) t[ty + 1][0] = x > 0 ? in[IDX(x - 1, y, z)] : 0.0f;
        if (tx == 31) t[ty + 1][33] = x < nx - 1 ? in[IDX(x + 1, y, z)] : 0.0f;
        if (kMode == 3) t1 = stamp();
        if (ty == 0) t[0][tx + 1] = y > 0 ? in[IDX(x, y - 1, z)] : 0.0f;
        if (ty == 7) t[9][tx + 1] = y < ny - 1 ? in[IDX(x, y + 1, z)] : 0.0f;
        if (kMode == 3) t2 = stamp();
      }
    }
    __syncthreads();
    if (kMode == 3) t3 = stamp();
    float r = cur;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1)
      r = c0 * cur + c1 * (t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] + below + above);
    out[IDX(x, y, z)] = r;
    __syncthreads();
    if (kMode == 3 && tx == 0) {
      long long* p = trace + ((size_t)warp * (nz - 2) + (z - 1)) * 5;
      p[0] = t0;
      p[1] = t1;
      p[2] = t2;
      p[3] = t3;
      p[4] = stamp();
    }
    below = cur;
    cur = above;
  }
  out[IDX(x, y, nz - 1)] = cur;
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

// Part 2: L1-hit request shapes. `region` holds 4096 floats (16 KiB).
template <int kShape>
__global__ void __launch_bounds__(1024) l1_shapes(const float* __restrict__ region, float* __restrict__ out, int iters,
                                                  long long* __restrict__ span) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int off;  // the lane's word within a 1 KiB row pair (rows are 256 floats apart)
  switch (kShape) {
    case 0: off = 0; break;                                // broadcast: 1 line, 1 sector
    case 1: off = lane; break;                             // 1 line, 4 sectors
    case 2: off = lane & 15; break;                        // 1 line, 2 sectors (both half-warps alike)
    case 3: off = (lane >> 4) * 256; break;                // 2 lines, 1 sector each
    default: off = (lane >> 4) * 256 + (lane & 15); break;  // 2 lines, 2 sectors each
  }
  float acc = 0.0f;
  const long long t0 = stamp();
  for (int i = 0; i < iters; ++i) {
    const int base = ((i * 8 + warp) & 7) * 32;  // 8 line-aligned starts within the first 1 KiB row
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += __ldg(&region[(base + j * 512 + off) & 4095]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    span[blockIdx.x * 2] = t0;
    span[blockIdx.x * 2 + 1] = stamp();
  }
  if (acc == 12345.0f) out[threadIdx.x] = acc;
}

#if defined(__NVCC__)
#include <string>
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
  long long* trace;
  const size_t trace_n = (size_t)8 * 32 * 8 * (nz - 2) * 5;
  CK(cudaMalloc(&trace, trace_n * 8));
  auto read_flush = [&] { flush_read<<<1056, 512>>>(reinterpret_cast<const float4*>(flush), flush_n / 4, sink); };
  const dim3 grid(nx / 32, ny / 8), block(32, 8);
  const char* names[] = {"orig", "nohalo", "hoisted", "trace"};
  std::printf("{\n  \"march_256\": {\n");
  for (int m = 0; m < 4; ++m) {
    auto launch = [&] {
      switch (m) {
        case 0: march<0><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, trace); break;
        case 1: march<1><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, trace); break;
        case 2: march<2><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, trace); break;
        default: march<3><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, trace); break;
      }
    };
    auto flushed = event_times_ms(launch, 15, read_flush, 2);
    auto warm = event_times_ms(launch, 15, [] {}, 2);
    std::printf("    \"%s\": {\"flushed_us\": %.2f, \"warm_us\": %.2f}%s\n", names[m], flushed[flushed.size() / 2] * 1e3,
                warm[warm.size() / 2] * 1e3, m < 3 ? "," : "");
  }
  std::printf("  },\n");
  // one traced launch after a read flush (the validation set's state)
  read_flush();
  march<3><<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f, trace);
  CK(cudaDeviceSynchronize());
  std::vector<long long> tr(trace_n);
  CK(cudaMemcpy(tr.data(), trace, trace_n * 8, cudaMemcpyDeviceToHost));
  // per warp row ty: mean cycles of the x-halo section, the y-halo section, the wait at the first
  // barrier, the rest; and the whole iteration (loop top to loop top)
  std::printf("  \"trace_cycles_by_ty\": [\n");
  for (int ty = 0; ty < 8; ++ty) {
    double s[5] = {0, 0, 0, 0, 0};
    long cnt = 0;
    for (int w = ty; w < 8 * 32 * 8; w += 8)
      for (int z = 20; z < nz - 22; ++z) {
        const long long* p = &tr[((size_t)w * (nz - 2) + z) * 5];
        const long long* q = p + 5;
        s[0] += p[1] - p[0];
        s[1] += p[2] - p[1];
        s[2] += p[3] - p[2];
        s[3] += p[4] - p[3];
        s[4] += q[0] - p[0];
        ++cnt;
      }
    std::printf("    {\"ty\": %d, \"x_halo\": %.1f, \"y_halo\": %.1f, \"barrier1\": %.1f, \"rest\": %.1f, \"iteration\": %.1f}%s\n", ty,
                s[0] / cnt, s[1] / cnt, s[2] / cnt, s[3] / cnt, s[4] / cnt, ty < 7 ? "," : "");
  }
  std::printf("  ],\n");
  // distribution of the x-halo section of warps ty=3 (two divergent loads): deciles
  {
    std::vector<long long> v;
    for (int w = 3; w < 8 * 32 * 8; w += 8)
      for (int z = 20; z < nz - 22; ++z) {
        const long long* p = &tr[((size_t)w * (nz - 2) + z) * 5];
        v.push_back(p[1] - p[0]);
      }
    std::sort(v.begin(), v.end());
    std::printf("  \"x_halo_ty3_deciles\": [");
    for (int d = 0; d <= 10; ++d) std::printf("%lld%s", v[std::min(v.size() - 1, v.size() * d / 10)], d < 10 ? ", " : "");
    std::printf("],\n");
  }
  // Part 2
  float* region;
  CK(cudaMalloc(&region, 4096 * 4));
  CK(cudaMemcpy(region, h.data(), 4096 * 4, cudaMemcpyHostToDevice));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  long long* span;
  CK(cudaMalloc(&span, sms * 2 * 2 * 8));
  const int iters = 2048;
  const char* shapes[] = {"broadcast_1line_1sector", "1line_4sectors", "1line_2sectors", "2lines_1sector", "2lines_2sectors"};
  std::printf("  \"l1_hit_requests_per_sm_cycle\": {\n");
  for (int s = 0; s < 5; ++s) {
    auto launch = [&] {
      switch (s) {
        case 0: l1_shapes<0><<<sms * 2, 1024>>>(region, sink, iters, span); break;
        case 1: l1_shapes<1><<<sms * 2, 1024>>>(region, sink, iters, span); break;
        case 2: l1_shapes<2><<<sms * 2, 1024>>>(region, sink, iters, span); break;
        case 3: l1_shapes<3><<<sms * 2, 1024>>>(region, sink, iters, span); break;
        default: l1_shapes<4><<<sms * 2, 1024>>>(region, sink, iters, span); break;
      }
    };
    const double ms = median_ms(launch, 5);
    std::vector<long long> sp(sms * 4);
    CK(cudaMemcpy(sp.data(), span, sms * 4 * 8, cudaMemcpyDeviceToHost));
    double cyc = 0;
    for (int b = 0; b < sms * 2; ++b) cyc += (double)(sp[b * 2 + 1] - sp[b * 2]);
    cyc /= sms * 2;
    // two CTAs of 32 warps per SM run together: requests per SM = 2 x 32 x iters x 8
    const double req = 2.0 * 32 * iters * 8;
    std::printf("    \"%s\": {\"requests_per_cycle\": %.3f, \"cta_cycles\": %.0f, \"us\": %.1f}%s\n", shapes[s], req / cyc, cyc, ms * 1e3,
                s < 4 ? "," : "");
  }
  std::printf("  }\n}\n");
  return 0;
}
#endif

#if !defined(__NVCC__)
// kernsim's specs (calibration/microbenchmarks/cuda/specs_march) launch these instances.
template __global__ void march<0>(const float* __restrict__, float* __restrict__, int, int, int, float, float,
                                  long long* __restrict__);
template __global__ void march<1>(const float* __restrict__, float* __restrict__, int, int, int, float, float,
                                  long long* __restrict__);
template __global__ void march<2>(const float* __restrict__, float* __restrict__, int, int, int, float, float,
                                  long long* __restrict__);
template __global__ void march<3>(const float* __restrict__, float* __restrict__, int, int, int, float, float,
                                  long long* __restrict__);
#endif
