"""kernsim's ``torch.utils.cpp_extension.load_inline`` and ``load``: a PyTorch CUDA extension
built for a CPU process whose GPU is simulated.

* Device code: the CUDA sources are compiled by kernsim for the part (``kernsim.compile``:
  clang --cuda-device-only, the same path as every kernsim kernel), against PyTorch's headers.
* Host code: the C++ sources and the host side of the CUDA sources are compiled by clang 22
  against the installed PyTorch's headers (the CPU tensors of this process), with
  runtime/include first on the path (c10::cuda / at::cuda stand-ins) and runtime/include/
  kernsim_prelude.h included first (``is_cuda`` reads ``is_cpu``, ``kCUDA`` reads ``kCPU``).
  clang turns each ``kernel<<<g, b, s, st>>>(...)`` into ``__cudaPushCallConfiguration`` and a
  device stub that calls ``cudaLaunchKernel``; the "GPU binary" clang embeds is the module's
  id, so every kernel registers under its kernsim module.
* Link: the objects, runtime/cudart_api.cpp (the CUDA runtime subset) with -Bsymbolic, and
  libkernsim_rt.so. A CUDA runtime or driver symbol still undefined after that is a function
  kernsim does not provide: the build fails naming it (it would otherwise reach the real
  libcudart, which has no GPU here).

Everything is cached by content hash under ~/.cache/kernsim/kernelbench (KERNSIM_CACHE_DIR).
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

from ..errors import CompileError

RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"
_LOCK = threading.Lock()
_VERSION = "kb-ext-2"


def _cache_root() -> Path:
    if os.environ.get("KERNSIM_CACHE_DIR"):
        return Path(os.environ["KERNSIM_CACHE_DIR"]) / "kernelbench"
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "kernsim" / "kernelbench"
    return Path.home() / ".cache" / "kernsim" / "kernelbench"


def clang() -> str:
    for c in (os.environ.get("KERNSIM_CLANG"), "clang++-22", "/usr/lib/llvm-22/bin/clang++"):
        if c and shutil.which(c):
            return shutil.which(c)
    raise CompileError("clang 22 not found (looked for clang++-22; set KERNSIM_CLANG); run ./scripts/install-deps.sh")


def cuda_path() -> Path:
    return Path(os.environ.get("KERNSIM_CUDA_PATH", "/usr/local/cuda"))


def _torch_paths():
    import torch
    import torch.utils.cpp_extension as ce
    inc = [Path(p) for p in ce.include_paths()]
    lib = Path(torch.__file__).resolve().parent / "lib"
    return inc, lib, torch.__version__, int(bool(torch._C._GLIBCXX_USE_CXX11_ABI))


def include_dirs() -> list[Path]:
    """The host and device include path: kernsim's stand-ins first, then PyTorch, Python, CCCL."""
    inc, _, _, _ = _torch_paths()
    dirs = [RUNTIME_DIR / "include"] + inc + [Path(sysconfig.get_paths()["include"])]
    cccl = cuda_path() / "include" / "cccl"
    if cccl.is_dir():
        dirs.append(cccl)
    return dirs


def _host_flags() -> list[str]:
    _, _, _, abi = _torch_paths()
    f = ["-std=c++20", "-O1", "-fPIC", "-w", f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-DTORCH_API_INCLUDE_EXTENSION_H",
         f"-I{RUNTIME_DIR / 'include'}"]
    for d in include_dirs()[1:]:
        f.append(f"-isystem{d}")
    f.append(f"-isystem{cuda_path() / 'include'}")
    return f


def _run(argv: list[str], what: str, timeout: float = 600) -> None:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CompileError(f"{what}: clang did not finish in {timeout:.0f} s") from None
    if p.returncode != 0:
        errs = [l for l in p.stderr.splitlines() if "error" in l or "note:" not in l]
        raise CompileError(f"{what} failed:\n" + "\n".join(errs[-60:]))


def _hash(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def _runtime_sources_hash() -> str:
    h = hashlib.sha256()
    for f in sorted(RUNTIME_DIR.rglob("*")):
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def build_runtime() -> Path:
    """libkernsim_rt.so and cudart_api.o, built once per (sources, PyTorch, clang)."""
    inc, lib, tv, _ = _torch_paths()
    key = _hash(_VERSION, _runtime_sources_hash(), tv, clang())[:20]
    d = _cache_root() / "runtime" / key
    so = d / "libkernsim_rt.so"
    if so.exists() and (d / "cudart_api.o").exists():
        return so
    with _LOCK:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f"tmp{os.getpid()}"
        tmp.mkdir(exist_ok=True)
        _run([clang(), *_host_flags(), "-shared", "-o", str(tmp / "libkernsim_rt.so"), str(RUNTIME_DIR / "kernsim_rt.cpp"),
              f"-L{lib}", "-lc10", f"-Wl,-rpath,{lib}"], "building kernsim's CUDA runtime state (kernsim_rt.cpp)")
        _run([clang(), "-std=c++17", "-O1", "-fPIC", "-w", f"-isystem{cuda_path() / 'include'}", "-c",
              str(RUNTIME_DIR / "cudart_api.cpp"), "-o", str(tmp / "cudart_api.o")], "building cudart_api.cpp")
        os.replace(tmp / "cudart_api.o", d / "cudart_api.o")
        os.replace(tmp / "libkernsim_rt.so", so)
        shutil.rmtree(tmp, ignore_errors=True)
    return so


def _locked(path: Path):
    import fcntl

    class L:
        def __enter__(self):
            path.parent.mkdir(parents=True, exist_ok=True)
            self.f = open(str(path) + ".lock", "w")
            fcntl.flock(self.f, fcntl.LOCK_EX)

        def __exit__(self, *a):
            fcntl.flock(self.f, fcntl.LOCK_UN)
            self.f.close()
    return L()


def _pch_argv(kind: str, target: str | None = None) -> list[str]:
    """The clang arguments a precompiled prelude of ``kind`` is built with; a compile that uses
    it passes the same ones (clang refuses a PCH built with other language options)."""
    if kind == "cxx":
        return ["-x", "c++-header", *_host_flags()]
    if kind == "cuda_host":
        return ["-x", "cuda", "--cuda-host-only", f"--cuda-path={cuda_path()}", "-Wno-unknown-cuda-version",
                *_host_flags()]
    # the device side, as kernsim's CUDA frontend runs clang (frontends/cuda.cpp) plus the
    # settings build() gives kernsim.compile
    argv = ["-x", "cuda", f"--cuda-gpu-arch={target}", "--cuda-device-only", "-O3", f"--cuda-path={cuda_path()}",
            "-Wno-unknown-cuda-version"]
    cccl = cuda_path() / "include" / "cccl"
    if cccl.is_dir():
        argv += ["-isystem", str(cccl)]
    argv += ["-I", str(include_dirs()[0])]
    for d in include_dirs()[1:]:
        argv.append(f"-isystem{d}")
    argv += ["-DTORCH_API_INCLUDE_EXTENSION_H", "-std=c++20", "-w"]
    return argv


def precompiled_prelude(kind: str, target: str | None = None) -> Path | None:
    """kernsim_prelude.h precompiled for ``kind`` (cxx, cuda_host, device + target), built once
    per (runtime sources, PyTorch, clang); None when clang cannot (the compile then includes the
    prelude as text: slower, same result)."""
    rt = build_runtime()
    # the file name carries the flags it is built with (a change of flags is a new file); the
    # runtime folder already stands for the prelude's content, PyTorch and clang
    flags_id = hashlib.sha256("\0".join(_pch_argv(kind, target)).encode()).hexdigest()[:12]
    out = rt.parent / (f"prelude_{kind}{'_' + target if target else ''}_{flags_id}.pch")
    if out.exists():
        return out
    bad = Path(str(out) + ".failed")
    if bad.exists():
        return None
    with _locked(out):
        if out.exists():
            return out
        tmp = Path(f"{out}.tmp{os.getpid()}")
        # -fno-pch-timestamp: reinstalling the package (new mtimes, same content) must not make
        # every later compile fail with "has been modified since the precompiled header"
        argv = [clang(), *_pch_argv(kind, target), "-Xclang", "-fno-pch-timestamp"]
        if kind == "cuda_host":
            argv += ["-Xclang", "-emit-pch", "-c"]
        elif kind == "device":
            argv += ["-Xclang", "-emit-pch", "-S"]  # stop before ptxas
        argv += [str(RUNTIME_DIR / "include" / "kernsim_prelude.h"), "-o", str(tmp)]
        try:
            _run(argv, f"precompiling the prelude ({kind})")
        except CompileError as e:
            bad.write_text(str(e))
            return None
        os.replace(tmp, out)
    return out


# nvcc flags that mean nothing to kernsim's clang (the target comes from the part) are dropped;
# these are translated
_NVCC_MAP = {"--use_fast_math": "-ffast-math", "-use_fast_math": "-ffast-math"}
_NVCC_DROP = re.compile(r"^(-O\d|-arch(=.*)?|--gpu-architecture(=.*)?|-gencode(=.*)?|--generate-code(=.*)?|-code(=.*)?|"
                        r"--expt-relaxed-constexpr|--expt-extended-lambda|-lineinfo|-Xptxas.*|-Xcompiler.*|"
                        r"--ptxas-options.*|-res-usage|--resource-usage|-g|-G|-std=c\+\+\d+|--std=c\+\+\d+|"
                        r"-U__CUDA_NO_.*|-D__CUDA_NO_.*|--extended-lambda|-allow-unsupported-compiler|"
                        r"--keep|-maxrregcount.*|--maxrregcount.*|-t\d+|--threads.*|-DNDEBUG)$")


def _split_cuda_flags(flags) -> tuple[list[str], list[str]]:
    """(clang flags, dropped) for nvcc-style extra_cuda_cflags."""
    keep, dropped = [], []
    for f in flags or []:
        if f in _NVCC_MAP:
            keep.append(_NVCC_MAP[f])
        elif _NVCC_DROP.match(f):
            dropped.append(f)
        elif f.startswith("-D") or f.startswith("-I") or f == "-ffast-math":
            keep.append(f)
        else:
            dropped.append(f)
    return keep, dropped


def _defines(flags):
    out = {}
    for f in flags:
        if f.startswith("-D"):
            k, _, v = f[2:].partition("=")
            out[k] = v if v else None
    return out


def _pybind_block(name: str, functions) -> str:
    if functions is None:
        return ""
    if isinstance(functions, str):
        functions = [functions]
    items = functions.items() if isinstance(functions, dict) else [(f, f) for f in functions]
    lines = [f'm.def("{f}", torch::wrap_pybind_function({f}), "{doc}");' for f, doc in items]
    return "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n" + "\n".join(lines) + "\n}\n"


class Extension:
    """A built extension: the importable .so, its module id and the kernsim Module of its device
    code (None when it has no CUDA source)."""

    def __init__(self, so: Path, module_id: str, device_module, dropped_flags: list[str]):
        self.so, self.module_id, self.device_module, self.dropped_flags = so, module_id, device_module, dropped_flags


def build(name: str, cpp_sources: list[str], cuda_sources: list[str], *, functions=None, extra_cflags=None,
          extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None, arch: str = "h200",
          device_file=None) -> Extension:
    from ..core import compile as kcompile

    rt = build_runtime()
    extra_cflags = [f for f in (extra_cflags or []) if not re.match(r"^(-O\d|-std=.*|-g|-fopenmp)$", f)]
    cuda_keep, dropped = _split_cuda_flags(extra_cuda_cflags)
    inc_extra = [str(Path(p).resolve()) for p in (extra_include_paths or [])]
    _, lib, tv, _ = _torch_paths()
    main_src = "#include <torch/extension.h>\n" + "\n".join(cpp_sources) + _pybind_block(name, functions)
    cuda_src = "\n".join(cuda_sources)
    key = _hash(_VERSION, _runtime_sources_hash(), tv, name, main_src, cuda_src, extra_cflags, cuda_keep, inc_extra,
                extra_ldflags, arch, str(device_file))[:24]
    d = _cache_root() / "ext" / key
    so = d / f"{name}.so"
    module_id = f"{name}-{key}"
    d.mkdir(parents=True, exist_ok=True)
    prelude = str(RUNTIME_DIR / "include" / "kernsim_prelude.h")
    incs = [f"-I{p}" for p in inc_extra]
    name_def = f"-DTORCH_EXTENSION_NAME={name}"

    from ..core import device_info
    target = device_info(arch, device_file)["isa_target"]
    kinds = [("cxx", None)] + ([("cuda_host", None)] + ([("device", target)] if target.startswith("sm_") else [])
                               if cuda_src.strip() else [])
    with cf.ThreadPoolExecutor(max_workers=3) as ex:  # once per machine: the precompiled preludes
        list(ex.map(lambda a: precompiled_prelude(*a), kinds))
    device_module = None
    jobs = []
    with cf.ThreadPoolExecutor(max_workers=3) as ex:
        if cuda_src.strip():
            cu = d / "cuda.cu"
            cu.write_text(cuda_src)
            binid = d / "module_id.bin"
            binid.write_bytes(module_id.encode() + b"\0")
            # a flag that changes language options (-ffast-math) makes clang refuse the PCH
            plain = all(f.startswith(("-D", "-I")) for f in cuda_keep)
            dev_pch = precompiled_prelude("device", target) if target.startswith("sm_") and plain else None
            # -Xclang=: kernsim takes flags that start with "-" only
            pre = ["-Xclang=-include-pch", f"-Xclang={dev_pch}"] if dev_pch else ["-include" + prelude]
            # PyTorch's, Python's and CCCL's headers are system headers (-isystem): the host-read
            # policy checks the candidate's own includes and leaves trusted installations alone
            # (CCCL's thrust includes computed header names, which it would refuse)
            dev_flags = pre + ["-w"] + [f for f in cuda_keep if not f.startswith("-D") and not f.startswith("-I")] + \
                [f"-isystem{p}" for p in include_dirs()[1:]]
            dev_incs = include_dirs()[:1] + [Path(p) for p in inc_extra] + \
                [Path(f[2:]) for f in cuda_keep if f.startswith("-I")]
            jobs.append(("device", ex.submit(kcompile, str(cu), arch, device_file=device_file, flags=dev_flags,
                                             include_dirs=[str(p) for p in dev_incs], std="c++20",
                                             defines={**_defines(cuda_keep), "TORCH_API_INCLUDE_EXTENSION_H": None})))
            cu_o = d / "cuda.o"
            if not cu_o.exists():
                pch = precompiled_prelude("cuda_host")
                argv = [clang(), *_pch_argv("cuda_host"), *incs, *[f for f in cuda_keep if f.startswith(("-D", "-I"))],
                        name_def, *(["-include-pch", str(pch)] if pch else ["-include", prelude]), "-Xclang", "-fcuda-include-gpubinary", "-Xclang", str(binid),
                        "-c", str(cu), "-o", str(cu_o) + ".tmp"]
                jobs.append(("cuda host", ex.submit(_run, argv, "compiling the host side of the CUDA sources")))
        main = d / "main.cpp"
        main.write_text(main_src)
        main_o = d / "main.o"
        if not main_o.exists():
            pch = precompiled_prelude("cxx") if all(f.startswith(("-D", "-I", "-W")) for f in extra_cflags) else None
            argv = [clang(), "-x", "c++", *_host_flags(), *incs, *extra_cflags, name_def,
                    *(["-include-pch", str(pch)] if pch else ["-include", prelude]),
                    "-c", str(main), "-o", str(main_o) + ".tmp"]
            jobs.append(("main", ex.submit(_run, argv, "compiling the C++ sources")))
        errors = []
        for what, fut in jobs:
            try:
                r = fut.result()
                if what == "device":
                    device_module = r
            except Exception as e:  # noqa: BLE001 - reported with its stage
                errors.append(f"{what}: {e}")
        if errors:
            raise CompileError("\n".join(errors))
    for o in (d / "cuda.o", main_o):
        t = Path(str(o) + ".tmp")
        if t.exists():
            os.replace(t, o)
    if not so.exists():
        objs = [str(main_o)] + ([str(d / "cuda.o")] if cuda_src.strip() else [])
        tmp_so = d / f"{name}.so.tmp{os.getpid()}"
        _run([clang(), "-shared", "-o", str(tmp_so), *objs, str(rt.parent / "cudart_api.o"), "-Wl,-Bsymbolic",
              f"-L{lib}", "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python", f"-Wl,-rpath,{lib}",
              f"-L{rt.parent}", "-lkernsim_rt", f"-Wl,-rpath,{rt.parent}", *(extra_ldflags or [])],
             "linking the extension")
        _check_undefined(tmp_so)
        os.replace(tmp_so, so)
    return Extension(so, module_id, device_module, dropped)


def _check_undefined(so: Path) -> None:
    p = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True)
    syms = sorted({l.split()[-1].split("@")[0] for l in p.stdout.splitlines() if l.strip()})
    bad = [s for s in syms if re.match(r"^(cuda|__cuda|cu[A-Z]|cublas|cudnn|curand|cufft|cusparse|nccl)", s)]
    if bad:
        so.unlink(missing_ok=True)
        raise CompileError("unsupported CUDA runtime/library function(s) called by the extension: " + ", ".join(bad) +
                           " (kernsim provides the subset in kernelbench/runtime/cudart_api.cpp; docs/kernelbench.md)")


def import_extension(ext: Extension, name: str):
    from .runtime import Runtime
    rt = Runtime._instance
    if rt is None:
        raise RuntimeError("kernsim.kernelbench: load_inline called before the runtime was set up")
    if ext.device_module is not None:
        rt.modules[ext.module_id] = ext.device_module
    spec = importlib.util.spec_from_file_location(name, ext.so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod._kernsim_extension = ext
    rt.extensions.append(ext)
    return mod


def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None, extra_cuda_cflags=None,
                extra_ldflags=None, extra_include_paths=None, build_directory=None, verbose=False, with_cuda=None,
                is_python_module=True, with_pytorch_error_handling=True, keep_intermediates=True, use_pch=False,
                **_ignored):
    """torch.utils.cpp_extension.load_inline, built by kernsim (see the module docstring)."""
    from .runtime import Runtime
    rt = Runtime._instance
    cpp = [cpp_sources] if isinstance(cpp_sources, str) else list(cpp_sources or [])
    cu = [cuda_sources] if isinstance(cuda_sources, str) else list(cuda_sources or [])
    ext = build(name, cpp, cu, functions=functions, extra_cflags=extra_cflags, extra_cuda_cflags=extra_cuda_cflags,
                extra_ldflags=extra_ldflags, extra_include_paths=extra_include_paths,
                arch=rt.opts.arch if rt else "h200", device_file=rt.opts.device_file if rt else None)
    return import_extension(ext, name)


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
         build_directory=None, verbose=False, with_cuda=None, is_python_module=True, **_ignored):
    """torch.utils.cpp_extension.load: the same build from files (.cpp/.cc/.cxx and .cu)."""
    from .runtime import Runtime
    rt = Runtime._instance
    srcs = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    cpp, cu = [], []
    for s in srcs:
        text = Path(s).read_text()
        (cu if str(s).endswith((".cu", ".cuh")) else cpp).append(text)
    inc = list(extra_include_paths or []) + sorted({str(Path(s).resolve().parent) for s in srcs})
    ext = build(name, cpp, cu, functions=None, extra_cflags=extra_cflags, extra_cuda_cflags=extra_cuda_cflags,
                extra_ldflags=extra_ldflags, extra_include_paths=inc,
                arch=rt.opts.arch if rt else "h200", device_file=rt.opts.device_file if rt else None)
    return import_extension(ext, name)
