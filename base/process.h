// Running an external tool (clang, llc, ptxas, llvm-mc) and capturing its output, under bounds:
// the child dies with its parent (PR_SET_PDEATHSIG, and the parent's wall-time limit kills its
// whole process group), and has a wall-time, CPU-time and address-space limit, so a tool that
// hangs or runs away on an untrusted input cannot hold or leak a process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kernsim {

struct ProcessResult {
  int exit_code = -1;      // -1: could not start; 128+N: killed by signal N
  bool timed_out = false;  // killed by the wall-time limit (exit_code 128+SIGKILL)
  std::string out, err;    // err ends with a line naming the limit when one ended the child
};

// The bounds of a child. Defaults: KERNSIM_CHILD_TIME_LIMIT_S (300 s) of wall time and as much
// CPU time, KERNSIM_CHILD_MEMORY_MB (16384 MiB) of address space; 0 turns a bound off.
struct ProcessLimits {
  double wall_time_s = 300;
  std::uint64_t memory_bytes = std::uint64_t{16384} << 20;
  static ProcessLimits defaults();  // the environment's, else the values above
};

// Runs argv[0] (looked up on PATH when it has no '/') with the given arguments.
ProcessResult run_process(const std::vector<std::string>& argv);
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessLimits& limits);

// The first of `candidates` that exists as an executable (absolute paths or names on PATH).
std::optional<std::filesystem::path> find_program(const std::vector<std::string>& candidates);

}  // namespace kernsim
