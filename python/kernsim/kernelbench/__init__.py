"""KernelBench, GPU MODE and AgentKernelArena tasks scored as they are written, on the CPU.

    from kernsim.kernelbench import evaluate
    r = evaluate(open("19_ReLU.py").read(), open("cand.py").read(), arch="h200")
    r["correct"], r["runtime_us"], r["speedup"], r["hacks"]

Each evaluation runs in a child process (``python -m kernsim.kernelbench._worker``) under a
wall-clock and memory limit: a candidate that does not compile, crashes the host code
(segfault) or hangs produces a result with the reason, never an exception here. Inside the
child, kernsim is the GPU (runtime.py): PyTorch's "cuda" is the CPU, load_inline builds the
extension for the simulated part (cpp_extension.py), @triton.jit launches are compiled for it,
and every launch is simulated (functional and timed). docs/kernelbench.md has the details.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RESULT_KEYS = ("compiled", "correct", "correctness_checked", "runtime_us", "ref_runtime_us", "ref_runtime_source",
               "speedup", "sol_us", "launches", "hacks", "error")

# the L2 at each launch's start (kernsim.launch's `cache`): KernelBench's write flush, a read
# flush, or a previous run's
CACHE_MODES = ("cold-dirty", "cold", "warm")

DEFAULTS = {"arch": "h200", "trials": 5, "atol": 1e-2, "rtol": 1e-2, "seed": 42, "cache": "cold-dirty",
            "functional": "auto", "functional_budget": 200_000_000, "launch_time_limit_s": 120.0,
            "time_limit_s": 1800.0, "memory_limit_gb": 48.0}


def _src(x) -> tuple[str, str | None]:
    """(text, file name) of a source given as text or a path."""
    if isinstance(x, os.PathLike) or (isinstance(x, str) and "\n" not in x and x.endswith(".py") and os.path.exists(x)):
        p = Path(x)
        return p.read_text(), p.name
    return str(x), None


def evaluate(ref_src, cand_src, arch: str = "h200", *, baseline: str | None = None, ref_name: str | None = None,
             level: str | None = None, trials: int = 5, atol: float = 1e-2, rtol: float = 1e-2, seed: int = 42,
             cache: str = "cold-dirty", functional: str = "auto", functional_budget: int = 200_000_000,
             launch_time_limit_s: float = 120.0, time_limit_s: float = 1800.0, memory_limit_gb: float | None = 48.0,
             device_file: str | None = None) -> dict:
    """Evaluates candidate ``cand_src`` (a ``ModelNew``) against KernelBench problem ``ref_src``
    (``Model``, ``get_inputs``, ``get_init_inputs``); both are source text or .py paths.

    Returns the issue's JSON object: compiled, correct, correctness_checked, runtime_us (the
    candidate's forward: the sum of its launches, launch overheads included, plus its modelled
    PyTorch operations), ref_runtime_us and ref_runtime_source (``baseline`` table, else the
    simulated ATen ops), speedup, sol_us, launches [{kernel, grid, block, time_us, ...}], hacks
    [{kind, detail}], error, plus notes, arch, cache, wall_s.

    ``functional``: "auto" (every CTA executes unless a launch exceeds ``functional_budget``
    warp instructions, then that launch is sampled), "complete" or "sampled". ``cache``: "cold-dirty"
    (the default, KernelBench's convention: the L2 flushed before each launch by *writing*
    256 MiB, so it starts full of the flush's dirty lines, which the launch writes back; the
    same as "cold" on AMD parts, whose L2s a kernel's end writes back), "cold" (flushed by a
    read: clean) or "warm" (each launch starts with the L2 as a previous run of it left it;
    NVIDIA parts only, an AMD part gives an error naming it). Hacks include ``output_from_torch`` (provenance.py).
    """
    if cache not in CACHE_MODES:
        raise ValueError(f"cache must be 'cold-dirty', 'cold' or 'warm', not {cache!r}")
    if functional not in ("auto", "complete", "sampled"):
        raise ValueError(f"functional must be auto, complete or sampled, not {functional!r}")
    ref_text, ref_file = _src(ref_src)
    cand_text, _ = _src(cand_src)
    req = {"ref_src": ref_text, "cand_src": cand_text, "arch": arch, "baseline": os.path.abspath(baseline) if baseline else None,
           "ref_name": ref_name or ref_file or "", "level": level, "trials": trials, "atol": atol, "rtol": rtol,
           "seed": seed, "cache": cache, "functional": functional, "functional_budget": functional_budget,
           "launch_time_limit_s": launch_time_limit_s, "memory_limit_gb": memory_limit_gb,
           "device_file": os.path.abspath(device_file) if device_file else None}
    return _run_child(req, time_limit_s)


def _run_child(req: dict, time_limit_s: float) -> dict:
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="kernsim_kb_") as d:
        rq, rs, st = Path(d) / "request.json", Path(d) / "result.json", Path(d) / "stage"
        rq.write_text(json.dumps(req))
        env = dict(os.environ, KERNSIM_KB_STAGE_FILE=str(st), PYTHONUNBUFFERED="1")
        pkg_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        log = Path(d) / "log.txt"
        with open(log, "w") as lf:
            p = subprocess.Popen([sys.executable, "-m", "kernsim.kernelbench._worker", str(rq), str(rs)], stdout=lf,
                                 stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=d)
            try:
                rc = p.wait(timeout=time_limit_s)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                rc = None
        stage = st.read_text() if st.exists() else "start"
        if rs.exists():
            res = json.loads(rs.read_text())
        else:
            # the reason a process aborts comes first (terminate called after ...), the stack after it
            text = log.read_text(errors="replace") if log.exists() else ""
            tail = text if len(text) <= 3000 else text[:1200] + "\n[...]\n" + text[-1800:]
            if rc is None:
                why = f"the evaluation did not finish within its {time_limit_s:.0f} s limit (stage: {stage})"
            elif rc < 0:
                why = f"the candidate's process was killed by {signal.Signals(-rc).name} during stage `{stage}`"
            else:
                why = f"the candidate's process exited with status {rc} during stage `{stage}`"
            res = {"compiled": stage not in ("start", "setup", "reference", "compile"), "correct": False,
                   "error": why + (f"\n{tail}" if tail.strip() else "")}
    for k in RESULT_KEYS:
        res.setdefault(k, [] if k in ("launches", "hacks") else None)
    res.setdefault("arch", req.get("arch"))
    res.setdefault("cache", req.get("cache"))
    res["wall_s"] = time.time() - t0
    return res


@dataclass
class KernelExecResult:
    """KernelBench's result type (src/eval.py), filled from an evaluation."""
    compiled: bool = False
    correctness: bool = False
    metadata: dict = field(default_factory=dict)
    runtime: float = -1.0          # milliseconds, as KernelBench reports
    runtime_stats: dict = field(default_factory=dict)
    ref_runtime: float = -1.0
    ref_runtime_stats: dict = field(default_factory=dict)

    @classmethod
    def from_result(cls, r: dict) -> "KernelExecResult":
        md = {k: r[k] for k in ("hacks", "error", "correctness_checked", "launches", "sol_us", "ref_runtime_source",
                                "arch", "cache") if k in r}
        md["hardware"] = f"kernsim:{r.get('arch')}"
        rt = r.get("runtime_us")
        ref = r.get("ref_runtime_us")
        return cls(compiled=bool(r.get("compiled")), correctness=bool(r.get("correct")), metadata=md,
                   runtime=rt / 1000.0 if rt is not None and r.get("correct") else -1.0,
                   runtime_stats={"mean": rt / 1000.0, "std": 0.0, "min": rt / 1000.0, "max": rt / 1000.0,
                                  "num_trials": 1} if rt is not None else {},
                   ref_runtime=ref / 1000.0 if ref is not None else -1.0)


def evaluate_kernelbench(ref_src, cand_src, **kw) -> KernelExecResult:
    """evaluate() seen as KernelBench's KernelExecResult."""
    return KernelExecResult.from_result(evaluate(ref_src, cand_src, **kw))


def evaluate_many(pairs, *, workers: int = 1, backend: str = "threads", **kw) -> list[dict]:
    """evaluate() for [(ref, cand), ...] or [dict(ref_src=..., cand_src=..., **options)], results
    in order. backend "threads": ``workers`` child processes at a time on this machine (each
    evaluation is its own process, so threads only wait); "ray": Ray tasks (RAY_ADDRESS or a
    local instance), one CPU each."""
    jobs = []
    for p in pairs:
        if isinstance(p, dict):
            d = dict(kw)
            d.update(p)
            jobs.append(d)
        else:
            jobs.append(dict(kw, ref_src=p[0], cand_src=p[1]))
    if backend == "ray":
        import ray
        if not ray.is_initialized():
            ray.init(address=os.environ.get("RAY_ADDRESS"), ignore_reinit_error=True, log_to_driver=False)
        remote = ray.remote(num_cpus=1)(_eval_job)
        return ray.get([remote.remote(j) for j in jobs])
    if backend != "threads":
        raise ValueError(f"backend must be 'threads' or 'ray', not {backend!r}")
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(max_workers=max(1, int(workers))) as ex:
        return list(ex.map(_eval_job, jobs))


def _eval_job(job: dict) -> dict:
    job = dict(job)
    ref, cand = job.pop("ref_src"), job.pop("cand_src")
    for k in ("ref", "cand"):
        job.pop(k, None)
    return evaluate(ref, cand, **job)


__all__ = ["evaluate", "evaluate_many", "evaluate_kernelbench", "KernelExecResult", "RESULT_KEYS", "DEFAULTS"]
