// Bandwidth per level. Plain launches (u32 buffers, scalar args); the GPU runner times them with
// events and counts bytes explicitly: bytes = what the kernel's loads/stores request.
//
//   bw_l1_read(buf, out, vec_per_pass, passes)   every block re-reads the same small region of
//              vec_per_pass 16-byte vectors `passes` times with ld.global (L1-cached): after the
//              first pass it is L1-resident in every SM. bytes = grid * passes * vec_per_pass * 16.
//   bw_l2_read(buf, out, n_vec, passes)          every block reads the whole region (a few MiB:
//              larger than L1, inside L2) `passes` times with ld.global.cg (L2 only, bypasses L1),
//              each block starting at its own chunk. n_vec must be a multiple of 4*blockDim.
//              bytes = grid * passes * n_vec * 16.
//   bw_read(buf, out, n_vec)                     grid-stride streaming read (HBM for large n).
//   bw_write(buf, n_vec, value)                  grid-stride streaming write.
//   bw_copy(src, dst, n_vec)                     grid-stride copy; bytes = 2 * n_vec * 16.
//
// Loads are inline PTX (volatile) and their words are xor-folded into a value that is stored only
// if it equals a constant (practically never), so neither LLVM nor ptxas can drop them. Each
// thread keeps 4 loads in flight (unrolled by 4). Launch 256-thread blocks.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

static __device__ __forceinline__ unsigned ld_v4_ca(const uint4* p) {
  unsigned a, b, c, d;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
  return a ^ b ^ c ^ d;
}
static __device__ __forceinline__ unsigned ld_v4_cg(const uint4* p) {
  unsigned a, b, c, d;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
  return a ^ b ^ c ^ d;
}
static __device__ __forceinline__ void st_v4(uint4* p, unsigned v) {
  asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};"
               :
               : "l"(p), "r"(v), "r"(v ^ 1u), "r"(v ^ 2u), "r"(v ^ 3u)
               : "memory");
}
struct V4 {
  unsigned x, y, z, w;
};
static __device__ __forceinline__ V4 ld_v4(const uint4* p) {
  V4 v;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
static __device__ __forceinline__ void st_v4v(uint4* p, const V4& v) {
  asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" : : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

#define MB_SINK 0x9e3779b9u

extern "C" __global__ void __launch_bounds__(256)
    bw_l1_read(const uint4* buf, unsigned* out, unsigned vec_per_pass, unsigned passes) {
  unsigned acc = 0;
  const unsigned step = blockDim.x * 4u;
  for (unsigned p = 0; p < passes; ++p) {
    unsigned i = threadIdx.x;
    for (; i + 3u * blockDim.x < vec_per_pass; i += step) {
      const unsigned v0 = ld_v4_ca(buf + i);
      const unsigned v1 = ld_v4_ca(buf + i + blockDim.x);
      const unsigned v2 = ld_v4_ca(buf + i + 2u * blockDim.x);
      const unsigned v3 = ld_v4_ca(buf + i + 3u * blockDim.x);
      acc ^= v0 ^ v1 ^ v2 ^ v3;
    }
    for (; i < vec_per_pass; i += blockDim.x) acc ^= ld_v4_ca(buf + i);
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
      const unsigned v0 = ld_v4_cg(q);
      const unsigned v1 = ld_v4_cg(q + blockDim.x);
      const unsigned v2 = ld_v4_cg(q + 2u * blockDim.x);
      const unsigned v3 = ld_v4_cg(q + 3u * blockDim.x);
      acc ^= v0 ^ v1 ^ v2 ^ v3;
      c = (c + 1u == nchunks) ? 0u : c + 1u;
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
    const unsigned v0 = ld_v4_ca(buf + i);
    const unsigned v1 = ld_v4_ca(buf + i + bd);
    const unsigned v2 = ld_v4_ca(buf + i + 2ull * bd);
    const unsigned v3 = ld_v4_ca(buf + i + 3ull * bd);
    acc ^= v0 ^ v1 ^ v2 ^ v3;
  }
  for (; i < n_vec; i += bd) acc ^= ld_v4_ca(buf + i);
  if (acc == MB_SINK) out[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256) bw_write(uint4* buf, unsigned long long n_vec, unsigned value) {
  const unsigned long long bd = blockDim.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * bd * 4ull;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * bd * 4ull + threadIdx.x;
  for (; i + 3ull * bd < n_vec; i += stride) {
    st_v4(buf + i, value);
    st_v4(buf + i + bd, value);
    st_v4(buf + i + 2ull * bd, value);
    st_v4(buf + i + 3ull * bd, value);
  }
  for (; i < n_vec; i += bd) st_v4(buf + i, value);
}

extern "C" __global__ void __launch_bounds__(256) bw_copy(const uint4* src, uint4* dst, unsigned long long n_vec) {
  const unsigned long long bd = blockDim.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * bd * 4ull;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * bd * 4ull + threadIdx.x;
  for (; i + 3ull * bd < n_vec; i += stride) {  // four loads in flight, then four stores
    const V4 v0 = ld_v4(src + i);
    const V4 v1 = ld_v4(src + i + bd);
    const V4 v2 = ld_v4(src + i + 2ull * bd);
    const V4 v3 = ld_v4(src + i + 3ull * bd);
    st_v4v(dst + i, v0);
    st_v4v(dst + i + bd, v1);
    st_v4v(dst + i + 2ull * bd, v2);
    st_v4v(dst + i + 3ull * bd, v3);
  }
  for (; i < n_vec; i += bd) st_v4v(dst + i, ld_v4(src + i));
}
