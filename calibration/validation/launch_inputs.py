"""Buffer contents of a kernsim launch spec, bit-exact with kernsim's own initialisation.

This is a numpy port of `api::make_initial_bytes` (api/launch_spec.cpp) with the counter-based
generator of base/random.h (splitmix64) and the f16/bf16 conversions of base/float16.h, so that a
launch measured on a real GPU sees the very bytes that kernsim simulates:

    counter_random(seed, stream, i) = splitmix64(splitmix64(seed ^ splitmix64(stream + C)) + i)
    uniform, float types:  float((r >> 40) / 8388608.0 - 1.0)            -> [-1, 1), 24 bits
    uniform, u8/u32:       r & 0xff            uniform, i32/i64: (r & 0xff) - 128
    iota:                  i converted to the element type (through double, then float for f16/bf16)
    randint:LO:HI:         LO + r % (HI - LO + 1), converted likewise
    file:PATH:             raw little-endian bytes, relative to the spec file
The stream is the argument's index in `args` (scalars count). Everything is vectorised; pass
`xp=cupy` to build the buffer on the GPU with the same integer arithmetic.

Only numpy and the standard library are needed (cupy optionally).
"""
from __future__ import annotations

import json
import os

import numpy as np

MASK64 = (1 << 64) - 1

# element type -> (numpy storage dtype, bytes)
ELEM = {
    "f32": (np.float32, 4), "f16": (np.float16, 2), "bf16": (np.uint16, 2), "f64": (np.float64, 8),
    "i32": (np.int32, 4), "u32": (np.uint32, 4), "i64": (np.int64, 8), "u8": (np.uint8, 1),
}
SCALAR = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f32": np.float32, "f64": np.float64}
FLOAT_TYPES = ("f32", "f64", "f16", "bf16")


def splitmix64_int(x: int) -> int:
    """splitmix64 on one Python integer (the scalar part of counter_random)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def splitmix64_array(x, xp=np):
    """splitmix64 on a uint64 array; uint64 arithmetic wraps like C++'s."""
    x = x + xp.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> xp.uint64(30))) * xp.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> xp.uint64(27))) * xp.uint64(0x94D049BB133111EB)
    return x ^ (x >> xp.uint64(31))


def counter_random(seed: int, stream: int, start: int, count: int, xp=np):
    """counter_random(seed, stream, i) for i in [start, start + count), as uint64."""
    key = splitmix64_int((seed ^ splitmix64_int((stream + 0x632BE59BD9B4E019) & MASK64)) & MASK64)
    idx = xp.arange(start, start + count, dtype=xp.uint64)
    return splitmix64_array(idx + xp.uint64(key), xp)


def float_to_bf16_bits(f32, xp=np):
    """base/float16.h float_to_bf16: round to nearest even, NaN stays quiet NaN."""
    x = f32.astype(xp.float32).view(xp.uint32)
    lsb = (x >> xp.uint32(16)) & xp.uint32(1)
    rounded = ((x + xp.uint32(0x7FFF) + lsb) >> xp.uint32(16)).astype(xp.uint16)
    nan = (x & xp.uint32(0x7FFFFFFF)) > xp.uint32(0x7F800000)
    quiet = ((x >> xp.uint32(16)) | xp.uint32(0x40)).astype(xp.uint16)
    return xp.where(nan, quiet, rounded)


def bf16_bits_to_f32(bits, xp=np):
    return (bits.astype(xp.uint32) << xp.uint32(16)).view(xp.float32)


def _store_float(values_f64, etype, xp):
    """The `store` lambda for a double value: f32 and f16/bf16 go through float first."""
    if etype == "f64":
        return values_f64.astype(xp.float64)
    f = values_f64.astype(xp.float32)
    if etype == "f32":
        return f
    if etype == "f16":
        # IEEE round-to-nearest-even, overflow to inf, like float_to_half
        if xp is np:
            with np.errstate(over="ignore"):
                return f.astype(np.float16)
        return f.astype(xp.float16)
    return float_to_bf16_bits(f, xp)


def _store_int(values_i64, etype, xp):
    """Integral store: static_cast of an int64 to the element type (wraps)."""
    if etype in FLOAT_TYPES:
        return _store_float(values_i64.astype(xp.float64), etype, xp)
    return values_i64.astype(ELEM[etype][0])


def parse_init(text: str | None):
    """('zeros'|'uniform'|'iota'|'randint'|'file', lo, hi, path)"""
    if text is None or text == "zeros":
        return ("zeros", 0, 0, None)
    if text in ("uniform", "iota"):
        return (text, 0, 0, None)
    if text.startswith("randint:"):
        lo, hi = text[len("randint:"):].split(":")
        return ("randint", int(lo), int(hi), None)
    if text.startswith("file:"):
        return ("file", 0, 0, text[len("file:"):])
    raise ValueError(f"unknown init {text!r}")


def buffer_range(arg: dict, arg_index: int, seed: int, spec_dir: str, start: int, count: int, xp=np):
    """Elements [start, start + count) of buffer argument `arg`'s initial contents, typed (storage
    dtype of ELEM; bf16 as uint16 bits). Element i depends only on (seed, arg_index, i)."""
    etype = arg["buffer"]
    dtype, size = ELEM[etype]
    kind, lo, hi, path = parse_init(arg.get("init"))
    if kind == "zeros":
        return xp.zeros(count, dtype=dtype)
    if kind == "file":
        full = path if os.path.isabs(path) else os.path.join(spec_dir, path)
        n = int(arg["count"])
        nbytes = os.path.getsize(full)
        if nbytes != n * size:
            raise ValueError(f"args[{arg_index}].init: {full} has {nbytes} bytes, buffer needs {n * size}")
        host = np.fromfile(full, dtype=dtype, count=count, offset=start * size)
        return host if xp is np else xp.asarray(host)
    if kind == "iota":
        return _store_int(xp.arange(start, start + count, dtype=xp.int64), etype, xp)
    r = counter_random(seed, arg_index, start, count, xp)
    if kind == "uniform":
        if etype in FLOAT_TYPES:
            u = ((r >> xp.uint64(40)).astype(xp.float64) / 8388608.0 - 1.0).astype(xp.float32)
            return _store_float(u.astype(xp.float64), etype, xp)
        low = (r & xp.uint64(0xFF)).astype(xp.int64)
        if etype not in ("u8", "u32"):
            low = low - 128
        return _store_int(low, etype, xp)
    span = hi - lo + 1  # randint
    off = r if span >= (1 << 64) else r % xp.uint64(span)
    # lo + off: int64 arithmetic wraps like the C++ (only the full int64 range can wrap)
    vals = off.astype(xp.int64) + xp.int64(lo)
    return _store_int(vals, etype, xp)


def make_buffer(arg: dict, arg_index: int, seed: int, spec_dir: str, xp=np, chunk: int = 1 << 23):
    """The initial contents of buffer argument `arg` (a dict from the spec) as a typed array
    (storage dtype of ELEM; bf16 as uint16 bits), built in chunks of `chunk` elements."""
    n = int(arg["count"])
    dtype, _ = ELEM[arg["buffer"]]
    kind = parse_init(arg.get("init"))[0]
    if kind in ("zeros", "file"):
        return buffer_range(arg, arg_index, seed, spec_dir, 0, n, xp)
    out = xp.empty(n, dtype=dtype)
    for start in range(0, n, chunk):
        cnt = min(chunk, n - start)
        out[start:start + cnt] = buffer_range(arg, arg_index, seed, spec_dir, start, cnt, xp)
    return out


def scalar_value(arg: dict):
    """A scalar argument as a typed numpy scalar (what a kernel launch passes by value)."""
    t = arg["type"]
    v = arg["value"]
    if t in ("f32", "f64"):
        return SCALAR[t](float(v))
    return SCALAR[t](int(v))


def load_spec(path: str) -> dict:
    with open(path) as f:
        spec = json.load(f)
    spec["_dir"] = os.path.dirname(os.path.abspath(path))
    spec["_path"] = os.path.abspath(path)
    return spec


def buffer_bytes(arg: dict) -> int:
    return int(arg["count"]) * ELEM[arg["buffer"]][1]


def dims3(v):
    if isinstance(v, int):
        v = [v]
    v = list(v) + [1] * (3 - len(v))
    return tuple(int(x) for x in v)


# ---------------------------------------------------------------------- kernel signature checks

_PARAM_CLASSES = {
    "buffer": {"u64", "b64", "s64"},
    "i32": {"u32", "s32", "b32"}, "u32": {"u32", "s32", "b32"},
    "i64": {"u64", "s64", "b64"}, "u64": {"u64", "s64", "b64"},
    "f32": {"f32", "b32"}, "f64": {"f64", "b64"},
}


def ptx_entry_params(ptx_text: str) -> dict:
    """{entry name: [param type without the dot, ...]} from PTX text (nvcc or clang)."""
    import re
    entries = {}
    for m in re.finditer(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", ptx_text):
        types = re.findall(r"\.param\s+\.(\w+)", m.group(2))
        entries[m.group(1)] = types
    for m in re.finditer(r"\.entry\s+([A-Za-z_$][\w$]*)\s*$", ptx_text, re.M):  # kernels without parameters
        entries.setdefault(m.group(1), [])
    return entries


def check_signature(spec: dict, entries: dict) -> list:
    """Problems (empty when fine) between the spec's kernel/args and the PTX entry's parameters."""
    name = spec["kernel"]
    if name not in entries:
        near = [e for e in entries if name in e]
        return [f"kernel `{name}` is not an entry of the PTX" + (f" (did you mean {near[0]}?)" if near else "")]
    params = entries[name]
    args = spec["args"]
    if len(params) != len(args):
        return [f"`{name}` takes {len(params)} parameters, the spec gives {len(args)}"]
    problems = []
    for k, (p, a) in enumerate(zip(params, args)):
        cls = "buffer" if "buffer" in a else a["type"]
        if p not in _PARAM_CLASSES[cls]:
            problems.append(f"args[{k}] is {cls} but parameter {k} is .{p}")
    return problems
