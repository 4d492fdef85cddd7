// kernsim::sim::AmdKernel / AmdWorkgroup — wave64 execution of AMDGCN machine code on real data.
//
// The AMD counterpart of PtxKernel / PtxCta. A workgroup holds its waves (64 lanes each, the last
// one partial), their SGPR, VGPR and AGPR files, and its LDS. Control flow is explicit in this
// ISA: the compiler manages the exec mask with s_and_saveexec / s_cbranch_execz, so a wave is a
// single program counter and a lane mask, never a reconvergence stack. s_barrier really waits for
// every wave of the workgroup; s_endpgm ends a wave. Every memory access is bounds-checked before
// anything is written: global and flat accesses against GlobalMemory's allocations, LDS against
// the workgroup's size, scratch against the kernel's private segment size.
//
// Each wave starts in the state the ROCm runtime and the hardware give it for the kernel
// descriptor's enables: user SGPRs (kernarg segment pointer, dispatch and queue pointers, ...,
// preloaded kernel arguments), then workgroup IDs and workgroup info; v0 holds the work-item IDs
// (packed X | Y << 10 | Z << 20 on gfx90a and later, one VGPR each before); exec holds the wave's
// live lanes. The kernarg segment carries the user arguments and the hidden arguments the code
// object metadata asks for (block counts, group sizes, remainders, grid dimensions, dynamic LDS
// size, ...).
//
// step() executes one instruction of a wave and returns an AmdStepInfo, so a timing model can
// drive execution exactly as for PTX (execution-driven, no trace files).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/amdgcn/program.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"  // LaunchDims

namespace kernsim::sim {

struct AmdExecOptions {
  std::uint64_t max_wave_instructions = 4'000'000'000ull;  // per launch
  std::string kernel_name;                                // for messages (demangled if known)
  std::uint32_t dynamic_stack_bytes = 16384;              // per lane, for kernels with a dynamic stack
  double wall_time_limit_s = 0;                           // simulation wall time; 0 = none
};

// What one step did. `active` is the exec mask the instruction ran under (vector instructions);
// scalar instructions report the wave's exec mask too, and count as one thread-instruction.
struct AmdStepInfo {
  enum class Kind : std::uint8_t {
    Executed,     // an instruction ran
    BarrierWait,  // the wave arrived at s_barrier and now waits
    Exited,       // the wave executed s_endpgm
  };
  Kind kind = Kind::Executed;
  std::uint32_t pc = 0;               // instruction index into Program::insts
  std::uint64_t active = 0;
  bool vector = false;                // a VALU / VMEM / DS / MFMA instruction
  std::uint8_t spaces = 0;            // memory it touched: kGlobal | kLds | kScratch (flat resolves per lane)
  static constexpr std::uint8_t kGlobal = 1, kLds = 2, kScratch = 4;
  bool released_barrier = false;      // this step completed a barrier: waiting waves may run again
  std::uint32_t next_pc = 0;
};

class AmdKernel;

// Where the timing model placed a wave: what s_getreg_b32 reads from HW_REG_HW_ID (gfx9 layout:
// WAVE_ID [3:0], SIMD_ID [5:4], PIPE_ID [7:6], CU_ID [11:8], SH_ID [12], SE_ID [14:13], TG_ID
// [19:16], VM_ID [23:20], QUEUE_ID [26:24], STATE_ID [29:27], ME_ID [31:30]) and, on gfx940 and
// later, HW_REG_XCC_ID (XCC_ID [3:0]). kernsim sets the location fields; PIPE, TG, VM, QUEUE,
// STATE and ME read as zero.
struct AmdPlacement {
  std::uint32_t xcc = 0;   // XCD
  std::uint32_t se = 0;    // shader engine within the XCD (2 bits)
  std::uint32_t sh = 0;    // shader array within the shader engine (1 bit)
  std::uint32_t cu = 0;    // CU within the shader array (4 bits)
  std::uint32_t simd = 0;  // SIMD within the CU (2 bits)
  std::uint32_t slot = 0;  // wave slot within the SIMD (4 bits)
  std::uint32_t hw_id() const {
    return (slot & 0xfu) | (simd & 3u) << 4 | (cu & 0xfu) << 8 | (sh & 1u) << 12 | (se & 3u) << 13;
  }
};

class AmdWorkgroup {
 public:
  AmdWorkgroup(AmdKernel& kernel, std::uint64_t linear_id);
  ~AmdWorkgroup();
  AmdWorkgroup(const AmdWorkgroup&) = delete;
  AmdWorkgroup& operator=(const AmdWorkgroup&) = delete;

  int num_waves() const;
  bool wave_done(int w) const;
  bool wave_waiting(int w) const;  // at s_barrier
  bool done() const;
  AmdStepInfo step(int w);         // wave w must be neither done nor waiting
  void run();                      // every wave to completion (functional mode)
  std::uint32_t next_pc(int w) const;
  const std::uint64_t* lane_addresses(int w) const;  // byte addresses of its last memory instruction
  // Which lanes of its last vector memory instruction reached global memory, the LDS (flat
  // addresses in the shared aperture; lane_addresses then holds LDS offsets) and scratch (private
  // offsets); buffer lanes out of range reach nothing.
  void lane_spaces(int w, std::uint64_t& global, std::uint64_t& lds, std::uint64_t& scratch) const;
  // The LDS byte offset lane 0 of its last buffer load with `lds` wrote (M0 + the instruction's
  // offset); lane l wrote at this + l * 4 (loads of up to 4 bytes) or + l * 16.
  std::uint64_t lds_dma_base(int w) const;
  std::array<std::uint32_t, 3> id() const;
  std::uint64_t linear_id() const;
  std::uint32_t lds_bytes() const;
  // The timing model places wave w (before it runs): HW_ID and XCC_ID report it. Without a
  // placement (functional runs, workgroups completed after a sampled window) HW_ID holds only the
  // wave's index in WAVE_ID and the other fields read zero.
  void place(int w, const AmdPlacement& where);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

class AmdKernel {
 public:
  // `user_args`: the kernarg segment bytes of the explicit arguments (hidden arguments are filled
  // here from the metadata). The code object must already be mapped (map_code_object).
  AmdKernel(const isa::amdgcn::Program& program, const isa::amdgcn::Kernel& kernel, GlobalMemory& memory,
            std::uint64_t code_base, LaunchDims dims, std::vector<std::uint8_t> user_args, AmdExecOptions options);
  ~AmdKernel();

  const isa::amdgcn::Program& program() const { return prog_; }
  const isa::amdgcn::Kernel& kernel() const { return kernel_; }
  GlobalMemory& memory() { return mem_; }
  const LaunchDims& dims() const { return dims_; }
  const AmdExecOptions& options() const { return opts_; }
  std::uint64_t code_base() const { return code_base_; }
  std::uint64_t kernarg_address() const { return kernarg_addr_; }
  std::uint64_t dispatch_packet_address() const { return dispatch_addr_; }
  std::uint64_t queue_address() const { return queue_addr_; }
  std::uint32_t entry() const { return entry_; }
  std::uint32_t private_bytes() const { return private_bytes_; }
  bool packed_workitem_ids() const { return packed_tid_; }
  // VGPRs per lane each wave gets: those the code names, or the kernel's allocation when the code
  // indexes VGPRs through M0 (s_set_gpr_idx_on)
  int vgprs() const { return vgprs_; }
  int agprs() const { return agprs_; }  // AGPRs the kernel's code names

  void run_all();
  std::unique_ptr<AmdWorkgroup> make_workgroup(std::uint64_t linear) { return std::make_unique<AmdWorkgroup>(*this, linear); }

  std::uint64_t wave_instructions() const { return wave_insts_; }
  std::uint64_t thread_instructions() const { return thread_insts_; }
  // The timing model sets the clocks before each instruction it issues: s_memtime reads the
  // shader clock (cycles), s_memrealtime the constant 100 MHz clock. A functional run (no timing
  // model) reads the wave instructions executed so far from both.
  void set_clock(std::uint64_t shader_cycles, std::uint64_t realtime_ticks) {
    clock_set_ = true;
    clock_ = shader_cycles;
    realtime_ = realtime_ticks;
  }
  std::uint64_t memtime() const { return clock_set_ ? clock_ : wave_insts_; }
  std::uint64_t memrealtime() const { return clock_set_ ? realtime_ : wave_insts_; }
  void count(std::uint64_t active, bool vector) {
    ++wave_insts_;
    thread_insts_ += vector ? static_cast<std::uint64_t>(__builtin_popcountll(active)) : 1u;
    if (wave_insts_ > limit_ || ((wave_insts_ & 0x3fff) == 0 && opts_.wall_time_limit_s > 0)) check_limits();
  }
  // Bounds the instructions of what runs next (a probe of one workgroup): past `more` of them it
  // throws ProbeStopped; uncap() restores the launch's limit.
  void cap_instructions(std::uint64_t more) {
    limit_ = more >= opts_.max_wave_instructions - std::min(opts_.max_wave_instructions, wave_insts_) ? opts_.max_wave_instructions
                                                                                                     : wave_insts_ + more;
  }
  void uncap() { limit_ = opts_.max_wave_instructions; }
  // Progress: the steps of waves not suspected of an endless loop (WaveSpin in amd_impl.h).
  void note_suspect_step() { ++suspect_insts_; }
  std::uint64_t progress() const { return wave_insts_ - suspect_insts_; }

 private:
  void check_limits() const;  // throws when the instruction or wall-time limit is exceeded
  const isa::amdgcn::Program& prog_;
  const isa::amdgcn::Kernel& kernel_;
  GlobalMemory& mem_;
  std::uint64_t code_base_;
  LaunchDims dims_;
  AmdExecOptions opts_;
  std::uint64_t kernarg_addr_ = 0, dispatch_addr_ = 0, queue_addr_ = 0;
  std::uint32_t entry_ = 0;
  std::uint32_t private_bytes_ = 0;
  bool clock_set_ = false;
  std::uint64_t clock_ = 0, realtime_ = 0;
  bool packed_tid_ = true;
  int vgprs_ = 0, agprs_ = 0;
  std::uint64_t wave_insts_ = 0, thread_insts_ = 0, suspect_insts_ = 0;
  std::uint64_t limit_ = 0;  // the instruction count past which count() stops the run
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

// Maps the code object's loadable segments into device memory at one base address (PC-relative
// references between code and constant data stay valid) and applies its dynamic relocations.
// Returns the base. Idempotent for a GlobalMemory that already holds it.
std::uint64_t map_code_object(const isa::amdgcn::CodeObject& code, GlobalMemory& memory, const std::string& label);

}  // namespace kernsim::sim
