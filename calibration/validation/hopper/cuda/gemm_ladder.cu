// The bf16 GEMM ladder of the Hopper validation set: one GEMM, C = A B^T, written five ways, each
// step adding one piece of how fast Hopper GEMMs are built. Written from the PTX ISA (sm_90a).
//   A [M, K], B [N, K] (both K-major), C [M, N]: bf16, row-major; fp32 accumulation.
//   M and N multiples of the tile (128 x 128 for steps 1-3, 128 x 256 for 4-5), K a multiple of 64
//   (32 for step 1). Grids are 1-D, one CTA per output tile (step 5: pairs of CTAs, a 2x1 cluster).
//   1 ladder_mma_sync     mma.sync m16n8k16 fed by ldmatrix from a cp.async double buffer
//   2 ladder_wgmma_sync   wgmma m64n128k16, tiles copied by the threads (ld.global, st.shared with
//                         the 128-byte swizzle the descriptors name), one stage, next tile in registers
//   3 ladder_wgmma_tma    wgmma m64n128k16 fed by TMA (cp.async.bulk.tensor) into a 4-stage ring on
//                         mbarriers; one thread issues the copies, __syncthreads frees a stage
//   4 ladder_wgmma_ws     warp-specialised: a producer warpgroup (TMA) and two consumer warpgroups
//                         (m64n256k16), full/empty mbarriers per stage, setmaxnreg
//   5 ladder_wgmma_ws_mc  step 4 in a 2x1 cluster: each CTA loads half of the shared B tile and
//                         multicasts it to both; consumers free a stage in both CTAs
// Kernel code only (no host code, no CUDA headers): kernsim compiles this file with clang, the H200
// measurement with nvcc (ladder_host.cu includes it). Tensor maps are passed by value
// (__grid_constant__, 128 bytes, 64-byte aligned) as cuTensorMapEncodeTiled writes them:
// A: dims {K, M}, box {64, 128}; B: dims {K, N}, box {64, 128} (step 5: the half tile) or {64, 256}
// (step 4); bf16, 128B swizzle, 256B L2 promotion, zero OOB fill.

typedef unsigned short bf16_t;  // raw bf16 bits
typedef unsigned int u32;
typedef unsigned long long u64;

struct __align__(64) TensorMap {
  u64 opaque[16];
};

// ------------------------------------------------------------------------------------- helpers

__device__ __forceinline__ u32 smem_u32(const void* p) { return static_cast<u32>(__cvta_generic_to_shared(p)); }

// Two floats -> two bf16 in one word, `lo` at the lower address.
__device__ __forceinline__ u32 pack_bf16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

__device__ __forceinline__ void cp_async_16(u32 dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_one() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Shared-memory matrix descriptor of a K-major tile stored in 128-byte rows with the 128-byte
// swizzle (8-row atoms of 1024 bytes, 1024-byte aligned): stride byte offset 1024, leading byte
// offset unused (1), swizzle mode 1 in bits 62-63.
__device__ __forceinline__ u64 desc_sw128(u32 saddr) {
  return static_cast<u64>((saddr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// D (64 x 128, f32, 64 registers a thread) = A (64 x 16) B^T (128 x 16) + (scale_d ? D : 0); A, B by smem descriptor
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], unsigned long long da, unsigned long long db,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d)
      : "memory");
}

// D (64 x 256, f32, 128 registers a thread) = A (64 x 16) B^T (256 x 16) + (scale_d ? D : 0); A, B by smem descriptor
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], unsigned long long da, unsigned long long db,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(scale_d)
      : "memory");
}

// mbarriers ------------------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx_arrive(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Arrive on the barrier at the same offset in CTA `rank` of the cluster. Default semantics
// (release at CTA scope): the consumers publish no data of their own, they only free a stage, and
// a release at cluster scope per arrival made step 5 1.6x slower than step 4 on the H200.
__device__ __forceinline__ void mbar_arrive_cluster(u32 bar, u32 rank) {
  u32 remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  u32 done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
// TMA: a 2-D box at (c0 = column, c1 = row) of `map` into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load_2d(u32 dst, const TensorMap* map, int c0, int c1, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// The same box written to the same offset in every CTA of `mask`, completing on each one's `bar`.
__device__ __forceinline__ void tma_load_2d_multicast(u32 dst, const TensorMap* map, int c0, int c1, u32 bar,
                                                      unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}

__device__ __forceinline__ u32 cluster_ctarank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Stores a warpgroup's 64 x N fp32 accumulator tile at C[row0.., col0..] as bf16. wgmma's D
// layout: warp w of the warpgroup holds rows 16w..16w+15; lane l holds, for each 8-column group j,
// (row l/4, columns 8j + 2(l%4) + {0,1}) in d[4j], d[4j+1] and row l/4 + 8 in d[4j+2], d[4j+3].
template <int N>
__device__ __forceinline__ void store_wg_tile(bf16_t* C, int ldc, int row0, int col0, const float (&d)[N / 2]) {
  const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
  const int r = row0 + 16 * w + l / 4;
  const int c = col0 + 2 * (l % 4);
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    *reinterpret_cast<u32*>(C + (size_t)r * ldc + c + 8 * j) = pack_bf16x2(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<u32*>(C + (size_t)(r + 8) * ldc + c + 8 * j) = pack_bf16x2(d[4 * j + 2], d[4 * j + 3]);
  }
}

// The first 1024-byte aligned byte of dynamic shared memory (the 128B swizzle works in 1024-byte atoms).
__device__ __forceinline__ unsigned char* smem_1024(unsigned char* p) {
  const u32 s = smem_u32(p);
  return p + ((1024 - (s & 1023)) & 1023);
}

// ---------------------------------------------------------------- step 1: mma.sync + cp.async

#define S1_LD 40  // 32 bf16 of K + 8 of padding: 80-byte rows, ldmatrix rows spread over the banks

// Copies the 128 x 32 tiles of A and B at k0 into stage `st` (2 x 16-byte cp.async per thread each).
__device__ __forceinline__ void s1_load(bf16_t* as, bf16_t* bs, const bf16_t* A, const bf16_t* B, int K, int bm,
                                        int bn, int k0) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int c = threadIdx.x + 256 * i, row = c >> 2, ch = (c & 3) * 8;
    cp_async_16(smem_u32(as + row * S1_LD + ch), A + (size_t)(bm + row) * K + k0 + ch);
    cp_async_16(smem_u32(bs + row * S1_LD + ch), B + (size_t)(bn + row) * K + k0 + ch);
  }
}

// One 32-deep K step of a warp's 64 x 32 sub-tile: 4 m16 x 4 n8 mma.sync per 16 of K.
__device__ __forceinline__ void s1_compute(float (&acc)[4][4][4], const bf16_t* as, const bf16_t* bs, int wm, int wn) {
  const int lane = threadIdx.x & 31, j = lane >> 3, r8 = lane & 7;
#pragma unroll
  for (int kk = 0; kk < 32; kk += 16) {
    u32 af[4][4], bfr[2][4];
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)  // matrices: rows 0-7/8-15 x k 0-7, then k 8-15
      ldmatrix_x4(af[mt], smem_u32(as + (wm + mt * 16 + (j & 1) * 8 + r8) * S1_LD + kk + (j >> 1) * 8));
#pragma unroll
    for (int np = 0; np < 2; ++np)  // matrices: n 0-7 x k 0-7, k 8-15, then n 8-15
      ldmatrix_x4(bfr[np], smem_u32(bs + (wn + np * 16 + (j >> 1) * 8 + r8) * S1_LD + kk + (j & 1) * 8));
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
        mma_bf16_16816(acc[mt][nt], af[mt], bfr[nt >> 1][(nt & 1) * 2], bfr[nt >> 1][(nt & 1) * 2 + 1]);
  }
}

// 128 x 128 tile per CTA, 8 warps as 2 (M) x 4 (N), each 64 x 32; K step 32, double-buffered.
extern "C" __global__ void __launch_bounds__(256) ladder_mma_sync(const bf16_t* __restrict__ A,
                                                                 const bf16_t* __restrict__ B,
                                                                 bf16_t* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16_t* as = reinterpret_cast<bf16_t*>(smem_raw);  // [2][128 * S1_LD]
  bf16_t* bs = as + 2 * 128 * S1_LD;                  // [2][128 * S1_LD]
  const int tiles_n = N / 128, bm = (blockIdx.x / tiles_n) * 128, bn = (blockIdx.x % tiles_n) * 128;
  if (bm >= M) return;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 64; ++i) (&acc[0][0][0])[i] = 0.0f;
  const int kt_n = K / 32;
  s1_load(as, bs, A, B, K, bm, bn, 0);
  cp_async_commit();
  for (int kt = 0; kt < kt_n; ++kt) {
    if (kt + 1 < kt_n) {
      const int st = (kt + 1) & 1;
      s1_load(as + st * 128 * S1_LD, bs + st * 128 * S1_LD, A, B, K, bm, bn, (kt + 1) * 32);
    }
    cp_async_commit();
    cp_async_wait_one();  // stage kt has landed
    __syncthreads();
    s1_compute(acc, as + (kt & 1) * 128 * S1_LD, bs + (kt & 1) * 128 * S1_LD, wm, wn);
    __syncthreads();  // everyone is done reading before the stage is refilled
  }
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      const int r = bm + wm + mt * 16 + lane / 4, c = bn + wn + nt * 8 + 2 * (lane % 4);
      *reinterpret_cast<u32*>(C + (size_t)r * N + c) = pack_bf16x2(acc[mt][nt][0], acc[mt][nt][1]);
      *reinterpret_cast<u32*>(C + (size_t)(r + 8) * N + c) = pack_bf16x2(acc[mt][nt][2], acc[mt][nt][3]);
    }
}

// ------------------------------------------------ step 2: wgmma, tiles copied by the threads

// The 128 x 64 tiles of A and B at k0: 1024 16-byte chunks each, 4 per thread, kept in registers.
__device__ __forceinline__ void s2_fetch(int4 (&ra)[4], int4 (&rb)[4], const bf16_t* A, const bf16_t* B, int K,
                                         int bm, int bn, int k0) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int c = threadIdx.x + 256 * i, row = c >> 3, ch = c & 7;
    ra[i] = *reinterpret_cast<const int4*>(A + (size_t)(bm + row) * K + k0 + ch * 8);
    rb[i] = *reinterpret_cast<const int4*>(B + (size_t)(bn + row) * K + k0 + ch * 8);
  }
}

// Writes the chunks in the 128-byte swizzle: chunk ch of row r goes to 16-byte slot ch ^ (r % 8).
__device__ __forceinline__ void s2_stash(unsigned char* as, unsigned char* bs, const int4 (&ra)[4],
                                         const int4 (&rb)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int c = threadIdx.x + 256 * i, row = c >> 3, ch = c & 7;
    const int off = row * 128 + ((ch ^ (row & 7)) * 16);
    *reinterpret_cast<int4*>(as + off) = ra[i];
    *reinterpret_cast<int4*>(bs + off) = rb[i];
  }
}

// 128 x 128 tile per CTA, 2 warpgroups each m64n128 (rows 64 wg ..); K step 64 = 4 wgmma k16.
extern "C" __global__ void __launch_bounds__(256) ladder_wgmma_sync(const bf16_t* __restrict__ A,
                                                                   const bf16_t* __restrict__ B,
                                                                   bf16_t* __restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* as = smem_1024(smem_raw);  // 128 rows x 128 bytes
  unsigned char* bs = as + 16384;
  const int tiles_n = N / 128, bm = (blockIdx.x / tiles_n) * 128, bn = (blockIdx.x % tiles_n) * 128;
  if (bm >= M) return;
  const int wg = threadIdx.x / 128;
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  int4 ra[4], rb[4];
  s2_fetch(ra, rb, A, B, K, bm, bn, 0);
  const int kt_n = K / 64;
  for (int kt = 0; kt < kt_n; ++kt) {
    s2_stash(as, bs, ra, rb);
    fence_proxy_async();  // the generic-proxy stores, visible to wgmma's reads
    __syncthreads();
    if (kt + 1 < kt_n) s2_fetch(ra, rb, A, B, K, bm, bn, (kt + 1) * 64);  // in flight during the wgmmas
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k)
      wgmma_m64n128k16(acc, desc_sw128(smem_u32(as + wg * 8192) + 32 * k), desc_sw128(smem_u32(bs) + 32 * k), 1);
    wgmma_commit();
    wgmma_wait<0>();
    __syncthreads();  // the tiles are free for the next stash
  }
  store_wg_tile<128>(C, N, bm + wg * 64, bn, acc);
}

// ------------------------------------------------------------- step 3: wgmma + TMA, 4 stages

#define S3_STAGES 4
#define S3_STAGE_BYTES 32768  // A 128 x 64 + B 128 x 64, bf16

__device__ __forceinline__ void s3_issue(unsigned char* stage, u32 bar, const TensorMap* ma, const TensorMap* mb,
                                         int bm, int bn, int k0) {
  mbar_expect_tx_arrive(bar, S3_STAGE_BYTES);
  tma_load_2d(smem_u32(stage), ma, k0, bm, bar);
  tma_load_2d(smem_u32(stage + 16384), mb, k0, bn, bar);
}

extern "C" __global__ void __launch_bounds__(256) ladder_wgmma_tma(const bf16_t* __restrict__ A,
                                                                  const bf16_t* __restrict__ B,
                                                                  bf16_t* __restrict__ C,
                                                                  const __grid_constant__ TensorMap tma_a,
                                                                  const __grid_constant__ TensorMap tma_b, int M,
                                                                  int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* sm = smem_1024(smem_raw);
  const u32 full = smem_u32(sm + S3_STAGES * S3_STAGE_BYTES);  // S3_STAGES mbarriers, 8 bytes each
  const int tiles_n = N / 128, bm = (blockIdx.x / tiles_n) * 128, bn = (blockIdx.x % tiles_n) * 128;
  if (bm >= M) return;
  const int wg = threadIdx.x / 128, kt_n = K / 64;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S3_STAGES; ++s) mbar_init(full + 8 * s, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    fence_proxy_async();
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < S3_STAGES && s < kt_n; ++s)
      s3_issue(sm + s * S3_STAGE_BYTES, full + 8 * s, &tma_a, &tma_b, bm, bn, s * 64);
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  for (int kt = 0; kt < kt_n; ++kt) {
    const int s = kt % S3_STAGES;
    unsigned char* st = sm + s * S3_STAGE_BYTES;
    mbar_wait(full + 8 * s, (kt / S3_STAGES) & 1);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k)
      wgmma_m64n128k16(acc, desc_sw128(smem_u32(st + wg * 8192) + 32 * k), desc_sw128(smem_u32(st + 16384) + 32 * k), 1);
    wgmma_commit();
    wgmma_wait<0>();
    __syncthreads();  // both warpgroups are done with stage s
    if (threadIdx.x == 0 && kt + S3_STAGES < kt_n)
      s3_issue(st, full + 8 * s, &tma_a, &tma_b, bm, bn, (kt + S3_STAGES) * 64);
  }
  store_wg_tile<128>(C, N, bm + wg * 64, bn, acc);
}

// ------------------------------------- steps 4 and 5: warp-specialised producer / consumers

#define WS_STAGES 4
#define WS_A_BYTES 16384   // 128 x 64 bf16
#define WS_B_BYTES 32768   // 256 x 64 bf16
#define WS_STAGE_BYTES (WS_A_BYTES + WS_B_BYTES)
#define WS_CONSUMER_WARPS 8

// A consumer warpgroup's mainloop: rows 64 * cw of the CTA's 128, all 256 columns. After the
// wgmmas of step kt are issued, those of kt - 1 are waited for and their stage is released: one
// arrival per warp on the stage's empty barrier, in each CTA of `cta_mask` (bit r: CTA rank r).
__device__ __forceinline__ void ws_consume(float (&acc)[128], unsigned char* sm, u32 full, u32 empty, int cw,
                                           int kt_n, u32 cta_mask) {
  for (int kt = 0; kt < kt_n; ++kt) {
    const int s = kt % WS_STAGES;
    unsigned char* st = sm + s * WS_STAGE_BYTES;
    mbar_wait(full + 8 * s, (kt / WS_STAGES) & 1);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k)
      wgmma_m64n256k16(acc, desc_sw128(smem_u32(st + cw * 8192) + 32 * k),
                       desc_sw128(smem_u32(st + WS_A_BYTES) + 32 * k), kt > 0 || k > 0);
    wgmma_commit();
    wgmma_wait<1>();
    if (kt > 0 && (threadIdx.x & 31) == 0) {
      const u32 bar = empty + 8 * ((kt - 1) % WS_STAGES);
      if (cta_mask == 0) mbar_arrive(bar);
      for (u32 r = 0; r < 2; ++r)
        if (cta_mask & (1u << r)) mbar_arrive_cluster(bar, r);
    }
  }
  wgmma_wait<0>();
}

extern "C" __global__ void __launch_bounds__(384, 1) ladder_wgmma_ws(const bf16_t* __restrict__ A,
                                                                    const bf16_t* __restrict__ B,
                                                                    bf16_t* __restrict__ C,
                                                                    const __grid_constant__ TensorMap tma_a,
                                                                    const __grid_constant__ TensorMap tma_b, int M,
                                                                    int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* sm = smem_1024(smem_raw);
  const u32 full = smem_u32(sm + WS_STAGES * WS_STAGE_BYTES), empty = full + 8 * WS_STAGES;
  const int tiles_n = N / 256, bm = (blockIdx.x / tiles_n) * 128, bn = (blockIdx.x % tiles_n) * 256;
  if (bm >= M) return;
  const int wg = threadIdx.x / 128, kt_n = K / 64;
  if (threadIdx.x == 0) {
    for (int s = 0; s < WS_STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, WS_CONSUMER_WARPS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    fence_proxy_async();
  }
  __syncthreads();
  if (wg == 0) {  // producer warpgroup: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x == 0)
      for (int kt = 0; kt < kt_n; ++kt) {
        const int s = kt % WS_STAGES;
        unsigned char* st = sm + s * WS_STAGE_BYTES;
        mbar_wait(empty + 8 * s, ((kt / WS_STAGES) & 1) ^ 1);
        mbar_expect_tx_arrive(full + 8 * s, WS_STAGE_BYTES);
        tma_load_2d(smem_u32(st), &tma_a, kt * 64, bm, full + 8 * s);
        tma_load_2d(smem_u32(st + WS_A_BYTES), &tma_b, kt * 64, bn, full + 8 * s);
      }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc[128];  // the first wgmma writes it (scale-d 0)
    ws_consume(acc, sm, full, empty, wg - 1, kt_n, 0);
    store_wg_tile<256>(C, N, bm + (wg - 1) * 64, bn, acc);
  }
}

// Step 5: CTA pairs along M share the B tile. CTA rank r loads B rows bn + 128 r .. + 128 and
// multicasts them to offset 128 r of both CTAs' stage; its own A tile it loads alone. A stage may
// be refilled once the consumers of both CTAs are done with it (16 arrivals on each CTA's empty).
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
    ladder_wgmma_ws_mc(const bf16_t* __restrict__ A, const bf16_t* __restrict__ B, bf16_t* __restrict__ C,
                       const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b, int M, int N,
                       int K) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* sm = smem_1024(smem_raw);
  const u32 full = smem_u32(sm + WS_STAGES * WS_STAGE_BYTES), empty = full + 8 * WS_STAGES;
  const u32 rank = cluster_ctarank();
  const int tiles_n = N / 256, pair = blockIdx.x / 2;
  const int bm = ((pair / tiles_n) * 2 + (int)rank) * 128, bn = (pair % tiles_n) * 256;
  const int wg = threadIdx.x / 128, kt_n = K / 64;
  if (threadIdx.x == 0) {
    for (int s = 0; s < WS_STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, 2 * WS_CONSUMER_WARPS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  cluster_sync();  // both CTAs' barriers exist before any copy or arrival targets them
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x == 0)
      for (int kt = 0; kt < kt_n; ++kt) {
        const int s = kt % WS_STAGES;
        unsigned char* st = sm + s * WS_STAGE_BYTES;
        mbar_wait(empty + 8 * s, ((kt / WS_STAGES) & 1) ^ 1);
        mbar_expect_tx_arrive(full + 8 * s, WS_STAGE_BYTES);  // own A + both halves of B
        tma_load_2d(smem_u32(st), &tma_a, kt * 64, bm, full + 8 * s);
        tma_load_2d_multicast(smem_u32(st + WS_A_BYTES + rank * (WS_B_BYTES / 2)), &tma_b, kt * 64,
                              bn + (int)rank * 128, full + 8 * s, 0x3);
      }
    __syncwarp();
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc[128];  // the first wgmma writes it (scale-d 0)
    ws_consume(acc, sm, full, empty, wg - 1, kt_n, 0x3);
    store_wg_tile<256>(C, N, bm + (wg - 1) * 64, bn, acc);
  }
  cluster_sync();  // no CTA leaves while its partner may still copy into it or arrive on it
}
