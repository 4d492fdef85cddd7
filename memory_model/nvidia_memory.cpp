// NVIDIA memory hierarchy timing; see nvidia_memory.h.
#include "memory_model/nvidia_memory.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kernsim::mem {

static_assert(SectorCache::kMaxSectors == device::kMaxSectorsPerLine, "the loader's limit is the sector cache's");

NvMemorySystem::NvMemorySystem(const device::DeviceSpec& d, int num_sms, std::uint64_t l1_bytes, double share)
    : dev_(d), hbm_cost_(d.dram) {
  sector_ = static_cast<std::uint32_t>(d.l1.sector_bytes);
  if (sector_ && (sector_ & (sector_ - 1)) == 0) sector_shift_ = std::countr_zero(sector_);
  line_ = static_cast<std::uint32_t>(d.l1.line_bytes);
  l1_lat_ = d.l1.hit_latency_cycles;
  l2_lat_ = d.l2.hit_latency_cycles;
  dram_lat_ = d.dram.latency_cycles;
  smem_lat_ = d.shared.latency_cycles;
  conflict_lat_ = d.shared.conflict_latency_cycles;
  // a slice sends its share of the operations to one address: each stands for 1/share of them
  same_addr_cycles_ = d.l2.atomic_same_address_cycles / share;
  float_same_addr_cycles_ = d.l2.atomic_float_same_address_cycles / share;
  atomic_lat_ = d.l2.atomic_latency_cycles;
  atomic_span_ = static_cast<std::uint64_t>(d.l2.atomic_unit_bytes > 0 ? d.l2.atomic_unit_bytes : d.l1.line_bytes);
  atomic_req_cycles_ = d.l2.atomic_request_cycles / share;
  pass_cycles_ = (d.l2.atomic_pass_cycles > 0 ? d.l2.atomic_pass_cycles : d.l2.atomic_same_address_cycles) / share;
  float_pass_cycles_ = (d.l2.atomic_float_pass_cycles > 0 ? d.l2.atomic_float_pass_cycles : d.l2.atomic_float_same_address_cycles) / share;
  burst_ = static_cast<std::uint32_t>(d.dram.access_bytes);
  const double peak_bytes_per_cycle = d.dram.bandwidth_gbps * 1e9 / (d.clocks.core_mhz * 1e6);
  dram_ = CalendarServer(peak_bytes_per_cycle * share);
  l2_ = CalendarServer(d.l2.bytes_per_cycle * share);
  if (d.l2.partitions > 1 && d.l2.cross_partition_bytes_per_cycle > 0) {
    partitions_ = static_cast<int>(d.l2.partitions);
    far_lat_ = d.l2.far_hit_latency_cycles;
    link_ = CalendarServer(d.l2.cross_partition_bytes_per_cycle * share);
    for (int p = 0; p < partitions_; ++p)
      near_.emplace_back(static_cast<std::uint64_t>(d.l2.bytes) / static_cast<std::uint64_t>(partitions_),
                         static_cast<std::uint32_t>(d.l2.line_bytes), static_cast<std::uint32_t>(d.l2.sector_bytes),
                         static_cast<std::uint32_t>(d.l2.ways));
  }
  num_sms_ = std::max(1, num_sms);
  // The L2 keeps its whole sets in a slice: data every CTA reads (a GEMM operand, a table, a
  // stencil's neighbours) must fit as it does on the chip. But the slice's fills stand for
  // 1/share of the chip's, so a line lasts share x capacity of them after its last use (on the
  // chip, a capacity of everyone's): a buffer the grid reads twice that does not fit the chip's
  // L2 misses the second time in the slice too, and the L2's size moves a sliced prediction.
  combine_lines_ = static_cast<std::uint32_t>(std::max<std::int64_t>(0, d.l1.store_combine_lines));
  // the L2 keeps at most l2.max_dirty_fraction of its capacity dirty (a slice: its share of that)
  const double dirty_fraction = d.l2.max_dirty_fraction > 0 ? d.l2.max_dirty_fraction : 1.0;
  max_dirty_lines_ = static_cast<std::uint64_t>(static_cast<double>(d.l2.bytes) * dirty_fraction * share) /
                     static_cast<std::uint64_t>(d.l2.line_bytes);
  if (share < 1.0) window_sectors_ = static_cast<std::uint64_t>(static_cast<double>(d.l2.bytes) * share) / static_cast<std::uint64_t>(d.l2.sector_bytes);
  l2c_ = SectorCache(static_cast<std::uint64_t>(d.l2.bytes), static_cast<std::uint32_t>(d.l2.line_bytes),
                     static_cast<std::uint32_t>(d.l2.sector_bytes), static_cast<std::uint32_t>(d.l2.ways));
  l2c_.set_use_window(window_sectors_);
  warps_per_sm_ = static_cast<std::size_t>(std::max<std::int64_t>(1, d.sm.max_warps));
  warp_seq_.assign(static_cast<std::size_t>(num_sms) * warps_per_sm_, 0);
  warp_fence_.assign(warp_seq_.size(), 0);
  bank_words_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, d.shared.banks)), 0);
  l1_.reserve(static_cast<std::size_t>(num_sms));
  const SectorCache::Index l1_index = d.l1.set_hash == "xor" ? SectorCache::Index::Xor : SectorCache::Index::Multiplicative;
  for (int i = 0; i < num_sms; ++i) {
    l1_.emplace_back(l1_bytes, line_, sector_, static_cast<std::uint32_t>(d.l1.ways), l1_index);
    l1_bw_.emplace_back(d.l1.bytes_per_cycle);
    smem_bw_.emplace_back(d.shared.bytes_per_cycle);
    port_.emplace_back(1.0);
    pending_.emplace_back();
    pending_next_.push_back(0);
  }
  atomic_units_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, d.l2.slices)), CalendarServer(d.l2.atomic_ops_per_cycle * share));
  atomic_chip_on_ = d.l2.atomic_chip_sectors_per_cycle > 0;
  if (atomic_chip_on_) atomic_chip_ = CalendarServer(d.l2.atomic_chip_sectors_per_cycle * share);
  addr_chains_.assign(atomic_units_.size() * kChainSlots, AddrChain{});
  unit_line_.assign(atomic_units_.size(), ~std::uint64_t{0});
  if (d.l2.slice_read_bytes_per_cycle > 0) {  // the slice's CTAs send a hot span's slice its share of the chip's reads
    slice_reads_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, d.l2.slices)), CalendarServer(d.l2.slice_read_bytes_per_cycle * share));
    slice_span_ = static_cast<std::uint64_t>(std::max<std::int64_t>(d.l2.line_bytes, d.l2.atomic_unit_bytes));
  }
  // The SM tracks a bounded number of line requests in flight beyond its L1 (MSHR-like).
  slots_.assign(static_cast<std::size_t>(num_sms), MissSlots(d.l1.max_outstanding_lines));
  if (d.l2.tpc_merge_window_cycles > 0 && d.topology.tpc_sms > 1) {
    tpc_window_ = d.l2.tpc_merge_window_cycles;
    tpc_sms_ = static_cast<int>(d.topology.tpc_sms);
    tpc_reads_.resize(static_cast<std::size_t>((num_sms + tpc_sms_ - 1) / tpc_sms_));
    tpc_prune_at_.assign(tpc_reads_.size(), 0);
  }
}

// SMs are numbered GPC by GPC, each GPC whole TPCs (the loader checks), so SMs tpc_sms_ x t ..
// of the slice form TPC t.
std::uint32_t NvMemorySystem::tpc_merge(int sm, double t, std::uint64_t line, std::uint32_t need, double& done) {
  if (tpc_window_ <= 0) return 0;
  auto& reads = tpc_reads_[static_cast<std::size_t>(sm / tpc_sms_)];
  const TpcRead* r = reads.find(line);
  if (!r || r->sm == sm || t - r->sent > tpc_window_ || t < r->sent) return 0;
  const std::uint32_t merged = need & r->sectors;
  // its data comes with the partner's, and no sooner than an L2 hit's
  if (merged) done = std::max(r->done, t + l2_lat_);
  return merged;
}

void NvMemorySystem::tpc_record(int sm, double t, std::uint64_t line, std::uint32_t sectors, double done) {
  if (tpc_window_ <= 0) return;
  const std::size_t tpc = static_cast<std::size_t>(sm / tpc_sms_);
  auto& reads = tpc_reads_[tpc];
  // Lines past the window go once the TPC holds tpc_prune_at_ lines (at least kPruneAt); a prune
  // that leaves many (a gather touching more lines than that within one window) doubles the
  // mark, so that the scan is paid once per that many reads, not on every read (spmv_scalar_500k
  // spent 84% of its 73 s there).
  constexpr std::size_t kPruneAt = 8192;
  std::size_t& prune_at = tpc_prune_at_[tpc];
  if (reads.size() >= std::max(kPruneAt, prune_at)) {
    reads.retain([&](const TpcRead& r) { return t - r.sent <= tpc_window_; });
    prune_at = 2 * reads.size();
  }
  reads.put(line, TpcRead{t, done, sm, sectors});
}

// HBM moves whole bursts: a lone 32-byte sector costs a full burst.
double NvMemorySystem::dram_bytes(std::uint32_t sectors) const {
  const std::uint32_t per_burst = std::max<std::uint32_t>(1, burst_ / sector_);
  std::uint32_t bursts = 0;
  for (std::uint32_t b = 0; b < line_ / sector_; b += per_burst) {
    const std::uint32_t group = ((1u << per_burst) - 1) << b;
    if (sectors & group) ++bursts;
  }
  return static_cast<double>(bursts) * std::max(burst_, sector_);
}

// The wait of a read at the HBM banks' queue at utilisation rho (M/D/1). The bandwidth calendar
// only delays requests once the bandwidth is used up; random arrivals queue before that, which
// is why latency climbs from ~70% load on (calibration/data/h200/loaded_latency.json). rho is
// the booked share of the HBM bandwidth over the last kQueueWindowLatencies unloaded latencies:
// the load a request meets, smoothed over the few round trips each warp makes in that time
// (a shorter window sees the simulated warps' synchronised bursts as overload).
double NvMemorySystem::dram_queue_wait(double t) const {
  constexpr double kQueueWindowLatencies = 4.0;
  const double s = dev_.dram.queue_service_cycles;
  if (s <= 0) return 0.0;
  const double rho = dram_.utilization(t, kQueueWindowLatencies * dram_lat_);
  if (rho >= 1.0) return dev_.dram.queue_max_cycles;
  return std::min(dev_.dram.queue_max_cycles, s * rho / (2.0 * (1.0 - rho)));
}

// The HBM latency of the line's aligned block: latency_cycles (the mean) through the quantile
// function at a fixed hash of the block, so every run and every line of a block sees the same.
double NvMemorySystem::dram_latency(std::uint64_t line) const {
  const auto& q = dev_.dram.latency_quantiles_permille;
  if (q.size() != 5) return dram_lat_;
  std::uint64_t x = line / static_cast<std::uint64_t>(dev_.dram.latency_granule_bytes) + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  const double u = static_cast<double>(x >> 11) * 0x1.0p-53;
  constexpr double kAt[5] = {0.0, 0.1, 0.5, 0.9, 1.0};
  int i = 0;
  while (i < 3 && u > kAt[i + 1]) ++i;
  const double f = (u - kAt[i]) / (kAt[i + 1] - kAt[i]);
  const double permille = static_cast<double>(q[static_cast<std::size_t>(i)]) +
                          f * static_cast<double>(q[static_cast<std::size_t>(i) + 1] - q[static_cast<std::size_t>(i)]);
  return dram_lat_ * permille / 1000.0;
}

double NvMemorySystem::evictions(double t, const CacheResult& r) {
  // The L2 is write-back: a dirty line goes to HBM when it is evicted, in whole bursts; a
  // sector written only in part must first be read there (read-modify-write).
  const std::uint32_t written = r.evicted_dirty | r.evicted_partial;
  if (!written) return t;
  if (r.evicted_partial) {
    dram_.serve(t, hbm_cost_(dram_bytes(r.evicted_partial), false));
    c_.dram_read_bytes += static_cast<std::uint64_t>(std::popcount(r.evicted_partial)) * sector_;
  }
  c_.dram_write_bytes += static_cast<std::uint64_t>(std::popcount(written)) * sector_;
  return dram_.serve(t, hbm_cost_(dram_bytes(written), true));
}

// The sectors of a read that hit in the L2 but not in the SM's own partition (they come from the
// other partition); the line is near for the SM's partition afterwards.
std::uint32_t NvMemorySystem::far_sectors(int sm, std::uint64_t line, std::uint32_t mask, std::uint32_t l2_hits) {
  if (partitions_ < 2) return 0;
  return l2_hits & near_[static_cast<std::size_t>(partition_of(sm))].read(line, mask, true).miss_sectors;
}

// A write: the line is the writer's partition's, the other partitions' copies are stale.
void NvMemorySystem::near_write(int sm, std::uint64_t line, std::uint32_t mask) {
  if (partitions_ < 2) return;
  const int p = partition_of(sm);
  for (int q = 0; q < partitions_; ++q)
    if (q == p)
      near_[static_cast<std::size_t>(q)].read(line, mask, true);
    else
      near_[static_cast<std::size_t>(q)].invalidate(line);
}

double NvMemorySystem::l2_read(int sm, double t, std::uint64_t line, std::uint32_t mask) {
  const int n = std::popcount(mask);
  const double bytes = static_cast<double>(n) * sector_;
  c_.requests[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(n);
  c_.bytes[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(bytes);
  CacheResult r = l2c_.read(line, mask, true);
  const std::uint32_t far = far_sectors(sm, line, mask, r.hit_sectors);
  const double lat = far ? far_lat_ : l2_lat_;
  last_read_latency_ = lat;
  if (far) {  // the other partition's copy crosses the link
    const double far_bytes = static_cast<double>(std::popcount(far)) * sector_;
    c_.far_l2_bytes += static_cast<std::uint64_t>(far_bytes);
    t = link_.serve(t, far_bytes);
  }
  const double cost = (static_cast<double>(n) + dev_.l2.read_request_overhead) * sector_;
  double at_l2 = l2_.serve(t, cost);
  if (!slice_reads_.empty())  // and its slice's own rate (l2.slice_read_bytes_per_cycle)
    at_l2 = std::max(at_l2, slice_reads_[static_cast<std::size_t>((line / slice_span_) % slice_reads_.size())].serve(t, cost));
  evictions(at_l2, r);
  evict_start_dirty(at_l2, r.miss_sectors);
  fills_ += static_cast<std::uint64_t>(std::popcount(r.miss_sectors));
  retire_dirty(at_l2, ~std::uint64_t{0});
  c_.hits[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(std::popcount(r.hit_sectors));
  double done = at_l2 + lat;
  if (r.hit_sectors) done = std::max(done, r.ready);  // a fill still on its way
  if (r.miss_sectors) {
    const double miss_bytes = static_cast<double>(std::popcount(r.miss_sectors)) * sector_;
    const double d = dram_.serve(at_l2, hbm_cost_(dram_bytes(r.miss_sectors), false));
    c_.dram_read_bytes += static_cast<std::uint64_t>(miss_bytes);
    c_.bytes[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(miss_bytes);
    c_.requests[static_cast<int>(Level::Dram)] += static_cast<std::uint64_t>(std::popcount(r.miss_sectors));
    // unloaded: t + HBM latency; under load the queueing at L2 and HBM adds on
    done = std::max(done, t + dram_latency(line) + (at_l2 - t) + (d - at_l2) + dram_queue_wait(at_l2));
    l2c_.set_ready(line, r.miss_sectors, done);
  }
  return done;
}

double NvMemorySystem::shared_busy_cycles() const {
  double b = std::max({l2_.busy_cycles(), dram_.busy_cycles(), link_.busy_cycles()});
  for (const auto& u : atomic_units_) b = std::max(b, u.busy_cycles());
  b = std::max(b, atomic_chip_.busy_cycles());
  b = std::max(b, chain_busy_);
  return b;
}

std::pair<double, double> NvMemorySystem::l2_write(int sm, double t, std::uint64_t line, std::uint32_t mask,
                                                   const std::uint32_t* words, std::uint32_t charged, bool merged) {
  const int n = std::popcount(charged);
  const double bytes = static_cast<double>(n) * sector_;
  near_write(sm, line, mask);
  c_.requests[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(n);
  c_.hits[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(n);
  c_.bytes[static_cast<int>(Level::L2)] += static_cast<std::uint64_t>(bytes);
  // writes cost more L2 throughput than reads, and a sector written only in part (merged by
  // word mask) more than a whole one
  double cost = merged ? 0.0 : dev_.l2.write_request_overhead;
  const std::uint32_t full = sector_ >= 128 ? 0xffffffffu : ((1u << (sector_ / 4)) - 1);
  for (std::uint32_t s = 0; s < line_ / sector_; ++s)
    if (charged >> s & 1) cost += (!words || (words[s] & full) == full) ? dev_.l2.write_sector_cost : dev_.l2.partial_write_sector_cost;
  const double at_l2 = l2_.serve(t, cost * sector_);
  // Writes merge into L2 sectors by word mask: no fetch.
  CacheResult r = l2c_.write(line, mask, words);
  double evicted = std::max(evictions(at_l2, r), evict_start_dirty(at_l2, r.miss_sectors));
  fills_ += static_cast<std::uint64_t>(std::popcount(r.miss_sectors));
  if (r.newly_dirty) dirty_lines_.push_back({line, fills_});
  evicted = std::max(evicted, retire_dirty(at_l2, line));
  // accepted once the slice has taken the data and the acknowledgement is back; the data stays
  // dirty in L2 until evicted. Done once the line it displaced is written back: when L2 must
  // evict dirty data to take new writes, HBM paces the stores.
  const double accepted = at_l2 + 0.5 * l2_lat_;
  return {accepted, std::max(accepted, evicted)};
}

void NvMemorySystem::start_dirty() {
  start_dirty_sectors_ = max_dirty_lines_ * (line_ / sector_);
}

// The LRU evicts the flush's lines before any of the launch's (they are older), one per sector
// filled, until none is left: whole dirty sectors, written back in full bursts.
double NvMemorySystem::evict_start_dirty(double t, std::uint32_t filled) {
  if (!start_dirty_sectors_ || !filled) return t;
  const std::uint64_t n = std::min<std::uint64_t>(start_dirty_sectors_, static_cast<std::uint64_t>(std::popcount(filled)));
  start_dirty_sectors_ -= n;
  const double bytes = static_cast<double>(n * sector_);
  c_.dram_write_bytes += n * sector_;
  return dram_.serve(t, hbm_cost_(bytes, true));
}

double NvMemorySystem::retire_dirty(double t, std::uint64_t keep) {
  double done = t;
  while (!dirty_lines_.empty() && (dirty_lines_.size() > max_dirty_lines_ ||
                                   (window_sectors_ && fills_ - dirty_lines_.front().second > window_sectors_))) {
    const std::uint64_t old = dirty_lines_.front().first;
    dirty_lines_.pop_front();
    if (old != keep) done = std::max(done, evictions(t, l2c_.clean(old)));
  }
  return done;
}

void NvMemorySystem::warm(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes) {
  // Present and clean, written or read: the write-back of the warm-up's stores is the rest of
  // the chip's business, not the slice's. The lanes' lines and sectors are recorded in lane
  // order, a use of the line recorded just before merged into it (the same order of last uses).
  const std::uint64_t line_mask = ~static_cast<std::uint64_t>(line_ - 1);
  std::uint64_t cur = warm_cta_.empty() ? ~std::uint64_t{0} : warm_cta_.back().first;
  std::uint32_t cur_sectors = 0;  // sectors to add to `cur`
  auto add = [&](std::uint64_t line, std::uint32_t sectors) {
    if (line == cur) {
      cur_sectors |= sectors;
      return;
    }
    if (cur_sectors) warm_cta_.back().second |= cur_sectors;
    warm_cta_.push_back({line, sectors});
    cur = line;
    cur_sectors = 0;
  };
  if (sector_shift_ >= 0 && bytes <= sector_ && (bytes & (bytes - 1)) == 0) {
    // an aligned access of at most a sector (every load and store) touches one sector
    const std::uint32_t sector_mask = line_ / sector_ - 1;
    for (std::uint32_t m = mask; m; m &= m - 1) {
      const std::uint64_t a = addrs[std::countr_zero(m)];
      add(a & line_mask, 1u << (static_cast<std::uint32_t>(a >> sector_shift_) & sector_mask));
    }
  } else {
    for (std::uint32_t m = mask; m; m &= m - 1) {
      const std::uint64_t a = addrs[std::countr_zero(m)], line = a & line_mask;
      const std::uint32_t s0 = sector_of(a - line);
      const std::uint32_t s1 = sector_of(std::min(a + std::max<std::uint32_t>(bytes, 1), line + line_) - 1 - line);
      std::uint32_t sectors = 0;
      for (std::uint32_t s = s0; s <= s1; ++s) sectors |= 1u << s;
      add(line, sectors);
    }
  }
  if (cur_sectors) warm_cta_.back().second |= cur_sectors;
}

bool NvMemorySystem::warm_cta_done() {
  if (!warm_fill_) warm_fill_ = std::make_unique<SectorCache::Backfill>(l2c_);
  for (auto it = warm_cta_.rbegin(); it != warm_cta_.rend() && !warm_fill_->full(); ++it) warm_fill_->use(it->first, it->second);
  warm_cta_.clear();
  return warm_fill_->full();
}

void NvMemorySystem::warm_finish() {
  if (!warm_cta_.empty()) warm_cta_done();
  if (warm_fill_) warm_fill_->commit();  // ready at time 0, as allocated
  warm_fill_.reset();
}

void NvMemorySystem::set_cta_layout(int warps_per_cta, std::uint64_t chip_wave_ctas) {
  if (!window_sectors_ || warps_per_cta <= 0 || !chip_wave_ctas) return;
  warps_per_cta_ = warps_per_cta;
  slots_per_sm_ = (warps_per_sm_ + static_cast<std::size_t>(warps_per_cta) - 1) / static_cast<std::size_t>(warps_per_cta);
  slot_cta_.assign(static_cast<std::size_t>(num_sms_) * slots_per_sm_, SectorCache::kNoCta);
  l2c_.set_chip_wave(chip_wave_ctas);
}

void NvMemorySystem::cta_started(int sm, int slot, std::uint64_t cta) {
  if (!warps_per_cta_ || slot < 0 || static_cast<std::size_t>(slot) >= slots_per_sm_) return;
  slot_cta_[static_cast<std::size_t>(sm) * slots_per_sm_ + static_cast<std::size_t>(slot)] = cta;
  l2c_.cta_started(cta);
}

// A scattered access: its lines' lookups miss the host's cache together rather than one after
// another. First the sets' tags and stamps (L1, L2) and the TPC table's slots; then, once those
// have had a loop's time to arrive, the ways the lookups will read or take.
void NvMemorySystem::prefetch_lookups(const SectorCache& l1, bool l1_reads, int tpc_sm) const {
  const LineTable<TpcRead>* tpc = tpc_sm >= 0 ? &tpc_reads_[static_cast<std::size_t>(tpc_sm / tpc_sms_)] : nullptr;
  for (const auto& e : scratch_) {
    if (l1_reads) l1.prefetch(e.line);
    l2c_.prefetch(e.line);
    if (tpc) tpc->prefetch(e.line);
  }
  for (const auto& e : scratch_) {
    if (l1_reads) l1.prefetch_way(e.line);
    l2c_.prefetch_way(e.line);
  }
}

// Coalescing: the lines a warp's access touches, each line's sectors and each sector's 4-byte
// words, in first-touch order (scratch_). A full warp whose lanes take consecutive elements
// touches one byte range, and the range is taken whole: the same lines, in the same order, as
// lane by lane.
void NvMemorySystem::coalesce(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes) {
  scratch_.clear();
  const std::uint64_t line_mask = ~static_cast<std::uint64_t>(line_ - 1);
  auto touch = [&](std::uint64_t a, std::uint64_t end) {
    for (std::uint64_t x = a; x < end;) {
      const std::uint64_t line = x & line_mask;
      const std::uint32_t si = sector_of(x - line);
      const std::uint64_t sector_base = line + static_cast<std::uint64_t>(si) * sector_;
      const std::uint64_t stop = std::min(end, sector_base + sector_);
      LineReq* e = nullptr;
      for (auto& r : scratch_)
        if (r.line == line) { e = &r; break; }
      if (!e) {
        scratch_.push_back({line, 0, {}});
        e = &scratch_.back();
      }
      e->sectors |= 1u << si;
      const std::uint32_t w0 = static_cast<std::uint32_t>((x - sector_base) / 4), w1 = static_cast<std::uint32_t>((stop - 1 - sector_base) / 4);
      if (w0 <= w1 && w0 < 32) {  // words w0..w1 (at most 31) at once
        const std::uint32_t hi = w1 >= 31 ? 0xffffffffu : (2u << w1) - 1u;
        e->words[si] |= hi & ~((1u << w0) - 1u);
      }
      x = stop;
    }
  };
  if (mask == 0xffffffffu && bytes > 0) {
    bool consecutive = true;
    for (std::uint32_t l = 1; l < 32; ++l) consecutive &= addrs[l] == addrs[0] + static_cast<std::uint64_t>(l) * bytes;
    if (consecutive) return touch(addrs[0], addrs[0] + 32ull * bytes);
  }
  for (std::uint32_t m = mask; m;) {
    const int l = std::countr_zero(m);
    m &= m - 1;
    touch(addrs[l], addrs[l] + std::max<std::uint32_t>(bytes, 1));
  }
}

MemTiming NvMemorySystem::global(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes,
                                 Access kind, int warp) {
  if (warps_per_cta_) {
    const std::size_t slot = warp >= 0 ? static_cast<std::size_t>(warp / warps_per_cta_) : slots_per_sm_;
    l2c_.set_user(slot < slots_per_sm_ ? slot_cta_[static_cast<std::size_t>(sm) * slots_per_sm_ + slot] : SectorCache::kNoCta);
  }
  coalesce(addrs, mask, bytes);
  const bool is_load = kind == Access::Load || kind == Access::LoadBypassL1;
  const bool atomic = kind == Access::Atomic || kind == Access::AtomicFloat;
  if (kind != Access::Store && warp >= 0) {  // the warp's pending stores no longer take data
    const std::size_t w = static_cast<std::size_t>(sm) * warps_per_sm_ + static_cast<std::size_t>(warp) % warps_per_sm_;
    warp_fence_[w] = warp_seq_[w];
  }
  SectorCache& l1 = l1_[static_cast<std::size_t>(sm)];
  if (scratch_.size() > 1) prefetch_lookups(l1, kind == Access::Load, tpc_window_ > 0 && is_load ? sm : -1);
  const std::uint32_t full_words = sector_ >= 128 ? 0xffffffffu : ((1u << (sector_ / 4)) - 1);
  std::uint32_t total_sectors = 0;
  for (const auto& e : scratch_) total_sectors += static_cast<std::uint32_t>(std::popcount(e.sectors));
  last_units_ = total_sectors;
  // the L1/TEX pipeline: tag lookups per line (l1.lines_per_cycle), data per sector
  const double tag_bytes = static_cast<double>(scratch_.size()) * dev_.l1.bytes_per_cycle / dev_.l1.lines_per_cycle;
  const double t1 = l1_bw_[static_cast<std::size_t>(sm)].serve(t, std::max<double>(static_cast<double>(total_sectors) * sector_, tag_bytes));
  c_.requests[static_cast<int>(Level::L1)] += total_sectors;
  c_.bytes[static_cast<int>(Level::L1)] += static_cast<std::uint64_t>(total_sectors) * sector_;
  MemTiming mt{t1 + (is_load ? l1_lat_ : 0.0), t};
  for (const auto& e : scratch_) {
    std::uint32_t need = e.sectors;  // sectors that go beyond L1
    if (kind == Access::Load) {
      CacheResult r = l1.read(e.line, e.sectors, true);
      c_.hits[static_cast<int>(Level::L1)] += static_cast<std::uint64_t>(std::popcount(r.hit_sectors));
      if (r.hit_sectors) mt.done = std::max(mt.done, r.ready);  // hit on a fill still in flight
      need = r.miss_sectors;
    } else if (!is_load) {
      l1.invalidate(e.line);  // stores and atomics: write-through, no allocate
    }
    if (!need) continue;
    mt.past_l1 = true;
    auto sector_cost = [&](std::uint32_t sectors) {
      double c = 0;
      for (std::uint32_t s = 0; s < line_ / sector_; ++s)
        if (sectors >> s & 1) c += (e.words[s] & full_words) == full_words ? dev_.l1.store_sector_cycles : dev_.l1.store_partial_sector_cycles;
      return c;
    };
    if (kind == Access::Store) {
      // A store to a line among the same warp's last few store requests joins that request
      // (write combining of back-to-back stores, e.g. the fields of an array of structs): no
      // new request, only the data of sectors it did not carry. The combining buffer holds
      // l1.store_combine_lines lines, and a load of the warp in between sends them on: clang's
      // float4 copy as two 8-byte load/store pairs stores to the same 4 lines twice, one L1-hit
      // load apart, and the H200's L2 sees two requests (11.5 M write sectors against 6.3 M for
      // the same bytes stored once, 3.14 M requests against 2.10 M: ncu_metrics.csv), while five
      // back-to-back stores to 5 lines each combine (warp_shuffles: 1.3 requests per line).
      PendingStore* p = nullptr;
      if (warp >= 0) {
        const std::size_t w = static_cast<std::size_t>(sm) * warps_per_sm_ + static_cast<std::size_t>(warp) % warps_per_sm_;
        const std::uint32_t seq = warp_seq_[w], fence = warp_fence_[w];
        for (auto& q : pending_[static_cast<std::size_t>(sm)])
          if (q.line == e.line && q.warp == warp && seq - q.seq < combine_lines_ && q.seq - fence - 1 < seq - fence) p = &q;
      }
      if (p) {
        const std::uint32_t fresh = need & ~p->sectors;
        if (fresh) port_[static_cast<std::size_t>(sm)].serve(t, sector_cost(fresh));
        p->sectors |= need;
        const auto [accepted, written] = l2_write(sm, p->send, e.line, need, e.words, fresh, true);
        (void)accepted;
        mt.accepted = std::max(mt.accepted, t);
        mt.done = std::max(mt.done, written);
        continue;
      }
    }
    // a miss slot, then the SM's port to L2: a request, and a store's data sector by sector
    const double slot = slots_[static_cast<std::size_t>(sm)].acquire(t);
    const double port = dev_.l1.miss_request_cycles + (kind == Access::Store ? sector_cost(need) : 0.0);
    const double start = port_[static_cast<std::size_t>(sm)].serve(slot, port);
    mt.accepted = std::max(mt.accepted, slot);  // queued for the port: the warp may go on
    double done;
    if (kind == Access::Store) {
      auto& ring = pending_[static_cast<std::size_t>(sm)];
      std::uint32_t seq = 0;
      if (warp >= 0) seq = ++warp_seq_[static_cast<std::size_t>(sm) * warps_per_sm_ + static_cast<std::size_t>(warp) % warps_per_sm_];
      ring[pending_next_[static_cast<std::size_t>(sm)]++ % ring.size()] = PendingStore{e.line, start, warp, need, seq};
      const auto [accepted, written] = l2_write(sm, start, e.line, need, e.words, need, false);
      slots_[static_cast<std::size_t>(sm)].release(accepted);  // a posted write frees its slot once L2 has it
      mt.done = std::max(mt.done, written);
      continue;
    }
    double merged_done = start;
    const std::uint32_t merged = is_load ? tpc_merge(sm, start, e.line, need, merged_done) : 0;
    c_.tpc_merged_sectors += static_cast<std::uint64_t>(std::popcount(merged));
    done = merged_done;
    if (need & ~merged) {
      const double own = l2_read(sm, start, e.line, need & ~merged);
      if (is_load) tpc_record(sm, start, e.line, need & ~merged, own);
      done = std::max(done, own);
    }
    if (kind == Access::Load) l1.set_ready(e.line, need, done);
    if (atomic) {
      // the L2 slice owning the line performs the operations once the data is there (atomic_at_unit)
      const double lat = last_read_latency_;
      const double in_l2 = std::max(start, done - lat);
      done = std::max(done, l2_write(sm, in_l2, e.line, need, nullptr, need, false).second - 0.5 * lat);
      done = std::max(done, atomic_at_unit(in_l2 + atomic_lat_ * 0.5, e.line, need, addrs, mask, kind == Access::AtomicFloat) +
                                atomic_lat_ * 0.5);
    }
    slots_[static_cast<std::size_t>(sm)].release(done);
    mt.done = std::max(mt.done, done);
  }
  if (atomic) c_.atomics += static_cast<std::uint64_t>(std::popcount(mask));
  return mt;
}

// The L2 slice owning the line performs the operations once the data is there. A slice's atomic
// unit owns aligned spans of l2.atomic_unit_bytes (several lines on the H200): lines in one span
// share its time. The unit makes one pass per 32-byte sector for the sector's distinct addresses
// (l2.atomic_ops_per_cycle) and a further pass for each further operation on an address
// (l2.atomic_*pass_cycles); the first passes of a request to another line than the unit's previous
// one take at least l2.atomic_request_cycles (a unit alternating between lines is slower than one
// kept on a line). Operations on one
// address follow each other by l2.atomic_*same_address_cycles, across requests too, while the
// unit serves other addresses in between (atomic_units.cu on the H100: four same-address lanes
// on each of 8 lines run at 2 cycles an f32 operation per unit, one address alone at 3.48).
// Together the units serve at most l2.atomic_chip_sectors_per_cycle sectors a cycle (distinct lines
// over the whole chip: 40.7 on the H100).
double NvMemorySystem::atomic_at_unit(double arrive, std::uint64_t line, std::uint32_t need, const std::uint64_t* addrs,
                                      std::uint32_t mask, bool is_float) {
  const std::size_t ui = static_cast<std::size_t>((line / atomic_span_) % atomic_units_.size());
  CalendarServer& unit = atomic_units_[ui];
  const double chain = is_float ? float_same_addr_cycles_ : same_addr_cycles_;
  const double pass = is_float ? float_pass_cycles_ : pass_cycles_;
  // the request's lanes in this line: each address's first lane counts the lanes on it
  int count[32] = {};
  std::uint32_t sector_worst[32] = {};
  for (std::uint32_t m = mask; m;) {
    const int l = std::countr_zero(m);
    m &= m - 1;
    if (addrs[l] < line || addrs[l] >= line + line_ || !(need >> sector_of(addrs[l] - line) & 1)) continue;
    int first = l;
    for (std::uint32_t m2 = mask & ((1u << l) - 1); m2;) {
      const int l2 = std::countr_zero(m2);
      m2 &= m2 - 1;
      if (addrs[l2] == addrs[l]) {
        first = l2;
        break;
      }
    }
    const std::uint32_t s = sector_of(addrs[l] - line);
    sector_worst[s] = std::max<std::uint32_t>(sector_worst[s], static_cast<std::uint32_t>(++count[first]));
  }
  double passes = 0, further = 0, sectors = 0;  // the sectors' first passes; the further same-address passes
  for (std::uint32_t s = 0; s < line_ / sector_ && s < 32; ++s)
    if (sector_worst[s]) {
      passes += 1.0 / unit.rate();
      further += static_cast<double>(sector_worst[s] - 1) * pass;
      sectors += 1;
    }
  const bool other_line = unit_line_[ui] != line;  // the unit's previous request was to another line
  unit_line_[ui] = line;
  double fin = unit.serve(arrive, (std::max(passes, other_line ? atomic_req_cycles_ : 0.0) + further) * unit.rate());
  if (atomic_chip_on_) fin = std::max(fin, atomic_chip_.serve(arrive, sectors));  // the chip-wide sector rate
  for (std::uint32_t m = mask; m;) {
    const int l = std::countr_zero(m);
    m &= m - 1;
    if (!count[l]) continue;
    AddrChain& c = addr_chains_[ui * kChainSlots + static_cast<std::size_t>((addrs[l] >> 2) % kChainSlots)];
    if (c.addr != addrs[l]) c = AddrChain{addrs[l], 0.0, 0.0};
    const double from = std::max(c.ready, arrive);
    c.ready = from + static_cast<double>(count[l]) * chain;
    c.busy += static_cast<double>(count[l]) * chain;
    chain_busy_ = std::max(chain_busy_, c.busy);  // one address's chain is a chip-wide resource too
    fin = std::max(fin, c.ready);
  }
  return fin;
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
  // a phase's lanes x their words: at most max(32, words_per_lane) (a lane alone in its phase)
  if (phase_words_.size() < std::size_t{32} * words_per_lane) phase_words_.resize(std::size_t{32} * words_per_lane);
  std::uint64_t* words = phase_words_.data();
  std::uint32_t* per_bank = bank_words_.data();  // shared.banks entries
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
    std::fill(per_bank, per_bank + banks, 0u);
    std::uint32_t worst = 1;
    for (int i = 0; i < nw; ++i) {
      if (i > 0 && words[i] == words[i - 1] && !atomic) continue;  // broadcast; atomics to one word serialise
      worst = std::max(worst, ++per_bank[words[i] % banks]);
    }
    wavefronts += worst;
  }
  last_units_ = wavefronts;
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
