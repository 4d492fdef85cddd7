#!/usr/bin/env python3
"""Snapshots of kernsim's predictions and outputs, and their comparison: the check that a change
meant to keep the model's behaviour (a refactor) keeps it.

  snapshot.py take OUT.json [--arch h200 DIR ...] [--arch mi300x DIR ...] [--threads 2]
  snapshot.py compare BEFORE.json AFTER.json [--tolerance 0.005]

`take` runs `kernsim run SPEC --arch A --json` for every launch spec in each DIR and records the
predicted time and the cycles; with --outputs it also dumps the buffers (which makes every launch
run to completion functionally: minutes for the large GEMMs) and records a SHA-256 of each output
buffer. `compare`
prints each launch whose prediction moved by more than the tolerance (relative) or whose outputs
changed, and exits 1 when any did. Default sets: the H200 validation set and microbenchmark
replays on h200, the AMD launch set on mi300x and mi355x.
"""
import argparse
import concurrent.futures as cf
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_SETS = [
    ("h200", "calibration/validation/h200/specs"),
    ("h200", "calibration/microbenchmarks/cuda/specs"),
    ("mi300x", "calibration/validation/amd/specs"),
    ("mi355x", "calibration/validation/amd/specs"),
]


def run_one(kernsim, arch, spec, outputs):
    with tempfile.TemporaryDirectory() as d:
        cmd = [kernsim, "run", spec, "--arch", arch, "--json"] + (["--dump-buffers", d] if outputs else [])
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        key = f"{arch}:{os.path.relpath(spec, ROOT)}"
        if p.returncode != 0:
            return key, {"exit": p.returncode, "error": p.stderr.strip()[-300:]}
        j = json.loads(p.stdout)
        outs = {}
        for f in sorted(glob.glob(os.path.join(d, "*.out.bin"))):
            with open(f, "rb") as fh:
                outs[os.path.basename(f)] = hashlib.sha256(fh.read()).hexdigest()
        return key, {"exit": 0, "time_us": j["time_us"], "cycles": j.get("cycles"), "outputs": outs}


def take(a):
    sets = [(x[0], x[1]) for x in a.set] if a.set else DEFAULT_SETS
    jobs = []
    for arch, d in sets:
        for spec in sorted(glob.glob(os.path.join(ROOT, d, "*.json"))):
            jobs.append((arch, spec))
    res = {}
    with cf.ThreadPoolExecutor(a.threads) as ex:
        for key, r in ex.map(lambda j: run_one(a.kernsim, *j, a.outputs), jobs):
            res[key] = r
            print(f"{key:80s} {r.get('time_us', 'exit %d' % r['exit'])}", flush=True)
    with open(a.out, "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)


def compare(a):
    with open(a.before) as fh:
        before = json.load(fh)
    with open(a.after) as fh:
        after = json.load(fh)
    bad = 0
    moved = []
    for key in sorted(set(before) | set(after)):
        b, c = before.get(key), after.get(key)
        if b is None or c is None:
            print(f"only in {'after' if b is None else 'before'}: {key}")
            bad += 1
            continue
        if b["exit"] != c["exit"]:
            print(f"{key}: exit {b['exit']} -> {c['exit']} {c.get('error', '')}")
            bad += 1
            continue
        if b["exit"] != 0:
            continue
        rel = (c["time_us"] - b["time_us"]) / b["time_us"] if b["time_us"] else 0.0
        moved.append(abs(rel))
        if abs(rel) > a.tolerance:
            print(f"{key}: {b['time_us']:.3f} -> {c['time_us']:.3f} us ({100 * rel:+.2f}%)")
            bad += 1
        if b["outputs"] and c["outputs"] and b["outputs"] != c["outputs"]:
            print(f"{key}: outputs differ")
            bad += 1
    n = len(moved)
    print(f"{n} launches compared; largest move {100 * max(moved or [0]):.3f}%; {bad} beyond tolerance or changed")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("take")
    t.add_argument("out")
    t.add_argument("--set", nargs=2, action="append", metavar=("ARCH", "DIR"))
    t.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    t.add_argument("--outputs", action="store_true", help="also hash the output buffers (runs every launch to completion)")
    t.add_argument("--kernsim", default=os.path.join(ROOT, "build", "kernsim"))
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--tolerance", type=float, default=0.005)
    a = ap.parse_args()
    return take(a) if a.cmd == "take" else compare(a)


if __name__ == "__main__":
    sys.exit(main())
