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
  // HBM: reads stream at read_efficiency of peak; a copy (half reads, half writes) at
  // copy_efficiency; so a written byte costs 2/copy - 1/read units of peak bandwidth.
  read_cost_ = 1.0 / d.dram.read_efficiency;
  write_cost_ = std::max(read_cost_, 2.0 / d.dram.copy_efficiency - read_cost_);
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
}

void NvMemorySystem::write_back(double t, std::uint32_t sectors) {
  if (!sectors) return;
  const double bytes = static_cast<double>(sectors) * sector_;
  dram_.serve(t, bytes * write_cost_);
  c_.dram_write_bytes += static_cast<std::uint64_t>(bytes);
  c_.bytes[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(bytes);
}

double NvMemorySystem::l2_access(double t, std::uint64_t line, std::uint32_t mask, bool write, bool atomic) {
  const int n = std::popcount(mask);
  const double bytes = static_cast<double>(n) * sector_;
  c_.requests[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(n);
  c_.bytes[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(bytes);
  const double at_l2 = l2_.serve(t, bytes);
  // Writes allocate in L2 without fetching (full-sector writes; byte masks cover partial ones).
  CacheResult r = l2c_.access(line, mask, true, write || atomic);
  write_back(at_l2, r.dirty_evicted);
  const int hits = std::popcount(r.hit_sectors);
  c_.hits[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(write ? n : hits);
  double done = at_l2 + l2_lat_;
  if (!write && r.miss_sectors) {
    const double miss_bytes = static_cast<double>(std::popcount(r.miss_sectors)) * sector_;
    const double d = dram_.serve(at_l2, miss_bytes * read_cost_);
    c_.dram_read_bytes += static_cast<std::uint64_t>(miss_bytes);
    c_.bytes[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(miss_bytes);
    c_.requests[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(std::popcount(r.miss_sectors));
    // unloaded: t + dram latency; under load the queueing at L2 and HBM adds on
    done = std::max(done, t + dram_lat_ + (at_l2 - t) + (d - at_l2));
  }
  (void)atomic;
  return done;
}

double NvMemorySystem::global(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes,
                              Access kind) {
  // coalesce: lines and sector masks, in first-touch order
  scratch_.clear();
  const std::uint64_t line_mask = ~static_cast<std::uint64_t>(line_ - 1);
  for (std::uint32_t m = mask; m;) {
    const int l = std::countr_zero(m);
    m &= m - 1;
    const std::uint64_t a = addrs[l];
    const std::uint64_t end = a + std::max<std::uint32_t>(bytes, 1) - 1;
    for (std::uint64_t x = a & ~static_cast<std::uint64_t>(sector_ - 1); x <= end; x += sector_) {
      const std::uint64_t line = x & line_mask;
      const std::uint32_t bit = 1u << ((x - line) / sector_);
      bool found = false;
      for (auto& e : scratch_)
        if (e.first == line) { e.second |= bit; found = true; break; }
      if (!found) scratch_.push_back({line, bit});
    }
  }
  const bool is_load = kind == Access::Load || kind == Access::LoadBypassL1;
  SectorCache& l1 = l1_[static_cast<std::size_t>(sm)];
  std::uint32_t total_sectors = 0;
  for (const auto& e : scratch_) total_sectors += static_cast<std::uint32_t>(std::popcount(e.second));
  // the L1/TEX data path: tags per line, data per sector
  const double t1 = l1_bw_[static_cast<std::size_t>(sm)].serve(
      t, std::max<double>(static_cast<double>(total_sectors) * sector_, static_cast<double>(scratch_.size()) * line_ / 4.0));
  c_.requests[static_cast<int>(Level::L1)] += total_sectors;
  c_.bytes[static_cast<int>(Level::L1)] += static_cast<std::uint64_t>(total_sectors) * sector_;
  double done = t1 + (is_load ? l1_lat_ : 0.0);
  for (const auto& [line, sectors] : scratch_) {
    if (kind == Access::Load) {
      CacheResult r = l1.access(line, sectors, true, false);
      c_.hits[static_cast<int>(Level::L1)] += static_cast<std::uint64_t>(std::popcount(r.hit_sectors));
      if (r.miss_sectors) done = std::max(done, l2_access(t, line, r.miss_sectors, false, false));
    } else if (kind == Access::LoadBypassL1) {
      done = std::max(done, l2_access(t, line, sectors, false, false));
    } else if (kind == Access::Store) {
      l1.invalidate(line);  // write-through, no allocate
      l2_access(t, line, sectors, true, false);
    } else {  // atomic: performed at the L2 slice owning the line
      l1.invalidate(line);
      const double at = l2_access(t, line, sectors, false, true);
      done = std::max(done, at);
    }
  }
  if (kind == Access::Atomic) {
    // same-address operations serialise in the slice's atomic unit; distinct addresses of one
    // instruction are processed per sector
    c_.atomics += static_cast<std::uint64_t>(std::popcount(mask));
    std::vector<std::pair<std::uint64_t, int>> per_addr;
    for (std::uint32_t m = mask; m;) {
      const int l = std::countr_zero(m);
      m &= m - 1;
      bool f = false;
      for (auto& e : per_addr)
        if (e.first == addrs[l]) { ++e.second; f = true; break; }
      if (!f) per_addr.push_back({addrs[l], 1});
    }
    for (const auto& [a, n] : per_addr) {
      const std::uint64_t line = a & line_mask;
      Server& unit = atomic_units_[static_cast<std::size_t>((line / line_) % atomic_units_.size())];
      const double fin = unit.serve(t + l2_lat_ * 0.5, static_cast<double>(n)) + l2_lat_ * 0.5;
      done = std::max(done, fin);
    }
  }
  return is_load || kind == Access::Atomic ? done : t1;
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
  const double fin = smem_bw_[static_cast<std::size_t>(sm)].serve(t, static_cast<double>(wavefronts) * banks * width);
  return fin + smem_lat_;
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
