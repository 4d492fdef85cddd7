"""The GPU side of a CPU process: kernsim's stand-in for CUDA under PyTorch and Triton.

One ``Runtime`` per process (the evaluator's child process). It
* loads libkernsim_rt.so (runtime/kernsim_rt.cpp): PyTorch's CPU allocator is wrapped so that
  every tensor's storage is registered (a raw pointer a kernel receives maps to its allocation)
  and, while a candidate runs, prefilled with 0xFF bytes (NaN in every float type);
* makes "cuda" mean the CPU for PyTorch's Python API: ``device="cuda"``, ``.cuda()``,
  ``.to("cuda")`` give CPU tensors, ``x.is_cuda`` is True, ``torch.cuda.*`` (synchronize,
  Event, Stream, current_stream, get_device_properties...) answer from the simulated part;
  ``x.device`` stays ``cpu`` (docs/kernelbench.md);
* replaces ``torch.utils.cpp_extension.load_inline``/``load`` (cpp_extension.py builds the
  extension; its kernels launch back into ``launch_cuda`` here) and Triton's
  ``JITFunction.run`` (``launch_triton``): every kernel launch is compiled by kernsim for the
  part and simulated, functionally on the tensors' memory and timed.
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import os
import re
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import core as _kcore
from ..errors import KernelFaultError, KernsimError
from ..types import f32, f64, i32, i64, u32, u64
from . import devinfo

RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"
_TIMER_RE = re.compile(r"%globaltimer|%clock64|%clock\b")

_LAUNCH_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint),
                              ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))


@dataclass
class Launch:
    kernel: str
    grid: tuple
    block: tuple
    time_us: float
    stream: int
    sampled: bool
    source: str            # "cuda" or "triton"
    reads_timer: bool
    wall_s: float
    error_band: list | None = None  # [lo_us, hi_us] from the launch's report (docs/report.md)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
                "time_us": self.time_us, "sampled": self.sampled, "stream": self.stream, "frontend": self.source,
                "error_band": self.error_band}


@dataclass
class Options:
    arch: str = "h200"
    device_file: str | None = None
    functional: str = "auto"          # auto | complete | sampled
    functional_budget: int = 200_000_000  # warp instructions per launch before auto falls back to sampled
    wall_time_limit_s: float = 120.0  # per launch
    max_instructions: int | None = None
    cache: str = "cold"               # the L2 at each launch's start: cold, cold-dirty or warm (kernsim.launch)
    # a launch that repeats an earlier one exactly (kernel, grid, block, arguments and the bytes of
    # every buffer it receives) gets that one's result again instead of a new simulation: the
    # simulation is deterministic, so this is the same answer (benchmark loops of a harness)
    memo_repeats: bool = False


class Runtime:
    _instance: "Runtime | None" = None

    def __init__(self, opts: Options):
        import torch  # noqa: F401  (the allocator wraps the one torch installs)
        self.opts = opts
        self.dev = devinfo.device_numbers(opts.arch, opts.device_file)
        from .cpp_extension import build_runtime
        rt_path = build_runtime()
        self.lib = ctypes.CDLL(str(rt_path), mode=ctypes.RTLD_GLOBAL)
        self._declare()
        if self.lib.ks_install_allocator() != 0:
            raise RuntimeError("kernsim: could not install the registering CPU allocator")
        for k, v in devinfo.cuda_props(self.dev).items():
            self.lib.ks_set_prop(k.encode(), int(v))
        self.lib.ks_set_device_name(self.dev["description"].encode())
        self._cb = _LAUNCH_CB(self._on_cuda_launch)
        self.lib.ks_set_launch_callback(self._cb)
        self.modules: dict[str, Any] = {}      # module id -> kernsim Module (CUDA extensions)
        self.extensions: list = []
        self.launches: list[Launch] = []
        # what wrote which storage during a forward, in order: {"launch": kernel, "writes": [bases]}
        # here, {"op": name, "ins": [...], "outs": [...]} from reftime.record_ops (output_from_torch)
        self.events: list[dict] = []
        self.errors: list[str] = []
        self.unsupported: list[str] = []
        self._triton_cache: dict = {}
        self._memo: dict = {}                  # Options.memo_repeats: launch key -> its result
        self.memo_hits = 0
        self._stream = 0                       # the Python-side current stream (torch.cuda.stream)
        self._lock = threading.Lock()
        Runtime._instance = self

    # ---- ctypes declarations ------------------------------------------------------------------
    def _declare(self):
        L = self.lib
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        sig = {
            "ks_install_allocator": (ctypes.c_int, []), "ks_set_fill": (None, [ctypes.c_int]),
            "ks_get_fill": (ctypes.c_int, []),
            "ks_register": (None, [vp, sz]), "ks_unregister": (None, [vp]),
            "ks_find": (ctypes.c_int, [ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(sz)]),
            "ks_set_launch_callback": (None, [_LAUNCH_CB]), "ks_set_error": (None, [ctypes.c_int, ctypes.c_char_p]),
            "ks_clear_errors": (None, []), "ks_sticky_error": (ctypes.c_int, []),
            "ks_error_message": (ctypes.c_char_p, []),
            "ks_stream_create": (vp, []), "ks_stream_destroy": (ctypes.c_int, [vp]),
            "ks_note_launch": (None, [vp, ctypes.c_double]), "ks_clock_us": (ctypes.c_double, []),
            "ks_event_create": (vp, []), "ks_event_destroy": (ctypes.c_int, [vp]),
            "ks_event_record": (ctypes.c_int, [vp, vp]), "ks_event_elapsed_ms": (ctypes.c_float, [vp, vp]),
            "ks_stream_wait_event": (ctypes.c_int, [vp, vp]), "ks_event_synchronize": (None, [vp]),
            "ks_stream_synchronize": (None, [vp]), "ks_device_synchronize": (None, []),
            "ks_unjoined_launches": (ctypes.c_long, []), "ks_reset_streams": (None, []),
            "ks_set_prop": (None, [ctypes.c_char_p, ctypes.c_longlong]),
            "ks_set_device_name": (None, [ctypes.c_char_p]),
        }
        for name, (res, args) in sig.items():
            f = getattr(L, name)
            f.restype = res
            f.argtypes = args

    # ---- forward bracketing -------------------------------------------------------------------
    def begin(self, fill_nan: bool = True) -> None:
        self.launches = []
        self.events = []
        self.errors = []
        self.lib.ks_clear_errors()
        self.lib.ks_reset_streams()
        self.lib.ks_set_fill(1 if fill_nan else 0)

    def end(self) -> dict:
        self.lib.ks_set_fill(0)
        unjoined = int(self.lib.ks_unjoined_launches())
        self.lib.ks_device_synchronize()
        sticky = int(self.lib.ks_sticky_error())
        return {"launches": list(self.launches), "errors": list(self.errors), "unjoined_side_stream_launches": unjoined,
                "sticky_error": sticky, "events": list(self.events)}

    # ---- memory -------------------------------------------------------------------------------
    def find(self, ptr: int):
        base, size = ctypes.c_uint64(), ctypes.c_size_t()
        if ptr and self.lib.ks_find(ptr, ctypes.byref(base), ctypes.byref(size)):
            return base.value, size.value
        return None

    def register_tensor(self, t) -> None:
        """Registers a tensor whose storage the allocator did not make (from numpy, a view of
        foreign memory) so kernels can receive it."""
        s = t.untyped_storage()
        if s.nbytes() and self.find(s.data_ptr()) is None:
            self.lib.ks_register(s.data_ptr(), s.nbytes())

    @staticmethod
    def _view(base: int, size: int) -> np.ndarray:
        return np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(base))

    # ---- the common launch path ---------------------------------------------------------------
    def simulate(self, kernel, grid, block, values: list, *, shmem: int = 0, stream: int = 0, label: str,
                 source: str) -> Launch:
        """Runs ``kernel`` on the tensors' memory. ``values``: ("ptr", address) or a kernsim
        scalar / None for each user parameter."""
        args: list = []
        first_of: dict[int, int] = {}     # allocation base -> argument index that carries its buffer
        regions: dict[int, tuple] = {}
        for i, v in enumerate(values):
            if isinstance(v, tuple) and v and v[0] == "ptr":
                ptr = v[1]
                hit = self.find(ptr)
                if hit is None:
                    raise KernsimError(f"kernel `{label}` argument {i}: address {ptr:#x} is not in any tensor or "
                                       f"cudaMalloc allocation kernsim knows (memory that PyTorch's CPU allocator did "
                                       f"not make, e.g. torch.from_numpy, is not device memory here)")
                base, size = hit
                if base in first_of:
                    args.append(_kcore.Pointer(first_of[base], ptr - base))
                else:
                    first_of[base] = i
                    regions[i] = (base, size)
                    args.append(_kcore.BufferAt(self._view(base, size), ptr - base))
            else:
                args.append(v)
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(tuple(grid)))
        block = tuple(int(b) for b in block) + (1,) * (3 - len(tuple(block))) if block is not None else None
        memo_key = self._memo_key(kernel, grid, block, shmem, values, regions) if self.opts.memo_repeats else None
        if memo_key is not None and memo_key in self._memo:
            return self._replay(self._memo[memo_key], stream)
        mode = self.opts.functional
        t0 = time.time()
        sampled = mode == "sampled"
        kw = dict(dynamic_shared_bytes=int(shmem), wall_time_limit_s=self.opts.wall_time_limit_s,
                  arch=self.opts.arch, device_file=self.opts.device_file, cache=self.opts.cache)
        try:
            if sampled:
                r = self._sampled(kernel, grid, block, args, kw)
            else:
                budget = self.opts.max_instructions
                if mode == "auto":
                    budget = min(budget or self.opts.functional_budget, self.opts.functional_budget)
                r = _kcore.launch(kernel, grid, block, args, keep_outputs=True, max_instructions=budget, **kw)
        except KernelFaultError as e:
            # only the functional budget (max_instructions) falls back to a sampled run; a wall-time
            # fault ("... wall-time limit of 5 s after N warp instructions") is the verdict
            if mode == "auto" and "instruction limit" in str(e).lower() and "wall-time" not in str(e).lower():
                sampled = True
                r = self._sampled(kernel, grid, block, args, kw)
            else:
                raise
        written = []
        for i, (base, size) in regions.items():
            if i in r.outputs:
                now, after = self._view(base, size), r.outputs[i].view(np.uint8).reshape(-1)
                if not np.array_equal(now, after):
                    written.append(base)
                    now[:] = after
        self.events.append({"launch": kernel.short_name, "writes": written})
        text = _entry_text(kernel.module.text or "", kernel.name)
        la = Launch(kernel=kernel.short_name, grid=grid, block=tuple(block) if block else tuple(r.report.get("launch", {}).get("block", ())),
                    time_us=float(r.time_us), stream=int(stream or 0), sampled=sampled, source=source,
                    reads_timer=bool(_TIMER_RE.search(text)) if kernel.module.isa == "ptx" else False,
                    wall_s=time.time() - t0, error_band=r.report.get("error_band"))
        self.lib.ks_note_launch(stream or None, la.time_us)
        self.launches.append(la)
        if memo_key is not None and not la.reads_timer:
            if len(self._memo) >= 16:
                self._memo.clear()
            self._memo[memo_key] = {"launch": la, "writes": [(b, bytes(self._view(b, regions[i][1])))
                                                            for i, (b, _) in regions.items() if b in written]}
        return la

    def _memo_key(self, kernel, grid, block, shmem, values, regions):
        import hashlib
        h = hashlib.blake2b(digest_size=16)
        for i in sorted(regions):
            base, size = regions[i]
            h.update(f"{i}:{base}:{size};".encode())
            h.update(memoryview(self._view(base, size)))
        return (id(kernel), tuple(grid), tuple(block or ()), int(shmem), tuple(repr(v) for v in values), h.digest())

    def _replay(self, hit: dict, stream) -> Launch:
        for base, data in hit["writes"]:
            self._view(base, len(data))[:] = np.frombuffer(data, np.uint8)
        self.memo_hits += 1
        la = hit["launch"]
        la = Launch(**{**la.__dict__, "stream": int(stream or 0), "wall_s": 0.0})
        self.events.append({"launch": la.kernel, "writes": [b for b, _ in hit["writes"]]})
        self.lib.ks_note_launch(stream or None, la.time_us)
        self.launches.append(la)
        return la

    def _sampled(self, kernel, grid, block, args, kw):
        """Sampled execution: only the CTAs the timing model runs in detail execute; the rest of
        the outputs keep their prefill (NaN), and the verdict says the check was sampled."""
        p = _kcore._PreparedLaunch(kernel, grid, block, args, full=False, keep_outputs=True,
                                   max_instructions=self.opts.max_instructions, **kw)
        p.job["sampled_outputs"] = True  # the buffers as the detailed CTAs left them
        return p.result(_kcore._core.run_jobs([p.job], 1)[0])

    # ---- CUDA extensions ----------------------------------------------------------------------
    def _on_cuda_launch(self, module_id, kernel_name, dims, shmem, stream, args) -> int:
        try:
            mid, name = module_id.decode(), kernel_name.decode()
            m = self.modules.get(mid)
            if m is None:
                raise KernsimError(f"launch of `{name}` from an unknown module {mid}")
            k = m.kernel(name)
            values = []
            for i, p in enumerate(k.params):
                if p.is_aggregate:
                    raise KernsimError(f"kernel `{k.short_name}` parameter {i} is a struct passed by value "
                                       f"({p.bytes} bytes), which kernsim's launch does not take")
                raw = ctypes.string_at(args[i], p.bytes)
                values.append(_decode(raw, p, self))
            self.simulate(k, (dims[0], dims[1], dims[2]), (dims[3], dims[4], dims[5]), values, shmem=int(shmem),
                          stream=int(stream or 0), label=k.short_name, source="cuda")
            return 0
        except BaseException as e:  # never raise through C
            msg = f"{type(e).__name__}: {e}" if not isinstance(e, KernsimError) else f"{type(e).__name__}: {e}"
            self.errors.append(msg)
            self.lib.ks_set_error(719, ("kernsim: " + msg).encode()[:4000])
            return 719

    # ---- Triton -------------------------------------------------------------------------------
    def launch_triton(self, jit, args, kwargs, grid):
        import torch
        from ..triton_frontend import compile_triton
        sig = inspect.signature(jit.fn)
        opts = {k: kwargs.pop(k) for k in list(kwargs) if k not in sig.parameters}
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        num_warps = int(opts.get("num_warps", 4) or 4)
        num_stages = int(opts.get("num_stages", 3) or 3)
        ignored = [k for k in opts if k not in ("num_warps", "num_stages", "num_ctas", "enable_fp_fusion",
                                                 "warmup", "grid", "stream")]
        constexprs, signature, values, divisible = {}, {}, [], []
        for name, p in zip(jit.arg_names, jit.params):
            v = bound.arguments[name]
            if p.is_constexpr:
                constexprs[name] = v.value if hasattr(v, "value") and not isinstance(v, (int, float)) else v
                continue
            if isinstance(v, torch.Tensor):
                t = _TRITON_PTR.get(v.dtype)
                if t is None:
                    raise KernsimError(f"Triton kernel `{jit.__name__}` argument `{name}`: dtype {v.dtype} has no pointer type")
                signature[name] = "*" + t
                if v.numel():
                    self.register_tensor(v)
                values.append(("ptr", v.data_ptr()) if v.numel() else None)
                if v.data_ptr() % 16 == 0:
                    divisible.append(name)
            elif v is None:
                signature[name] = "*i8"
                values.append(None)
            elif isinstance(v, bool):
                signature[name] = "i1"
                values.append(i32(int(v)))
            elif isinstance(v, int):
                if -(2 ** 31) <= v < 2 ** 31:
                    signature[name], val = "i32", i32(v)
                elif 0 <= v < 2 ** 64 and v >= 2 ** 63:
                    signature[name], val = "u64", u64(v)
                else:
                    signature[name], val = "i64", i64(v)
                values.append(val)
                if v % 16 == 0:
                    divisible.append(name)
            elif isinstance(v, float):
                signature[name] = "fp32"
                values.append(f32(v))
            else:
                raise KernsimError(f"Triton kernel `{jit.__name__}` argument `{name}`: {type(v).__name__} is not supported")
        key = (id(jit), tuple(sorted(signature.items())), tuple(sorted((k, repr(v)) for k, v in constexprs.items())),
               tuple(sorted(divisible)), num_warps, num_stages)
        m = self._triton_cache.get(key)
        if m is None:
            m = compile_triton(jit, signature=signature, constexprs=constexprs, arch=self.opts.arch,
                               device_file=self.opts.device_file, num_warps=num_warps, num_stages=num_stages,
                               divisible=divisible)
            self._triton_cache[key] = m
        k = m.kernel()
        if callable(grid):
            meta = dict(bound.arguments)
            meta.update(num_warps=num_warps, num_stages=num_stages)
            grid = grid(meta)
        grid = tuple(int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,)))
        # the shared memory Triton's launcher asks for (its metadata's `shared`): a kernel with
        # tl.sum/tl.max or a dot needs it, and declares none itself
        shmem = int((getattr(m, "extra", None) or {}).get("triton", {}).get("shared", 0) or 0)
        self.simulate(k, grid, None, values, shmem=shmem, stream=self._stream, label=jit.__name__, source="triton")
        if ignored:
            self.errors.append(f"note: Triton launch options ignored by kernsim: {', '.join(sorted(ignored))}")
        return None


_TRITON_PTR = {}


def _entry_text(ptx: str, name: str) -> str:
    """The PTX of kernel ``name``: from its .entry to the next .entry (device functions it calls
    come before the entries in clang's and Triton's PTX and are not included)."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(", ptx)
    if not m:
        return ptx
    nxt = ptx.find(".entry", m.end())
    return ptx[m.start(): nxt if nxt >= 0 else len(ptx)]


def _init_triton_types():
    import torch
    _TRITON_PTR.update({torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
                        torch.int32: "i32", torch.int64: "i64", torch.int16: "i16", torch.int8: "i8",
                        torch.uint8: "u8", torch.bool: "i1"})


def _decode(raw: bytes, p, rt: Runtime):
    t = p.type
    if p.is_pointer and p.bytes == 8:
        v = int.from_bytes(raw, "little")
        if v == 0:
            return None
        if rt.find(v) is not None:
            return ("ptr", v)
        return u64(v) if t.startswith("u") else i64(struct.unpack("<q", raw)[0])
    if t == "f32":
        return f32(struct.unpack("<f", raw)[0])
    if t == "f64":
        return f64(struct.unpack("<d", raw)[0])
    if p.bytes == 4:
        return u32(struct.unpack("<I", raw)[0]) if t == "u32" else i32(struct.unpack("<i", raw)[0])
    if p.bytes == 8:
        return u64(struct.unpack("<Q", raw)[0]) if t == "u64" else i64(struct.unpack("<q", raw)[0])
    raise KernsimError(f"kernel parameter of type .{t} ({p.bytes} bytes) is not supported by kernsim's launch "
                       f"(32- and 64-bit integers and floats, pointers)")


# ---------------------------------------------------------------------------------------------
# PyTorch's "cuda" on a CPU process


def _is_cuda_device(d) -> bool:
    import torch
    if isinstance(d, torch.device):
        return d.type == "cuda"
    if isinstance(d, str):
        return d == "cuda" or d.startswith("cuda:")
    return False


def _map_device(d):
    return "cpu" if _is_cuda_device(d) else d


def install_torch_patches(rt: Runtime) -> None:
    """Makes PyTorch's "cuda" the CPU (see the module docstring)."""
    import torch
    from torch.overrides import TorchFunctionMode

    _init_triton_types()

    class CudaIsCpu(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is torch.Tensor.cuda or getattr(func, "__name__", "") == "cuda":
                return args[0]
            if "device" in kwargs:
                kwargs["device"] = _map_device(kwargs["device"])
            if getattr(func, "__name__", "") in ("to", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"):
                args = tuple(_map_device(a) for a in args)
            return func(*args, **kwargs)

    mode = CudaIsCpu()
    mode.__enter__()  # for the life of the process (the evaluator's child)
    rt._mode = mode
    torch.Tensor.is_cuda = property(lambda self: True)
    # torch.Generator(device="cuda") (GPU MODE and AgentKernelArena inputs): a CPU generator, the
    # kind that makes "cuda" tensors here
    base_generator = torch.Generator

    class Generator(base_generator):
        def __new__(cls, device="cpu"):
            return base_generator.__new__(cls, device=_map_device(device))

        def __init__(self, device="cpu"):
            pass

    torch.Generator = Generator
    torch.nn.Module.cuda = lambda self, device=None: self
    torch.set_default_device(None)

    class Event:
        def __init__(self, enable_timing=False, blocking=False, interprocess=False, **_):
            self.h = rt.lib.ks_event_create()

        def record(self, stream=None):
            rt.lib.ks_event_record(self.h, _stream_handle(stream, rt))

        def elapsed_time(self, other):
            v = rt.lib.ks_event_elapsed_ms(self.h, other.h)
            if v < 0:
                raise RuntimeError("kernsim: elapsed_time of an event not recorded")
            return float(v)

        def synchronize(self):
            rt.lib.ks_event_synchronize(self.h)

        def query(self):
            return True

        def wait(self, stream=None):
            rt.lib.ks_stream_wait_event(_stream_handle(stream, rt), self.h)

    class Stream:
        def __init__(self, device=None, priority=0, **_):
            self.h = rt.lib.ks_stream_create() if not _.get("_default") else None
            self.cuda_stream = self.h or 0

        def synchronize(self):
            rt.lib.ks_stream_synchronize(self.h)

        def wait_stream(self, other):
            e = Event()
            e.record(other)
            rt.lib.ks_stream_wait_event(self.h, e.h)

        def wait_event(self, event):
            rt.lib.ks_stream_wait_event(self.h, event.h)

        def record_event(self, event=None):
            event = event or Event()
            event.record(self)
            return event

        def query(self):
            return True

        def __eq__(self, o):
            return isinstance(o, Stream) and o.h == self.h

        def __hash__(self):
            return hash(self.h)

    default = Stream(_default=True)

    @contextlib.contextmanager
    def stream_ctx(s):
        old = rt._stream
        rt._stream = (s.h or 0) if s is not None else old
        try:
            yield s
        finally:
            rt._stream = old

    def current_stream(device=None):
        if not rt._stream:
            return default
        s = Stream.__new__(Stream)
        s.h = rt._stream
        s.cuda_stream = rt._stream
        return s

    class Props:
        pass

    props = Props()
    dv = rt.dev
    props.name = dv["description"]
    props.multi_processor_count = dv["sm_count"]
    props.total_memory = dv["dram_bytes"]
    props.major, props.minor = dv["major"], dv["minor"]
    props.max_threads_per_multi_processor = dv["max_threads_per_sm"]
    props.L2_cache_size = dv["l2_bytes"]
    props.warp_size = dv["warp_size"]
    props.shared_memory_per_block_optin = dv["shared_per_block_optin"]

    c = torch.cuda
    c.is_available = lambda: True
    c.synchronize = lambda device=None: rt.lib.ks_device_synchronize()
    c.current_device = lambda: 0
    c.device_count = lambda: 1
    c.set_device = lambda d: None
    c.get_device_name = lambda device=None: dv["description"]
    c.get_device_capability = lambda device=None: (dv["major"], dv["minor"])
    c.get_device_properties = lambda device=None: props
    c.Event = Event
    c.Stream = Stream
    c.stream = stream_ctx
    c.current_stream = current_stream
    c.default_stream = lambda device=None: default
    c.set_stream = lambda s: setattr(rt, "_stream", s.h or 0)
    c.empty_cache = lambda: None
    # torch.manual_seed calls these; the CPU generator it seeds is the one that makes "cuda" tensors here
    c.manual_seed = lambda s: None
    c.manual_seed_all = lambda s: None
    c.is_initialized = lambda: True
    c._lazy_init = lambda: None
    c.device = _DeviceCtx
    c.max_memory_allocated = lambda device=None: 0
    c.memory_allocated = lambda device=None: 0
    c.reset_peak_memory_stats = lambda device=None: None

    import torch.utils.cpp_extension as ce
    from . import cpp_extension as kce
    ce.load_inline = kce.load_inline
    ce.load = kce.load

    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        return

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            return None
        return rt.launch_triton(self, args, dict(kwargs), grid)

    JITFunction.run = run
    try:
        from triton.runtime.autotuner import Autotuner

        def autotune_run(self, *args, **kwargs):
            # the first config: kernsim does not benchmark the configurations (docs/kernelbench.md)
            cfg = self.configs[0]
            kw = dict(kwargs)
            kw.update(cfg.all_kwargs() if hasattr(cfg, "all_kwargs") else {**cfg.kwargs, "num_warps": cfg.num_warps,
                                                                               "num_stages": cfg.num_stages})
            if getattr(self, "pre_hook", None) or getattr(cfg, "pre_hook", None):
                rt.errors.append("note: autotune pre_hook ignored")
            rt.errors.append(f"note: @triton.autotune: the first of {len(self.configs)} configs is used")
            return self.fn.run(*args, **kw)

        Autotuner.run = autotune_run
    except ImportError:
        pass


class _DeviceCtx:
    def __init__(self, d=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _stream_handle(stream, rt) -> int | None:
    if stream is None:
        return rt._stream or None
    return getattr(stream, "h", None) or None
