"""kernsim's exceptions: one class per kind of C++ ``kernsim::Error`` (base/error.h).

The message is exactly the one the CLI prints after ``kernsim: <label>: ``; ``exit_code`` is the
CLI's exit code for the same error, so scripts can treat both front ends alike.
"""

from __future__ import annotations


class KernsimError(Exception):
    """Base class. ``kind`` is the C++ ErrorKind name, ``label`` the CLI's word for it."""

    kind = "Internal"
    label = "internal error"
    exit_code = 70

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    @property
    def cli_message(self) -> str:
        """The line the ``kernsim`` CLI writes to stderr for the same error."""
        return f"kernsim: {self.label}: {self.message}"


class UsageError(KernsimError):
    kind, label, exit_code = "Usage", "usage error", 2


class DeviceFileError(KernsimError):
    kind, label, exit_code = "DeviceFile", "device file error", 3


class LaunchSpecError(KernsimError):
    """A launch that does not fit the kernel or the device (arguments, grid, block, shared)."""

    kind, label, exit_code = "LaunchSpec", "launch spec error", 3


class KernsimIOError(KernsimError, OSError):
    kind, label, exit_code = "Io", "i/o error", 3


class CompileError(KernsimError):
    kind, label, exit_code = "Compile", "compile error", 4


class ParseError(KernsimError):
    kind, label, exit_code = "Parse", "parse error", 4


class UnsupportedError(KernsimError):
    kind, label, exit_code = "Unsupported", "unsupported", 5


class NotImplementedStageError(KernsimError, NotImplementedError):
    """A whole stage kernsim has not built yet (e.g. AMD kernels before the AMD path lands)."""

    kind, label, exit_code = "NotImplemented", "not implemented", 5


class KernelFaultError(KernsimError):
    """The simulated kernel did something illegal: out-of-bounds or misaligned access, trap,
    instruction limit or wall-time limit exceeded."""

    kind, label, exit_code = "KernelFault", "kernel fault", 6


class InternalError(KernsimError):
    kind, label, exit_code = "Internal", "internal error", 70


_BY_KIND = {
    c.kind: c
    for c in (UsageError, DeviceFileError, LaunchSpecError, KernsimIOError, CompileError, ParseError,
              UnsupportedError, NotImplementedStageError, KernelFaultError, InternalError)
}


def error_from(result: dict) -> KernsimError:
    """The exception for an error record returned by the extension ({error_kind, error})."""
    return _BY_KIND.get(result.get("error_kind"), InternalError)(result.get("error", "unknown error"))


def raise_if_error(result: dict) -> dict:
    if not result.get("ok", False):
        raise error_from(result)
    return result
