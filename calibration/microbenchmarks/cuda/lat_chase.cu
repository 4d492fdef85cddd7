// Global-memory load latency by footprint: single-thread dependent load chains, timed with
// clock64() inside the kernel. Both kernels are plain launches (buffers `zeros`, scalar args only),
// so kernsim runs the very same code from a launch spec.
//
//   lat_ptr_chase  pure pointer chase `p = *p` (one LDG.64 per step, no arithmetic between loads).
//                  Phase 1 (flags bit 0) builds the chain in the zero-initialised buffer with all
//                  threads of the block; phase 2 (bit 1) touches every node with all threads so the
//                  footprint is resident in L1/L2; phase 3 (bit 2) is the timed chase by thread 0.
//                  The GPU runner builds once, then times launches with flags=2|4 (cache footprints)
//                  or flags=4 after an L2 flush (HBM footprints).
//   lat_idx_chase  computed chase `idx = (buf[idx] + idx + stride) & mask` on a zero buffer: no
//                  build phase, so it starts from cold caches in one launch. Each step adds the
//                  index arithmetic between two loads (SASS on sm_90a: IADD3, LOP3, IMAD.WIDE.U32 —
//                  see README.md); the runner reports the same chase at an L1 footprint so that
//                  overhead = latency.l1_idx - latency.l1_hit can be subtracted.
//
// out[] layout (u64): [0] timed cycles, [1] timed steps, [2] final pointer/index (keeps the chain
// live), [3] timed globaltimer ns, [4] pointer after the untimed warm steps, [5] warm-phase sink.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

// One dependent 64-bit global load: the loaded value is the address of the next node.
static __device__ __forceinline__ unsigned long long chase_ld64(unsigned long long p) {
  unsigned long long v;
  asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

static __device__ __forceinline__ unsigned ld_u32(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Successor of node i. pattern 0: i+1 (sequential, one line per step at 128 B stride).
// pattern 1: i+jump with jump ~ 0.618*nodes and gcd(jump, nodes) = 1, so the chain is still one
// cycle through all nodes but consecutive steps land far apart (no spatial locality, TLB-hostile).
static __device__ __forceinline__ unsigned long long chase_jump(unsigned long long nodes, unsigned pattern) {
  if (pattern == 0 || nodes < 3) return 1;
  unsigned long long j = ((nodes * 40503ull) >> 16) | 1ull;  // 40503/65536 ~ 0.618
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
  if (flags & 1u) {  // build: node i holds the address of node next(i)
    for (unsigned long long i = threadIdx.x; i < nodes; i += blockDim.x) {
      unsigned long long n = i + jump;
      if (n >= nodes) n -= nodes;
      buf[i * s] = reinterpret_cast<unsigned long long>(buf + n * s);
    }
    __threadfence_block();
  }
  __syncthreads();
  if (flags & 2u) {  // warm: every thread touches its share of the nodes (L1/L2/TLB resident)
    unsigned long long sink = 0;
    for (unsigned long long i = threadIdx.x; i < nodes; i += blockDim.x)
      sink ^= chase_ld64(reinterpret_cast<unsigned long long>(buf + i * s));
    if (sink == 0x5eedull) out[5] = sink;  // practically never; keeps the loads
  }
  __syncthreads();
  if ((flags & 4u) && threadIdx.x == 0) {
    unsigned long long p = reinterpret_cast<unsigned long long>(buf);
    for (unsigned w = 0; w < warm_steps; ++w) p = chase_ld64(p);
    out[4] = p;  // the store waits for the last warm load, so t0 starts after it
    const unsigned long long g0 = mb_globaltimer();
    const unsigned long long t0 = mb_clock64();
    unsigned i = 0;
    for (; i + 16 <= steps; i += 16) {
#pragma unroll
      for (int u = 0; u < 16; ++u) p = chase_ld64(p);
    }
    for (; i < steps; ++i) p = chase_ld64(p);
    out[2] = p;  // waits for the last timed load before the closing clock read
    const unsigned long long t1 = mb_clock64();
    const unsigned long long g1 = mb_globaltimer();
    out[0] = t1 - t0;
    out[1] = steps;
    out[3] = g1 - g0;
  }
}

// Computed chase on a zero buffer (u32 elements): idx' = (buf[idx] + idx + stride) & mask, i.e. a
// walk with `stride` elements per step that wraps at mask+1 elements (mask+1 a power of two). One
// thread; warm_steps untimed steps first (use >= one lap to make an L1/L2 footprint resident).
extern "C" __global__ void lat_idx_chase(const unsigned* buf, unsigned long long* out, unsigned mask, unsigned stride,
                                         unsigned warm_steps, unsigned steps) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  unsigned idx = 0;
  for (unsigned w = 0; w < warm_steps; ++w) idx = (ld_u32(buf + idx) + idx + stride) & mask;
  out[4] = idx;
  const unsigned long long g0 = mb_globaltimer();
  const unsigned long long t0 = mb_clock64();
  unsigned i = 0;
  for (; i + 16 <= steps; i += 16) {
#pragma unroll
    for (int u = 0; u < 16; ++u) idx = (ld_u32(buf + idx) + idx + stride) & mask;
  }
  for (; i < steps; ++i) idx = (ld_u32(buf + idx) + idx + stride) & mask;
  out[2] = idx;
  const unsigned long long t1 = mb_clock64();
  const unsigned long long g1 = mb_globaltimer();
  out[0] = t1 - t0;
  out[1] = steps;
  out[3] = g1 - g0;
}
