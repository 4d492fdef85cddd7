"""Triton kernels, compiled ahead of time by Triton's own compiler and simulated like any other.

``compile_triton(fn_or_path, ...)`` turns a ``@triton.jit`` kernel into a kernsim Module: PTX for
NVIDIA parts (sm_90a, sm_100a), an AMDGPU code object for AMD parts (gfx942, gfx950). No GPU
is needed: Triton's compiler runs on the CPU (its bundled ptxas and LLVM). The PTX goes through
kernsim's .ptx path; AMD code objects go to the AMD path (executed and timed on the CU model).

Where the code runs:
* a Python function you pass (a ``triton.JITFunction``) is compiled in this process: it is your
  code;
* a file path or source text is compiled in a separate Python process. Source text from an
  untrusted candidate (scoring) is first checked to contain only imports of triton/math and
  ``@triton.jit`` functions (plus constant assignments), so no candidate host code runs even
  there; the kernel bodies are never executed as Python — Triton parses them.

Compiled results are cached on disk by a hash of (source, kernel, signature, constants,
specialisation, target, options, Triton version): content, never a name.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .core import Kernel, Module, _module_from_desc, device_info, resolve_source
from . import _core
from .errors import CompileError, error_from
from .types import Scalar

_PTR_TYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int32": "i32",
              "int64": "i64", "int16": "i16", "int8": "i8", "uint8": "u8", "uint16": "u16", "uint32": "u32",
              "uint64": "u64", "bool": "i1"}
_SCALAR_TYPES = {"i32": "i32", "u32": "u32", "i64": "i64", "u64": "u64", "f32": "fp32", "f64": "fp64"}
_ALLOWED_IMPORTS = {"triton", "triton.language", "math", "triton.language.extra", "typing", "__future__"}
_TIMEOUT_S = 300


def _cache_root() -> Path:
    if os.environ.get("KERNSIM_CACHE_DIR"):
        return Path(os.environ["KERNSIM_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "kernsim"
    return Path.home() / ".cache" / "kernsim"


def triton_target(arch: str, device_file=None) -> tuple:
    """(backend, arch, warp size) of Triton's GPUTarget for a kernsim device."""
    info = device_info(arch, device_file)
    t = info["isa_target"]
    if t.startswith("sm_"):
        return ("cuda", int(t[3:].rstrip("af")), 32)
    if t.startswith("gfx"):
        return ("hip", t, int(info.get("warp_size") or 64))
    raise CompileError(f"Triton has no target for {info['name']} ({t})")


# ---------------------------------------------------------------------------------------------
# The check for untrusted source text


def check_source(text: str, kernel: str | None = None) -> None:
    """Raises CompileError unless the module holds only imports of triton/math, @triton.jit
    functions, constant assignments and docstrings: importing it then runs no host code."""
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        raise CompileError(f"triton source: line {e.lineno}: {e.msg}") from None

    def is_jit(dec) -> bool:
        d = dec.func if isinstance(dec, ast.Call) else dec
        name = d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else None
        if name != "jit":
            return False
        if isinstance(dec, ast.Call):  # @triton.jit(...) options must be constants
            return all(isinstance(kw.value, (ast.Constant, ast.List, ast.Tuple)) for kw in dec.keywords) and not dec.args
        return True

    def const_value(v) -> bool:
        if isinstance(v, ast.Constant):
            return True
        if isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant):
            return True
        # tl.constexpr(3) / triton.language.constexpr(3)
        return (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "constexpr"
                and len(v.args) == 1 and isinstance(v.args[0], ast.Constant) and not v.keywords)

    found = False
    for node in tree.body:
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            bad = [a.name for a in node.names if a.name not in _ALLOWED_IMPORTS]
        elif isinstance(node, ast.ImportFrom):
            bad = [] if (node.module in _ALLOWED_IMPORTS and node.level == 0) else [node.module or "."]
        elif isinstance(node, ast.FunctionDef):
            if len(node.decorator_list) != 1 or not is_jit(node.decorator_list[0]):
                raise CompileError(f"triton source: line {line}: function `{node.name}` must be decorated with exactly "
                                   f"@triton.jit (autotune, heuristics and plain Python functions are not accepted)")
            found |= kernel is None or node.name == kernel
            continue
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            if node.value is None or not const_value(node.value):
                raise CompileError(f"triton source: line {line}: only constant assignments are allowed at module level")
            continue
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        else:
            raise CompileError(f"triton source: line {line}: `{type(node).__name__}` statements are not allowed at "
                               f"module level (only imports of triton/math, @triton.jit functions and constants)")
        if bad:
            raise CompileError(f"triton source: line {line}: import of {', '.join(bad)} is not allowed "
                               f"(only {', '.join(sorted(_ALLOWED_IMPORTS))})")
    if kernel is not None and not found:
        raise CompileError(f"triton source: no @triton.jit function `{kernel}`")


def kernel_params(text: str, kernel: str) -> list[tuple[str, bool]]:
    """(name, is_constexpr) for each parameter of the @triton.jit function ``kernel``."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            out = []
            for a in node.args.args:
                ann = a.annotation
                is_c = ann is not None and ((isinstance(ann, ast.Attribute) and ann.attr == "constexpr")
                                            or (isinstance(ann, ast.Name) and ann.id == "constexpr"))
                out.append((a.arg, is_c))
            return out
    raise CompileError(f"triton source: no @triton.jit function `{kernel}`")


# ---------------------------------------------------------------------------------------------
# Compilation


def _request_key(req: dict) -> str:
    import importlib.metadata
    try:
        tv = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        raise CompileError("Triton is not installed (pip install triton; ./scripts/install-deps.sh does)") from None
    return hashlib.sha256(json.dumps([req, tv, "kernsim-triton-1"], sort_keys=True, default=str).encode()).hexdigest()


def _compile_in_subprocess(req: dict) -> dict:
    key = _request_key(req)
    cached = _cache_root() / "triton" / key[:2] / f"{key}.json"
    if cached.exists():
        try:
            return json.loads(cached.read_text())
        except (OSError, ValueError):
            pass
    env = dict(os.environ)
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    try:
        p = subprocess.run([sys.executable, "-m", "kernsim.triton_frontend"], input=json.dumps(req), text=True,
                           capture_output=True, timeout=_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise CompileError(f"Triton did not finish compiling `{req['kernel']}` in {_TIMEOUT_S} s") from None
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise CompileError(f"the Triton compiler process failed (exit {p.returncode}):\n{p.stderr[-4000:]}") from None
    if not out.get("ok"):
        raise CompileError(out.get("error", "Triton failed"))
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(f".tmp{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(json.dumps(out))
    os.replace(tmp, cached)
    return out


def _compile_fn(fn, req: dict) -> dict:
    """In-process compile of a JITFunction (the caller's own code)."""
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    return _run_triton(fn, req)


def _run_triton(fn, req: dict) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    backend, arch, warp = req["target"]
    sig = dict(req["signature"])
    for k in req["constexprs"]:
        sig[k] = "constexpr"
    names = list(fn.arg_names)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in req.get("divisible", []) if n in names}
    src = ASTSource(fn, sig, constexprs=dict(req["constexprs"]), attrs=attrs)
    try:
        k = triton.compile(src, target=GPUTarget(backend, arch, warp),
                           options={"num_warps": req["num_warps"], "num_stages": req["num_stages"]})
    except Exception as e:  # Triton's own errors: compilation, unsupported target
        msg = str(e)
        hint = ""
        if any(w in msg.lower() for w in ("driver", "no gpu", "cuda_error", "hip error", "libcuda")):
            hint = f" (Triton could not target {arch} without a GPU driver on this machine)"
        raise CompileError(f"Triton could not compile `{req['kernel']}` for {arch}{hint}: {type(e).__name__}: {msg}") from None
    md = k.metadata
    out = {"ok": True, "name": md.name, "num_warps": md.num_warps, "shared": md.shared,
           "global_scratch_size": getattr(md, "global_scratch_size", 0) or 0,
           "global_scratch_align": getattr(md, "global_scratch_align", 1) or 1,
           "profile_scratch_size": getattr(md, "profile_scratch_size", 0) or 0,
           "triton_version": triton.__version__, "warp_size": warp}
    if "ptx" in k.asm:
        out["ptx"] = k.asm["ptx"]
    else:
        out["hsaco_b64"] = base64.b64encode(k.asm["hsaco"]).decode()
        out["amdgcn"] = k.asm.get("amdgcn", "")
    return out


def _worker_main() -> None:
    """`python -m kernsim.triton_frontend`: one compile request on stdin, one JSON line out."""
    req = json.loads(sys.stdin.read())
    try:
        import importlib.util
        with tempfile.TemporaryDirectory(prefix="kernsim_triton_") as d:
            path = Path(d) / f"kernsim_triton_{hashlib.sha256(req['source'].encode()).hexdigest()[:16]}.py"
            path.write_text(req["source"])
            spec = importlib.util.spec_from_file_location(path.stem, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = mod
            spec.loader.exec_module(mod)
            fn = getattr(mod, req["kernel"], None)
            if fn is None or not hasattr(fn, "arg_names"):
                raise CompileError(f"triton source: `{req['kernel']}` is not a @triton.jit function")
            out = _run_triton(fn, req)
    except CompileError as e:
        out = {"ok": False, "error": str(e)}
    except Exception as e:
        out = {"ok": False, "error": f"Triton could not compile `{req.get('kernel')}`: {type(e).__name__}: {e}"}
    sys.stdout.write("\n" + json.dumps(out) + "\n")


def _module_from_triton(out: dict, arch: str, device_file, nparams_user: int) -> Module:
    if "ptx" in out:
        path = resolve_source(out["ptx"], "ptx")
    else:
        path = resolve_source(base64.b64decode(out["hsaco_b64"]), "hsaco")
    target = device_info(arch, device_file)["isa_target"]
    d = _core.describe_modules([(path, target)], 1)[0]
    if not d["ok"]:
        raise error_from(d)
    m = _module_from_desc(d["module"], arch, device_file)
    m.extra["triton"] = {k: v for k, v in out.items() if k not in ("ptx", "hsaco_b64", "amdgcn", "ok")}
    m.extra["triton"]["user_params"] = nparams_user
    return m


def _arg_type(a) -> str:
    if isinstance(a, np.ndarray):
        t = _PTR_TYPES.get(a.dtype.name)
        if t is None:
            raise TypeError(f"no Triton pointer type for numpy dtype {a.dtype}")
        return "*" + t
    if a is None:
        return "*i8"
    if isinstance(a, Scalar):
        return _SCALAR_TYPES[a.type]
    if isinstance(a, np.generic):
        return {"int32": "i32", "uint32": "u32", "int64": "i64", "uint64": "u64", "float32": "fp32",
                "float64": "fp64"}[a.dtype.name]
    if isinstance(a, bool):
        return "i1"
    if isinstance(a, int):
        return "i32" if -(2**31) <= a < 2**31 else "i64"
    if isinstance(a, float):
        return "fp32"
    raise TypeError(f"{type(a).__name__} is not a Triton kernel argument")


def _divisible(a) -> bool:
    if isinstance(a, np.ndarray):
        return True  # kernsim's buffers are 256-byte aligned
    v = a.value if isinstance(a, Scalar) else a.item() if isinstance(a, np.generic) else a
    return isinstance(v, int) and not isinstance(v, bool) and v % 16 == 0


def compile_triton(fn_or_source: Any, kernel: str | None = None, *, args: list | None = None,
                   signature: dict | None = None, constexprs: dict | None = None, arch: str = "h200",
                   device_file=None, num_warps: int = 4, num_stages: int = 3, divisible: list | None = None,
                   trusted: bool = True) -> Module:
    """Compiles a @triton.jit kernel for ``arch`` and returns a kernsim Module (launch it with
    kernsim.launch(module.kernel(), grid, None, args): the block follows num_warps and Triton's
    hidden scratch arguments are added for you).

    fn_or_source: a JITFunction, a path to a .py file, or source text (then ``kernel`` names the
    function). Types come from ``signature`` ({"x_ptr": "*fp32", "n": "i32"}) or are inferred
    from example ``args`` as Triton's launcher would (arrays -> pointers, ints -> i32/i64,
    floats -> fp32), and ``divisible`` lists parameters known to be multiples of 16 (inferred
    from ``args``: pointers always, ints when divisible). With trusted=False source text must pass
    check_source().
    """
    constexprs = dict(constexprs or {})
    fn = None
    if hasattr(fn_or_source, "arg_names") and hasattr(fn_or_source, "fn"):
        fn = fn_or_source
        kernel = kernel or fn.__name__
        params = [(n, n in constexprs or p.is_constexpr) for n, p in zip(fn.arg_names, fn.params)]
        text = None
    else:
        if isinstance(fn_or_source, os.PathLike) or (isinstance(fn_or_source, str) and "\n" not in fn_or_source
                                                     and fn_or_source.endswith(".py")):
            text = Path(fn_or_source).read_text()
        else:
            text = str(fn_or_source)
        if not trusted:
            check_source(text, kernel)
        if kernel is None:
            jits = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
            if len(jits) != 1:
                raise CompileError(f"triton source: name the kernel (functions: {', '.join(jits) or 'none'})")
            kernel = jits[0]
        params = [(n, c or n in constexprs) for n, c in kernel_params(text, kernel)]
    runtime = [n for n, c in params if not c]
    missing = [n for n, c in params if c and n not in constexprs]
    if missing:
        raise CompileError(f"triton kernel `{kernel}`: no value for constexpr parameter(s) {', '.join(missing)}")
    if signature is None:
        if args is None:
            raise CompileError(f"triton kernel `{kernel}`: give `signature` or example `args`")
        if len(args) != len(runtime):
            raise CompileError(f"triton kernel `{kernel}` takes {len(runtime)} runtime arguments "
                               f"({', '.join(runtime)}), {len(args)} were given")
        signature = {n: _arg_type(a) for n, a in zip(runtime, args)}
        if divisible is None:
            divisible = [n for n, a in zip(runtime, args) if _divisible(a)]
    req = {"kernel": kernel, "signature": signature, "constexprs": constexprs, "divisible": sorted(divisible or []),
           "target": list(triton_target(arch, device_file)), "num_warps": int(num_warps), "num_stages": int(num_stages)}
    if fn is not None:
        out = _compile_fn(fn, req)
    else:
        req["source"] = text
        out = _compile_in_subprocess(req)
    return _module_from_triton(out, arch, device_file, len(runtime))


def hidden_args(kernel: Kernel, grid) -> list:
    """Values for the parameters Triton appends after the user's (scratch pointers): a zeroed
    buffer when the kernel declares global scratch, else a null pointer."""
    info = kernel.module.extra.get("triton", {})
    n_hidden = len(kernel.params) - int(info.get("user_params", len(kernel.params)))
    out = []
    programs = int(np.prod([int(g) for g in grid]))
    for h in range(n_hidden):
        size = int(info.get("global_scratch_size", 0)) if h == 0 else int(info.get("profile_scratch_size", 0))
        out.append(np.zeros(size * programs, dtype=np.uint8) if size > 0 else None)
    return out


def block_of(kernel: Kernel) -> tuple:
    info = kernel.module.extra.get("triton", {})
    if any(kernel.reqntid):
        return tuple(max(1, x) for x in kernel.reqntid)
    return (int(info.get("num_warps", 4)) * int(info.get("warp_size", 32)), 1, 1)


def kernel_for_args(source, kernel_name, args, constexprs, arch, device_file, num_warps, num_stages):
    """Scoring's hook: (Kernel, block, extra-args function of the grid) for untrusted source."""
    m = compile_triton(source, kernel_name, args=args, constexprs=constexprs, arch=arch, device_file=device_file,
                       num_warps=num_warps, num_stages=num_stages, trusted=False)
    k = m.kernel(None if len(m.kernels) == 1 else kernel_name)
    return k, block_of(k), (lambda grid: hidden_args(k, grid))


if __name__ == "__main__":
    _worker_main()
