#!/usr/bin/env python3
"""Every candidate of the KernelBench-format set through kernsim's evaluator, against the manifest.

For each candidate of manifest.json: `python3 -m kernsim.kernelbench REF CAND --arch ARCH --json`
in its own process (the evaluator isolates the candidate again inside), then the verdict set
against the manifest's ground truth:

  expected "correct"        -> compiled and correct, no hack flagged
  expected "incorrect"      -> compiled, not correct
  expected "compile_error"  -> not compiled
  expected "hack"           -> the manifest's hack kind flagged (HACK_KIND: kernsim's name for it);
                               not being correct as well is allowed (kernsim may be stricter
                               than KernelBench's value check)
  expected "runtime_error" / "timeout" -> not correct, with an error that says why

  python3 tests/kernelbench/run_kernsim.py --out /tmp/kb_kernsim.json [--only SUBSTR] [--jobs 2]
      [--results tests/kernelbench/kernsim_results_h200.json]

Prints a line per candidate and a summary (how many as expected, per kind); writes every
evaluator answer to --out, and with --results merges a compact record per candidate (verdict,
times, hacks) into that file (runs of subsets accumulate). Exit 1 when any candidate is not as
expected. The package is the one python3 imports (PYTHONPATH=python with a built _core, or the
installed one).
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


def evaluate(ref, cand, arch, timeout, trials=None):
    env = dict(os.environ)  # the package python3 imports (PYTHONPATH=python with a built _core, or the installed one)
    t0 = time.time()
    extra = ["--trials", str(trials)] if trials else []
    try:
        p = subprocess.run([sys.executable, "-m", "kernsim.kernelbench", ref, cand, "--arch", arch, "--json"] + extra,
                           capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"error": f"evaluator did not answer within {timeout} s", "compiled": None, "correct": None}, time.time() - t0
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), time.time() - t0
    except (ValueError, IndexError):
        return {"error": "no JSON from the evaluator: " + (p.stderr or p.stdout)[-400:], "compiled": None,
                "correct": None}, time.time() - t0


# the manifest's hack kinds -> the kind kernsim's evaluator reports (docs/kernelbench.md)
HACK_KIND = {"output_aliases_input": "output_aliases_input", "cached_result": "cached_results",
             "partial_computation": "partial_computation", "timer_dependent": "reads_timer",
             "side_stream": "side_stream", "torch_reference": "output_from_torch"}


def as_expected(c, r):
    exp = c["expected"]
    hacks = [h["kind"] for h in r.get("hacks") or []]
    if exp == "correct":
        return bool(r.get("compiled")) and bool(r.get("correct")) and not hacks
    if exp == "incorrect":
        return bool(r.get("compiled")) and r.get("correct") is False
    if exp == "compile_error":
        return r.get("compiled") is False
    if exp == "hack":
        return HACK_KIND[c["hack"]] in hacks
    return r.get("correct") is not True and bool(r.get("error"))  # runtime_error, timeout


def verdict(r):
    """kernsim's answer in the manifest's words."""
    if r.get("compiled") is False:
        return "compile_error"
    if r.get("hacks"):
        return "hack"
    if r.get("correct"):
        return "correct"
    return "incorrect" if r.get("compiled") else "error"


def compact(c, r, ok, wall):
    err = r.get("error") or None
    return {"expected": c["expected"], "manifest_hack": c["hack"], "verdict": verdict(r), "as_expected": ok,
            "compiled": r.get("compiled"), "correct": r.get("correct"),
            "hacks": sorted(h["kind"] for h in r.get("hacks") or []), "runtime_us": r.get("runtime_us"),
            "ref_runtime_us": r.get("ref_runtime_us"), "ref_runtime_source": r.get("ref_runtime_source"),
            "speedup": r.get("speedup"), "sol_us": r.get("sol_us"),
            "sampled": (r.get("correctness_checked") or {}).get("sampled"),
            "launches": [{"kernel": l["kernel"], "grid": l["grid"], "block": l["block"], "time_us": l["time_us"]}
                         for l in r.get("launches") or []],
            "error": err[:300] if err else None, "wall_s": round(wall, 1)}


def merge_results(path, cid, rec, arch):
    import fcntl
    import hashlib
    import tempfile
    name = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:16]
    with open(os.path.join(tempfile.gettempdir(), f"kernsim_results_{name}.lock"), "w") as lock:  # several runs may merge
        fcntl.flock(lock, fcntl.LOCK_EX)
        _merge_locked(path, cid, rec, arch)


def _merge_locked(path, cid, rec, arch):
    data = json.load(open(path)) if os.path.exists(path) else {}
    data.setdefault("what", "kernsim's answer for each candidate of manifest.json (run_kernsim.py --results); "
                            "times in microseconds on the simulated part, KernelBench's cold-L2 convention")
    data["arch"] = arch
    data.setdefault("candidates", {})[cid] = dict(rec, date=time.strftime("%Y-%m-%d"))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def summarize(path):
    """A markdown table of a --results file: one row per candidate, in the manifest's order."""
    data = json.load(open(path))["candidates"]
    m = json.load(open(os.path.join(HERE, "manifest.json")))
    fmt = lambda v: "-" if v is None else f"{v:.3g}"
    print("| candidate | expected | kernsim | hacks | runtime_us | ref_runtime_us | speedup |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    n = ok = 0
    for p in m["problems"]:
        for c in p["candidates"]:
            r = data.get(c["id"])
            if r is None:
                continue
            n += 1
            ok += bool(r["as_expected"])
            exp = c["expected"] + (f" ({c['hack']})" if c["hack"] else "")
            mark = "" if r["as_expected"] else " **not as expected**"
            print(f"| {c['id']} | {exp} | {r['verdict']}{mark} | {', '.join(r['hacks']) or '-'} | {fmt(r['runtime_us'])} "
                  f"| {fmt(r['ref_runtime_us'])} | {fmt(r['speedup'])} |")
    print(f"\n{ok} of {n} as expected")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out")
    ap.add_argument("--summarize", metavar="RESULTS", help="print a --results file as a markdown table and exit")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--exact", action="store_true", help="--only names whole candidate ids")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout-s", type=int, default=900)
    ap.add_argument("--results", help="merge a compact record per candidate into this JSON file")
    ap.add_argument("--trials", type=int, help="correctness trials (the evaluator's default: 5)")
    a = ap.parse_args()
    if a.summarize:
        summarize(a.summarize)
        return 0
    if not a.out:
        ap.error("--out is required")
    m = json.load(open(os.path.join(HERE, "manifest.json")))
    work = []
    for p in m["problems"]:
        for c in p["candidates"]:
            if a.only and not any((s == c["id"]) if a.exact else (s in c["id"]) for s in a.only):
                continue
            work.append((os.path.join(HERE, p["file"]), os.path.join(HERE, c["file"]), c))
    results, bad = {}, []
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(evaluate, ref, cand, a.arch, a.timeout_s, a.trials): c for ref, cand, c in work}
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
            if a.results:
                merge_results(a.results, c["id"], dict(compact(c, r, ok, wall), trials=a.trials or 5), a.arch)
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
