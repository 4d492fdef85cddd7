// The fast tier's analytical model; see fast_model.h.
#include "cost_model/fast_model.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace kernsim::cost {
namespace {

using isa::Unit;

double busy(const KernelProfile& p, Unit u) {
  return p.unit_busy[static_cast<std::size_t>(u)];
}

// Per-CTA busy cycles of the scheduler's most loaded pipe: each unit its own pipe, the integer
// instructions that may take either the ALU or the IMAD pipe split to balance the two, and, on
// parts whose matrix instructions hold the FMA/ALU pipes (sm.tensor_shares_math_pipes), the
// matrix and math pipes as one.
double busiest_pipe(const KernelProfile& p, const device::DeviceSpec& d) {
  double alu = busy(p, Unit::IntAlu), imad = busy(p, Unit::IntMul);
  const double lo = std::min(alu, imad), hi = std::max(alu, imad);
  const double fill = std::min(p.alt_busy, hi - lo);
  const double rest = p.alt_busy - fill;
  if (alu <= imad)
    alu += fill + rest / 2, imad += rest / 2;
  else
    imad += fill + rest / 2, alu += rest / 2;
  double worst = std::max(alu, imad);
  double tensor = 0;
  for (int u = 0; u < kUnits; ++u) {
    const auto unit = static_cast<Unit>(u);
    if (unit == Unit::IntAlu || unit == Unit::IntMul || unit == Unit::Mem || unit == Unit::Sync || unit == Unit::Nop)
      continue;
    if (isa::is_tensor(unit)) tensor += p.unit_busy[static_cast<std::size_t>(u)];
    worst = std::max(worst, p.unit_busy[static_cast<std::size_t>(u)]);
  }
  if (d.sm.tensor_shares_math_pipes && tensor > 0)
    worst = std::max(worst, tensor + alu + imad + busy(p, Unit::Fp32) + busy(p, Unit::Fp16));
  return std::max(worst, tensor);
}

// Sustained HBM bandwidth for a mix of reads and writes: the read or write efficiency of a pure
// stream, the copy efficiency for an even mix, in between linearly.
double dram_efficiency(double reads, double writes, const device::Dram& d) {
  const double total = reads + writes;
  if (total <= 0) return d.read_efficiency;
  const double mix = 2 * std::min(reads, writes) / total;
  const double pure = reads >= writes ? d.read_efficiency : d.write_efficiency;
  return mix * d.copy_efficiency + (1 - mix) * pure;
}

}  // namespace

FastPrediction predict(const KernelProfile& p, const LaunchGeometry& g, const device::DeviceSpec& dev) {
  if (dev.fast.overlap_exponent <= 0 || dev.fast.latency_scale <= 0 || dev.fast.l2_reuse_fraction <= 0)
    throw Error(ErrorKind::NotImplemented,
                "the fast tier has no fitted coefficients for " + dev.name +
                    " (fast.overlap_exponent, fast.latency_scale, fast.l2_reuse_fraction in its device file; "
                    "`kernsim fit-fast` fits them to measured launches): use --tier detailed");
  return predict(p, g, dev, dev.fast);
}

FastPrediction predict(const KernelProfile& p, const LaunchGeometry& g, const device::DeviceSpec& dev,
                       const device::FastTier& c) {
  FastPrediction r;
  sim::KernelResources kr;
  kr.threads_per_block = g.threads_per_block;
  kr.registers_per_thread = g.registers_per_thread;
  kr.shared_per_block = g.shared_per_block;
  r.occupancy = sim::compute_occupancy(dev, kr);
  const double n_ctas = static_cast<double>(g.ctas);
  const double sms = static_cast<double>(std::max<std::int64_t>(1, dev.sm.count));
  const double subs = static_cast<double>(std::max<std::int64_t>(1, dev.sm.sub_partitions));
  const int resident = std::max(1, r.occupancy.blocks_per_unit);
  // the busiest SM's CTAs, and the rounds of resident CTAs they take (waves and the tail)
  const double per_sm = std::ceil(n_ctas / sms);
  r.ctas_per_sm = static_cast<int>(per_sm);
  r.rounds = static_cast<int>(std::ceil(per_sm / resident));
  // schedulers a CTA's warps spread over
  const double used_subs =
      std::min(subs, std::max(1.0, static_cast<double>(p.warps_per_cta) * std::min<double>(resident, per_sm)));

  // --- memory hierarchy (chip-wide bytes) ---
  const double sector = static_cast<double>(std::max<std::int64_t>(1, dev.l1.sector_bytes));
  const double l2_read_sectors = std::max(0.0, p.load_sectors - p.l1_hit_sectors);
  const double l2_read_bytes = n_ctas * l2_read_sectors * sector;
  double foot_read = 0, foot_write = 0;
  for (const BufferUse& b : p.buffers) {
    foot_read += std::min(b.size_bytes, n_ctas * b.read_bytes_per_cta);
    foot_write += std::min(b.size_bytes, n_ctas * b.write_bytes_per_cta);
  }
  // a CTA's first reads of each sector: the launch's footprint once, the rest read by other CTAs
  // too; those hit in L2 while the footprint fits the share of the L2 that keeps it, beyond in
  // proportion. A CTA's own re-reads that L1 lost are recent: L2 hits.
  const double first_reads = n_ctas * std::max(0.0, p.load_sectors - p.reread_sectors) * sector;
  foot_read = std::min(foot_read, first_reads);
  const double rereads = std::max(0.0, first_reads - foot_read);
  const double footprint = foot_read + foot_write;
  const double keep = static_cast<double>(dev.l2.bytes) *
                      static_cast<double>(std::max<std::int64_t>(1, dev.l2.instances)) * c.l2_reuse_fraction;
  const double reread_hit = footprint <= keep ? 1.0 : keep / footprint;
  r.dram_read_bytes = foot_read + (1 - reread_hit) * rereads;
  r.dram_write_bytes = foot_write;
  r.l2_hit_rate = l2_read_bytes > 0 ? 1 - r.dram_read_bytes / l2_read_bytes : 0;
  r.l1_hit_rate = p.load_sectors > 0 ? p.l1_hit_sectors / p.load_sectors : 0;
  const double miss_latency =
      dev.l2.hit_latency_cycles + (1 - r.l2_hit_rate) * (dev.dram.latency_cycles - dev.l2.hit_latency_cycles);

  auto term = [&](const char* name, double cycles) { r.terms.push_back({name, std::max(0.0, cycles)}); };
  // --- one SM ---
  const double pipe = busiest_pipe(p, dev);
  const double slots = p.issue_slots / std::max<std::int64_t>(1, dev.sm.issue_per_cycle);
  term("issue", per_sm * std::max(pipe, slots) / used_subs);
  const double path = p.path_cycles + p.path_miss_loads * miss_latency;
  term("latency", c.latency_scale * r.rounds * (path + dev.sm.cta_turnover_cycles));
  const double wavefronts_per_cycle =
      dev.shared.bytes_per_cycle /
      static_cast<double>(std::max<std::int64_t>(1, dev.shared.banks * dev.shared.bank_width_bytes));
  term("shared", per_sm * p.shared_wavefronts / std::max(1e-9, wavefronts_per_cycle));
  const double l1_lines = p.load_lines + p.store_lines;
  const double miss_lines = std::max(0.0, p.load_lines - p.l1_hit_lines);
  term("l1", per_sm * std::max({l1_lines / std::max(1e-9, dev.l1.lines_per_cycle),
                                p.load_sectors * sector / std::max(1e-9, dev.l1.bytes_per_cycle),
                                miss_lines * dev.l1.miss_request_cycles +
                                    (p.store_sectors - p.store_partial_sectors) * dev.l1.store_sector_cycles +
                                    p.store_partial_sectors * dev.l1.store_partial_sector_cycles}));
  // --- chip ---
  const double l2_units = n_ctas * (l2_read_sectors + dev.l2.read_request_overhead * miss_lines +
                                    (p.store_sectors - p.store_partial_sectors) * dev.l2.write_sector_cost +
                                    p.store_partial_sectors * dev.l2.partial_write_sector_cost +
                                    dev.l2.write_request_overhead * p.store_lines + p.atomic_requests);
  const double l2_bpc = dev.l2.bytes_per_cycle * static_cast<double>(std::max<std::int64_t>(1, dev.l2.instances));
  term("l2", l2_units * sector / std::max(1e-9, l2_bpc));
  r.l2_bytes = n_ctas * (l2_read_sectors + p.store_sectors) * sector;
  const double cycles_per_s = dev.clocks.core_mhz * 1e6;
  const double dram_bps =
      dev.dram.bandwidth_gbps * 1e9 * dram_efficiency(r.dram_read_bytes, r.dram_write_bytes, dev.dram);
  term("dram", (r.dram_read_bytes + r.dram_write_bytes) / std::max(1.0, dram_bps) * cycles_per_s);
  const double same = p.atomic_float_share * dev.l2.atomic_float_same_address_cycles +
                      (1 - p.atomic_float_share) * dev.l2.atomic_same_address_cycles;
  const double hot = p.atomic_hot_shared ? n_ctas * p.atomic_hot_address_ops : per_sm * p.atomic_hot_address_ops;
  // the slices that serve the atomics: one per line they touch, at most all of them
  const double slices = static_cast<double>(std::max<std::int64_t>(1, dev.l2.slices));
  const double atomic_slices = p.atomic_hot_shared ? std::clamp(p.atomic_lines, 1.0, slices) : slices;
  const double atomic_rate = atomic_slices * dev.l2.atomic_ops_per_cycle;
  term("atomics", std::max(hot * same, n_ctas * p.atomic_requests / std::max(1e-9, atomic_rate)));
  term("dispatch", n_ctas * dev.launch.cta_dispatch_cycles);

  // --- join: a p-norm (1: nothing overlaps, large: the slowest resource alone) ---
  const double pe = std::max(1.0, c.overlap_exponent);
  double biggest = 0;
  for (const FastTerm& t : r.terms) biggest = std::max(biggest, t.cycles);
  double sum = 0;
  if (biggest > 0)
    for (const FastTerm& t : r.terms) sum += std::pow(t.cycles / biggest, pe);
  r.cycles = biggest * std::pow(sum, 1 / pe);
  r.kernel_us = r.cycles / dev.clocks.core_mhz;
  r.launch_us = dev.launch.overhead_us;
  r.time_us = r.kernel_us + r.launch_us;
  const FastTerm* top = &r.terms.front();
  for (const FastTerm& t : r.terms)
    if (t.cycles > top->cycles) top = &t;
  // the report's words: the issue term is "compute" ("tensor" when the matrix pipes dominate it)
  std::string b = top->name;
  if (b == "issue") {
    double tensor = 0;
    for (int u = 0; u < kUnits; ++u)
      if (isa::is_tensor(static_cast<Unit>(u))) tensor += p.unit_busy[static_cast<std::size_t>(u)];
    b = tensor >= 0.5 * pipe && tensor > 0 ? "tensor" : "compute";
  }
  if (b == "dispatch") b = "launch";
  if (r.launch_us > r.kernel_us) b = "launch";
  r.bottleneck = b;
  return r;
}

}  // namespace kernsim::cost
