// kernsim::frontends CUDA-on-AMD port: what the AMD frontend (hip.cpp) needs to compile a CUDA
// source (.cu) for gfx942/gfx950 as HIP, and the static scan that names the places where the
// source assumes a 32-lane warp (the wave is 64 lanes). docs/cuda_on_amd.md.
//
// The scan reads the source as the preprocessor leaves it (`clang -E -dD` output, so that macros
// such as WARP_SIZE or FULL_MASK are expanded, and #if'd-out code is gone), and only the lines of
// files that are not system headers and not kernsim's own headers: the user's code. It is a
// pattern scan of lines, not a compiler pass: what it can and cannot see is listed in
// docs/cuda_on_amd.md. Ballots narrowed to 32 bits are found by the compiler itself
// (-Wshorten-64-to-32 on the compile), through add_ballot_width_warnings().
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontends/module.h"

namespace kernsim::frontends {

struct PortScan {
  std::vector<Warning> warnings;
  std::vector<std::pair<std::string, int>> asm_lines;             // inline assembly statements (PTX)
  std::map<std::pair<std::string, int>, std::string> user_lines;  // (file, line) -> text, the user's code
};

// Scans preprocessed text (`clang -E -dD`); lines of files under `kernsim_headers` and of system
// headers are skipped.
PortScan scan_cuda_port(const std::string& preprocessed, const std::filesystem::path& kernsim_headers);

// The warp32-ballot-width warnings: clang's -Wshorten-64-to-32 diagnostics (`clang_stderr`) on a
// user line that calls __ballot*, __activemask or __lanemask*.
void add_ballot_width_warnings(PortScan& scan, const std::string& clang_stderr);

// The warp32-mask warnings the compiler finds by type: the port header's *_sync overloads for masks
// narrower than 64 bits carry a diagnose_if ("kernsim-warp32-mask"), so a 32-bit mask from a
// parameter, a struct member, a pointer or a run-time expression is warned on its call's line (a
// user line of `clang_stderr`'s diagnostics; one per line with the scan's own).
void add_mask_width_warnings(PortScan& scan, const std::string& clang_stderr);

// The clang arguments of the port beyond the HIP frontend's: the compatibility headers
// (`hip_include`/cuda_compat, searched before the system's, so that <cuda_runtime.h> is never
// the toolkit's) and the force-included port header.
std::vector<std::string> cuda_port_flags(const std::filesystem::path& hip_include);

// What each warp32-* warning means (the text of Warning::message); empty for an unknown name.
std::string port_warning_message(const std::string& name);

}  // namespace kernsim::frontends
