// kernsim::mem::NvMemorySystem — the NVIDIA memory hierarchy as timing: per-SM L1 (sectored,
// write-through, no write-allocate) and shared memory banks, one L2 (sectored, write-back),
// HBM. Bandwidth-limited resources are Servers (FIFO queues in time), so latency grows with
// load; capacities and latencies come from the DeviceSpec.
//
// Each call takes one warp instruction's lane addresses and returns when its data is back
// (loads) or accepted (stores). Addresses are coalesced into 32-byte sectors of 128-byte lines
// first, as the hardware does.
#pragma once

#include <cstdint>
#include <array>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "device/device_spec.h"
#include "memory_model/cache.h"
#include "memory_model/events.h"
#include "memory_model/line_table.h"
#include "memory_model/server.h"
#include "memory_model/units.h"

namespace kernsim::mem {

enum class Access : std::uint8_t { Load, Store, Atomic, AtomicFloat, LoadBypassL1 };

struct MemTiming {
  double done = 0;      // loads: data back; stores/reductions: accepted by L2
  double accepted = 0;  // when the SM's memory pipeline took the last request (issue back-pressure)
  bool past_l1 = false;  // some sector went beyond L1 (a load that missed or bypassed it)
};

class NvMemorySystem {
 public:
  // share: the fraction of the chip's L2, HBM and atomic units this model has (an SM slice
  // of num_sms SMs standing for the whole part; 1 for the whole chip)
  NvMemorySystem(const device::DeviceSpec& dev, int num_sms, std::uint64_t l1_bytes, double share = 1.0);

  // A slice's L2 warm-up: what untimed accesses of other CTAs leave in the L2 (present and
  // clean, written or read; no time passes). The CTAs come from the last one back, each CTA's
  // accesses in program order: warm() for each access, warm_cta_done() after each CTA (true
  // once earlier CTAs could change nothing: every L2 set holds lines used later), then
  // warm_finish() puts the lines in the L2, which must be empty before.
  void warm(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes);
  bool warm_cta_done();
  void warm_finish();
  // The L2 at the launch's start is full of dirty lines of memory the launch never touches: what
  // a flush that *writes* a buffer larger than the L2 leaves (KernelBench's `fill_` of 256 MiB;
  // Cache::ColdDirty). On the chip the launch's first fills, a capacity's worth, evict them and
  // write them back to HBM; in a slice, its share of that capacity. Call before the timed run.
  void start_dirty();
  // Which CTA a warp's accesses belong to, for the slice's L2 use window
  // (SectorCache::set_chip_wave): warp w of an SM belongs to CTA slot w / warps_per_cta, and the
  // chip runs `chip_wave_ctas` CTAs at once. Without a use window (a whole chip) nothing changes.
  void set_cta_layout(int warps_per_cta, std::uint64_t chip_wave_ctas);
  void cta_started(int sm, int slot, std::uint64_t cta);  // CTA `cta` starts in that slot of the SM now

  // Global/local memory access by one warp. `bytes` per lane; lanes in `mask`.
  // warp: the issuing warp's index in its SM (store combining is per warp)
  MemTiming global(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, Access kind, int warp = -1);
  // Shared memory access: bank conflicts serialise into wavefronts of one bank-width word per bank.
  double shared(int sm, double t, const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes, bool atomic);
  // A shared access of `wavefronts` conflict-free wavefronts (ldmatrix, wide accesses).
  double shared_wavefronts(int sm, double t, std::uint32_t wavefronts);
  // Sectors (global()) or wavefronts (shared()) the last access took, for the views.
  std::uint32_t last_access_units() const { return last_units_; }

  const MemCounters& counters() const { return c_; }
  double dram_busy_cycles() const { return dram_.busy_cycles(); }
  double dram_free_at() const { return dram_.free_at(); }
  double l2_free_at() const { return l2_.free_at(); }
  double l1_free_at(int sm) const { return l1_bw_[static_cast<std::size_t>(sm)].free_at(); }
  double l2_busy_cycles() const { return l2_.busy_cycles(); }
  // bytes the L2 has filled (read misses, write allocations)
  double l2_filled_bytes() const { return static_cast<double>(l2c_.filled_sectors()) * sector_; }
  // busy time of the most loaded chip-wide resource (L2, HBM, the busiest atomic unit)
  double shared_busy_cycles() const;
  double dram_bytes_per_cycle() const { return dram_.rate(); }
  double l2_bytes_per_cycle() const { return l2_.rate(); }

 private:
  // L2 partitions (l2.partitions > 1 and l2.cross_partition_bytes_per_cycle > 0: the B200's two
  // dies). As NVIDIA describes the A100/H100 L2, each partition caches the data the SMs attached
  // to it use (SM s of n is in partition s * partitions / n): near_[p] holds the tags of the lines
  // partition p's SMs touched last (its share of the capacity; l2c_ keeps the data, its capacity
  // and write-back state). A read that hits in l2c_ but not in the SM's own partition takes the
  // line from the other one: its sectors cross the link between the partitions (link_) and come
  // back l2.far_hit_latency_cycles after the L2 took the request, and the line is now near too. A
  // read that misses comes from HBM into the SM's partition; a write lands in the writer's
  // partition and drops the other partitions' copies. One SM chasing more than its partition
  // holds thus sees the far latency, as the published B200 and H100 chases do past half the L2.
  int partition_of(int sm) const { return static_cast<int>(static_cast<std::int64_t>(sm) * partitions_ / num_sms_); }
  std::uint32_t far_sectors(int sm, std::uint64_t line, std::uint32_t mask, std::uint32_t l2_hits);
  void near_write(int sm, std::uint64_t line, std::uint32_t mask);
  int partitions_ = 1, num_sms_ = 1;
  double far_lat_ = 0;
  std::vector<SectorCache> near_;
  CalendarServer link_;
  double last_read_latency_ = 0;  // the latency of l2_read's last request (near or far), for atomics
  double l2_read(int sm, double t, std::uint64_t line, std::uint32_t sectors);
  // returns {accepted by L2, done} (the same: the L2 is write-back)
  // charged: the sectors whose data this request carries (merged: it joined a request already
  // sent, so there is no request overhead and only its new sectors cost)
  std::pair<double, double> l2_write(int sm, double t, std::uint64_t line, std::uint32_t sectors,
                                     const std::uint32_t* words, std::uint32_t charged, bool merged);
  double evictions(double t, const CacheResult& r);
  // global(): starts loading a scattered access's lookups (tpc_sm: the SM whose TPC table it reads; -1: none)
  void prefetch_lookups(const SectorCache& l1, bool l1_reads, int tpc_sm) const;
  double dram_bytes(std::uint32_t sectors) const;  // HBM bytes moved for these sectors of one line (bursts)

  const device::DeviceSpec& dev_;
  std::uint32_t sector_ = 32, line_ = 128;
  int sector_shift_ = -1;  // log2(sector_) when it is a power of two (every real part): no division per lane
  std::uint32_t sector_of(std::uint64_t offset_in_line) const {
    return sector_shift_ >= 0 ? static_cast<std::uint32_t>(offset_in_line >> sector_shift_)
                              : static_cast<std::uint32_t>(offset_in_line / sector_);
  }
  double l1_lat_, l2_lat_, dram_lat_, smem_lat_;
  double dram_queue_wait(double t) const;  // latency under load: the banks' queue (M/D/1)
  double dram_latency(std::uint64_t line) const;  // dram_lat_ spread by the line's block (dram.latency_quantiles_permille)
  HbmCost hbm_cost_;  // peak-bandwidth bytes a transfer costs HBM (read/write efficiencies and their mix)
  double conflict_lat_ = 0;
  double same_addr_cycles_ = 0;
  std::vector<SectorCache> l1_;
  std::vector<Server> l1_bw_;
  std::vector<Server> smem_bw_;
  std::vector<Server> port_;  // per SM: its port to L2 (time units: cycles)
  // Dirty lines in the L2, oldest first; an SM slice may keep only its share of the L2 dirty
  // (its streaming writes reach HBM as the whole chip's would), so the oldest are written back.
  // A slice's own traffic through the L2 stands for 1/share of the chip's: a line it dirtied is
  // written back once share x capacity of its own fills came after (on the chip, capacity of
  // everyone's), as the chip's LRU would evict it. Entries: (line, fills_ when it became dirty).
  std::deque<std::pair<std::uint64_t, std::uint64_t>> dirty_lines_;
  std::uint64_t max_dirty_lines_ = 0;
  std::uint64_t fills_ = 0;           // sectors the timed accesses brought into the L2 (read misses, write allocations)
  std::uint64_t window_sectors_ = 0;  // share x capacity in sectors (the L2's use window too); 0 for the whole chip
  // l2.slice_read_bytes_per_cycle: each slice's read calendar (its share in a slice); empty: off
  std::vector<CalendarServer> slice_reads_;
  std::uint64_t slice_span_ = 128;
  int warps_per_cta_ = 0;             // set_cta_layout(); 0: CTAs not tracked
  std::size_t slots_per_sm_ = 0;
  std::vector<std::uint64_t> slot_cta_;  // per SM x slot: the CTA running there
  double retire_dirty(double t, std::uint64_t keep);  // writes back what fell out of the window; returns when HBM took it
  // start_dirty(): sectors of the flush's dirty lines still in the L2 (share x capacity); each
  // sector the launch fills evicts one, written back to HBM. Returns when HBM took them.
  std::uint64_t start_dirty_sectors_ = 0;
  double evict_start_dirty(double t, std::uint32_t filled);
  struct PendingStore {
    std::uint64_t line = ~std::uint64_t{0};
    double send = -1;  // when the request leaves the port
    int warp = -1;
    std::uint32_t sectors = 0;
    std::uint32_t seq = 0;  // the warp's request number
  };
  std::size_t warps_per_sm_ = 1;         // sm.max_warps: the warp indices of one SM
  std::vector<std::uint32_t> warp_seq_;  // per SM and warp (sm * warps_per_sm_ + warp): store requests made
  std::vector<std::uint32_t> warp_fence_;  // per SM and warp: its store requests made before its latest load
  std::uint32_t combine_lines_ = 0;
  // The SM's latest store requests, all warps together, that a new store may join. A policy of
  // the model, not a hardware size: it only has to hold each warp's last l1.store_combine_lines
  // requests while a few warps interleave their stores; older entries are overwritten.
  static constexpr std::size_t kPendingStores = 64;
  std::vector<std::array<PendingStore, kPendingStores>> pending_;  // per SM
  std::vector<std::uint32_t> pending_next_;
  SectorCache l2c_;
  std::unique_ptr<SectorCache::Backfill> warm_fill_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> warm_cta_;  // the current warm-up CTA's (line, sectors)
  CalendarServer l2_;
  CalendarServer dram_;
  std::vector<CalendarServer> atomic_units_;  // per L2 slice
  // the sectors the chip's atomic units serve together (l2.atomic_chip_sectors_per_cycle x share);
  // absent: unused (atomic_chip_on_ false)
  CalendarServer atomic_chip_;
  bool atomic_chip_on_ = false;
  std::vector<MissSlots> slots_;  // per SM: its outstanding-line slots (l1.max_outstanding_lines)
  // TPC request merging (l2.tpc_merge_window_cycles): per TPC, the last L2 read of each line by
  // one of its SMs: a read of the same sectors by the other SM within the window joins it.
  struct TpcRead {
    double sent = 0, done = 0;
    int sm = -1;
    std::uint32_t sectors = 0;
  };
  double tpc_window_ = 0;
  int tpc_sms_ = 0;
  std::vector<LineTable<TpcRead>> tpc_reads_;  // per TPC, by line
  std::vector<std::size_t> tpc_prune_at_;                               // per TPC: tpc_record's pruning mark
  // the sectors of `need` the TPC partner's read covers (0: none), and when their data is back
  std::uint32_t tpc_merge(int sm, double t, std::uint64_t line, std::uint32_t need, double& done);
  void tpc_record(int sm, double t, std::uint64_t line, std::uint32_t sectors, double done);
  double atomic_lat_ = 0, float_same_addr_cycles_ = 0;
  std::uint64_t atomic_span_ = 0;  // bytes of address space one atomic unit owns (l2.atomic_unit_bytes, else a line)
  // The atomic unit's side of one line request of a warp's atomic (lanes `mask` at `addrs`,
  // sectors `need` of `line`) arriving at `arrive`: returns when its last operation is done.
  double atomic_at_unit(double arrive, std::uint64_t line, std::uint32_t need, const std::uint64_t* addrs, std::uint32_t mask,
                        bool is_float);
  double atomic_req_cycles_ = 0, pass_cycles_ = 0, float_pass_cycles_ = 0;  // l2.atomic_request/pass cycles, / share
  // Per unit, the addresses it operated on last (direct-mapped, kChainSlots each) and when their
  // last operation is done: the next operation on the address follows it by the same-address time.
  struct AddrChain {
    std::uint64_t addr = ~std::uint64_t{0};
    double ready = 0;
    double busy = 0;  // the address's operations so far, in same-address cycles
  };
  static constexpr std::size_t kChainSlots = 64;
  std::vector<AddrChain> addr_chains_;
  std::vector<std::uint64_t> unit_line_;  // per unit: the line of its last request
  double chain_busy_ = 0;                 // the busiest address chain's time (shared_busy_cycles)
  std::uint32_t burst_ = 64;  // HBM access granule
  MemCounters c_;
  std::uint32_t last_units_ = 0;
  struct LineReq {
    std::uint64_t line;
    std::uint32_t sectors;
    std::uint32_t words[device::kMaxSectorsPerLine];  // 4-byte words of each sector this instruction touches
  };
  std::vector<LineReq> scratch_;
  void coalesce(const std::uint64_t* addrs, std::uint32_t mask, std::uint32_t bytes);  // fills scratch_
  // shared(): the bank words of one phase, and the distinct words each bank serves (shared.banks)
  std::vector<std::uint64_t> phase_words_;
  std::vector<std::uint32_t> bank_words_;
};

}  // namespace kernsim::mem
