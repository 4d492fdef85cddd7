// The SM clock as a function of tensor load (issue 12: "model the tensor clock as a function of
// load, measured"). Under sustained wgmma the H200 sits at its power cap and its SMs run below
// 1980 MHz (1658-1668 MHz with 132 SMs in a dense m64n256k16 loop; 1.58-1.72 GHz in the Hopper
// set's GEMMs by Nsight Compute). This program measures the clock (d clock64 / d globaltimer in
// the kernel) while K SMs run wgmma for a fraction D of their time (the duty cycle), with three
// kinds of operand data (zeros, one fixed pattern, random values changing from batch to batch as
// a GEMM's tiles do), so the clock can be written as a function of the chip's tensor load.
//
//   tclock_load(out, dur_ns, busy_batches, idle_cycles, data)   grid K, 128 threads (one
//       warpgroup), 120 KiB dynamic shared memory (one CTA per SM). Loop until dur_ns of
//       globaltimer: busy phase = busy_batches x (fence, 4 x wgmma m64n128k16 bf16->f32 SS,
//       commit), wait_group 0; idle phase = spin on clock64 for idle_cycles. Per CTA (10 x u64):
//       clock64 and globaltimer at the start, at dur/2 and at the end; over the second half the
//       busy-phase cycles, the wgmmas issued, the cycles in all; and the SM id.
//   clock (MHz) = (c_end - c_mid) / (g_end - g_mid) * 1000; tensor busy fraction = busy cycles /
//   all cycles (second half); TFLOP/s = wgmmas x 2 x 64 x 128 x 16 / second-half ns.
//
// Operands: A 64 x 128 B and B 128 x 128 B K-major, 128-byte swizzle (the layout of
// hopper_wgmma.cu); data 0 all zero, 1 one fixed pattern (hw_pattern: what hopper_wgmma.cu and
// the 1665 MHz measurement used), 2 four sets of random bf16 (random sign and mantissa, exponent
// 2^-8..2^-1) used in turn, one per batch. Written from the PTX ISA; no third-party code.
//
// Build and run (on the GPU machine; prints one JSON document; ~25 s):
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tclock calibration/microbenchmarks/cuda/tensor_clock_load.cu
//   /tmp/tclock [dur_ms=300]
// (calibration/validation/device/h200_hop12.sh runs it with nvidia-smi sampling beside it.)
#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

#define TC_SET_BYTES (8192u + 16384u)
#define TC_SETS 4u
#define TC_DYN_SMEM (120u * 1024u)

static __device__ __forceinline__ unsigned tc_hash(unsigned i) {
  unsigned r = i * 0x9e3779b9u + 0x7f4a7c15u;
  r ^= r >> 15;
  r *= 0x2c1b3c6du;
  r ^= r >> 12;
  r *= 0x297a2d39u;
  r ^= r >> 15;
  return r;
}

// one bf16: random sign and mantissa, biased exponent 119..126 (2^-8 .. 2^-1)
static __device__ __forceinline__ unsigned tc_bf16(unsigned r) {
  return (r & 0x807fu) | ((119u + ((r >> 8) & 7u)) << 7);
}

static __device__ __forceinline__ unsigned tc_word(unsigned i, int data) {
  if (data == 0) return 0;
  const unsigned r = tc_hash(i);
  if (data == 1) return (r & 0x87878787u) | 0x30303030u;
  return tc_bf16(r) | (tc_bf16(tc_hash(i ^ 0x5bd1e995u)) << 16);
}

static __device__ __forceinline__ unsigned long long tc_desc(unsigned addr) {
  const unsigned long long a = (addr & 0x3FFFFu) >> 4;
  return a | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}

extern "C" __global__ void __launch_bounds__(128, 1)
    tclock_load(unsigned long long* out, unsigned long long dur_ns, unsigned busy_batches, unsigned idle_cycles,
                int data) {
  extern __shared__ __align__(1024) unsigned char tc_smem[];
  __shared__ unsigned stop;
  unsigned raw;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(raw) : "l"(tc_smem));
  const unsigned base = (raw + 1023u) & ~1023u;
  const unsigned sets = data == 2 ? TC_SETS : 1u;
  for (unsigned i = threadIdx.x; i < sets * TC_SET_BYTES / 4; i += blockDim.x)
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(base + 4 * i), "r"(tc_word(i + 7919u * blockIdx.x, data)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x == 0) stop = 0;
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0;
  __syncthreads();
  const unsigned long long c0 = mb_clock64(), g0 = mb_globaltimer();
  unsigned long long cm = 0, gm = 0, busy = 0, wgmmas = 0;
  bool second = false;
  unsigned batch = 0;
  while (true) {
    const unsigned long long tb = mb_clock64();
    for (unsigned b = 0; b < busy_batches; ++b, ++batch) {
      const unsigned set = base + (batch % sets) * TC_SET_BYTES;
      const unsigned long long da = tc_desc(set), db = tc_desc(set + 8192u);
    asm volatile(
        "{\n"
        ".reg .b64 da<4>, db<4>;\n"
        "mov.b64 da0, %64;\n"
        "mov.b64 db0, %65;\n"
        "add.s64 da1, da0, 2;\n"
        "add.s64 db1, db0, 2;\n"
        "add.s64 da2, da0, 4;\n"
        "add.s64 db2, db0, 4;\n"
        "add.s64 da3, da0, 6;\n"
        "add.s64 db3, db0, 6;\n"
        "wgmma.fence.sync.aligned;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, da0, db0, 1, 1, 1, 0, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, da1, db1, 1, 1, 1, 0, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, da2, db2, 1, 1, 1, 0, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, da3, db3, 1, 1, 1, 0, 0;\n"
        "wgmma.commit_group.sync.aligned;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db)
        : "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" : "+f"(d[0]), "+f"(d[63]) : : "memory");
    const unsigned long long te = mb_clock64();
    while (mb_clock64() - te < idle_cycles) {
    }
    if (second) {
      busy += te - tb;
      wgmmas += 4ull * busy_batches;
    }
    if (threadIdx.x == 0) {
      const unsigned long long g = mb_globaltimer();
      if (!second && g - g0 >= dur_ns / 2) {
        second = true;
        cm = mb_clock64();
        gm = g;
      }
      if (g - g0 >= dur_ns) stop = 1;
    }
    __syncthreads();
    if (stop) break;
    __syncthreads();
  }
  const unsigned long long c1 = mb_clock64(), g1 = mb_globaltimer();
  if (threadIdx.x == 0) {
    unsigned long long* o = out + 10ull * blockIdx.x;
    o[0] = c0;
    o[1] = g0;
    o[2] = cm;
    o[3] = gm;
    o[4] = c1;
    o[5] = g1;
    o[6] = busy;
    o[7] = wgmmas;
    o[8] = mb_smid();
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < 64; ++i) s ^= __float_as_uint(d[i]);
    o[9] = s;
  }
}

#if defined(__NVCC__)
#include <string>

#include "standalone_host.cuh"

struct TcRow {
  int sms;
  unsigned busy_batches, idle_cycles;
  int data;
};

static double tc_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const double dur_ms = argc > 1 ? std::atof(argv[1]) : 300.0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int nsm = prop.multiProcessorCount;
  CK(cudaFuncSetAttribute(tclock_load, cudaFuncAttributeMaxDynamicSharedMemorySize, TC_DYN_SMEM));
  unsigned long long* out;
  CK(cudaMalloc(&out, static_cast<size_t>(nsm) * 10 * sizeof(unsigned long long)));
  std::vector<unsigned long long> h(static_cast<size_t>(nsm) * 10);
  // busy phase 8 batches x 4 wgmma x 64 cycles = 2048 cycles at the engine's rate; the idle
  // phases give duty cycles 1, 0.75, 0.5, 0.25 and 0 (idle spin only)
  const unsigned busy = 8;
  struct Duty {
    unsigned batches, idle;
  };
  const Duty duties[] = {{0, 2048}, {busy, 6144}, {busy, 2048}, {busy, 683}, {busy, 0}};
  std::vector<TcRow> rows;
  const int sm_counts[] = {1, 8, 33, 66, 99, nsm};
  for (int k : sm_counts)
    for (const Duty& du : duties) rows.push_back({std::min(k, nsm), du.batches, du.idle, 2});
  for (int data : {0, 1})
    for (const Duty& du : {duties[2], duties[4]}) rows.push_back({nsm, du.batches, du.idle, data});
  std::printf("{\"what\": \"SM clock (d clock64 / d globaltimer, second half of a %.0f ms launch after a %.0f ms "
              "warm-up launch) while K SMs run wgmma m64n128k16 bf16 SS at a duty cycle\", \"device\": \"%s\", "
              "\"sms\": %d, \"dur_ms\": %.0f, \"rows\": [",
              dur_ms, dur_ms / 2, prop.name, nsm, dur_ms);
  bool first = true;
  for (const TcRow& r : rows) {
    const unsigned long long dur = static_cast<unsigned long long>(dur_ms * 1e6);
    tclock_load<<<r.sms, 128, TC_DYN_SMEM>>>(out, dur / 2, r.busy_batches, r.idle_cycles, r.data);  // warm-up
    CK(cudaGetLastError());
    tclock_load<<<r.sms, 128, TC_DYN_SMEM>>>(out, dur, r.busy_batches, r.idle_cycles, r.data);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), out, static_cast<size_t>(r.sms) * 10 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::vector<double> mhz, frac, tfl;
    std::string smids;
    for (int b = 0; b < r.sms; ++b) {
      const unsigned long long* o = &h[static_cast<size_t>(b) * 10];
      const double dc = static_cast<double>(o[4] - o[2]), dg = static_cast<double>(o[5] - o[3]);
      if (dg <= 0) continue;
      mhz.push_back(dc / dg * 1000.0);
      frac.push_back(static_cast<double>(o[6]) / dc);
      tfl.push_back(static_cast<double>(o[7]) * 2.0 * 64 * 128 * 16 / dg / 1e3);  // per SM, TFLOP/s
      if (b < 8) smids += (b ? "," : "") + std::to_string(o[8]);
    }
    std::vector<double> sorted = mhz;
    std::sort(sorted.begin(), sorted.end());
    double chip_tflops = 0;
    for (double t : tfl) chip_tflops += t;
    const double duty_target = r.busy_batches == 0 ? 0.0 : 2048.0 / (2048.0 + r.idle_cycles);
    std::printf("%s\n  {\"sms\": %d, \"data\": \"%s\", \"busy_batches\": %u, \"idle_cycles\": %u, "
                "\"duty_target\": %.3f, \"mhz_median\": %.1f, \"mhz_min\": %.1f, \"mhz_max\": %.1f, "
                "\"tensor_busy_fraction\": %.4f, \"chip_tensor_load\": %.4f, \"tflops\": %.2f, \"first_smids\": [%s]}",
                first ? "" : ",", r.sms, r.data == 0 ? "zeros" : r.data == 1 ? "pattern" : "random", r.busy_batches,
                r.idle_cycles, duty_target, tc_median(mhz), sorted.empty() ? 0 : sorted.front(),
                sorted.empty() ? 0 : sorted.back(), tc_median(frac), tc_median(frac) * r.sms / nsm, chip_tflops,
                smids.c_str());
    std::fflush(stdout);
    first = false;
  }
  std::printf("\n]}\n");
  return 0;
}
#endif
