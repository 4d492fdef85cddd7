// The first matrix instruction of a kernel: does it cost more than the later ones? One warp per
// CTA runs four iterations of a loop whose body is one mma.sync m16n8k16 f16->f32 (kind 0) or
// one FFMA (kind 1) followed by a dependent add, timed with clock64 around each iteration. The
// same code runs in every iteration, so the instruction cache is warm from the second on; the
// FFMA kernel shows what a cold first iteration costs without the tensor pipe.
//
//   nvcc -O3 -arch=sm_90a -o tensor_first_use tensor_first_use.cu && ./tensor_first_use
// prints one JSON object: per kind, grid and idle gap before each launch, the median over
// launches (and over CTAs) of the cycles of iterations 0..3.
#include "mb_helpers.cuh"  // mb_clock64, mb_smid

extern "C" __global__ void first_use(unsigned long long* out, int kind, float x) {
  unsigned a0 = 0x3c003c00u ^ threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = a0 + 4, b1 = a0 + 5;
  float d0 = x, d1 = x, d2 = x, d3 = x;
  unsigned long long t[4];
#pragma unroll 1
  for (int i = 0; i < 4; ++i) {
    const unsigned long long s = mb_clock64();
    if (kind == 0) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
          : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    } else {
      asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(d0) : "f"(x));
    }
    asm volatile("add.f32 %0, %0, 0f3F800000;" : "+f"(d0));  // waits for the result
    const unsigned long long e = mb_clock64();
    t[i] = e - s;
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < 4; ++i) out[blockIdx.x * 6 + i] = t[i];
    out[blockIdx.x * 6 + 4] = mb_smid();
    out[blockIdx.x * 6 + 5] = __float_as_uint(d0 + d1 + d2 + d3);
  }
}

#if defined(__NVCC__)
#include <unistd.h>

#include "standalone_host.cuh"

int main() {
  unsigned long long* out;
  const int max_grid = 132;
  CK(cudaMalloc(&out, max_grid * 6 * sizeof(unsigned long long)));
  std::vector<unsigned long long> h(max_grid * 6);
  std::printf("{\"what\": \"cycles of loop iterations 0..3 (mma.sync f16 or FFMA, then a dependent FADD), medians\", \"rows\": [");
  bool first = true;
  for (int kind = 0; kind < 2; ++kind)
    for (int grid : {1, 132})
      for (int gap_us : {0, 20000}) {
        std::vector<std::vector<double>> it(4);
        for (int rep = 0; rep < 15; ++rep) {
          if (gap_us) usleep(gap_us);
          first_use<<<grid, 32>>>(out, kind, 1.0f);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(h.data(), out, grid * 6 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
          for (int b = 0; b < grid; ++b)
            for (int i = 0; i < 4; ++i) it[i].push_back(static_cast<double>(h[b * 6 + i]));
        }
        std::printf("%s{\"kind\": \"%s\", \"grid\": %d, \"idle_us_before\": %d, \"cycles\": [", first ? "" : ", ", kind == 0 ? "mma_f16" : "ffma",
                    grid, gap_us);
        first = false;
        for (int i = 0; i < 4; ++i) {
          std::sort(it[i].begin(), it[i].end());
          std::printf("%s%.1f", i ? ", " : "", it[i][it[i].size() / 2]);
        }
        std::printf("], \"p90_iter0\": %.1f}", it[0][it[0].size() * 9 / 10]);
      }
  std::printf("]}\n");
  return 0;
}
#endif
