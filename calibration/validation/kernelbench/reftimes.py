#!/usr/bin/env python3
"""kernsim's simulated reference times (no baseline table) against a GPU's measured eager times.

For every problem of tests/kernelbench (or `--only REGEX`), the reference `Model` runs once on the
CPU under kernsim.kernelbench's ATen recorder (reftime.record_ops, as the evaluator does for the
first trial) and its operations are timed by kernsim's models (reftime.simulate_ops: streaming
kernel, SGEMM, tensor-core GEMM, implicit-GEMM convolution); the sum is set against the measured
PyTorch eager mean of the same problem (`baseline_time_torch.json` of a measure_h200.py run).
No candidate runs, so this is much cheaper than compare.py --run.

  python3 calibration/validation/kernelbench/reftimes.py --measured calibration/data/h100/kernelbench \\
      --arch h100 [--cache cold-dirty] [--only REGEX] [--save FILE]

Prints one row per problem (ops, simulated µs, measured µs, error, what had no model) and the MAPE
over the problems with both.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
KB_DIR = os.path.join(REPO, "tests", "kernelbench")


def load(path: str):
    spec = importlib.util.spec_from_file_location("kb_ref_" + re.sub(r"\W", "_", path), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def simulate(problem_file: str, arch: str, cache: str, device_file=None) -> dict:
    import torch
    from kernsim.kernelbench import devinfo, reftime
    rt = types.SimpleNamespace(opts=types.SimpleNamespace(arch=arch, device_file=device_file, cache=cache),
                               dev=devinfo.device_numbers(arch, device_file))
    mod = load(problem_file)
    torch.manual_seed(42)
    init = mod.get_init_inputs()
    torch.manual_seed(42)
    model = mod.Model(*init)
    torch.manual_seed(43)
    inputs = mod.get_inputs()
    with torch.no_grad():
        _, ops = reftime.record_ops(model, inputs)
    total, per, unmodeled, why = reftime.simulate_ops(ops, rt)
    return {"ref_runtime_us": total, "ref_ops": per, "unmodeled": unmodeled, "why": why}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measured", required=True, help="folder with baseline_time_torch.json (measure_h200.py)")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--cache", default="cold-dirty", help="kernsim's timing convention (KernelBench: cold-dirty)")
    ap.add_argument("--only", help="a regex on problem ids")
    ap.add_argument("--save", help="write the per-problem results here (JSON)")
    a = ap.parse_args()
    torch_threads = int(os.environ.get("KB_TORCH_THREADS", "1"))
    import torch
    torch.set_num_threads(torch_threads)
    with open(os.path.join(a.measured, "baseline_time_torch.json")) as f:
        base = json.load(f)
    with open(os.path.join(KB_DIR, "manifest.json")) as f:
        manifest = json.load(f)
    out, errs = {}, []
    print("| problem | ops (model) | kernsim µs | measured µs | error |")
    print("| --- | --- | ---: | ---: | ---: |")
    for p in manifest["problems"]:
        if a.only and not re.search(a.only, p["id"]):
            continue
        r = simulate(os.path.join(KB_DIR, p["file"]), a.arch, a.cache)
        lv = f"level{p['level']}"
        meas = base.get(lv, {}).get(p["baseline_key"], {}).get("mean")
        meas_us = meas * 1e3 if meas is not None else None
        r["measured_us"] = meas_us
        sim = r["ref_runtime_us"]
        err = sim / meas_us - 1 if sim is not None and meas_us else None
        r["error"] = err
        if err is not None:
            errs.append(abs(err))
        ops = ", ".join(f"{o['op']}" + (f" ({o['model'].split(' ')[1]})" if o.get("model", "stream") != "stream" else "")
                        for o in r["ref_ops"])
        if r["unmodeled"]:
            ops += "; no model: " + ", ".join(r["unmodeled"])
        print(f"| {p['id']} | {ops} | {'-' if sim is None else f'{sim:.1f}'} | "
              f"{'-' if meas_us is None else f'{meas_us:.1f}'} | {'-' if err is None else f'{100 * err:+.0f}%'} |",
              flush=True)
        out[p["id"]] = r
    if errs:
        print(f"\nMAPE {100 * sum(errs) / len(errs):.1f}% over {len(errs)} problems "
              f"({sum(1 for p in out.values() if p['ref_runtime_us'] is None)} without a simulated time)")
    if a.save:
        with open(a.save, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
