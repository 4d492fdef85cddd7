// kernsim::isa::amdgcn::CodeObject — an AMDGPU code object (the ELF shared object that clang,
// hipcc and Triton produce, `.hsaco`/`.co`) read into plain data: the loadable segments, the
// kernels with their 64-byte kernel descriptors and AMDHSA metadata (arguments, register counts,
// LDS and scratch sizes, wavefront size), and every function symbol for naming addresses.
//
// Nothing here interprets instructions; isa/amdgcn/decode.h disassembles the text. Addresses are
// the code object's own virtual addresses; a loader adds one base to all of them, which keeps the
// PC-relative references (s_getpc_b64 + offset) that code uses to reach its constant tables valid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kernsim::isa::amdgcn {

// The fields of the AMDHSA kernel descriptor (llvm.org/docs/AMDGPUUsage.html, "Kernel
// Descriptor") that decide the initial wave state.
struct KernelDescriptor {
  std::uint32_t group_segment_fixed_size = 0;
  std::uint32_t private_segment_fixed_size = 0;
  std::uint32_t kernarg_size = 0;
  std::int64_t kernel_code_entry_byte_offset = 0;  // from the descriptor's own address
  std::uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  std::uint16_t code_properties = 0;
  std::uint16_t kernarg_preload = 0;
  // COMPUTE_PGM_RSRC2
  bool enable_private_segment = false;  // private segment wavefront offset SGPR (if not architected)
  int user_sgpr_count = 0;
  bool enable_workgroup_id[3] = {false, false, false};
  bool enable_workgroup_info = false;
  int enable_vgpr_workitem_id = 0;  // 0: X; 1: X, Y; 2: X, Y, Z
  // kernel_code_properties: user SGPRs, in this order
  bool user_private_segment_buffer = false;  // 4 SGPRs
  bool user_dispatch_ptr = false;            // 2
  bool user_queue_ptr = false;               // 2
  bool user_kernarg_segment_ptr = false;     // 2
  bool user_dispatch_id = false;             // 2
  bool user_flat_scratch_init = false;       // 2
  bool user_private_segment_size = false;    // 1
  bool wavefront_size32 = false;
  bool uses_dynamic_stack = false;
  int kernarg_preload_dwords = 0;       // KERNARG_PRELOAD_SPEC_LENGTH
  int kernarg_preload_offset_dwords = 0;
  // COMPUTE_PGM_RSRC3 (gfx90a and later)
  int accum_offset = 0;  // first AGPR in the unified register file, in VGPRs
};

struct KernelArg {
  std::string name;           // .name when present
  std::string value_kind;     // by_value, global_buffer, dynamic_shared_pointer, hidden_block_count_x, ...
  std::string address_space;  // global, constant, local, ... (pointers)
  std::uint32_t offset = 0, size = 0;
  bool hidden() const { return value_kind.rfind("hidden_", 0) == 0; }
};

struct Kernel {
  std::string name;               // symbol name (mangled unless extern "C")
  std::uint64_t code_addr = 0;    // entry address
  std::uint64_t code_size = 0;
  std::uint64_t descriptor_addr = 0;
  KernelDescriptor kd;
  // AMDHSA metadata (NT_AMDGPU_METADATA)
  std::vector<KernelArg> args;
  std::uint32_t kernarg_segment_size = 0, kernarg_segment_align = 8;
  std::uint32_t group_segment_fixed_size = 0, private_segment_fixed_size = 0;
  int sgpr_count = 0, vgpr_count = 0, agpr_count = 0, sgpr_spill_count = 0, vgpr_spill_count = 0;
  int wavefront_size = 64, max_flat_workgroup_size = 1024;
  int reqd_workgroup_size[3] = {0, 0, 0};
  bool uses_dynamic_stack = false;
  bool has_metadata = false;
};

struct Segment {
  std::uint64_t vaddr = 0;
  std::vector<std::uint8_t> bytes;  // memsz bytes (file bytes, then zeros)
  bool writable = false, executable = false;
};

struct Symbol {
  std::string name;
  std::uint64_t addr = 0, size = 0;
  bool is_function = false;
};

// A dynamic relocation the loader applies: write (base + addend) or (base + symbol + addend),
// 64-bit, at base + offset.
struct Relocation {
  std::uint64_t offset = 0;
  std::int64_t addend = 0;
  std::uint64_t symbol_value = 0;
  bool relative = true;  // R_AMDGPU_RELATIVE64 (no symbol) or R_AMDGPU_ABS64 against a defined symbol
};

// A run of code addresses [begin, end) that the DWARF line table (.debug_line, clang's
// -gline-tables-only) gives one source position.
struct LineRange {
  std::uint64_t begin = 0, end = 0;
  std::string file;  // as the line table names it, with the compilation directory when relative
  std::uint32_t line = 0;
};

struct CodeObject {
  std::string target;           // processor: gfx942, gfx950, ...
  std::string target_id;        // full target id, e.g. amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
  int code_object_version = 0;  // 4, 5, 6 (from the metadata version)
  std::uint64_t text_addr = 0;
  std::vector<std::uint8_t> text;
  std::vector<Segment> segments;
  std::vector<Relocation> relocations;
  std::vector<Kernel> kernels;
  std::vector<Symbol> symbols;  // functions and objects, sorted by address
  std::vector<LineRange> lines; // source positions by address, sorted, not overlapping; empty without .debug_line

  const Kernel* find(const std::string& name) const;
  // The source position of the instruction at `addr`, or nullptr (no line info, line 0).
  const LineRange* line_at(std::uint64_t addr) const;
  // "kern+0x1c" for a code address (or the hex address when no function contains it).
  std::string describe_address(std::uint64_t addr) const;
};

// Reads an AMDGPU ELF code object. `origin` names it in errors (Error(Parse)).
CodeObject read_code_object(const std::vector<std::uint8_t>& elf, const std::string& origin);

// The processor's ISA version number as the device libraries use it (gfx942 -> 9402).
int isa_version_number(const std::string& processor);

}  // namespace kernsim::isa::amdgcn
