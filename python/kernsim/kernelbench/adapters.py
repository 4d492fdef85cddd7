"""Adapters: a GPU MODE problem folder and an AgentKernelArena task, on the same engine.

GPU MODE (gpu-mode/reference-kernels layout): FOLDER/task.yml lists ``files`` (``{name,
source}``: the submission is ``@SUBMISSION@``, the rest paths relative to the folder such as
``../utils.py``; laid out under their names in a fresh directory), ``tests`` and
``benchmarks`` (dicts of generate_input's arguments, seeds included); reference.py defines
``generate_input(**spec)``, ``ref_kernel(data)`` and ``check_implementation(data, output)``
(returning ``(ok, message)``, or a message that is empty when the output is right); the
submission defines ``custom_kernel(data)``. Result: ``{"passed", "tests": [{"spec", "passed",
"message"}], "benchmarks": [{"spec", "time_us", "launches"}], "cache", "error"}``.

AgentKernelArena (AMD-AGI/AgentKernelArena ``tasks/*/config.yaml``): the task's own
compile/correctness/performance commands run with kernsim as the GPU, for the shipped source
files (baseline) and for a candidate in their place; the result has AgentKernelArena's
``task_result.yaml`` fields and its score (0 / 20 compiled / +100 correct / +100 x speedup).
See evaluate_arena.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

import yaml

from . import _run_child, evaluate


def evaluate_gpumode(folder, submission=None, arch: str = "h200", *, cache: str = "cold-dirty",
                     time_limit_s: float = 1800.0, memory_limit_gb: float | None = 48.0,
                     functional: str = "auto") -> dict:
    """A GPU MODE problem folder (reference-kernels layout) and a submission (a path or source
    text; default FOLDER/submission.py). task.yml's ``files`` (``{name, source}``, the
    submission's source ``@SUBMISSION@``, other sources relative to the folder, e.g.
    ``../utils.py``) are laid out in a fresh directory as the GPU MODE runner does, with the
    folder's other Python files (reference.py, task.py) when ``files`` does not list them."""
    folder = Path(folder).resolve()
    task_file = folder / "task.yml"
    task = yaml.safe_load(task_file.read_text()) if task_file.exists() else {}
    if submission is None:
        submission = folder / "submission.py"
    sub_path = Path(str(submission))
    sub = sub_path.read_text() if "\n" not in str(submission) and sub_path.exists() else str(submission)
    req = {"kind": "gpumode", "folder": str(folder), "submission": sub, "files": task.get("files") or [],
           "tests": task.get("tests", []), "benchmarks": task.get("benchmarks", []), "arch": arch, "cache": cache,
           "functional": functional, "memory_limit_gb": memory_limit_gb}
    r = _run_child(req, time_limit_s)
    keep = ("passed", "compiled", "tests", "benchmarks", "cache", "arch", "error", "wall_s")
    out = {k: r.get(k) for k in keep}
    out["passed"] = bool(out["passed"])
    out["tests"] = out["tests"] or []
    out["benchmarks"] = out["benchmarks"] or []
    return out


def _lay_out_gpumode(req: dict) -> Path:
    """The directory the submission runs in: task.yml's files under their names (the GPU MODE
    runner's layout), or the folder itself plus submission.py when task.yml lists none."""
    import shutil
    import tempfile
    folder = Path(req["folder"])
    work = Path(tempfile.mkdtemp(prefix="kernsim_gpumode_"))
    files = req.get("files") or [{"name": "submission.py", "source": "@SUBMISSION@"}]
    listed = {f["name"] for f in files}
    # the folder's own Python files that task.yml does not list (a short task.yml names only the
    # submission) come along under their names
    for f in folder.iterdir():
        if f.is_file() and f.suffix == ".py" and f.name not in listed and not f.name.startswith("submission"):
            shutil.copy(f, work / f.name)
    for f in files:
        name, source = f["name"], f["source"]
        if source == "@SUBMISSION@":
            (work / name).write_text(req["submission"])
            continue
        src = (folder / source).resolve()
        if not src.is_file():
            raise FileNotFoundError(f"task.yml lists {name} from {source}, which is not a file ({src})")
        shutil.copy(src, work / name)
    return work


def _clone_data(data):
    import torch
    if isinstance(data, torch.Tensor):
        return data.clone()
    if isinstance(data, (list, tuple)):
        return type(data)(_clone_data(x) for x in data)
    if isinstance(data, dict):
        return {k: _clone_data(v) for k, v in data.items()}
    return data


def _check(ref, data, out) -> tuple[bool, str]:
    chk = ref.check_implementation(data, out)
    if isinstance(chk, tuple):
        return bool(chk[0]), str(chk[1] or "")
    return not chk, str(chk or "")


def run_gpumode(req: dict) -> dict:
    """In the child: every test checked (on a copy of the data, the check against the original,
    as GPU MODE's eval does), every benchmark timed once every test passed."""
    import importlib
    from .evaluate import _stage
    from .runtime import Options, Runtime, install_torch_patches
    res = {"passed": False, "tests": [], "benchmarks": [], "cache": req.get("cache", "cold-dirty"), "arch": req["arch"],
           "error": None}
    _stage("setup")
    rt = Runtime(Options(arch=req["arch"], functional=req.get("functional", "auto"), cache=res["cache"]))
    install_torch_patches(rt)
    work = _lay_out_gpumode(req)
    sys.path.insert(0, str(work))
    _stage("reference")
    ref = importlib.import_module("reference")
    _stage("compile")
    try:
        fn = importlib.import_module("submission").custom_kernel
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
            out = fn(_clone_data(data))
            r = rt.end()
            errs = [x for x in r["errors"] if not x.startswith("note:")]
            if errs:
                raise RuntimeError("; ".join(errs))
            ok, msg = _check(ref, data, out)
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
                fn(_clone_data(data))
                r = rt.end()
                errs = [x for x in r["errors"] if not x.startswith("note:")]
                if errs:
                    raise RuntimeError("; ".join(errs))
                res["benchmarks"].append({"spec": spec, "time_us": sum(l.time_us for l in r["launches"]),
                                          "launches": [l.to_json() for l in r["launches"]]})
            except Exception as e:  # noqa: BLE001
                rt.end()
                res["benchmarks"].append({"spec": spec, "time_us": None, "error": f"{type(e).__name__}: {e}"})
    return res


ARENA_TYPES = ("torch2hip", "torch2cuda", "hip2hip", "triton2triton", "cuda2cuda", "triton_geak")
_LATENCY_RE = re.compile(r"^(?:GEAK_)?RESULT_LATENCY_MS\s*[=:]\s*([0-9.eE+-]+)\s*$", re.M)


def _arena_score(compiled: bool, correct: bool, speedup) -> float:
    """AgentKernelArena's score: 0 not compiled, 20 compiled, +100 correct, +100 x speedup."""
    if not compiled:
        return 0.0
    if not correct:
        return 20.0
    return 120.0 + (100.0 * speedup if speedup and speedup > 0 and math.isfinite(speedup) else 0.0)


def evaluate_arena(config, candidate=None, arch: str = "h200", *, cache: str = "cold",
                   time_limit_s: float | None = None, memory_limit_gb: float | None = 48.0,
                   functional: str = "auto", **kw) -> dict:
    """An AgentKernelArena task (``config.yaml`` as the repository defines it: ``task_type``,
    ``source_file_path``, ``harness_path``, ``compile_command``, ``correctness_command``,
    ``performance_command``, their ``*_timeout`` and ``target_kernel_functions``) scored on
    the part. The baseline is the task's source files as shipped; ``candidate`` (a file that
    replaces ``source_file_path[0]``, or a folder holding replacements for the source files)
    is what an agent left; without it the baseline is scored against itself.

    Each command runs in its own kernsim child process (Python commands only: ``python3
    SCRIPT ARGS``, ``-c CODE``, ``-m MODULE``) in a copy of the task folder, with kernsim as
    the GPU; correctness is the correctness commands' exit status, the time is the
    ``RESULT_LATENCY_MS=`` (or ``GEAK_RESULT_LATENCY_MS=``) the performance command prints,
    read off kernsim's simulated clock. Result: AgentKernelArena's ``task_result.yaml`` fields
    (pass_compilation, pass_correctness, base_execution_time, best_optimized_execution_time in
    ms, speedup_ratio, benchmark_method_consistent, score) plus what kernsim adds.

    kernsim's own short form (``baseline``: a KernelBench problem, ``candidate``: a ModelNew
    file) is scored with evaluate() and the same score.
    """
    path = Path(config).resolve()
    cfg = yaml.safe_load(path.read_text()) or {}
    if "task_type" not in cfg:
        raise ValueError(f"{path}: `task_type` is missing")
    if cfg["task_type"] not in ARENA_TYPES:
        raise ValueError(f"{path}: task_type `{cfg['task_type']}` is not one of {', '.join(ARENA_TYPES)}")
    if "baseline" in cfg and "candidate" in cfg:
        cand = Path(candidate).resolve() if candidate else path.parent / cfg["candidate"]
        r = evaluate(path.parent / cfg["baseline"], cand, arch, cache=cfg.get("cache", cache),
                     **({"time_limit_s": time_limit_s} if time_limit_s else {}), memory_limit_gb=memory_limit_gb,
                     functional=functional, **kw)
        r["score"] = _arena_score(r["compiled"], r["correct"], r.get("speedup"))
        r["task_type"] = cfg["task_type"]
        return r
    for k in ("source_file_path", "correctness_command", "performance_command"):
        if not cfg.get(k):
            raise ValueError(f"{path}: `{k}` is missing (an AgentKernelArena task names its source files and its "
                             f"correctness and performance commands)")
    sources = [str(x) for x in _as_list(cfg["source_file_path"])]
    opts = {"arch": arch, "cache": cache, "functional": functional, "memory_limit_gb": memory_limit_gb}
    res = {"task_type": cfg["task_type"], "arch": arch, "cache": cache, "target_kernel_functions":
           cfg.get("target_kernel_functions") or [], "error": None}
    # the baseline's result is kept for this process (one task, many candidates)
    key = (str(path), _task_digest(path.parent), json.dumps(opts, sort_keys=True))
    base = _BASELINES.get(key)
    if base is None:
        base = _BASELINES[key] = _arena_role(path.parent, cfg, sources, None, opts, time_limit_s)
    if candidate is None:
        cand = base
    else:
        cand = _arena_role(path.parent, cfg, sources, Path(candidate).resolve(), opts, time_limit_s)
    res["baseline"], res["candidate"] = base, cand
    res["pass_compilation"] = cand["compiled"]
    res["pass_correctness"] = cand["compiled"] and cand["correct"]
    res["base_execution_time"] = base.get("latency_ms")
    res["best_optimized_execution_time"] = cand.get("latency_ms") if res["pass_correctness"] else None
    ok_times = res["base_execution_time"] and res["best_optimized_execution_time"]
    res["speedup_ratio"] = res["base_execution_time"] / res["best_optimized_execution_time"] if ok_times else None
    # both times come from the same simulated clock, through the same harness
    res["benchmark_method_consistent"] = bool(ok_times)
    res["score"] = _arena_score(res["pass_compilation"], res["pass_correctness"], res["speedup_ratio"])
    res["error"] = cand.get("error") or (base.get("error") and f"baseline: {base['error']}")
    return res


_BASELINES: dict = {}


def _task_digest(task_dir: Path) -> str:
    import hashlib
    h = hashlib.sha256()
    for f in sorted(task_dir.rglob("*")):
        if f.is_file() and f.suffix in (".py", ".yaml", ".yml", ".json", ".cu", ".hip", ".cpp", ".h"):
            h.update(str(f.relative_to(task_dir)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _arena_role(task_dir: Path, cfg: dict, sources: list, candidate: Path | None, opts: dict,
                time_limit_s: float | None) -> dict:
    """Compile, correctness and performance commands of one role (the baseline as shipped, or
    the task with the candidate's files in place), each in its own child."""
    import shutil
    import tempfile
    work = Path(tempfile.mkdtemp(prefix="kernsim_arena_"))
    shutil.copytree(task_dir, work, dirs_exist_ok=True)
    if candidate is not None:
        if candidate.is_dir():
            for s in sources:
                if (candidate / s).exists():
                    shutil.copy(candidate / s, work / s)
        else:
            shutil.copy(candidate, work / sources[0])
    out = {"compiled": False, "correct": False, "latency_ms": None, "error": None, "commands": []}

    def run(kind: str) -> bool:
        limit = float(cfg.get(f"{kind}_timeout") or time_limit_s or 1800.0)
        for cmd in _as_list(cfg.get(f"{kind}_command") or []):
            req = dict(opts, kind="arena_cmd", command=str(cmd), cwd=str(work))
            r = _run_child(req, limit)
            out["commands"].append({"kind": kind, "command": str(cmd), "rc": r.get("rc"), "launches": r.get("launches"),
                                    "memo_hits": r.get("memo_hits"), "stdout_tail": (r.get("stdout") or "")[-1500:],
                                    "error": r.get("error")})
            if r.get("rc") != 0:
                out["error"] = f"{kind} command `{cmd}` failed: " + (r.get("error") or f"exit status {r.get('rc')}")
                return False
            out[f"{kind}_stdout"] = r.get("stdout") or ""
        return True

    out["compiled"] = run("compile")
    if not out["compiled"]:
        return out
    out["correct"] = run("correctness")
    if not out["correct"]:
        return out
    if run("performance"):
        hits = _LATENCY_RE.findall(out.pop("performance_stdout", ""))
        if hits:
            out["latency_ms"] = float(hits[-1])
        else:
            out["error"] = "the performance command printed no RESULT_LATENCY_MS= line"
    out.pop("compile_stdout", None)
    out.pop("correctness_stdout", None)
    return out


def run_arena_command(req: dict) -> dict:
    """In the child: one task command (Python only) with kernsim as the GPU; its exit status,
    its standard output, and how many launches it simulated."""
    import contextlib
    import io
    import os
    import runpy
    import shlex
    from .runtime import Options, Runtime, install_torch_patches
    argv = shlex.split(req["command"])
    if not argv or Path(argv[0]).name not in ("python", "python3", Path(sys.executable).name):
        return {"rc": 5, "error": f"`{req['command']}` is not a Python command: kernsim runs a task's Python "
                                  f"commands (python3 SCRIPT, -c, -m) in its own process, not shell commands or "
                                  f"GPU toolchains"}
    rt = Runtime(Options(arch=req["arch"], functional=req.get("functional", "auto"), cache=req.get("cache", "cold"),
                         memo_repeats=True))
    install_torch_patches(rt)
    rt.begin(fill_nan=False)
    os.chdir(req["cwd"])
    sys.path.insert(0, req["cwd"])
    buf = io.StringIO()
    rc, err = 0, None
    try:
        with contextlib.redirect_stdout(buf):
            if argv[1:2] == ["-c"]:
                sys.argv = ["-c"] + argv[3:]
                exec(compile(argv[2], "<string>", "exec"), {"__name__": "__main__"})  # the task's own command
            elif argv[1:2] == ["-m"]:
                sys.argv = [argv[2]] + argv[3:]
                runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
            else:
                sys.argv = argv[1:]
                runpy.run_path(argv[1], run_name="__main__")
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # noqa: BLE001 - the task's failure is a result
        import traceback
        rc, err = 1, f"{type(e).__name__}: {e}\n" + traceback.format_exc(limit=4)
    r = rt.end()
    errs = [x for x in r["errors"] if not x.startswith("note:")]
    if errs and not err and rc != 0:
        err = "; ".join(errs)
    return {"rc": rc, "stdout": buf.getvalue()[-20000:], "error": err, "launches": len(r["launches"]),
            "memo_hits": rt.memo_hits}


def main(argv) -> int:
    kind, rest = argv[0], argv[1:]
    ap = argparse.ArgumentParser(prog=f"python3 -m kernsim.kernelbench {kind}")
    if kind == "gpumode":
        ap.add_argument("folder")
        ap.add_argument("submission", nargs="?", help="default: FOLDER/submission.py")
    else:
        ap.add_argument("config")
        ap.add_argument("candidate", nargs="?", help="the file (or folder) an agent left in place of the source file")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--cache", choices=["cold-dirty", "cold", "warm"], default=None,
                    help="default: cold-dirty for GPU MODE (its harness flushes by writing), cold for AgentKernelArena")
    a = ap.parse_args(rest)
    if kind == "gpumode":
        r = evaluate_gpumode(a.folder, a.submission, a.arch, cache=a.cache or "cold-dirty")
    else:
        r = evaluate_arena(a.config, a.candidate, a.arch, cache=a.cache or "cold")
    print(json.dumps(r, default=str))
    return 0
