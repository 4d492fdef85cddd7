// Group `atomics`: atomic throughput by address pattern and atomic latency (atomics.cu).
#include "../atomics.cu"
#include "mb_host.h"

namespace mb {

#define MB_K(n) \
  { #n, reinterpret_cast < const void*>(&n) }

void kernels_atomics(std::vector<KernelEntry>& k) {
  const KernelEntry e[] = {MB_K(atom_global_u32), MB_K(atom_global_u32_uniform), MB_K(atom_global_f32),
                           MB_K(atom_shared_u32), MB_K(atom_lat_global),         MB_K(atom_lat_shared)};
  k.insert(k.end(), std::begin(e), std::end(e));
}

void group_atomics(Context& ctx) {
  const unsigned block = 256;
  const unsigned grid = static_cast<unsigned>(ctx.sm_count) * 8u;
  const unsigned threads = grid * block;
  DevBuf buf, out;
  guarded(ctx, "alloc", [&] {
    buf = DevBuf(static_cast<std::size_t>(threads) * 4, true);
    out = DevBuf((3ull * ctx.sm_count + 8) * sizeof(unsigned long long), true);
  });
  if (!buf.p || !out.p) return;

  // Global throughput: ops = threads * iters (per-thread operations), G op/s from event time.
  auto global = [&](const std::string& name, const std::string& what, unsigned naddr,
                    const std::function<void(unsigned)>& launch) {
    guarded(ctx, name, [&] {
      const unsigned long long iters = calibrate_work(ctx, 1, 1u << 20, [&](unsigned long long n) {
        return ctx.time_ms([&] { launch(static_cast<unsigned>(n)); });
      });
      const double ops = static_cast<double>(threads) * iters;
      std::vector<double> g;
      for (int r = 0; r < reps(ctx); ++r) {
        const float ms = ctx.time_ms([&] { launch(static_cast<unsigned>(iters)); });
        g.push_back(ops / (ms * 1e6));
      }
      const double med = median(g);
      emit_result(name, "Gop/s", g,
                  JObj()
                      .str("op", what)
                      .num("addresses", naddr)
                      .num("grid", grid)
                      .num("block", block)
                      .num("iters", static_cast<double>(iters))
                      .num("ops_per_clk", med * 1e9 / (ctx.mhz() * 1e6))
                      .num("sm_mhz", ctx.mhz())
                      .str("formula", "grid*block*iters per-thread operations / event time"));
    });
  };
  std::vector<unsigned> pats = {1, 32, 1024, threads};
  if (ctx.opt.quick) pats = {1, threads};
  for (unsigned na : pats) {
    const std::string tag = na == threads ? "distinct" : std::to_string(na) + "addr";
    global("atomic.global_u32_" + tag, "red.global.add.u32, buf[g % addresses] (no warp aggregation)", na,
           [&, na](unsigned it) {
             atom_global_u32<<<grid, block, 0, ctx.stream>>>(buf.as<unsigned>(), na, it, 1u);
             MB_LAUNCHED();
           });
  }
  global("atomic.global_u32_1addr_aggregated", "red.global.add.u32 [buf], 1: ptxas warp-aggregates (VOTEU+POPC)", 1,
         [&](unsigned it) {
           atom_global_u32_uniform<<<grid, block, 0, ctx.stream>>>(buf.as<unsigned>(), it);
           MB_LAUNCHED();
         });
  for (unsigned na : {1u, threads}) {
    const std::string tag = na == threads ? "distinct" : "1addr";
    global("atomic.global_f32_" + tag, "red.global.add.f32, buf[g % addresses]", na, [&, na](unsigned it) {
      atom_global_f32<<<grid, block, 0, ctx.stream>>>(buf.as<float>(), na, it, 1.0f);
      MB_LAUNCHED();
    });
  }

  // Shared: per-SM cycles per warp-wide ATOMS.
  std::vector<unsigned> spats = {1, 32, 1024};
  if (ctx.opt.quick) spats = {1, 32};
  for (unsigned na : spats) {
    const std::string name = "atomic.shared_u32_" + std::to_string(na) + "addr";
    guarded(ctx, name, [&] {
      const unsigned sgrid = static_cast<unsigned>(ctx.sm_count), sblock = 1024;
      unsigned long long* o = out.as<unsigned long long>();
      const unsigned long long iters = calibrate_work(ctx, 8, 1u << 20, [&](unsigned long long n) {
        return ctx.time_ms(
            [&] { atom_shared_u32<<<sgrid, sblock, 0, ctx.stream>>>(o, na, static_cast<unsigned>(n), 1u); });
      });
      std::vector<double> v;
      for (int r = 0; r < reps(ctx); ++r) {
        atom_shared_u32<<<sgrid, sblock, 0, ctx.stream>>>(o, na, static_cast<unsigned>(iters), 1u);
        MB_LAUNCHED();
        ctx.sync();
        std::vector<double> per_sm;
        for (auto& [sm, sp] : sm_spans(out.u64(3ull * sgrid), sgrid))
          per_sm.push_back(sp.cycles / (static_cast<double>(sp.blocks) * (sblock / 32) * iters));
        v.push_back(median(per_sm));
      }
      emit_result(name, "cycles/warp-instr/SM", v,
                  JObj()
                      .num("addresses", na)
                      .num("grid", sgrid)
                      .num("block", sblock)
                      .num("iters", static_cast<double>(iters))
                      .num("lane_ops_per_clk_per_sm", 32.0 / median(v))
                      .str("formula", "per SM: (max t1 - min t0) / (warps * iters); s[tid % addresses]"));
    });
  }

  auto lat = [&](const std::string& name, const std::function<void()>& launch, const char* what) {
    guarded(ctx, name, [&] {
      launch();
      ctx.sync();
      std::vector<double> v;
      for (int r = 0; r < reps(ctx); ++r) {
        launch();
        ctx.sync();
        auto rec = out.u64(2);
        v.push_back(static_cast<double>(rec[0]) / static_cast<double>(rec[1]));
      }
      emit_result(name, "cycles", v, JObj().str("op", what).str("formula", "one thread, v = atom.add(p, v) chain"));
    });
  };
  lat(
      "latency.atomic_global",
      [&] {
        atom_lat_global<<<1, 1, 0, ctx.stream>>>(buf.as<unsigned>(), out.as<unsigned long long>(), 1024u);
        MB_LAUNCHED();
      },
      "atom.global.add.u32 with return (ATOMG), same address, L2-resident");
  lat(
      "latency.atomic_shared",
      [&] {
        atom_lat_shared<<<1, 32, 0, ctx.stream>>>(out.as<unsigned long long>(), 1024u);
        MB_LAUNCHED();
      },
      "atom.shared.add.u32 with return (ATOMS.ADD)");
}

}  // namespace mb
