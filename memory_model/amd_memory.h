// kernsim::mem::AmdMemorySystem — the CDNA3/CDNA4 memory hierarchy as timing.
//
//   CU ── vL1D (per CU, write-through, 128-byte lines) ── miss slots ── CU port ──┐
//   CU ── LDS (banks; one port per SIMD pair)                                     │
//   CU pair ── scalar L1 ─────────────────────────────────────────────────────────┤
//                                                    L2 of the CU's XCD, in channels (write-back)
//                                                              │ Infinity Fabric
//                                                    MALL (Infinity Cache, memory-side) ── HBM
//
// Each XCD has its own L2; a line lives in every XCD's L2 that touched it. The MALL and HBM are
// shared by the whole chip and are CalendarServers (requests arrive out of time order from the
// event-driven CUs). Stores write through the vL1D (no allocation), merge into the L2 by word mask
// and reach HBM when the L2 evicts them or a release writes the L2 back; the MALL caches what it
// reads from HBM (write-backs pass it without allocating). Device-scope atomics pass the L2
// and execute at memory-side atomic units. Every capacity, latency and bandwidth comes from the
// DeviceSpec; what is estimated there is marked there.
//
// Calls take one wave instruction's lane addresses and return when its data is back (loads),
// acknowledged (stores, atomics: what decrements vmcnt), and when the CU could take the next
// instruction of that kind (issue back-pressure).
#pragma once

#include <cstdint>
#include <vector>

#include "device/device_spec.h"
#include "memory_model/events.h"
#include "memory_model/channel_hash.h"
#include "memory_model/line_cache.h"
#include "memory_model/server.h"
#include "memory_model/tag_cache.h"
#include "memory_model/units.h"

namespace kernsim::mem {

enum class AmdAccess : std::uint8_t {
  Load,          // through the vL1D
  LoadBypassL1,  // sc0/glc loads: miss the vL1D
  Store,
  Atomic,        // device-scope atomic (integer)
  AtomicFloat,   // device-scope floating-point atomic (same-address operations serialise longer)
};

// DmaWrite: the LDS side of a buffer load with `lds`; its data comes back on the vector memory
// path, not through the SIMD pair's port, and takes the banks as a store does.
enum class LdsAccess : std::uint8_t { Load, Store, Atomic, AtomicReturn, Permute, DmaWrite };

struct AmdMemTiming {
  double done = 0;      // data back (loads) / acknowledged (stores, atomics)
  // when the CU's pipeline is free again: the TA for vector memory; for LDS, when the SIMD pair's
  // port has passed this instruction (the timing model does not hold the issue on it: LDS
  // instructions queue at the port and the banks)
  double accepted = 0;
};

class AmdMemorySystem {
 public:
  // `cus_per_xcd`: CUs c and c' share an L2 when c / cus_per_xcd == c' / cus_per_xcd.
  // `share`: the fraction of the chip's MALL, fabric and HBM bandwidth and memory-side atomic
  // units this model has (a CU slice of whole XCDs: each XCD's L2 is its own and complete).
  AmdMemorySystem(const device::DeviceSpec& dev, int num_cus, int cus_per_xcd, double share = 1.0);

  // A slice's MALL warm-up: what the loads of workgroups on the other XCDs leave in the MALL.
  // Call with each workgroup's global loads in program order, its last workgroup first:
  // warm() for each access, warm_workgroup_done() after each workgroup (true once every MALL
  // set is full: earlier workgroups could change nothing).
  void warm(const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes);
  bool warm_workgroup_done();
  // cache: warm. What a previous run of the launch left: call replay() with each workgroup's
  // global loads and stores in program order, its last workgroup first, and
  // replay_workgroup_done() with the workgroup's XCD after each. Its lines go into that XCD's L2,
  // clean (the previous kernel's end wrote them back; a line it only wrote in part is left out),
  // and what it loaded into the MALL, present;
  // both as older than every line already there (a line the slice's warm-up left pending becomes
  // present). Returns true once every L2 and the MALL are full: earlier workgroups could change
  // nothing.
  void replay(const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes, bool load);
  bool replay_workgroup_done(int xcd);

  // A vector memory instruction (global, flat to global, buffer, scratch with swizzled
  // addresses): `bytes` per lane at addrs[lane] for the lanes in `mask`.
  AmdMemTiming vector(int cu, double t, const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes, AmdAccess kind);
  // An LDS instruction from SIMD `simd`: `bytes` per lane at LDS offsets a0[lane] and, for
  // read2/write2, a1[lane]. Bank conflicts serialise the access into more bank cycles.
  AmdMemTiming lds(int cu, int simd, double t, const std::uint64_t* a0, const std::uint64_t* a1, std::uint64_t mask,
                   std::uint32_t bytes, LdsAccess kind);
  // A scalar load (s_load_*, s_buffer_load_*) of `bytes` at `addr`; returns when the data is in SGPRs.
  double scalar_load(int cu, double t, std::uint64_t addr, std::uint32_t bytes);
  // A scalar store (s_store_*): acknowledged time.
  double scalar_store(int cu, double t, std::uint64_t addr, std::uint32_t bytes);
  // Writes every dirty line of the L2 of `xcd` (all XCDs when -1) back to memory (buffer_wbl2,
  // the release at a kernel's end); returns when the last byte is written.
  double write_back_l2(int xcd, double t);
  // buffer_inv / buffer_wbinvl1: the CU's vL1D loses its contents.
  void invalidate_l1(int cu);
  // s_dcache_inv: the scalar L1 of the CU's group loses its contents.
  void invalidate_scalar(int cu);

  const MemCounters& counters() const { return c_; }
  // lines looked up so far (the simulation work memory instructions cause)
  std::uint64_t lines_looked_up() const { return c_.requests[static_cast<int>(Level::L1)]; }
  double dram_busy_cycles() const { return dram_.busy_cycles(); }
  // the most loaded XCD's L2: mean busy time of its channels
  double l2_busy_cycles() const;
  // busy time of the most loaded shared resource (an L2 channel, the fabric/MALL, HBM, an atomic
  // unit); `committed`: HBM counted with the time the dirty lines now in the L2s will cost when
  // they are written back (every dirty line is written once: at its eviction or at the release
  // that ends the kernel)
  double shared_busy_cycles(bool committed = false) const;
  int xcd_of(int cu) const { return cu / cus_per_xcd_; }
  std::uint64_t l2_dirty_bytes() const;

 private:
  struct LineReq {
    std::uint64_t line;
    std::uint32_t words;  // 4-byte words of the line this instruction touches
  };
  CalendarServer& channel(int xcd, std::uint64_t line);
  double l2_read(int xcd, double t, std::uint64_t line);
  // returns {acknowledged, done (after the write-backs it forced)}
  std::pair<double, double> l2_write(int xcd, double t, std::uint64_t line, std::uint32_t words);
  double memory_read(double at, std::uint64_t line);   // L2 miss: MALL, then HBM
  double memory_write(double t, std::uint32_t words);  // L2 eviction / write-back of one line
  void coalesce(const std::uint64_t* addrs, std::uint64_t mask, std::uint32_t bytes);

  const device::DeviceSpec& dev_;
  std::vector<std::uint64_t> warm_lines_;  // the current warm-up workgroup's lines, in access order
  struct ReplayLine {
    std::uint64_t line;
    std::uint32_t words;  // the 4-byte words it touched (all, for a load)
    bool load;
  };
  std::vector<ReplayLine> replay_lines_;  // replay(): the workgroup's lines in access order
  std::vector<std::uint8_t> l2_full_;                         // per XCD: the replay filled its L2
  int cus_per_xcd_ = 1, xcds_ = 1, channels_ = 1;
  std::uint32_t line_ = 128, full_words_ = 0xffffffffu;
  double l1_lat_ = 0, l2_lat_ = 0, mall_lat_ = 0, dram_lat_ = 0, lds_lat_ = 0, lds_conflict_lat_ = 0;
  double atomic_lat_ = 0, same_addr_cycles_ = 0, float_same_addr_cycles_ = 0;
  HbmCost hbm_cost_;
  std::uint32_t burst_ = 64;
  // per CU
  std::vector<LineCache> l1_;
  std::vector<Server> l1_bw_;
  std::vector<Server> port_;
  std::vector<MissSlots> slots_;
  std::vector<Server> lds_banks_;
  std::vector<Server> lds_ports_;           // per CU x port
  int lds_ports_per_cu_ = 2, simds_per_port_ = 2;
  // per scalar-cache group
  std::vector<LineCache> sl1_;
  std::vector<Server> sl1_bw_;
  int cus_per_sl1_ = 2;
  // per XCD
  std::vector<LineCache> l2c_;
  std::vector<CalendarServer> l2_channels_;  // xcd * channels_ + channel
  ChannelHash hash_;
  // chip
  TagCache mall_;
  CalendarServer fabric_;  // L2 <-> MALL traffic at the MALL's bandwidth
  CalendarServer dram_;
  // FIFO servers: a hot address builds a long queue, which a calendar would search per request
  std::vector<Server> atomic_units_;
  // Recently used atomic addresses (a direct-mapped table): when each may take its next operation.
  // A policy of the model, not a hardware size: large enough that the few addresses contended at
  // once rarely share an entry; a collision only forgets the older address's pending operation.
  struct AddressSlot {
    std::uint64_t address = ~std::uint64_t{0};
    double free = 0;
  };
  static constexpr int kSameAddressBits = 12;
  std::vector<AddressSlot> same_address_ = std::vector<AddressSlot>(std::size_t{1} << kSameAddressBits);
  MemCounters c_;
  double dirty_lines_ = 0;  // dirty lines in all L2s
  std::vector<LineReq> scratch_;
  // lds(): the bank words of one group of lanes, and the distinct words each bank serves (shared.banks)
  std::vector<std::uint64_t> lds_words_;
  std::vector<std::uint32_t> bank_words_;
};

}  // namespace kernsim::mem
