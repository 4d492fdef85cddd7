// Groups `wgmma`, `tma`, `hsync` and `tclock`: Hopper's warpgroup MMA, the tensor memory
// accelerator, mbarrier, distributed shared memory, the cluster barrier, setmaxnreg, and the SM
// clock under sustained tensor load (hopper_wgmma.cu, hopper_async.cu; see README.md).
#include <cuda.h>  // CUtensorMap enums and the cuTensorMapEncodeTiled signature (called via the runtime)

#include <chrono>
#include <cstring>

#include "../hopper_async.cu"
#include "../hopper_wgmma.cu"
#include "mb_host.h"

namespace mb {

void kernels_hopper(std::vector<KernelEntry>& k) {
#define HW_REG(n) k.push_back({#n, reinterpret_cast<const void*>(&n)});
  HW_WGMMA_KERNELS(HW_REG)
  HW_REG(mbar_ops)
  HW_REG(tma_lat)
  HW_REG(tma_bw)
  HW_REG(tma_bw_box)
  HW_REG(tma_mc)
  HW_REG(dsmem_lat)
  HW_REG(dsmem_bw)
  HW_REG(cluster_bar)
  HW_REG(nreg_ws_set)
  HW_REG(nreg_ws_plain)
#undef HW_REG
}

namespace {

const void* find_kernel(const std::string& name) {
  static std::vector<KernelEntry> reg;
  if (reg.empty()) kernels_hopper(reg);
  for (const auto& e : reg)
    if (name == e.name) return e.fn;
  throw std::runtime_error("kernel not registered: " + name);
}

// One launch of `fn` with optional cluster size; args as for cudaLaunchKernelEx.
void launch(Context& ctx, const void* fn, unsigned grid, unsigned block, unsigned smem, unsigned cluster, void** args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = ctx.stream;
  cudaLaunchAttribute attr[1];
  if (cluster > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  MB_CHECK(cudaLaunchKernelExC(&cfg, fn, args));
  MB_LAUNCHED();
}

void allow_smem(const void* fn, unsigned bytes) {
  MB_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

// Per-block records (t0, t1, smid, g0, g1, v) -> per-SM span (max t1 - min t0) and block-0 MHz.
struct Blocks {
  std::vector<double> span;  // per SM, cycles
  double mhz = 0;            // d clock64 / d globaltimer of block 0
  double gspan_ns = 0;       // max g1 - min g0 over all blocks
  double value = 0;          // sum of v
};

Blocks read_blocks(const DevBuf& out, unsigned grid) {
  const auto rec = out.u64(6ull * grid);
  std::map<unsigned, std::pair<unsigned long long, unsigned long long>> sm;
  Blocks b;
  unsigned long long gmin = ~0ull, gmax = 0;
  for (unsigned i = 0; i < grid; ++i) {
    const unsigned long long* r = &rec[6ull * i];
    auto it = sm.find(static_cast<unsigned>(r[2]));
    if (it == sm.end())
      sm[static_cast<unsigned>(r[2])] = {r[0], r[1]};
    else
      it->second = {std::min(it->second.first, r[0]), std::max(it->second.second, r[1])};
    gmin = std::min(gmin, r[3]);
    gmax = std::max(gmax, r[4]);
    b.value += static_cast<double>(r[5]);
  }
  for (auto& [id, t] : sm) b.span.push_back(static_cast<double>(t.second - t.first));
  if (rec[4] > rec[3]) b.mhz = static_cast<double>(rec[1] - rec[0]) * 1000.0 / static_cast<double>(rec[4] - rec[3]);
  b.gspan_ns = static_cast<double>(gmax - gmin);
  return b;
}

// Dynamic shared memory that leaves room for one block per SM only (H200: 228 KiB per SM), so a
// grid of one block per SM puts exactly one on each.
constexpr unsigned kOneBlockPerSm = 120u * 1024u;

// ---- wgmma ---------------------------------------------------------------------------------------

struct WgType {
  const char* name;
  int k;
  int acc_bits;  // accumulator register count = N * 32 / acc_bits / 2 ... (f16: N/4, else N/2)
  const char* sass;
};

const WgType kWgTypes[] = {{"f16f32", 16, 32, "HGMMA.64xNx16.F32"},
                           {"bf16f32", 16, 32, "HGMMA.64xNx16.F32.BF16"},
                           {"f16f16", 16, 16, "HGMMA.64xNx16.F16"},
                           {"tf32f32", 8, 32, "HGMMA.64xNx8.F32.TF32"},
                           {"e4m3f32", 32, 32, "QGMMA.64xNx32.F32.E4M3.E4M3"},
                           {"s8s32", 32, 32, "IGMMA.64xNx32.S8.S8"}};
const int kWgN[] = {8, 16, 32, 64, 128, 256};

int max_warpgroups(const WgType& t, int n) {
  const int acc = t.acc_bits == 16 ? n / 4 : n / 2;
  return acc <= 64 ? 4 : 2;
}

void wgmma_issue(Context& ctx, const WgType& t, int n, bool rs, int wg) {
  const std::string form = rs ? "rs" : "ss";
  const std::string kname = "wgmma_issue_" + form + "_" + t.name + "_n" + std::to_string(n);
  const std::string rname =
      "wgmma.issue_" + form + "_" + t.name + "_n" + std::to_string(n) + "_wg" + std::to_string(wg);
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel(kname);
    const unsigned grid = static_cast<unsigned>(ctx.sm_count), block = 128u * wg;
    allow_smem(fn, kOneBlockPerSm);
    unsigned iters = static_cast<unsigned>(std::max(16, 262144 / n));
    if (ctx.opt.quick) iters /= 4;
    DevBuf out(6ull * grid * 8 + 64);
    void* args[] = {&out.p, &iters};
    std::vector<double> per_sm, mhz, sms;
    const int R = reps(ctx);
    for (int r = 0; r <= R; ++r) {
      launch(ctx, fn, grid, block, kOneBlockPerSm, 1, args);
      ctx.sync();
      if (r == 0) continue;  // warm-up: module load, clocks
      const Blocks b = read_blocks(out, grid);
      per_sm.push_back(median(b.span) / (static_cast<double>(wg) * iters * 8.0));
      mhz.push_back(b.mhz);
      sms.push_back(static_cast<double>(b.span.size()));
    }
    const double flops = 2.0 * 64 * n * t.k;
    const double c = median(per_sm);
    emit_result(rname, "cycles/wgmma/SM", per_sm,
                JObj()
                    .str("kernel", kname)
                    .str("sass", std::string(t.sass) + " (N=" + std::to_string(n) + ")")
                    .num("n", n)
                    .num("k", t.k)
                    .num("warpgroups", wg)
                    .num("flop_per_wgmma", flops)
                    .num("flop_per_clk_per_sm", flops / c)
                    .num("cycles_per_wgmma_per_warpgroup", c * wg)
                    .num("sms_used", median(sms))
                    .num("kernel_mhz", median(mhz))
                    .num("iters", iters)
                    .str("formula",
                         "per SM: (max t1 - min t0) / (warpgroups x iters x 8), median over SMs; each iteration "
                         "is fence, 8 wgmmas into one accumulator, commit, wait_group 1"));
  });
}

void wgmma_latency(Context& ctx, const WgType& t, int n, bool rs) {
  const std::string form = rs ? "rs" : "ss";
  const std::string kname = "wgmma_lat_" + form + "_" + t.name + "_n" + std::to_string(n);
  const std::string rname = "wgmma.lat_" + form + "_" + t.name + "_n" + std::to_string(n);
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel(kname);
    unsigned iters = ctx.opt.quick ? 128 : 512;
    DevBuf out(6 * 8 + 64);
    void* args[] = {&out.p, &iters};
    std::vector<double> cyc, mhz;
    for (int r = 0; r <= reps(ctx); ++r) {
      launch(ctx, fn, 1, 128, HW_SMEM_BYTES, 1, args);
      ctx.sync();
      if (r == 0) continue;
      const Blocks b = read_blocks(out, 1);
      cyc.push_back(b.span[0] / (iters * 4.0));
      mhz.push_back(b.mhz);
    }
    emit_result(rname, "cycles", cyc,
                JObj()
                    .str("kernel", kname)
                    .num("n", n)
                    .num("k", t.k)
                    .num("kernel_mhz", median(mhz))
                    .num("ns", median(cyc) * 1000.0 / std::max(1.0, median(mhz)))
                    .str("formula", "(t1 - t0) / (iters x 4); each step fence + wgmma + commit + wait_group 0"));
  });
}

// ---- tensor maps ---------------------------------------------------------------------------------

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encode_fn() {
  static EncodeTiled fn = nullptr;
  if (!fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    MB_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (!p || q != cudaDriverEntryPointSuccess) throw std::runtime_error("cuTensorMapEncodeTiled not found");
    fn = reinterpret_cast<EncodeTiled>(p);
  }
  return fn;
}

// 2D bf16 map over `rows` rows of 4096 elements (8 KiB), box {64, box_rows}, 128-byte swizzle.
HwTmap make_map(void* base, unsigned long long rows, unsigned box_rows) {
  static_assert(sizeof(HwTmap) == sizeof(CUtensorMap), "HwTmap must be CUtensorMap's size");
  CUtensorMap m;
  const cuuint64_t dims[2] = {4096, rows};
  const cuuint64_t strides[1] = {8192};
  const cuuint32_t box[2] = {64, box_rows};
  const cuuint32_t estr[2] = {1, 1};
  const CUresult r = encode_fn()(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, estr,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw std::runtime_error("cuTensorMapEncodeTiled failed: " + std::to_string(r));
  HwTmap h;
  std::memcpy(&h, &m, sizeof h);
  return h;
}

constexpr unsigned long long kBigRows = 131072;  // 1 GiB of bf16 rows of 8 KiB
constexpr unsigned long long kSmallRows = 512;   // 4 MiB: L2-resident

struct TmaBufs {
  DevBuf data{kBigRows * 8192, false};
  HwTmap big, small, small_box32, small_box16, big_box32, big_box16, small_box128, small_box256, big_box128, big_box256;
  TmaBufs() {
    MB_CHECK(cudaMemset(data.p, 0x3c, data.bytes));  // bf16 0x3c3c: 0.0115, finite and non-zero
    MB_CHECK(cudaDeviceSynchronize());
    big = make_map(data.p, kBigRows, 64);
    small = make_map(data.p, kSmallRows, 64);
    small_box32 = make_map(data.p, kSmallRows, 32);
    small_box16 = make_map(data.p, kSmallRows, 16);
    big_box32 = make_map(data.p, kBigRows, 32);
    big_box16 = make_map(data.p, kBigRows, 16);
    small_box128 = make_map(data.p, kSmallRows, 128);
    small_box256 = make_map(data.p, kSmallRows, 256);
    big_box128 = make_map(data.p, kBigRows, 128);
    big_box256 = make_map(data.p, kBigRows, 256);
  }
};

// ---- TMA latency and bandwidth -------------------------------------------------------------------

void tma_latency(Context& ctx, TmaBufs& tb, bool hbm, int mode) {
  const std::string rname = std::string("tma.lat_") + (hbm ? "hbm_" : "l2_") + (mode == 0 ? "tile" : "bulk");
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("tma_lat");
    DevBuf out(64);
    HwTmap map = hbm ? tb.big : tb.small;
    const unsigned char* src = tb.data.as<unsigned char>();
    // L2: 512 tiles (4 MiB) touched by an untimed lap first. HBM: the L2 is flushed and every
    // step loads a tile never loaded before (tiles_x = 1: each tile 64 new rows; bulk: the next
    // 8 KiB row).
    unsigned steps = 256, ntiles = hbm ? 2048u : 512u, tiles_x = hbm ? 1u : 64u, warm = hbm ? 0u : 512u;
    int m = mode;
    void* args[] = {&map, &src, &out.p, &steps, &ntiles, &tiles_x, &m, &warm};
    std::vector<double> cyc, mn;
    for (int r = 0; r <= reps(ctx); ++r) {
      if (hbm) ctx.flush_l2();
      launch(ctx, fn, 1, 32, 8192 + 1024, 1, args);
      ctx.sync();
      if (r == 0) continue;
      const auto v = out.u64(4);
      cyc.push_back(static_cast<double>(v[0]) / static_cast<double>(v[1]));
      mn.push_back(static_cast<double>(v[2]));
    }
    emit_result(rname, "cycles", cyc,
                JObj()
                    .num("bytes", 8192)
                    .str("what", mode == 0 ? "cp.async.bulk.tensor.2d box 64x64 bf16 (8 KiB), 128B swizzle"
                                           : "cp.async.bulk 8 KiB")
                    .num("min_cycles", median(mn))
                    .num("ns", median(cyc) * 1000.0 / ctx.mhz())
                    .str("formula",
                         "one thread: clock64 before arrive.expect_tx + the load, after try_wait.parity sees the "
                         "phase complete; mean over steps, median over launches"));
  });
}

struct BwCase {
  unsigned grid, stages;
  bool hbm;
  int mode;
};

void tma_bandwidth(Context& ctx, TmaBufs& tb, const BwCase& c) {
  const std::string rname = std::string("tma.bw_") + (c.grid == 1 ? "sm_" : "chip_") + (c.hbm ? "hbm_" : "l2_") +
                            (c.mode == 0 ? "tile" : "bulk") + "_s" + std::to_string(c.stages);
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("tma_bw");
    const unsigned smem = 8192 * c.stages + 1024;
    allow_smem(fn, smem);
    DevBuf out(6ull * c.grid * 8 + 64);
    HwTmap map = c.hbm ? tb.big : tb.small;
    const unsigned char* src = tb.data.as<unsigned char>();
    // L2: 512 tiles (4 MiB) over and over. HBM: the whole 1 GiB once (tiles of 64 rows x 128 bytes,
    // consecutive tiles side by side in the same rows; bulk: consecutive 8 KiB rows).
    unsigned ntiles = c.hbm ? 131072u : 512u, tiles_x = 64;
    const unsigned want = c.grid == 1 ? 2048u : 131072u;
    unsigned iters = std::max(1u, want / (c.grid * c.stages));
    int m = c.mode;
    void* args[] = {&map, &src, &out.p, &iters, const_cast<unsigned*>(&c.stages), &ntiles, &tiles_x, &m};
    std::vector<double> bpc, gbs;
    for (int r = 0; r <= reps(ctx); ++r) {
      if (c.hbm) ctx.flush_l2();
      launch(ctx, fn, c.grid, 128, smem, 1, args);
      ctx.sync();
      if (r == 0) continue;
      const Blocks b = read_blocks(out, c.grid);
      const double bytes_per_block = 8192.0 * iters * c.stages;
      bpc.push_back(bytes_per_block / median(b.span));
      gbs.push_back(bytes_per_block * c.grid / b.gspan_ns);
    }
    emit_result(rname, "bytes/cycle/SM", bpc,
                JObj()
                    .num("grid", c.grid)
                    .num("stages_in_flight", c.stages)
                    .num("bytes_per_load", 8192)
                    .num("chip_GBps", median(gbs))
                    .num("iters", iters)
                    .str("formula",
                         "thread 0 of each CTA keeps `stages` 8 KiB loads in flight (wait stage, reissue); "
                         "bytes per CTA / (t1 - t0); chip_GBps = all bytes / (max g1 - min g0)"));
  });
}

// 64 x rows boxes (16 or 32 KiB), `stages` in flight; 1 CTA (L2) or every SM (HBM, 1 GiB once).
void tma_bandwidth_box(Context& ctx, TmaBufs& tb, unsigned rows, unsigned stages, bool chip) {
  const std::string rname = std::string("tma.bw_box_") + (chip ? "chip_hbm" : "sm_l2") + "_r" + std::to_string(rows) +
                            "_s" + std::to_string(stages);
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("tma_bw_box");
    const unsigned bytes = 128 * rows, smem = bytes * stages + 1024, grid = chip ? ctx.sm_count : 1;
    allow_smem(fn, smem);
    DevBuf out(6ull * grid * 8 + 64);
    HwTmap map =
        chip ? (rows == 128 ? tb.big_box128 : tb.big_box256) : (rows == 128 ? tb.small_box128 : tb.small_box256);
    unsigned tiles_x = 64, box_rows = rows, st = stages;
    unsigned ntiles = 64u * static_cast<unsigned>((chip ? kBigRows : kSmallRows) / rows);
    const unsigned long long want = chip ? (1ull << 30) : (16ull << 20);  // bytes per launch
    unsigned iters = static_cast<unsigned>(std::max<unsigned long long>(1, want / (1ull * bytes * grid * stages)));
    void* args[] = {&map, &out.p, &iters, &st, &ntiles, &tiles_x, &box_rows};
    std::vector<double> bpc, gbs;
    for (int r = 0; r <= reps(ctx); ++r) {
      if (chip) ctx.flush_l2();
      launch(ctx, fn, grid, 128, smem, 1, args);
      ctx.sync();
      if (r == 0) continue;
      const Blocks b = read_blocks(out, grid);
      const double per_block = static_cast<double>(bytes) * iters * stages;
      bpc.push_back(per_block / median(b.span));
      gbs.push_back(per_block * grid / b.gspan_ns);
    }
    emit_result(rname, "bytes/cycle/SM", bpc,
                JObj()
                    .num("grid", grid)
                    .num("stages_in_flight", stages)
                    .num("bytes_per_load", bytes)
                    .num("chip_GBps", median(gbs))
                    .str("formula", "as tma.bw_*_tile with a 64 x rows box: bytes per CTA / (t1 - t0)"));
  });
}

void tma_multicast(Context& ctx, TmaBufs& tb, unsigned csize, bool mcast, bool hbm) {
  const std::string rname = std::string("tma.mc_") + (hbm ? "hbm_" : "l2_") + "c" + std::to_string(csize) +
                            (mcast ? "_multicast" : "_separate");
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("tma_mc");
    const unsigned stages = 4, smem = 8192 * stages + 1024;
    allow_smem(fn, smem);
    MB_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
    const unsigned grid = static_cast<unsigned>(ctx.sm_count) / csize * csize;
    DevBuf out(6ull * grid * 8 + 64);
    HwTmap map = !mcast || csize == 1 ? (hbm ? tb.big : tb.small)
                 : csize == 2         ? (hbm ? tb.big_box32 : tb.small_box32)
                                      : (hbm ? tb.big_box16 : tb.small_box16);
    unsigned iters = ctx.opt.quick ? 16 : 64, tiles_x = 64, ntiles = hbm ? 64u * 2048u : 512u;
    int mc = mcast ? 1 : 0;
    void* args[] = {&map, &out.p, &iters, const_cast<unsigned*>(&stages), &tiles_x, &ntiles, &mc};
    std::vector<double> bpc, gbs;
    for (int r = 0; r <= reps(ctx); ++r) {
      if (hbm) ctx.flush_l2();
      launch(ctx, fn, grid, 128, smem, csize, args);
      ctx.sync();
      if (r == 0) continue;
      const Blocks b = read_blocks(out, grid);
      const double bytes = 8192.0 * stages * iters;
      bpc.push_back(bytes / median(b.span));
      gbs.push_back(bytes * grid / b.gspan_ns);
    }
    emit_result(rname, "bytes/cycle/SM", bpc,
                JObj()
                    .num("cluster", csize)
                    .num("multicast", mcast ? 1 : 0)
                    .num("grid", grid)
                    .num("delivered_GBps", median(gbs))
                    .num("l2_bytes_read_per_delivered_byte", mcast ? 1.0 / csize : 1.0)
                    .str("formula",
                         "8 KiB per stage into every CTA (multicast: each CTA loads 64/C rows to all); per round "
                         "expect_tx, cluster barrier, 4 loads, wait, cluster barrier; bytes delivered per CTA / "
                         "(t1 - t0)"));
  });
}

// ---- mbarrier, DSMEM, cluster barrier, setmaxnreg ---------------------------------------------

void mbar_bench(Context& ctx, int mode, const char* name, const char* what) {
  guarded(ctx, name, [&] {
    const void* fn = find_kernel("mbar_ops");
    DevBuf out(64);
    unsigned iters = 256;
    int m = mode;
    void* args[] = {&out.p, &iters, &m};
    std::vector<double> cyc;
    for (int r = 0; r <= reps(ctx); ++r) {
      launch(ctx, fn, 1, 64, 0, 1, args);
      ctx.sync();
      if (r == 0) continue;
      const auto v = out.u64(2);
      cyc.push_back(static_cast<double>(v[0]) / static_cast<double>(v[1]));
    }
    emit_result(name, "cycles", cyc, JObj().str("what", what).num("ns", median(cyc) * 1000.0 / ctx.mhz()));
  });
}

void dsmem_latency(Context& ctx, unsigned csize, unsigned target) {
  const std::string rname = "dsmem.lat_c" + std::to_string(csize) + (target == 0 ? "_self" : "_remote");
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("dsmem_lat");
    MB_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
    DevBuf out(64);
    unsigned steps = 4096, t = target;
    void* args[] = {&out.p, &steps, &t};
    std::vector<double> cyc;
    for (int r = 0; r <= reps(ctx); ++r) {
      launch(ctx, fn, csize, 32, 0, csize, args);
      ctx.sync();
      if (r == 0) continue;
      const auto v = out.u64(2);
      cyc.push_back(static_cast<double>(v[0]) / static_cast<double>(v[1]));
    }
    emit_result(rname, "cycles", cyc,
                JObj()
                    .num("cluster", csize)
                    .num("target_rank", target)
                    .str("formula",
                         "rank 0, one thread: dependent ld.shared::cluster.u32 chase in the target "
                         "CTA's shared memory (target 0: its own, through the cluster window)"));
  });
}

void dsmem_bandwidth(Context& ctx, unsigned csize, unsigned peer) {
  const std::string rname = "dsmem.bw_c" + std::to_string(csize) + (peer == 0 ? "_self" : "_remote");
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("dsmem_bw");
    const unsigned grid = static_cast<unsigned>(ctx.sm_count) / csize * csize;
    DevBuf out(6ull * grid * 8 + 64);
    unsigned iters = 256, p = peer;
    void* args[] = {&out.p, &iters, &p};
    std::vector<double> bpc;
    for (int r = 0; r <= reps(ctx); ++r) {
      launch(ctx, fn, grid, 256, 0, csize, args);
      ctx.sync();
      if (r == 0) continue;
      const Blocks b = read_blocks(out, grid);
      bpc.push_back(16.0 * 8 * iters * 256 / median(b.span));
    }
    emit_result(rname, "bytes/cycle/SM", bpc,
                JObj()
                    .num("cluster", csize)
                    .num("grid", grid)
                    .str("formula",
                         "256 threads x 8 independent ld.shared::cluster.v4.u32 per step from the "
                         "CTA rank^1 (remote) or its own rank (self); bytes per CTA / (t1 - t0)"));
  });
}

void cluster_barrier(Context& ctx, unsigned csize, bool relaxed) {
  const std::string rname = "cluster.barrier_c" + std::to_string(csize) + (relaxed ? "_relaxed" : "");
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel("cluster_bar");
    DevBuf out(6ull * csize * 8 + 64);
    unsigned iters = 128;
    int rl = relaxed ? 1 : 0;
    void* args[] = {&out.p, &iters, &rl};
    std::vector<double> cyc;
    for (int r = 0; r <= reps(ctx); ++r) {
      launch(ctx, fn, csize, 128, 0, csize, args);
      ctx.sync();
      if (r == 0) continue;
      const Blocks b = read_blocks(out, csize);
      cyc.push_back(median(b.span) / (8.0 * iters));
    }
    emit_result(
        rname, "cycles", cyc,
        JObj()
            .num("cluster", csize)
            .str("formula", "128 threads per CTA, barrier.cluster.arrive" + std::string(relaxed ? ".relaxed" : "") +
                                ".aligned + barrier.cluster.wait.aligned in a loop; cycles per barrier"));
  });
}

// Highest number of blocks that ran at the same time on one SM (from globaltimer intervals).
int max_resident(const std::vector<unsigned long long>& rec, unsigned grid) {
  std::map<unsigned, std::vector<std::pair<unsigned long long, int>>> ev;
  for (unsigned i = 0; i < grid; ++i) {
    ev[static_cast<unsigned>(rec[6ull * i + 2])].push_back({rec[6ull * i + 3], 1});
    ev[static_cast<unsigned>(rec[6ull * i + 2])].push_back({rec[6ull * i + 4], -1});
  }
  int best = 0;
  for (auto& [sm, e] : ev) {
    std::sort(e.begin(), e.end(),
              [](auto& a, auto& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); });
    int cur = 0;
    for (auto& x : e) best = std::max(best, cur += x.second);
  }
  return best;
}

void setmaxnreg_bench(Context& ctx, bool set) {
  const std::string kname = set ? "nreg_ws_set" : "nreg_ws_plain";
  const std::string rname = std::string("setmaxnreg.") + (set ? "with" : "without");
  guarded(ctx, rname, [&] {
    const void* fn = find_kernel(kname);
    cudaFuncAttributes fa{};
    MB_CHECK(cudaFuncGetAttributes(&fa, fn));
    int occ = 0;
    MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, 384, 0));
    const unsigned grid = 2u * static_cast<unsigned>(ctx.sm_count);
    DevBuf out(7ull * grid * 8 + 64);
    unsigned iters = 256;
    void* args[] = {&out.p, &iters};
    std::vector<double> cyc, resident, consumer;
    for (int r = 0; r <= reps(ctx); ++r) {
      launch(ctx, fn, grid, 384, 0, 1, args);
      ctx.sync();
      if (r == 0) continue;
      const auto rec = out.u64(7ull * grid + 1);
      resident.push_back(max_resident(rec, grid));
      cyc.push_back(static_cast<double>(rec[1] - rec[0]));
      consumer.push_back(static_cast<double>(rec[6ull * grid + 1]) - static_cast<double>(rec[0]));
    }
    emit_result(rname, "cycles", cyc,
                JObj()
                    .str("kernel", kname)
                    .num("registers_at_entry", fa.numRegs)
                    .num("local_bytes_per_thread", static_cast<double>(fa.localSizeBytes))
                    .num("occupancy_api_blocks_per_sm", occ)
                    .num("max_resident_blocks_per_sm", median(resident))
                    .num("consumer_loop_end_cycles", median(consumer))
                    .str("formula",
                         "block 0's t1 - t0 (consumer_loop_end_cycles: t0 to thread 128's stamp after its loop): "
                         "producer WG (setmaxnreg.dec 40) idles, 2 consumer WGs "
                         "(setmaxnreg.inc 232) run 192 live FFMA chains x iters; residency from globaltimer "
                         "intervals of 2 x SMs blocks"));
  });
}

// ---- SM clock under sustained tensor load ---------------------------------------------------------

void tensor_clock(Context& ctx) {
  guarded(ctx, "tclock.wgmma", [&] {
    const void* fn = find_kernel("wgmma_issue_ss_bf16f32_n256");
    const unsigned grid = static_cast<unsigned>(ctx.sm_count), block = 256;
    allow_smem(fn, kOneBlockPerSm);
    unsigned iters = 40000;  // ~40 ms per launch at ~128 cycles per wgmma per warpgroup pair
    DevBuf out(6ull * grid * 8 + 64);
    void* args[] = {&out.p, &iters};
    const double seconds = ctx.opt.quick ? 2.0 : 8.0;
    std::vector<double> mhz, tflops, t_s, cyc;
    const auto start = std::chrono::steady_clock::now();
    while (true) {
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (now > seconds) break;
      const float ms = ctx.time_ms([&] { launch(ctx, fn, grid, block, kOneBlockPerSm, 1, args); });
      const Blocks b = read_blocks(out, grid);
      mhz.push_back(b.mhz);
      t_s.push_back(now);
      const double flop = 2.0 * 64 * 256 * 16 * 8.0 * iters * 2 * grid;
      tflops.push_back(flop / (ms * 1e-3) / 1e12);
      cyc.push_back(median(b.span) / (2.0 * iters * 8.0));
    }
    std::string ts = "[";
    for (std::size_t i = 0; i < t_s.size(); ++i) ts += (i ? "," : "") + jnum(t_s[i]);
    ts += "]";
    emit_result("tclock.wgmma_mhz", "MHz", mhz,
                JObj()
                    .str("kernel", "wgmma_issue_ss_bf16f32_n256, 2 warpgroups per SM, all SMs")
                    .raw("t_s", ts)
                    .str("formula", "per launch (~40 ms): block 0's d clock64 / d globaltimer; samples in time order"));
    emit_result("tclock.wgmma_tflops", "TFLOP/s", tflops,
                JObj().raw("t_s", ts).str("formula", "dense FLOP / event time"));
    emit_result("tclock.wgmma_cycles", "cycles/wgmma/SM", cyc,
                JObj().str("formula", "per SM span / (2 warpgroups x iters x 8); samples in time order"));
  });
}
}  // namespace

void group_wgmma(Context& ctx) {
  for (const WgType& t : kWgTypes) {
    const bool main_type = std::string(t.name) == "bf16f32";
    for (int n : kWgN) {
      if (ctx.opt.quick && n != 64 && n != 256) continue;
      for (bool rs : {false, true}) {
        wgmma_latency(ctx, t, n, rs);
        for (int wg = 1; wg <= max_warpgroups(t, n); wg *= 2) {
          if (!main_type && wg == 2 && max_warpgroups(t, n) == 4) continue;  // 1 and 4 suffice off bf16
          wgmma_issue(ctx, t, n, rs, wg);
        }
      }
    }
  }
}

void group_tma(Context& ctx) {
  TmaBufs tb;
  for (bool hbm : {false, true})
    for (int mode : {0, 1}) tma_latency(ctx, tb, hbm, mode);
  const unsigned sms = static_cast<unsigned>(ctx.sm_count);
  for (bool hbm : {false, true}) {
    for (int mode : {0, 1}) {
      for (unsigned s : {1u, 2u, 4u, 8u, 16u}) tma_bandwidth(ctx, tb, BwCase{1, s, hbm, mode});
      for (unsigned s : {2u, 4u, 8u}) tma_bandwidth(ctx, tb, BwCase{sms, s, hbm, mode});
    }
  }
  for (unsigned rows : {128u, 256u}) {
    for (unsigned st : {1u, 2u, 4u}) tma_bandwidth_box(ctx, tb, rows, st, false);
    tma_bandwidth_box(ctx, tb, rows, 4, true);
  }
  for (bool hbm : {false, true}) {
    tma_multicast(ctx, tb, 1, false, hbm);
    for (unsigned c : {2u, 4u}) {
      tma_multicast(ctx, tb, c, false, hbm);
      tma_multicast(ctx, tb, c, true, hbm);
    }
  }
}

void group_hsync(Context& ctx) {
  mbar_bench(ctx, 0, "mbar.arrive", "one thread, back-to-back mbarrier.arrive.shared::cta.b64 (state returned)");
  mbar_bench(ctx, 1, "mbar.arrive_wait", "arrive on a count-1 barrier, then try_wait.parity until that phase is seen");
  mbar_bench(ctx, 2, "mbar.try_wait_done", "try_wait.parity on a phase completed before (returns true at once)");
  mbar_bench(ctx, 3, "mbar.expect_tx_complete",
             "arrive.expect_tx 128 B + mbarrier.complete_tx 128 B + try_wait until the phase completes");
  mbar_bench(ctx, 4, "mbar.wake",
             "ping-pong between two warps on two count-1 barriers: one hop = arrive by one warp until the "
             "other warp's try_wait returns and it arrives back (round trip / 2)");
  for (unsigned c : {2u, 4u, 8u}) {
    dsmem_latency(ctx, c, 0);
    dsmem_latency(ctx, c, c - 1);
  }
  for (unsigned c : {2u, 4u, 8u}) {
    dsmem_bandwidth(ctx, c, 0);
    dsmem_bandwidth(ctx, c, 1);
  }
  for (unsigned c : {1u, 2u, 4u, 8u}) {
    cluster_barrier(ctx, c, false);
    cluster_barrier(ctx, c, true);
  }
  setmaxnreg_bench(ctx, true);
  setmaxnreg_bench(ctx, false);
}

void group_tclock(Context& ctx) {
  tensor_clock(ctx);
}

}  // namespace mb
