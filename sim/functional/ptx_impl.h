// Internal to sim/functional: the state of one CTA under execution and its warps.
// Included by the ptx_*.cpp files that implement the instruction semantics.
#pragma once

#include <bit>
#include <memory>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "sim/functional/ptx_exec.h"

namespace kernsim::sim {

using isa::ptx::Bank;
using isa::ptx::Inst;
using isa::ptx::Op;
using isa::ptx::Reg;
using isa::ptx::Space;
using isa::ptx::Ty;

inline constexpr std::uint32_t kFullMask = 0xffffffffu;
inline constexpr std::int32_t kNoReconv = -1;

struct SimtEntry {
  std::uint32_t pc;
  std::int32_t reconv;  // kNoReconv: never reached (lanes leave by ret/exit)
  std::uint32_t mask;
};

struct Frame {
  std::uint32_t func = 0;
  std::uint32_t r32 = 0, r64 = 0, pred = 0;   // bases (in registers, not rows) into the warp's banks
  std::uint32_t local_base = 0;               // byte offset in each lane's local memory
  std::uint32_t param_base = 0;               // byte offset in each lane's param area
  std::size_t simt_base = 0;                  // SIMT stack size when the frame was entered
  std::uint32_t returned = 0;                 // lanes that executed ret in this frame
  std::int32_t call_site = -1;                // Program::calls index (callee frames)
};

// Endless-loop watch of one warp (PtxCta::Impl::watch_backedge). Every kSpinSampleEvery-th
// uniform backward branch taken, the warp's whole register state is compared with the copy
// taken at the previous sample. Equal state at the same branch while the launch's store epoch
// (GlobalMemory::stores) stood still makes the warp a suspect: its steps stop counting as the
// launch's progress and a functional driver gives the other warps a turn. A suspect whose state
// repeats once more while no other warp of the launch made progress and nothing was stored can
// never leave its loop: execution from an identical state over identical memory is identical.
inline constexpr std::uint32_t kSpinSampleEvery = 1024;  // backward branches between samples (power of 2)

struct SpinWatch {
  std::uint32_t backedges = 0;      // uniform backward branches taken
  std::uint32_t pc = 0xffffffffu;   // the sampled branch
  std::uint32_t head = 0;           // its target: the loop is [head, pc]
  std::uint64_t stores = 0;         // store epoch at the last sample
  std::uint64_t progress = 0;       // the launch's progress when the warp became a suspect
  bool suspect = false;
  bool yield = false;               // a functional driver should run other warps now
  std::vector<std::uint32_t> r32, pred, s32;
  std::vector<std::uint64_t> r64, s64;
  std::vector<std::uint32_t> stack;  // pc, reconv, mask of each SIMT entry
  std::uint32_t exited = 0, carry = 0;
};

// A wgmma.mma_async a warp has issued and not yet performed (sim/functional/ptx_wgmma.cpp): it is
// performed when a wgmma.wait_group lets its group complete, reading shared memory and the
// accumulators then, as the asynchronous hardware may.
struct WgmmaOp {
  std::uint32_t pc = 0;
  std::size_t frame = 0;                  // Warp::frames.size() at issue: D lives in that frame
  std::uint64_t desc_a = 0, desc_b = 0;   // shared-memory matrix descriptors (desc_a unused with A in registers)
  bool scale_d = true;                    // false: D = A*B, the accumulators' old values ignored
  std::array<std::uint32_t, 4 * 32> a{};  // A in registers: its four registers at issue, register-major
};

struct Warp {
  int index = 0;                      // warp within the CTA
  std::uint32_t valid = 0;            // lanes that exist (partial last warp)
  std::uint32_t exited = 0;
  std::vector<SimtEntry> stack;
  std::vector<Frame> frames;
  std::vector<std::uint32_t> r32;     // rows of 32 lanes, all frames
  std::vector<std::uint64_t> r64;
  std::vector<std::uint32_t> pred;    // one mask per predicate register
  std::vector<std::uint32_t> s32;     // special registers (rows)
  std::vector<std::uint64_t> s64;
  // Per-lane local memory and param areas (call frames), allocated only for kernels that use
  // them so that a warp stays small and hot in cache.
  struct LaneMemory {
    std::array<std::vector<std::uint8_t>, 32> local;
    std::array<std::vector<std::uint8_t>, 32> params;
  };
  std::unique_ptr<LaneMemory> lanes;
  LaneMemory& lm() {
    if (!lanes) lanes = std::make_unique<LaneMemory>();
    return *lanes;
  }
  std::uint32_t carry = 0;            // per-lane carry flag (add.cc / addc)
  bool waiting = false;               // at a barrier
  int barrier_id = -1;
  // barrier.cluster: lanes that arrived in the cluster barrier's current phase, whether the warp
  // arrived and has not waited yet, the phase it arrived in, and whether it waits now
  std::uint32_t cluster_arrived = 0;
  bool cluster_pending = false;
  bool cluster_wait = false;
  std::uint64_t cluster_phase = 0;
  std::uint32_t cp_async_pending = 0;  // committed groups (functional copies complete at once)
  std::vector<WgmmaOp> wgmma;              // issued wgmma.mma_async, oldest first
  std::vector<std::uint32_t> wgmma_groups;  // sizes of the committed wgmma groups in flight, oldest first
  std::vector<bool> wgmma_regs;             // R32 registers (of the issuing frame) that pending wgmmas write
  std::array<std::uint64_t, 32> addrs{};  // last memory instruction's lane addresses
  std::uint64_t frag_pitch = 0;           // wmma.load/store: bytes between the fragment's strided lines
  SpinWatch spin;
  // mbarrier waits (ptx_async.cpp): a failing test_wait/try_wait blocks the warp for the
  // functional driver, which runs the other warps; `stuck` when the warp's state is the same as at
  // its previous failing wait and nothing was stored since (it can only repeat that wait)
  bool mbar_blocked = false, mbar_stuck = false;
  std::uint32_t mbar_addr = 0;  // the mbarrier it waits on
  SpinWatch mbar_watch;         // its state at the previous failing wait
  AsyncStep async;              // what its last async instruction did
  // cached row bases of the current frame
  std::uint32_t* cur32 = nullptr;
  std::uint64_t* cur64 = nullptr;
  std::uint32_t* curp = nullptr;

  void bind_frame() {
    const Frame& f = frames.back();
    cur32 = r32.data() + std::size_t{f.r32} * 32;
    cur64 = r64.data() + std::size_t{f.r64} * 32;
    curp = pred.data() + f.pred;
  }
};

struct Barrier {
  std::uint32_t arrived = 0;   // threads
  std::uint32_t expected = 0;  // 0: all live threads of the CTA
  std::vector<int> waiting;    // warps
  std::uint32_t red_popc = 0;
  bool red_and = true, red_or = false;
};

// What the CTAs of one cluster share: each other (distributed shared memory) and the cluster
// barrier. A CTA leaving the cluster (its PtxCta destroyed) clears its member entry.
struct ClusterState {
  std::vector<PtxCta::Impl*> members;  // by %cluster_ctarank
  std::array<std::uint32_t, 3> id{};   // %clusterid
  std::uint64_t index = 0;             // linear cluster index
  std::uint64_t completed = 0;         // barrier.cluster phases completed
  std::uint32_t arrived = 0;           // threads arrived in the current phase
};

// A CTA's tensor memory (tcgen05, sim/functional/ptx_tcgen05.cpp): 128 lanes x the device's
// columns of 32 bits, made at the CTA's first tcgen05.alloc; the allocations it holds (first
// column, columns) and whether it gave up the right to allocate.
struct TensorMemory {
  std::vector<std::uint32_t> cells;  // lane-major: cells[lane * columns + column]
  std::uint32_t columns = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> allocs;
  bool relinquished = false;
};

// A decoded tcgen05.mma instruction descriptor (.kind::f16/tf32/f8f6f4/i8).
struct TcDesc {
  Ty a = Ty::None, b = Ty::None, d = Ty::None;
  int m = 0, n = 0, k = 0;
  bool neg_a = false, neg_b = false, mn_a = false, mn_b = false, sat = false;
  bool packed = false;           // fp4 two to a byte (.kind::mxf4/mxf4nvf4), else one element per byte or more
  int scales = 0;                // block-scaled kinds: scale factors per row of A / column of B (1, 2, 4); else 0
  int sf_a_id = 0, sf_b_id = 0;  // the byte of a TMEM cell the first scale factor of A / B is in
  bool ue4m3 = false;            // scale factors ue4m3 (else ue8m0)
  bool ws = false;               // tcgen05.mma.ws (weight-stationary: M 32/64/128, N 64/128/256)
  bool sparse = false;           // tcgen05.mma.sp: A holds K / 2 of every row's K elements (k is the logical K)
  int selector = 0;              // tcgen05.mma.sp: the sparsity selector (instruction descriptor bits 0-1)
};

struct PtxCta::Impl {
  PtxCta& self;
  PtxKernel& k;
  const isa::ptx::Program& p;
  std::uint64_t linear = 0;
  std::array<std::uint32_t, 3> ctaid{};
  std::vector<Warp> warps;
  std::vector<std::uint8_t> shared;
  std::array<Barrier, 16> barriers;
  std::uint32_t live_threads = 0;
  int live_warps = 0;
  int waiting_warps = 0;  // at a barrier; == live_warps (> 0) is a deadlock, since a barrier
                          // completes in the step of its last arrival or of the exit it waits for
  int cluster_waiting = 0;  // warps at barrier.cluster.wait
  std::shared_ptr<ClusterState> cluster;  // null: a launch without clusters
  std::uint32_t rank = 0;                 // %cluster_ctarank
  TensorMemory tmem;                      // tcgen05
  bool clc_failed_seen = false;  // a query_cancel of this CTA read a failed try_cancel response
  bool no_transfer = false;      // the step's ld/st forms and checks its addresses only (PtxKernel::set_addresses_only)

  Impl(PtxCta& s, PtxKernel& kernel, std::uint64_t cta_linear, std::shared_ptr<ClusterState> cl, std::uint32_t r);

  // ---- clusters (ptx_cluster.cpp) ---------------------------------------------------------
  // The shared memory of CTA `target` of this CTA's cluster: `bytes` at shared::cta `offset`
  // there, checked (rank, bounds, a CTA that has exited); faults name warp w's instruction.
  // Distributed shared memory, mapa and the mbarrier/bulk-copy paths that address another CTA
  // of the cluster go through it.
  std::uint8_t* cluster_shared(Warp& w, const Inst& in, int lane, std::uint32_t target, std::uint64_t offset, std::uint32_t bytes,
                               bool write);
  // mapa: the shared::cluster address (generic: its generic view) of the variable at `a` in CTA
  // `target`; faults when target is not a rank of the cluster or a generic `a` is not shared memory
  std::uint64_t cluster_map(Warp& w, const Inst& in, int lane, std::uint64_t a, std::uint32_t target, bool generic);
  std::uint32_t cluster_size() const { return cluster ? static_cast<std::uint32_t>(cluster->members.size()) : 1; }
  // barrier.cluster.arrive / .wait for the lanes in `mask`; true when the step completed the barrier
  std::uint32_t cluster_special(const std::string& name) const;  // %clusterid.x, %cluster_ctarank, ...
  void ensure_cluster();
  bool cluster_arrive(Warp& w, std::uint32_t mask);
  bool cluster_wait_at(Warp& w, const Inst& in, std::uint32_t mask, StepInfo& info);
  // Lanes of w exit: they no longer count as arrived (nor as expected); true when that completes it.
  bool cluster_lanes_exit(Warp& w, std::uint32_t lanes);
  // Every live warp of the cluster waits at a barrier and one waits at the cluster's: none can arrive.
  void check_cluster_deadlock();

  // ---- rows -------------------------------------------------------------------------------
  std::uint32_t* row32(Warp& w, Reg r) {
    switch (r.bank) {
      case Bank::R32: return w.cur32 + std::size_t{r.idx} * 32;
      case Bank::C32: return const_cast<std::uint32_t*>(p.c32.data()) + std::size_t{r.idx} * 32;
      case Bank::S32: return w.s32.data() + std::size_t{r.idx} * 32;
      default: bad_bank(r, 32);
    }
  }
  std::uint64_t* row64(Warp& w, Reg r) {
    switch (r.bank) {
      case Bank::R64: return w.cur64 + std::size_t{r.idx} * 32;
      case Bank::C64: return const_cast<std::uint64_t*>(p.c64.data()) + std::size_t{r.idx} * 32;
      case Bank::S64: return w.s64.data() + std::size_t{r.idx} * 32;
      default: bad_bank(r, 64);
    }
  }
  std::uint32_t& predr(Warp& w, Reg r) {
    if (r.bank != Bank::Pred) bad_bank(r, 1);
    return w.curp[r.idx];
  }
  // Generic lane read/write for less common operations (any bank, zero-extended).
  std::uint64_t get(Warp& w, Reg r, int lane) {
    switch (r.bank) {
      case Bank::R32: case Bank::C32: case Bank::S32: return row32(w, r)[lane];
      case Bank::R64: case Bank::C64: case Bank::S64: return row64(w, r)[lane];
      case Bank::Pred: return (w.curp[r.idx] >> lane) & 1u;
      case Bank::None: return 0;
    }
    return 0;
  }
  void put(Warp& w, Reg r, int lane, std::uint64_t v) {
    switch (r.bank) {
      case Bank::R32: w.cur32[std::size_t{r.idx} * 32 + lane] = static_cast<std::uint32_t>(v); break;
      case Bank::R64: w.cur64[std::size_t{r.idx} * 32 + lane] = v; break;
      case Bank::Pred: {
        std::uint32_t& m = w.curp[r.idx];
        m = (m & ~(1u << lane)) | (static_cast<std::uint32_t>(v & 1) << lane);
        break;
      }
      case Bank::None: break;  // sink `_`
      default: bad_bank(r, 0);
    }
  }
  [[noreturn]] void bad_bank(Reg r, int bits);

  // ---- errors -----------------------------------------------------------------------------
  [[noreturn]] void fault(const Warp& w, const Inst& in, int lane, const std::string& what);
  [[noreturn]] void unsupported(const Inst& in, const std::string& what);
  std::string thread_name(const Warp& w, int lane) const;
  // a uniform backward branch at pc to head was taken: sample the warp's state now and then,
  // and throw KernelFault when it is an endless loop (see SpinWatch)
  void watch_backedge(Warp& w, std::uint32_t pc, std::uint32_t head);
  [[noreturn]] void endless_loop(const Warp& w);
  [[noreturn]] void deadlock();

  // ---- semantics (ptx_alu.cpp, ptx_mem.cpp, ptx_warp.cpp, ptx_mma.cpp) --------------------
  void exec_alu(Warp& w, const Inst& in, std::uint32_t mask);
  void exec_cvt(Warp& w, const Inst& in, std::uint32_t mask);
  Space exec_mem(Warp& w, const Inst& in, std::uint32_t mask);
  void exec_warp(Warp& w, const Inst& in, std::uint32_t mask);
  Space exec_mma(Warp& w, const Inst& in, std::uint32_t mask);
  void exec_wgmma(Warp& w, const Inst& in, std::uint32_t mask);  // ptx_wgmma.cpp
  void perform_wgmma(Warp& w, const WgmmaOp& op);
  // an instruction other than wgmma touching a pending wgmma's accumulators: ptxas serializes
  // (performs the pending wgmmas first); so does kernsim
  void wgmma_hazard(Warp& w, const Inst& in);
  void perform_all_wgmma(Warp& w);
  Space exec_async(Warp& w, const Inst& in, std::uint32_t mask);  // ptx_async.cpp
  Space exec_tcgen05(Warp& w, const Inst& in, std::uint32_t mask);  // ptx_tcgen05.cpp
  // tcgen05.commit by lane l: an arrive-on (count 1) on its mbarrier (each CTA of ctaMask with
  // .multicast::cluster), noted as MbarEvent::What::Commit (ptx_async.cpp)
  void tcgen05_commit_lane(Warp& w, const Inst& in, int l);
  std::uint64_t tc_uniform(Warp& w, const Inst& in, int i, const char* what);
  TensorMemory& tmem_state(Warp& w, const Inst& in);
  void tmem_alloc(Warp& w, const Inst& in);
  void tmem_dealloc(Warp& w, const Inst& in);
  // Columns [col, col + n) are allocated in `owner`'s tensor memory (null: this CTA's); faults otherwise.
  void tmem_check(Warp& w, const Inst& in, int lane, std::uint32_t col, std::uint32_t n, const char* what,
                  const Impl* owner = nullptr);
  Impl& pair_cta(Warp& w, const Inst& in, int l, int h);
  void tmem_ld_st(Warp& w, const Inst& in);
  void tc_mma_lane(Warp& w, const Inst& in, int l);
  void tc_cp_lane(Warp& w, const Inst& in, int l);
  void tc_cp_into(Warp& w, const Inst& in, int l, Impl& c);
  void tc_shift_lane(Warp& w, const Inst& in, int l);
  void tmem_ld_red(Warp& w, const Inst& in, int n);
  void tc_sparse_expand(Warp& w, const Inst& in, int l, const TcDesc& d, const Impl& c, int M, std::uint32_t lane_base,
                        const double* cf, const std::int32_t* ci, double* f, std::int32_t* iv);
  void tc_a_from_tmem(Warp& w, const Inst& in, int l, const TcDesc& d, const Impl& c, std::uint32_t ta, int M, int nb,
                      double* f, std::int32_t* iv);
  void tc_zero_columns(Warp& w, const Inst& in, int l, int M, int N, std::vector<char>& zero, int& shift);
  static std::uint32_t tc_dot(const TcDesc& d, const double* a, const std::int32_t* ai, const double* b,
                              const std::int32_t* bi, bool enable_d, int scale, bool scaled, std::uint32_t old);
  void tc_smem_operand(Warp& w, const Inst& in, int l, const TcDesc& d, const std::vector<std::uint8_t>& sv,
                       std::uint64_t desc, const char* which, bool mn_major, Ty ty, int rows, bool neg, double* f,
                       std::int32_t* iv);
  TcDesc tc_idesc(Warp& w, const Inst& in, int l, std::uint32_t v);
  TcDesc tc_idesc_scaled(Warp& w, const Inst& in, int l, std::uint32_t v);
  std::vector<double> tc_scales(Warp& w, const Inst& in, int l, const TcDesc& d, int src, int rows, int id,
                                const Impl& c, int half = 0);

  // The shared memory of the CTA that a .shared::cluster address names, `bytes` from it: the own
  // CTA's window (a .shared::cta address is a .shared::cluster address of its own CTA). Other
  // CTAs of a cluster stop with "needs clusters" until clusters connect here.
  std::uint8_t* cluster_shared(Warp& w, const Inst& in, std::uint64_t addr, std::uint32_t bytes, int lane);
  [[noreturn]] void mbar_deadlock() const;

  // memory helpers
  std::uint64_t lane_address(Warp& w, const isa::ptx::Addr& a, int lane);
  void warp_addresses(Warp& w, const isa::ptx::Addr& a, std::uint32_t mask);  // fills w.addrs for Reg bases
  std::uint8_t* resolve(Warp& w, const Inst& in, Space space, std::uint64_t addr, std::uint32_t bytes, int lane,
                        bool write, Space* resolved);
  // `count` consecutive elements of `bytes` each from addr: their storage when they lie in one
  // piece of one space (the first element checked and reported as resolve() would), else nullptr
  // (the caller goes element by element, and resolve() names the element at fault).
  std::uint8_t* resolve_run(Warp& w, const Inst& in, Space space, std::uint64_t addr, std::uint32_t bytes, std::uint32_t count,
                            int lane, bool write, Space* resolved);
  std::uint32_t shared_size() const { return static_cast<std::uint32_t>(shared.size()); }
};

// The warp's registers, predicates, SIMT stack and special registers (the endless-loop watch).
void snapshot(const Warp& w, SpinWatch& s);
bool same_state(const Warp& w, const SpinWatch& s);
// One atomic read-modify-write of type t at ptr; returns the old value (zero-extended bits).
std::uint64_t atomic_rmw(std::uint8_t* ptr, Ty t, isa::ptx::AtomOp op, std::uint64_t b, std::uint64_t c);
// Runs the CTAs of a cluster to completion, taking turns (ptx_cluster.cpp).
void run_cluster(ClusterState& cl);

// bit casts between storage and values
template <class T> inline T from32(std::uint32_t s) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<T>(s);
  else return static_cast<T>(s);
}
template <class T> inline std::uint32_t to32(T v) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<std::uint32_t>(v);
  else if constexpr (std::is_signed_v<T>) return static_cast<std::uint32_t>(static_cast<std::make_unsigned_t<T>>(v));
  else return static_cast<std::uint32_t>(v);
}
template <class T> inline T from64(std::uint64_t s) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<T>(s);
  else return static_cast<T>(s);
}
template <class T> inline std::uint64_t to64(T v) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<std::uint64_t>(v);
  else return static_cast<std::uint64_t>(v);
}

// Runs f(lane) for every lane in mask; the full-warp case is a plain loop the compiler vectorises.
template <class F> inline void for_lanes(std::uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    while (mask) {
      int l = std::countr_zero(mask);
      f(l);
      mask &= mask - 1;
    }
  }
}

}  // namespace kernsim::sim
