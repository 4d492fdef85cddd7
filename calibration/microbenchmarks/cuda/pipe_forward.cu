// Does a result cost more when the next instruction that uses it runs on another pipe? One warp,
// one dependent chain of steps, each two instructions, timed with clock64:
//   ffma_fmul   FFMA -> FMUL          both on the FMA pipe (control)
//   lop_shf     LOP3 -> SHF           both on the ALU pipe (control)
//   imad_lop    IMAD -> LOP3          FMA pipe -> ALU pipe -> FMA pipe
//   ffma_fmnmx  FFMA -> FMNMX         FMA pipe -> ALU pipe -> FMA pipe
//   iadd_lop    add.u32 -> LOP3       as alu.cu's iadd_lop (ptxas: VIADD or IADD3)
// Each kernel prints cycles per step; two instructions per step (checked with nvdisasm on sm_90a).
//
//   nvcc -O3 -arch=sm_90a -o pipe_forward pipe_forward.cu && ./pipe_forward
#include "mb_helpers.cuh"  // mb_clock64

#define PF_KERNEL(NAME, T, INIT, STEP)                                                     \
  extern "C" __global__ void NAME(unsigned long long* out, int iters, T p, T q) {          \
    T a = INIT;                                                                            \
    const unsigned long long t0 = mb_clock64();                                            \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                  \
      _Pragma("unroll") for (int u = 0; u < 16; ++u) { STEP; }                             \
    }                                                                                      \
    const unsigned long long t1 = mb_clock64();                                            \
    if (threadIdx.x == 0) {                                                                \
      out[0] = t1 - t0;                                                                    \
      out[1] = static_cast<unsigned long long>(iters) * 16;                                \
    }                                                                                      \
    if (a == (T)12345) out[2] = 1;                                                         \
  }

PF_KERNEL(pf_ffma_fmul, float, threadIdx.x * 1e-3f,
          asm volatile("fma.rn.f32 %0, %0, %1, %2; mul.rn.f32 %0, %0, %2;" : "+f"(a) : "f"(p), "f"(q)))
PF_KERNEL(pf_lop_shf, unsigned, threadIdx.x + 1u,
          asm volatile("lop3.b32 %0, %0, %1, %2, 0x96; shf.l.wrap.b32 %0, %0, %0, %1;" : "+r"(a) : "r"(p), "r"(q)))
PF_KERNEL(pf_imad_lop, unsigned, threadIdx.x + 1u,
          asm volatile("mad.lo.u32 %0, %0, %1, %2; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(a) : "r"(p), "r"(q)))
PF_KERNEL(pf_ffma_fmnmx, float, threadIdx.x * 1e-3f,
          asm volatile("fma.rn.f32 %0, %0, %1, %2; max.f32 %0, %0, %2;" : "+f"(a) : "f"(p), "f"(q)))
PF_KERNEL(pf_iadd_lop, unsigned, threadIdx.x + 1u,
          asm volatile("add.u32 %0, %0, %1; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(a) : "r"(p), "r"(q)))

#if defined(__NVCC__)
#include "standalone_host.cuh"

int main() {
  unsigned long long* out;
  CK(cudaMalloc(&out, 4 * sizeof(unsigned long long)));
  unsigned long long h[2];
  const int iters = 1024;
  struct K { const char* name; bool f; void (*kf)(unsigned long long*, int, float, float); void (*ku)(unsigned long long*, int, unsigned, unsigned); };
  const K ks[] = {{"ffma_fmul", true, pf_ffma_fmul, nullptr}, {"lop_shf", false, nullptr, pf_lop_shf},
                  {"imad_lop", false, nullptr, pf_imad_lop}, {"ffma_fmnmx", true, pf_ffma_fmnmx, nullptr},
                  {"iadd_lop", false, nullptr, pf_iadd_lop}};
  std::printf("{\"what\": \"one warp, dependent chain of two-instruction steps: cycles per step (median of 15)\", \"rows\": [");
  bool first = true;
  for (const K& k : ks) {
    std::vector<double> c;
    for (int r = 0; r < 16; ++r) {
      if (k.f) k.kf<<<1, 32>>>(out, iters, 1.0000001f, 0.5f);
      else k.ku<<<1, 32>>>(out, iters, 0x9e3779b9u, 7u);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
      if (r) c.push_back(static_cast<double>(h[0]) / static_cast<double>(h[1]));
    }
    std::sort(c.begin(), c.end());
    std::printf("%s{\"kernel\": \"pf_%s\", \"cycles_per_step\": %.3f}", first ? "" : ", ", k.name, c[c.size() / 2]);
    first = false;
  }
  std::printf("]}\n");
  return 0;
}
#endif
