// The device-file loader: YAML -> flat keyed leaves (with inheritance) -> schema check -> DeviceSpec.
#include "device/loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <charconv>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "base/error.h"
#include "base/files.h"

namespace kernsim::device {
namespace fs = std::filesystem;

const char* to_string(Vendor v) { return v == Vendor::Nvidia ? "nvidia" : "amd"; }

const char* to_string(Confidence c) {
  switch (c) {
    case Confidence::Documented: return "documented";
    case Confidence::Measured: return "measured";
    case Confidence::Estimated: return "estimated";
    case Confidence::Fitted: return "fitted";
    case Confidence::PublishedMeasurement: return "published-measurement";
  }
  return "?";
}

const Provenance& DeviceSpec::provenance_of(const std::string& key) const {
  auto it = provenance.find(key);
  if (it == provenance.end())
    throw Error(ErrorKind::Internal, "kernsim bug: no provenance recorded for device key " + key);
  return it->second;
}

std::map<Confidence, int> DeviceSpec::confidence_histogram() const {
  std::map<Confidence, int> h;
  for (const auto& [k, p] : provenance) h[p.confidence]++;
  return h;
}

namespace {

enum class Type { Int, Double, String, Int3, IntList };
constexpr unsigned kNv = 1, kAmd = 2, kBoth = 3;

struct Field {
  std::string key;
  Type type;
  std::string unit;
  unsigned vendors;
  bool required;
  std::string description;
  std::function<void*(DeviceSpec&)> bind;
};

template <class T>
std::function<void*(DeviceSpec&)> binder(T& (*f)(DeviceSpec&)) {
  return [f](DeviceSpec& d) -> void* { return &f(d); };
}

std::vector<Field> build_schema() {
  std::vector<Field> s;
  auto I = [&](const char* key, const char* unit, unsigned v, bool req, const char* desc,
               std::int64_t& (*f)(DeviceSpec&)) { s.push_back({key, Type::Int, unit, v, req, desc, binder(f)}); };
  auto D = [&](const char* key, const char* unit, unsigned v, bool req, const char* desc,
               double& (*f)(DeviceSpec&)) { s.push_back({key, Type::Double, unit, v, req, desc, binder(f)}); };
  auto S = [&](const char* key, unsigned v, bool req, const char* desc, std::string& (*f)(DeviceSpec&)) {
    s.push_back({key, Type::String, "", v, req, desc, binder(f)});
  };
  auto I3 = [&](const char* key, const char* unit, unsigned v, bool req, const char* desc,
                std::array<std::int64_t, 3>& (*f)(DeviceSpec&)) {
    s.push_back({key, Type::Int3, unit, v, req, desc, binder(f)});
  };

  S("isa.target", kBoth, true, "compile target: sm_90a, sm_100a, gfx942, gfx950", [](DeviceSpec& d) -> std::string& { return d.isa_target; });

  D("clocks.core_mhz", "MHz", kBoth, true, "SM/CU clock the pipeline model counts cycles in", [](DeviceSpec& d) -> double& { return d.clocks.core_mhz; });
  D("clocks.memory_mhz", "MHz", kBoth, true, "HBM clock", [](DeviceSpec& d) -> double& { return d.clocks.memory_mhz; });
  D("clocks.tensor_mhz", "MHz", kNv, true, "SM clock while a kernel that uses the tensor pipes runs", [](DeviceSpec& d) -> double& { return d.clocks.tensor_mhz; });
  D("clocks.wgmma_mhz", "MHz", kNv, false, "SM clock while a kernel that issues wgmma.mma_async runs (absent: clocks.tensor_mhz)", [](DeviceSpec& d) -> double& { return d.clocks.wgmma_mhz; });
  D("clocks.wgmma_idle_mhz", "MHz", kNv, false, "SM clock of a wgmma kernel whose tensor engines are idle, the line's end at busy share 0 (with clocks.wgmma_full_mhz; absent: clocks.wgmma_mhz whatever the load)", [](DeviceSpec& d) -> double& { return d.clocks.wgmma_idle_mhz; });
  D("clocks.wgmma_full_mhz", "MHz", kNv, false, "SM clock of a wgmma kernel whose tensor engines are busy the whole launch on every SM (busy share 1)", [](DeviceSpec& d) -> double& { return d.clocks.wgmma_full_mhz; });
  D("clocks.l2_mhz", "MHz", kNv, false, "L2 clock, independent of the SM clock (absent: the L2 counts SM cycles); L2 rates stay given per SM cycle at clocks.core_mhz", [](DeviceSpec& d) -> double& { return d.clocks.l2_mhz; });
  D("clocks.realtime_mhz", "MHz", kAmd, true, "constant reference clock (REFCLK) that s_memrealtime counts", [](DeviceSpec& d) -> double& { return d.clocks.realtime_mhz; });

  I("limits.max_threads_per_block", "threads", kBoth, true, "largest CTA/workgroup", [](DeviceSpec& d) -> std::int64_t& { return d.limits.max_threads_per_block; });
  I3("limits.max_block_dim", "threads", kBoth, true, "largest block extent per dimension [x,y,z]", [](DeviceSpec& d) -> std::array<std::int64_t, 3>& { return d.limits.max_block_dim; });
  I3("limits.max_grid_dim", "blocks", kBoth, true, "largest grid extent per dimension [x,y,z]", [](DeviceSpec& d) -> std::array<std::int64_t, 3>& { return d.limits.max_grid_dim; });
  I("limits.max_shared_per_block_bytes", "bytes", kBoth, true, "largest shared/LDS allocation of one block (opt-in)", [](DeviceSpec& d) -> std::int64_t& { return d.limits.max_shared_per_block_bytes; });
  I("limits.max_registers_per_thread", "registers", kBoth, true, "register cap per thread (AMD: VGPR+AGPR per lane)", [](DeviceSpec& d) -> std::int64_t& { return d.limits.max_registers_per_thread; });

  I("topology.dies", "dies", kBoth, true, "NVIDIA: dies; AMD: XCDs", [](DeviceSpec& d) -> std::int64_t& { return d.topology.dies; });
  I("topology.units_per_die", "SMs/CUs", kBoth, true, "enabled SMs/CUs per die or XCD", [](DeviceSpec& d) -> std::int64_t& { return d.topology.units_per_die; });
  s.push_back({"topology.gpc_sms", Type::IntList, "SMs", kNv, true, "SMs of each GPC as the part is sold, [g0, g1, ...]; they add up to sm.count (the CTAs of a cluster share one GPC)",
               binder(+[](DeviceSpec& d) -> std::vector<std::int64_t>& { return d.topology.gpc_sms; })});
  I("topology.max_cluster_ctas", "CTAs", kNv, true, "largest portable thread-block cluster", [](DeviceSpec& d) -> std::int64_t& { return d.topology.max_cluster_ctas; });
  I("topology.max_cluster_ctas_nonportable", "CTAs", kNv, true, "largest cluster a kernel that allows non-portable sizes may use", [](DeviceSpec& d) -> std::int64_t& { return d.topology.max_cluster_ctas_nonportable; });
  I("topology.tpc_sms", "SMs", kNv, false, "SMs of one TPC (texture processing cluster): SMs 2t and 2t+1 of a GPC on Hopper (absent: not given)", [](DeviceSpec& d) -> std::int64_t& { return d.topology.tpc_sms; });

  // The SM (NVIDIA) and CU (AMD) share one struct; the file spells the section by vendor.
  for (const char* sec : {"sm", "cu"}) {
    unsigned v = std::string(sec) == "sm" ? kNv : kAmd;
    auto key = [sec](const char* k) { return std::string(sec) + "." + k; };
    auto add_i = [&](const char* k, const char* unit, bool req, const char* desc, std::int64_t& (*f)(DeviceSpec&)) {
      s.push_back({key(k), Type::Int, unit, v, req, desc, binder(f)});
    };
    add_i("count", "units", true, "SMs/CUs on the part", [](DeviceSpec& d) -> std::int64_t& { return d.sm.count; });
    add_i("sub_partitions", "units", true, "NVIDIA: SMSPs (schedulers) per SM; AMD: SIMDs per CU", [](DeviceSpec& d) -> std::int64_t& { return d.sm.sub_partitions; });
    add_i("lanes_per_sub", "lanes", true, "NVIDIA: FP32 lanes per SMSP; AMD: SIMD width", [](DeviceSpec& d) -> std::int64_t& { return d.sm.lanes_per_sub; });
    add_i("warp_size", "threads", true, "warp / wavefront size", [](DeviceSpec& d) -> std::int64_t& { return d.sm.warp_size; });
    add_i("max_threads", "threads", true, "resident threads per SM/CU", [](DeviceSpec& d) -> std::int64_t& { return d.sm.max_threads; });
    add_i("max_warps", "warps", true, "resident warps/waves per SM/CU", [](DeviceSpec& d) -> std::int64_t& { return d.sm.max_warps; });
    add_i("max_blocks", "blocks", true, "resident CTAs/workgroups per SM/CU", [](DeviceSpec& d) -> std::int64_t& { return d.sm.max_blocks; });
    add_i("registers", "registers", true, "NVIDIA: 32-bit registers per SM; AMD: VGPRs per SIMD lane", [](DeviceSpec& d) -> std::int64_t& { return d.sm.registers; });
    add_i("register_alloc_unit", "registers", true, "NVIDIA: registers per warp allocation granule; AMD: VGPR granule", [](DeviceSpec& d) -> std::int64_t& { return d.sm.register_alloc_unit; });
    add_i("issue_per_cycle", "instructions", true, "instructions one scheduler/SIMD issues per cycle", [](DeviceSpec& d) -> std::int64_t& { return d.sm.issue_per_cycle; });
    s.push_back({key("warp_scheduler"), Type::String, "", v, true,
                 "which ready warp (wave) a scheduler issues from: greedy_then_oldest or loose_round_robin (NVIDIA), oldest_first_by_priority (AMD)",
                 binder(+[](DeviceSpec& d) -> std::string& { return d.sm.warp_scheduler; })});
    s.push_back({key("block_launch_cycles"), Type::Double, "cycles", v, true, "cycles from a free CTA slot to the next CTA's first issue", binder(+[](DeviceSpec& d) -> double& { return d.sm.block_launch_cycles; })});
  }
  I("cu.scalar_registers", "registers", kAmd, true, "SGPRs per SIMD", [](DeviceSpec& d) -> std::int64_t& { return d.sm.scalar_registers; });
  I("cu.scalar_register_alloc_unit", "registers", kAmd, true, "SGPR allocation granule per wave", [](DeviceSpec& d) -> std::int64_t& { return d.sm.scalar_register_alloc_unit; });
  D("cu.issue_interval_cycles", "cycles", kAmd, true, "cycles between one SIMD's issue opportunities (the sequencer serves one SIMD per cycle)", [](DeviceSpec& d) -> double& { return d.sm.issue_interval_cycles; });
  I("cu.vm_counter_max", "operations", kAmd, true, "largest vmcnt: vector memory operations one wave may have in flight", [](DeviceSpec& d) -> std::int64_t& { return d.sm.vm_counter_max; });
  I("cu.lgkm_counter_max", "operations", kAmd, true, "largest lgkmcnt: LDS/scalar-memory operations one wave may have in flight", [](DeviceSpec& d) -> std::int64_t& { return d.sm.lgkm_counter_max; });
  D("cu.barrier_latency_cycles", "cycles", kAmd, true, "s_barrier: last arrival to the released waves' next issue", [](DeviceSpec& d) -> double& { return d.sm.barrier_latency_cycles; });
  D("cu.sleep_unit_cycles", "cycles", kAmd, true, "cycles per unit of s_sleep's operand", [](DeviceSpec& d) -> double& { return d.sm.sleep_unit_cycles; });
  D("sm.barrier_latency_cycles", "cycles", kNv, true, "bar.sync: last arrival (after the barrier's per-warp time) to the released warps' next issue", [](DeviceSpec& d) -> double& { return d.sm.barrier_latency_cycles; });
  D("sm.barrier_cycles_per_warp", "cycles", kNv, true, "bar.sync: time the CTA's barrier takes per arriving warp (arrivals are counted one after another)", [](DeviceSpec& d) -> double& { return d.sm.barrier_cycles_per_warp; });
  D("sm.barrier_sm_cycles_per_arrival", "cycles", kNv, false, "bar.sync: time the SM's barrier unit takes per arriving warp, shared by all the SM's CTAs (arrivals of every CTA are counted one after another; absent: each CTA's barrier counts alone)", [](DeviceSpec& d) -> double& { return d.sm.barrier_sm_cycles_per_arrival; });
  D("sm.cta_turnover_cycles", "cycles", kNv, true, "from a CTA's last warp exiting to the next CTA's first instruction in the slot it frees (the dispatcher not limiting)", [](DeviceSpec& d) -> double& { return d.sm.cta_turnover_cycles; });
  D("sm.taken_branch_cycles", "cycles", kNv, false, "cycles a warp waits before its next issue when its next instruction is not the one after (a taken branch, or the switch to another divergent path); absent: none beyond the issue cycle", [](DeviceSpec& d) -> double& { return d.sm.taken_branch_cycles; });
  D("sm.mufu_guard_latency_cycles", "cycles", kNv, false, "latency ptxas's denormal guard (FSETP, predicated FMUL, MUFU, predicated FMUL/FADD) adds to a non-ftz ex2/lg2/rsqrt/sqrt.approx.f32 chain (absent: three pipes.fp32 latencies)", [](DeviceSpec& d) -> double& { return d.sm.mufu_guard_latency_cycles; });
  D("sm.vote_latency_cycles", "cycles", kNv, true, "vote.sync (VOTE): issue to dependent issue", [](DeviceSpec& d) -> double& { return d.sm.vote_latency_cycles; });
  D("sm.redux_latency_cycles", "cycles", kNv, true, "redux.sync (REDUX): issue to dependent issue", [](DeviceSpec& d) -> double& { return d.sm.redux_latency_cycles; });
  D("sm.cluster_barrier_latency_cycles", "cycles", kNv, true, "barrier.cluster: last arrival in the cluster to the released warps' next issue", [](DeviceSpec& d) -> double& { return d.sm.cluster_barrier_latency_cycles; });
  D("sm.cluster_barrier_relaxed_latency_cycles", "cycles", kNv, true, "barrier.cluster with a .relaxed arrival (no release fence): last arrival to the released warps' next issue", [](DeviceSpec& d) -> double& { return d.sm.cluster_barrier_relaxed_latency_cycles; });
  D("sm.cluster_barrier_one_cta_latency_cycles", "cycles", kNv, true, "barrier.cluster in a CTA launched without clusters (a cluster of one)", [](DeviceSpec& d) -> double& { return d.sm.cluster_barrier_one_cta_latency_cycles; });
  D("sm.cross_pipe_latency_cycles", "cycles", kNv, true, "extra latency when the FMA pipe's result feeds the ALU pipe or the reverse", [](DeviceSpec& d) -> double& { return d.sm.cross_pipe_latency_cycles; });
  D("sm.wgmma_flops_per_cycle_f16", "FLOP/cycle", kNv, true, "wgmma.mma_async with f16/bf16 inputs: dense FLOP the SM's tensor engine does per cycle", [](DeviceSpec& d) -> double& { return d.sm.wgmma_flops_per_cycle_f16; });
  D("sm.wgmma_flops_per_cycle_tf32", "FLOP/cycle", kNv, true, "wgmma.mma_async with tf32 inputs: dense FLOP per SM cycle", [](DeviceSpec& d) -> double& { return d.sm.wgmma_flops_per_cycle_tf32; });
  D("sm.wgmma_flops_per_cycle_fp8", "FLOP/cycle", kNv, true, "wgmma.mma_async with e4m3/e5m2 inputs: dense FLOP per SM cycle", [](DeviceSpec& d) -> double& { return d.sm.wgmma_flops_per_cycle_fp8; });
  D("sm.wgmma_flops_per_cycle_i8", "FLOP/cycle", kNv, true, "wgmma.mma_async with s8/u8 inputs: dense operations per SM cycle", [](DeviceSpec& d) -> double& { return d.sm.wgmma_flops_per_cycle_i8; });
  D("sm.wgmma_latency_cycles", "cycles", kNv, true, "wgmma.mma_async: from the end of its service on the tensor engine to its completion (wgmma.wait_group may return)", [](DeviceSpec& d) -> double& { return d.sm.wgmma_latency_cycles; });
  I("sm.tensor_shares_math_pipes", "flag", kNv, true, "1: a matrix instruction and FMA/ALU instructions occupy each other's pipes for their issue intervals", [](DeviceSpec& d) -> std::int64_t& { return d.sm.tensor_shares_math_pipes; });
  D("cu.mfma_read_extra_cycles", "cycles", kAmd, true, "after an MFMA's last pass until a VALU/memory instruction may read its result", [](DeviceSpec& d) -> double& { return d.sm.mfma_read_extra_cycles; });

  struct PipeDef { const char* name; unsigned vendors; bool required; const char* desc; Pipe& (*f)(DeviceSpec&); };
  const PipeDef pipes[] = {
      {"int_alu", kBoth, true, "integer add/logic/shift/compare", [](DeviceSpec& d) -> Pipe& { return d.pipes.int_alu; }},
      {"int_mul", kBoth, true, "integer multiply/mad", [](DeviceSpec& d) -> Pipe& { return d.pipes.int_mul; }},
      {"fp32", kBoth, true, "fp32 add/mul/fma", [](DeviceSpec& d) -> Pipe& { return d.pipes.fp32; }},
      {"fp16", kBoth, true, "packed f16/bf16 arithmetic", [](DeviceSpec& d) -> Pipe& { return d.pipes.fp16; }},
      {"fp64", kBoth, true, "fp64 add/mul/fma", [](DeviceSpec& d) -> Pipe& { return d.pipes.fp64; }},
      {"sfu", kBoth, true, "transcendentals and approximations", [](DeviceSpec& d) -> Pipe& { return d.pipes.sfu; }},
      {"convert", kBoth, true, "type conversions", [](DeviceSpec& d) -> Pipe& { return d.pipes.convert; }},
      {"branch", kBoth, true, "branches and control", [](DeviceSpec& d) -> Pipe& { return d.pipes.branch; }},
      {"tensor_f16", kBoth, true, "one f16/bf16 matrix instruction (NVIDIA mma m16n8k16; AMD v_mfma_f32_16x16x16)", [](DeviceSpec& d) -> Pipe& { return d.pipes.tensor_f16; }},
      {"tensor_tf32", kBoth, false, "one tf32 matrix instruction (NVIDIA m16n8k8; AMD 16x16x8 xf32); absent = unsupported", [](DeviceSpec& d) -> Pipe& { return d.pipes.tensor_tf32; }},
      {"tensor_i8", kBoth, true, "one int8 matrix instruction (NVIDIA m16n8k32; AMD 16x16x32 i8)", [](DeviceSpec& d) -> Pipe& { return d.pipes.tensor_i8; }},
      {"tensor_fp8", kBoth, true, "one fp8 matrix instruction (NVIDIA m16n8k32; AMD 16x16x32 fp8)", [](DeviceSpec& d) -> Pipe& { return d.pipes.tensor_fp8; }},
      {"tensor_f64", kBoth, true, "one fp64 matrix instruction (NVIDIA m8n8k4; AMD 16x16x4 f64)", [](DeviceSpec& d) -> Pipe& { return d.pipes.tensor_f64; }},
      {"scalar", kAmd, true, "scalar ALU", [](DeviceSpec& d) -> Pipe& { return d.pipes.scalar; }},
  };
  for (const auto& p : pipes) {
    auto f = p.f;
    s.push_back({std::string("pipes.") + p.name + ".issue_cycles", Type::Double, "cycles", p.vendors, p.required,
                 std::string(p.desc) + ": cycles the pipe is busy per warp/wave instruction",
                 [f](DeviceSpec& d) -> void* { return &f(d).issue_cycles; }});
    s.push_back({std::string("pipes.") + p.name + ".latency_cycles", Type::Double, "cycles", p.vendors, p.required,
                 std::string(p.desc) + ": issue to dependent issue",
                 [f](DeviceSpec& d) -> void* { return &f(d).latency_cycles; }});
  }

  I("shared.bytes_per_unit", "bytes", kBoth, true, "shared memory / LDS per SM/CU", [](DeviceSpec& d) -> std::int64_t& { return d.shared.bytes_per_unit; });
  I("shared.reserved_per_block_bytes", "bytes", kBoth, true, "shared memory the system reserves per block", [](DeviceSpec& d) -> std::int64_t& { return d.shared.reserved_per_block_bytes; });
  I("shared.alloc_unit_bytes", "bytes", kBoth, true, "allocation granule", [](DeviceSpec& d) -> std::int64_t& { return d.shared.alloc_unit_bytes; });
  I("shared.banks", "banks", kBoth, true, "banks", [](DeviceSpec& d) -> std::int64_t& { return d.shared.banks; });
  I("shared.bank_width_bytes", "bytes", kBoth, true, "bytes per bank per cycle", [](DeviceSpec& d) -> std::int64_t& { return d.shared.bank_width_bytes; });
  D("shared.latency_cycles", "cycles", kBoth, true, "load-to-use latency without conflicts", [](DeviceSpec& d) -> double& { return d.shared.latency_cycles; });
  D("shared.conflict_latency_cycles", "cycles", kBoth, true, "extra latency per additional wavefront of a bank-conflicted access", [](DeviceSpec& d) -> double& { return d.shared.conflict_latency_cycles; });
  D("shared.bytes_per_cycle", "bytes/cycle", kBoth, true, "bandwidth per SM/CU", [](DeviceSpec& d) -> double& { return d.shared.bytes_per_cycle; });
  D("shared.dsmem_latency_cycles", "cycles", kNv, true, "distributed shared memory: load-to-use latency of another CTA's shared memory in the cluster", [](DeviceSpec& d) -> double& { return d.shared.dsmem_latency_cycles; });
  D("shared.dsmem_bytes_per_cycle", "bytes/cycle", kNv, true, "distributed shared memory: bytes one SM sends to or receives from other SMs of its GPC per cycle", [](DeviceSpec& d) -> double& { return d.shared.dsmem_bytes_per_cycle; });
  D("shared.port_bytes_per_cycle", "bytes/cycle", kAmd, true, "LDS port of a SIMD pair: bytes per cycle in each direction", [](DeviceSpec& d) -> double& { return d.shared.port_bytes_per_cycle; });
  I("shared.simds_per_port", "SIMDs", kAmd, true, "SIMDs sharing one LDS port", [](DeviceSpec& d) -> std::int64_t& { return d.shared.simds_per_port; });
  D("shared.address_bytes_per_lane", "bytes", kAmd, true, "address bytes a lane sends on the LDS input port (with store data)", [](DeviceSpec& d) -> double& { return d.shared.address_bytes_per_lane; });

  s.push_back({"shared.carveout_steps_bytes", Type::IntList, "bytes", kNv, false,
               "the shared-memory capacities above 0 the unified L1/shared array can be set to, rising; a kernel gets the smallest that holds its resident CTAs' shared memory (with shared.reserved_per_block_bytes each, also when it declares none) and the L1 the rest of l1.bytes (absent: l1.bytes less the shared memory the CTAs use)",
               binder(+[](DeviceSpec& d) -> std::vector<std::int64_t>& { return d.shared.carveout_steps_bytes; })});
  I("l1.bytes", "bytes", kBoth, true, "L1 data cache per SM/CU (NVIDIA: unified L1+shared capacity)", [](DeviceSpec& d) -> std::int64_t& { return d.l1.bytes; });
  I("l1.line_bytes", "bytes", kBoth, true, "line size", [](DeviceSpec& d) -> std::int64_t& { return d.l1.line_bytes; });
  I("l1.sector_bytes", "bytes", kBoth, true, "fill granule", [](DeviceSpec& d) -> std::int64_t& { return d.l1.sector_bytes; });
  I("l1.ways", "ways", kBoth, true, "associativity", [](DeviceSpec& d) -> std::int64_t& { return d.l1.ways; });
  D("l1.hit_latency_cycles", "cycles", kBoth, true, "load-to-use on a hit", [](DeviceSpec& d) -> double& { return d.l1.hit_latency_cycles; });
  D("l1.bytes_per_cycle", "bytes/cycle", kBoth, true, "bandwidth per SM/CU", [](DeviceSpec& d) -> double& { return d.l1.bytes_per_cycle; });
  I("l1.max_outstanding_lines", "lines", kBoth, true, "line requests one SM/CU may have in flight beyond L1", [](DeviceSpec& d) -> std::int64_t& { return d.l1.max_outstanding_lines; });
  D("l1.miss_request_cycles", "cycles", kBoth, true, "SM-to-L2 port time per line request sent beyond L1", [](DeviceSpec& d) -> double& { return d.l1.miss_request_cycles; });
  D("l1.store_sector_cycles", "cycles", kBoth, true, "SM-to-L2 port time per whole sector a store carries", [](DeviceSpec& d) -> double& { return d.l1.store_sector_cycles; });
  D("l1.store_partial_sector_cycles", "cycles", kBoth, true, "SM-to-L2 port time per partly written sector a store carries", [](DeviceSpec& d) -> double& { return d.l1.store_partial_sector_cycles; });
  I("l1.store_combine_lines", "lines", kBoth, true, "a warp's most recent store lines a new store to the same line joins (write combining)", [](DeviceSpec& d) -> std::int64_t& { return d.l1.store_combine_lines; });
  S("l1.set_hash", kNv, false, "how a line picks its L1 set: multiplicative (a hash of the line number; the default) or xor (the line number's bits folded by exclusive-or: a contiguous footprint fills every set evenly)", [](DeviceSpec& d) -> std::string& { return d.l1.set_hash; });
  D("l1.lines_per_cycle", "lines/cycle", kBoth, true, "distinct cache lines the L1 pipeline of one SM/CU looks up per cycle", [](DeviceSpec& d) -> double& { return d.l1.lines_per_cycle; });

  I("l2.bytes", "bytes", kBoth, true, "capacity of one L2 instance", [](DeviceSpec& d) -> std::int64_t& { return d.l2.bytes; });
  I("l2.instances", "instances", kBoth, true, "NVIDIA 1; MI300X/MI355X one per XCD", [](DeviceSpec& d) -> std::int64_t& { return d.l2.instances; });
  I("l2.slices", "slices", kBoth, true, "slices/channels per instance", [](DeviceSpec& d) -> std::int64_t& { return d.l2.slices; });
  I("l2.partitions", "partitions", kBoth, true, "NVIDIA near/far partitions; AMD 1", [](DeviceSpec& d) -> std::int64_t& { return d.l2.partitions; });
  I("l2.line_bytes", "bytes", kBoth, true, "line size", [](DeviceSpec& d) -> std::int64_t& { return d.l2.line_bytes; });
  I("l2.sector_bytes", "bytes", kBoth, true, "fill granule", [](DeviceSpec& d) -> std::int64_t& { return d.l2.sector_bytes; });
  I("l2.ways", "ways", kBoth, true, "associativity", [](DeviceSpec& d) -> std::int64_t& { return d.l2.ways; });
  D("l2.hit_latency_cycles", "cycles", kBoth, true, "load-to-use on a (near) hit", [](DeviceSpec& d) -> double& { return d.l2.hit_latency_cycles; });
  S("l2.channel_hash", kAmd, true, "how lines map to the channels of an instance: interleave (line index modulo the channels) or xor (index bits folded by exclusive-or first)", [](DeviceSpec& d) -> std::string& { return d.l2.channel_hash; });
  D("l2.far_hit_latency_cycles", "cycles", kNv, true, "load-to-use on a hit in the far partition", [](DeviceSpec& d) -> double& { return d.l2.far_hit_latency_cycles; });
  D("l2.cross_partition_bytes_per_cycle", "bytes/cycle", kNv, false, "bandwidth between the L2 partitions (both directions together) that an SM's accesses to lines homed in the far partition cross, paying far_hit_latency_cycles (absent: the partitions are not modelled, every hit takes hit_latency_cycles)", [](DeviceSpec& d) -> double& { return d.l2.cross_partition_bytes_per_cycle; });
  D("l2.bytes_per_cycle", "bytes/cycle", kBoth, true, "bandwidth of one instance", [](DeviceSpec& d) -> double& { return d.l2.bytes_per_cycle; });
  D("l2.read_request_overhead", "sector reads", kBoth, true, "throughput cost of a read request beyond its sectors", [](DeviceSpec& d) -> double& { return d.l2.read_request_overhead; });
  D("l2.write_request_overhead", "sector reads", kBoth, true, "throughput cost of a write request beyond its sectors", [](DeviceSpec& d) -> double& { return d.l2.write_request_overhead; });
  D("l2.write_sector_cost", "sector reads", kBoth, true, "throughput cost of writing a whole sector", [](DeviceSpec& d) -> double& { return d.l2.write_sector_cost; });
  D("l2.partial_write_sector_cost", "sector reads", kBoth, true, "throughput cost of writing part of a sector", [](DeviceSpec& d) -> double& { return d.l2.partial_write_sector_cost; });
  D("l2.atomic_ops_per_cycle", "requests/cycle", kBoth, true, "atomic sector requests (distinct addresses) per cycle per slice", [](DeviceSpec& d) -> double& { return d.l2.atomic_ops_per_cycle; });
  I("l2.atomic_unit_bytes", "bytes", kNv, false, "aligned address span owned by one slice's atomic unit: spans of this many bytes go round the slices (absent: one line)", [](DeviceSpec& d) -> std::int64_t& { return d.l2.atomic_unit_bytes; });
  D("l2.atomic_same_address_cycles", "cycles", kBoth, true, "cycles per additional integer atomic on one address (serialised)", [](DeviceSpec& d) -> double& { return d.l2.atomic_same_address_cycles; });
  D("l2.atomic_float_same_address_cycles", "cycles", kBoth, true, "cycles per additional floating-point atomic on one address", [](DeviceSpec& d) -> double& { return d.l2.atomic_float_same_address_cycles; });
  D("l2.atomic_request_cycles", "cycles", kNv, false, "an atomic unit's time at least per line request to another line than its previous request's (absent: its sector passes alone)", [](DeviceSpec& d) -> double& { return d.l2.atomic_request_cycles; });
  D("l2.atomic_chip_sectors_per_cycle", "sectors/cycle", kNv, false, "sectors of atomic requests the whole chip's atomic units serve per cycle at most (absent: no limit beyond the units')", [](DeviceSpec& d) -> double& { return d.l2.atomic_chip_sectors_per_cycle; });
  D("l2.atomic_pass_cycles", "cycles", kNv, false, "an atomic unit's time for each further integer operation on an address within one request, other addresses' operations interleaving (absent: l2.atomic_same_address_cycles)", [](DeviceSpec& d) -> double& { return d.l2.atomic_pass_cycles; });
  D("l2.atomic_float_pass_cycles", "cycles", kNv, false, "the same for floating-point atomics (absent: l2.atomic_float_same_address_cycles)", [](DeviceSpec& d) -> double& { return d.l2.atomic_float_pass_cycles; });
  D("l2.max_dirty_fraction", "fraction", kNv, false, "fraction of the capacity that holds dirty data at most: the oldest dirty lines are written back beyond it, and a flush that writes leaves this much dirty (absent: the whole L2)", [](DeviceSpec& d) -> double& { return d.l2.max_dirty_fraction; });
  D("l2.tpc_merge_window_cycles", "cycles", kNv, false, "a read of sectors the other SM of its TPC sent to the L2 at most this many cycles earlier joins that request and does not reach the L2 (absent: no merging; needs topology.tpc_sms)", [](DeviceSpec& d) -> double& { return d.l2.tpc_merge_window_cycles; });
  D("l2.slice_read_bytes_per_cycle", "bytes/cycle", kNv, false, "read throughput of one L2 slice: reads of one l2.atomic_unit_bytes span go to one slice of l2.slices and share its rate besides the whole L2's (absent: one pool for every read)", [](DeviceSpec& d) -> double& { return d.l2.slice_read_bytes_per_cycle; });
  D("l2.atomic_latency_cycles", "cycles", kBoth, true, "issue-to-result latency of one global atomic, unloaded", [](DeviceSpec& d) -> double& { return d.l2.atomic_latency_cycles; });

  I("mall.bytes", "bytes", kAmd, true, "Infinity Cache capacity", [](DeviceSpec& d) -> std::int64_t& { return d.mall.bytes; });
  D("mall.hit_latency_cycles", "cycles", kAmd, true, "load-to-use on a MALL hit", [](DeviceSpec& d) -> double& { return d.mall.hit_latency_cycles; });
  D("mall.bandwidth_gbps", "GB/s", kAmd, true, "peak MALL bandwidth", [](DeviceSpec& d) -> double& { return d.mall.bandwidth_gbps; });
  I("mall.line_bytes", "bytes", kAmd, true, "MALL lookup and fill granule", [](DeviceSpec& d) -> std::int64_t& { return d.mall.line_bytes; });
  I("mall.ways", "ways", kAmd, true, "MALL associativity", [](DeviceSpec& d) -> std::int64_t& { return d.mall.ways; });

  I("scalar_l1.bytes", "bytes", kAmd, true, "scalar L1 data cache capacity", [](DeviceSpec& d) -> std::int64_t& { return d.scalar_l1.bytes; });
  I("scalar_l1.line_bytes", "bytes", kAmd, true, "scalar L1 line size", [](DeviceSpec& d) -> std::int64_t& { return d.scalar_l1.line_bytes; });
  I("scalar_l1.cus_per_cache", "CUs", kAmd, true, "CUs sharing one scalar L1", [](DeviceSpec& d) -> std::int64_t& { return d.scalar_l1.cus_per_cache; });
  D("scalar_l1.hit_latency_cycles", "cycles", kAmd, true, "scalar load-to-use on a hit", [](DeviceSpec& d) -> double& { return d.scalar_l1.hit_latency_cycles; });
  D("scalar_l1.bytes_per_cycle", "bytes/cycle", kAmd, true, "bandwidth of one scalar L1", [](DeviceSpec& d) -> double& { return d.scalar_l1.bytes_per_cycle; });

  // AMD MFMA timing, one optional pair of keys per shape; a kernel using a shape the file does
  // not time stops with the missing key's name.
  for (int i = 0; i < kNumMfmaShapes; ++i) {
    const std::string shape = kMfmaShapes[i];
    s.push_back({"mfma." + shape + ".cycles", Type::Double, "cycles", kAmd, false,
                 "v_mfma_" + shape + ": cycles the SIMD's matrix core is busy",
                 [i](DeviceSpec& d) -> void* { return &d.mfma[static_cast<std::size_t>(i)].cycles; }});
    s.push_back({"mfma." + shape + ".valu_blocked_cycles", Type::Double, "cycles", kAmd, false,
                 "v_mfma_" + shape + ": cycles after issue before the SIMD's VALU may issue again",
                 [i](DeviceSpec& d) -> void* { return &d.mfma[static_cast<std::size_t>(i)].valu_blocked_cycles; }});
  }

  I("dram.bytes", "bytes", kBoth, true, "HBM capacity", [](DeviceSpec& d) -> std::int64_t& { return d.dram.bytes; });
  I("dram.channels", "channels", kBoth, true, "independent HBM channels", [](DeviceSpec& d) -> std::int64_t& { return d.dram.channels; });
  I("dram.access_bytes", "bytes", kBoth, true, "smallest HBM transfer (pseudo-channel width x burst length)", [](DeviceSpec& d) -> std::int64_t& { return d.dram.access_bytes; });
  D("dram.bandwidth_gbps", "GB/s", kBoth, true, "peak HBM bandwidth", [](DeviceSpec& d) -> double& { return d.dram.bandwidth_gbps; });
  D("dram.read_efficiency", "fraction", kBoth, true, "sustainable fraction of peak, read stream", [](DeviceSpec& d) -> double& { return d.dram.read_efficiency; });
  D("dram.write_efficiency", "fraction", kBoth, true, "sustainable fraction of peak, write stream", [](DeviceSpec& d) -> double& { return d.dram.write_efficiency; });
  D("dram.copy_efficiency", "fraction", kBoth, true, "sustainable fraction of peak, mixed read+write stream", [](DeviceSpec& d) -> double& { return d.dram.copy_efficiency; });
  D("dram.latency_cycles", "cycles", kBoth, true, "unloaded load-to-use from HBM", [](DeviceSpec& d) -> double& { return d.dram.latency_cycles; });
  D("dram.queue_service_cycles", "cycles", kBoth, false, "latency under load: the M/D/1 service time of the banks' queue (a read waits service x rho / (2 (1 - rho)) at HBM utilisation rho); absent = no load-dependent wait", [](DeviceSpec& d) -> double& { return d.dram.queue_service_cycles; });
  s.push_back({"dram.latency_quantiles_permille", Type::IntList, "per mille", kNv, false, "the spread of one HBM access's latency: quantiles at u = 0, 0.1, 0.5, 0.9, 1 in per mille of dram.latency_cycles (their mean must be 1000 within 1%); the accesses to one aligned dram.latency_granule_bytes block share a draw (absent: every access dram.latency_cycles)",
               binder(+[](DeviceSpec& d) -> std::vector<std::int64_t>& { return d.dram.latency_quantiles_permille; })});
  I("dram.latency_granule_bytes", "bytes", kNv, false, "aligned block of addresses whose HBM accesses share one latency draw (dram.latency_quantiles_permille)", [](DeviceSpec& d) -> std::int64_t& { return d.dram.latency_granule_bytes; });
  D("dram.queue_max_cycles", "cycles", kBoth, false, "latency under load: the longest wait the banks' queue adds (near saturation the bandwidth limit takes over)", [](DeviceSpec& d) -> double& { return d.dram.queue_max_cycles; });

  D("tma.warp_issue_cycles", "cycles", kNv, false, "cycles the issuing warp spends on each cp.async.bulk{.tensor} before its next instruction (absent: one)", [](DeviceSpec& d) -> double& { return d.tma.warp_issue_cycles; });
  D("tma.issue_cycles", "cycles", kNv, true, "TMA engine time per copy request (cp.async.bulk{.tensor}): requests of one SM follow each other at this interval", [](DeviceSpec& d) -> double& { return d.tma.issue_cycles; });
  D("tma.bytes_per_cycle", "bytes/cycle", kNv, true, "bytes per SM cycle the TMA engine moves into or out of shared memory", [](DeviceSpec& d) -> double& { return d.tma.bytes_per_cycle; });
  D("tma.latency_cycles", "cycles", kNv, true, "a TMA copy's latency beyond its L2/HBM accesses, to its bytes completing on the mbarrier", [](DeviceSpec& d) -> double& { return d.tma.latency_cycles; });
  D("tma.mbarrier_arrive_cycles", "cycles", kNv, true, "mbarrier.arrive / expect_tx / complete_tx: issue to its effect on the phase", [](DeviceSpec& d) -> double& { return d.tma.mbarrier_arrive_cycles; });
  D("tma.mbarrier_wake_cycles", "cycles", kNv, true, "mbarrier phase completion to the next issue of a warp in try_wait/test_wait (sleeping or polling)", [](DeviceSpec& d) -> double& { return d.tma.mbarrier_wake_cycles; });
  D("tma.try_wait_limit_cycles", "cycles", kNv, true, "the system-dependent time limit of a failing mbarrier.try_wait without a suspend-time hint", [](DeviceSpec& d) -> double& { return d.tma.try_wait_limit_cycles; });
  D("launch.overhead_us", "us", kBoth, true, "event-timed cost of an empty kernel launch", [](DeviceSpec& d) -> double& { return d.launch.overhead_us; });
  D("launch.cta_dispatch_cycles", "cycles", kBoth, true, "cycles between consecutive CTA/workgroup dispatches: NVIDIA chip-wide, AMD per XCD (each has its own workgroup manager)", [](DeviceSpec& d) -> double& { return d.launch.cta_dispatch_cycles; });
  D("launch.clc_response_cycles", "cycles", kNv, false, "clusterlaunchcontrol.try_cancel: issue to its response in shared memory and the complete_tx on its mbarrier (sm_100)", [](DeviceSpec& d) -> double& { return d.launch.clc_response_cycles; });
  I("tcgen05.tmem_columns", "columns", kNv, false, "tensor memory per SM: 32-bit columns of 128 lanes each that tcgen05.alloc hands out (absent: no tcgen05)", [](DeviceSpec& d) -> std::int64_t& { return d.tcgen05.tmem_columns; });
  D("tcgen05.mma_flops_per_cycle_f16", "FLOP/cycle", kNv, false, "tcgen05.mma .kind::f16 (f16/bf16 inputs): dense FLOP the SM's tensor engine does per cycle", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_flops_per_cycle_f16; });
  D("tcgen05.mma_flops_per_cycle_tf32", "FLOP/cycle", kNv, false, "tcgen05.mma .kind::tf32: dense FLOP per SM cycle", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_flops_per_cycle_tf32; });
  D("tcgen05.mma_flops_per_cycle_f8f6f4", "FLOP/cycle", kNv, false, "tcgen05.mma .kind::f8f6f4 and ::mxf8f6f4 (fp8/fp6/fp4 inputs, one byte position each): dense FLOP per SM cycle", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_flops_per_cycle_f8f6f4; });
  D("tcgen05.mma_flops_per_cycle_f4", "FLOP/cycle", kNv, false, "tcgen05.mma .kind::mxf4 and ::mxf4nvf4 (block-scaled fp4): dense FLOP per SM cycle", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_flops_per_cycle_f4; });
  D("tcgen05.mma_flops_per_cycle_i8", "FLOP/cycle", kNv, false, "tcgen05.mma .kind::i8: dense operations per SM cycle", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_flops_per_cycle_i8; });
  D("tcgen05.mma_latency_cycles", "cycles", kNv, false, "tcgen05.mma: from the end of its service on the tensor engine to its completion", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_latency_cycles; });
  D("tcgen05.mma_smem_latency_cycles", "cycles", kNv, false, "tcgen05.mma with A in shared memory: latency beyond mma_latency_cycles (the operand's read)", [](DeviceSpec& d) -> double& { return d.tcgen05.mma_smem_latency_cycles; });
  I("tcgen05.mma_datapath_rows", "rows", kNv, false, "rows of D the tensor engine computes together (.cta_group::1): an mma of fewer rows (M = 64) takes as long as one of this many", [](DeviceSpec& d) -> std::int64_t& { return d.tcgen05.mma_datapath_rows; });
  D("tcgen05.commit_latency_cycles", "cycles", kNv, false, "tcgen05.commit: the completion of the thread's mmas to the arrival on its mbarrier", [](DeviceSpec& d) -> double& { return d.tcgen05.commit_latency_cycles; });
  D("tcgen05.ld_latency_cycles", "cycles", kNv, false, "tcgen05.ld: issue to the data in registers (tcgen05.wait::ld may return), beyond its transfer", [](DeviceSpec& d) -> double& { return d.tcgen05.ld_latency_cycles; });
  D("tcgen05.st_latency_cycles", "cycles", kNv, false, "tcgen05.st: issue to the data in tensor memory (tcgen05.wait::st may return), beyond its transfer", [](DeviceSpec& d) -> double& { return d.tcgen05.st_latency_cycles; });
  D("tcgen05.tmem_bytes_per_cycle", "bytes/cycle", kNv, false, "bytes per SM cycle between tensor memory and registers (tcgen05.ld and tcgen05.st)", [](DeviceSpec& d) -> double& { return d.tcgen05.tmem_bytes_per_cycle; });
  D("fast.overlap_exponent", "1", kBoth, false, "fast tier: p of the p-norm joining issue, latency and bandwidth times (fitted)", [](DeviceSpec& d) -> double& { return d.fast.overlap_exponent; });
  D("fast.latency_scale", "1", kBoth, false, "fast tier: factor on a CTA's dependent-path time (fitted)", [](DeviceSpec& d) -> double& { return d.fast.latency_scale; });
  D("fast.l2_reuse_fraction", "1", kBoth, false, "fast tier: share of the L2 holding data re-read across CTAs (fitted)", [](DeviceSpec& d) -> double& { return d.fast.l2_reuse_fraction; });
  return s;
}

const std::vector<Field>& schema() {
  static const std::vector<Field> s = build_schema();
  return s;
}

// One leaf read from a file, before the schema check.
struct Leaf {
  YAML::Node node;
  std::string file;
  int line = 0;
};

struct Flat {
  std::map<std::string, Leaf> leaves;            // dotted key -> leaf mapping {value, ...}
  std::map<std::string, std::string> sources;
  std::map<std::string, Leaf> meta;              // name, vendor, description
};

const std::set<std::string> kMetaKeys = {"kernsim_device", "name", "vendor", "description", "inherits", "sources"};

[[noreturn]] void fail(const std::string& file, int line, const std::string& msg) {
  std::string where = file;
  if (line > 0) where += ":" + std::to_string(line);
  throw Error(ErrorKind::DeviceFile, where + ": " + msg);
}

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

void flatten(const YAML::Node& node, const std::string& prefix, const std::string& file, Flat& out) {
  for (const auto& kv : node) {
    std::string k = kv.first.as<std::string>();
    std::string key = prefix.empty() ? k : prefix + "." + k;
    const YAML::Node& v = kv.second;
    if (v.IsMap() && v["value"]) {
      out.leaves[key] = Leaf{v, file, line_of(kv.first)};
    } else if (v.IsMap()) {
      flatten(v, key, file, out);
    } else {
      fail(file, line_of(kv.first),
           "key `" + key + "` must be a mapping {value, source, confidence} (every number needs provenance)");
    }
  }
}

Flat load_flat(const fs::path& file, std::vector<fs::path>& chain);

fs::path resolve_parent(const std::string& inherits, const fs::path& child) {
  bool looks_like_path = inherits.find('/') != std::string::npos ||
                         (inherits.ends_with(".yaml") || inherits.ends_with(".yml"));
  if (looks_like_path) {
    fs::path p(inherits);
    return p.is_absolute() ? p : child.parent_path() / p;
  }
  return builtin_device_dir() / (inherits + ".yaml");
}

Flat load_flat(const fs::path& file, std::vector<fs::path>& chain) {
  std::string text = read_file(file, "device file");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(file.string(), e.mark.line >= 0 ? e.mark.line + 1 : 0, "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) fail(file.string(), 0, "a device file must be a YAML mapping");
  std::string fname = file.string();

  Flat flat;
  if (auto inh = root["inherits"]) {
    std::string parent = inh.as<std::string>();
    fs::path pfile = resolve_parent(parent, file);
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(pfile, ec);
    for (const auto& c : chain)
      if (c == canon) fail(fname, line_of(inh), "`inherits: " + parent + "` forms a cycle");
    if (!fs::exists(pfile, ec))
      fail(fname, line_of(inh), "`inherits: " + parent + "`: no such device (looked for " + pfile.string() + ")");
    chain.push_back(canon);
    flat = load_flat(pfile, chain);
    chain.pop_back();
  } else if (!root["kernsim_device"]) {
    fail(fname, 0, "missing required key `kernsim_device` (the format version, 1)");
  }
  if (auto ver = root["kernsim_device"]) {
    if (!ver.IsScalar() || ver.as<std::string>() != "1")
      fail(fname, line_of(ver), "unsupported `kernsim_device` format version `" + ver.as<std::string>("?") + "` (this kernsim reads 1)");
  }

  Flat mine;
  for (const auto& kv : root) {
    std::string k = kv.first.as<std::string>();
    if (k == "sources") {
      if (!kv.second.IsMap()) fail(fname, line_of(kv.first), "`sources` must map short names to URLs or descriptions");
      for (const auto& s : kv.second) flat.sources[s.first.as<std::string>()] = s.second.as<std::string>();
    } else if (kMetaKeys.count(k)) {
      if (!kv.second.IsScalar()) fail(fname, line_of(kv.first), "`" + k + "` must be a plain value");
      flat.meta[k] = Leaf{kv.second, fname, line_of(kv.first)};
    } else if (kv.second.IsMap()) {
      flatten(kv.second, k, fname, mine);
    } else {
      fail(fname, line_of(kv.first), "unknown top-level key `" + k + "`");
    }
  }
  for (auto& [k, leaf] : mine.leaves) flat.leaves[k] = leaf;  // child overrides parent
  return flat;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(const std::string& key, unsigned vendor_bit) {
  std::string best;
  std::size_t best_d = 4;
  for (const auto& f : schema()) {
    if (!(f.vendors & vendor_bit)) continue;
    std::size_t d = edit_distance(key, f.key);
    if (d < best_d) { best_d = d; best = f.key; }
  }
  return best.empty() ? "" : " (did you mean `" + best + "`?)";
}

Confidence parse_confidence(const std::string& s, const Leaf& leaf, const std::string& key) {
  if (s == "documented") return Confidence::Documented;
  if (s == "measured") return Confidence::Measured;
  if (s == "estimated") return Confidence::Estimated;
  if (s == "fitted") return Confidence::Fitted;
  if (s == "published-measurement") return Confidence::PublishedMeasurement;
  fail(leaf.file, leaf.line,
       "key `" + key + "`: confidence `" + s + "` is not one of documented, measured, published-measurement, estimated, fitted");
}

template <class T>
T scalar_as(const YAML::Node& n, const Leaf& leaf, const std::string& key, const char* what) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    fail(leaf.file, leaf.line, "key `" + key + "`: value `" + (n.IsScalar() ? n.Scalar() : std::string("<non-scalar>")) +
                                   "` is not " + what);
  }
}

void set_value(const Field& f, DeviceSpec& d, const YAML::Node& v, const Leaf& leaf) {
  void* p = f.bind(d);
  switch (f.type) {
    case Type::Int: {
      if (!v.IsScalar()) fail(leaf.file, leaf.line, "key `" + f.key + "`: expected an integer");
      double x = scalar_as<double>(v, leaf, f.key, "a number");
      // beyond 2^53 a double no longer holds every integer (and the cast below would overflow)
      if (!std::isfinite(x) || std::abs(x) > 9007199254740992.0 || x != static_cast<double>(static_cast<std::int64_t>(x)))
        fail(leaf.file, leaf.line, "key `" + f.key + "`: expected an integer, got " + v.Scalar());
      if (x < 0) fail(leaf.file, leaf.line, "key `" + f.key + "`: must not be negative");
      *static_cast<std::int64_t*>(p) = static_cast<std::int64_t>(x);
      break;
    }
    case Type::Double: {
      if (!v.IsScalar()) fail(leaf.file, leaf.line, "key `" + f.key + "`: expected a number");
      double x = scalar_as<double>(v, leaf, f.key, "a number");
      if (!(x >= 0)) fail(leaf.file, leaf.line, "key `" + f.key + "`: must be a non-negative number");
      if (!std::isfinite(x)) fail(leaf.file, leaf.line, "key `" + f.key + "`: must be a finite number, got " + v.Scalar());
      *static_cast<double*>(p) = x;
      break;
    }
    case Type::String:
      if (!v.IsScalar()) fail(leaf.file, leaf.line, "key `" + f.key + "`: expected a string");
      *static_cast<std::string*>(p) = v.Scalar();
      break;
    case Type::Int3: {
      if (!v.IsSequence() || v.size() != 3) fail(leaf.file, leaf.line, "key `" + f.key + "`: expected a list of three integers [x, y, z]");
      auto& arr = *static_cast<std::array<std::int64_t, 3>*>(p);
      for (std::size_t i = 0; i < 3; ++i) {
        double x = scalar_as<double>(v[i], leaf, f.key, "an integer");
        if (!std::isfinite(x) || x <= 0 || x > 9007199254740992.0 || x != static_cast<double>(static_cast<std::int64_t>(x)))
          fail(leaf.file, leaf.line, "key `" + f.key + "`: element " + std::to_string(i) + " must be a positive integer");
        arr[i] = static_cast<std::int64_t>(x);
      }
      break;
    }
    case Type::IntList: {
      if (!v.IsSequence() || v.size() == 0) fail(leaf.file, leaf.line, "key `" + f.key + "`: expected a non-empty list of integers [a, b, ...]");
      auto& list = *static_cast<std::vector<std::int64_t>*>(p);
      list.clear();
      for (std::size_t i = 0; i < v.size(); ++i) {
        double x = scalar_as<double>(v[i], leaf, f.key, "an integer");
        if (!std::isfinite(x) || x <= 0 || x > 9007199254740992.0 || x != static_cast<double>(static_cast<std::int64_t>(x)))
          fail(leaf.file, leaf.line, "key `" + f.key + "`: element " + std::to_string(i) + " must be a positive integer");
        list.push_back(static_cast<std::int64_t>(x));
      }
      break;
    }
  }
}

const std::set<std::string> kLeafKeys = {"value", "source", "confidence", "note", "residual"};

std::string number_text(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);  // shortest text that reads back to x
  return std::string(buf, r.ptr);
}

// The GPC layout: its SMs add up to the part's, and the largest cluster fits the largest GPC.
template <class Reject>
void check_gpcs(const DeviceSpec& d, Reject&& reject) {
  const auto& g = d.topology.gpc_sms;
  std::int64_t sum = 0;
  for (std::int64_t n : g) sum += n;
  if (sum != d.sm.count)
    reject("topology.gpc_sms", "its SMs add up to " + std::to_string(sum) + ", not sm.count (" + std::to_string(d.sm.count) +
                                   "); a file that changes sm.count gives the GPCs of the new part too");
  if (d.topology.max_cluster_ctas < 1) reject("topology.max_cluster_ctas", "must be at least 1 (a CTA is a cluster of one)");
  if (d.topology.max_cluster_ctas_nonportable < d.topology.max_cluster_ctas)
    reject("topology.max_cluster_ctas_nonportable", "must be at least topology.max_cluster_ctas (" + std::to_string(d.topology.max_cluster_ctas) +
                                                         "), got " + std::to_string(d.topology.max_cluster_ctas_nonportable));
  const std::int64_t largest = g.empty() ? 0 : *std::max_element(g.begin(), g.end());
  if (d.topology.max_cluster_ctas_nonportable > largest * d.sm.max_blocks)
    reject("topology.max_cluster_ctas_nonportable", "is " + std::to_string(d.topology.max_cluster_ctas_nonportable) +
                                                         ", more CTAs than the largest GPC holds (" + std::to_string(largest) + " SMs x sm.max_blocks " +
                                                         std::to_string(d.sm.max_blocks) + ")");
  if (d.topology.tpc_sms < 0) reject("topology.tpc_sms", "must not be negative, got " + std::to_string(d.topology.tpc_sms));
  for (std::int64_t n : g)
    if (d.topology.tpc_sms > 0 && n % d.topology.tpc_sms != 0)
      reject("topology.tpc_sms", "a GPC of " + std::to_string(n) + " SMs is not whole TPCs of " + std::to_string(d.topology.tpc_sms));
  if (d.l2.tpc_merge_window_cycles < 0) reject("l2.tpc_merge_window_cycles", "must not be negative");
  if (d.l2.slice_read_bytes_per_cycle < 0) reject("l2.slice_read_bytes_per_cycle", "must not be negative");
  if (const auto& q = d.dram.latency_quantiles_permille; !q.empty()) {
    if (q.size() != 5 || q[0] <= 0 || !std::is_sorted(q.begin(), q.end()))
      reject("dram.latency_quantiles_permille", "takes five rising positive quantiles (u = 0, 0.1, 0.5, 0.9, 1)");
    const double mean = 0.05 * q[0] + 0.25 * q[1] + 0.4 * q[2] + 0.25 * q[3] + 0.05 * q[4];
    if (std::abs(mean - 1000) > 10)
      reject("dram.latency_quantiles_permille", "their mean is " + number_text(mean) + " per mille; dram.latency_cycles is the mean, so it must be 1000");
    const std::int64_t g = d.dram.latency_granule_bytes;
    if (g < d.l2.line_bytes || (g & (g - 1)))
      reject("dram.latency_granule_bytes", "must be a power of two of at least l2.line_bytes with dram.latency_quantiles_permille, got " + std::to_string(g));
  }
  if (d.l2.tpc_merge_window_cycles > 0 && d.topology.tpc_sms < 1) reject("l2.tpc_merge_window_cycles", "needs topology.tpc_sms (the SMs that merge)");
}

// What the models can hold. Counts and sizes the simulation divides by or sizes its state with
// must be at least 1, rates must be positive, and a few values are bounded by the models' fixed
// structures (device_spec.h, "What the models can hold"). A file beyond them stops here with the
// file and line the value came from, the key and the limit, not later with a division by zero
// or an overflowed array. Every built-in device is well inside these limits.
void check_model_limits(const DeviceSpec& d) {
  const bool nv = d.vendor == Vendor::Nvidia;
  const std::string unit = nv ? "sm." : "cu.";
  auto reject = [&](const std::string& key, const std::string& what) {
    auto it = d.provenance.find(key);
    if (it == d.provenance.end()) fail(d.file.string(), 0, "key `" + key + "`: " + what);
    fail(it->second.file, it->second.line, "key `" + key + "`: " + what);
  };
  auto count = [&](const std::string& key, std::int64_t v, const char* why) {
    if (v < 1) reject(key, "must be at least 1 (" + std::string(why) + "), got " + std::to_string(v));
  };
  auto rate = [&](const std::string& key, double v, const char* why) {
    if (!(v > 0)) reject(key, "must be positive (" + std::string(why) + "), got " + number_text(v));
  };
  auto at_most = [&](const std::string& key, std::int64_t v, std::int64_t limit, const char* why) {
    if (v > limit) reject(key, "is " + std::to_string(v) + ", above the " + std::to_string(limit) + " the model holds (" + why + ")");
  };
  auto power_of_two = [&](const std::string& key, std::int64_t v, const char* why) {
    if (v & (v - 1)) reject(key, "must be a power of two (" + std::string(why) + "), got " + std::to_string(v));
  };

  rate("clocks.core_mhz", d.clocks.core_mhz, "the clock cycles are counted in");
  if (!nv) rate("clocks.realtime_mhz", d.clocks.realtime_mhz, "s_memrealtime converts cycles to its ticks");
  if ((d.clocks.wgmma_idle_mhz != 0) != (d.clocks.wgmma_full_mhz != 0) || d.clocks.wgmma_idle_mhz < 0 || d.clocks.wgmma_full_mhz < 0)
    reject(d.clocks.wgmma_idle_mhz != 0 ? "clocks.wgmma_full_mhz" : "clocks.wgmma_idle_mhz",
           "clocks.wgmma_idle_mhz and clocks.wgmma_full_mhz are the two ends of one line: give both, positive, or neither");
  count("limits.max_threads_per_block", d.limits.max_threads_per_block, "a block has threads");
  count("topology.dies", d.topology.dies, "work is spread over the dies");
  count("topology.units_per_die", d.topology.units_per_die, "work is spread over each die's units");

  count(unit + "count", d.sm.count, "work is spread over the units");
  count(unit + "sub_partitions", d.sm.sub_partitions, "warps are spread over the schedulers/SIMDs");
  count(unit + "lanes_per_sub", d.sm.lanes_per_sub, "a scheduler/SIMD has lanes");
  count(unit + "max_threads", d.sm.max_threads, "occupancy is bounded by it");
  count(unit + "max_warps", d.sm.max_warps, "occupancy divides by it; per-warp state is sized by it");
  count(unit + "max_blocks", d.sm.max_blocks, "occupancy is bounded by it");
  count(unit + "registers", d.sm.registers, "occupancy divides the register file");
  count(unit + "register_alloc_unit", d.sm.register_alloc_unit, "allocations round up to it");
  count(unit + "issue_per_cycle", d.sm.issue_per_cycle, "a scheduler issues");
  if (nv) {
    if (d.sm.warp_scheduler != "greedy_then_oldest" && d.sm.warp_scheduler != "loose_round_robin")
      reject("sm.warp_scheduler", "`" + d.sm.warp_scheduler + "` is not a policy the NVIDIA model has (greedy_then_oldest, loose_round_robin)");
    if (!d.l1.set_hash.empty() && d.l1.set_hash != "multiplicative" && d.l1.set_hash != "xor")
      reject("l1.set_hash", "`" + d.l1.set_hash + "` is not one of multiplicative, xor");
    if (const auto& c = d.shared.carveout_steps_bytes; !c.empty()) {
      if (c.front() < 0 || !std::is_sorted(c.begin(), c.end()) || std::adjacent_find(c.begin(), c.end()) != c.end())
        reject("shared.carveout_steps_bytes", "takes rising capacities of at least 0 bytes");
      if (c.back() > d.l1.bytes)
        reject("shared.carveout_steps_bytes", "its largest step (" + std::to_string(c.back()) + ") is more than the unified array, l1.bytes (" +
                                                  std::to_string(d.l1.bytes) + ")");
      if (c.back() < d.shared.bytes_per_unit)
        reject("shared.carveout_steps_bytes", "its largest step (" + std::to_string(c.back()) + ") holds less than shared.bytes_per_unit (" +
                                                  std::to_string(d.shared.bytes_per_unit) + ")");
    }
    rate("sm.wgmma_flops_per_cycle_f16", d.sm.wgmma_flops_per_cycle_f16, "the tensor engine's service time divides by it");
    rate("sm.wgmma_flops_per_cycle_tf32", d.sm.wgmma_flops_per_cycle_tf32, "the tensor engine's service time divides by it");
    rate("sm.wgmma_flops_per_cycle_fp8", d.sm.wgmma_flops_per_cycle_fp8, "the tensor engine's service time divides by it");
    rate("sm.wgmma_flops_per_cycle_i8", d.sm.wgmma_flops_per_cycle_i8, "the tensor engine's service time divides by it");
    rate("tma.bytes_per_cycle", d.tma.bytes_per_cycle, "a TMA copy's transfer time divides its bytes by it");
    if (d.tma.issue_cycles < 0 || d.tma.latency_cycles < 0 || d.tma.mbarrier_arrive_cycles < 0 || d.tma.mbarrier_wake_cycles < 0 ||
        d.tma.try_wait_limit_cycles < 0)
      reject("tma.issue_cycles", "the TMA and mbarrier cycle counts must not be negative");
    if (d.sm.warp_size != kNvidiaWarpSize)
      reject("sm.warp_size", "must be " + std::to_string(kNvidiaWarpSize) + " (the NVIDIA model's lane masks are 32 bits), got " +
                                 std::to_string(d.sm.warp_size));
    check_gpcs(d, reject);
    rate("shared.dsmem_bytes_per_cycle", d.shared.dsmem_bytes_per_cycle, "distributed shared memory's bandwidth");
    if (d.tcgen05.tmem_columns != 0 && (d.tcgen05.tmem_columns < 32 || d.tcgen05.tmem_columns % 32 || d.tcgen05.tmem_columns > 65535))
      reject("tcgen05.tmem_columns", "must be a multiple of 32 (the unit of tcgen05.alloc) below 65536, got " + std::to_string(d.tcgen05.tmem_columns));
    if (d.tcgen05.tmem_columns != 0) {  // a part with tensor memory times tcgen05
      rate("tcgen05.mma_flops_per_cycle_f16", d.tcgen05.mma_flops_per_cycle_f16, "the tensor engine's service time divides by it");
      rate("tcgen05.mma_flops_per_cycle_tf32", d.tcgen05.mma_flops_per_cycle_tf32, "the tensor engine's service time divides by it");
      rate("tcgen05.mma_flops_per_cycle_f8f6f4", d.tcgen05.mma_flops_per_cycle_f8f6f4, "the tensor engine's service time divides by it");
      rate("tcgen05.mma_flops_per_cycle_f4", d.tcgen05.mma_flops_per_cycle_f4, "the tensor engine's service time divides by it");
      rate("tcgen05.mma_flops_per_cycle_i8", d.tcgen05.mma_flops_per_cycle_i8, "the tensor engine's service time divides by it");
      rate("tcgen05.tmem_bytes_per_cycle", d.tcgen05.tmem_bytes_per_cycle, "a tcgen05.ld/st's transfer time divides its bytes by it");
      count("tcgen05.mma_datapath_rows", d.tcgen05.mma_datapath_rows, "an mma's service counts its rows as at least this many");
      if (d.tcgen05.mma_latency_cycles < 0 || d.tcgen05.mma_smem_latency_cycles < 0 || d.tcgen05.commit_latency_cycles < 0 ||
          d.tcgen05.ld_latency_cycles < 0 ||
          d.tcgen05.st_latency_cycles < 0)
        reject("tcgen05.mma_latency_cycles", "the tcgen05 cycle counts must not be negative");
    }
  } else {
    if (d.sm.warp_size != 32 && d.sm.warp_size != kMaxWarpSize)
      reject("cu.warp_size", "must be 32 or " + std::to_string(kMaxWarpSize) + " (lane masks are 64 bits), got " + std::to_string(d.sm.warp_size));
    count("cu.scalar_registers", d.sm.scalar_registers, "occupancy divides the SGPRs");
    count("cu.scalar_register_alloc_unit", d.sm.scalar_register_alloc_unit, "allocations round up to it");
    count("cu.vm_counter_max", d.sm.vm_counter_max, "a wave must have one vector memory operation in flight");
    count("cu.lgkm_counter_max", d.sm.lgkm_counter_max, "a wave must have one LDS/scalar operation in flight");
    rate("cu.issue_interval_cycles", d.sm.issue_interval_cycles, "a SIMD's issue opportunities are this far apart");
    if (d.sm.sub_partitions > 0 && d.sm.max_warps % d.sm.sub_partitions)
      reject("cu.max_warps", "must be a multiple of cu.sub_partitions (" + std::to_string(d.sm.sub_partitions) +
                                 "): the wave slots are per SIMD, got " + std::to_string(d.sm.max_warps));
    if (d.topology.dies * d.topology.units_per_die != d.sm.count)
      reject("cu.count", "must equal topology.dies x topology.units_per_die (" + std::to_string(d.topology.dies) + " x " +
                             std::to_string(d.topology.units_per_die) + "): every XCD has its own L2, got " + std::to_string(d.sm.count));
  }

  count("shared.bytes_per_unit", d.shared.bytes_per_unit, "occupancy divides it");
  count("shared.alloc_unit_bytes", d.shared.alloc_unit_bytes, "allocations round up to it");
  count("shared.banks", d.shared.banks, "bank conflicts count words modulo the banks");
  count("shared.bank_width_bytes", d.shared.bank_width_bytes, "addresses divide into bank words");
  rate("shared.bytes_per_cycle", d.shared.bytes_per_cycle, "the banks' bandwidth");
  if (!nv) {
    count("shared.simds_per_port", d.shared.simds_per_port, "SIMDs share the LDS ports");
    rate("shared.port_bytes_per_cycle", d.shared.port_bytes_per_cycle, "the LDS ports' bandwidth");
  }

  // L1 and L2: the NVIDIA caches are mem::SectorCache (sectors of 4-byte words), the AMD ones
  // mem::LineCache (the line is the fill granule; its words are one 32-bit mask).
  for (const char* level : {"l1", "l2"}) {
    const Cache& c = std::string(level) == "l1" ? static_cast<const Cache&>(d.l1) : static_cast<const Cache&>(d.l2);
    const std::string k = std::string(level) + ".";
    count(k + "bytes", c.bytes, "a cache holds lines; sets are counted from it");
    count(k + "line_bytes", c.line_bytes, "addresses divide into lines");
    count(k + "sector_bytes", c.sector_bytes, "lines divide into sectors");
    count(k + "ways", c.ways, "a set holds lines");
    rate(k + "bytes_per_cycle", c.bytes_per_cycle, "the cache's bandwidth");
    power_of_two(k + "line_bytes", c.line_bytes, "line addresses are masks");
    if (c.sector_bytes % 4 || c.line_bytes % c.sector_bytes)
      reject(k + "sector_bytes", "must be a multiple of 4 that divides " + k + "line_bytes (" + std::to_string(c.line_bytes) + "), got " +
                                     std::to_string(c.sector_bytes));
    at_most(k + "sector_bytes", c.sector_bytes, kMaxLineWordBytes, "a sector's written 4-byte words are one 32-bit mask");
    if (c.line_bytes / c.sector_bytes > kMaxSectorsPerLine)
      reject(k + "sector_bytes", "gives " + std::to_string(c.line_bytes / c.sector_bytes) + " sectors per line, above the " +
                                     std::to_string(kMaxSectorsPerLine) + " the model holds (mem::SectorCache's per-sector state)");
    if (!nv) at_most(k + "line_bytes", c.line_bytes, kMaxLineWordBytes, "a line's written 4-byte words are one 32-bit mask");
    if (nv) at_most(k + "ways", c.ways, kMaxCacheWays, "mem::SectorCache keeps a set's use order in a byte a way");
  }
  rate("l1.lines_per_cycle", d.l1.lines_per_cycle, "the L1 pipeline's tag lookups");
  count("l2.instances", d.l2.instances, "the part has an L2");
  count("l2.slices", d.l2.slices, "lines are spread over the slices");
  rate("l2.atomic_ops_per_cycle", d.l2.atomic_ops_per_cycle, "the atomic units' throughput");
  if (d.l2.max_dirty_fraction < 0 || d.l2.max_dirty_fraction > 1)
    reject("l2.max_dirty_fraction", "must be a fraction in (0, 1] (absent: 1), got " + number_text(d.l2.max_dirty_fraction));
  if (d.l2.atomic_unit_bytes < 0 || (d.l2.atomic_unit_bytes > 0 && d.l2.line_bytes > 0 && d.l2.atomic_unit_bytes % d.l2.line_bytes != 0))
    reject("l2.atomic_unit_bytes", "must be a positive multiple of l2.line_bytes (" + std::to_string(d.l2.line_bytes) + "), got " +
                                       std::to_string(d.l2.atomic_unit_bytes));
  if (!nv) {
    if (d.l1.line_bytes != d.l2.line_bytes)
      reject("l1.line_bytes", "must equal l2.line_bytes (" + std::to_string(d.l2.line_bytes) + "): the AMD model moves whole lines between them, got " +
                                  std::to_string(d.l1.line_bytes));
    if (d.sm.warp_scheduler != "oldest_first_by_priority")
      reject("cu.warp_scheduler", "`" + d.sm.warp_scheduler + "` is not a policy the AMD model has (oldest_first_by_priority)");
    if (d.l2.channel_hash != "interleave" && d.l2.channel_hash != "xor")
      reject("l2.channel_hash", "`" + d.l2.channel_hash + "` is not one of interleave, xor");
    count("scalar_l1.bytes", d.scalar_l1.bytes, "a cache holds lines");
    count("scalar_l1.line_bytes", d.scalar_l1.line_bytes, "addresses divide into lines");
    power_of_two("scalar_l1.line_bytes", d.scalar_l1.line_bytes, "line addresses are masks");
    count("scalar_l1.cus_per_cache", d.scalar_l1.cus_per_cache, "CUs share a scalar cache");
    rate("scalar_l1.bytes_per_cycle", d.scalar_l1.bytes_per_cycle, "the scalar cache's bandwidth");
    rate("mall.bandwidth_gbps", d.mall.bandwidth_gbps, "L2 misses cross the fabric at it");
    if (d.mall.bytes > 0) {  // a part without a MALL gives 0 bytes
      count("mall.line_bytes", d.mall.line_bytes, "addresses divide into lines");
      power_of_two("mall.line_bytes", d.mall.line_bytes, "line addresses are masks");
      count("mall.ways", d.mall.ways, "a set holds lines");
    }
  }

  count("dram.channels", d.dram.channels, "atomics are spread over the channels");
  count("dram.access_bytes", d.dram.access_bytes, "transfers round up to bursts");
  rate("dram.bandwidth_gbps", d.dram.bandwidth_gbps, "HBM's bandwidth");
  rate("dram.read_efficiency", d.dram.read_efficiency, "a read stream's cost divides by it");
  rate("dram.write_efficiency", d.dram.write_efficiency, "a write stream's cost divides by it");
  rate("dram.copy_efficiency", d.dram.copy_efficiency, "a mixed stream's cost divides by it");
}

DeviceSpec build(const Flat& flat, const fs::path& file) {
  DeviceSpec d;
  d.file = file;
  std::string fname = file.string();
  auto meta = [&](const char* k) -> const Leaf* {
    auto it = flat.meta.find(k);
    return it == flat.meta.end() ? nullptr : &it->second;
  };
  if (const Leaf* v = meta("vendor")) {
    std::string s = v->node.Scalar();
    if (s == "nvidia") d.vendor = Vendor::Nvidia;
    else if (s == "amd") d.vendor = Vendor::Amd;
    else fail(v->file, v->line, "`vendor: " + s + "` is not one of nvidia, amd");
  } else {
    fail(fname, 0, "missing required key `vendor` (nvidia or amd)");
  }
  d.name = meta("name") ? meta("name")->node.Scalar() : file.stem().string();
  if (const Leaf* v = meta("description")) d.description = v->node.Scalar();
  d.sources = flat.sources;
  unsigned vbit = d.vendor == Vendor::Nvidia ? kNv : kAmd;

  std::map<std::string, const Field*> by_key;
  for (const auto& f : schema())
    if (f.vendors & vbit) by_key[f.key] = &f;

  for (const auto& [key, leaf] : flat.leaves) {
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      bool other_vendor = false;
      for (const auto& f : schema()) other_vendor |= (f.key == key);
      if (other_vendor)
        fail(leaf.file, leaf.line, "key `" + key + "` does not apply to a " + to_string(d.vendor) + " device");
      fail(leaf.file, leaf.line, "unknown key `" + key + "`" + suggestion(key, vbit));
    }
    for (const auto& kv : leaf.node) {
      std::string lk = kv.first.as<std::string>();
      if (!kLeafKeys.count(lk))
        fail(leaf.file, leaf.line, "key `" + key + "`: unknown field `" + lk + "` (allowed: value, source, confidence, note, residual)");
    }
    Provenance prov;
    prov.file = leaf.file;
    prov.line = leaf.line;
    if (!leaf.node["source"] || leaf.node["source"].Scalar().empty())
      fail(leaf.file, leaf.line, "key `" + key + "`: missing `source` (a URL, a key of `sources:`, or how it was measured)");
    if (!leaf.node["confidence"])
      fail(leaf.file, leaf.line, "key `" + key + "`: missing `confidence` (documented, measured, published-measurement, estimated or fitted)");
    prov.source = leaf.node["source"].Scalar();
    prov.confidence = parse_confidence(leaf.node["confidence"].Scalar(), leaf, key);
    if (auto n = leaf.node["note"]) prov.note = n.Scalar();
    if (auto r = leaf.node["residual"]) prov.residual = scalar_as<double>(r, leaf, key, "a number (residual)");
    // A source is a URL, a free description, or keys of the sources table (UPPER_CASE, comma
    // separated); a key that is not defined is an error.
    const std::string& src = prov.source;
    bool looks_like_key = !src.empty() && std::all_of(src.begin(), src.end(), [](unsigned char c) {
      return std::isupper(c) || std::isdigit(c) || c == '_' || c == ',';
    });
    if (looks_like_key) {
      std::stringstream ss(src);
      std::string part;
      while (std::getline(ss, part, ','))
        if (!flat.sources.count(part))
          fail(leaf.file, leaf.line, "key `" + key + "`: source `" + part + "` is not defined in `sources:`");
    }
    set_value(*it->second, d, leaf.node["value"], leaf);
    d.provenance[key] = prov;
  }
  for (const auto& [key, f] : by_key)
    if (f->required && !flat.leaves.count(key))
      fail(fname, 0, "missing required key `" + key + "` (" + f->description + ")");
  for (int i = 0; i < kNumMfmaShapes; ++i) {  // an MFMA shape is timed by both of its keys or not at all
    const std::string c = std::string("mfma.") + kMfmaShapes[i] + ".cycles", v = std::string("mfma.") + kMfmaShapes[i] + ".valu_blocked_cycles";
    if (flat.leaves.count(c) != flat.leaves.count(v)) {
      const Leaf& l = flat.leaves.count(c) ? flat.leaves.at(c) : flat.leaves.at(v);
      fail(l.file, l.line, "key `" + (flat.leaves.count(c) ? v : c) + "` is missing (an MFMA shape needs both `cycles` and `valu_blocked_cycles`)");
    }
  }
  check_model_limits(d);
  return d;
}

}  // namespace

fs::path builtin_device_dir() { return data_dir() / "calibration" / "devices"; }

std::vector<std::string> builtin_device_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(builtin_device_dir(), ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

DeviceSpec load_device_file(const fs::path& file) {
  std::vector<fs::path> chain;
  std::error_code ec;
  chain.push_back(fs::weakly_canonical(file, ec));
  try {
    Flat flat = load_flat(file, chain);
    return build(flat, file);
  } catch (const YAML::Exception& e) {
    // a node of the wrong shape where the loader reads a scalar (a map as a key, an alias as
    // `inherits`): named with the line, never an internal error (found by fuzzing,
    // tests/fuzz/regressions/device_file)
    fail(file.string(), e.mark.line >= 0 ? e.mark.line + 1 : 0, "a value of the wrong shape: " + e.msg);
  }
}

DeviceSpec load_builtin_device(std::string_view name) {
  static const std::map<std::string, std::string, std::less<>> aliases = {
      {"sm_90", "h200"}, {"sm_90a", "h200"}, {"sm_100", "b200"}, {"sm_100a", "b200"},
      {"gfx942", "mi300x"}, {"gfx950", "mi355x"}, {"h100_sxm", "h100"}, {"h200_sxm", "h200"}};
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (auto it = aliases.find(n); it != aliases.end()) n = it->second;
  fs::path file = builtin_device_dir() / (n + ".yaml");
  std::error_code ec;
  if (n.empty() || !fs::exists(file, ec)) {
    std::string known;
    for (const auto& k : builtin_device_names()) known += (known.empty() ? "" : ", ") + k;
    throw Error(ErrorKind::Usage, "unknown device `" + std::string(name) + "` (known: " + known + "; or pass --device FILE)");
  }
  return load_device_file(file);
}

DeviceSpec resolve_device(const std::optional<std::string>& arch, const std::optional<std::string>& file) {
  if (arch && file) throw Error(ErrorKind::Usage, "give either --arch NAME or --device FILE, not both");
  if (file) return load_device_file(*file);
  return load_builtin_device(arch ? *arch : "h200");
}

std::vector<SchemaRow> device_schema() {
  std::vector<SchemaRow> rows;
  for (const auto& f : schema()) {
    const char* t = f.type == Type::Int      ? "int"
                    : f.type == Type::Double ? "number"
                    : f.type == Type::String ? "string"
                    : f.type == Type::Int3   ? "int[3]"
                                             : "int[]";
    const char* v = f.vendors == kBoth ? "both" : f.vendors == kNv ? "nvidia" : "amd";
    rows.push_back({f.key, t, f.unit, v, f.required, f.description});
  }
  return rows;
}


// ---- typed access by key (calibration, device-file writer) ----

namespace {

const Field& field_for(const DeviceSpec& d, std::string_view key) {
  const unsigned vbit = d.vendor == Vendor::Nvidia ? kNv : kAmd;
  for (const auto& f : schema())
    if (f.key == key && (f.vendors & vbit)) return f;
  const std::string k(key);
  for (const auto& f : schema())
    if (f.key == key) throw Error(ErrorKind::Usage, "device key `" + k + "` does not apply to a " + to_string(d.vendor) + " device");
  throw Error(ErrorKind::Usage, "unknown device key `" + k + "`" + suggestion(k, vbit));
}

}  // namespace

bool is_schema_key(const DeviceSpec& d, std::string_view key) {
  const unsigned vbit = d.vendor == Vendor::Nvidia ? kNv : kAmd;
  return std::any_of(schema().begin(), schema().end(), [&](const Field& f) { return f.key == key && (f.vendors & vbit); });
}

bool is_integer_key(const DeviceSpec& d, std::string_view key) { return field_for(d, key).type == Type::Int; }

double get_number(const DeviceSpec& d, std::string_view key) {
  const Field& f = field_for(d, key);
  void* p = f.bind(const_cast<DeviceSpec&>(d));  // bind only locates the member; nothing is written
  if (f.type == Type::Int) return static_cast<double>(*static_cast<std::int64_t*>(p));
  if (f.type == Type::Double) return *static_cast<double*>(p);
  throw Error(ErrorKind::Usage, "device key `" + f.key + "` is not a number");
}

void set_number(DeviceSpec& d, std::string_view key, double value) {
  const Field& f = field_for(d, key);
  void* p = f.bind(d);
  if (!(value >= 0) || !std::isfinite(value))
    throw Error(ErrorKind::Usage, "device key `" + f.key + "`: must be a finite non-negative number");
  if (f.type == Type::Int) {
    if (value != static_cast<double>(static_cast<std::int64_t>(value)))
      throw Error(ErrorKind::Usage, "device key `" + f.key + "` is an integer, got " + number_text(value));
    *static_cast<std::int64_t*>(p) = static_cast<std::int64_t>(value);
  } else if (f.type == Type::Double) {
    *static_cast<double*>(p) = value;
  } else {
    throw Error(ErrorKind::Usage, "device key `" + f.key + "` is not a number");
  }
}

std::string value_as_yaml(const DeviceSpec& d, std::string_view key) {
  const Field& f = field_for(d, key);
  void* p = f.bind(const_cast<DeviceSpec&>(d));
  switch (f.type) {
    case Type::Int: return std::to_string(*static_cast<std::int64_t*>(p));
    case Type::Double: return number_text(*static_cast<double*>(p));
    case Type::String: {
      std::string out = "\"";
      for (char c : *static_cast<std::string*>(p)) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
    case Type::Int3: {
      const auto& a = *static_cast<std::array<std::int64_t, 3>*>(p);
      return "[" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " + std::to_string(a[2]) + "]";
    }
    case Type::IntList: {
      std::string out = "[";
      for (std::int64_t x : *static_cast<std::vector<std::int64_t>*>(p)) out += (out.size() > 1 ? ", " : "") + std::to_string(x);
      return out + "]";
    }
  }
  return "";
}

double wgmma_load_mhz(const DeviceSpec& d, double busy) {
  if (d.clocks.wgmma_idle_mhz <= 0 || d.clocks.wgmma_full_mhz <= 0) return 0;
  const double b = std::clamp(busy, 0.0, 1.0);
  return d.clocks.wgmma_idle_mhz + b * (d.clocks.wgmma_full_mhz - d.clocks.wgmma_idle_mhz);
}

DeviceSpec at_tensor_clock(const DeviceSpec& d, bool wgmma) {
  DeviceSpec t = d;
  const double mhz = wgmma && d.clocks.wgmma_mhz > 0 ? d.clocks.wgmma_mhz : d.clocks.tensor_mhz;
  if (mhz <= 0 || mhz == d.clocks.core_mhz) return t;
  const double r = mhz / d.clocks.core_mhz;
  t.clocks.core_mhz = mhz;
  t.dram.latency_cycles *= r;
  t.dram.queue_service_cycles *= r;
  t.dram.queue_max_cycles *= r;
  if (d.clocks.l2_mhz > 0) {  // the L2 does not slow down with the SM: more of its work per SM cycle
    t.l2.bytes_per_cycle /= r;
    t.l2.atomic_ops_per_cycle /= r;
    t.l2.atomic_same_address_cycles *= r;
    t.l2.atomic_float_same_address_cycles *= r;
  }
  return t;
}

}  // namespace kernsim::device
