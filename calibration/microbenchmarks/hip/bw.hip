// Bandwidth per level on AMD CDNA. The HIP twin of ../cuda/bw.cu: same kernel names, arguments
// and byte counts (bytes = what the loads/stores request):
//
//   bw_l1_read(buf, out, vec_per_pass, passes)   every workgroup re-reads the same small region
//              (vector L1 resident after the first pass); bytes = grid * passes * vec_per_pass * 16.
//   bw_l2_read(buf, out, n_vec, passes)          every workgroup reads the whole region `passes`
//              times with `sc1` loads (agent scope: they miss the vector L1 and are served by the
//              XCD's L2; a region larger than one XCD's L2 is served by the Infinity Cache), each
//              workgroup from its own starting chunk. bytes = grid * passes * n_vec * 16.
//   bw_stream_read(buf, out, n_vec, passes)      grid-stride read of the region `passes` times (HIP
//              only): each pass reads the region once chip-wide, every workgroup its share, the same
//              share every pass, so pass 2 finds it where pass 1 left it (an XCD's L2 when the
//              region's share per XCD fits, else the Infinity Cache). bytes = passes * n_vec * 16.
//   bw_read(buf, out, n_vec)                     grid-stride streaming read (HBM for large n).
//   bw_write(buf, n_vec, value)                  grid-stride streaming write.
//   bw_copy(src, dst, n_vec)                     grid-stride copy; bytes = 2 * n_vec * 16.
//
// 16-byte loads (global_load_dwordx4) in inline asm, four in flight per lane, xor-folded into a
// value stored only if it equals a constant, so the compiler cannot drop them. 256-lane workgroups.
#include <hip/hip_runtime.h>

typedef unsigned mb_u32x4 __attribute__((ext_vector_type(4)));

static __device__ __forceinline__ mb_u32x4 ld4(const uint4* p) {
  mb_u32x4 v;
  asm volatile("global_load_dwordx4 %0, %1, off" : "=v"(v) : "v"(p) : "memory");
  return v;
}
static __device__ __forceinline__ mb_u32x4 ld4_l2(const uint4* p) {
  mb_u32x4 v;
  asm volatile("global_load_dwordx4 %0, %1, off sc1" : "=v"(v) : "v"(p) : "memory");
  return v;
}
static __device__ __forceinline__ void wait_loads() { asm volatile("s_waitcnt vmcnt(0)" : : : "memory"); }
static __device__ __forceinline__ void st4(uint4* p, mb_u32x4 v) {
  asm volatile("global_store_dwordx4 %0, %1, off" : : "v"(p), "v"(v) : "memory");
}
static __device__ __forceinline__ unsigned fold(mb_u32x4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

#define MB_SINK 0x9e3779b9u

extern "C" __global__ void __launch_bounds__(256)
    bw_l1_read(const uint4* buf, unsigned* out, unsigned vec_per_pass, unsigned passes) {
  unsigned acc = 0;
  const unsigned step = blockDim.x * 4u;
  for (unsigned p = 0; p < passes; ++p) {
    unsigned i = threadIdx.x;
    for (; i + 3u * blockDim.x < vec_per_pass; i += step) {
      const mb_u32x4 v0 = ld4(buf + i), v1 = ld4(buf + i + blockDim.x), v2 = ld4(buf + i + 2u * blockDim.x),
                     v3 = ld4(buf + i + 3u * blockDim.x);
      wait_loads();
      acc ^= fold(v0) ^ fold(v1) ^ fold(v2) ^ fold(v3);
    }
    for (; i < vec_per_pass; i += blockDim.x) {
      const mb_u32x4 v = ld4(buf + i);
      wait_loads();
      acc ^= fold(v);
    }
  }
  if (acc == MB_SINK) out[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256)
    bw_l2_read(const uint4* buf, unsigned* out, unsigned n_vec, unsigned passes) {
  unsigned acc = 0;
  const unsigned chunk = blockDim.x * 4u;
  const unsigned nchunks = n_vec / chunk;
  if (nchunks == 0) return;
  unsigned c = static_cast<unsigned>((blockIdx.x * 7919ull) % nchunks);
  for (unsigned p = 0; p < passes; ++p) {
    for (unsigned j = 0; j < nchunks; ++j) {
      const uint4* q = buf + static_cast<unsigned long long>(c) * chunk + threadIdx.x;
      const mb_u32x4 v0 = ld4_l2(q), v1 = ld4_l2(q + blockDim.x), v2 = ld4_l2(q + 2u * blockDim.x), v3 = ld4_l2(q + 3u * blockDim.x);
      wait_loads();
      acc ^= fold(v0) ^ fold(v1) ^ fold(v2) ^ fold(v3);
      c = (c + 1u == nchunks) ? 0u : c + 1u;
    }
  }
  if (acc == MB_SINK) out[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256)
    bw_stream_read(const uint4* buf, unsigned* out, unsigned long long n_vec, unsigned passes) {
  unsigned acc = 0;
  const unsigned long long bd = blockDim.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * bd * 4ull;
  for (unsigned p = 0; p < passes; ++p) {
    unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * bd * 4ull + threadIdx.x;
    for (; i + 3ull * bd < n_vec; i += stride) {
      const mb_u32x4 v0 = ld4_l2(buf + i), v1 = ld4_l2(buf + i + bd), v2 = ld4_l2(buf + i + 2ull * bd), v3 = ld4_l2(buf + i + 3ull * bd);
      wait_loads();
      acc ^= fold(v0) ^ fold(v1) ^ fold(v2) ^ fold(v3);
    }
    for (; i < n_vec; i += bd) {
      const mb_u32x4 v = ld4_l2(buf + i);
      wait_loads();
      acc ^= fold(v);
    }
  }
  if (acc == MB_SINK) out[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256) bw_read(const uint4* buf, unsigned* out, unsigned long long n_vec) {
  unsigned acc = 0;
  const unsigned long long bd = blockDim.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * bd * 4ull;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * bd * 4ull + threadIdx.x;
  for (; i + 3ull * bd < n_vec; i += stride) {
    const mb_u32x4 v0 = ld4(buf + i), v1 = ld4(buf + i + bd), v2 = ld4(buf + i + 2ull * bd), v3 = ld4(buf + i + 3ull * bd);
    wait_loads();
    acc ^= fold(v0) ^ fold(v1) ^ fold(v2) ^ fold(v3);
  }
  for (; i < n_vec; i += bd) {
    const mb_u32x4 v = ld4(buf + i);
    wait_loads();
    acc ^= fold(v);
  }
  if (acc == MB_SINK) out[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256) bw_write(uint4* buf, unsigned long long n_vec, unsigned value) {
  const unsigned long long bd = blockDim.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * bd * 4ull;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * bd * 4ull + threadIdx.x;
  const mb_u32x4 v = {value, value ^ 1u, value ^ 2u, value ^ 3u};
  for (; i + 3ull * bd < n_vec; i += stride) {
    st4(buf + i, v);
    st4(buf + i + bd, v);
    st4(buf + i + 2ull * bd, v);
    st4(buf + i + 3ull * bd, v);
  }
  for (; i < n_vec; i += bd) st4(buf + i, v);
}

extern "C" __global__ void __launch_bounds__(256) bw_copy(const uint4* src, uint4* dst, unsigned long long n_vec) {
  const unsigned long long bd = blockDim.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * bd * 4ull;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * bd * 4ull + threadIdx.x;
  for (; i + 3ull * bd < n_vec; i += stride) {  // four loads in flight, then four stores
    const mb_u32x4 v0 = ld4(src + i), v1 = ld4(src + i + bd), v2 = ld4(src + i + 2ull * bd), v3 = ld4(src + i + 3ull * bd);
    wait_loads();
    st4(dst + i, v0);
    st4(dst + i + bd, v1);
    st4(dst + i + 2ull * bd, v2);
    st4(dst + i + 3ull * bd, v3);
  }
  for (; i < n_vec; i += bd) {
    const mb_u32x4 v = ld4(src + i);
    wait_loads();
    st4(dst + i, v);
  }
}
