// The TMA engine and mbarriers of one SM (device keys tma.*): the round trip of an mbarrier
// arrival and a successful try_wait, the latency of a TMA 2d tile load from L2 and from HBM, and
// the bytes per cycle one SM's TMA engine moves with several loads in flight.
//
//   lat_mbar(out, iters)               one thread: arrive on a barrier of one arrival, then
//                                      try_wait.parity for the phase it completed (steps: 64 per
//                                      iteration)
//   lat_tma_map(map, out, iters, rows)   one thread: a 64 x 64 bf16 box (8 KiB) at row (i * 64) mod
//                                      rows, arrive.expect_tx + load + wait, one at a time; rows
//                                      sets the footprint (L2-resident or not)
//   tput_tma_map(map, out, iters, rows)  one CTA per SM, one thread: 4 boxes in flight (4 stages,
//                                      4 mbarriers), each stage reloaded as soon as it lands
//
// out (u64): [0] cycles, [1] steps (loads), [2] sink; tput_tma: per CTA b: [3b] t0, [3b+1] t1,
// [3b+2] smid. The map is a CUtensorMap of a rows x 64 bf16 tensor, box 64 x 64, no swizzle;
// kernsim runs the same kernels from launch specs with a `tensor_map` argument (spec version 2).
// Inline PTX throughout; the host program (nvcc only, links -lcuda for cuTensorMapEncodeTiled)
// prints one JSON document. Not yet part of run_cuda.py's list.

#include "mb_helpers.cuh"  // mb_clock64, mb_smid

static __device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
static __device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" ::"r"(bar), "r"(parity)
      : "memory");
}
static __device__ __forceinline__ void tma_load(unsigned dst, const void* map, unsigned bar, int x, int y, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

extern "C" __global__ void lat_mbar(unsigned long long* out, unsigned iters) {
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar);
  mbar_init(b, 1);
  unsigned phase = 0;
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) {
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
      mbar_wait(b, phase);
      phase ^= 1;
    }
  }
  const unsigned long long t1 = mb_clock64();
  out[0] = t1 - t0;
  out[1] = static_cast<unsigned long long>(iters) * 64;
  out[2] = phase;
}

// The 128-byte tensor map, passed by value (__grid_constant__) as `.param .align 64 .b8 [128]`.
struct alignas(64) Map {
  char b[128];
};

extern "C" __global__ void lat_tma_map(const __grid_constant__ Map map, unsigned long long* out, unsigned iters, unsigned rows) {
  __shared__ __align__(128) unsigned char tile[64 * 64 * 2];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar), t = smem_addr(tile);
  mbar_init(b, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned phase = 0;
  const unsigned long long t0 = mb_clock64();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
    tma_load(t, &map, b, 0, static_cast<int>((i * 64) % rows), sizeof(tile));
    mbar_wait(b, phase);
    phase ^= 1;
  }
  const unsigned long long t1 = mb_clock64();
  out[0] = t1 - t0;
  out[1] = iters;
  out[2] = tile[phase];
}

extern "C" __global__ void tput_tma_map(const __grid_constant__ Map map, unsigned long long* out, unsigned iters, unsigned rows) {
  __shared__ __align__(128) unsigned char tile[4][64 * 64 * 2];
  __shared__ __align__(8) unsigned long long bar[4];
  unsigned phase[4] = {0, 0, 0, 0};
  const unsigned base = (blockIdx.x * 4 * 64) % rows;
  for (int s = 0; s < 4; ++s) mbar_init(smem_addr(&bar[s]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const unsigned long long t0 = mb_clock64();
  for (int s = 0; s < 4; ++s) tma_load(smem_addr(tile[s]), &map, smem_addr(&bar[s]), 0, static_cast<int>((base + s * 64) % rows), sizeof(tile[0]));
#pragma unroll 1
  for (unsigned i = 1; i < iters; ++i)
    for (int s = 0; s < 4; ++s) {
      mbar_wait(smem_addr(&bar[s]), phase[s]);
      phase[s] ^= 1;
      tma_load(smem_addr(tile[s]), &map, smem_addr(&bar[s]), 0, static_cast<int>((base + (i * 4 + s) * 64) % rows), sizeof(tile[0]));
    }
  for (int s = 0; s < 4; ++s) mbar_wait(smem_addr(&bar[s]), phase[s]);
  const unsigned long long t1 = mb_clock64();
  out[3 * blockIdx.x + 3] = t0;
  out[3 * blockIdx.x + 4] = t1;
  out[3 * blockIdx.x + 5] = mb_smid();
  if (blockIdx.x == 0) out[1] = static_cast<unsigned long long>(iters) * 4;
}

#if defined(__NVCC__)
#include <cuda.h>

#include <cstring>

#include "standalone_host.cuh"  // CK

static Map make_map(void* base, unsigned rows) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {64, rows}, strides[1] = {64 * 2};
  const cuuint32_t box[2] = {64, 64}, estr[2] = {1, 1};
  if (cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("{\"error\": \"cuTensorMapEncodeTiled failed\"}\n");
    std::exit(1);
  }
  Map out;
  std::memcpy(out.b, &m, sizeof out.b);
  return out;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const unsigned big_rows = 1u << 20;  // 128 MiB of bf16: beyond the L2
  void* data;
  CK(cudaMalloc(&data, size_t{big_rows} * 64 * 2));
  CK(cudaMemset(data, 0, size_t{big_rows} * 64 * 2));
  unsigned long long* out;
  const size_t words = 3 * 1056 + 8;
  CK(cudaMalloc(&out, words * 8));
  std::vector<unsigned long long> h(words);
  auto fetch = [&] { CK(cudaMemcpy(h.data(), out, words * 8, cudaMemcpyDeviceToHost)); };
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"results\": [\n", p.name, sms);
  lat_mbar<<<1, 1>>>(out, 64);
  CK(cudaDeviceSynchronize());
  fetch();
  std::printf("{\"name\": \"latency.mbarrier_arrive_wait\", \"value\": %.2f, \"unit\": \"cycles\"},\n", double(h[0]) / double(h[1]));
  for (unsigned rows : {256u, big_rows}) {  // 32 KiB (L2 after the first pass) and 128 MiB (HBM)
    const Map m = make_map(data, rows);
    lat_tma_map<<<1, 1>>>(m, out, 512, rows);
    CK(cudaDeviceSynchronize());
    fetch();
    std::printf("{\"name\": \"latency.tma_2d_%s\", \"value\": %.2f, \"unit\": \"cycles\", \"params\": {\"rows\": %u}},\n",
                rows == 256 ? "l2" : "hbm", double(h[0]) / double(h[1]), rows);
  }
  const Map m = make_map(data, big_rows);
  tput_tma_map<<<sms, 1>>>(m, out, 256, big_rows);
  CK(cudaDeviceSynchronize());
  fetch();
  double cyc = 0;
  for (int b = 0; b < sms; ++b) cyc = std::max(cyc, double(h[3 * b + 4] - h[3 * b + 3]));
  std::printf("{\"name\": \"bandwidth.tma_2d_per_sm\", \"value\": %.2f, \"unit\": \"bytes/cycle\", \"params\": {\"ctas\": %d}}\n]}\n",
              double(h[1]) * 8192.0 / cyc, sms);
  return 0;
}
#endif
