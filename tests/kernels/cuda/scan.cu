// Block-level prefix sums (the first phase of a device-wide scan):
//  - scan_blelloch_i32: work-efficient exclusive scan (Blelloch up-sweep / down-sweep) of
//                       2 * blockDim.x ints per block in shared memory; writes the block's exclusive
//                       scan to out and the block total to block_sums[blockIdx.x].
//                       blockDim.x must be a power of two <= 512.
//  - scan_warp_f32:     inclusive scan of blockDim.x floats per block: Hillis-Steele within each
//                       warp with __shfl_up_sync, then the warp totals are scanned by warp 0 and
//                       added back. blockDim.x must be a multiple of 32.

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

extern "C" __global__ void scan_warp_f32(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float warp_totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float v = i < n ? in[i] : 0.0f;
  for (int off = 1; off < 32; off <<= 1) {
    float u = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += u;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nwarps = blockDim.x >> 5;
    float t = lane < nwarps ? warp_totals[lane] : 0.0f;
    for (int off = 1; off < 32; off <<= 1) {
      float u = __shfl_up_sync(0xffffffffu, t, off);
      if (lane >= off) t += u;
    }
    warp_totals[lane] = t;  // now inclusive scan of the warp totals
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
}
