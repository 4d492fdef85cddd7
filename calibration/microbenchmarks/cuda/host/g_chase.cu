// Group `latency`: global-memory load latency by footprint (lat_chase.cu).
#include "../lat_chase.cu"
#include "mb_host.h"

namespace mb {

void kernels_chase(std::vector<KernelEntry>& k) {
  k.push_back({"lat_ptr_chase", reinterpret_cast<const void*>(&lat_ptr_chase)});
  k.push_back({"lat_idx_chase", reinterpret_cast<const void*>(&lat_idx_chase)});
}

namespace {

std::string size_label(unsigned long long b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return std::to_string(b >> 30) + "g";
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return std::to_string(b >> 20) + "m";
  return std::to_string(b >> 10) + "k";
}

struct ChaseResult {
  std::vector<double> cycles, ns, event_ms;
};

constexpr unsigned kStrideBytes = 128;  // one L1/L2 line per node

}  // namespace

void group_latency(Context& ctx) {
  const unsigned long long KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
  std::vector<unsigned long long> fps = {8 * KiB,   16 * KiB,  32 * KiB,  64 * KiB,  128 * KiB, 256 * KiB,
                                         512 * KiB, 1 * MiB,   2 * MiB,   4 * MiB,   8 * MiB,   16 * MiB,
                                         24 * MiB,  32 * MiB,  40 * MiB,  48 * MiB,  56 * MiB,  64 * MiB,
                                         96 * MiB,  128 * MiB, 256 * MiB, 512 * MiB, 1 * GiB};
  if (ctx.opt.quick) fps = {32 * KiB, 1 * MiB, 8 * MiB, 48 * MiB, 256 * MiB};
  const unsigned long long max_fp = *std::max_element(fps.begin(), fps.end());

  DevBuf buf;
  DevBuf out(16 * sizeof(unsigned long long));
  guarded(ctx, "alloc", [&] { buf = DevBuf(max_fp, false); });
  if (!buf.p) return;
  unsigned long long* const b = buf.as<unsigned long long>();
  unsigned long long* const o = out.as<unsigned long long>();

  std::map<std::string, ChaseResult> keep;  // for the canonical aliases

  auto run_chase = [&](const std::string& name, unsigned long long fp, unsigned pattern) {
    guarded(ctx, name, [&] {
      const unsigned long long nodes = fp / kStrideBytes;
      const unsigned se = kStrideBytes / 8;
      // Warm mode: the footprint fits in L2; the timed launch first touches every node with the
      // whole block, then chases a full lap (up to 65536 steps) untimed, then times 4096 steps.
      // Cold mode (footprint >= L2): L2 flushed before every launch, 64 untimed steps, 2048 timed.
      const bool warm = fp < ctx.l2_bytes;
      const unsigned warm_steps = warm ? static_cast<unsigned>(std::min<unsigned long long>(nodes, 65536)) : 64u;
      const unsigned steps = warm ? 4096u : 2048u;
      const unsigned flags = warm ? (2u | 4u) : 4u;
      lat_ptr_chase<<<1, 1024, 0, ctx.stream>>>(b, o, nodes, se, pattern, 1u, 0u, 0u);  // build
      MB_LAUNCHED();
      ctx.sync();
      ChaseResult r;
      for (int i = 0; i < reps(ctx); ++i) {
        if (!warm) ctx.flush_l2();
        const float ms = ctx.time_ms(
            [&] { lat_ptr_chase<<<1, 1024, 0, ctx.stream>>>(b, o, nodes, se, pattern, flags, warm_steps, steps); });
        MB_LAUNCHED();
        auto v = out.u64(4);
        r.cycles.push_back(static_cast<double>(v[0]) / static_cast<double>(v[1]));
        r.ns.push_back(static_cast<double>(v[3]) / static_cast<double>(v[1]));
        r.event_ms.push_back(ms);
      }
      emit_result(name, "cycles", r.cycles,
                  JObj()
                      .num("footprint_bytes", static_cast<double>(fp))
                      .num("stride_bytes", kStrideBytes)
                      .str("pattern", pattern == 1 ? "golden-ratio jump (single cycle, no locality)" : "sequential")
                      .str("mode", warm ? "warm (touched + one lap untimed)" : "cold (L2 flushed)")
                      .num("warm_steps", warm_steps)
                      .num("timed_steps", steps)
                      .num("ns_per_load", median(r.ns))
                      .num("event_ms", median(r.event_ms))
                      .str("kernel", "lat_ptr_chase")
                      .str("formula", "cycles = (clock64 after - before) / timed_steps; pure p = *p chase"));
      keep[name] = r;
    });
  };

  for (unsigned long long fp : fps) run_chase("latency.chase_" + size_label(fp), fp, 1u);

  // Canonical names for the device file (same samples as the footprint they alias).
  const std::vector<std::pair<std::string, std::string>> aliases = {{"latency.l1_hit", "latency.chase_32k"},
                                                                    {"latency.l2_hit", "latency.chase_8m"},
                                                                    {"latency.l2_far", "latency.chase_48m"},
                                                                    {"latency.hbm", "latency.chase_256m"},
                                                                    {"latency.hbm_1g", "latency.chase_1g"}};
  for (auto& [alias, src] : aliases) {
    auto it = keep.find(src);
    if (it == keep.end()) continue;
    emit_result(alias, "cycles", it->second.cycles,
                JObj().str("alias_of", src).num("ns_per_load", median(it->second.ns)));
  }

  if (!ctx.opt.quick) run_chase("latency.hbm_seq", 256 * MiB, 0u);

  // Computed index chase on a zero buffer (no build phase; what a one-launch spec does).
  DevBuf zero;
  guarded(ctx, "alloc_zero", [&] { zero = DevBuf(256 * MiB, true); });
  if (!zero.p) return;
  auto run_idx = [&](const std::string& name, unsigned long long fp, bool cold) {
    guarded(ctx, name, [&] {
      const unsigned mask = static_cast<unsigned>(fp / 4 - 1);  // fp a power of two
      const unsigned stride = kStrideBytes / 4;
      const unsigned nodes = static_cast<unsigned>(fp / kStrideBytes);
      const unsigned warm_steps = cold ? 0u : std::min(nodes, 65536u);
      const unsigned steps = cold ? 2048u : 4096u;
      std::vector<double> cyc, ns;
      for (int i = 0; i < reps(ctx); ++i) {
        if (cold) ctx.flush_l2();
        lat_idx_chase<<<1, 1, 0, ctx.stream>>>(zero.as<unsigned>(), o, mask, stride, warm_steps, steps);
        MB_LAUNCHED();
        ctx.sync();
        auto v = out.u64(4);
        cyc.push_back(static_cast<double>(v[0]) / static_cast<double>(v[1]));
        ns.push_back(static_cast<double>(v[3]) / static_cast<double>(v[1]));
      }
      emit_result(name, "cycles", cyc,
                  JObj()
                      .num("footprint_bytes", static_cast<double>(fp))
                      .num("stride_bytes", kStrideBytes)
                      .str("mode", cold ? "cold (L2 flushed)" : "warm (one lap untimed)")
                      .num("warm_steps", warm_steps)
                      .num("timed_steps", steps)
                      .num("ns_per_load", median(ns))
                      .str("kernel", "lat_idx_chase")
                      .str("formula",
                           "cycles per step incl. the index arithmetic (SASS: IADD3, LOP3, IMAD.WIDE.U32 "
                           "between loads); subtract latency.idx_overhead for the load alone"));
      keep[name].cycles = cyc;
    });
  };
  run_idx("latency.l1_idx", 32 * KiB, false);
  if (!ctx.opt.quick) run_idx("latency.l2_idx", 8 * MiB, false);
  run_idx("latency.hbm_idx", 256 * MiB, true);

  // Arithmetic between two loads of the index chase, from the two L1 chases.
  auto a = keep.find("latency.l1_idx"), p = keep.find("latency.chase_32k");
  if (a != keep.end() && p != keep.end() && !a->second.cycles.empty() && !p->second.cycles.empty()) {
    const double d = median(a->second.cycles) - median(p->second.cycles);
    emit_result("latency.idx_overhead", "cycles", {d},
                JObj().str("formula", "median(latency.l1_idx) - median(latency.chase_32k)"));
  }
}

}  // namespace mb
