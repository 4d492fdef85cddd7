"""compile(), launch() and run_spec(): the Python face of kernsim::api.

A launch passes numpy arrays by value: each array's bytes become one simulated device buffer,
bounds-checked like every buffer kernsim allocates; the arrays you pass are never modified, and the
buffers' contents after the kernel come back as new arrays in ``LaunchResult.outputs``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from . import _core
from .errors import KernsimError, LaunchSpecError, error_from, raise_if_error
from .types import Scalar, buffer_type, scalar_for_param

DEFAULT_ARCH = "h200"

_EXT_BY_LANG = {"cuda": ".cu", "ptx": ".ptx", "llvm": ".ll", "hip": ".hip", "amdgcn": ".s", "hsaco": ".hsaco"}
_LANG_BY_EXT = {".cu": "cuda", ".ptx": "ptx", ".ll": "llvm", ".bc": "llvm", ".hip": "hip", ".s": "amdgcn", ".hsaco": "hsaco",
                ".co": "hsaco", ".py": "triton"}
_SOURCE_EXTS = (".cu", ".ptx", ".ll", ".bc", ".hip", ".s", ".hsaco", ".co")


def device_info(arch: str = DEFAULT_ARCH, device_file: str | os.PathLike | None = None) -> dict:
    """The part's name, vendor, ISA target, unit count, warp size, clock and launch limits."""
    return raise_if_error(_core.device_info(arch or "", os.fspath(device_file) if device_file else ""))


def devices() -> list[str]:
    """The built-in device names (`kernsim devices`)."""
    return list(_core.builtin_devices())


# ---------------------------------------------------------------------------------------------
# compile


@dataclass(frozen=True)
class Param:
    name: str
    type: str          # PTX type without the dot: u32, s32, u64, f32, b64 ...
    bytes: int
    is_pointer: bool   # may take a buffer (a numpy array) or an integer address: a PTX .ptr parameter, a
    # 64-bit one the C++ signature makes a pointer (or an extern "C" nvcc kernel's, which says
    # nothing), an AMD global_buffer; a 64-bit integer that is known not to be one takes an int
    is_aggregate: bool = False


@dataclass
class Kernel:
    """One kernel of a compiled module; pass it to launch()."""

    name: str                 # as in the ISA (mangled for C++ kernels)
    demangled: str            # full signature, or the name itself
    params: list[Param]
    resources: dict           # registers, static_shared_bytes, local_bytes, spills, source
    reqntid: tuple            # required block size from the ISA, (0,0,0) when not declared
    module: "Module" = field(repr=False)

    @property
    def short_name(self) -> str:
        """The demangled name without the parameter list ("saxpy", "scale<float>")."""
        d = self.demangled
        depth, start = 0, 0
        for i, c in enumerate(d):
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            elif c == " " and depth == 0:
                start = i + 1  # after a return type ("void scale<float>(...)")
            elif c == "(" and depth == 0:
                return d[start:i]
        return d


@dataclass
class Module:
    """A compiled source: its ISA text and its kernels (Module["name"] finds one)."""

    source: str          # the file kernsim compiled (a content-addressed copy for in-memory text)
    arch: str            # the device name it was compiled for
    device_file: str | None
    target: str          # sm_90a, sm_100a, gfx942, gfx950
    isa: str             # "ptx" or "amdgcn"
    producer: str
    text: str            # the ISA text
    from_cache: bool
    kernels: list[Kernel]
    extra: dict = field(default_factory=dict)  # frontend extras (Triton metadata)
    compile_settings: dict | None = None  # the launch spec's `compile` object it was compiled with
    port: str = ""       # "cuda-as-hip": a CUDA source compiled for an AMD part (docs/cuda_on_amd.md)
    # the port's warp32-* warnings: {name, file, line, code, message} per place the source assumes
    # 32-lane warps (docs/cuda_on_amd.md)
    warnings: list = field(default_factory=list)

    def kernel(self, name: str | None = None) -> Kernel:
        """By mangled name, full demangled signature, unique short name ("scale<float>") or unique
        name without template arguments ("scale"); None: the only kernel."""
        if name is None:
            if len(self.kernels) == 1:
                return self.kernels[0]
            raise LaunchSpecError(f"{self.source}: the module has {len(self.kernels)} kernels "
                                  f"({', '.join(k.demangled for k in self.kernels)}); name one")
        for k in self.kernels:
            if name in (k.name, k.demangled):
                return k
        hits = [k for k in self.kernels if k.short_name == name]
        if not hits:  # "scale" for the instances scale<float>, scale<double>
            hits = [k for k in self.kernels if k.short_name.split("<", 1)[0] == name]
        if len(hits) == 1:
            return hits[0]
        listed = ", ".join(k.demangled for k in self.kernels) or "none"
        if len(hits) > 1:
            raise LaunchSpecError(f"{self.source}: `{name}` is ambiguous; give the full signature (kernels: {listed})")
        raise LaunchSpecError(f"{self.source}: no kernel `{name}` (kernels: {listed})")

    __getitem__ = kernel

    @property
    def names(self) -> list[str]:
        return [k.short_name for k in self.kernels]


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and len(s) < 4096 and (os.path.exists(s) or s.lower().endswith(_SOURCE_EXTS))


def _guess_lang(text: str) -> str:
    if ".entry" in text and (".version" in text or ".target" in text):
        return "ptx"
    if "define " in text and ("target triple" in text or "@" in text) and "__global__" not in text:
        return "llvm"
    if "@triton.jit" in text or "import triton" in text:
        return "triton"
    if (".amdgcn_target" in text or ".amdhsa_kernel" in text or "s_endpgm" in text) and "__global__" not in text:
        return "amdgcn"
    if any(w in text for w in ("hip/hip_runtime.h", "hipLaunchKernelGGL", "HIP_DYNAMIC_SHARED", "hipMalloc", "__HIP_PLATFORM")):
        return "hip"
    return "cuda"


def infer_lang(source) -> str:
    """The language of a kernel source as kernsim.compile and kernsim.score read it when ``lang``
    is not given: cuda, hip, triton, ptx, llvm, amdgcn or hsaco. A path goes by its extension
    (.cu .hip .py .ptx .ll/.bc .s .hsaco/.co), bytes are a code object, a Python function is a
    Triton kernel, and text by what it holds: PTX directives, LLVM IR, ``@triton.jit``, AMDGCN
    assembly (``.amdhsa_kernel``), HIP's header or API (``hip/hip_runtime.h``, ``hipMalloc``,
    ``hipLaunchKernelGGL``), else CUDA. A CUDA source runs on AMD parts too (docs/cuda_on_amd.md);
    ``lang="hip"`` says that text is HIP, which runs on AMD parts only."""
    if isinstance(source, bytes):
        return "hsaco"
    if callable(source) or hasattr(source, "fn"):
        return "triton"
    if isinstance(source, os.PathLike) or (isinstance(source, str) and (_looks_like_path(source) or (
            "\n" not in source and len(source) < 4096 and Path(source).suffix.lower() in _LANG_BY_EXT))):
        ext = Path(source).suffix.lower()
        if ext in _LANG_BY_EXT:
            return _LANG_BY_EXT[ext]
        raise ValueError(f"{source}: unknown source extension {ext!r} (one of {', '.join(sorted(_LANG_BY_EXT))})")
    if isinstance(source, str):
        return _guess_lang(source)
    raise TypeError(f"a kernel source is a path, text, bytes or a Triton function, got {type(source).__name__}")


def resolve_source(source: str | bytes | os.PathLike, lang: str | None = None) -> str:
    """The path kernsim compiles: the file itself, or a content-addressed copy of the text."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and lang is None and _looks_like_path(source)):
        p = Path(source)
        if not p.exists():
            raise error_from({"error_kind": "Io", "error": f"cannot read kernel source: {p}: No such file or directory"})
        return str(p.resolve())
    if isinstance(source, bytes):
        lang = lang or "hsaco"
        data = source
    else:
        lang = lang or _guess_lang(source)
        data = source.encode()
    if lang == "triton":
        raise ValueError("a Triton kernel (@triton.jit) is compiled by kernsim.compile_triton(fn_or_source, kernel, "
                         "args=[...]), which specializes it for its arguments; kernsim.score takes it with lang=\"triton\"")
    ext = _EXT_BY_LANG.get(lang)
    if ext is None:
        raise ValueError(f"unknown lang {lang!r} (one of {', '.join(_EXT_BY_LANG)}; Triton: kernsim.compile_triton)")
    r = _core.source_from_text(data, ext)
    if isinstance(r, dict):
        raise error_from(r)
    return r


def _target_of(arch: str, device_file) -> str:
    return device_info(arch, device_file)["isa_target"]


def _module_from_desc(desc: dict, arch: str, device_file) -> Module:
    m = Module(source=desc["source"], arch=arch, device_file=device_file, target=desc["target"], isa=desc["isa"],
               producer=desc["producer"], text=desc["text"], from_cache=desc["from_cache"], kernels=[],
               port=desc.get("port", ""), warnings=list(desc.get("warnings", [])))
    for k in desc["kernels"]:
        m.kernels.append(Kernel(name=k["name"], demangled=k["demangled"],
                                params=[Param(**p) for p in k["params"]], resources=dict(k["resources"]),
                                reqntid=tuple(k["reqntid"]), module=m))
    return m


def _compile_settings(flags, include_dirs, defines, std) -> dict | None:
    """The launch spec's `compile` object for these keywords (include directories made absolute,
    relative to the current directory), or None when none is given."""
    c = {}
    if flags:
        c["flags"] = [flags] if isinstance(flags, str) else list(flags)
    if include_dirs:
        dirs = [include_dirs] if isinstance(include_dirs, (str, os.PathLike)) else list(include_dirs)
        c["include_dirs"] = [os.path.abspath(os.fspath(d)) for d in dirs]
    if defines:
        c["defines"] = dict(defines)
    if std:
        c["std"] = std
    return c or None


def compile(source: str | bytes | os.PathLike, arch: str = DEFAULT_ARCH, *, lang: str | None = None,
            device_file: str | os.PathLike | None = None, flags=None, include_dirs=None, defines=None,
            std: str | None = None) -> Module:
    """Compiles a kernel source for the part ``arch`` (h200, b200, mi300x, ... or sm_90a-style
    aliases) and returns the module with its kernels, their parameters and resource usage.

    ``source`` is a path (.cu .ptx .ll .bc; AMD .hip .s .hsaco .co) or the
    source text itself, whose language is inferred (kernsim.infer_lang: PTX, LLVM IR, AMDGCN
    assembly, HIP, else CUDA); ``lang=`` decides instead: cuda, hip, ptx, llvm, amdgcn, hsaco.
    ``lang="hip"`` marks HIP text (AMD parts only). A CUDA source compiled for an AMD part
    (mi300x, mi355x) is ported: compiled as HIP, with ``Module.warnings`` naming each place it
    assumes 32-lane warps (docs/cuda_on_amd.md). Only device code is compiled (clang
    --cuda-device-only): no host code in the source is ever compiled or run. Results are cached
    by content hash.

    ``flags`` (clang flags), ``include_dirs``, ``defines`` ({name: value or None}) and ``std``
    ("c++20") are the launch spec's `compile` object (docs/compile.md); they are part of the
    cache key, and launch() runs the kernel compiled with them.
    """
    return compile_many([source], arch, lang=lang, device_file=device_file, flags=flags, include_dirs=include_dirs,
                        defines=defines, std=std)[0]


def compile_many(sources: Sequence, arch: str = DEFAULT_ARCH, *, lang: str | None = None,
                 device_file=None, workers: int = 1, raise_errors: bool = True, flags=None, include_dirs=None,
                 defines=None, std: str | None = None) -> list:
    """compile() for several sources at once, in parallel; with raise_errors=False an entry that
    failed is the KernsimError instead of a Module."""
    device_file = os.fspath(device_file) if device_file else None
    target = _target_of(arch, device_file)
    paths = [resolve_source(s, lang) for s in sources]
    settings = _compile_settings(flags, include_dirs, defines, std)
    jobs = [(p, target) if settings is None else (p, target, json.dumps(settings)) for p in paths]
    descs = _core.describe_modules(jobs, max(1, int(workers)))
    if len(descs) != len(jobs):  # a bad setting: one error for the call
        raise error_from(descs[0])
    out = []
    for d in descs:
        if not d["ok"]:
            e = error_from(d)
            if raise_errors:
                raise e
            out.append(e)
        else:
            m = _module_from_desc(d["module"], arch, device_file)
            m.compile_settings = settings
            out.append(m)
    return out


# ---------------------------------------------------------------------------------------------
# launch


@dataclass
class LaunchResult:
    kernel: str
    arch: str
    time_us: float
    cycles: float
    report: dict                 # the full report (what `kernsim run --json` prints)
    report_text: str             # the human-readable report
    outputs: dict[int, np.ndarray]  # argument index -> buffer contents after the kernel
    wall_s: float                # seconds the simulation took on this machine

    def __getitem__(self, arg_index: int) -> np.ndarray:
        return self.outputs[arg_index]

    @property
    def error_band(self) -> list | None:
        """[lo_us, hi_us]: where the measured time is expected to fall, learned from the part's
        validation residuals of this launch's bottleneck class (report["error_band_source"] says
        which and how many; None, with the reason there, for a part or tier without them;
        docs/validation.md, "Error bands")."""
        return self.report.get("error_band")

    @property
    def warnings(self) -> list:
        """The compile's warnings (report["warnings"]): for a CUDA source run on an AMD part, each
        place it assumes 32-lane warps, as {name, file, line, code, message} (docs/cuda_on_amd.md)."""
        return list(self.report.get("warnings", []))


def _dims(v, what: str) -> list[int]:
    if isinstance(v, (int, np.integer)):
        v = (int(v),)
    v = [int(x) for x in v]
    if not 1 <= len(v) <= 3:
        raise ValueError(f"{what} must have 1 to 3 dimensions, got {v}")
    return v + [1] * (3 - len(v))


class _PreparedLaunch:
    """A launch turned into the extension's job record (spec JSON + host bytes) plus what is
    needed to turn its output bytes back into arrays."""

    def __init__(self, kernel: Kernel, grid, block, args: Sequence[Any], *, arch=None, device_file=None,
                 full=False, keep_outputs=None, dynamic_shared_bytes=0, max_instructions=None,
                 wall_time_limit_s=None, flops=None, min_bytes=None, cluster=None, cluster_nonportable=False,
                 tier="detailed", check_all=False, cache="cold"):
        if not isinstance(kernel, Kernel):
            raise TypeError("launch() needs a Kernel from kernsim.compile(...) (module['name'])")
        m = kernel.module
        self.arch = arch or m.arch
        self.device_file = os.fspath(device_file) if device_file else m.device_file
        params = kernel.params
        args = list(args)
        tri = m.extra.get("triton")
        if tri is not None and len(args) == tri["user_params"] < len(params):
            from .triton_frontend import hidden_args
            args += hidden_args(kernel, _dims(grid, "grid"))
        if block is None and tri is not None:
            from .triton_frontend import block_of
            block = block_of(kernel)  # num_warps x warp size (AMD code objects declare no .reqntid)
        if tri is not None and not dynamic_shared_bytes:
            # Triton's kernels take all their shared memory dynamically (tiles, mbarriers, the TMEM address)
            dynamic_shared_bytes = int(tri.get("shared", 0))
        if block is None:
            if not any(kernel.reqntid):
                raise LaunchSpecError(f"kernel `{kernel.demangled}` declares no block size (.reqntid): give `block`")
            block = tuple(max(1, x) for x in kernel.reqntid)
        if len(args) != len(params):
            sig = ", ".join(("*" if p.is_pointer else "") + f"{p.type} {p.name}" for p in params)
            raise LaunchSpecError(f"kernel `{kernel.demangled}` takes {len(params)} parameters ({sig}), "
                                  f"{len(args)} arguments were given")
        spec_args, host, self.arrays = [], {}, {}
        for i, (a, p) in enumerate(zip(args, params)):
            where = f"args[{i}]"
            offset = 0
            if isinstance(a, BufferAt):
                a, offset = a.array, int(a.offset_bytes)
                if not isinstance(a, np.ndarray):
                    raise TypeError(f"`{where}`: BufferAt needs a numpy array")
                if not 0 <= offset <= a.nbytes:
                    raise LaunchSpecError(f"`{where}`: offset_bytes {offset} lies outside the array ({a.nbytes} bytes)")
            if isinstance(a, Pointer):
                if not p.is_pointer:
                    raise LaunchSpecError(f"`{where}`: a Pointer was given for parameter `{p.name}` of type .{p.type}, "
                                          f"which is not a pointer")
                if not 0 <= int(a.arg) < len(args) or not isinstance(args[int(a.arg)], (np.ndarray, BufferAt)):
                    raise LaunchSpecError(f"`{where}`: Pointer.arg {a.arg} is not the index of an array argument")
                spec_args.append({"pointer": int(a.arg), "offset_bytes": int(a.offset_bytes)})
            elif isinstance(a, np.ndarray):
                if not p.is_pointer:
                    raise LaunchSpecError(f"`{where}`: an array was given for parameter `{p.name}` of type .{p.type}, "
                                          f"which is not a pointer")
                if a.size == 0:
                    raise LaunchSpecError(f"`{where}`: empty arrays cannot be kernel buffers")
                a = np.ascontiguousarray(a)
                t, factor = buffer_type(a.dtype)
                spec_args.append({"buffer": t, "count": int(a.size * factor), "init": "zeros"})
                if offset:
                    spec_args[-1]["offset_bytes"] = offset
                host[i] = a.tobytes()
                self.arrays[i] = (a.dtype, a.shape)
            elif isinstance(a, TensorMap):
                spec_args.append(a.to_json(len(args), where))
            elif isinstance(a, dict) and set(a) & {"struct", "bytes"}:
                spec_args.append(dict(a))  # a struct passed by value, as in a launch spec (docs/launch_spec.md)
            elif a is None:
                if not p.is_pointer:
                    raise LaunchSpecError(f"`{where}`: None (a null pointer) for parameter `{p.name}`, which is not a pointer")
                spec_args.append({"type": "u64", "value": 0})
            else:
                spec_args.append(scalar_for_param(a, {"name": p.name, "type": p.type, "bytes": p.bytes}, where).to_json())
        version = 2 if any(isinstance(a, (TensorMap, Pointer, BufferAt, dict)) for a in args) else 1
        spec = {"spec_version": version, "source": m.source, "kernel": kernel.name, "grid": _dims(grid, "grid"),
                "block": _dims(block, "block"), "dynamic_shared_bytes": int(dynamic_shared_bytes), "args": spec_args}
        if cluster is not None:
            spec["cluster"] = _dims(cluster, "cluster")
        if cluster_nonportable:
            spec["cluster_nonportable"] = True
        if m.compile_settings:
            spec["compile"] = m.compile_settings
        if flops is not None:
            spec["flops"] = float(flops)
        if min_bytes is not None:
            spec["min_bytes"] = float(min_bytes)
        keep = full if keep_outputs is None else bool(keep_outputs)
        self.job = {"spec_json": json.dumps(spec), "base_dir": "/", "origin": "launch", "host": host,
                    "arch": self.arch, "device_file": self.device_file or "", "full": bool(full), "keep_outputs": keep,
                    "max_instructions": int(max_instructions or 0), "wall_time_limit_s": -1.0 if wall_time_limit_s is None else float(wall_time_limit_s),
                    "tier": str(tier), "check_all": bool(check_all), "cache": str(cache)}

    def result(self, r: dict) -> LaunchResult:
        raise_if_error(r)
        outputs = {}
        for i, b in r["outputs"].items():
            dtype, shape = self.arrays[i]
            outputs[i] = np.frombuffer(b, dtype=dtype).reshape(shape).copy()
        return LaunchResult(kernel=r["kernel"], arch=r["arch"], time_us=r["time_us"], cycles=r["cycles"],
                            report=json.loads(r["report_json"]), report_text=r["report_text"], outputs=outputs,
                            wall_s=r["wall_s"])


@dataclass(frozen=True)
class Pointer:
    """A pointer argument into the buffer of array argument ``arg`` of the same launch,
    ``offset_bytes`` past its start: two parameters that alias one buffer (an in-place kernel,
    two views of one tensor) see each other's writes. The launch spec's ``{"pointer": J}``."""
    arg: int
    offset_bytes: int = 0


@dataclass(frozen=True)
class BufferAt:
    """An array passed as a buffer whose address the kernel receives ``offset_bytes`` past the
    buffer's start (a view into a larger allocation: the kernel may read and write the whole
    array, before and after the address it was given)."""
    array: np.ndarray
    offset_bytes: int = 0


@dataclass(frozen=True)
class TensorMap:
    """A tiled tensor map (cuTensorMapEncodeTiled) over buffer argument `buffer` of the same launch,
    passed to a `__grid_constant__ const CUtensorMap` (`.param .align 64 .b8 [128]`) parameter.
    `dims` innermost first; `strides_bytes` of dims 1..; kernsim checks the driver's rules at
    launch (docs/launch_spec.md, "Tensor maps")."""
    buffer: int
    dtype: str
    dims: Sequence[int]
    box: Sequence[int]
    strides_bytes: Sequence[int] = ()
    element_strides: Sequence[int] | None = None
    swizzle: str = "none"
    interleave: str = "none"
    l2_promotion: str = "none"
    oob_fill: str = "zero"

    def to_json(self, nargs: int, where: str) -> dict:
        if not 0 <= int(self.buffer) < nargs:
            raise LaunchSpecError(f"`{where}`: TensorMap.buffer {self.buffer} is not an argument index")
        d = {"buffer": int(self.buffer), "dtype": self.dtype, "dims": [int(x) for x in self.dims],
             "strides_bytes": [int(x) for x in self.strides_bytes], "box": [int(x) for x in self.box],
             "swizzle": self.swizzle, "interleave": self.interleave, "l2_promotion": self.l2_promotion,
             "oob_fill": self.oob_fill}
        if self.element_strides is not None:
            d["element_strides"] = [int(x) for x in self.element_strides]
        return {"tensor_map": d}


def launch(kernel: Kernel, grid, block, args: Sequence[Any], *, arch: str | None = None, full: bool = False,
           dynamic_shared_bytes: int = 0, keep_outputs: bool | None = None, max_instructions: int | None = None,
           wall_time_limit_s: float | None = None, device_file=None, flops=None, min_bytes=None, cluster=None,
           cluster_nonportable: bool = False, tier: str = "detailed", check_all: bool = False,
           cache: str = "cold") -> LaunchResult:
    """Runs ``kernel`` on the simulated part and times it.

    ``args`` follow the kernel's parameters: numpy arrays for pointers (copied in; None is a null
    pointer), and scalars (see kernsim.types: plain int/float take the parameter's PTX type;
    numpy scalars and kernsim.i32(...) wrappers are exact); a struct passed by value is the launch
    spec's dict, ``{"struct": [{"type": "f16x2", "value": [1.0, 2.0]}, {"type": "i32", "value": 3}]}``
    or ``{"bytes": "hex"}`` (docs/launch_spec.md). ``arch`` defaults to the part the
    kernel was compiled for. ``full=True`` executes and times every CTA and returns the buffers
    in ``outputs``; without it the timing model samples CTAs and extrapolates, and outputs are
    returned only when ``keep_outputs=True`` (the rest of the grid then runs untimed).
    ``wall_time_limit_s`` bounds the simulation's wall time (None: the default of 120 s, 0: none;
    docs/limits.md); past it, or when a warp is proven to loop endlessly, the launch raises a
    kernel fault instead of returning a time. ``cluster`` (x[, y[, z]]) launches thread-block
    clusters (sm_90+; a kernel with ``__cluster_dims__`` has its own), ``cluster_nonportable``
    allows clusters above the portable 8 CTAs (cudaFuncAttributeNonPortableClusterSizeAllowed).
    ``tier="fast"`` answers in milliseconds from a functional sample of a few CTAs and an
    analytical model (NVIDIA parts; no outputs, so not with ``full`` or ``keep_outputs``;
    docs/validation.md, "Fast tier"); the report says ``"tier": "fast"``.
    ``check_all=True`` runs the CTAs sampling does not time (untimed, as ``keep_outputs`` does) so
    that a fault or endless loop in any CTA raises; ``report["checked"]`` says which CTAs ran.
    ``cache="warm"`` starts the L2 as a previous run of the same launch left it (back-to-back
    trials without a flush; on AMD parts the L2s of the XCDs and the MALL) instead of cold (flushed
    by a read, clean: the default); detailed tier. ``cache="cold-dirty"`` starts it cold but full of dirty lines of another buffer,
    as a flush that writes leaves it (KernelBench's): the launch writes them back (NVIDIA's
    detailed tier; the same as cold on AMD parts).
    """
    p = _PreparedLaunch(kernel, grid, block, args, arch=arch, device_file=device_file, full=full,
                        keep_outputs=keep_outputs, dynamic_shared_bytes=dynamic_shared_bytes,
                        max_instructions=max_instructions, wall_time_limit_s=wall_time_limit_s, flops=flops,
                        min_bytes=min_bytes, cluster=cluster, cluster_nonportable=cluster_nonportable, tier=tier,
                        check_all=check_all, cache=cache)
    return p.result(_core.run_jobs([p.job], 1)[0])


def launch_many(launches: Sequence[dict], workers: int = 1, raise_errors: bool = True) -> list:
    """Several launch() calls (each a dict of launch()'s keyword arguments, including kernel, grid,
    block and args) run in parallel on ``workers`` threads with the GIL released."""
    prepared = [_PreparedLaunch(**d) for d in launches]
    raw = _core.run_jobs([p.job for p in prepared], max(1, int(workers)))
    out = []
    for p, r in zip(prepared, raw):
        try:
            out.append(p.result(r))
        except KernsimError as e:
            if raise_errors:
                raise
            out.append(e)
    return out


def run_spec(path: str | os.PathLike, arch: str = DEFAULT_ARCH, *, full: bool = False, keep_outputs: bool = False,
             device_file=None, max_instructions: int | None = None) -> LaunchResult:
    """`kernsim run SPEC.json` from Python: the same spec format, checks and messages. Outputs
    (with keep_outputs=True) are raw uint8 arrays keyed by argument index."""
    job = {"spec_path": os.fspath(path), "arch": arch, "device_file": os.fspath(device_file) if device_file else "",
           "full": full, "keep_outputs": keep_outputs, "max_instructions": int(max_instructions or 0)}
    r = raise_if_error(_core.run_jobs([job], 1)[0])
    outputs = {i: np.frombuffer(b, dtype=np.uint8).copy() for i, b in r["outputs"].items()}
    return LaunchResult(kernel=r["kernel"], arch=r["arch"], time_us=r["time_us"], cycles=r["cycles"],
                        report=json.loads(r["report_json"]), report_text=r["report_text"], outputs=outputs,
                        wall_s=r["wall_s"])
