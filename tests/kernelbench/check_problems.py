#!/usr/bin/env python3
"""Checks the KernelBench-format set without a GPU: the manifest against the files, every reference
run on CPU torch (output shape as the manifest states), every candidate's Python imported (with
load_inline replaced by a stand-in that checks the named functions are defined in the CUDA source),
and, on request, the CUDA sources compiled by nvcc for sm_90a (--nvcc) and the Triton kernels by
Triton for sm_90a (--triton).

  python3 tests/kernelbench/check_problems.py                 # manifest, references, imports
  python3 tests/kernelbench/check_problems.py --nvcc --triton # plus both compilers (minutes)

nvcc: the CUDA candidates are compiled in a few combined translation units, each candidate in its own
namespace (its #defines undone after it), so torch/extension.h is parsed once per unit rather than
once per candidate -- on this 2-core machine one candidate alone takes ~90 s. A candidate whose
expected verdict is compile_error is compiled alone and must fail.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")
FLOAT_ARGS = {"eps", "scale", "inv_n"}


def load_manifest():
    with open(MANIFEST) as f:
        return json.load(f)


def check_manifest(m) -> list[str]:
    """Structural problems of the manifest, as messages (empty when consistent)."""
    errs = []
    conv = m["conventions"]
    verdicts, hacks = set(conv["verdicts"]), set(conv["hacks"])
    ids = set()
    if len(m["problems"]) < 30:
        errs.append(f"only {len(m['problems'])} problems (need >= 30)")
    for p in m["problems"]:
        if not os.path.isfile(os.path.join(HERE, p["file"])):
            errs.append(f"{p['id']}: missing {p['file']}")
        if len(p["candidates"]) < 2:
            errs.append(f"{p['id']}: {len(p['candidates'])} candidates (need >= 2)")
        if not any(c["expected"] == "correct" for c in p["candidates"]):
            errs.append(f"{p['id']}: no candidate expected correct")
        for c in p["candidates"]:
            if c["id"] in ids:
                errs.append(f"duplicate id {c['id']}")
            ids.add(c["id"])
            if not os.path.isfile(os.path.join(HERE, c["file"])):
                errs.append(f"{c['id']}: missing {c['file']}")
            if c["expected"] not in verdicts:
                errs.append(f"{c['id']}: unknown verdict {c['expected']}")
            if (c["expected"] == "hack") != (c["hack"] is not None) or (c["hack"] and c["hack"] not in hacks):
                errs.append(f"{c['id']}: hack field {c['hack']!r} does not fit verdict {c['expected']}")
            if c["lang"] not in ("cuda", "triton"):
                errs.append(f"{c['id']}: lang {c['lang']}")
            if c["expected"] == "correct" and c["kernelbench_correct"] is not True:
                errs.append(f"{c['id']}: correct but kernelbench_correct={c['kernelbench_correct']}")
            if c["expected"] == "incorrect" and c["kernelbench_correct"] is not False:
                errs.append(f"{c['id']}: incorrect but kernelbench_correct={c['kernelbench_correct']}")
    return errs


def load_module(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_reference(p, seed: int = 0):
    """Runs a reference on CPU torch; returns its output shape (list)."""
    import torch
    mod = load_module(os.path.join(HERE, p["file"]), "kbref_" + re.sub(r"\W", "_", p["id"]))
    torch.manual_seed(seed)
    init = mod.get_init_inputs()
    torch.manual_seed(seed)
    model = mod.Model(*init)
    torch.manual_seed(seed)
    inputs = mod.get_inputs()
    with torch.no_grad():
        out = model(*inputs)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"{p['id']}: forward returned {type(out).__name__}, not a tensor")
    if not torch.isfinite(out).all():
        raise ValueError(f"{p['id']}: reference output has non-finite values on CPU")
    return list(out.shape)


def module_strings(path: str) -> dict[str, str]:
    """Module-level NAME = "string" assignments of a candidate file (its CUDA and C++ sources)."""
    tree = ast.parse(open(path).read(), path)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value.value
    return out


@contextlib.contextmanager
def stub_load_inline(seen: list):
    """Replaces torch.utils.cpp_extension.load_inline by a stand-in that checks every function it is asked
    to bind is defined in the CUDA/C++ sources and returns an object with those names."""
    import torch.utils.cpp_extension as ce
    real = ce.load_inline

    def fake(name, cpp_sources, cuda_sources=None, functions=None, **kw):
        src = "\n".join(cpp_sources if isinstance(cpp_sources, list) else [cpp_sources])
        cu = "\n".join(cuda_sources if isinstance(cuda_sources, list) else [cuda_sources or ""])
        for fn in functions or []:
            if not re.search(r"\b%s\s*\(" % re.escape(fn), cu) or not re.search(r"\b%s\s*\(" % re.escape(fn), src):
                raise ValueError(f"load_inline({name}): function {fn} not declared in cpp_sources and defined in "
                                 "cuda_sources")
        seen.append(name)
        ns = types.SimpleNamespace()
        for fn in functions or []:
            setattr(ns, fn, lambda *a, _fn=fn, **k: (_ for _ in ()).throw(RuntimeError(f"stub {_fn} called")))
        return ns

    ce.load_inline = fake
    try:
        yield
    finally:
        ce.load_inline = real


def import_candidate(c, ext_names: list, need_model_new: bool = True):
    """Imports a candidate with load_inline stubbed; returns the module (it must define ModelNew)."""
    with stub_load_inline(ext_names):
        mod = load_module(os.path.join(HERE, c["file"]), "kbcand_" + re.sub(r"\W", "_", c["id"]))
    if need_model_new and not hasattr(mod, "ModelNew"):
        raise AttributeError(f"{c['id']}: no class ModelNew")
    return mod


# ------------------------------------------------------------------------------ nvcc
def torch_includes() -> list[str]:
    from torch.utils.cpp_extension import include_paths
    import sysconfig
    return [f"-I{p}" for p in include_paths()] + [f"-I{sysconfig.get_paths()['include']}"]


NVCC_FLAGS = ["-c", "-arch=sm_90a", "-O3", "-std=c++20", "--expt-relaxed-constexpr", "-DTORCH_EXTENSION_NAME=kbcheck",
              "-DTORCH_API_INCLUDE_EXTENSION_H", "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
              "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--compiler-options", "-fPIC"]


def combined_unit(cands) -> str:
    parts = ["#include <torch/extension.h>", "#include <cuda_runtime.h>", "#include <ATen/cuda/CUDAContext.h>", ""]
    for c in cands:
        s = module_strings(os.path.join(HERE, c["file"]))
        body = s["cuda_source"]
        body = "\n".join(ln for ln in body.splitlines() if not ln.startswith("#include"))
        defines = re.findall(r"^#define\s+(\w+)", body, re.M)
        ns = re.sub(r"\W", "_", c["id"])
        parts.append(f"// ---- {c['id']}\nnamespace {ns} {{\n{body}\n{s['cpp_source']}\n}}  // namespace {ns}")
        parts += [f"#undef {d}" for d in defines]
    return "\n".join(parts) + "\n"


def nvcc_check(m, units: int = 4, jobs: int = 1, log=print, ptx_only: bool = False, only_units=None) -> list[str]:
    cuda = [c for p in m["problems"] for c in p["candidates"] if c["lang"] == "cuda"]
    good = [c for c in cuda if c["expected"] != "compile_error"]
    bad = [c for c in cuda if c["expected"] == "compile_error"]
    inc = torch_includes()
    tmp = tempfile.mkdtemp(prefix="kb_nvcc_")
    jobs_list = []
    for u in range(units):
        if only_units is not None and u not in only_units:
            continue
        chunk = good[u::units]
        path = os.path.join(tmp, f"unit{u}.cu")
        open(path, "w").write(combined_unit(chunk))
        jobs_list.append((path, chunk, True))
    for c in bad:
        path = os.path.join(tmp, re.sub(r"\W", "_", c["id"]) + ".cu")
        open(path, "w").write(combined_unit([c]))
        jobs_list.append((path, [c], False))
    errs = []
    procs = []
    pending = list(jobs_list)
    while pending or procs:
        while pending and len(procs) < jobs:
            path, chunk, should_pass = pending.pop(0)
            flags = [f for f in NVCC_FLAGS if f not in ("-c", "--compiler-options", "-fPIC")] + ["-ptx"] \
                if ptx_only else NVCC_FLAGS
            cmd = ["nvcc", *flags, *inc, path, "-o", path + (".ptx" if ptx_only else ".o")]
            procs.append((subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
                          path, chunk, should_pass))
        p0 = procs.pop(0)
        out = p0[0].communicate()[0]
        proc, path, chunk, should_pass = p0
        ok = proc.returncode == 0
        ids = ", ".join(c["id"] for c in chunk)
        log(f"nvcc {'ok  ' if ok else 'FAIL'} {os.path.basename(path)}: {len(chunk)} candidate(s)")
        if ok != should_pass:
            errs.append(f"nvcc {'accepted' if ok else 'rejected'} {ids} (expected "
                        f"{'success' if should_pass else 'failure'}): {out[-3000:]}")
    return errs


# ------------------------------------------------------------------------------ triton
def triton_check(m, log=print) -> list[str]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction
    errs = []
    for p in m["problems"]:
        for c in p["candidates"]:
            if c["lang"] != "triton":
                continue
            mod = import_candidate(c, [], need_model_new="ModelNew" in open(os.path.join(HERE, c["file"])).read())
            kernels = {n: v for n, v in vars(mod).items() if isinstance(v, JITFunction)}
            for kname, fn in kernels.items():
                ce = dict(c["triton_constexprs"].get(kname, {}))
                num_warps = ce.pop("num_warps", 4)
                names = list(fn.arg_names)
                cexpr_names = [names[i] for i in fn.constexprs]
                sig = {}
                for n in names:
                    if n in cexpr_names:
                        sig[n] = "constexpr"
                    elif n.endswith("_ptr"):
                        sig[n] = "*fp32"
                    elif n in FLOAT_ARGS:
                        sig[n] = "fp32"
                    else:
                        sig[n] = "i32"
                missing = [n for n in cexpr_names if n not in ce]
                if missing:
                    errs.append(f"{c['id']}: manifest gives no value for constexpr {missing} of {kname}")
                    continue
                try:
                    triton.compile(ASTSource(fn, sig, constexprs=ce), target=GPUTarget("cuda", 90, 32),
                                   options={"num_warps": num_warps})
                    ok, msg = True, ""
                except Exception as e:  # noqa: BLE001 -- Triton's own compilation errors
                    ok, msg = False, f"{type(e).__name__}: {str(e)[-400:]}"
                should = c["expected"] != "compile_error"
                log(f"triton {'ok  ' if ok else 'FAIL'} {c['id']}:{kname}")
                if ok != should:
                    errs.append(f"{c['id']}:{kname}: triton {'compiled' if ok else 'failed'} (expected "
                                f"{'success' if should else 'failure'}) {msg}")
    return errs


EXTRA_TRITON = [  # (folder, file, {kernel: constexprs}, must compile)
    ("gpumode/softmax_py", "submission.py", {"softmax_row_kernel": {"BLOCK": 1024}}, True),
    ("gpumode/softmax_py", "solutions/wrong/no_max_shift.py", {"softmax_half_kernel": {"BLOCK": 1024}}, True),
    ("agentkernelarena/triton2triton/rmsnorm_kernel", "kernel.py", {"rmsnorm_kernel": {"BLOCK": 256}}, True),
    ("agentkernelarena/triton2triton/rmsnorm_kernel", "candidates/kernel_single_pass.py",
     {"rmsnorm_kernel": {"BLOCK": 2048, "num_warps": 8}}, True),
    ("agentkernelarena/triton2triton/rmsnorm_kernel", "candidates/kernel_wrong_eps.py",
     {"rmsnorm_kernel": {"BLOCK": 2048, "num_warps": 8}}, True),
]


def triton_check_extra(log=print) -> list[str]:
    """The GPU MODE submissions and the AgentKernelArena kernels, compiled for sm_90a like the set's."""
    errs = []
    for folder, rel, ces, _ in EXTRA_TRITON:
        d = os.path.join(HERE, folder)
        sys.path[:0] = [d, os.path.dirname(d)]
        try:
            for m in ("task", "utils"):
                sys.modules.pop(m, None)
            fake = {"id": f"{folder}/{rel}", "file": os.path.join(folder, rel), "lang": "triton",
                    "expected": "correct", "triton_constexprs": ces}
            errs += triton_check({"problems": [{"candidates": [fake]}]}, log=log)
        finally:
            del sys.path[:2]
            for m in ("task", "utils"):
                sys.modules.pop(m, None)
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nvcc", action="store_true", help="compile every CUDA candidate with nvcc for sm_90a")
    ap.add_argument("--triton", action="store_true", help="compile every Triton kernel for sm_90a")
    ap.add_argument("--units", type=int, default=4, help="combined nvcc translation units")
    ap.add_argument("--jobs", type=int, default=1, help="nvcc processes at once")
    ap.add_argument("--ptx", action="store_true", help="with --nvcc: nvcc -ptx (front end and device code, no host "
                    "g++ pass; about half the time)")
    ap.add_argument("--unit", type=int, action="append", help="with --nvcc: only these combined units (0-based)")
    args = ap.parse_args()
    m = load_manifest()
    errs = check_manifest(m)
    n_c = 0
    for p in m["problems"]:
        shape = run_reference(p)
        if shape != p["output_shape"]:
            errs.append(f"{p['id']}: reference output shape {shape}, manifest says {p['output_shape']}")
        for c in p["candidates"]:
            import_candidate(c, [])
            n_c += 1
    print(f"{len(m['problems'])} problems, {n_c} candidates: manifest, references and imports checked")
    if args.triton:
        errs += triton_check(m) + triton_check_extra()
    if args.nvcc:
        errs += nvcc_check(m, args.units, args.jobs, ptx_only=args.ptx, only_units=args.unit)
    for e in errs:
        print("ERROR:", e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
