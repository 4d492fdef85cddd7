// kernsim::frontends::DeviceModule — what a frontend delivers: the ISA text or binary of one
// compiled source, its kernels with their parameters, and each kernel's resource usage.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kernsim::frontends {

enum class IsaKind { Ptx, Amdgcn };

struct Resources {
  int registers = 0;              // per thread (NVIDIA) / VGPRs (AMD)
  int agprs = 0;                  // AMD accumulation registers
  int sgprs = 0;                  // AMD scalar registers
  std::int64_t static_shared = 0; // bytes
  std::int64_t local_bytes = 0;   // stack frame / scratch per thread
  int spill_stores = 0, spill_loads = 0;
  std::string source;             // "ptxas", "code object metadata", "estimate"
  // NVIDIA: global/generic loads in each innermost loop of the SASS ptxas made of the kernel
  // (in address order), which tells how far ptxas unrolled each PTX loop; empty with
  // sass_source "unavailable" when ptxas or nvdisasm is missing.
  std::vector<int> sass_loop_loads;
  std::vector<int> sass_loop_load_bytes;  // per loop as above: bytes a lane loads per iteration
  // NVIDIA: ptxas said (C7514) that it serialized the kernel's wgmma.mma_async instructions
  // ("non wgmma instructions reading accumulator registers of a wgmma between start and end of
  // the pipeline stage", ...): each waits for the one before it to complete.
  bool wgmma_serialized = false;
  std::string sass_source;
};

struct KernelInfo {
  std::string name;       // as in the ISA (mangled)
  std::string demangled;  // full demangled signature, or the name itself
  Resources resources;
};

// Something the frontend found in the source that may make the result differ from what the
// source's author expects, named so that a program can act on it (the CUDA-on-AMD port's
// warp32-* warnings: frontends/cuda_port.h, docs/cuda_on_amd.md).
struct Warning {
  std::string name;     // "warp32-mask", ...
  std::string file;     // as the compiler names it
  int line = 0;
  std::string code;     // the source line (macros expanded), trimmed
  std::string message;  // what it means
};

struct DeviceModule {
  IsaKind kind = IsaKind::Ptx;
  std::string target;                 // sm_90a / gfx942 ...
  std::string text;                   // PTX text (or AMDGCN assembly)
  std::vector<std::uint8_t> binary;   // code object (AMD)
  std::filesystem::path origin;       // the source file
  std::string producer;               // "clang 22", "nvcc ptx", "passthrough"
  std::vector<KernelInfo> kernels;
  bool from_cache = false;
  // "cuda-as-hip": a CUDA source compiled for an AMD part through the port (docs/cuda_on_amd.md)
  std::string port;
  std::vector<Warning> warnings;

  // Finds a kernel as Python's Module.kernel() does: by mangled name, full demangled signature,
  // unique demangled name without the return type and parameter list ("saxpy", "scale<float>"),
  // or unique name without template arguments ("scale" for the one instance scale<float>).
  // Spaces do not count. Throws Error(LaunchSpec) listing the kernels.
  const KernelInfo& find_kernel(const std::string& name) const;
};

std::string demangle(const std::string& mangled);

}  // namespace kernsim::frontends
