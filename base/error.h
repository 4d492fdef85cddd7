// kernsim::Error — the one exception type the library throws for anything a user can cause.
//
// Every error carries a kind (which decides the CLI exit code and the Python exception class)
// and a message that names the problem: file, field, line, thread, address. Code never throws
// bare std::runtime_error for user-caused problems; internal invariant failures use
// KERNSIM_ASSERT, which reports file and line and is a bug in kernsim, not in the input.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace kernsim {

enum class ErrorKind {
  Usage,           // bad command line
  DeviceFile,      // device description file: syntax, missing/unknown key, bad value
  LaunchSpec,      // launch spec: syntax, field, argument mismatch, limits
  Io,              // file missing, unreadable, short
  Compile,         // the frontend (clang, ptxas) rejected the source
  Parse,           // the ISA text/binary could not be parsed
  Unsupported,     // a valid construct kernsim does not implement; names it
  KernelFault,     // the simulated kernel did something illegal (OOB, misaligned, trap, limit)
  NotImplemented,  // a whole stage that has not been built yet; says which
  Internal,        // a kernsim bug
};

std::string_view to_string(ErrorKind kind);

// Exit code the CLI uses for each kind (documented in README.md).
int exit_code(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] void throw_internal(const char* file, int line, const char* expr, const std::string& msg);

}  // namespace kernsim

#define KERNSIM_ASSERT(cond, msg)                                        \
  do {                                                                   \
    if (!(cond)) ::kernsim::throw_internal(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)
