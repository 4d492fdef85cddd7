// Issue-rate and latency measurement for the alu/mma kernels (see pipe_bench.h).
#include "pipe_bench.h"

namespace mb {

namespace {

void launch_pipe(const void* fn, unsigned grid, unsigned block, cudaStream_t s, unsigned long long* out, unsigned iters,
                 float x) {
  void* args[] = {&out, &iters, &x};
  MB_CHECK(cudaLaunchKernel(fn, dim3(grid), dim3(block), args, 0, s));
}

}  // namespace

void run_pipe_op(Context& ctx, const PipeOp& p) {
  const float x = 1.0f;
  guarded(ctx, "issue." + p.op, [&] {
    // One wave of exactly blocks_per_sm blocks per SM (as the launch specs do), unless fewer fit.
    int fit = 0;
    MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, p.issue, p.block, 0));
    const int per_sm = std::max(1, std::min(fit, p.blocks_per_sm));
    const unsigned grid = static_cast<unsigned>(ctx.sm_count * per_sm);
    DevBuf out((3ull * grid + 4) * sizeof(unsigned long long));
    unsigned long long* o = out.as<unsigned long long>();
    const unsigned long long iters = calibrate_work(ctx, 4, 1u << 22, [&](unsigned long long n) {
      return ctx.time_ms([&] { launch_pipe(p.issue, grid, p.block, ctx.stream, o, static_cast<unsigned>(n), x); });
    });
    std::vector<double> cyc, ms_v;
    double warps_per_smsp = 0;
    for (int r = 0; r < reps(ctx); ++r) {
      const float ms =
          ctx.time_ms([&] { launch_pipe(p.issue, grid, p.block, ctx.stream, o, static_cast<unsigned>(iters), x); });
      auto rec = out.u64(3ull * grid + 2);
      const double steps = static_cast<double>(rec[3ull * grid + 1]);
      std::vector<double> per_sm;
      for (auto& [sm, sp] : sm_spans(rec, grid)) {
        const double warps = static_cast<double>(sp.blocks) * (p.block / 32);
        const double instr_per_smsp = warps * steps * p.sass_per_step / 4.0;
        per_sm.push_back(sp.cycles / instr_per_smsp);
        warps_per_smsp = warps / 4.0;
      }
      cyc.push_back(median(per_sm));
      ms_v.push_back(ms);
    }
    JObj prm;
    prm.str("sass", p.sass)
        .num("sass_per_step", p.sass_per_step)
        .num("grid", grid)
        .num("block", p.block)
        .num("blocks_per_sm", per_sm)
        .num("blocks_per_sm_fit", fit)
        .num("warps_per_smsp", warps_per_smsp)
        .num("iters", static_cast<double>(iters))
        .num("event_ms", median(ms_v))
        .str("formula", "per SM: (max t1 - min t0) / (warps * steps * sass_per_step / 4); median over SMs");
    if (p.flops > 0) {
      const double c = median(cyc);
      prm.num("flops_per_instr", p.flops).num("flops_per_clk_per_sm", 4.0 * p.flops / c);
    }
    emit_result("issue." + p.op, "cycles/instr/SMSP", cyc, prm);
  });

  guarded(ctx, "latency." + p.op, [&] {
    DevBuf out(8 * sizeof(unsigned long long));
    unsigned long long* o = out.as<unsigned long long>();
    const unsigned iters = 64;
    launch_pipe(p.lat, 1, 32, ctx.stream, o, iters, x);
    ctx.sync();
    std::vector<double> cyc;
    double steps = 0;
    for (int r = 0; r < reps(ctx); ++r) {
      launch_pipe(p.lat, 1, 32, ctx.stream, o, iters, x);
      ctx.sync();
      auto rec = out.u64(2);
      steps = static_cast<double>(rec[1]);
      cyc.push_back(static_cast<double>(rec[0]) / steps / p.sass_per_step);
    }
    emit_result("latency." + p.op, "cycles", cyc,
                JObj()
                    .str("sass", p.sass)
                    .num("sass_per_step", p.sass_per_step)
                    .num("steps", steps)
                    .str("formula", "one warp, one dependent chain: cycles / steps / sass_per_step"));
  });
}

}  // namespace mb
