// Running an external tool (clang, llc, ptxas) and capturing its output.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kernsim {

struct ProcessResult {
  int exit_code = -1;   // -1: could not start; 128+N: killed by signal N
  std::string out, err;
};

// Runs argv[0] (looked up on PATH when it has no '/') with the given arguments.
ProcessResult run_process(const std::vector<std::string>& argv);

// The first of `candidates` that exists as an executable (absolute paths or names on PATH).
std::optional<std::filesystem::path> find_program(const std::vector<std::string>& candidates);

}  // namespace kernsim
