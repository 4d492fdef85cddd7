// Hopper's asynchronous machinery (sm_90a): mbarrier, the tensor memory accelerator (TMA:
// cp.async.bulk.tensor and plain cp.async.bulk), multicast to a cluster, distributed shared
// memory (ld.shared::cluster), the cluster barrier and setmaxnreg. Written from the PTX ISA;
// timed with clock64() in the kernel. The host side is host/g_hopper.cu (groups tma, hsync).
//
// Every wait on an mbarrier spins on try_wait.parity and traps after 2 s of globaltimer, so a
// mistake stops the launch with an error instead of hanging the GPU.
//
// Tensor maps are made on the host with cuTensorMapEncodeTiled and passed by value
// (`const __grid_constant__ HwTmap`, 128 bytes, 64-byte aligned), as CUDA's own CUtensorMap is.
//
//   kernel                     launch                     measures (out[])
//   mbar_ops(out,iters,mode)   1 block of 64              mode 0 arrive issue, 1 arrive+try_wait on
//                                                         a count-1 barrier, 2 try_wait on a completed
//                                                         phase, 3 arrive.expect_tx+complete_tx+wait,
//                                                         4 wake-up ping-pong between warps 0 and 1:
//                                                         out[0] cycles, out[1] steps (one-way hops)
//   tma_lat(map,src,out,steps,ntiles,tiles_x,mode,warm)  one thread works  cycles per load issued
//                                                         -> complete seen: mode 0 2D tile (map's box),
//                                                         mode 1 cp.async.bulk of 8 KiB; out[0] cycles
//                                                         out[1] steps, out[2] min, out[3] max
//   tma_bw(map,src,out,iters,stages,ntiles,tiles_x,mode) grid of CTAs, thread 0 keeps `stages` 8 KiB
//                                                         loads in flight; out per block: t0,t1,smid,
//                                                         g0,g1,bytes
//   tma_bw_box(map,out,iters,stages,ntiles,tiles_x,box_rows) as tma_bw, 2D tiles of 64 x box_rows
//                                                         (16/32 KiB; not yet measured)
//   tma_mc(map,out,iters,stages,tiles_x,ntiles,mcast) cluster C: 8 KiB per stage delivered to every
//                                                         CTA, by multicast (each CTA loads 1/C of the
//                                                         tile to all) or each CTA alone; same out
//   dsmem_lat(out,steps,target) cluster C, 32 threads   chase in the target rank's shared memory
//   dsmem_bw(out,iters,peer)   cluster C, 256 threads   v4 loads from rank^peer's shared memory
//   cluster_bar(out,iters,relaxed) cluster C           barrier.cluster.arrive(.relaxed)+wait loop
//   nreg_ws_set / nreg_ws_plain(out,iters)  384 threads producer WG + 2 consumer WGs, with and without
//                                                         setmaxnreg (dec 40 / inc 232)
#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

struct __align__(64) HwTmap {
  unsigned long long w[16];
};

static __device__ __forceinline__ unsigned hw_smem_addr(const void* p) {
  unsigned a;
  asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

static __device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

static __device__ __forceinline__ unsigned long long mbar_arrive(unsigned bar) {
  unsigned long long st;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
  return st;
}

static __device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

static __device__ __forceinline__ bool mbar_try(unsigned bar, unsigned parity) {
  unsigned ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok)
               : "r"(bar), "r"(parity)
               : "memory");
  return ok != 0;
}

// Waits for the phase with the given parity to complete; traps after 2 s.
static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  if (mbar_try(bar, parity)) return;
  const unsigned long long g0 = mb_globaltimer();
  unsigned n = 0;
  while (!mbar_try(bar, parity)) {
    if ((++n & 1023u) == 0 && mb_globaltimer() - g0 > 2000000000ull) asm volatile("trap;");
  }
}

static __device__ __forceinline__ void tma_load_2d(unsigned dst, const HwTmap* map, int x, int y, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

static __device__ __forceinline__ void tma_load_2d_mc(unsigned dst, const HwTmap* map, int x, int y, unsigned bar,
                                                      unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar), "h"(mask)
      : "memory");
}

static __device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

static __device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
}

static __device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

static __device__ __forceinline__ unsigned cluster_size() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

static __device__ __forceinline__ unsigned mapa(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}

static __device__ __forceinline__ void block_record(unsigned long long* out, unsigned long long t0,
                                                    unsigned long long t1, unsigned long long g0, unsigned long long g1,
                                                    unsigned long long v) {
  unsigned long long* o = out + 6ull * blockIdx.x;
  o[0] = t0;
  o[1] = t1;
  o[2] = mb_smid();
  o[3] = g0;
  o[4] = g1;
  o[5] = v;
}

// ---- mbarrier ----------------------------------------------------------------------------------

static __device__ __forceinline__ unsigned long long mbar_pingpong(unsigned b0, unsigned b1, unsigned iters) {
  // Warp 0 arrives on b0 and waits on b1; warp 1 waits on b0 and arrives on b1: 2 hops per round.
  const bool first = threadIdx.x < 32;
  const bool lead = (threadIdx.x & 31) == 0;
  for (unsigned i = 0; i < iters; ++i) {
    const unsigned par = i & 1u;
    if (first) {
      if (lead) mbar_arrive(b0);
      mbar_wait(b1, par);
    } else {
      mbar_wait(b0, par);
      if (lead) mbar_arrive(b1);
    }
  }
  return 2ull * iters;
}

static __device__ __forceinline__ unsigned long long mbar_single(unsigned b0, unsigned iters, int mode) {
  unsigned long long x = 0;
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 16; ++u) {
      if (mode == 0) {
        x ^= mbar_arrive(b0);
      } else if (mode == 1) {
        mbar_arrive(b0);
        mbar_wait(b0, (i * 16 + u) & 1u);
      } else if (mode == 2) {
        x += mbar_try(b0, 0u);  // phase 0 of b0 completed before the loop: its parity-0 wait returns true
      } else {
        mbar_expect_tx(b0, 128);
        asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 128;" ::"r"(b0) : "memory");
        mbar_wait(b0, (i * 16 + u) & 1u);
      }
    }
  }
  return x;
}

extern "C" __global__ void __launch_bounds__(64, 1) mbar_ops(unsigned long long* out, unsigned iters, int mode) {
  __shared__ __align__(8) unsigned long long bars[2];
  const unsigned b0 = hw_smem_addr(&bars[0]), b1 = hw_smem_addr(&bars[1]);
  if (threadIdx.x == 0) {
    mbar_init(b0, mode == 0 ? 0xFFFFFu : 1u);
    mbar_init(b1, 1u);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    if (mode == 2) mbar_arrive(b0);  // complete phase 0
  }
  __syncthreads();
  unsigned long long t0 = 0, t1 = 0, steps = 0, x = 0;
  if (mode == 4) {
    __syncthreads();
    t0 = mb_clock64();
    steps = mbar_pingpong(b0, b1, iters);
    t1 = mb_clock64();
  } else if (threadIdx.x == 0) {
    t0 = mb_clock64();
    x = mbar_single(b0, iters, mode);
    t1 = mb_clock64();
    steps = 16ull * iters;
  }
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = steps;
    if (x == 0x123456789ull) out[2] = x;
  }
}

// ---- TMA latency -------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(32, 1)
    tma_lat(const __grid_constant__ HwTmap map, const unsigned char* src, unsigned long long* out, unsigned steps,
            unsigned ntiles, unsigned tiles_x, int mode, unsigned warm) {
  extern __shared__ __align__(1024) unsigned char tl_smem[];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned dst = (hw_smem_addr(tl_smem) + 1023u) & ~1023u;
  const unsigned b = hw_smem_addr(&bar);
  if (threadIdx.x != 0) return;
  mbar_init(b, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  unsigned long long sum = 0, mn = ~0ull, mx = 0;
  for (unsigned i = 0; i < warm + steps; ++i) {
    const unsigned tile = i % ntiles;
    const unsigned long long t0 = mb_clock64();
    mbar_expect_tx(b, 8192);
    if (mode == 0)
      tma_load_2d(dst, &map, static_cast<int>((tile % tiles_x) * 64), static_cast<int>((tile / tiles_x) * 64), b);
    else
      bulk_load(dst, src + 8192ull * tile, 8192, b);
    mbar_wait(b, i & 1u);
    const unsigned long long dt = mb_clock64() - t0;
    if (i >= warm) {
      sum += dt;
      mn = dt < mn ? dt : mn;
      mx = dt > mx ? dt : mx;
    }
  }
  out[0] = sum;
  out[1] = steps;
  out[2] = mn;
  out[3] = mx;
}

// ---- TMA bandwidth -----------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(128, 1)
    tma_bw(const __grid_constant__ HwTmap map, const unsigned char* src, unsigned long long* out, unsigned iters,
           unsigned stages, unsigned ntiles, unsigned tiles_x, int mode) {
  extern __shared__ __align__(1024) unsigned char tb_smem[];
  __shared__ __align__(8) unsigned long long bars[16];
  const unsigned base = (hw_smem_addr(tb_smem) + 1023u) & ~1023u;
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < stages; ++s) mbar_init(hw_smem_addr(&bars[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const unsigned long long t0 = mb_clock64(), g0 = mb_globaltimer();
  unsigned long long bytes = 0;
  if (threadIdx.x == 0) {
    unsigned tile = blockIdx.x;
    const unsigned total = iters * stages;
    for (unsigned i = 0; i < total + stages; ++i) {
      const unsigned s = i % stages;
      const unsigned b = hw_smem_addr(&bars[s]);
      if (i >= stages) mbar_wait(b, ((i / stages) - 1) & 1u);  // the load of round i/stages - 1
      if (i < total) {
        const unsigned t = tile % ntiles;
        mbar_expect_tx(b, 8192);
        if (mode == 0)
          tma_load_2d(base + 8192u * s, &map, static_cast<int>((t % tiles_x) * 64),
                      static_cast<int>((t / tiles_x) * 64), b);
        else
          bulk_load(base + 8192u * s, src + 8192ull * t, 8192, b);
        tile += gridDim.x;
        bytes += 8192;
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) block_record(out, t0, mb_clock64(), g0, mb_globaltimer(), bytes);
}

// Bigger boxes (not yet measured): the same ring as tma_bw with a box of 64 x box_rows bf16
// (128 x box_rows bytes per load), to separate a per-instruction from a per-byte limit.
extern "C" __global__ void __launch_bounds__(128, 1)
    tma_bw_box(const __grid_constant__ HwTmap map, unsigned long long* out, unsigned iters, unsigned stages,
               unsigned ntiles, unsigned tiles_x, unsigned box_rows) {
  extern __shared__ __align__(1024) unsigned char tx_smem[];
  __shared__ __align__(8) unsigned long long bars[16];
  const unsigned base = (hw_smem_addr(tx_smem) + 1023u) & ~1023u;
  const unsigned bytes = 128u * box_rows;
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < stages; ++s) mbar_init(hw_smem_addr(&bars[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const unsigned long long t0 = mb_clock64(), g0 = mb_globaltimer();
  unsigned long long moved = 0;
  if (threadIdx.x == 0) {
    unsigned tile = blockIdx.x;
    const unsigned total = iters * stages;
    for (unsigned i = 0; i < total + stages; ++i) {
      const unsigned s = i % stages;
      const unsigned b = hw_smem_addr(&bars[s]);
      if (i >= stages) mbar_wait(b, ((i / stages) - 1) & 1u);
      if (i < total) {
        const unsigned t = tile % ntiles;
        mbar_expect_tx(b, bytes);
        tma_load_2d(base + bytes * s, &map, static_cast<int>((t % tiles_x) * 64),
                    static_cast<int>((t / tiles_x) * box_rows), b);
        tile += gridDim.x;
        moved += bytes;
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) block_record(out, t0, mb_clock64(), g0, mb_globaltimer(), moved);
}

// ---- TMA multicast -----------------------------------------------------------------------------
// map: box {64, 64 / C} when mcast (each CTA loads its 1/C of the 64 rows to all CTAs of the
// cluster), box {64, 64} otherwise (each CTA loads the whole tile for itself). Every CTA receives
// 8 KiB per stage either way. Per round: expect_tx on every stage, cluster barrier (all CTAs armed
// before bytes arrive), issue, wait for all stages, cluster barrier (all CTAs done with the stage
// buffers before the next round writes them).

extern "C" __global__ void __launch_bounds__(128, 1)
    tma_mc(const __grid_constant__ HwTmap map, unsigned long long* out, unsigned iters, unsigned stages,
           unsigned tiles_x, unsigned ntiles, int mcast) {
  extern __shared__ __align__(1024) unsigned char tm_smem[];
  __shared__ __align__(8) unsigned long long bars[16];
  const unsigned base = (hw_smem_addr(tm_smem) + 1023u) & ~1023u;
  const unsigned rank = cluster_rank(), csize = cluster_size();
  const unsigned cluster_id = blockIdx.x / csize, nclusters = gridDim.x / csize;
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < stages; ++s) mbar_init(hw_smem_addr(&bars[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  const unsigned long long t0 = mb_clock64(), g0 = mb_globaltimer();
  const unsigned rows = mcast ? 64u / csize : 64u;
  const unsigned short mask = static_cast<unsigned short>((1u << csize) - 1u);
  unsigned tile = mcast ? cluster_id : blockIdx.x;
  const unsigned step = mcast ? nclusters : gridDim.x;
  for (unsigned it = 0; it < iters; ++it) {
    if (threadIdx.x == 0)
      for (unsigned s = 0; s < stages; ++s) mbar_expect_tx(hw_smem_addr(&bars[s]), 8192);
    cluster_sync();
    if (threadIdx.x == 0) {
      for (unsigned s = 0; s < stages; ++s) {
        const unsigned t = (tile + s * step) % ntiles;
        const int x = static_cast<int>((t % tiles_x) * 64), y = static_cast<int>((t / tiles_x) * 64);
        const unsigned b = hw_smem_addr(&bars[s]);
        if (mcast)
          tma_load_2d_mc(base + 8192u * s + rank * rows * 128u, &map, x, y + static_cast<int>(rank * rows), b, mask);
        else
          tma_load_2d(base + 8192u * s, &map, x, y, b);
      }
      for (unsigned s = 0; s < stages; ++s) mbar_wait(hw_smem_addr(&bars[s]), it & 1u);
    }
    tile += stages * step;
    cluster_sync();
  }
  if (threadIdx.x == 0) block_record(out, t0, mb_clock64(), g0, mb_globaltimer(), 8192ull * stages * iters);
}

// ---- distributed shared memory ------------------------------------------------------------------

// Chase through `target`'s shared memory: word i holds the shared::cluster address of word
// (i + 97) mod 4096 (16 KiB; every load a different bank group and line).
extern "C" __global__ void __launch_bounds__(32, 1)
    dsmem_lat(unsigned long long* out, unsigned steps, unsigned target) {
  __shared__ __align__(16) unsigned chase[4096];
  const unsigned rank = cluster_rank();
  const unsigned mine = mapa(hw_smem_addr(chase), rank);
  for (unsigned i = threadIdx.x; i < 4096; i += 32) chase[i] = mine + 4u * ((i + 97u) % 4096u);
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    unsigned p = mapa(hw_smem_addr(chase), target);
    for (unsigned i = 0; i < 64; ++i) asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(p) : : "memory");
    const unsigned long long t0 = mb_clock64();
    for (unsigned i = 0; i < steps; i += 16) {
#pragma unroll
      for (int u = 0; u < 16; ++u) asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(p) : : "memory");
    }
    out[3] = p;
    const unsigned long long t1 = mb_clock64();
    out[0] = t1 - t0;
    out[1] = steps;
    out[2] = mb_smid();
  }
  cluster_sync();  // the target's shared memory stays alive until the chase is over
}

// Every thread reads 16-byte words of the peer's 32 KiB (rank ^ peer; peer 0 = its own shared
// memory through the cluster window), 8 independent loads per step.
extern "C" __global__ void __launch_bounds__(256, 1) dsmem_bw(unsigned long long* out, unsigned iters, unsigned peer) {
  __shared__ __align__(16) unsigned buf[8192];
  const unsigned rank = cluster_rank();
  for (unsigned i = threadIdx.x; i < 8192; i += blockDim.x) buf[i] = i * 0x9e3779b9u;
  cluster_sync();
  const unsigned remote = mapa(hw_smem_addr(buf), rank ^ peer);
  unsigned x = 0;
  const unsigned long long t0 = mb_clock64(), g0 = mb_globaltimer();
  for (unsigned it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const unsigned a = remote + 16u * ((threadIdx.x + 256u * u + 2048u * (it & 1u)) & 2047u);
      unsigned v0, v1, v2, v3;
      asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                   : "r"(a)
                   : "memory");
      x ^= v0 ^ v1 ^ v2 ^ v3;
    }
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64(), g1 = mb_globaltimer();
  if (threadIdx.x == 0) block_record(out, t0, t1, g0, g1, 16ull * 8 * iters * blockDim.x);
  if (x == 0x12345u) out[6ull * gridDim.x] = x;
  cluster_sync();
}

extern "C" __global__ void __launch_bounds__(128, 1) cluster_bar(unsigned long long* out, unsigned iters, int relaxed) {
  cluster_sync();
  const unsigned long long t0 = mb_clock64(), g0 = mb_globaltimer();
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (relaxed)
        asm volatile("barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;" ::: "memory");
      else
        asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
    }
  }
  const unsigned long long t1 = mb_clock64(), g1 = mb_globaltimer();
  if (threadIdx.x == 0) block_record(out, t0, t1, g0, g1, 8ull * iters);
}

// ---- setmaxnreg ----------------------------------------------------------------------------------
// Warpgroup 0 (the producer) gives registers back, warpgroups 1-2 (consumers) take more and run
// 24 independent FFMA chains of 8 values each (192 live floats: more than the 168 registers that
// __launch_bounds__(384, 1) leaves every thread at entry). ptxas -v and the SASS say whether the
// consumer code fits without spilling; the host measures residency (blocks per SM) and time.

template <bool kSet>
static __device__ __forceinline__ void nreg_body(unsigned long long* out, unsigned iters) {
  const unsigned wg = threadIdx.x / 128;
  __syncthreads();
  const unsigned long long t0 = mb_clock64(), g0 = mb_globaltimer();
  float acc = 0;
  if (wg == 0) {
    if (kSet) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    for (unsigned i = 0; i < iters; ++i) acc += __int_as_float(static_cast<int>(i | 0x3f000000u));
  } else {
    if (kSet) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    float v[192];
#pragma unroll
    for (int j = 0; j < 192; ++j) v[j] = static_cast<float>(threadIdx.x + j) * 1e-3f;
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
      for (int j = 0; j < 192; ++j) asm volatile("fma.rn.f32 %0, %0, 0f3F7FFFFF, 0f3A83126F;" : "+f"(v[j]));
    }
    // The first consumer thread stamps the end of its loop (out[6 x grid + 1 + block]): the
    // producer's block-0 span alone did not cover the consumers' work on the H200 (2026-12-02).
    if (threadIdx.x == 128) out[6ull * gridDim.x + 1 + blockIdx.x] = mb_clock64();
#pragma unroll
    for (int j = 0; j < 192; ++j) acc += v[j];
  }
  __syncthreads();
  const unsigned long long t1 = mb_clock64(), g1 = mb_globaltimer();
  if (threadIdx.x == 0) block_record(out, t0, t1, g0, g1, 0);
  if (acc == 1234.5f) out[6ull * gridDim.x] = 1;
}

extern "C" __global__ void __launch_bounds__(384, 1) nreg_ws_set(unsigned long long* out, unsigned iters) {
  nreg_body<true>(out, iters);
}

extern "C" __global__ void __launch_bounds__(384, 1) nreg_ws_plain(unsigned long long* out, unsigned iters) {
  nreg_body<false>(out, iters);
}
