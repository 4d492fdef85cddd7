// Global-memory load latency by footprint on AMD CDNA (gfx942/gfx950): single-lane dependent load
// chains, timed with the shader clock (s_memtime) inside the kernel. The HIP twin of
// ../cuda/lat_chase.cu: same kernels, same arguments, same out[] layout, so one launch spec shape
// and one derivation serve both vendors.
//
//   lat_ptr_chase  pure pointer chase `p = *p`: one global_load_dwordx2 per step followed by
//                  s_waitcnt vmcnt(0), nothing else. Phase 1 (flags bit 0) builds the chain with all
//                  lanes of the workgroup; phase 2 (bit 1) touches every node (L1/L2/MALL/TLB
//                  resident); phase 3 (bit 2) is the timed chase by lane 0 of wave 0.
//   lat_idx_chase  computed chase `idx = (buf[idx] + idx + stride) & mask` on a zero buffer (cold
//                  start in one launch); the arithmetic between loads is v_add3/v_and/address math.
//
// out[] layout (u64): [0] timed cycles, [1] timed steps, [2] final pointer/index, [3] timed
// s_memrealtime ticks (100 MHz), [4] pointer after the untimed warm steps, [5] warm-phase sink.
#include <hip/hip_runtime.h>

#include "mb_helpers.h"  // mb_clock64, mb_realtime, mb_smid

// One dependent 64-bit global load: the loaded value is the address of the next node.
static __device__ __forceinline__ unsigned long long chase_ld64(unsigned long long p) {
  unsigned long long v;
  asm volatile("global_load_dwordx2 %0, %1, off\n\ts_waitcnt vmcnt(0)" : "=v"(v) : "v"(p) : "memory");
  return v;
}

static __device__ __forceinline__ unsigned ld_u32(const unsigned* p) {
  unsigned v;
  asm volatile("global_load_dword %0, %1, off\n\ts_waitcnt vmcnt(0)" : "=v"(v) : "v"(p) : "memory");
  return v;
}

// Successor of node i (see ../cuda/lat_chase.cu): pattern 0 sequential, 1 golden-ratio jumps.
static __device__ __forceinline__ unsigned long long chase_jump(unsigned long long nodes, unsigned pattern) {
  if (pattern == 0 || nodes < 3) return 1;
  unsigned long long j = ((nodes * 40503ull) >> 16) | 1ull;
  for (;;) {
    unsigned long long a = j, b = nodes;
    while (b != 0) {
      unsigned long long t = a % b;
      a = b;
      b = t;
    }
    if (a == 1) return j;
    j += 2;
  }
}

extern "C" __global__ void lat_ptr_chase(unsigned long long* buf, unsigned long long* out, unsigned long long nodes,
                                         unsigned stride_elems, unsigned pattern, unsigned flags, unsigned warm_steps,
                                         unsigned steps) {
  const unsigned long long s = stride_elems;
  const unsigned long long jump = chase_jump(nodes, pattern);
  if (flags & 1u) {
    for (unsigned long long i = threadIdx.x; i < nodes; i += blockDim.x) {
      unsigned long long n = i + jump;
      if (n >= nodes) n -= nodes;
      buf[i * s] = reinterpret_cast<unsigned long long>(buf + n * s);
    }
    __threadfence_block();
  }
  __syncthreads();
  if (flags & 2u) {
    unsigned long long sink = 0;
    for (unsigned long long i = threadIdx.x; i < nodes; i += blockDim.x)
      sink ^= chase_ld64(reinterpret_cast<unsigned long long>(buf + i * s));
    if (sink == 0x5eedull) out[5] = sink;
  }
  __syncthreads();
  if ((flags & 4u) && threadIdx.x == 0) {
    unsigned long long p = reinterpret_cast<unsigned long long>(buf);
    for (unsigned w = 0; w < warm_steps; ++w) p = chase_ld64(p);
    out[4] = p;
    const unsigned long long g0 = mb_realtime();
    const unsigned long long t0 = mb_clock64();
    unsigned i = 0;
    for (; i + 16 <= steps; i += 16) {
#pragma unroll
      for (int u = 0; u < 16; ++u) p = chase_ld64(p);
    }
    for (; i < steps; ++i) p = chase_ld64(p);
    const unsigned long long t1 = mb_clock64();
    const unsigned long long g1 = mb_realtime();
    out[2] = p;
    out[0] = t1 - t0;
    out[1] = steps;
    out[3] = g1 - g0;
  }
}

extern "C" __global__ void lat_idx_chase(const unsigned* buf, unsigned long long* out, unsigned mask, unsigned stride,
                                         unsigned warm_steps, unsigned steps) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  unsigned idx = 0;
  for (unsigned w = 0; w < warm_steps; ++w) idx = (ld_u32(buf + idx) + idx + stride) & mask;
  out[4] = idx;
  const unsigned long long g0 = mb_realtime();
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 16 <= steps; i += 16) {
#pragma unroll
    for (int u = 0; u < 16; ++u) idx = (ld_u32(buf + idx) + idx + stride) & mask;
  }
  for (; i < steps; ++i) idx = (ld_u32(buf + idx) + idx + stride) & mask;
  const unsigned long long t1 = mb_clock64();
  const unsigned long long g1 = mb_realtime();
  out[2] = idx;
  out[0] = t1 - t0;
  out[1] = steps;
  out[3] = g1 - g0;
}
