// kernsim::device::DeviceSpec — the typed description of one GPU, loaded from a device file.
//
// A device file (calibration/devices/*.yaml) describes a part hierarchically, like the
// hardware: clocks; the SM/CU with its schedulers/SIMDs, register file and limits; the
// instruction pipes with their issue intervals and latencies; shared memory/LDS and banks;
// L1; L2 in slices/channels; MALL; HBM; launch costs. Every number in the file carries its
// provenance (source + confidence); DeviceSpec keeps that beside the typed values so reports,
// calibration and docs can say how well each number is grounded.
//
// Model code reads plain fields (`spec.sm.count`, `spec.l2.hit_latency_cycles`); it never sees
// YAML. Fields that only one vendor has are documented as such and are zero for the other.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kernsim::device {

// What the models can hold. A device file beyond these is rejected at load with the key and the
// limit (loader.cpp, check_model_limits); the memory and timing models rely on them instead of
// checking per access.
inline constexpr std::int64_t kNvidiaWarpSize = 32;      // NVIDIA lane masks are 32 bits wide
inline constexpr std::int64_t kMaxWarpSize = 64;         // AMD lane masks are 64 bits wide
inline constexpr std::int64_t kMaxSectorsPerLine = 4;    // mem::SectorCache keeps fill times and word masks for 4 sectors
inline constexpr std::int64_t kMaxLineWordBytes = 128;   // a sector's (AMD: line's) written 4-byte words are one 32-bit mask
inline constexpr std::int64_t kMaxCacheWays = 256;       // mem::SectorCache keeps a set's use order in a byte a way

enum class Vendor { Nvidia, Amd };
// Measured: measured by this project on the part; PublishedMeasurement: a third party's published
// measurement (paper, article, repository data) of a part this project cannot measure.
enum class Confidence { Documented, Measured, Estimated, Fitted, PublishedMeasurement };

const char* to_string(Vendor v);
const char* to_string(Confidence c);

struct Provenance {
  std::string source;     // URL, a key of the file's `sources:` table, or "measured: ..." text
  Confidence confidence = Confidence::Estimated;
  std::string note;
  std::optional<double> residual;  // for fitted values: relative fit residual
  std::string file;                // device file the value came from (after `inherits`)
  int line = 0;
};

// Issue interval and latency of one instruction class on one scheduler (NVIDIA sub-partition)
// or SIMD (AMD). issue_cycles: cycles the pipe is busy per warp/wave instruction, i.e. the
// reciprocal throughput; latency_cycles: issue to dependent issue.
struct Pipe {
  double issue_cycles = 0;
  double latency_cycles = 0;
};

struct Pipes {
  Pipe int_alu;     // integer add/logic/shift/compare (NVIDIA: ALU pipe; AMD: VALU int)
  Pipe int_mul;     // integer multiply / mad (NVIDIA: IMAD on the FMA pipe)
  Pipe fp32;        // fp32 add/mul/fma
  Pipe fp16;        // packed half/bfloat arithmetic (HFMA2 / v_pk_*_f16)
  Pipe fp64;        // fp64 add/mul/fma
  Pipe sfu;         // transcendentals, rcp/rsqrt/sqrt approximations (MUFU / quarter-rate VALU)
  Pipe convert;     // type conversions
  Pipe branch;      // branches, predicate logic, control
  Pipe tensor_f16;  // one dense f16/bf16 matrix instruction (mma.sync m16n8k16 / v_mfma 16x16x16)
  Pipe tensor_tf32; // tf32 / xf32 matrix instruction (m16n8k8 / v_mfma 16x16x8 xf32)
  Pipe tensor_i8;   // int8 matrix instruction (m16n8k32 / v_mfma i32 16x16x32)
  Pipe tensor_fp8;  // fp8 matrix instruction (m16n8k32 e4m3 / v_mfma 16x16x32 fp8)
  Pipe tensor_f64;  // fp64 matrix instruction (DMMA m8n8k4 / v_mfma f64 16x16x4)
  Pipe scalar;      // AMD scalar unit (SALU); unused on NVIDIA
};

struct Clocks {
  double core_mhz = 0;    // the clock the pipeline model counts cycles in
  double memory_mhz = 0;  // HBM data clock (informational; bandwidths are given directly)
  double tensor_mhz = 0;  // NVIDIA: the SM clock while kernels that use the tensor pipes run (0: core_mhz)
  double wgmma_mhz = 0;   // NVIDIA sm_90a: the SM clock while kernels that issue wgmma.mma_async run (0: tensor_mhz)
  double l2_mhz = 0;      // NVIDIA: the L2's own clock, which does not follow the SM clock (0: the L2 keeps SM cycles)
  // NVIDIA sm_90a: the SM clock of a wgmma kernel as a function of its tensor engines' busy share
  // b of the launch, linear from wgmma_idle_mhz (b = 0) to wgmma_full_mhz (b = 1); both 0: the
  // constant wgmma_mhz (wgmma_load_mhz())
  double wgmma_idle_mhz = 0;
  double wgmma_full_mhz = 0;
  double realtime_mhz = 0;  // AMD: the constant reference clock (REFCLK) s_memrealtime counts; NVIDIA: 0
};

struct Limits {
  std::int64_t max_threads_per_block = 0;
  std::array<std::int64_t, 3> max_block_dim{};
  std::array<std::int64_t, 3> max_grid_dim{};
  std::int64_t max_shared_per_block_bytes = 0;  // opt-in maximum (dynamic + static)
  std::int64_t max_registers_per_thread = 0;    // NVIDIA: per thread; AMD: VGPRs per lane (arch+acc)
};

// NVIDIA SM or AMD CU.
struct ComputeUnit {
  std::int64_t count = 0;           // SMs / CUs on the part
  std::int64_t sub_partitions = 0;  // NVIDIA: SMSPs (warp schedulers); AMD: SIMDs
  std::int64_t lanes_per_sub = 0;   // NVIDIA: FP32 lanes per SMSP; AMD: SIMD width
  std::int64_t warp_size = 0;       // 32 / 64
  std::int64_t max_threads = 0;     // resident threads per SM/CU
  std::int64_t max_warps = 0;       // resident warps/waves per SM/CU
  std::int64_t max_blocks = 0;      // resident CTAs/workgroups per SM/CU
  std::int64_t registers = 0;       // NVIDIA: 32-bit registers per SM; AMD: VGPRs per SIMD lane
  std::int64_t register_alloc_unit = 0;  // NVIDIA: regs per warp granule; AMD: VGPR granule
  std::int64_t scalar_registers = 0;     // AMD: SGPRs per SIMD; NVIDIA: 0
  std::int64_t issue_per_cycle = 0;      // instructions a scheduler issues per cycle
  double block_launch_cycles = 0;        // cycles from a CTA slot freeing to the next CTA's first issue
  // The scheduler's choice among its ready warps (waves): NVIDIA "greedy_then_oldest" or
  // "loose_round_robin"; AMD "oldest_first_by_priority" (sim/timing/warp_scheduler.h, amd_policies.h).
  std::string warp_scheduler;
  // AMD only (zero on NVIDIA): the CU's sequencer and wave state.
  double issue_interval_cycles = 0;      // cycles between one SIMD's issue opportunities (one SIMD per cycle, round-robin)
  std::int64_t scalar_register_alloc_unit = 0;  // SGPR allocation granule
  std::int64_t vm_counter_max = 0;       // largest vmcnt: a wave with this many vector memory ops in flight stalls
  std::int64_t lgkm_counter_max = 0;     // largest lgkmcnt (LDS, scalar memory, messages)
  double barrier_latency_cycles = 0;     // s_barrier: last arrival to the waiting waves' next issue
  double sleep_unit_cycles = 0;          // s_sleep N sleeps N units
  double mfma_read_extra_cycles = 0;     // after an MFMA's last pass until a non-MFMA instruction may read its result
  // NVIDIA only (zero on AMD): CTA barriers and warp-wide operations. barrier_latency_cycles
  // above is bar.sync's last arrival to the released warps' next issue on both vendors.
  double barrier_cycles_per_warp = 0;    // bar.sync: time the CTA's barrier takes per arriving warp
  double barrier_sm_cycles_per_arrival = 0;  // bar.sync: time the SM's barrier unit, shared by its CTAs, takes per arrival (absent 0)
  double cta_turnover_cycles = 0;        // from a CTA's last warp exiting to the next CTA's first instruction in its slot
  double vote_latency_cycles = 0;        // vote.sync (VOTE): issue to dependent issue
  // what ptxas's denormal guard around a non-ftz ex2/lg2/rsqrt/sqrt.approx.f32 MUFU (FSETP, a
  // predicated FMUL before, a predicated FMUL or FADD after) adds to the chain (0: three FP32
  // latencies)
  double mufu_guard_latency_cycles = 0;
  double taken_branch_cycles = 0;  // a warp's wait after a control transfer (taken branch, switch to another divergent path); absent 0
  double redux_latency_cycles = 0;       // redux.sync (REDUX): issue to dependent issue
  // barrier.cluster: last arrival in the cluster to the released warps' next issue, for the
  // default (.release) arrival, a .relaxed one, and a CTA launched without clusters
  double cluster_barrier_latency_cycles = 0;
  double cluster_barrier_relaxed_latency_cycles = 0;
  double cluster_barrier_one_cta_latency_cycles = 0;
  // 1: a matrix instruction and the FMA/ALU pipes' instructions occupy each other's pipes for
  // their issue intervals (an HMMA and the instructions around it do not overlap); 0: independent
  std::int64_t tensor_shares_math_pipes = 0;
  // NVIDIA sm_90a: the SM's tensor engine that serves wgmma.mma_async for its four sub-partitions
  // (sim/timing/units/tensor_engine.h): dense FLOP per SM cycle per input type, and the latency
  // from the end of an operation's service to its completion.
  double wgmma_flops_per_cycle_f16 = 0;   // f16/bf16 inputs
  double wgmma_flops_per_cycle_tf32 = 0;
  double wgmma_flops_per_cycle_fp8 = 0;   // e4m3/e5m2
  double wgmma_flops_per_cycle_i8 = 0;    // s8/u8
  double wgmma_latency_cycles = 0;
  // a result read by an instruction of the other pipe (FMA pipe: FFMA, IMAD, VIADD, HFMA2; ALU
  // pipe: LOP3, SHF, IADD3, FMNMX) arrives this many cycles later than on its own pipe
  double cross_pipe_latency_cycles = 0;

  // Resident warps one scheduler holds (AMD: the wave slots of one SIMD); the loader makes
  // max_warps a multiple of sub_partitions on AMD, where the slots are per SIMD.
  std::int64_t max_warps_per_sub() const { return sub_partitions > 0 ? max_warps / sub_partitions : 0; }
};

struct SharedMemory {
  std::int64_t bytes_per_unit = 0;          // max shared/LDS per SM/CU
  std::int64_t reserved_per_block_bytes = 0;
  std::int64_t alloc_unit_bytes = 0;
  std::int64_t banks = 0;
  std::int64_t bank_width_bytes = 0;
  double latency_cycles = 0;                // load-to-use, no conflicts
  double conflict_latency_cycles = 0;       // extra latency per additional (conflicting) wavefront
  double bytes_per_cycle = 0;               // per SM/CU
  // NVIDIA only: the shared-memory capacities above 0 the unified L1/shared array can be split at
  // (the carveout), rising; the driver gives a kernel the smallest that holds its resident CTAs' shared
  // memory, and the L1 keeps the rest of l1.bytes. Empty: the L1 keeps l1.bytes less the bytes
  // the CTAs use.
  std::vector<std::int64_t> carveout_steps_bytes;
  // NVIDIA only: distributed shared memory, another CTA of the cluster's shared memory through the
  // SM-to-SM network: load-to-use latency and the bytes one SM moves per cycle
  double dsmem_latency_cycles = 0;
  double dsmem_bytes_per_cycle = 0;
  // AMD only: the LDS is reached through ports shared by pairs of SIMDs; each moves
  // `port_bytes_per_cycle` per direction, and a lane's address travels on the input port with
  // store data.
  double port_bytes_per_cycle = 0;
  std::int64_t simds_per_port = 0;
  double address_bytes_per_lane = 0;
};

struct Cache {
  std::int64_t bytes = 0;          // capacity of one instance (L1: per SM/CU; L2: whole part or per XCD)
  std::int64_t line_bytes = 0;
  std::int64_t sector_bytes = 0;   // fill/transfer granule (NVIDIA 32 B); = line for AMD
  std::int64_t ways = 0;
  double hit_latency_cycles = 0;
  double bytes_per_cycle = 0;      // per instance
};

struct L1Cache : Cache {
  std::int64_t max_outstanding_lines = 0;  // lines one SM/CU may have in flight to L2 (MSHR-like)
  // NVIDIA: how a line's address picks its set: "multiplicative" (a multiplicative hash of the
  // line number, the default) or "xor" (the line number's bits folded by exclusive-or, so that a
  // contiguous footprint fills every set evenly); mem::SectorCache::Index
  std::string set_hash;
  // The SM's port to L2: cycles it is busy per line request sent beyond L1, plus, for stores,
  // per sector of data carried (a partly written sector also carries its byte mask).
  double miss_request_cycles = 0;
  double store_sector_cycles = 0;
  double store_partial_sector_cycles = 0;
  std::int64_t store_combine_lines = 0;  // a warp's latest store lines that a new store to the same line joins
  double lines_per_cycle = 0;  // distinct lines one SM's L1 pipeline looks up per cycle
};

struct L2Cache : Cache {
  std::int64_t instances = 0;      // NVIDIA: 1; MI300X: 8 (one per XCD)
  std::int64_t slices = 0;         // slices/channels per instance
  std::int64_t partitions = 0;     // NVIDIA: 2 (near/far); AMD: 1
  double far_hit_latency_cycles = 0;
  // NVIDIA: bandwidth between the partitions (the B200's die-to-die link) that an SM's accesses to
  // lines of the other partition cross; 0 (absent): the partitions are not modelled
  double cross_partition_bytes_per_cycle = 0;
  std::string channel_hash;        // AMD: how lines map to the slices/channels: "interleave" or "xor" (mem::ChannelHash)
  // Throughput cost of one request (a line's sectors from one instruction), in units of one
  // sector read: reads cost 1 per sector plus an overhead per request; writes cost more.
  double read_request_overhead = 0;
  double write_request_overhead = 0;
  double write_sector_cost = 0;          // a whole sector written
  double partial_write_sector_cost = 0;  // part of a sector written (merge in L2)
  double atomic_ops_per_cycle = 0; // per slice: atomic sector requests (distinct addresses) per cycle
  std::int64_t atomic_unit_bytes = 0;  // NVIDIA: aligned address span one slice's atomic unit owns (0: one line)
  double atomic_same_address_cycles = 0;  // per extra integer operation on one address (serialised)
  double atomic_float_same_address_cycles = 0;  // the same for floating-point atomics
  // NVIDIA: an atomic unit's time per line request at least when the request is to another line
  // than its previous one (0: none beyond its sector passes), and its time for each further
  // operation on an address within one request, integer and
  // floating point (0: atomic_*same_address_cycles). Operations on one address also follow
  // each other by atomic_*same_address_cycles across requests, while the unit serves other
  // addresses' passes in between.
  double atomic_request_cycles = 0;
  double atomic_pass_cycles = 0;
  double atomic_float_pass_cycles = 0;
  double atomic_latency_cycles = 0;      // issue to result of one atomic, unloaded
  // NVIDIA: the sectors of atomic requests the whole chip's units serve per SM cycle at most
  // (0: no limit beyond the units')
  double atomic_chip_sectors_per_cycle = 0;
  // NVIDIA: the fraction of the capacity that holds dirty (written, not yet written back) data at
  // most; the oldest dirty lines are written back beyond it. 0 (absent): the whole L2.
  double max_dirty_fraction = 0;
  // NVIDIA: a read of sectors that the other SM of the same TPC sent to the L2 at most this many
  // SM cycles earlier joins that request instead of reaching the L2 (0: no merging).
  double tpc_merge_window_cycles = 0;
  // NVIDIA: each slice's own read throughput (bytes per SM cycle): the L2's address spans of
  // atomic_unit_bytes go round its slices, and the reads of one span use only its slice, so a
  // few hot lines cannot use the whole L2's bytes_per_cycle (0: one pool for every read).
  double slice_read_bytes_per_cycle = 0;
};

struct Mall {
  std::int64_t bytes = 0;          // 0 when the part has none
  std::int64_t line_bytes = 0;     // AMD: lookup/fill granule
  std::int64_t ways = 0;
  double hit_latency_cycles = 0;
  double bandwidth_gbps = 0;
};

struct Dram {
  std::int64_t bytes = 0;
  std::int64_t channels = 0;
  std::int64_t access_bytes = 0;      // smallest transfer (burst) of one access
  double bandwidth_gbps = 0;          // peak, GB/s (1e9 bytes)
  double read_efficiency = 0;         // sustainable fraction of peak for a pure read stream
  double write_efficiency = 0;        // sustainable fraction of peak for a pure write stream
  double copy_efficiency = 0;         // sustainable fraction of peak for read+write streams
  double latency_cycles = 0;          // unloaded load-to-use from an SM/CU, core cycles
  // Latency under load: requests arriving at random queue at the banks before the bandwidth is
  // used up. A read waits queue_service_cycles * rho / (2 (1 - rho)) more (M/D/1), rho being the
  // HBM utilisation over the last latency_cycles, at most queue_max_cycles. Zero: no such wait.
  double queue_service_cycles = 0;
  double queue_max_cycles = 0;
  // NVIDIA: the spread of one access's latency around latency_cycles (its mean): the latency of
  // the accesses to one aligned latency_granule_bytes block is latency_cycles x q(u) / 1000, q
  // the per-mille quantile function through latency_quantiles_permille at u = 0, 0.1, 0.5, 0.9, 1
  // (linear between), u a fixed hash of the block. Empty: every access latency_cycles. A request
  // that spans blocks completes with its slowest.
  std::vector<std::int64_t> latency_quantiles_permille;
  std::int64_t latency_granule_bytes = 0;
};

// AMD scalar L1 data cache (sL1D), shared by a group of CUs; scalar loads (s_load_*) go through it.
struct ScalarCache {
  std::int64_t bytes = 0;
  std::int64_t line_bytes = 0;
  std::int64_t cus_per_cache = 0;
  double hit_latency_cycles = 0;
  double bytes_per_cycle = 0;
};

// AMD MFMA timing per instruction shape (the `mfma.<shape>` keys): cycles the SIMD's matrix core
// is busy, and cycles after issue during which the SIMD's VALU cannot issue (the instruction's
// own cycles when it cannot co-execute with VALU work, a few otherwise).
struct MfmaTiming {
  double cycles = 0;
  double valu_blocked_cycles = 0;
};

// The MFMA shapes a device file may time, spelled like the mnemonics without `v_mfma_`
// (fp8/bf8 operand pairs spelled out; f8f6f4 split by whether an operand is an 8-bit format).
inline constexpr const char* kMfmaShapes[] = {
    "f32_32x32x1_2b_f32", "f32_16x16x1_4b_f32", "f32_4x4x1_16b_f32", "f32_32x32x2_f32", "f32_16x16x4_f32",
    "f32_32x32x4_2b_f16", "f32_16x16x4_4b_f16", "f32_4x4x4_16b_f16", "f32_32x32x8_f16", "f32_16x16x16_f16",
    "f32_32x32x4_2b_bf16", "f32_16x16x4_4b_bf16", "f32_4x4x4_16b_bf16", "f32_32x32x8_bf16", "f32_16x16x16_bf16",
    "i32_32x32x4_2b_i8", "i32_16x16x4_4b_i8", "i32_4x4x4_16b_i8", "i32_32x32x16_i8", "i32_16x16x32_i8",
    "f32_16x16x8_xf32", "f32_32x32x4_xf32", "f64_16x16x4_f64", "f64_4x4x4_4b_f64",
    "f32_16x16x32_fp8_fp8", "f32_16x16x32_fp8_bf8", "f32_16x16x32_bf8_fp8", "f32_16x16x32_bf8_bf8",
    "f32_32x32x16_fp8_fp8", "f32_32x32x16_fp8_bf8", "f32_32x32x16_bf8_fp8", "f32_32x32x16_bf8_bf8",
    // gfx950 (CDNA4)
    "f32_16x16x32_f16", "f32_32x32x16_f16", "f32_16x16x32_bf16", "f32_32x32x16_bf16", "i32_16x16x64_i8",
    "i32_32x32x32_i8", "f32_16x16x128_f8f6f4_f8", "f32_16x16x128_f8f6f4_f6f4", "f32_32x32x64_f8f6f4_f8",
    "f32_32x32x64_f8f6f4_f6f4"};
inline constexpr int kNumMfmaShapes = static_cast<int>(sizeof(kMfmaShapes) / sizeof(kMfmaShapes[0]));

struct Launch {
  double overhead_us = 0;     // event-timed cost of an empty launch beyond kernel execution
  double cta_dispatch_cycles = 0;  // chip-wide cycles between consecutive CTA dispatches
  double clc_response_cycles = 0;  // clusterlaunchcontrol.try_cancel: issue to its response (sm_100)
};

// The fast analytical tier's free coefficients (cost_model/fast_model.h), fitted to measured
// launches of the part (`kernsim fit-fast`); all zero when the part has none fitted, and then the
// fast tier says so instead of predicting. Not hardware numbers: how the model combines the
// hardware numbers above.
struct FastTier {
  double overlap_exponent = 0;   // p of the p-norm that joins the SM's issue, latency and bandwidth times (1: sum, large: max)
  double latency_scale = 0;      // multiplies a CTA's dependent-path time (the in-order walk ignores scheduling and pipe conflicts)
  double l2_reuse_fraction = 0;  // share of the L2 that holds data re-read across CTAs (the rest churns with streaming data)
};

// NVIDIA sm_90+ only (zero elsewhere): the SM's tensor memory accelerator (TMA: cp.async.bulk,
// cp.async.bulk.tensor) and its mbarriers. A copy's data moves through the L2/HBM model; these
// are the engine's own costs around it (sim/timing/nvidia_machine.cpp, TmaEngine).
struct Tma {
  double issue_cycles = 0;      // the engine's time per copy request (address generation, descriptor read)
  double warp_issue_cycles = 0; // the issuing warp's time per cp.async.bulk{.tensor} (0: one cycle)
  double bytes_per_cycle = 0;   // bytes per SM cycle the engine moves into or out of shared memory
  double latency_cycles = 0;    // a copy's latency beyond its memory accesses' (to the mbarrier's bytes)
  double mbarrier_arrive_cycles = 0;  // an mbarrier arrival (or tx update) to its effect on the phase
  double mbarrier_wake_cycles = 0;    // a phase's completion to a sleeping or polling warp's next issue
  double try_wait_limit_cycles = 0;   // a failing try_wait without a suspend-time hint sleeps at most this long
};

// NVIDIA sm_100a only (zero elsewhere, where tcgen05 stops with its name): tensor memory and the
// 5th-generation tensor core (tcgen05). Functional: the TMEM columns each CTA allocates from;
// timing: the SM's tensor engine serving tcgen05.mma and the TMEM <-> register path
// (sim/timing/nvidia_machine.cpp), and TMEM as an occupancy limit (sim/timing/occupancy.cpp).
struct Tcgen05 {
  std::int64_t tmem_columns = 0;          // 32-bit columns of tensor memory per SM (each 128 lanes)
  double mma_flops_per_cycle_f16 = 0;     // dense FLOP per SM cycle of tcgen05.mma .kind::f16
  double mma_flops_per_cycle_tf32 = 0;    // .kind::tf32
  double mma_flops_per_cycle_f8f6f4 = 0;  // .kind::f8f6f4 and ::mxf8f6f4 (fp8, fp6 and fp4 operands)
  double mma_flops_per_cycle_f4 = 0;      // .kind::mxf4 and ::mxf4nvf4 (fp4 two to a byte, K = 64)
  double mma_flops_per_cycle_i8 = 0;      // .kind::i8
  double mma_latency_cycles = 0;          // end of an mma's service on the engine to its completion (A in TMEM)
  double mma_smem_latency_cycles = 0;     // added to it when A comes from shared memory
  std::int64_t mma_datapath_rows = 0;     // rows of D the engine computes at once: a smaller M costs as many
  double commit_latency_cycles = 0;       // completion of a thread's mmas to its tcgen05.commit's mbarrier arrival
  double ld_latency_cycles = 0;           // tcgen05.ld issue to its registers (tcgen05.wait::ld)
  double st_latency_cycles = 0;           // tcgen05.st issue to its data in TMEM (tcgen05.wait::st)
  double tmem_bytes_per_cycle = 0;        // TMEM <-> registers bytes per SM cycle (tcgen05.ld and .st)
};

struct Topology {
  std::int64_t dies = 0;        // NVIDIA: dies; AMD: XCDs
  std::int64_t units_per_die = 0;
  // NVIDIA only: the SMs of each GPC as the part is sold (floor-swept GPCs hold fewer); they
  // add up to sm.count. The CTAs of a cluster run on SMs of one GPC.
  std::vector<std::int64_t> gpc_sms;
  std::int64_t max_cluster_ctas = 0;              // largest portable cluster (every part of the family runs it)
  std::int64_t max_cluster_ctas_nonportable = 0;  // largest cluster with cudaFuncAttributeNonPortableClusterSizeAllowed
  std::int64_t tpc_sms = 0;  // NVIDIA: SMs of one TPC (texture processing cluster; 2 on Hopper; 0: not given)
};

class DeviceSpec {
 public:
  std::string name;          // file stem or `name:` key (e.g. "h200")
  std::string description;
  Vendor vendor = Vendor::Nvidia;
  std::string isa_target;    // sm_90a, sm_100a, gfx942, gfx950
  std::filesystem::path file;

  Clocks clocks;
  Limits limits;
  Topology topology;
  ComputeUnit sm;            // the SM (NVIDIA) or CU (AMD)
  Pipes pipes;
  SharedMemory shared;
  L1Cache l1;
  L2Cache l2;
  Mall mall;
  Dram dram;
  Launch launch;
  FastTier fast;             // optional: the fast tier's fitted coefficients
  Tma tma;                   // NVIDIA only
  Tcgen05 tcgen05;           // NVIDIA sm_100a only
  ScalarCache scalar_l1;     // AMD only
  std::array<MfmaTiming, kNumMfmaShapes> mfma{};  // AMD only; a shape is timed when the file gives mfma.<shape>.*

  // Dotted key path ("sm.count") -> where the value came from.
  std::map<std::string, Provenance> provenance;
  // The file's `sources:` table, key -> URL or description.
  std::map<std::string, std::string> sources;

  const Provenance& provenance_of(const std::string& key) const;
  // Fraction of numeric keys at each confidence level, for `kernsim devices --provenance`.
  std::map<Confidence, int> confidence_histogram() const;
};

// The part as it runs a kernel that uses the tensor pipes: the SM at clocks.tensor_mhz (when
// set), or at clocks.wgmma_mhz for a kernel that issues wgmma.mma_async (when set; the clock
// the SM drops to under the wgmma engine's power draw), HBM's latencies (fixed in time) in that
// clock's cycles; bandwidths given per second follow by themselves. When clocks.l2_mhz is set
// the L2 keeps its own clock, so its throughputs (given per SM cycle at clocks.core_mhz) grow
// per cycle of the slower SM clock. Other on-chip latencies and rates in cycles are unchanged.
DeviceSpec at_tensor_clock(const DeviceSpec& d, bool wgmma = false);
// The SM clock of a wgmma kernel whose tensor engines are busy `busy` (0..1) of the launch:
// clocks.wgmma_idle_mhz .. clocks.wgmma_full_mhz, linear; 0 when the part does not give them.
double wgmma_load_mhz(const DeviceSpec& d, double busy);

}  // namespace kernsim::device
