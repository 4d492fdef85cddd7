// The bf16 GEMM ladder of the Blackwell validation set: C = A B^T written four ways, each step adding
// one piece of how fast sm_100a GEMMs are built. Written from the PTX ISA (tcgen05, tensor memory,
// TMA, clusterlaunchcontrol); no B200 has run it yet (issue 13: kernsim is to run it first).
//   A [M, K], B [N, K] (both K-major), C [M, N]: bf16, row-major; fp32 accumulation in tensor
//   memory (TMEM). K a multiple of 64; M, N multiples of the CTA tile (step 1: 128 x 256, steps
//   2-4: clusters of two CTAs covering 256 x 256). Grids are 1-D.
//   1 ladder_tc1          tcgen05.mma.cta_group::1 m128n256k16, TMA loads into a 4-stage ring of
//                         full/empty mbarriers; warp 0 loads, one thread of warp 1 issues the MMAs
//                         and commits them onto the empty barriers, warps 2-5 read TMEM
//                         (tcgen05.ld 32x32b) and store C
//   2 ladder_tc1_mc       step 1 in a 2x1 cluster: the CTAs share the B tile, each loads half and
//                         multicasts it to both; a stage is free when both CTAs' MMAs committed
//                         (tcgen05.commit .multicast::cluster onto both empty barriers)
//   3 ladder_tc2          a CTA pair (cta_group::2): the even CTA issues m256n256k16 MMAs reading
//                         A and B halves from both CTAs' shared memory, each CTA's TMEM holding its
//                         128 rows; the odd CTA's TMA completes on the even CTA's barrier
//                         (.cta_group::2), 6 stages
//   4 ladder_tc2_clc      step 3 persistent: the grid has one cluster per tile, a running cluster
//                         takes the next one with clusterlaunchcontrol.try_cancel (response
//                         multicast to both CTAs, two response slots), and two TMEM accumulators
//                         (512 columns) let the epilogue of one tile overlap the next tile's MMAs
// Kernel code only (no host code, no CUDA headers): kernsim compiles it with clang for sm_100a.
// Every kernel takes (A, B, C, mapA, mapB, M, N, K) as the Hopper ladder's TMA steps do: A and B are
// read only through the maps (the pointers name the buffers the maps describe).
// Tensor maps are passed by value (__grid_constant__, 128 bytes, 64-byte aligned) as
// cuTensorMapEncodeTiled writes them: bf16, 128B swizzle, 256B L2 promotion, zero OOB fill;
// A: dims {K, M}, box {64, 128}; B: dims {K, N}, box {64, 256} (step 1) or {64, 128} (steps 2-4).
// clang drops __cluster_dims__: the launch gives the 2x1 cluster of steps 2-4.

typedef unsigned short bf16_t;  // raw bf16 bits
typedef unsigned int u32;
typedef unsigned long long u64;

struct __align__(64) TensorMap {
  u64 opaque[16];
};

#define BK 64                         // K per stage: one 128-byte swizzle row of bf16
#define A_STAGE_BYTES (128 * BK * 2)  // 128 rows of A
#define EPI_WARP0 2                   // warps 2-5 read TMEM: warp w reaches lanes 32 (w % 4) ...

// ------------------------------------------------------------------------------------- helpers

__device__ __forceinline__ u32 smem_u32(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ u32 pack_bf16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

__device__ __forceinline__ u32 cluster_ctarank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The shared::cluster address of the same shared variable in CTA `rank` of the cluster.
__device__ __forceinline__ u32 peer_addr(u32 saddr, u32 rank) {
  u32 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(saddr), "r"(rank));
  return r;
}

// mbarriers
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx_arrive(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_remote(u32 cluster_bar) {  // a shared::cluster address
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  u32 done;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}
// Cluster-scope acquire: the data the phase protects was written by the other CTA or its engines.
__device__ __forceinline__ void mbar_wait_cluster(u32 bar, u32 parity) {
  u32 done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// TMA: a 2-D box at (c0 = column, c1 = row) of `map` into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load(u32 dst, const TensorMap* map, int c0, int c1, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// The same box written at the same offset in every CTA of `mask`, completing on each one's `bar`.
__device__ __forceinline__ void tma_load_multicast(u32 dst, const TensorMap* map, int c0, int c1, u32 bar,
                                                   unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
// A CTA pair's load: the box lands in this CTA's shared memory and completes on `cluster_bar`,
// which may be the peer CTA's barrier (a shared::cluster address).
__device__ __forceinline__ void tma_load_pair(u32 dst, const TensorMap* map, int c0, int c1, u32 cluster_bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::2 "
      "[%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(cluster_bar)
      : "memory");
}

// tcgen05 --------------------------------------------------------------------------------------
// Shared-memory descriptor of a K-major tile in 128-byte rows with the 128-byte swizzle (8-row
// atoms of 1024 bytes, 1024-byte aligned): start >> 4 in bits 0-13, leading byte offset unused
// (16 B), stride byte offset 1024 >> 4 in bits 32-45, the fixed 0b001 in bits 46-48, swizzle
// mode 2 (128B) in bits 61-63.
__device__ __forceinline__ u64 sdesc_sw128(u32 saddr) {
  return static_cast<u64>((saddr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 46) | (2ull << 61);
}
// Instruction descriptor of kind::f16: D f32 (bits 4-5 = 1), A and B bf16 (bits 7-9, 10-12 = 1),
// both K-major (bits 15, 16 = 0), N >> 3 in bits 17-22, M >> 4 in bits 24-28.
__host__ __device__ constexpr u32 idesc_bf16(int m, int n) {
  return (1u << 4) | (1u << 7) | (1u << 10) | (static_cast<u32>(n >> 3) << 17) | (static_cast<u32>(m >> 4) << 24);
}

template <int CTA_GROUP>
__device__ __forceinline__ void tmem_alloc(u32 dst_smem, u32 ncols) {
  if (CTA_GROUP == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols)
                 : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols)
                 : "memory");
}
template <int CTA_GROUP>
__device__ __forceinline__ void tmem_relinquish() {
  if (CTA_GROUP == 1)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}
template <int CTA_GROUP>
__device__ __forceinline__ void tmem_dealloc(u32 taddr, u32 ncols) {
  if (CTA_GROUP == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}
__device__ __forceinline__ void tc_fence_before() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tc_fence_after() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

// D[tmem] (+)= A B^T for one K step of 16, A and B by shared-memory descriptor.
template <int CTA_GROUP>
__device__ __forceinline__ void mma_bf16(u32 tmem_d, u64 da, u64 db, u32 idesc, int accumulate) {
  if (CTA_GROUP == 1)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem_d),
        "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
        : "memory");
  else
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem_d),
        "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
        : "memory");
}
// Arrive once on `bar` when every MMA this thread issued before has completed.
__device__ __forceinline__ void mma_commit(u32 bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
}
// The same, arriving on the barrier at `bar`'s offset in every CTA of `mask`.
template <int CTA_GROUP>
__device__ __forceinline__ void mma_commit_multicast(u32 bar, unsigned short mask) {
  if (CTA_GROUP == 1)
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(bar),
        "h"(mask)
        : "memory");
  else
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(bar),
        "h"(mask)
        : "memory");
}

// The epilogue: warp w (EPI_WARP0 .. EPI_WARP0 + 3) reads TMEM lanes 32 (w % 4) .. + 31 (rows of
// the CTA's 128-row tile), 32 fp32 columns at a time, and stores each row's 32 values as bf16.
__device__ __forceinline__ void store_tile(bf16_t* C, int ldc, int row0, int col0, u32 tmem_acc, int ncols) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, quarter = warp % 4;
  const int row = row0 + 32 * quarter + lane;
  const u32 taddr = tmem_acc + (static_cast<u32>(32 * quarter) << 16);
  for (int c = 0; c < ncols; c += 32) {
    u32 v[32];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]),
          "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15]), "=r"(v[16]),
          "=r"(v[17]), "=r"(v[18]), "=r"(v[19]), "=r"(v[20]), "=r"(v[21]), "=r"(v[22]), "=r"(v[23]), "=r"(v[24]),
          "=r"(v[25]), "=r"(v[26]), "=r"(v[27]), "=r"(v[28]), "=r"(v[29]), "=r"(v[30]), "=r"(v[31])
        : "r"(taddr + c));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    uint4* dst = reinterpret_cast<uint4*>(C + (size_t)row * ldc + col0 + c);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      uint4 w;
      w.x = pack_bf16x2(__uint_as_float(v[8 * q + 0]), __uint_as_float(v[8 * q + 1]));
      w.y = pack_bf16x2(__uint_as_float(v[8 * q + 2]), __uint_as_float(v[8 * q + 3]));
      w.z = pack_bf16x2(__uint_as_float(v[8 * q + 4]), __uint_as_float(v[8 * q + 5]));
      w.w = pack_bf16x2(__uint_as_float(v[8 * q + 6]), __uint_as_float(v[8 * q + 7]));
      dst[q] = w;
    }
  }
}

// The first 1024-byte aligned byte of dynamic shared memory (the 128B swizzle works in 1024-byte atoms).
__device__ __forceinline__ unsigned char* smem_1024(unsigned char* p) {
  const u32 s = smem_u32(p);
  return p + ((1024 - (s & 1023)) & 1023);
}

// ------------------------------------------------- steps 1 and 2: cta_group::1, 128 x 256 a CTA

#define S12_STAGES 4
#define S12_B_BYTES (256 * BK * 2)
#define S12_STAGE_BYTES (A_STAGE_BYTES + S12_B_BYTES)

// MULTICAST: a 2x1 cluster; CTA r computes rows (2 (blockIdx.x / 2 / tiles_n) + r) 128.., the
// pair sharing the 256-column B tile, each CTA loading B rows 128 r .. 128 r + 127 into both.
template <bool MULTICAST>
__device__ __forceinline__ void tc1_body(const TensorMap* mapA, const TensorMap* mapB, bf16_t* C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_1024(smem_raw);
  __shared__ __align__(8) u64 full[S12_STAGES], empty[S12_STAGES], acc_full;
  __shared__ u32 tmem_base;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tiles_n = N / 256;
  const u32 rank = MULTICAST ? cluster_ctarank() : 0;
  const int tile = MULTICAST ? blockIdx.x / 2 : blockIdx.x;
  const int m0 = MULTICAST ? ((tile / tiles_n) * 2 + rank) * 128 : (tile / tiles_n) * 128;
  const int n0 = (tile % tiles_n) * 256;
  const int kblocks = K / BK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S12_STAGES; ++s) {
      mbar_init(smem_u32(&full[s]), 1);
      mbar_init(smem_u32(&empty[s]), MULTICAST ? 2 : 1);  // both CTAs' MMAs read a multicast stage
    }
    mbar_init(smem_u32(&acc_full), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (warp == 1) {
    tmem_alloc<1>(smem_u32(&tmem_base), 256);
    tmem_relinquish<1>();
  }
  tc_fence_before();
  if (MULTICAST)
    cluster_sync();
  else
    __syncthreads();
  tc_fence_after();
  const u32 tmem_acc = tmem_base;

  if (warp == 0 && lane == 0) {  // producer
    for (int kb = 0; kb < kblocks; ++kb) {
      const int s = kb % S12_STAGES;
      if (kb >= S12_STAGES) mbar_wait(smem_u32(&empty[s]), ((kb / S12_STAGES) - 1) & 1);
      const u32 a = smem_u32(smem + s * S12_STAGE_BYTES), b = a + A_STAGE_BYTES;
      const u32 bar = smem_u32(&full[s]);
      mbar_expect_tx_arrive(bar, S12_STAGE_BYTES);
      tma_load(a, mapA, kb * BK, m0, bar);
      if (MULTICAST)
        tma_load_multicast(b + rank * (S12_B_BYTES / 2), mapB, kb * BK, n0 + 128 * rank, bar, 0x3);
      else
        tma_load(b, mapB, kb * BK, n0, bar);
    }
  } else if (warp == 1 && lane == 0) {  // MMA issuer
    const u32 idesc = idesc_bf16(128, 256);
    for (int kb = 0; kb < kblocks; ++kb) {
      const int s = kb % S12_STAGES;
      mbar_wait(smem_u32(&full[s]), (kb / S12_STAGES) & 1);
      tc_fence_after();
      const u32 a = smem_u32(smem + s * S12_STAGE_BYTES), b = a + A_STAGE_BYTES;
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)  // +32 bytes of K per step inside the swizzle atom
        mma_bf16<1>(tmem_acc, sdesc_sw128(a + 32 * k), sdesc_sw128(b + 32 * k), idesc, kb > 0 || k > 0);
      if (MULTICAST)
        mma_commit_multicast<1>(smem_u32(&empty[s]), 0x3);
      else
        mma_commit(smem_u32(&empty[s]));
    }
    mma_commit(smem_u32(&acc_full));
  } else if (warp >= EPI_WARP0) {  // epilogue
    mbar_wait(smem_u32(&acc_full), 0);
    tc_fence_after();
    store_tile(C, N, m0, n0, tmem_acc, 256);
  }
  __syncwarp();  // the role branches leave warps 0 and 1 diverged; the barriers below are .aligned
  tc_fence_before();
  if (MULTICAST)
    cluster_sync();  // the peer's multicasts into this CTA and its commits onto our barriers are done
  else
    __syncthreads();
  if (warp == 1) {
    tc_fence_after();
    tmem_dealloc<1>(tmem_acc, 256);
  }
}

extern "C" __global__ void __launch_bounds__(192, 1)
    ladder_tc1(const bf16_t* A, const bf16_t* B, bf16_t* C, const __grid_constant__ TensorMap mapA,
               const __grid_constant__ TensorMap mapB, int M, int N, int K) {
  tc1_body<false>(&mapA, &mapB, C, M, N, K);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(192, 1)
    ladder_tc1_mc(const bf16_t* A, const bf16_t* B, bf16_t* C, const __grid_constant__ TensorMap mapA,
                  const __grid_constant__ TensorMap mapB, int M, int N, int K) {
  tc1_body<true>(&mapA, &mapB, C, M, N, K);
}

// ------------------------------------- steps 3 and 4: cta_group::2, a CTA pair covers 256 x 256

#define S34_STAGES 6
#define S34_B_BYTES (128 * BK * 2)  // this CTA's half of the 256-row B tile
#define S34_STAGE_BYTES (A_STAGE_BYTES + S34_B_BYTES)
#define CLC_CONSUMERS 11  // per response: producer and 4 epilogue warps of both CTAs, the MMA thread

// Tile t of a cluster: rows 256 (t % tiles_m) .., columns 256 (t / tiles_m) ..; CTA r of the pair
// loads A rows + 128 r and B rows + 128 r, and its TMEM receives D rows + 128 r.
__device__ __forceinline__ void pair_tile(int t, int M, int& m0, int& n0) {
  const int tiles_m = M / 256;
  m0 = (t % tiles_m) * 256;
  n0 = (t / tiles_m) * 256;
}

// The tile after `t` from a clusterlaunchcontrol response (the 16 bytes at `resp`): the canceled
// cluster's tile, or -1 when no cluster was left to cancel.
__device__ __forceinline__ int clc_next_tile(u32 resp) {
  u32 canceled, x;
  asm volatile(
      "{\n.reg .b128 h;\n.reg .pred p;\nld.shared.b128 h, [%2];\n"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, h;\nselp.u32 %0, 1, 0, p;\n"
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, h;\n}"
      : "=r"(canceled), "=r"(x)
      : "r"(resp)
      : "memory");
  return canceled ? static_cast<int>(x / 2) : -1;
}

template <bool PERSISTENT>
__device__ __forceinline__ void tc2_body(const TensorMap* mapA, const TensorMap* mapB, bf16_t* C, int M, int N, int K) {
  constexpr int ACCS = PERSISTENT ? 2 : 1;  // TMEM accumulators of 256 columns
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_1024(smem_raw);
  __shared__ __align__(8) u64 full[S34_STAGES], empty[S34_STAGES], acc_full[2], acc_empty[2];
  __shared__ __align__(8) u64 clc_full[2], clc_empty[2];
  __shared__ __align__(16) uint4 clc_resp[2];
  __shared__ u32 tmem_base;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const u32 rank = cluster_ctarank();
  const bool leader = rank == 0;
  const int kblocks = K / BK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S34_STAGES; ++s) {
      mbar_init(smem_u32(&full[s]), 1);   // the leader's: its producer's expect_tx; both CTAs' bytes
      mbar_init(smem_u32(&empty[s]), 1);  // each CTA's: the leader's commit, multicast
    }
    for (int b = 0; b < 2; ++b) {
      mbar_init(smem_u32(&acc_full[b]), 1);               // each CTA's: the leader's commit, multicast
      mbar_init(smem_u32(&acc_empty[b]), 8);              // the leader's: 4 epilogue warps of each CTA
      mbar_init(smem_u32(&clc_full[b]), 1);               // each CTA's: its producer's expect_tx; the response
      mbar_init(smem_u32(&clc_empty[b]), CLC_CONSUMERS);  // the leader's
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (warp == 1) {  // one warp of each CTA of the pair allocates, together
    tmem_alloc<2>(smem_u32(&tmem_base), 256 * ACCS);
    tmem_relinquish<2>();
  }
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  const u32 tmem0 = tmem_base;
  const u32 full_leader0 = peer_addr(smem_u32(&full[0]), 0);

  if (warp == 0 && lane == 0) {  // producer (both CTAs); the leader's also asks for the next tile
    int t = blockIdx.x / 2, kb_total = 0;
    for (int i = 0; t >= 0; ++i) {
      const int q = i & 1;
      if (PERSISTENT) {
        mbar_expect_tx_arrive(smem_u32(&clc_full[q]), 16);
        if (leader) {
          if (i >= 2) mbar_wait_cluster(smem_u32(&clc_empty[q]), ((i >> 1) - 1) & 1);
          asm volatile(
              "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::"
              "all.b128 [%0], [%1];" ::"r"(smem_u32(&clc_resp[q])),
              "r"(smem_u32(&clc_full[q]))
              : "memory");
        }
      }
      int m0, n0;
      pair_tile(t, M, m0, n0);
      for (int kb = 0; kb < kblocks; ++kb, ++kb_total) {
        const int s = kb_total % S34_STAGES;
        if (kb_total >= S34_STAGES) mbar_wait_cluster(smem_u32(&empty[s]), ((kb_total / S34_STAGES) - 1) & 1);
        const u32 a = smem_u32(smem + s * S34_STAGE_BYTES), b = a + A_STAGE_BYTES;
        const u32 bar = full_leader0 + 8 * s;
        if (leader) mbar_expect_tx_arrive(smem_u32(&full[s]), 2 * S34_STAGE_BYTES);
        tma_load_pair(a, mapA, kb * BK, m0 + 128 * rank, bar);
        tma_load_pair(b, mapB, kb * BK, n0 + 128 * rank, bar);
      }
      if (!PERSISTENT) break;
      mbar_wait_cluster(smem_u32(&clc_full[q]), (i >> 1) & 1);
      t = clc_next_tile(smem_u32(&clc_resp[q]));
      mbar_arrive_remote(peer_addr(smem_u32(&clc_empty[q]), 0));
    }
  } else if (warp == 1 && lane == 0 && leader) {  // MMA issuer: the leader's only
    const u32 idesc = idesc_bf16(256, 256);
    int t = blockIdx.x / 2, kb_total = 0;
    for (int i = 0; t >= 0; ++i) {
      const int acc = i % ACCS;
      const u32 tmem_acc = tmem0 + 256 * acc;
      if (i >= ACCS) {  // the epilogue has read this accumulator's previous tile
        mbar_wait_cluster(smem_u32(&acc_empty[acc]), ((i / ACCS) - 1) & 1);
        tc_fence_after();
      }
      for (int kb = 0; kb < kblocks; ++kb, ++kb_total) {
        const int s = kb_total % S34_STAGES;
        mbar_wait_cluster(smem_u32(&full[s]), (kb_total / S34_STAGES) & 1);
        tc_fence_after();
        const u32 a = smem_u32(smem + s * S34_STAGE_BYTES), b = a + A_STAGE_BYTES;
#pragma unroll
        for (int k = 0; k < BK / 16; ++k)
          mma_bf16<2>(tmem_acc, sdesc_sw128(a + 32 * k), sdesc_sw128(b + 32 * k), idesc, kb > 0 || k > 0);
        mma_commit_multicast<2>(smem_u32(&empty[s]), 0x3);
      }
      mma_commit_multicast<2>(smem_u32(&acc_full[acc]), 0x3);
      if (!PERSISTENT) break;
      const int q = i & 1;
      mbar_wait_cluster(smem_u32(&clc_full[q]), (i >> 1) & 1);
      t = clc_next_tile(smem_u32(&clc_resp[q]));
      mbar_arrive(smem_u32(&clc_empty[q]));
    }
  } else if (warp >= EPI_WARP0) {  // epilogue (both CTAs): this CTA's 128 rows of the pair's tile
    int t = blockIdx.x / 2;
    for (int i = 0; t >= 0; ++i) {
      const int acc = i % ACCS;
      int m0, n0;
      pair_tile(t, M, m0, n0);
      mbar_wait_cluster(smem_u32(&acc_full[acc]), (i / ACCS) & 1);
      tc_fence_after();
      store_tile(C, N, m0 + 128 * rank, n0, tmem0 + 256 * acc, 256);
      tc_fence_before();
      __syncwarp();
      if (lane == 0) mbar_arrive_remote(peer_addr(smem_u32(&acc_empty[acc]), 0));
      if (!PERSISTENT) break;
      const int q = i & 1;
      mbar_wait_cluster(smem_u32(&clc_full[q]), (i >> 1) & 1);
      t = clc_next_tile(smem_u32(&clc_resp[q]));
      __syncwarp();
      if (lane == 0) mbar_arrive_remote(peer_addr(smem_u32(&clc_empty[q]), 0));
    }
  }
  __syncwarp();  // the role branches leave warps 0 and 1 diverged; the barriers below are .aligned
  tc_fence_before();
  cluster_sync();  // both CTAs done: no more multicasts, commits or arrivals into either
  if (warp == 1) {
    tc_fence_after();
    tmem_dealloc<2>(tmem0, 256 * ACCS);
  }
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(192, 1)
    ladder_tc2(const bf16_t* A, const bf16_t* B, bf16_t* C, const __grid_constant__ TensorMap mapA,
               const __grid_constant__ TensorMap mapB, int M, int N, int K) {
  tc2_body<false>(&mapA, &mapB, C, M, N, K);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(192, 1)
    ladder_tc2_clc(const bf16_t* A, const bf16_t* B, bf16_t* C, const __grid_constant__ TensorMap mapA,
                   const __grid_constant__ TensorMap mapB, int M, int N, int K) {
  tc2_body<true>(&mapA, &mapB, C, M, N, K);
}
