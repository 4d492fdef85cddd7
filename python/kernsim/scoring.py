"""score() and score_many(): correctness plus speed for a candidate kernel against a reference —
the reward of an RL loop that trains models to write kernels. docs/python.md describes the task
format and every guard against reward hacking; in short:

* only device code is compiled and simulated: a candidate is *data* (source text, kernel name,
  launch shape as numbers or arithmetic expressions over the problem size, argument names), and
  no candidate Python or host code runs in the scoring process;
* both kernels run functionally on small inputs with every output buffer poisoned first (NaN for
  floats; two runs with different byte patterns for integers), and every element is compared
  with a per-dtype tolerance; NaN never passes;
* the timed run at the real size is checked too (``check_timed_outputs``), so a kernel that
  skips work when the problem is large gains nothing;
* every launch is bounds-checked (an out-of-bounds access is an error) and limited in warp
  instructions (a multiple of the reference's) and in wall time;
* nothing is cached by name: compiles are cached by content hash, and the simulation is
  deterministic, so scoring a candidate once or a thousand times gives the same result.
"""

from __future__ import annotations

import ast
import dataclasses
import concurrent.futures
import json
import math
import operator
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from . import _core
from .core import DEFAULT_ARCH, Kernel, Module, _PreparedLaunch, _module_from_desc, device_info, resolve_source
from .errors import KernsimError, error_from
from .types import Scalar, is_float_dtype

# (rtol, atol) by buffer dtype; an element passes when |got - want| <= atol + rtol * |want|.
DEFAULT_TOLERANCE = {
    "float64": (1e-9, 1e-12),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
}
INT_POISONS = (0x5A, 0xA5)  # byte patterns: an unwritten integer element keeps one of them

# ---------------------------------------------------------------------------------------------
# Safe arithmetic for launch shapes and scalar arguments given as strings: numbers, names from
# the problem size and the scalar inputs, + - * // % / **, unary -, cdiv(), min(), max(), tuples.

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod, ast.Div: operator.truediv, ast.Pow: operator.pow}
_FUNCS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def evaluate(expr: str, env: dict) -> Any:
    """Evaluates a launch-shape expression such as ``"(cdiv(n, 256), 1)"`` over ``env``."""
    if len(expr) > 500:
        raise ValueError(f"expression too long ({len(expr)} characters)")
    tree = ast.parse(expr, mode="eval")

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise ValueError(f"unknown name `{node.id}` in `{expr}` (known: {', '.join(sorted(env))})")
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and (abs(b) > 64 or abs(a) > 2**32):
                raise ValueError(f"exponent too large in `{expr}`")
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(ev(e) for e in node.elts)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                and not node.keywords):
            return _FUNCS[node.func.id](*[ev(a) for a in node.args])
        raise ValueError(f"`{expr}`: only numbers, size names, + - * / // % **, cdiv/min/max and tuples are allowed")

    v = ev(tree)
    if isinstance(v, int) and abs(v) > 2**64:
        raise ValueError(f"`{expr}` evaluates to an integer out of range")
    return v


# ---------------------------------------------------------------------------------------------
# Kernel specs


@dataclass
class KernelSpec:
    """What `candidate` and `reference` are (docs/python.md, "The task format").

    source: CUDA/HIP/PTX/LLVM/Triton text or a path; lang: cuda | hip | ptx | llvm | amdgcn |
    triton (None: inferred by kernsim.infer_lang, `@triton.jit` text included; a CUDA source
    scored on an AMD part is ported, its 32-lane-warp assumptions in the result's `warnings`); kernel: the kernel's name; grid, block: int, tuple (of ints or expressions) or an
    expression string over the problem size; args: one entry per kernel parameter: an input name,
    an expression string, a number, a kernsim.i32(...)-style scalar or None (null pointer);
    dynamic_shared_bytes: int or expression. Triton only: num_warps, num_stages, constexprs
    (name -> value or expression), and block is implied by num_warps. A trusted spec (the
    reference, or trusted=True) may also use Python callables f(size, inputs) for any of them.
    """

    source: Any
    kernel: str | None = None
    grid: Any = 1
    block: Any = None
    args: Sequence = ()
    lang: str | None = None
    dynamic_shared_bytes: Any = 0
    num_warps: int = 4
    num_stages: int = 3
    constexprs: dict = field(default_factory=dict)
    flops: Any = None
    min_bytes: Any = None

    @classmethod
    def of(cls, d, role: str, trusted: bool) -> "KernelSpec":
        if isinstance(d, KernelSpec):
            spec = d
        elif isinstance(d, dict):
            unknown = set(d) - set(cls.__dataclass_fields__)
            if unknown:
                raise ValueError(f"{role}: unknown keys {sorted(unknown)} (allowed: {sorted(cls.__dataclass_fields__)})")
            spec = cls(**d)
        else:
            raise TypeError(f"{role}: a dict (source, kernel, grid, block, args, ...) is required, got {type(d).__name__}")
        if not trusted:
            for name in ("source", "kernel", "grid", "block", "args", "dynamic_shared_bytes", "constexprs", "flops",
                         "min_bytes"):
                if _has_callable(getattr(spec, name)):
                    raise TypeError(f"{role}.{name}: callables are not accepted from an untrusted candidate "
                                    f"(use numbers or expression strings such as \"cdiv(n, 256)\"); "
                                    f"pass trust_candidate=True for your own code")
        if spec.lang is None:
            from .core import infer_lang
            try:
                spec = dataclasses.replace(spec, lang=infer_lang(spec.source))
            except (TypeError, ValueError):
                pass  # resolve_source names the problem
        if spec.lang != "triton" and spec.block is None:
            raise ValueError(f"{role}: `block` is required (except for Triton kernels, where num_warps sets it)")
        return spec


def _has_callable(v) -> bool:
    if callable(v) and not isinstance(v, (type, Scalar)):
        return True
    if isinstance(v, dict):
        return any(_has_callable(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return any(_has_callable(x) for x in v)
    return False


def _env(size: dict, inputs: dict) -> dict:
    env = dict(size)
    for k, v in inputs.items():
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            env[k] = v.item() if isinstance(v, np.generic) else v
        elif isinstance(v, Scalar):
            env[k] = v.value
    return env


def _value(v, size, inputs, what):
    if callable(v) and not isinstance(v, Scalar):
        return v(size, inputs)
    if isinstance(v, str):
        return evaluate(v, _env(size, inputs))
    return v


def _shape(v, size, inputs, what) -> tuple:
    v = _value(v, size, inputs, what)
    if isinstance(v, (int, np.integer)):
        v = (int(v),)
    out = []
    for x in v:
        x = _value(x, size, inputs, what)
        if isinstance(x, float) and x.is_integer():
            x = int(x)
        if not isinstance(x, (int, np.integer)):
            raise ValueError(f"{what}: dimensions must be integers, got {x!r}")
        out.append(int(x))
    return tuple(out)


def _arg(a, size, inputs, where):
    if isinstance(a, str):
        if a in inputs:
            return inputs[a]
        return evaluate(a, _env(size, inputs))
    if callable(a) and not isinstance(a, Scalar):
        return a(size, inputs)
    if a is None or isinstance(a, (Scalar, int, float, np.generic)):
        return a
    raise TypeError(f"{where}: an argument is an input name, an expression string, a number, a scalar or None; "
                    f"got {type(a).__name__}")


# ---------------------------------------------------------------------------------------------
# Tasks


@dataclass
class _Task:
    index: int
    candidate: KernelSpec
    reference: KernelSpec
    make_inputs: Callable
    outputs: list
    inouts: list
    check_sizes: list
    time_size: dict | None
    arch: str
    device_file: str | None
    seed: int
    tolerance: dict
    instruction_factor: float
    min_instructions: int
    max_instructions: int | None
    wall_time_limit_s: float
    check_timed_outputs: bool
    tier: str = "detailed"
    ref_key: tuple = ()
    result: dict = field(default_factory=dict)


_TASK_KEYS = {"candidate", "reference", "make_inputs", "outputs", "inouts", "check_sizes", "time_size", "arch",
              "device_file", "seed", "tolerance", "instruction_factor", "min_instructions", "max_instructions",
              "wall_time_limit_s", "check_timed_outputs", "trust_candidate", "tier"}


def _make_task(i: int, t: dict) -> _Task:
    unknown = set(t) - _TASK_KEYS
    if unknown:
        raise ValueError(f"task {i}: unknown keys {sorted(unknown)} (allowed: {sorted(_TASK_KEYS)})")
    for req in ("candidate", "reference", "make_inputs", "outputs", "check_sizes"):
        if req not in t:
            raise ValueError(f"task {i}: `{req}` is required")
    outputs = list(t["outputs"])
    inouts = list(t.get("inouts", []))
    if not outputs and not inouts:
        raise ValueError(f"task {i}: name at least one output")
    check_sizes = [dict(s) for s in t["check_sizes"]]
    if not check_sizes:
        raise ValueError(f"task {i}: `check_sizes` needs at least one problem size")
    tol = dict(DEFAULT_TOLERANCE)
    user_tol = t.get("tolerance")
    if isinstance(user_tol, (tuple, list)):
        tol = {k: tuple(user_tol) for k in tol}
    elif isinstance(user_tol, dict):
        tol.update({k: tuple(v) for k, v in user_tol.items()})
    time_size = t.get("time_size")
    task = _Task(index=i, candidate=KernelSpec.of(t["candidate"], "candidate", bool(t.get("trust_candidate", False))),
                 reference=KernelSpec.of(t["reference"], "reference", True), make_inputs=t["make_inputs"],
                 outputs=outputs, inouts=inouts, check_sizes=check_sizes,
                 time_size=dict(time_size) if time_size is not None else None,
                 arch=t.get("arch", DEFAULT_ARCH), device_file=t.get("device_file"), seed=int(t.get("seed", 0)),
                 tolerance=tol, instruction_factor=float(t.get("instruction_factor", 50.0)),
                 min_instructions=int(t.get("min_instructions", 1_000_000)), max_instructions=t.get("max_instructions"),
                 wall_time_limit_s=float(t.get("wall_time_limit_s", 60.0)),
                 check_timed_outputs=bool(t.get("check_timed_outputs", True)), tier=str(t.get("tier", "detailed")))
    if task.tier not in ("detailed", "fast"):
        raise ValueError(f"task {i}: `tier` must be 'detailed' or 'fast', got {task.tier!r}")
    if task.tier == "fast":  # the fast tier samples a few CTAs: the timed run has no outputs to check
        task.check_timed_outputs = False
    # Tasks that share reference, inputs and sizes share the reference's runs within one batch.
    task.ref_key = (id(t["reference"]), id(t["make_inputs"]), json.dumps(check_sizes, sort_keys=True, default=str),
                    json.dumps(task.time_size, sort_keys=True, default=str), task.seed, task.arch, task.device_file,
                    task.check_timed_outputs, tuple(outputs), tuple(inouts), task.tier)
    return task


def _sizes(task: _Task) -> list:
    """(label, size, timed) for every run: the check sizes, then the timed size."""
    s = [(f"check[{i}]", size, False) for i, size in enumerate(task.check_sizes)]
    if task.time_size is not None:
        s.append(("time", task.time_size, True))
    return s


def _gen_inputs(task: _Task) -> list:
    out = []
    for n, (label, size, _) in enumerate(_sizes(task)):
        rng = np.random.default_rng([task.seed, n])
        inputs = task.make_inputs(dict(size), rng)
        if not isinstance(inputs, dict):
            raise TypeError(f"make_inputs must return a dict of name -> array or scalar, got {type(inputs).__name__}")
        for name in task.outputs + task.inouts:
            if not isinstance(inputs.get(name), np.ndarray):
                raise ValueError(f"make_inputs({size}): output `{name}` must be a numpy array in the returned dict")
        out.append(inputs)
    return out


def _poisoned(inputs: dict, outputs: list, pattern: int) -> dict:
    d = dict(inputs)
    for name in outputs:
        a = np.array(inputs[name], copy=True)
        if is_float_dtype(a.dtype):
            a[...] = np.nan
        else:
            a.view(np.uint8)[...] = pattern
        d[name] = a
    return d


def _needs_two_poisons(inputs: dict, outputs: list) -> bool:
    return any(not is_float_dtype(inputs[n].dtype) for n in outputs)


# ---------------------------------------------------------------------------------------------
# Compilation (CUDA/PTX through the extension; Triton through kernsim.triton_frontend)


def _kernel_source_key(spec: KernelSpec):
    return spec.source if isinstance(spec.source, (str, bytes)) else str(spec.source)


class _Compiler:
    """Compiles every distinct (source, target) once per batch, in parallel."""

    def __init__(self, workers: int):
        self.workers = workers
        self.modules: dict = {}
        self.errors: dict = {}
        self.targets: dict = {}  # (arch, device file) -> ISA target, read once per batch

    def target(self, arch, dfile) -> str:
        if (arch, dfile) not in self.targets:
            self.targets[(arch, dfile)] = device_info(arch, dfile)["isa_target"]
        return self.targets[(arch, dfile)]

    def compile_sources(self, items: list):
        """items: (spec, arch, device_file) for non-Triton specs."""
        jobs, keys, meta = [], [], []
        for spec, arch, dfile in items:
            target = self.target(arch, dfile)
            key = (_kernel_source_key(spec), spec.lang, target, arch, dfile)
            if key in self.modules or key in self.errors or key in keys:
                continue
            try:
                path = resolve_source(spec.source, spec.lang)
            except KernsimError as e:
                self.errors[key] = e
                continue
            jobs.append((path, target))
            keys.append(key)
            meta.append((arch, dfile))
        if jobs:
            for key, (arch, dfile), d in zip(keys, meta, _core.describe_modules(jobs, self.workers)):
                if d["ok"]:
                    self.modules[key] = _module_from_desc(d["module"], arch, dfile)
                else:
                    self.errors[key] = error_from(d)

    def module(self, spec: KernelSpec, arch, dfile) -> Module:
        target = self.target(arch, dfile)
        key = (_kernel_source_key(spec), spec.lang, target, arch, dfile)
        if key in self.errors:
            raise self.errors[key]
        return self.modules[key]


@dataclass
class _Launch:
    task: _Task
    role: str        # "reference" / "candidate"
    label: str       # check[0] / time
    timed: bool
    poison: int | None
    prepared: _PreparedLaunch | None = None
    names: dict = field(default_factory=dict)  # output name -> argument index
    error: KernsimError | None = None
    raw: dict | None = None


def _kernel_for(spec: KernelSpec, task: _Task, compiler: _Compiler, inputs_resolved: list, size) -> tuple:
    """(Kernel, block, extra trailing args) for a spec at one size."""
    if spec.lang == "triton":
        from . import triton_frontend
        consts = {k: _value(v, size[0], size[1], f"constexprs.{k}") for k, v in spec.constexprs.items()}
        return triton_frontend.kernel_for_args(spec.source, spec.kernel, inputs_resolved, consts, task.arch,
                                               task.device_file, spec.num_warps, spec.num_stages)
    m = compiler.module(spec, task.arch, task.device_file)
    return m.kernel(spec.kernel), None, []


def _prepare(task: _Task, spec: KernelSpec, role: str, label: str, size: dict, inputs: dict, timed: bool,
             poison: int | None, compiler: _Compiler, max_instructions: int) -> _Launch:
    L = _Launch(task=task, role=role, label=label, timed=timed, poison=poison)
    try:
        ins = _poisoned(inputs, task.outputs, poison) if poison is not None else dict(inputs)
        args = [_arg(a, size, ins, f"{role}.args[{i}]") for i, a in enumerate(spec.args)]
        kernel, implied_block, extra = _kernel_for(spec, task, compiler, args, (size, ins))
        for i, a in enumerate(spec.args):
            if isinstance(a, str) and a in ins and a in task.outputs + task.inouts:
                L.names.setdefault(a, i)
        block = implied_block if implied_block is not None else _shape(spec.block, size, ins, f"{role}.block")
        grid = _shape(spec.grid, size, ins, f"{role}.grid")
        dyn = int(_value(spec.dynamic_shared_bytes, size, ins, f"{role}.dynamic_shared_bytes"))
        flops = _value(spec.flops, size, ins, f"{role}.flops") if spec.flops is not None else None
        min_bytes = _value(spec.min_bytes, size, ins, f"{role}.min_bytes") if spec.min_bytes is not None else None
        keep = (not timed) or task.check_timed_outputs
        extra_args = extra(grid) if callable(extra) else list(extra)
        L.prepared = _PreparedLaunch(kernel, grid, block, list(args) + extra_args,
                                     arch=task.arch, device_file=task.device_file, full=not timed, keep_outputs=keep,
                                     dynamic_shared_bytes=dyn, max_instructions=max_instructions,
                                     wall_time_limit_s=task.wall_time_limit_s, flops=flops, min_bytes=min_bytes,
                                     tier=task.tier if timed else "detailed")
    except KernsimError as e:
        L.error = e
    except (TypeError, ValueError, ArithmeticError, KeyError) as e:
        L.error = error_from({"error_kind": "LaunchSpec", "error": f"{role}: {e}"})
    return L


def _prepare_all(args: list, workers: int) -> list:
    """_prepare for many launches; Triton candidates compile in subprocesses, so threads overlap
    them (everything else here is quick Python)."""
    if workers > 1 and any(a[1].lang == "triton" for a in args):
        with concurrent.futures.ThreadPoolExecutor(workers) as ex:
            return list(ex.map(lambda a: _prepare(*a), args))
    return [_prepare(*a) for a in args]


def _run(launches: list, workers: int):
    todo = [L for L in launches if L.error is None]
    if not todo:
        return
    raw = _core.run_jobs([L.prepared.job for L in todo], workers)
    for L, r in zip(todo, raw):
        L.raw = r
        if not r["ok"]:
            L.error = error_from(r)


def _outputs_of(L: _Launch) -> dict:
    res = L.prepared.result(L.raw)
    return {name: res.outputs[i] for name, i in L.names.items()}, res


def _warp_instructions(report: dict) -> float:
    s = report.get("sampling", {})
    return max(float(s.get("warp_instructions_estimated", 0)), float(s.get("warp_instructions_timed", 0)))


# ---------------------------------------------------------------------------------------------
# Comparison


def compare(got: np.ndarray, want: np.ndarray, tolerance: dict) -> dict:
    """Elementwise check of one output; NaN in `got` never passes."""
    if got.shape != want.shape:
        return {"ok": False, "max_rel_err": math.inf, "mismatches": int(want.size), "detail": "shape differs"}
    if is_float_dtype(want.dtype):
        rtol, atol = tolerance.get(np.dtype(want.dtype).name, DEFAULT_TOLERANCE["float32"])
        g = got.astype(np.float64).ravel()
        w = want.astype(np.float64).ravel()
        if np.isnan(w).any():
            return {"ok": False, "max_rel_err": math.nan, "mismatches": int(np.isnan(w).sum()),
                    "detail": "the reference produced NaN", "reference_bad": True}
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(g - w)
            same_inf = np.isinf(w) & (g == w)
            err[same_inf] = 0.0
            err[np.isnan(g)] = np.inf
            err[np.isinf(g) & ~same_inf] = np.inf
            bad = ~(err <= atol + rtol * np.abs(np.where(np.isinf(w), 0, w)))
            scale = np.maximum(np.abs(np.where(np.isinf(w), 0, w)), atol / rtol)
            rel = err / scale
    else:
        g = got.ravel().astype(np.int64 if want.dtype.kind != "u" else np.uint64)
        w = want.ravel().astype(g.dtype)
        bad = g != w
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        rel = diff / np.maximum(np.abs(w.astype(np.float64)), 1.0)
    n_bad = int(bad.sum())
    out = {"ok": n_bad == 0, "max_rel_err": float(rel.max()) if rel.size else 0.0, "mismatches": n_bad}
    if n_bad:
        i = int(np.argmax(bad))
        out["first_mismatch"] = {"index": i, "got": g[i].item(), "want": w[i].item()}
    return out


# ---------------------------------------------------------------------------------------------
# The driver


def _empty_result(task: _Task) -> dict:
    return {"correct": False, "max_rel_err": None, "time_us": None, "ref_time_us": None, "speedup": None,
            "report": None, "ref_report": None, "error": None, "error_kind": None, "stage": None, "checks": [],
            "instruction_limit": None, "wall_s": 0.0, "warnings": []}


def _fail(task: _Task, stage: str, e: Exception):
    r = task.result
    if stage in ("check", "time") and getattr(e, "kind", None) in ("Compile", "Parse"):
        stage = "compile"
    r["correct"] = False
    r["stage"] = stage
    r["error"] = str(e)
    r["error_kind"] = e.kind if isinstance(e, KernsimError) else type(e).__name__


def score_many(tasks: Sequence[dict], workers: int = 1) -> list[dict]:
    """Scores every task (see score()); launches of all tasks run together on ``workers``
    threads (oneTBB, GIL released). Results are in task order and identical for any ``workers``."""
    t0 = time.perf_counter()
    workers = max(1, int(workers))
    ts = [_make_task(i, t) for i, t in enumerate(tasks)]
    for t in ts:
        t.result = _empty_result(t)

    # inputs, once per shared reference group
    inputs_by_key: dict = {}
    for t in ts:
        if t.ref_key not in inputs_by_key:
            try:
                inputs_by_key[t.ref_key] = _gen_inputs(t)
            except Exception as e:  # the task's own code: report, do not crash the batch
                inputs_by_key[t.ref_key] = e
        if isinstance(inputs_by_key[t.ref_key], Exception):
            _fail(t, "inputs", inputs_by_key[t.ref_key])

    compiler = _Compiler(workers)
    for t in ts:
        if not t.result["stage"]:
            try:
                compiler.target(t.arch, t.device_file)
            except KernsimError as e:
                _fail(t, "device", e)
    compiler.compile_sources([(s, t.arch, t.device_file) for t in ts if not t.result["stage"]
                              for s in (t.reference, t.candidate) if s.lang != "triton"])
    for t in ts:  # a CUDA candidate ported to an AMD part: where it assumes 32-lane warps
        if not t.result["stage"] and t.candidate.lang != "triton":
            try:
                t.result["warnings"] = list(compiler.module(t.candidate, t.arch, t.device_file).warnings)
            except KernsimError:
                pass  # the compile error is reported where the candidate runs

    # 1. the reference: every size, once per group
    ref_runs: dict = {}
    ref_launches = []
    for t in ts:
        if t.result["stage"] or t.ref_key in ref_runs:
            continue
        inputs = inputs_by_key[t.ref_key]
        group = []
        for n, (label, size, timed) in enumerate(_sizes(t)):
            L = _prepare(t, t.reference, "reference", label, size, inputs[n], timed, INT_POISONS[0], compiler, 0)
            group.append(L)
        ref_runs[t.ref_key] = group
        ref_launches += group
    _run(ref_launches, workers)

    # 2. candidate checks at the small sizes, limited relative to the reference
    check_args = []
    for t in ts:
        if t.result["stage"]:
            continue
        refs = ref_runs[t.ref_key]
        bad = next((L for L in refs if L.error is not None), None)
        if bad is not None:
            _fail(t, "reference", bad.error)
            continue
        inputs = inputs_by_key[t.ref_key]
        t.result["ref_limits"] = []
        for n, (label, size, timed) in enumerate(_sizes(t)):
            if timed:
                continue
            limit = t.max_instructions or max(t.min_instructions,
                                              int(t.instruction_factor * _warp_instructions(
                                                  json.loads(refs[n].raw["report_json"]))))
            t.result["instruction_limit"] = limit
            poisons = INT_POISONS if _needs_two_poisons(inputs[n], t.outputs) else INT_POISONS[:1]
            for p in poisons:
                check_args.append((t, t.candidate, "candidate", label, size, inputs[n], False, p, compiler, limit))
    cand_checks = _prepare_all(check_args, workers)
    _run(cand_checks, workers)
    by_task: dict = {}
    for L in cand_checks:
        by_task.setdefault(L.task.index, []).append(L)

    def check(t: _Task, cand: _Launch, ref: _Launch) -> bool:
        if cand.error is not None:
            _fail(t, "time" if cand.timed else "check", cand.error)
            return False
        got, _ = _outputs_of(cand)
        want, _ = _outputs_of(ref)
        entry = {"size": cand.label, "poison": cand.poison, "correct": True, "max_rel_err": 0.0, "outputs": {}}
        for name in t.outputs + t.inouts:
            if name not in got:
                c = {"ok": False, "max_rel_err": math.inf, "mismatches": int(want[name].size) if name in want else 0,
                     "detail": f"the candidate was not given `{name}`"}
            else:
                c = compare(got[name], want[name], t.tolerance)
            entry["outputs"][name] = c
            if c.get("reference_bad"):
                _fail(t, "reference", ValueError(f"reference output `{name}` at {cand.label} contains NaN"))
                return False
            entry["correct"] &= c["ok"]
            entry["max_rel_err"] = max(entry["max_rel_err"], c["max_rel_err"])
        t.result["checks"].append(entry)
        mre = t.result["max_rel_err"]
        t.result["max_rel_err"] = entry["max_rel_err"] if mre is None else max(mre, entry["max_rel_err"])
        if not entry["correct"]:
            t.result["stage"] = "time" if cand.timed else "check"
            bad = [f"{k}: {v['mismatches']} of {want[k].size} elements differ" for k, v in entry["outputs"].items()
                   if not v["ok"] and k in want]
            t.result["error"] = f"wrong result at {cand.label}: " + "; ".join(bad or ["missing outputs"])
            t.result["error_kind"] = "WrongResult"
        return entry["correct"]

    # names of outputs in the reference launches
    timed_launches = []
    for t in ts:
        if t.result["stage"]:
            continue
        refs = ref_runs[t.ref_key]
        ok = True
        for L in by_task.get(t.index, []):
            n = next(i for i, (label, _, _) in enumerate(_sizes(t)) if label == L.label)
            if not check(t, L, refs[n]):
                ok = False
                break
        if not ok or t.time_size is None:
            if ok:
                t.result["correct"] = True
            continue
        n = len(_sizes(t)) - 1
        limit = t.max_instructions or max(t.min_instructions,
                                          int(t.instruction_factor * _warp_instructions(
                                              json.loads(refs[n].raw["report_json"]))))
        timed_launches.append(_prepare(t, t.candidate, "candidate", "time", t.time_size,
                                       inputs_by_key[t.ref_key][n], True, INT_POISONS[0], compiler, limit))

    # 3. the timed run at the real size (outputs checked too unless check_timed_outputs=False)
    _run(timed_launches, workers)
    for L in timed_launches:
        t = L.task
        refs = ref_runs[t.ref_key]
        ref = refs[-1]
        if L.error is not None:
            _fail(t, "time", L.error)
            continue
        if t.check_timed_outputs and not check(t, L, ref):
            continue
        res = L.prepared.result(L.raw)
        ref_res = ref.prepared.result(ref.raw)
        t.result.update(correct=True, time_us=res.time_us, ref_time_us=ref_res.time_us,
                        speedup=ref_res.time_us / res.time_us if res.time_us > 0 else None,
                        report=res.report, ref_report=ref_res.report)
    wall = time.perf_counter() - t0
    for t in ts:
        t.result["wall_s"] = wall
        t.result.pop("ref_limits", None)
    return [t.result for t in ts]


def score(candidate: dict, reference: dict, make_inputs: Callable, arch: str = DEFAULT_ARCH, **task) -> dict:
    """Scores one candidate kernel against a reference kernel for one task.

    Returns {correct, max_rel_err, time_us, ref_time_us, speedup, report, ...}: ``correct`` only
    when every output matched at every check size and at the timed size; ``speedup`` is the
    reference's simulated time over the candidate's at ``time_size`` (None when not correct).
    Failures never raise: ``stage`` (inputs, compile, check, time, reference) and ``error`` say
    what went wrong. The other keyword arguments are the task keys of docs/python.md (outputs,
    check_sizes, time_size, tolerance, seed, limits, ...).
    """
    return score_many([dict(task, candidate=candidate, reference=reference, make_inputs=make_inputs, arch=arch)],
                      workers=1)[0]


def reward(result: dict, *, incorrect: float = 0.0, kind: str = "speedup") -> float:
    """A scalar reward from a score() result: ``incorrect`` for a wrong or failing kernel, else
    the speedup over the reference (kind="speedup") or its log2 (kind="log_speedup")."""
    if not result.get("correct") or not result.get("speedup"):
        return incorrect
    s = float(result["speedup"])
    return math.log2(s) if kind == "log_speedup" else s
