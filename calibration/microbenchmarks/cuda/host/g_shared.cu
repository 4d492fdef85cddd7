// Group `shared`: shared-memory load latency and bank conflicts (lat_shared.cu).
#include "../lat_shared.cu"
#include "mb_host.h"

namespace mb {

void kernels_shared(std::vector<KernelEntry>& k) {
  k.push_back({"smem_lat_chase", reinterpret_cast<const void*>(&smem_lat_chase)});
  k.push_back({"smem_bank", reinterpret_cast<const void*>(&smem_bank)});
}

void group_shared(Context& ctx) {
  DevBuf out;
  guarded(ctx, "alloc", [&] { out = DevBuf((3ull * ctx.sm_count + 8) * sizeof(unsigned long long)); });
  if (!out.p) return;
  unsigned long long* const o = out.as<unsigned long long>();

  guarded(ctx, "latency.smem", [&] {
    std::vector<double> v;
    const unsigned steps = 4096;
    smem_lat_chase<<<1, 32, 0, ctx.stream>>>(o, 1u, steps);
    MB_LAUNCHED();
    ctx.sync();
    for (int r = 0; r < reps(ctx); ++r) {
      smem_lat_chase<<<1, 32, 0, ctx.stream>>>(o, 1u, steps);
      MB_LAUNCHED();
      ctx.sync();
      auto rec = out.u64(2);
      v.push_back(static_cast<double>(rec[0]) / static_cast<double>(rec[1]));
    }
    emit_result("latency.smem", "cycles", v,
                JObj()
                    .num("timed_steps", steps)
                    .str("kernel", "smem_lat_chase")
                    .str("formula", "one thread, dependent ld.shared (LDS back to back, no arithmetic)"));
  });

  const std::vector<unsigned> strides = {1, 2, 4, 8, 16, 32};
  for (unsigned s : strides) {
    guarded(ctx, "smem.bank_lat_s" + std::to_string(s), [&] {
      const unsigned steps = 4096;
      std::vector<double> v;
      smem_bank<<<1, 32, 0, ctx.stream>>>(o, s, 1u, steps);
      MB_LAUNCHED();
      ctx.sync();
      for (int r = 0; r < reps(ctx); ++r) {
        smem_bank<<<1, 32, 0, ctx.stream>>>(o, s, 1u, steps);
        MB_LAUNCHED();
        ctx.sync();
        auto rec = out.u64(3);
        v.push_back(static_cast<double>(rec[1] - rec[0]) / steps);
      }
      emit_result("smem.bank_lat_s" + std::to_string(s), "cycles", v,
                  JObj()
                      .num("stride_words", s)
                      .num("conflict_ways", std::min(s, 32u))
                      .num("warps", 1)
                      .str("formula", "one warp, one dependent LDS chain per lane: cycles per access"));
    });
  }
  for (unsigned s : strides) {
    guarded(ctx, "smem.bank_tput_s" + std::to_string(s), [&] {
      const unsigned grid = static_cast<unsigned>(ctx.sm_count), block = 1024, steps = 2048;
      std::vector<double> v;
      smem_bank<<<grid, block, 0, ctx.stream>>>(o, s, 4u, steps);
      MB_LAUNCHED();
      ctx.sync();
      for (int r = 0; r < reps(ctx); ++r) {
        smem_bank<<<grid, block, 0, ctx.stream>>>(o, s, 4u, steps);
        MB_LAUNCHED();
        ctx.sync();
        auto spans = sm_spans(out.u64(3ull * grid), grid);
        std::vector<double> per_sm;
        for (auto& [sm, sp] : spans) {
          const double warp_lds = static_cast<double>(sp.blocks) * (block / 32) * 4.0 * steps;
          per_sm.push_back(sp.cycles / warp_lds);
        }
        v.push_back(median(per_sm));
      }
      emit_result("smem.bank_tput_s" + std::to_string(s), "cycles/warp-instr/SM", v,
                  JObj()
                      .num("stride_words", s)
                      .num("conflict_ways", std::min(s, 32u))
                      .num("grid", grid)
                      .num("block", block)
                      .num("bytes_per_clk_per_sm", 128.0 / median(v))
                      .str("formula", "per SM: (max t1 - min t0) / (warps * 4 chains * steps); median over SMs"));
    });
  }
}

}  // namespace mb
