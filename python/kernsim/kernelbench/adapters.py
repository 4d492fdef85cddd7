"""Adapters: a GPU MODE problem folder and an AgentKernelArena task, on the same engine.

GPU MODE (reference-kernels layout): FOLDER/reference.py defines ``generate_input(**spec)``,
``ref_kernel(data)`` and ``check_implementation(data, output)`` (returning ``(ok, message)``,
or a message that is empty when the output is right); FOLDER/task.yml lists ``tests`` and
``benchmarks`` (dicts of generate_input's arguments, seeds included). The submission defines
``custom_kernel(data)``. Result: ``{"passed", "tests": [{"spec", "passed", "message"}],
"benchmarks": [{"spec", "time_us", "launches"}], "cache", "error"}``.

AgentKernelArena: a ``config.yaml`` with ``task_type`` (torch2hip, torch2cuda, hip2hip,
triton2triton), ``baseline`` (a KernelBench-format file: Model, get_inputs, get_init_inputs)
and ``candidate`` (ModelNew), paths relative to the file. Score: 0 when it does not compile,
20 when it compiles, +100 when correct, +100 x speedup (speedup over the baseline, both
simulated). Result: the KernelBench result plus ``score`` and ``task_type``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from . import _run_child, evaluate


def evaluate_gpumode(folder, submission, arch: str = "h200", *, cache: str = "cold", time_limit_s: float = 1800.0,
                     memory_limit_gb: float | None = 48.0, functional: str = "auto") -> dict:
    folder = Path(folder).resolve()
    task = yaml.safe_load((folder / "task.yml").read_text()) if (folder / "task.yml").exists() else {}
    sub = Path(submission).read_text() if Path(str(submission)).exists() else str(submission)
    req = {"kind": "gpumode", "folder": str(folder), "submission": sub, "tests": task.get("tests", []),
           "benchmarks": task.get("benchmarks", []), "arch": arch, "cache": cache, "functional": functional,
           "memory_limit_gb": memory_limit_gb}
    r = _run_child(req, time_limit_s)
    keep = ("passed", "compiled", "tests", "benchmarks", "cache", "arch", "error", "wall_s")
    out = {k: r.get(k) for k in keep}
    out["passed"] = bool(out["passed"])
    out["tests"] = out["tests"] or []
    out["benchmarks"] = out["benchmarks"] or []
    return out


def run_gpumode(req: dict) -> dict:
    """In the child: every test checked, every benchmark timed."""
    import torch
    from .evaluate import _load_module, _stage
    from .runtime import Options, Runtime, install_torch_patches
    res = {"passed": False, "tests": [], "benchmarks": [], "cache": req.get("cache", "cold"), "arch": req["arch"],
           "error": None}
    if res["cache"] != "cold":
        res["error"] = "cache: warm is not modelled (kernsim times each launch with a cold L2); use cold"
        return res
    _stage("setup")
    rt = Runtime(Options(arch=req["arch"], functional=req.get("functional", "auto")))
    install_torch_patches(rt)
    sys.path.insert(0, req["folder"])
    _stage("reference")
    ref = _load_module((Path(req["folder"]) / "reference.py").read_text(), "reference")
    _stage("compile")
    try:
        sub = _load_module(req["submission"], "submission")
        fn = sub.custom_kernel
    except Exception as e:  # noqa: BLE001
        res["error"] = f"compile: {type(e).__name__}: {e}"
        return res
    res["compiled"] = True
    _stage("run")
    ok_all = True
    for spec in req["tests"]:
        data = ref.generate_input(**spec)
        rt.begin(fill_nan=True)
        try:
            out = fn(data)
            r = rt.end()
            errs = [x for x in r["errors"] if not x.startswith("note:")]
            if errs:
                raise RuntimeError("; ".join(errs))
            chk = ref.check_implementation(ref.generate_input(**spec), out)
            ok, msg = (chk if isinstance(chk, tuple) else (not chk, chk or ""))
        except Exception as e:  # noqa: BLE001
            rt.end()
            ok, msg = False, f"{type(e).__name__}: {e}"
        res["tests"].append({"spec": spec, "passed": bool(ok), "message": str(msg)})
        ok_all &= bool(ok)
    res["passed"] = ok_all
    if ok_all:
        for spec in req["benchmarks"]:
            data = ref.generate_input(**spec)
            rt.begin(fill_nan=True)
            try:
                fn(data)
                r = rt.end()
                res["benchmarks"].append({"spec": spec, "time_us": sum(l.time_us for l in r["launches"]),
                                          "launches": [l.to_json() for l in r["launches"]]})
            except Exception as e:  # noqa: BLE001
                rt.end()
                res["benchmarks"].append({"spec": spec, "time_us": None, "error": f"{type(e).__name__}: {e}"})
    return res


def evaluate_arena(config, arch: str = "h200", **kw) -> dict:
    path = Path(config).resolve()
    cfg = yaml.safe_load(path.read_text())
    for k in ("task_type", "baseline", "candidate"):
        if k not in cfg:
            raise ValueError(f"{path}: `{k}` is missing (task_type, baseline, candidate)")
    if cfg["task_type"] not in ("torch2hip", "torch2cuda", "hip2hip", "triton2triton", "cuda2cuda"):
        raise ValueError(f"{path}: task_type `{cfg['task_type']}` is not one of torch2hip, torch2cuda, hip2hip, "
                         f"triton2triton, cuda2cuda")
    base = path.parent / cfg["baseline"]
    cand = path.parent / cfg["candidate"]
    r = evaluate(base, cand, arch, cache=cfg.get("cache", kw.pop("cache", "cold")), **kw)
    score = 0.0
    if r["compiled"]:
        score = 20.0
        if r["correct"]:
            score += 100.0
            if r.get("speedup"):
                score += 100.0 * r["speedup"]
    r["score"] = score
    r["task_type"] = cfg["task_type"]
    return r


def main(argv) -> int:
    kind, rest = argv[0], argv[1:]
    ap = argparse.ArgumentParser(prog=f"python3 -m kernsim.kernelbench {kind}")
    if kind == "gpumode":
        ap.add_argument("folder")
        ap.add_argument("submission")
    else:
        ap.add_argument("config")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--cache", choices=["cold", "warm"], default="cold")
    a = ap.parse_args(rest)
    if kind == "gpumode":
        r = evaluate_gpumode(a.folder, a.submission, a.arch, cache=a.cache)
    else:
        r = evaluate_arena(a.config, a.arch, cache=a.cache)
    print(json.dumps(r, default=str))
    return 0
