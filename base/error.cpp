// Error kinds, their names and exit codes.
#include "base/error.h"

namespace kernsim {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return "usage error";
    case ErrorKind::DeviceFile: return "device file error";
    case ErrorKind::LaunchSpec: return "launch spec error";
    case ErrorKind::Io: return "i/o error";
    case ErrorKind::Compile: return "compile error";
    case ErrorKind::Parse: return "parse error";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::KernelFault: return "kernel fault";
    case ErrorKind::NotImplemented: return "not implemented";
    case ErrorKind::Internal: return "internal error";
  }
  return "error";
}

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return 2;
    case ErrorKind::DeviceFile: return 3;
    case ErrorKind::LaunchSpec: return 3;
    case ErrorKind::Io: return 3;
    case ErrorKind::Compile: return 4;
    case ErrorKind::Parse: return 4;
    case ErrorKind::Unsupported: return 5;
    case ErrorKind::NotImplemented: return 5;
    case ErrorKind::KernelFault: return 6;
    case ErrorKind::Internal: return 70;
  }
  return 1;
}

void throw_internal(const char* file, int line, const char* expr, const std::string& msg) {
  throw Error(ErrorKind::Internal, std::string("kernsim bug: ") + file + ":" + std::to_string(line) +
                                       ": assertion `" + expr + "` failed: " + msg);
}

}  // namespace kernsim
