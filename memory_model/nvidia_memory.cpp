// NVIDIA memory hierarchy timing; see nvidia_memory.h.
#include "memory_model/nvidia_memory.h"

#include <algorithm>
#include <bit>

namespace kernsim::mem {

NvMemorySystem::NvMemorySystem(const device::DeviceSpec& d, int num_sms, std::uint64_t l1_bytes) : dev_(d) {
  sector_ = static_cast<std::uint32_t>(d.l1.sector_bytes);
  line_ = static_cast<std::uint32_t>(d.l1.line_bytes);
  l1_lat_ = d.l1.hit_latency_cycles;
  l2_lat_ = d.l2.hit_latency_cycles;
  dram_lat_ = d.dram.latency_cycles;
  smem_lat_ = d.shared.latency_cycles;
  // HBM: pure reads stream at read_efficiency of peak, pure writes at write_efficiency; mixing
  // them costs bus turnarounds, which is why a copy (half each) reaches only copy_efficiency.
  // The mix penalty is largest at half and half and vanishes for pure streams.
  read_cost_ = 1.0 / d.dram.read_efficiency;
  write_cost_ = 1.0 / d.dram.write_efficiency;
  mix_penalty_ = std::max(0.0, (1.0 / d.dram.copy_efficiency) / (0.5 * (read_cost_ + write_cost_)) - 1.0);
  conflict_lat_ = d.shared.conflict_latency_cycles;
  same_addr_cycles_ = d.l2.atomic_same_address_cycles;
  float_same_addr_cycles_ = d.l2.atomic_float_same_address_cycles;
  atomic_lat_ = d.l2.atomic_latency_cycles;
  const double peak_bytes_per_cycle = d.dram.bandwidth_gbps * 1e9 / (d.clocks.core_mhz * 1e6);
  dram_ = Server(peak_bytes_per_cycle);
  l2_ = Server(d.l2.bytes_per_cycle);
  l2c_ = SectorCache(static_cast<std::uint64_t>(d.l2.bytes), static_cast<std::uint32_t>(d.l2.line_bytes),
                     static_cast<std::uint32_t>(d.l2.sector_bytes), static_cast<std::uint32_t>(d.l2.ways));
  l1_.reserve(static_cast<std::size_t>(num_sms));
  for (int i = 0; i < num_sms; ++i) {
    l1_.emplace_back(l1_bytes, line_, sector_, static_cast<std::uint32_t>(d.l1.ways));
    l1_bw_.emplace_back(d.l1.bytes_per_cycle);
    smem_bw_.emplace_back(d.shared.bytes_per_cycle);
  }
  atomic_units_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, d.l2.slices)), Server(d.l2.atomic_ops_per_cycle));
  slots_.assign(static_cast<std::size_t>(num_sms),
                std::vector<double>(static_cast<std::size_t>(std::max<std::int64_t>(1, d.l1.max_outstanding_lines)), 0.0));
}

// The SM tracks a bounded number of line requests in flight beyond its L1 (MSHR-like). A new
// request waits for the earliest slot to free; this is what limits the memory-level parallelism
// of a few warps, and throttles an SM that streams stores to a slow destination.
double NvMemorySystem::acquire_slot(int sm, double t) {
  auto& h = slots_[static_cast<std::size_t>(sm)];
  std::pop_heap(h.begin(), h.end(), std::greater<>());
  return std::max(t, h.back());
}

void NvMemorySystem::release_slot(int sm, double done) {
  auto& h = slots_[static_cast<std::size_t>(sm)];
  h.back() = done;
  std::push_heap(h.begin(), h.end(), std::greater<>());
}

double NvMemorySystem::dram_cost(double bytes, bool write) {
  // exponential average over roughly the last 64 KiB of traffic
  const double a = std::min(1.0, bytes / 65536.0);
  write_share_ = (1 - a) * write_share_ + a * (write ? 1.0 : 0.0);
  const double mix = 1.0 + mix_penalty_ * 4.0 * write_share_ * (1.0 - write_share_);
  return bytes * (write ? write_cost_ : read_cost_) * mix;
}

double NvMemorySystem::l2_access(double t, std::uint64_t line, std::uint32_t mask, bool write, bool atomic,
                                 std::uint32_t partial) {
  const int n = std::popcount(mask);
  const double bytes = static_cast<double>(n) * sector_;
  c_.requests[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(n);
  c_.bytes[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(bytes);
  const double at_l2 = l2_.serve(t, bytes);
  // Writes allocate in L2 without fetching (full-sector writes; byte masks cover partial ones).
  // The first write that dirties a sector also sends it on to HBM right away: measured write
  // streams run at HBM write bandwidth even when they fit in L2, while repeated writes to a
  // sector that is already dirty (accumulators, histograms) stay in L2.
  CacheResult r = l2c_.access(line, mask, true, write || atomic);
  double wb_done = 0;
  if (r.newly_dirty) {
    const double bytes_wb = static_cast<double>(std::popcount(r.newly_dirty)) * sector_;
    wb_done = dram_.serve(at_l2, dram_cost(bytes_wb, true));
    c_.dram_write_bytes += static_cast<std::uint64_t>(bytes_wb);
    c_.bytes[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(bytes_wb);
  }
  const int hits = std::popcount(r.hit_sectors);
  c_.hits[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(write ? n : hits);
  double done = at_l2 + l2_lat_;
  if (write) {
    // A write covering only part of a sector that L2 does not hold must merge with the sector's
    // other bytes: L2 fetches it from HBM first.
    const std::uint32_t fetch = partial & r.miss_sectors;
    if (fetch) {
      const double fb = static_cast<double>(std::popcount(fetch)) * sector_;
      const double d = dram_.serve(at_l2, dram_cost(fb, false));
      c_.dram_read_bytes += static_cast<std::uint64_t>(fb);
      c_.bytes[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(fb);
      wb_done = std::max(wb_done, t + dram_lat_ + (at_l2 - t) + (d - at_l2));
    }
    return std::max(at_l2 + 0.5 * l2_lat_, wb_done);  // accepted once its HBM traffic is under way
  }
  if (r.miss_sectors) {
    const double miss_bytes = static_cast<double>(std::popcount(r.miss_sectors)) * sector_;
    const double d = dram_.serve(at_l2, dram_cost(miss_bytes, false));
    c_.dram_read_bytes += static_cast<std::uint64_t>(miss_bytes);
    c_.bytes[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(miss_bytes);
    c_.requests[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(std::popcount(r.miss_sectors));
    // unloaded: t + dram latency; under load the queueing at L2 and HBM adds on
    done = std::max(done, t + dram_lat_ + (at_l2 - t) + (d - at_l2));
  }
  (void)atomic;
  return done;
}

MemTiming NvMemorySystem::global(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes,
                                 Access kind) {
  // coalesce: lines, sector masks and bytes per sector, in first-touch order
  scratch_.clear();
  const std::uint64_t line_mask = ~static_cast<std::uint64_t>(line_ - 1);
  for (std::uint32_t m = mask; m;) {
    const int l = std::countr_zero(m);
    m &= m - 1;
    const std::uint64_t a = addrs[l];
    const std::uint64_t end = a + std::max<std::uint32_t>(bytes, 1);
    for (std::uint64_t x = a; x < end;) {
      const std::uint64_t line = x & line_mask;
      const std::uint32_t si = static_cast<std::uint32_t>((x - line) / sector_);
      const std::uint64_t sector_end = line + (si + 1) * sector_;
      const std::uint32_t n = static_cast<std::uint32_t>(std::min(end, sector_end) - x);
      LineReq* e = nullptr;
      for (auto& r : scratch_)
        if (r.line == line) { e = &r; break; }
      if (!e) {
        scratch_.push_back({line, 0, {0, 0, 0, 0}});
        e = &scratch_.back();
      }
      e->sectors |= 1u << si;
      e->bytes[si] = static_cast<std::uint8_t>(std::min<std::uint32_t>(255, e->bytes[si] + n));
      x += n;
    }
  }
  const bool is_load = kind == Access::Load || kind == Access::LoadBypassL1;
  const bool atomic = kind == Access::Atomic || kind == Access::AtomicFloat;
  SectorCache& l1 = l1_[static_cast<std::size_t>(sm)];
  std::uint32_t total_sectors = 0;
  for (const auto& e : scratch_) total_sectors += static_cast<std::uint32_t>(std::popcount(e.sectors));
  // the L1/TEX data path: tags per line, data per sector
  const double t1 = l1_bw_[static_cast<std::size_t>(sm)].serve(
      t, std::max<double>(static_cast<double>(total_sectors) * sector_, static_cast<double>(scratch_.size()) * line_ / 4.0));
  c_.requests[static_cast<int>(Level::L1)] += total_sectors;
  c_.bytes[static_cast<int>(Level::L1)] += static_cast<std::uint64_t>(total_sectors) * sector_;
  MemTiming mt{t1 + (is_load ? l1_lat_ : 0.0), t};
  for (const auto& e : scratch_) {
    std::uint32_t need = e.sectors;  // sectors that go beyond L1
    if (kind == Access::Load) {
      CacheResult r = l1.access(e.line, e.sectors, true, false);
      c_.hits[static_cast<int>(Level::L1)] += static_cast<std::uint64_t>(std::popcount(r.hit_sectors));
      need = r.miss_sectors;
    } else if (!is_load) {
      l1.invalidate(e.line);  // stores and atomics: write-through, no allocate
    }
    if (!need) continue;
    const double start = acquire_slot(sm, t);
    mt.accepted = std::max(mt.accepted, start);
    double done;
    if (is_load) {
      done = l2_access(start, e.line, need, false, false);
    } else if (kind == Access::Store) {
      std::uint32_t partial = 0;
      for (std::uint32_t k = 0; k < line_ / sector_; ++k)
        if ((need >> k & 1) && e.bytes[k] < sector_) partial |= 1u << k;
      done = l2_access(start, e.line, need, true, false, partial);
    } else {
      done = l2_access(start, e.line, need, false, true);
    }
    if (atomic) {
      // The L2 slice owning the line performs the operations: one request per 32-byte sector;
      // operations on the same address serialise in the slice's atomic unit.
      Server& unit = atomic_units_[static_cast<std::size_t>((e.line / line_) % atomic_units_.size())];
      const double per_same = kind == Access::AtomicFloat ? float_same_addr_cycles_ : same_addr_cycles_;
      for (std::uint32_t sm_ = need; sm_;) {
        const int sidx = std::countr_zero(sm_);
        sm_ &= sm_ - 1;
        const std::uint64_t lo = e.line + static_cast<std::uint64_t>(sidx) * sector_, hi = lo + sector_;
        int worst = 0;
        for (std::uint32_t m = mask; m;) {
          const int l = std::countr_zero(m);
          m &= m - 1;
          if (addrs[l] < lo || addrs[l] >= hi) continue;
          int same = 0;
          for (std::uint32_t m2 = mask; m2;) {
            const int l2 = std::countr_zero(m2);
            m2 &= m2 - 1;
            same += addrs[l2] == addrs[l];
          }
          worst = std::max(worst, same);
        }
        if (!worst) continue;
        const double cost = 1.0 + static_cast<double>(worst - 1) * per_same * unit.rate();
        done = std::max(done, unit.serve(start + atomic_lat_ * 0.5, cost) + atomic_lat_ * 0.5);
      }
    }
    release_slot(sm, done);
    mt.done = std::max(mt.done, done);
  }
  if (atomic) c_.atomics += static_cast<std::uint64_t>(std::popcount(mask));
  return mt;
}

double NvMemorySystem::shared(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, bool atomic) {
  // Wavefronts: for each bank, the number of distinct bank-width words it must deliver; wide
  // accesses (8/16 bytes per lane) are split into phases of 128 bytes.
  const std::uint32_t banks = static_cast<std::uint32_t>(dev_.shared.banks);
  const std::uint32_t width = static_cast<std::uint32_t>(dev_.shared.bank_width_bytes);
  const std::uint32_t words_per_lane = std::max<std::uint32_t>(1, bytes / width);
  const std::uint32_t lanes_per_phase = std::max<std::uint32_t>(1, 32 / words_per_lane);
  std::uint32_t wavefronts = 0;
  std::uint32_t ideal = 0;
  std::uint64_t words[32 * 4];
  for (std::uint32_t phase = 0; phase * lanes_per_phase < 32; ++phase) {
    std::uint32_t pm = mask & (lanes_per_phase >= 32 ? 0xffffffffu : (((1u << lanes_per_phase) - 1) << (phase * lanes_per_phase)));
    if (!pm) continue;
    ++ideal;
    // the words this phase touches, sorted so that duplicates (broadcasts) are adjacent
    int nw = 0;
    for (std::uint32_t m = pm; m;) {
      const int l = std::countr_zero(m);
      m &= m - 1;
      for (std::uint32_t k = 0; k < words_per_lane; ++k) words[nw++] = addrs[l] / width + k;
    }
    std::sort(words, words + nw);
    std::uint32_t per_bank[64] = {};
    std::uint32_t worst = 1;
    for (int i = 0; i < nw; ++i) {
      if (i > 0 && words[i] == words[i - 1] && !atomic) continue;  // broadcast; atomics to one word serialise
      worst = std::max(worst, ++per_bank[words[i] % banks]);
    }
    wavefronts += worst;
  }
  c_.shared_wavefronts += wavefronts;
  c_.shared_ideal_wavefronts += ideal;
  c_.requests[static_cast<int>(Level::Shared)] += wavefronts;
  c_.bytes[static_cast<int>(Level::Shared)] += static_cast<std::uint64_t>(std::popcount(mask)) * bytes;
  const double bytes_w = static_cast<double>(banks) * width;
  const double fin = smem_bw_[static_cast<std::size_t>(sm)].serve(t, static_cast<double>(wavefronts) * bytes_w);
  const double start = fin - static_cast<double>(wavefronts) * bytes_w / smem_bw_[static_cast<std::size_t>(sm)].rate();
  return start + smem_lat_ + static_cast<double>(wavefronts - ideal) * conflict_lat_;
}

double NvMemorySystem::shared_wavefronts(int sm, double t, std::uint32_t wavefronts) {
  c_.shared_wavefronts += wavefronts;
  c_.shared_ideal_wavefronts += wavefronts;
  c_.requests[static_cast<int>(Level::Shared)] += wavefronts;
  const double bytes = static_cast<double>(wavefronts) * dev_.shared.banks * dev_.shared.bank_width_bytes;
  c_.bytes[static_cast<int>(Level::Shared)] += static_cast<std::uint64_t>(bytes);
  return smem_bw_[static_cast<std::size_t>(sm)].serve(t, bytes) + smem_lat_;
}

}  // namespace kernsim::mem
