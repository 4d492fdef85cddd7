// MUBUF loads with `lds` (LDS DMA) for the AMD functional tests: each kernel fills LDS with a
// pattern, has one wave load `src` straight into LDS through LLVM's llvm.amdgcn.raw.buffer.load.lds
// intrinsic (the 4-byte form on gfx942 and gfx950, the 16-byte form on gfx950 only), waits, and
// copies the whole LDS region out to `out`. The test checks where each lane's bytes landed:
// M0 (the LDS pointer) + the instruction offset + lane * 4, or lane * 16 for 16 bytes; lanes past
// the buffer's num_records write zeros; bytes no lane wrote keep the pattern.
#include <hip/hip_runtime.h>

typedef int ks_i32x4 __attribute__((ext_vector_type(4)));
extern "C" __device__ void ks_raw_buffer_load_lds(ks_i32x4 rsrc, __attribute__((address_space(3))) void* lds, int size,
                                                  int voffset, int soffset, int offset,
                                                  int aux) __asm("llvm.amdgcn.raw.buffer.load.lds");

// a raw buffer resource over `p` with `bytes` records (stride 0; gfx9 dword 3 with a 32-bit format)
__device__ ks_i32x4 rsrc_of(const void* p, unsigned bytes) {
  const unsigned long long a = (unsigned long long)p;
  ks_i32x4 r;
  r.x = (int)(unsigned)a;
  r.y = (int)(unsigned)(a >> 32) & 0xffff;
  r.z = (int)bytes;
  r.w = 0x00020000;
  return r;
}

constexpr int kWords = 2048;  // LDS words copied out (8 KiB)

template <int SIZE, int OFFSET>
__device__ void dma_kernel(const unsigned* src, unsigned src_bytes, unsigned* out) {
  __shared__ unsigned lds[kWords];
  const int t = threadIdx.x;
  for (int i = t; i < kWords; i += blockDim.x) lds[i] = 0xa5a50000u + i;
  __syncthreads();
  if (t < 64) {  // one wave; lane t reads SIZE bytes at byte t * SIZE (+ OFFSET) of src
    ks_raw_buffer_load_lds(rsrc_of(src, src_bytes), (__attribute__((address_space(3))) void*)(lds + 64), SIZE,
                           t * SIZE, 0, OFFSET, 0);
    __builtin_amdgcn_s_waitcnt(0);
  }
  __syncthreads();
  for (int i = t; i < kWords; i += blockDim.x) out[i] = lds[i];
}

extern "C" __global__ void dma_dword(const unsigned* src, unsigned src_bytes, unsigned* out) {
  dma_kernel<4, 0>(src, src_bytes, out);
}
extern "C" __global__ void dma_dword_offset(const unsigned* src, unsigned src_bytes, unsigned* out) {
  dma_kernel<4, 32>(src, src_bytes, out);
}
#if defined(__gfx950__)
extern "C" __global__ void dma_dwordx4(const unsigned* src, unsigned src_bytes, unsigned* out) {
  dma_kernel<16, 0>(src, src_bytes, out);
}
#endif

// the FLAT-global form (global_load_lds_dword, gfx950's global_load_lds_dwordx4): lane t's own
// pointer src + t * SIZE / 4 words, the LDS base in M0 (a macro: the builtin wants a literal size)
#define KS_GLOBAL_DMA(name, SIZE)                                                                                    \
  extern "C" __global__ void name(const unsigned* src, unsigned src_bytes, unsigned* out) {                           \
    __shared__ unsigned lds[kWords];                                                                                  \
    const int t = threadIdx.x;                                                                                        \
    for (int i = t; i < kWords; i += blockDim.x) lds[i] = 0xa5a50000u + i;                                           \
    __syncthreads();                                                                                                  \
    if (t < 64) {                                                                                                     \
      __builtin_amdgcn_global_load_lds((__attribute__((address_space(1))) void*)(src + t * (SIZE / 4)),              \
                                       (__attribute__((address_space(3))) void*)(lds + 64), SIZE, 0, 0);             \
      __builtin_amdgcn_s_waitcnt(0);                                                                                  \
    }                                                                                                                 \
    __syncthreads();                                                                                                  \
    for (int i = t; i < kWords; i += blockDim.x) out[i] = lds[i];                                                    \
  }
KS_GLOBAL_DMA(global_dma_dword, 4)
#if defined(__gfx950__)
KS_GLOBAL_DMA(global_dma_dwordx4, 16)
#endif
