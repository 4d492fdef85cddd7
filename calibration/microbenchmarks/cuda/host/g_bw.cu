// Group `bandwidth`: L1, L2 and HBM bandwidth (bw.cu). Also provides the L2 flush kernel launch.
#include "../bw.cu"
#include "mb_host.h"

namespace mb {

#define MB_K(n) \
  { #n, reinterpret_cast < const void*>(&n) }

void kernels_bw(std::vector<KernelEntry>& k) {
  const KernelEntry e[] = {MB_K(bw_l1_read), MB_K(bw_l2_read), MB_K(bw_read), MB_K(bw_write), MB_K(bw_copy)};
  k.insert(k.end(), std::begin(e), std::end(e));
}

void launch_bw_read(cudaStream_t s, const void* buf, unsigned* out, unsigned long long n_vec, unsigned grid) {
  bw_read<<<grid, 256, 0, s>>>(static_cast<const uint4*>(buf), out, n_vec);
  MB_LAUNCHED();
}

namespace {

unsigned full_wave(const Context& ctx, const void* fn) {
  int per_sm = 0;
  MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0));
  return static_cast<unsigned>(ctx.sm_count * std::max(per_sm, 1));
}

JObj bw_params(const Context& ctx, double bytes, const std::vector<double>& gbs, unsigned grid, const char* formula) {
  const double g = median(gbs);
  return JObj()
      .num("bytes_per_launch", bytes)
      .num("grid", grid)
      .num("block", 256)
      .num("bytes_per_clk_per_sm", g * 1e9 / (ctx.mhz() * 1e6) / ctx.sm_count)
      .num("sm_mhz", ctx.mhz())
      .str("formula", formula);
}

}  // namespace

void group_bandwidth(Context& ctx) {
  const unsigned long long MiB = 1ull << 20, GiB = 1ull << 30;
  const unsigned long long big = ctx.opt.quick ? 1 * GiB : 2 * GiB;
  DevBuf buf, sink;
  guarded(ctx, "alloc", [&] {
    buf = DevBuf(big, true);
    sink = DevBuf(64, true);
  });
  if (!buf.p || !sink.p) return;
  const uint4* in = buf.as<const uint4>();
  unsigned* s = sink.as<unsigned>();

  std::vector<unsigned> l1_sizes = {16 * 1024, 32 * 1024, 64 * 1024, 128 * 1024};
  if (ctx.opt.quick) l1_sizes = {32 * 1024};
  for (unsigned l1_bytes : l1_sizes) {
    const std::string l1_name =
        l1_bytes == 32 * 1024 ? "bandwidth.l1_read" : "bandwidth.l1_read_" + std::to_string(l1_bytes / 1024) + "k";
    guarded(ctx, l1_name, [&] {
      const unsigned grid = full_wave(ctx, reinterpret_cast<const void*>(&bw_l1_read));
      const unsigned vec = l1_bytes / 16;  // re-read by every block
      const unsigned long long passes = calibrate_work(ctx, 16, 1u << 24, [&](unsigned long long n) {
        return ctx.time_ms([&] { bw_l1_read<<<grid, 256, 0, ctx.stream>>>(in, s, vec, static_cast<unsigned>(n)); });
      });
      const double bytes = static_cast<double>(grid) * passes * vec * 16.0;
      std::vector<double> gbs;
      for (int r = 0; r < reps(ctx); ++r) {
        const float ms =
            ctx.time_ms([&] { bw_l1_read<<<grid, 256, 0, ctx.stream>>>(in, s, vec, static_cast<unsigned>(passes)); });
        MB_LAUNCHED();
        gbs.push_back(bytes / (ms * 1e6));
      }
      emit_result(l1_name, "GB/s", gbs,
                  bw_params(ctx, bytes, gbs, grid,
                            "grid * passes * footprint / event time; every block re-reads the same footprint")
                      .num("footprint_bytes", l1_bytes)
                      .num("passes", static_cast<double>(passes)));
    });
  }

  std::vector<unsigned long long> l2_sizes = {2 * MiB,  4 * MiB,  8 * MiB,  16 * MiB,
                                              24 * MiB, 32 * MiB, 40 * MiB, 48 * MiB};
  if (ctx.opt.quick) l2_sizes = {8 * MiB};
  for (unsigned long long sz : l2_sizes) {
    const std::string name =
        sz == 8 * MiB ? "bandwidth.l2_read" : "bandwidth.l2_read_" + std::to_string(sz / MiB) + "m";
    guarded(ctx, name, [&] {
      const unsigned grid = full_wave(ctx, reinterpret_cast<const void*>(&bw_l2_read));
      const unsigned n_vec = static_cast<unsigned>(sz / 16);
      const unsigned long long passes = calibrate_work(ctx, 1, 1u << 16, [&](unsigned long long n) {
        return ctx.time_ms([&] { bw_l2_read<<<grid, 256, 0, ctx.stream>>>(in, s, n_vec, static_cast<unsigned>(n)); });
      });
      const double bytes = static_cast<double>(grid) * passes * n_vec * 16.0;
      std::vector<double> gbs;
      for (int r = 0; r < reps(ctx); ++r) {
        const float ms =
            ctx.time_ms([&] { bw_l2_read<<<grid, 256, 0, ctx.stream>>>(in, s, n_vec, static_cast<unsigned>(passes)); });
        MB_LAUNCHED();
        gbs.push_back(bytes / (ms * 1e6));
      }
      emit_result(name, "GB/s", gbs,
                  bw_params(ctx, bytes, gbs, grid,
                            "grid * passes * footprint / event time; ld.global.cg (L2 only); every block reads the "
                            "whole footprint from its own starting chunk")
                      .num("footprint_bytes", static_cast<double>(sz))
                      .num("passes", static_cast<double>(passes)));
    });
  }

  auto hbm = [&](const std::string& name, double bytes, const std::function<void(unsigned)>& launch, const void* fn,
                 const char* formula) {
    guarded(ctx, name, [&] {
      const unsigned grid = full_wave(ctx, fn);
      launch(grid);
      ctx.sync();
      std::vector<double> gbs;
      for (int r = 0; r < reps(ctx); ++r) {
        ctx.flush_l2();
        const float ms = ctx.time_ms([&] { launch(grid); });
        gbs.push_back(bytes / (ms * 1e6));
      }
      emit_result(name, "GB/s", gbs, bw_params(ctx, bytes, gbs, grid, formula));
    });
  };
  const unsigned long long nv = big / 16;
  hbm(
      "bandwidth.hbm_read", static_cast<double>(big),
      [&](unsigned g) {
        bw_read<<<g, 256, 0, ctx.stream>>>(in, s, nv);
        MB_LAUNCHED();
      },
      reinterpret_cast<const void*>(&bw_read), "buffer bytes / event time; L2 flushed before each launch");
  hbm(
      "bandwidth.hbm_write", static_cast<double>(big),
      [&](unsigned g) {
        bw_write<<<g, 256, 0, ctx.stream>>>(buf.as<uint4>(), nv, 0x01020304u);
        MB_LAUNCHED();
      },
      reinterpret_cast<const void*>(&bw_write), "buffer bytes / event time");
  hbm(
      "bandwidth.hbm_copy", static_cast<double>(big),
      [&](unsigned g) {
        bw_copy<<<g, 256, 0, ctx.stream>>>(in, buf.as<uint4>() + nv / 2, nv / 2);
        MB_LAUNCHED();
      },
      reinterpret_cast<const void*>(&bw_copy), "(read + written bytes) / event time: 2 x half the buffer");
}

}  // namespace mb
