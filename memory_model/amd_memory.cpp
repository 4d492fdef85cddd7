// AMD CDNA3/CDNA4 memory hierarchy timing; see amd_memory.h.
#include "memory_model/amd_memory.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <unordered_map>

#include "base/error.h"

namespace kernsim::mem {

namespace {
constexpr int lvl(Level l) { return static_cast<int>(l); }
}  // namespace

AmdMemorySystem::AmdMemorySystem(const device::DeviceSpec& d, int num_cus, int cus_per_xcd, double share)
    : dev_(d), hbm_cost_(d.dram) {
  cus_per_xcd_ = std::max(1, cus_per_xcd);
  xcds_ = std::max(1, (num_cus + cus_per_xcd_ - 1) / cus_per_xcd_);
  channels_ = static_cast<int>(std::max<std::int64_t>(1, d.l2.slices));
  line_ = static_cast<std::uint32_t>(d.l2.line_bytes);
  if (d.l1.line_bytes != d.l2.line_bytes || line_ == 0 || line_ > 128 || (line_ & (line_ - 1)))
    throw Error(ErrorKind::DeviceFile, d.file.string() + ": the AMD memory model needs l1.line_bytes = l2.line_bytes, a power of two " +
                                           "of at most 128 bytes (got " + std::to_string(d.l1.line_bytes) + " and " +
                                           std::to_string(d.l2.line_bytes) + ")");
  full_words_ = line_ >= 128 ? 0xffffffffu : ((1u << (line_ / 4)) - 1);
  l1_lat_ = d.l1.hit_latency_cycles;
  l2_lat_ = d.l2.hit_latency_cycles;
  mall_lat_ = d.mall.hit_latency_cycles;
  dram_lat_ = d.dram.latency_cycles;
  lds_lat_ = d.shared.latency_cycles;
  lds_conflict_lat_ = d.shared.conflict_latency_cycles;
  atomic_lat_ = d.l2.atomic_latency_cycles;
  // a slice sends its share of the operations to one address: each stands for 1/share of them
  same_addr_cycles_ = d.l2.atomic_same_address_cycles / share;
  float_same_addr_cycles_ = d.l2.atomic_float_same_address_cycles / share;
  burst_ = static_cast<std::uint32_t>(std::max<std::int64_t>(4, d.dram.access_bytes));
  const double hz = d.clocks.core_mhz * 1e6;
  dram_ = CalendarServer(d.dram.bandwidth_gbps * 1e9 / hz * share);
  fabric_ = CalendarServer(d.mall.bandwidth_gbps * 1e9 / hz * share);
  mall_ = TagCache(static_cast<std::uint64_t>(static_cast<double>(d.mall.bytes) * share), static_cast<std::uint32_t>(d.mall.line_bytes),
                   static_cast<std::uint32_t>(d.mall.ways));
  atomic_units_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, d.dram.channels)), Server(d.l2.atomic_ops_per_cycle * share));

  const auto n = static_cast<std::size_t>(num_cus);
  l1_.reserve(n);
  for (int i = 0; i < num_cus; ++i) {
    l1_.emplace_back(static_cast<std::uint64_t>(d.l1.bytes), line_, static_cast<std::uint32_t>(d.l1.ways));
    l1_bw_.emplace_back(d.l1.bytes_per_cycle);
    port_.emplace_back(1.0);
    lds_banks_.emplace_back(static_cast<double>(d.shared.banks * d.shared.bank_width_bytes));
  }
  slots_.assign(n, MissSlots(d.l1.max_outstanding_lines));
  simds_per_port_ = static_cast<int>(std::max<std::int64_t>(1, d.shared.simds_per_port));
  lds_ports_per_cu_ = static_cast<int>(std::max<std::int64_t>(1, d.sm.sub_partitions / simds_per_port_));
  lds_ports_.assign(n * static_cast<std::size_t>(lds_ports_per_cu_), Server(d.shared.port_bytes_per_cycle));
  cus_per_sl1_ = static_cast<int>(std::max<std::int64_t>(1, d.scalar_l1.cus_per_cache));
  const int groups = (num_cus + cus_per_sl1_ - 1) / cus_per_sl1_;
  for (int g = 0; g < groups; ++g) {
    sl1_.emplace_back(static_cast<std::uint64_t>(d.scalar_l1.bytes), static_cast<std::uint32_t>(d.scalar_l1.line_bytes),
                      static_cast<std::uint32_t>(d.l1.ways));
    sl1_bw_.emplace_back(d.scalar_l1.bytes_per_cycle);
  }
  for (int x = 0; x < xcds_; ++x)
    l2c_.emplace_back(static_cast<std::uint64_t>(d.l2.bytes), line_, static_cast<std::uint32_t>(d.l2.ways));
  l2_channels_.assign(static_cast<std::size_t>(xcds_ * channels_), CalendarServer(d.l2.bytes_per_cycle / channels_));
  hash_ = channel_hash(d.l2.channel_hash, d.file.string());
  bank_words_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, d.shared.banks)), 0);
}

void AmdMemorySystem::warm(const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes) {
  const std::uint64_t line_mask = ~static_cast<std::uint64_t>(line_ - 1);
  for (std::uint64_t m = mask; m; m &= m - 1) {
    const std::uint64_t a = addrs[std::countr_zero(m)];
    for (std::uint64_t l = a & line_mask; l < a + std::max<std::uint32_t>(bytes, 1); l += line_)
      if (warm_lines_.empty() || warm_lines_.back() != l) warm_lines_.push_back(l);
  }
}

bool AmdMemorySystem::warm_workgroup_done() {
  for (auto it = warm_lines_.rbegin(); it != warm_lines_.rend(); ++it)
    if (mall_.backfill(*it)) break;
  warm_lines_.clear();
  return mall_.backfill_full();
}

void AmdMemorySystem::replay(const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes, bool load) {
  coalesce(addrs, mask, bytes);
  for (const LineReq& e : scratch_) replay_lines_.push_back({e.line, load ? full_words_ : e.words, load});
}

// A line the previous launch only wrote in part holds only those words after its write-back, and
// a read of it misses (LineCache): only lines it read, or wrote whole, are backfilled into the L2.
bool AmdMemorySystem::replay_workgroup_done(int xcd) {
  l2_full_.resize(l2c_.size(), 0);
  const auto x = static_cast<std::size_t>(xcd);
  std::unordered_map<std::uint64_t, std::uint32_t> written;
  for (const ReplayLine& r : replay_lines_)
    if (!r.load) written[r.line] |= r.words;
  for (auto it = replay_lines_.rbegin(); it != replay_lines_.rend(); ++it) {
    const bool whole = it->load || (written[it->line] & full_words_) == full_words_;
    if (whole && x < l2c_.size() && !l2_full_[x]) l2_full_[x] = l2c_[x].backfill(it->line);
    if (it->load) mall_.backfill(it->line, 0.0);
  }
  replay_lines_.clear();
  return mall_.backfill_full() && std::all_of(l2_full_.begin(), l2_full_.end(), [](std::uint8_t f) { return f != 0; });
}

// ---------------------------------------------------------------------------------------------
// shared resources

double AmdMemorySystem::l2_busy_cycles() const {
  double worst = 0;
  for (int x = 0; x < xcds_; ++x) {
    double sum = 0;
    for (int c = 0; c < channels_; ++c) sum += l2_channels_[static_cast<std::size_t>(x * channels_ + c)].busy_cycles();
    worst = std::max(worst, sum / channels_);
  }
  return worst;
}

double AmdMemorySystem::shared_busy_cycles(bool committed) const {
  double dram = dram_.busy_cycles();
  if (committed) {
    // every byte read so far and every byte written or held dirty (written once, eventually),
    // at the read/write mix they make
    const double w = static_cast<double>(c_.dram_write_bytes) + std::max(0.0, dirty_lines_) * line_;
    dram = std::max(dram, hbm_cost_.of(static_cast<double>(c_.dram_read_bytes), w) / dram_.rate());
  }
  double b = std::max(dram, fabric_.busy_cycles());
  for (const auto& ch : l2_channels_) b = std::max(b, ch.busy_cycles());
  for (const auto& u : atomic_units_) b = std::max(b, u.busy_cycles());
  return b;
}

std::uint64_t AmdMemorySystem::l2_dirty_bytes() const {
  std::uint64_t n = 0;
  for (const auto& c : l2c_) n += c.dirty_lines() * line_;
  return n;
}

CalendarServer& AmdMemorySystem::channel(int xcd, std::uint64_t line) {
  return l2_channels_[static_cast<std::size_t>(xcd * channels_ + hash_(line / line_, channels_))];
}

// An L2 miss: the line crosses the fabric to the MALL; a MALL miss reads it from HBM. `at` is
// when the L2 channel took the request; unloaded, the data is back at + the level's load-to-use
// latency, and queueing at the fabric and at HBM adds to it.
double AmdMemorySystem::memory_read(double at, std::uint64_t line) {
  const double bytes = line_;
  c_.requests[lvl(Level::Mall)] += 1;
  c_.bytes[lvl(Level::Mall)] += line_;
  const double f = fabric_.serve(at, bytes);
  const double fabric_wait = std::max(0.0, f - at - bytes / fabric_.rate());
  const TagCache::Result r = mall_.access(line, false);
  if (r.hit && r.ready < 0) {
    // put there by a slice's warm-up: another XCD reads the line at about the same time (the
    // XCDs run the same code in step), so its HBM read brings it; the slice waits the HBM
    // latency but takes none of the bandwidth
    c_.hits[lvl(Level::Mall)] += 1;
    const double done = at + dram_lat_ + fabric_wait;
    mall_.set_ready(line, done);
    return done;
  }
  if (r.hit) {
    c_.hits[lvl(Level::Mall)] += 1;
    return std::max(at + mall_lat_ + fabric_wait, r.ready);
  }
  c_.requests[lvl(Level::Dram)] += 1;
  c_.bytes[lvl(Level::Dram)] += line_;
  c_.dram_read_bytes += line_;
  const double cost = hbm_cost_(bytes, false);
  const double d = dram_.serve(f, cost);
  const double done = at + dram_lat_ + fabric_wait + std::max(0.0, d - f - cost / dram_.rate());
  mall_.set_ready(line, done);
  return done;
}

// A line leaving the L2 (eviction or write-back): across the fabric and past the MALL (written
// around it, not allocated) to HBM. Bursts written only in part are read first (ECC works on
// whole bursts).
double AmdMemorySystem::memory_write(double t, std::uint32_t words) {
  const double f = fabric_.serve(t, line_);
  std::uint32_t bursts = 0, partial = 0;
  const std::uint32_t per_burst = std::max<std::uint32_t>(1, burst_ / 4);
  for (std::uint32_t w = 0; w < line_ / 4; w += per_burst) {
    const std::uint32_t group = (per_burst >= 32 ? 0xffffffffu : ((1u << per_burst) - 1)) << w;
    if (words & group) {
      ++bursts;
      if ((words & group) != group) ++partial;
    }
  }
  if (partial) {
    dram_.serve(f, hbm_cost_(static_cast<double>(partial) * burst_, false));
    c_.dram_read_bytes += static_cast<std::uint64_t>(partial) * burst_;
  }
  c_.dram_write_bytes += static_cast<std::uint64_t>(bursts) * burst_;
  return dram_.serve(f, hbm_cost_(static_cast<double>(bursts) * burst_, true));
}

double AmdMemorySystem::l2_read(int xcd, double t, std::uint64_t line) {
  c_.requests[lvl(Level::L2)] += 1;
  c_.bytes[lvl(Level::L2)] += line_;
  const double at = channel(xcd, line).serve(t, (1.0 + dev_.l2.read_request_overhead) * line_);
  LineCache& l2 = l2c_[static_cast<std::size_t>(xcd)];
  const LineCache::Result r = l2.read(line, true);
  if (r.evicted_dirty) {
    memory_write(at, r.evicted_words);
    --dirty_lines_;
  }
  if (r.hit) {
    c_.hits[lvl(Level::L2)] += 1;
    return std::max(at + l2_lat_, r.ready);
  }
  const double done = memory_read(at, line);
  l2.set_ready(r.way, done);
  return done;
}

std::pair<double, double> AmdMemorySystem::l2_write(int xcd, double t, std::uint64_t line, std::uint32_t words) {
  c_.requests[lvl(Level::L2)] += 1;
  c_.hits[lvl(Level::L2)] += 1;
  c_.bytes[lvl(Level::L2)] += static_cast<std::uint64_t>(std::popcount(words)) * 4;
  const bool whole = (words & full_words_) == full_words_;
  const double cost = dev_.l2.write_request_overhead + (whole ? dev_.l2.write_sector_cost : dev_.l2.partial_write_sector_cost);
  const double at = channel(xcd, line).serve(t, cost * line_);
  const LineCache::Result r = l2c_[static_cast<std::size_t>(xcd)].write(line, words);
  if (!r.was_dirty) ++dirty_lines_;
  double evicted = at;
  if (r.evicted_dirty) {
    evicted = memory_write(at, r.evicted_words);
    --dirty_lines_;
  }
  const double ack = at + 0.5 * l2_lat_;
  return {ack, std::max(ack, evicted)};
}

// ---------------------------------------------------------------------------------------------
// vector memory

void AmdMemorySystem::coalesce(const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes) {
  scratch_.clear();
  const std::uint64_t line_mask = ~static_cast<std::uint64_t>(line_ - 1);
  for (std::uint64_t m = mask; m;) {
    const int l = std::countr_zero(m);
    m &= m - 1;
    const std::uint64_t a = addrs[l];
    const std::uint64_t end = a + std::max<std::uint32_t>(bytes, 1);
    for (std::uint64_t x = a; x < end;) {
      const std::uint64_t line = x & line_mask;
      const std::uint64_t stop = std::min(end, line + line_);
      LineReq* e = nullptr;
      if (!scratch_.empty() && scratch_.back().line == line) {
        e = &scratch_.back();
      } else {
        for (auto& r : scratch_)
          if (r.line == line) { e = &r; break; }
      }
      if (!e) {
        scratch_.push_back({line, 0});
        e = &scratch_.back();
      }
      const auto w0 = static_cast<std::uint32_t>((x - line) / 4), w1 = static_cast<std::uint32_t>((stop - 1 - line) / 4);
      e->words |= (w1 >= 31 ? 0xffffffffu : ((2u << w1) - 1)) & ~((1u << w0) - 1);
      x = stop;
    }
  }
}

AmdMemTiming AmdMemorySystem::vector(int cu, double t, const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes,
                                     AmdAccess kind) {
  if (!mask) return {t, t};
  coalesce(addrs, mask, bytes);
  const int xcd = xcd_of(cu);
  const bool load = kind == AmdAccess::Load || kind == AmdAccess::LoadBypassL1;
  const bool atomic = kind == AmdAccess::Atomic || kind == AmdAccess::AtomicFloat;
  LineCache& l1 = l1_[static_cast<std::size_t>(cu)];
  // the texture addresser / vL1D processes the instruction line by line: a tag lookup per line
  // (l1.lines_per_cycle) and the line's data (l1.bytes_per_cycle), whichever takes longer
  const auto lines = static_cast<std::uint32_t>(scratch_.size());
  const double per_line = std::max<double>(line_, dev_.l1.lines_per_cycle > 0 ? dev_.l1.bytes_per_cycle / dev_.l1.lines_per_cycle : 0.0);
  const double t1 = l1_bw_[static_cast<std::size_t>(cu)].serve(t, static_cast<double>(lines) * per_line);
  c_.requests[lvl(Level::L1)] += lines;
  c_.bytes[lvl(Level::L1)] += static_cast<std::uint64_t>(lines) * line_;
  AmdMemTiming mt{load ? t1 + l1_lat_ : t1, t1};
  for (const auto& e : scratch_) {
    bool need = true;
    std::int64_t l1_way = -1;
    if (kind == AmdAccess::Load) {
      const LineCache::Result r = l1.read(e.line, true);
      if (r.hit) {
        c_.hits[lvl(Level::L1)] += 1;
        mt.done = std::max(mt.done, r.ready);
        need = false;
      }
      l1_way = r.way;
    } else if (!load) {
      l1.invalidate(e.line);  // stores and atomics: write-through, no allocation
    }
    if (!need) continue;
    const double slot = slots_[static_cast<std::size_t>(cu)].acquire(t1);
    double port = dev_.l1.miss_request_cycles;
    if (kind == AmdAccess::Store)
      port += (e.words & full_words_) == full_words_ ? dev_.l1.store_sector_cycles : dev_.l1.store_partial_sector_cycles;
    const double start = port_[static_cast<std::size_t>(cu)].serve(slot, port);
    mt.accepted = std::max(mt.accepted, start);
    if (kind == AmdAccess::Store) {
      const auto [ack, written] = l2_write(xcd, start, e.line, e.words);
      slots_[static_cast<std::size_t>(cu)].release(ack);  // a posted write frees its slot once the L2 has it
      mt.done = std::max(mt.done, written);
      continue;
    }
    double done;
    if (!atomic) {
      done = l2_read(xcd, start, e.line);
      if (kind == AmdAccess::Load) l1.set_ready(l1_way, done);
    } else {
      // Device-scope atomics (sc1) pass the L2 and execute at a memory-side atomic unit, next to
      // the MALL; operations on one address serialise there.
      c_.requests[lvl(Level::L2)] += 1;
      c_.bytes[lvl(Level::L2)] += line_;
      const double at = channel(xcd, e.line).serve(start, (1.0 + dev_.l2.read_request_overhead) * line_);
      if (l2c_[static_cast<std::size_t>(xcd)].invalidate(e.line)) {  // the L2's own copy goes to memory before the atomic
        memory_write(at, full_words_);
        --dirty_lines_;
      }
      const TagCache::Result mr = mall_.access(e.line, true);
      double miss_extra = 0;  // a MALL miss first reads the line from HBM
      c_.requests[lvl(Level::Mall)] += 1;
      if (mr.hit) {
        c_.hits[lvl(Level::Mall)] += 1;
      } else {
        c_.requests[lvl(Level::Dram)] += 1;
        c_.dram_read_bytes += burst_;
        const double cost = hbm_cost_(burst_, false);
        miss_extra = dram_lat_ - mall_lat_ + std::max(0.0, dram_.serve(at, cost) - at - cost / dram_.rate());
      }
      if (mr.evicted_dirty) {
        dram_.serve(at, hbm_cost_(line_, true));
        c_.dram_write_bytes += line_;
      }
      // The unit takes one request per line and pipelines operations on different addresses;
      // operations on one address run one after another — a lane's after the lanes before it, and
      // after other waves' operations on that address still in progress — and keep the unit busy.
      Server& unit = atomic_units_[static_cast<std::size_t>((e.line / line_) % atomic_units_.size())];
      const double per_same = kind == AmdAccess::AtomicFloat ? float_same_addr_cycles_ : same_addr_cycles_;
      const double half = 0.5 * (l2_lat_ + atomic_lat_);
      const double arrive = std::max(at + half + miss_extra, mr.hit ? mr.ready : 0.0);
      std::uint64_t todo = 0;
      for (std::uint64_t m = mask; m;) {
        const int l = std::countr_zero(m);
        m &= m - 1;
        if ((addrs[l] & ~static_cast<std::uint64_t>(line_ - 1)) == e.line) todo |= std::uint64_t{1} << l;
      }
      double cycles = 0;
      std::size_t nslots = 0;
      AddressSlot* touched[64];  // one per distinct address: at most a wave's 64 lanes (the mask's bits)
      while (todo) {
        const std::uint64_t a = addrs[std::countr_zero(todo)];
        int n = 0;
        for (std::uint64_t m = todo; m;) {
          const int l = std::countr_zero(m);
          m &= m - 1;
          if (addrs[l] == a) {
            ++n;
            todo &= ~(std::uint64_t{1} << l);
          }
        }
        AddressSlot& slot = same_address_[static_cast<std::size_t>((a / 4 * 0x9E3779B97F4A7C15ull) >> (64 - kSameAddressBits))];
        const bool busy = slot.address == a && slot.free > arrive;
        cycles = std::max(cycles, (busy ? n : n - 1) * per_same);
        slot.address = a;
        touched[nslots++] = &slot;
      }
      done = unit.serve(arrive, std::max(1.0, cycles * unit.rate())) + half;
      for (std::size_t i = 0; i < nslots; ++i) touched[i]->free = done - half;
      if (!mr.hit) mall_.set_ready(e.line, done);
    }
    slots_[static_cast<std::size_t>(cu)].release(done);
    mt.done = std::max(mt.done, done);
  }
  if (atomic) c_.atomics += static_cast<std::uint64_t>(std::popcount(mask));
  return mt;
}

double AmdMemorySystem::write_back_l2(int xcd, double t) {
  double done = t;
  for (int x = 0; x < xcds_; ++x) {
    if (xcd >= 0 && x != xcd) continue;
    LineCache& l2 = l2c_[static_cast<std::size_t>(x)];
    const std::uint64_t lines = l2.dirty_lines();
    if (!lines) continue;
    l2.clean();
    dirty_lines_ -= static_cast<double>(lines);
    const double bytes = static_cast<double>(lines) * line_;
    const double f = fabric_.serve(t, bytes);
    c_.dram_write_bytes += static_cast<std::uint64_t>(bytes);
    done = std::max(done, dram_.serve(f, hbm_cost_(bytes, true)));
  }
  return done;
}

void AmdMemorySystem::invalidate_l1(int cu) { l1_[static_cast<std::size_t>(cu)].clear(); }

void AmdMemorySystem::invalidate_scalar(int cu) { sl1_[static_cast<std::size_t>(cu / cus_per_sl1_)].clear(); }

// ---------------------------------------------------------------------------------------------
// scalar memory

double AmdMemorySystem::scalar_load(int cu, double t, std::uint64_t addr, std::uint32_t bytes) {
  const auto g = static_cast<std::size_t>(cu / cus_per_sl1_);
  LineCache& c = sl1_[g];
  const std::uint64_t sline_bytes = c.line_bytes();
  const double at = sl1_bw_[g].serve(t, static_cast<double>(std::max<std::uint32_t>(bytes, 4)));
  double done = at + dev_.scalar_l1.hit_latency_cycles;
  for (std::uint64_t l = addr & ~(sline_bytes - 1); l < addr + std::max<std::uint32_t>(bytes, 1); l += sline_bytes) {
    const LineCache::Result r = c.read(l, true);
    if (r.hit) {
      done = std::max(done, r.ready);
      continue;
    }
    const double d = l2_read(xcd_of(cu), at, l & ~static_cast<std::uint64_t>(line_ - 1));
    c.set_ready(r.way, d);
    done = std::max(done, d);
  }
  return done;
}

double AmdMemorySystem::scalar_store(int cu, double t, std::uint64_t addr, std::uint32_t bytes) {
  invalidate_scalar(cu);
  const std::uint64_t line = addr & ~static_cast<std::uint64_t>(line_ - 1);
  const auto w0 = static_cast<std::uint32_t>((addr - line) / 4), w1 = static_cast<std::uint32_t>((addr - line + bytes - 1) / 4);
  const std::uint32_t words = (w1 >= 31 ? 0xffffffffu : ((2u << w1) - 1)) & ~((1u << w0) - 1);
  return l2_write(xcd_of(cu), t, line, words).second;
}

// ---------------------------------------------------------------------------------------------
// LDS

AmdMemTiming AmdMemorySystem::lds(int cu, int simd, double t, const std::uint64_t* a0, const std::uint64_t* a1, std::uint64_t mask,
                                  std::uint32_t bytes, LdsAccess kind) {
  const int lanes = std::popcount(mask);
  if (!lanes) return {t, t};
  const auto banks = static_cast<std::uint32_t>(dev_.shared.banks);
  const auto width = static_cast<std::uint32_t>(dev_.shared.bank_width_bytes);
  const std::uint32_t addrs_per_lane = a1 ? 2u : 1u;
  const std::uint32_t words_per_addr = std::max<std::uint32_t>(1, (bytes + width - 1) / width);
  const std::uint32_t words_per_lane = addrs_per_lane * words_per_addr;
  // Bank cycles: the lanes go through the banks in groups that fill every bank once when
  // conflict-free; within a group, a bank serving k distinct words takes k cycles (lanes reading
  // one word share it; atomics on one word serialise).
  std::uint32_t cycles = 0, ideal = 0;
  if (kind == LdsAccess::Permute) {
    cycles = ideal = std::max<std::uint32_t>(1, (static_cast<std::uint32_t>(lanes) * 4 + banks * width - 1) / (banks * width));
  } else {
    const std::uint32_t lanes_per_group = std::max<std::uint32_t>(1, banks / words_per_lane);
    // a group's lanes x their words: at most 64 lanes of words_per_lane words
    if (lds_words_.size() < std::size_t{64} * words_per_lane) lds_words_.resize(std::size_t{64} * words_per_lane);
    std::uint64_t* words = lds_words_.data();
    std::uint32_t* per_bank = bank_words_.data();  // shared.banks entries
    for (std::uint32_t first = 0; first < 64; first += lanes_per_group) {
      const std::uint64_t gm = mask & ((lanes_per_group >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << lanes_per_group) - 1)) << first);
      if (!gm) continue;
      ++ideal;
      int nw = 0;
      for (std::uint64_t m = gm; m;) {
        const int l = std::countr_zero(m);
        m &= m - 1;
        for (std::uint32_t k = 0; k < words_per_addr; ++k) {
          words[nw++] = a0[l] / width + k;
          if (a1) words[nw++] = a1[l] / width + k;
        }
      }
      std::sort(words, words + nw);
      std::fill(per_bank, per_bank + banks, 0u);
      std::uint32_t worst = 1;
      const bool atomic = kind == LdsAccess::Atomic || kind == LdsAccess::AtomicReturn;
      for (int i = 0; i < nw; ++i) {
        if (i > 0 && words[i] == words[i - 1] && !atomic) continue;  // broadcast
        worst = std::max(worst, ++per_bank[words[i] % banks]);
      }
      cycles += worst;
    }
  }
  c_.shared_wavefronts += cycles;
  c_.shared_ideal_wavefronts += ideal;
  c_.requests[lvl(Level::Shared)] += cycles;
  c_.bytes[lvl(Level::Shared)] += static_cast<std::uint64_t>(lanes) * bytes * addrs_per_lane;
  // The SIMD pair's port carries each lane's address (and store data) in, and load data out.
  const double data = static_cast<double>(lanes) * bytes * addrs_per_lane;
  const double in = static_cast<double>(lanes) * dev_.shared.address_bytes_per_lane +
                    (kind == LdsAccess::Load ? 0.0 : kind == LdsAccess::Permute ? lanes * 4.0 : data);
  const double out = kind == LdsAccess::Store || kind == LdsAccess::Atomic ? 0.0 : kind == LdsAccess::Permute ? lanes * 4.0 : data;
  Server& port = lds_ports_[static_cast<std::size_t>(cu * lds_ports_per_cu_ + std::min(simd / simds_per_port_, lds_ports_per_cu_ - 1))];
  const double port_done = kind == LdsAccess::DmaWrite ? t : port.serve(t, std::max(in, out));
  Server& bank = lds_banks_[static_cast<std::size_t>(cu)];
  const double bank_done = bank.serve(t, static_cast<double>(cycles) * banks * width);
  const double bank_start = bank_done - static_cast<double>(cycles) * banks * width / bank.rate();
  const double done = std::max(port_done, bank_start + ideal + static_cast<double>(cycles - ideal) * lds_conflict_lat_) + lds_lat_;
  return {done, port_done};
}

}  // namespace kernsim::mem
