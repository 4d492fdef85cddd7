"""Scalar argument types and the mapping from numpy dtypes to kernsim buffer types.

Scalars: ``kernsim.i32(3)``, ``kernsim.u64(n)``, ``kernsim.f32(2.0)`` (and i64, u32, f64) fix a
kernel argument's type exactly; numpy scalars (``np.int32(3)``) do the same. A plain Python
``int`` or ``float`` takes the type of the kernel parameter it is passed to, as the PTX declares
it (``.u32`` -> u32, ``.s64`` -> i64, ``.f32`` -> f32, ...), and is range-checked against it: a
kernel's signature, not a guess, decides the width.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

_RANGES = {
    "i32": (-(2**31), 2**31 - 1),
    "u32": (0, 2**32 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "u64": (0, 2**64 - 1),
}
SCALAR_TYPES = ("i32", "u32", "i64", "u64", "f32", "f64")


@dataclass(frozen=True)
class Scalar:
    """A kernel argument of an explicit scalar type."""

    type: str
    value: float | int

    def __post_init__(self):
        if self.type not in SCALAR_TYPES:
            raise ValueError(f"unknown scalar type {self.type!r} (one of {', '.join(SCALAR_TYPES)})")
        if self.type in _RANGES:
            if isinstance(self.value, bool) or not isinstance(self.value, (int, np.integer)):
                if not (isinstance(self.value, float) and self.value.is_integer()):
                    raise TypeError(f"{self.type} needs an integer, got {self.value!r}")
            lo, hi = _RANGES[self.type]
            if not lo <= int(self.value) <= hi:
                raise OverflowError(f"{int(self.value)} is out of range for {self.type}")
            object.__setattr__(self, "value", int(self.value))
        else:
            v = float(self.value)
            if self.type == "f32" and math.isfinite(v) and abs(v) > 3.4028234663852886e38:
                raise OverflowError(f"{v} is out of range for f32")
            object.__setattr__(self, "value", v)

    @property
    def nbytes(self) -> int:
        return 4 if self.type in ("i32", "u32", "f32") else 8

    def to_json(self) -> dict:
        v = self.value
        if isinstance(v, float) and not math.isfinite(v):
            # JSON has no inf/nan: pass the bit pattern through an unsigned integer of the same width
            raise ValueError("non-finite float scalars are not supported as kernel arguments")
        return {"type": self.type, "value": v}


def i32(v) -> Scalar:
    return Scalar("i32", v)


def u32(v) -> Scalar:
    return Scalar("u32", v)


def i64(v) -> Scalar:
    return Scalar("i64", v)


def u64(v) -> Scalar:
    return Scalar("u64", v)


def f32(v) -> Scalar:
    return Scalar("f32", v)


def f64(v) -> Scalar:
    return Scalar("f64", v)


_NP_SCALAR = {
    np.dtype(np.int32): "i32", np.dtype(np.uint32): "u32", np.dtype(np.int64): "i64",
    np.dtype(np.uint64): "u64", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}


def scalar_for_param(value, param: dict, where: str) -> Scalar:
    """The Scalar a Python/numpy value becomes when passed to PTX parameter ``param``."""
    if isinstance(value, Scalar):
        s = value
    elif isinstance(value, np.generic):
        t = _NP_SCALAR.get(value.dtype)
        if t is None:
            raise TypeError(f"{where}: numpy scalar of dtype {value.dtype} is not a kernel argument type "
                            f"(use int32, uint32, int64, uint64, float32 or float64)")
        s = Scalar(t, value.item())
    elif isinstance(value, (bool, int)):
        s = Scalar(_int_type_for(param, int(value), where), int(value))
    elif isinstance(value, float):
        ptype = param.get("type", "")
        if ptype == "f64" or (ptype.startswith("b") and param["bytes"] == 8):
            s = Scalar("f64", value)
        elif ptype == "f32" or (ptype.startswith("b") and param["bytes"] == 4):
            s = Scalar("f32", value)
        else:
            raise TypeError(f"{where}: a float was given for parameter `{param['name']}` of type .{ptype}")
    else:
        raise TypeError(f"{where}: {type(value).__name__} is not a kernel argument "
                        f"(numpy array, int, float, numpy scalar or kernsim.i32(...)-style scalar)")
    if s.nbytes != param["bytes"]:
        raise TypeError(f"{where}: {s.type} has {s.nbytes} bytes but parameter `{param['name']}` "
                        f"is .{param['type']} ({param['bytes']} bytes)")
    return s


def _int_type_for(param: dict, v: int, where: str) -> str:
    ptype, nbytes = param.get("type", ""), param.get("bytes", 0)
    if ptype in ("f32", "f64"):
        return "f32" if ptype == "f32" else "f64"
    if nbytes == 4:
        if ptype.startswith("u") or (ptype.startswith("b") and v > 2**31 - 1):
            return "u32"
        return "i32"
    if nbytes == 8:
        if ptype.startswith("u") or (ptype.startswith("b") and v > 2**63 - 1):
            return "u64"
        return "i64"
    raise TypeError(f"{where}: parameter `{param['name']}` is .{ptype} ({nbytes} bytes); kernsim passes "
                    f"scalars of 4 or 8 bytes")


# numpy dtype -> (kernsim buffer type). The bytes are what the kernel sees; the type only names
# the buffer in reports and messages. Dtypes not listed travel as bytes of the same size.
_BUFFER_TYPES = {
    np.dtype(np.float32): "f32", np.dtype(np.float16): "f16", np.dtype(np.float64): "f64",
    np.dtype(np.int32): "i32", np.dtype(np.uint32): "u32", np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8",
}
_BY_ITEMSIZE = {1: "u8", 2: "f16", 4: "u32", 8: "i64"}


def buffer_type(dtype: np.dtype) -> tuple[str, int]:
    """(kernsim element type, element count factor) for an array of ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype in _BUFFER_TYPES:
        return _BUFFER_TYPES[dtype], 1
    if dtype.name == "bfloat16":
        return "bf16", 1
    if dtype.itemsize in _BY_ITEMSIZE:
        return _BY_ITEMSIZE[dtype.itemsize], 1
    # e.g. complex64 or structured dtypes: whole bytes
    return "u8", dtype.itemsize


def is_float_dtype(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype.name == "bfloat16"


def pack_scalar(s: Scalar) -> bytes:
    fmt = {"i32": "<i", "u32": "<I", "i64": "<q", "u64": "<Q", "f32": "<f", "f64": "<d"}[s.type]
    return struct.pack(fmt, s.value)
