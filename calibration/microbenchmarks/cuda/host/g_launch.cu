// Groups `clock` (measured SM clock, GPU warm-up) and `launch` (launch overhead, CTA dispatch),
// on the kernels of launch.cu.
#include <chrono>

#include "../launch.cu"
#include "mb_host.h"

namespace mb {

void kernels_launch(std::vector<KernelEntry>& k) {
  k.push_back({"k_empty", reinterpret_cast<const void*>(&k_empty)});
  k.push_back({"k_one_block", reinterpret_cast<const void*>(&k_one_block)});
  k.push_back({"cta_stamp", reinterpret_cast<const void*>(&cta_stamp)});
  k.push_back({"spin_ns", reinterpret_cast<const void*>(&spin_ns)});
  k.push_back({"clock_probe", reinterpret_cast<const void*>(&clock_probe)});
}

void launch_spin_ns(cudaStream_t s, unsigned long long ns, unsigned blocks) {
  spin_ns<<<blocks, 32, 0, s>>>(ns);
  MB_LAUNCHED();
}

void group_clock(Context& ctx) {
  guarded(ctx, "warmup", [&] {
    // Clocks idle low (405 MHz on the H200); keep every SM busy ~0.3 s so boost settles.
    launch_spin_ns(ctx.stream, 300000000ull, static_cast<unsigned>(ctx.sm_count * 4));
    ctx.sync();
  });
  guarded(ctx, "clock.sm_mhz_measured", [&] {
    const unsigned grid = static_cast<unsigned>(ctx.sm_count);
    DevBuf out(3ull * grid * sizeof(unsigned long long));
    const unsigned long long ns = ctx.opt.quick ? 2000000ull : 5000000ull;
    std::vector<double> samples;
    for (int r = 0; r < reps(ctx, 20); ++r) {
      clock_probe<<<grid, 32, 0, ctx.stream>>>(out.as<unsigned long long>(), ns);
      MB_LAUNCHED();
      ctx.sync();
      auto rec = out.u64(3ull * grid);
      std::vector<double> per_block;
      for (unsigned b = 0; b < grid; ++b)
        if (rec[3ull * b + 1] > 0) per_block.push_back(1000.0 * rec[3ull * b] / rec[3ull * b + 1]);
      samples.push_back(median(per_block));
    }
    ctx.sm_mhz = median(samples);
    emit_result("clock.sm_mhz_measured", "MHz", samples,
                JObj()
                    .num("blocks", grid)
                    .num("spin_ns", static_cast<double>(ns))
                    .str("method", "d clock64 / d globaltimer per block, median over blocks"));
  });
}

void group_launch(Context& ctx) {
  const int n = std::max(reps(ctx), ctx.opt.quick ? 50 : 200);
  auto us = [](float ms) { return 1000.0 * ms; };

  guarded(ctx, "launch.empty_event_us", [&] {
    k_empty<<<1, 1, 0, ctx.stream>>>();
    MB_LAUNCHED();
    ctx.sync();
    std::vector<double> plain, queued;
    for (int r = 0; r < n; ++r) plain.push_back(us(ctx.time_ms([&] { k_empty<<<1, 1, 0, ctx.stream>>>(); })));
    MB_LAUNCHED();
    for (int r = 0; r < n; ++r) queued.push_back(us(ctx.time_ms_queued([&] { k_empty<<<1, 1, 0, ctx.stream>>>(); })));
    MB_LAUNCHED();
    emit_result(
        "launch.empty_event_us", "us", plain,
        JObj().str("method", "event record; k_empty<<<1,1>>>; event record; median").num("grid", 1).num("block", 1));
    emit_result("launch.empty_event_queued_us", "us", queued,
                JObj().str("method", "as empty_event_us, queued behind a 100 us spin kernel: GPU-side only"));
  });

  guarded(ctx, "launch.one_block_event_us", [&] {
    DevBuf out(256 * sizeof(unsigned));
    std::vector<double> plain, queued;
    for (int r = 0; r < n; ++r)
      plain.push_back(us(ctx.time_ms([&] { k_one_block<<<1, 256, 0, ctx.stream>>>(out.as<unsigned>()); })));
    MB_LAUNCHED();
    for (int r = 0; r < n; ++r)
      queued.push_back(us(ctx.time_ms_queued([&] { k_one_block<<<1, 256, 0, ctx.stream>>>(out.as<unsigned>()); })));
    MB_LAUNCHED();
    emit_result("launch.one_block_event_us", "us", plain, JObj().num("grid", 1).num("block", 256));
    emit_result("launch.one_block_event_queued_us", "us", queued, JObj().num("grid", 1).num("block", 256));
  });

  guarded(ctx, "launch.roundtrip_us", [&] {
    std::vector<double> v;
    for (int r = 0; r < n; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      k_empty<<<1, 1, 0, ctx.stream>>>();
      MB_CHECK(cudaStreamSynchronize(ctx.stream));
      v.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    MB_LAUNCHED();
    emit_result("launch.roundtrip_us", "us", v,
                JObj().str("method", "host wall time of k_empty<<<1,1>>> + cudaStreamSynchronize"));
  });

  guarded(ctx, "launch.back_to_back_us", [&] {
    const int k = 256;
    std::vector<double> plain, queued;
    for (int r = 0; r < reps(ctx); ++r) {
      plain.push_back(us(ctx.time_ms([&] {
                        for (int i = 0; i < k; ++i) k_empty<<<1, 1, 0, ctx.stream>>>();
                      })) /
                      k);
      queued.push_back(us(ctx.time_ms_queued(
                           [&] {
                             for (int i = 0; i < k; ++i) k_empty<<<1, 1, 0, ctx.stream>>>();
                           },
                           20000.0)) /
                       k);
    }
    MB_LAUNCHED();
    emit_result("launch.back_to_back_us", "us", plain,
                JObj().num("launches", k).str("method", "256 k_empty between two events, per launch (host-bound)"));
    emit_result("launch.back_to_back_queued_us", "us", queued,
                JObj().num("launches", k).str("method", "the same, queued behind a 20 ms spin: GPU-side per launch"));
  });

  guarded(ctx, "launch.graph_node_us", [&] {
    const int k = 256;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaStream_t cap = nullptr;  // capture on a non-blocking stream (no implicit legacy-stream sync)
    MB_CHECK(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking));
    MB_CHECK(cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < k; ++i) k_empty<<<1, 1, 0, cap>>>();
    MB_CHECK(cudaStreamEndCapture(cap, &graph));
    (void)cudaStreamDestroy(cap);
    MB_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    MB_CHECK(cudaGraphLaunch(exec, ctx.stream));
    ctx.sync();
    std::vector<double> v;
    for (int r = 0; r < reps(ctx); ++r)
      v.push_back(us(ctx.time_ms_queued([&] { MB_CHECK(cudaGraphLaunch(exec, ctx.stream)); }, 200.0)) / k);
    (void)cudaGraphExecDestroy(exec);
    (void)cudaGraphDestroy(graph);
    emit_result("launch.graph_node_us", "us", v,
                JObj().num("nodes", k).str("method", "one CUDA graph of 256 k_empty nodes, per node"));
  });

  guarded(ctx, "launch.cta_dispatch", [&] {
    // time(grid) for tiny empty blocks, queued (GPU-side); slope = cost per CTA for the whole GPU.
    const unsigned sms = static_cast<unsigned>(ctx.sm_count);
    std::vector<unsigned> grids = {sms, sms * 8, sms * 32, sms * 64, sms * 128, sms * 256};
    if (ctx.opt.quick) grids = {sms, sms * 64, sms * 256};
    std::vector<double> xs, ys;
    for (unsigned g : grids) {
      std::vector<double> v;
      for (int r = 0; r < reps(ctx); ++r)
        v.push_back(us(ctx.time_ms_queued([&] { k_empty<<<g, 32, 0, ctx.stream>>>(); })));
      MB_LAUNCHED();
      emit_result("launch.empty_grid_" + std::to_string(g) + "x32_us", "us", v,
                  JObj().num("grid", g).num("block", 32).str("method", "queued event time of k_empty"));
      xs.push_back(g);
      ys.push_back(median(v));
    }
    // Least-squares line through the medians.
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      mx += xs[i];
      my += ys[i];
    }
    mx /= xs.size();
    my /= ys.size();
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      sxy += (xs[i] - mx) * (ys[i] - my);
      sxx += (xs[i] - mx) * (xs[i] - mx);
    }
    const double slope_us = sxx > 0 ? sxy / sxx : NAN;
    const double icpt_us = my - slope_us * mx;
    const double per_cta_ns = slope_us * 1000.0;
    const double per_sm_cycles = per_cta_ns * sms * ctx.mhz() / 1000.0;
    emit_result("launch.cta_ns_per_block", "ns", {per_cta_ns},
                JObj()
                    .num("intercept_us", icpt_us)
                    .num("block", 32)
                    .str("method", "slope of queued time(grid) for k_empty<<<grid,32>>>, grids 1..256 waves of SMs"));
    emit_result("launch.cta_dispatch_cycles_per_sm", "cycles", {per_sm_cycles},
                JObj().num("sm_mhz", ctx.mhz()).str("method", "cta_ns_per_block * SMs * SM clock"));
    // Same total CTAs with 256-thread blocks: does the block size matter?
    std::vector<double> v;
    for (int r = 0; r < reps(ctx); ++r)
      v.push_back(us(ctx.time_ms_queued([&] { k_empty<<<sms * 64, 256, 0, ctx.stream>>>(); })));
    MB_LAUNCHED();
    emit_result("launch.empty_grid_" + std::to_string(sms * 64) + "x256_us", "us", v,
                JObj().num("grid", sms * 64).num("block", 256));
  });

  guarded(ctx, "launch.cta_interval_cycles_per_sm", [&] {
    const unsigned grid = static_cast<unsigned>(ctx.sm_count) * 64u;
    DevBuf out(2ull * grid * sizeof(unsigned long long));
    std::vector<double> v;
    for (int r = 0; r < reps(ctx); ++r) {
      cta_stamp<<<grid, 32, 0, ctx.stream>>>(out.as<unsigned long long>());
      MB_LAUNCHED();
      ctx.sync();
      auto rec = out.u64(2ull * grid);
      std::map<unsigned, std::vector<unsigned long long>> by_sm;
      for (unsigned b = 0; b < grid; ++b) by_sm[static_cast<unsigned>(rec[2ull * b + 1])].push_back(rec[2ull * b]);
      std::vector<double> gaps;
      for (auto& [sm, t] : by_sm) {
        std::sort(t.begin(), t.end());
        for (std::size_t i = 1; i < t.size(); ++i) gaps.push_back(static_cast<double>(t[i] - t[i - 1]));
      }
      v.push_back(median(gaps));
    }
    emit_result("launch.cta_interval_cycles_per_sm", "cycles", v,
                JObj()
                    .num("grid", grid)
                    .num("block", 32)
                    .str("method", "cta_stamp: median gap between consecutive block starts on the same SM (SM clock)"));
  });
}

}  // namespace mb
