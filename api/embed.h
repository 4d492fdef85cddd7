// kernsim::api embedding — what a program that hosts kernsim in-process (the Python package)
// needs beyond run_launch(): sources given as text, a description of a compiled module, and
// batches of launches run in parallel on oneTBB with per-launch errors instead of exceptions.
//
// Contract:
//  - source_from_text() stores the text under the compile cache, in a file named by the hash of
//    its content: the same text always gives the same path, so the frontend's content-hash cache
//    serves a resubmitted kernel and two different texts never share a file. CUDA and HIP texts
//    that differ only in comments and whitespace (frontends/source_key.h) share a directory, so
//    the cache serves those too.
//  - describe_module() compiles (through the cache) and decodes every kernel to list its
//    parameters: as the PTX declares them, or as the AMD code object's metadata gives them.
//  - run_jobs() never throws for a job: each JobResult holds either the RunResult or the error's
//    kind and message (the CLI's text). Results do not depend on `workers` or on job order:
//    every launch is simulated on its own, deterministically. Devices are loaded once per batch.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "api/devices.h"
#include "api/errors.h"
#include "api/launch_spec.h"
#include "api/run.h"
#include "frontends/module.h"

namespace kernsim::api {

// `extension` includes the dot: ".cu", ".ptx", ".ll", ".hsaco".
std::filesystem::path source_from_text(std::string_view text, std::string_view extension);

struct ParamDesc {
  std::string name;
  std::string type;          // PTX type without the dot: u32 s32 u64 f32 b64 ... ("" for structs)
  int bytes = 0;
  bool is_pointer = false;   // may take a buffer
  bool is_aggregate = false; // struct passed by value ({"struct": ...} / {"bytes": ...} in a spec)
  int align = 0;             // the parameter's alignment (.param .align A; AMD: 0, not recorded)
};

struct KernelDesc {
  std::string name;       // as in the ISA (mangled)
  std::string demangled;
  frontends::Resources resources;
  std::vector<ParamDesc> params;
  std::array<int, 3> reqntid{0, 0, 0}, maxntid{0, 0, 0};  // 0: not declared
  std::int64_t static_shared_bytes = 0;
};

struct ModuleDesc {
  std::filesystem::path source;
  std::string target;    // sm_90a ...
  std::string producer;  // "clang 22 (...)", "ptx file"
  std::string isa;       // "ptx" / "amdgcn"
  std::string text;      // the ISA text
  bool from_cache = false;
  std::vector<KernelDesc> kernels;
  std::string port;                           // "cuda-as-hip": a CUDA source ported to an AMD part
  std::vector<frontends::Warning> warnings;   // the port's warp32-* warnings (docs/cuda_on_amd.md)
};

ModuleDesc describe_module(const std::filesystem::path& source, const std::string& target,
                           const CompileSettings& settings = {});

struct Job {
  LaunchSpec spec;
  std::string arch;         // built-in device name or alias
  std::string device_file;  // or a device file (takes precedence when not empty)
  RunOptions options;
};

struct JobResult {
  bool ok = false;
  RunResult result;
  ErrorKind error_kind = ErrorKind::Internal;
  std::string error;        // the message, as the CLI prints it after "kernsim: KIND: "
  double wall_s = 0;        // seconds this launch took (compile from cache + simulate)
};

std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, int workers);

struct CompileJob {
  std::filesystem::path source;
  std::string target;
  CompileSettings compile;  // flags, include directories, defines, standard
};

struct CompileResult {
  bool ok = false;
  ModuleDesc module;
  ErrorKind error_kind = ErrorKind::Internal;
  std::string error;
};

// Compiles distinct sources in parallel (duplicates are compiled once and shared).
std::vector<CompileResult> describe_modules(const std::vector<CompileJob>& jobs, int workers);

}  // namespace kernsim::api
