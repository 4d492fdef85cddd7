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

// An endless loop found by the functional executors' detector (a KernelFault like any other). A CTA
// run alone may spin on what other CTAs would write, so the sampler's corner probe tells it apart.
class EndlessLoop : public Error {
 public:
  explicit EndlessLoop(const std::string& message) : Error(ErrorKind::KernelFault, message) {}
};

// A bounded probe run (sim/timing/sampler.cpp) reached its instruction bound. The sampler catches
// it; should it ever escape, it reads as a kernsim bug, not as the kernel's fault.
class ProbeStopped : public Error {
 public:
  explicit ProbeStopped(const std::string& message) : Error(ErrorKind::Internal, message) {}
};


[[noreturn]] void throw_internal(const char* file, int line, const char* expr, const std::string& msg);

}  // namespace kernsim

#define KERNSIM_ASSERT(cond, msg)                                        \
  do {                                                                   \
    if (!(cond)) ::kernsim::throw_internal(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)
