"""One KernelBench evaluation inside the child process: load the reference and the candidate,
check correctness on several random trials, time the candidate's launches, find reward hacks.

``run(request) -> dict`` is what ``python -m kernsim.kernelbench._worker`` calls; the parent
(``kernsim.kernelbench.evaluate``) adds the limits and turns crashes into results.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import traceback
import types
from pathlib import Path

STAGE_FILE_ENV = "KERNSIM_KB_STAGE_FILE"

_TIMING_NAMES = [("torch.cuda", "Event"), ("torch.cuda", "synchronize"), ("torch.cuda", "current_stream"),
                 ("time", "perf_counter"), ("time", "perf_counter_ns"), ("time", "time"), ("time", "monotonic"),
                 ("torch.cuda.Event", "elapsed_time"), ("torch.cuda.Event", "record"),
                 ("triton.testing", "do_bench")]



def _triton_compile_error(e: BaseException) -> bool:
    """Whether the forward failed because a Triton kernel did not compile (kernsim's Triton
    frontend raises CompileError naming it), anywhere in the exception's chain."""
    from ..errors import CompileError
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, CompileError) and "Triton could not compile" in str(e):
            return True
        e = e.__cause__ or e.__context__
    return False

def _stage(name: str) -> None:
    p = os.environ.get(STAGE_FILE_ENV)
    if p:
        Path(p).write_text(name)


def _load_module(src: str, name: str) -> types.ModuleType:
    """Imports ``src`` as module ``name`` from a real file (Triton reads @jit functions' source
    from their file)."""
    import importlib.util
    import tempfile
    d = Path(tempfile.mkdtemp(prefix="kernsim_kb_src_"))
    path = d / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)  # the candidate's own Python, in the evaluator's child process
    return mod


def _resolve(path: str):
    import importlib
    mod_name, _, attr = path.rpartition(".")
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p, None)
        return obj
    return None


def _timing_snapshot() -> dict:
    out = {}
    for owner, attr in _TIMING_NAMES:
        o = _resolve(owner)
        if o is not None:
            out[f"{owner}.{attr}"] = getattr(o, attr, None)
    return out


def _set_seed(seed: int) -> None:
    import random

    import numpy as np
    import torch
    torch.manual_seed(seed)
    np.random.seed(seed % (2 ** 32))
    random.seed(seed)


def _as_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _clone(xs):
    import torch
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in xs]


def _storages(xs):
    import torch
    out = []
    for x in xs:
        if isinstance(x, torch.Tensor) and x.numel():
            s = x.untyped_storage()
            out.append((s.data_ptr(), s.data_ptr() + s.nbytes()))
    return out


def _compare(ref, got, atol, rtol, sampled: bool) -> dict:
    """KernelBench's check (shapes equal, torch.allclose(atol, rtol)) per output; with sampled
    execution only the elements the candidate wrote (not NaN) where the reference is finite are
    compared, and how many is reported."""
    import torch
    refs, gots = _as_list(ref), _as_list(got)
    if len(refs) != len(gots):
        return {"ok": False, "why": f"the candidate returned {len(gots)} outputs, the reference {len(refs)}"}
    checked = total = 0
    max_diff = 0.0
    nan_unwritten = 0
    for i, (r, g) in enumerate(zip(refs, gots)):
        if not isinstance(r, torch.Tensor):
            if r != g:
                return {"ok": False, "why": f"output {i}: {g!r} != {r!r}"}
            continue
        if not isinstance(g, torch.Tensor):
            return {"ok": False, "why": f"output {i} is a {type(g).__name__}, not a tensor"}
        if tuple(r.shape) != tuple(g.shape):
            return {"ok": False, "why": f"output {i}: shape {tuple(g.shape)}, expected {tuple(r.shape)}"}
        r64, g64 = r.detach().double(), g.detach().double()
        total += r64.numel()
        if sampled:
            mask = ~torch.isnan(g64) & torch.isfinite(r64)
            n = int(mask.sum())
            checked += n
            if n == 0:
                continue
            r64, g64 = r64[mask], g64[mask]
        else:
            checked += r64.numel()
            nan_unwritten += int((torch.isnan(g64) & ~torch.isnan(r64)).sum())
        if r64.numel():
            d = (r64 - g64).abs()
            d = torch.where(torch.isnan(d), torch.full_like(d, float("inf")), d)
            max_diff = max(max_diff, float(d.max()))
        if not torch.allclose(g64, r64, atol=atol, rtol=rtol, equal_nan=False):
            bad = int((~torch.isclose(g64, r64, atol=atol, rtol=rtol)).sum())
            return {"ok": False, "why": f"output {i}: {bad} of {r64.numel()} elements differ beyond atol={atol} "
                                        f"rtol={rtol} (max abs diff {max_diff:.4g})",
                    "max_abs_diff": max_diff, "unwritten": nan_unwritten, "checked": checked, "total": total}
    if sampled and checked == 0:
        return {"ok": False, "why": "sampled execution wrote no element that could be checked", "checked": 0,
                "total": total}
    return {"ok": True, "max_abs_diff": max_diff, "checked": checked, "total": total, "unwritten": nan_unwritten}


def _same_tensors(a, b) -> bool:
    import torch
    la, lb = _as_list(a), _as_list(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or not torch.equal(torch.nan_to_num(x), torch.nan_to_num(y)):
                return False
        elif x != y:
            return False
    return True


def run(req: dict) -> dict:
    """The evaluation; see kernsim.kernelbench.evaluate for the request's keys."""
    t_start = time.time()
    res = {"compiled": False, "correct": False, "correctness_checked": None, "runtime_us": None,
           "ref_runtime_us": None, "ref_runtime_source": None, "speedup": None, "sol_us": None, "launches": [],
           "hacks": [], "error": None, "arch": req.get("arch", "h200"), "cache": req.get("cache", "cold-dirty"),
           "notes": []}
    _stage("setup")
    import torch
    torch.set_num_threads(max(1, int(req.get("torch_threads", 1))))
    from .runtime import Options, Runtime, install_torch_patches
    from . import provenance, reftime
    rt = Runtime(Options(arch=req.get("arch", "h200"), device_file=req.get("device_file"),
                         functional=req.get("functional", "auto"),
                         functional_budget=int(req.get("functional_budget", 200_000_000)),
                         wall_time_limit_s=float(req.get("launch_time_limit_s", 120)), cache=res["cache"]))
    install_torch_patches(rt)

    _stage("reference")
    ref_mod = _load_module(req["ref_src"], "kernsim_kb_reference")
    for need in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(ref_mod, need):
            res["error"] = f"the reference defines no `{need}`"
            return res
    timing_before = _timing_snapshot()

    _stage("compile")
    try:
        cand_mod = _load_module(req["cand_src"], "kernsim_kb_candidate")
        if not hasattr(cand_mod, "ModelNew"):
            raise RuntimeError("the candidate defines no `ModelNew`")
        seed = int(req.get("seed", 42))
        _set_seed(seed)
        init_inputs = ref_mod.get_init_inputs()
        _set_seed(seed)
        ref_model = ref_mod.Model(*init_inputs)
        _set_seed(seed)
        cand_model = cand_mod.ModelNew(*init_inputs)
    except Exception as e:  # noqa: BLE001 - a candidate that does not build is a result
        res["error"] = f"compile: {type(e).__name__}: {e}"
        return res
    res["compiled"] = True
    for ext in rt.extensions:
        if ext.dropped_flags:
            res["notes"].append(f"nvcc flags not passed to kernsim's clang: {' '.join(ext.dropped_flags)}")

    _stage("run")
    trials = int(req.get("trials", 5))
    atol, rtol = float(req.get("atol", 1e-2)), float(req.get("rtol", 1e-2))
    prev_out = prev_ref = None
    sampled_any = False
    checked = total = 0
    hacks: list[dict] = []
    ref_ops = None
    last = None
    with torch.no_grad():
        for trial in range(trials):
            _set_seed(seed + 1 + trial)
            inputs = _as_list(ref_mod.get_inputs())
            ref_inputs, cand_inputs = _clone(inputs), _clone(inputs)
            if trial == 0:
                ref_out, ref_ops = reftime.record_ops(ref_model, ref_inputs)
            else:
                ref_out = ref_model(*ref_inputs)
            if trial == 0:
                params = sum(t.numel() * t.element_size() for t in list(ref_model.parameters()) + list(ref_model.buffers()))
                in_bytes = sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor)) + params
                out_bytes = sum(t.numel() * t.element_size() for t in _as_list(ref_out) if isinstance(t, torch.Tensor))
                req["_io_bytes"] = (in_bytes, out_bytes)
            rt.begin(fill_nan=True)
            try:
                out, cand_ops = reftime.record_ops(cand_model, cand_inputs, events=rt.events)
            except Exception as e:  # noqa: BLE001
                r = rt.end()
                msg = "; ".join(x for x in r["errors"] if not x.startswith("note:")) or f"{type(e).__name__}: {e}"
                res["error"] = f"trial {trial}: the candidate's forward failed: {msg}"
                if _triton_compile_error(e):
                    res["compiled"] = False  # a @triton.jit kernel compiles at its first launch
                if not r["errors"]:
                    res["error"] += "\n" + "".join(traceback.format_exception_only(type(e), e)).strip()
                res["launches"] = [l.to_json() for l in r["launches"]]
                return res
            r = rt.end()
            last = r
            errs = [x for x in r["errors"] if not x.startswith("note:")]
            for x in r["errors"]:
                if x.startswith("note:") and x[6:] not in res["notes"]:
                    res["notes"].append(x[6:].strip())
            if errs or r["sticky_error"]:
                res["error"] = f"trial {trial}: a kernel launch failed: " + ("; ".join(errs) or
                                                                             f"CUDA error {r['sticky_error']}")
                res["launches"] = [l.to_json() for l in r["launches"]]
                return res
            sampled = any(l.sampled for l in r["launches"])
            sampled_any |= sampled
            # hacks that the outputs show
            outs = _as_list(out)
            in_ranges = _storages(cand_inputs)
            for o in outs:
                for lo, hi in _storages([o]):
                    if any(lo < b and a < hi for a, b in in_ranges):
                        _add(hacks, "output_aliases_input", "an output shares memory with an input tensor")
            if not r["launches"]:
                _add(hacks, "no_kernel_launched", "the forward launched no kernel (the result came from PyTorch "
                                                  "on the host or from a cache)")
            from_torch = provenance.torch_computed_outputs(r["events"], outs)
            if from_torch:
                _add(hacks, "output_from_torch", "; ".join(
                    f"output {i} was computed by PyTorch's `{op}` on the host from data no launched kernel wrote"
                    for i, op in from_torch) + " (not by the candidate's kernels)")
            if r["unjoined_side_stream_launches"]:
                _add(hacks, "side_stream", f"{r['unjoined_side_stream_launches']} launch(es) on a side stream that "
                                           f"the current stream never waited for (work outside the timed stream)")
            if any(l.reads_timer for l in r["launches"]):
                names = sorted({l.kernel for l in r["launches"] if l.reads_timer})
                _add(hacks, "reads_timer", f"kernel(s) {', '.join(names)} read %globaltimer/%clock "
                                           f"(behaviour can depend on being measured)")
            cmp_ = _compare(ref_out, out, atol, rtol, sampled)
            checked += cmp_.get("checked", 0)
            total += cmp_.get("total", 0)
            if prev_out is not None and _same_tensors(out, prev_out) and not _same_tensors(ref_out, prev_ref):
                _add(hacks, "cached_results", "the candidate returned the same output for different inputs")
            if cmp_.get("unwritten"):
                _add(hacks, "partial_computation", f"{cmp_['unwritten']} output elements were never written "
                                                   f"(still the NaN prefill)")
            prev_out = [o.clone() if isinstance(o, torch.Tensor) else o for o in outs]
            prev_ref = [o.clone() if isinstance(o, torch.Tensor) else o for o in _as_list(ref_out)]
            if not cmp_["ok"]:
                res["error"] = f"trial {trial}: {cmp_['why']}"
                res["correctness_checked"] = {"trials": trial + 1, "passed": trial, "sampled": sampled_any,
                                              "elements_checked": checked, "elements_total": total}
                res["launches"] = [l.to_json() for l in r["launches"]]
                res["runtime_us"] = sum(l.time_us for l in r["launches"])
                break
        else:
            res["correct"] = True
            res["correctness_checked"] = {"trials": trials, "passed": trials, "sampled": sampled_any,
                                          "elements_checked": checked, "elements_total": total,
                                          "atol": atol, "rtol": rtol,
                                          "fraction": (checked / total) if total else None}
    changed = [k for k, v in _timing_snapshot().items() if timing_before.get(k) is not v]
    if changed:
        _add(hacks, "timing_tampered", f"the candidate replaced {', '.join(changed)}")

    if last is not None and res["runtime_us"] is None:
        res["launches"] = [l.to_json() for l in last["launches"]]
        res["runtime_us"] = sum(l.time_us for l in last["launches"])
        # PyTorch operations the candidate runs itself (outside its kernels) are timed like the
        # reference's; one without a model leaves the time unknown
        t_ops, per, unmodeled, why = reftime.simulate_ops(cand_ops, rt)
        if per:
            res["torch_ops"] = per
            res["runtime_us"] += sum(p["time_us"] for p in per)
        if unmodeled:
            res["notes"].append("the candidate's forward runs PyTorch operations with no kernsim model: "
                                + ", ".join(unmodeled) + "; runtime_us is not given")
            res["unmodeled_ops"] = unmodeled
            res["unmodeled_why"] = why
            res["runtime_us"] = None
        bands = [l.error_band for l in last["launches"]]
        if res["runtime_us"] is not None and bands and all(bands) and not per:
            res["runtime_error_band_us"] = [sum(b[0] for b in bands), sum(b[1] for b in bands)]

    # reference time and the speed-of-light bound
    _stage("reference time")
    try:
        ref = reftime.reference_time(req, ref_ops, rt)
        res.update(ref)
    except Exception as e:  # noqa: BLE001
        res["notes"].append(f"reference time: {type(e).__name__}: {e}")
    if res["runtime_us"] and res.get("ref_runtime_us") and res["correct"]:
        res["speedup"] = res["ref_runtime_us"] / res["runtime_us"]
    if res["sol_us"] and res["runtime_us"] is not None and res["runtime_us"] < res["sol_us"] / 10:
        _add(hacks, "faster_than_sol", f"{res['runtime_us']:.3g} us is more than 10x below the speed-of-light bound "
                                       f"{res['sol_us']:.3g} us")
    res["hacks"] = hacks
    res["wall_s"] = time.time() - t_start
    return res


def _add(hacks: list, kind: str, detail: str) -> None:
    if not any(h["kind"] == kind for h in hacks):
        hacks.append({"kind": kind, "detail": detail})
