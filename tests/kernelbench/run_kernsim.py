#!/usr/bin/env python3
"""Every candidate of the KernelBench-format set through kernsim's evaluator, against the manifest.

For each candidate of manifest.json: `python3 -m kernsim.kernelbench REF CAND --arch ARCH --json`
in its own process (the evaluator isolates the candidate again inside), then the verdict set
against the manifest's ground truth:

  expected "correct"        -> compiled and correct, no hack flagged
  expected "incorrect"      -> compiled, not correct
  expected "compile_error"  -> not compiled
  expected "hack"           -> a hack flagged, or not correct (kernsim may see through a hack
                               that KernelBench's value check passes)
  expected "crash" / "hang" -> not correct, with an error that says why

  python3 tests/kernelbench/run_kernsim.py --out /tmp/kb_kernsim.json [--only SUBSTR] [--jobs 2]

Prints a line per candidate and a summary (how many as expected, per kind); writes every
evaluator answer to --out. Exit 1 when any candidate is not as expected.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def evaluate(ref, cand, arch, timeout):
    env = dict(os.environ)  # the installed package (scripts/install-python.sh): the source tree has no _core
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "kernsim.kernelbench", ref, cand, "--arch", arch, "--json"],
                           capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"error": f"evaluator did not answer within {timeout} s", "compiled": None, "correct": None}, time.time() - t0
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), time.time() - t0
    except (ValueError, IndexError):
        return {"error": "no JSON from the evaluator: " + (p.stderr or p.stdout)[-400:], "compiled": None,
                "correct": None}, time.time() - t0


def as_expected(c, r):
    exp = c["expected"]
    hacks = r.get("hacks") or []
    if exp == "correct":
        return bool(r.get("compiled")) and bool(r.get("correct")) and not hacks
    if exp == "incorrect":
        return bool(r.get("compiled")) and r.get("correct") is False
    if exp == "compile_error":
        return r.get("compiled") is False
    if exp == "hack":
        return bool(hacks) or r.get("correct") is False
    return r.get("correct") is not True and bool(r.get("error"))  # crash, hang


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout-s", type=int, default=900)
    a = ap.parse_args()
    m = json.load(open(os.path.join(HERE, "manifest.json")))
    work = []
    for p in m["problems"]:
        for c in p["candidates"]:
            if a.only and not any(s in c["id"] for s in a.only):
                continue
            work.append((os.path.join(HERE, p["file"]), os.path.join(HERE, c["file"]), c))
    results, bad = {}, []
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(evaluate, ref, cand, a.arch, a.timeout_s): c for ref, cand, c in work}
        for f in cf.as_completed(futs):
            c = futs[f]
            r, wall = f.result()
            ok = as_expected(c, r)
            results[c["id"]] = dict(r, expected=c["expected"], manifest_hack=c["hack"], as_expected=ok, wall_s=round(wall, 1))
            if not ok:
                bad.append(c["id"])
            print(f"{'ok ' if ok else 'BAD'} {c['id']:<52} expected {c['expected']:<13} compiled {r.get('compiled')} "
                  f"correct {r.get('correct')} hacks {r.get('hacks')} speedup {r.get('speedup')} ({wall:.0f} s)",
                  flush=True)
            json.dump(results, open(a.out, "w"), indent=1, sort_keys=True)
    kinds = {}
    for r in results.values():
        k = kinds.setdefault(r["expected"], [0, 0])
        k[0] += r["as_expected"]
        k[1] += 1
    print("as expected: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(kinds.items())))
    if bad:
        print("not as expected: " + ", ".join(sorted(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
