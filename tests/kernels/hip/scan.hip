// HIP port of tests/kernels/cuda/scan.cu for wave64. Block-level prefix sums:
//  - scan_blelloch_i32: work-efficient exclusive scan (Blelloch up-sweep / down-sweep) of
//                       2 * blockDim.x ints per block in shared memory; writes the block's exclusive
//                       scan to out and the block total to block_sums[blockIdx.x].
//                       blockDim.x must be a power of two <= 512.
//  - scan_wave_f32:     inclusive scan of blockDim.x floats per block: Hillis-Steele within each
//                       64-lane wave with __shfl_up, then the wave totals are scanned by wave 0 and
//                       added back. blockDim.x must be a multiple of 64.
#include <hip/hip_runtime.h>

extern "C" __global__ void scan_blelloch_i32(const int* __restrict__ in, int* __restrict__ out,
                                             int* __restrict__ block_sums, int n) {
  __shared__ int temp[1024];
  const int tid = threadIdx.x;
  const int m = 2 * blockDim.x;
  const int base = blockIdx.x * m;
  temp[2 * tid] = (base + 2 * tid < n) ? in[base + 2 * tid] : 0;
  temp[2 * tid + 1] = (base + 2 * tid + 1 < n) ? in[base + 2 * tid + 1] : 0;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {  // up-sweep: build partial sums in place
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    block_sums[blockIdx.x] = temp[m - 1];
    temp[m - 1] = 0;
  }
  for (int d = 1; d < m; d <<= 1) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = temp[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

extern "C" __global__ void scan_wave_f32(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float wave_totals[16];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 63, wave = threadIdx.x >> 6;
  float v = i < n ? in[i] : 0.0f;
  for (int off = 1; off < 64; off <<= 1) {
    float u = __shfl_up(v, off);
    if (lane >= off) v += u;
  }
  if (lane == 63) wave_totals[wave] = v;
  __syncthreads();
  if (wave == 0) {
    int nwaves = blockDim.x >> 6;
    float t = lane < nwaves ? wave_totals[lane] : 0.0f;
    for (int off = 1; off < 64; off <<= 1) {
      float u = __shfl_up(t, off);
      if (lane >= off) t += u;
    }
    if (lane < 16) wave_totals[lane] = t;  // now inclusive scan of the wave totals
  }
  __syncthreads();
  if (wave > 0) v += wave_totals[wave - 1];
  if (i < n) out[i] = v;
}
