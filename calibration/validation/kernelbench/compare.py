#!/usr/bin/env python3
"""Compares kernsim's KernelBench verdicts and speedups with a GPU's (issue 19 part 3; H200 or H100).

Inputs: the H200 run's kernelbench_h200.json (measure_h200.py) and kernsim's answers, one JSON object
per candidate id in the shape of `python3 -m kernsim.kernelbench REF CAND --arch h200 --json`
({"compiled", "correct", "speedup", "hacks", ...}). With --run, kernsim's answers are produced here
(one CLI call per candidate, --baseline the H200's baseline_time_torch.json) and saved.

Reports: verdicts (compiled and correct) identical per candidate, over the candidates that are not
hacks (kernsim may legitimately call a hack incorrect where KernelBench's check passes it, e.g. the
%globaltimer one if kernsim's two runs come less than 2 ms apart in simulated time); every manifest
hack flagged by kernsim; Spearman rank correlation of speedups over the candidates both call correct and time.

  python3 calibration/validation/kernelbench/compare.py --h200 calibration/data/h200/kernelbench \\
      --run --save /tmp/kernsim_kb.json
  python3 calibration/validation/kernelbench/compare.py --h200 DIR --kernsim /tmp/kernsim_kb.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
KB_DIR = os.path.join(REPO, "tests", "kernelbench")


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Spearman's rho with average ranks for ties (Pearson correlation of the ranks)."""
    if len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else None


def run_one(p, c, baseline, timeout_s, arch):
    cmd = [sys.executable, "-m", "kernsim.kernelbench", os.path.join(KB_DIR, p["file"]),
           os.path.join(KB_DIR, c["file"]), "--arch", arch, "--json"]
    if baseline:
        cmd += ["--baseline", baseline]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        return json.loads(r.stdout) if r.stdout.strip() else {"error": r.stderr[-1500:]}
    except subprocess.TimeoutExpired:
        return {"error": f"kernsim did not answer within {timeout_s} s"}
    except json.JSONDecodeError:
        return {"error": "kernsim printed no JSON: " + r.stdout[-500:]}


def run_kernsim(manifest, baseline, timeout_s, arch, only=None, jobs=1, save=None):
    """kernsim's answer for every candidate whose id matches `only`, `jobs` at a time; with `save`
    the answers so far are written after each one (a long run keeps what it finished)."""
    import re
    from concurrent.futures import ThreadPoolExecutor
    todo = [(p, c) for p in manifest["problems"] for c in p["candidates"]
            if c.get("run_on_gpu", True) and (not only or re.search(only, c["id"]))]
    out = {}
    if save and os.path.exists(save):
        with open(save) as f:
            out = json.load(f)
        todo = [(p, c) for p, c in todo if c["id"] not in out]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futures = {ex.submit(run_one, p, c, baseline, timeout_s, arch): c["id"] for p, c in todo}
        for fut in futures:
            cid = futures[fut]
            out[cid] = fut.result()
            print(f"{cid}: {json.dumps({k: out[cid].get(k) for k in ('compiled', 'correct', 'speedup', 'runtime_us', 'hacks')})}",
                  flush=True)
            if save:
                with open(save, "w") as f:
                    json.dump(out, f, indent=1)
    return out


def compare(h200, ks, manifest):
    man = {c["id"]: c for p in manifest["problems"] for c in p["candidates"]}
    rows, same, total, sp_h, sp_k, missed = [], 0, 0, [], [], []
    pairs_t = []  # (measured mean µs, kernsim runtime µs) of candidates both call correct
    for prob in h200["problems"]:
        for c in prob["candidates"]:
            if c.get("skipped") or "verdict" not in c or c["id"] not in ks:
                continue  # not measured, or not run in kernsim (a subset)
            k = ks[c["id"]]
            hv = (bool(c.get("compiled")), bool(c.get("correct")))
            kv = (bool(k.get("compiled")), bool(k.get("correct")))
            hack = man.get(c["id"], {}).get("hack")
            if hack is None:  # a hack's verdict may differ: kernsim may see through it (NaN fill, two inputs)
                total += 1
                same += hv == kv
            flagged = hack is None or any(hack in str(h) for h in (k.get("hacks") or []))
            if not flagged:
                missed.append(c["id"])
            if c.get("speedup") and k.get("speedup") and hv[1] and kv[1] and hack is None:
                sp_h.append(c["speedup"])
                sp_k.append(k["speedup"])
                mean_ms = (c.get("stats") or {}).get("mean")
                if mean_ms and k.get("runtime_us"):
                    pairs_t.append((mean_ms * 1e3, k["runtime_us"]))
            rows.append((c["id"], hv, kv, c.get("speedup"), k.get("speedup"), hack, flagged))
    mape = sum(abs(k / m - 1) for m, k in pairs_t) / len(pairs_t) if pairs_t else None
    return {"candidates": total, "verdicts_identical": same, "hacks_missed": missed,
            "speedup_pairs": len(sp_h), "spearman": spearman(sp_h, sp_k), "rows": rows,
            "time_pairs": len(pairs_t), "time_mape": mape,
            "time_spearman": spearman([m for m, _ in pairs_t], [k for _, k in pairs_t])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h200", "--measured", dest="h200", required=True,
                    help="folder with the GPU run's kernelbench_<part>.json and baseline_time_torch.json")
    ap.add_argument("--only", help="--run: a regex on candidate ids")
    ap.add_argument("--jobs", type=int, default=1, help="--run: candidates at a time")
    ap.add_argument("--kernsim", help="kernsim's answers (JSON object keyed by candidate id)")
    ap.add_argument("--run", action="store_true", help="run kernsim's CLI for every candidate")
    ap.add_argument("--save", help="where --run writes kernsim's answers")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--timeout-s", type=int, default=600)
    args = ap.parse_args()
    import glob
    found = sorted(glob.glob(os.path.join(args.h200, "kernelbench_*.json")))
    if not found:
        ap.error(f"{args.h200}: no kernelbench_<part>.json")
    with open(found[0]) as f:
        h200 = json.load(f)
    with open(os.path.join(KB_DIR, "manifest.json")) as f:
        manifest = json.load(f)
    if args.run:
        base = os.path.join(args.h200, "baseline_time_torch.json")
        ks = run_kernsim(manifest, base if os.path.exists(base) else None, args.timeout_s, args.arch,
                         args.only, args.jobs, args.save)
    elif args.kernsim:
        with open(args.kernsim) as f:
            ks = json.load(f)
    else:
        ap.error("give --kernsim FILE or --run")
    r = compare(h200, ks, manifest)
    print("| candidate | H200 compiled/correct | kernsim compiled/correct | H200 speedup | kernsim speedup | hack | flagged |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for cid, hv, kv, hs, kspd, hack, fl in r["rows"]:
        f = (lambda x: f"{x:.2f}" if isinstance(x, (int, float)) else "-")
        print(f"| {cid} | {hv[0]}/{hv[1]} | {kv[0]}/{kv[1]} | {f(hs)} | {f(kspd)} | {hack or ''} | {'yes' if fl else 'NO'} |")
    rho = r["spearman"]
    print(f"\nverdicts identical: {r['verdicts_identical']} of {r['candidates']} (hacks excluded); hacks missed: "
          f"{len(r['hacks_missed'])} {r['hacks_missed']}; speedup Spearman over {r['speedup_pairs']} candidates: "
          f"{'n/a' if rho is None else f'{rho:.3f}'} (target >= 0.9)")
    if r["time_pairs"]:
        print(f"candidate times (kernsim runtime_us against the measured mean) over {r['time_pairs']} candidates: "
              f"MAPE {100 * r['time_mape']:.1f}%, Spearman {r['time_spearman']:.3f}")
    ok = r["verdicts_identical"] == r["candidates"] and not r["hacks_missed"] and rho is not None and rho >= 0.9
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
