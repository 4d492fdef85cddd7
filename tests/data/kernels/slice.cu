// Kernels for the SM-slice tests: an in-place update (each element must change exactly once,
// however the timing model samples) and a compute-heavy loop.
extern "C" __global__ void axpy_inplace(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// The same, `a` read from memory: every CTA reads its line (CTAs that share a line get the slice's
// L2 warm-up; the launch above, whose CTAs share none, runs without it).
extern "C" __global__ void axpy_inplace_a(const float* a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a[0] * x[i] + y[i];
}

extern "C" __global__ void fma_loop(float* out, int iters) {
  float v = threadIdx.x * 0.001f, w = 1.0001f;
  for (int k = 0; k < iters; ++k) v = v * w + 0.5f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Reads x twice, each pass a grid-stride loop over all of it, past L1 (ld.global.cg: a thread's
// few elements would otherwise hit there the second time): on the chip the second pass hits in
// L2 only when the whole buffer fits there; a slice reads only its share of each pass.
extern "C" __global__ void read_twice(const float* x, float* out, int n) {
  const int stride = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int i = t; i < n; i += stride) s += __ldcg(&x[i]);
  for (int i = t; i < n; i += stride) s = s * 0.5f + __ldcg(&x[i]);
  out[t] = s;
}

// Thread `longest` chases `steps` pointers through `next`, every other thread `others`: the launch
// ends when that thread does, long after the rest of the grid (a power-law SpMV's longest row).
extern "C" __global__ void one_long_thread(const int* next, int* out, int mask, int steps, int longest, int others) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = t == longest ? steps : others;
  int p = t & mask;
  for (int k = 0; k < n; ++k) p = next[p];
  out[t] = p;
}

// Every `period`-th thread chases `steps` pointers through `next`, every other thread runs `others`
// dependent FMAs: a few latency-bound long CTAs (a power-law SpMV's long rows) among CTAs of
// quick arithmetic; CTA 0, the first CTA the estimate of a CTA's work samples, is one of the long.
extern "C" __global__ void long_rows(const int* next, float* out, int mask, int steps, int period, int others) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % period == 0) {
    int p = t & mask;
    for (int k = 0; k < steps; ++k) p = next[p];
    out[t] = static_cast<float>(p);
    return;
  }
  float v = threadIdx.x * 0.001f, w = 1.0001f;
  for (int k = 0; k < others; ++k) v = v * w + 0.5f;
  out[t] = v;
}

// One thread per row of `cols` floats, three passes over the row in global memory (max, sum of
// exponentials, the scaled row): CTAs of like work whose threads run in step and end together.
extern "C" __global__ void row_softmax(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + static_cast<size_t>(r) * cols;
  float m = -1e30f;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
  const float inv = 1.0f / s;
  float* y = out + static_cast<size_t>(r) * cols;
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) * inv;
}

// Every CTA copies the same 16 KiB table into shared memory with cp.async (16 bytes a lane, the
// L1 bypassed) and writes one value a thread: CTAs share the table's lines through their copies
// alone, so the slice's L2 warm-up must count cp.async sources as reads.
extern "C" __global__ void table_cp_async(const float* table, float* out) {
  __shared__ __align__(16) float t[4096];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&t[i * 4]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(table + i * 4));
  }
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = t[threadIdx.x] + t[4095 - threadIdx.x];
}
