#!/usr/bin/env python3
"""kernsim against MGPUSim's MI300A measurements, per benchmark family.

Runs every spec under specs/ (gen_specs.py) with `kernsim run --arch mi300a --cache warm --json`
(the benchmarks time back-to-back launches without flushing any cache: each timed launch finds
the caches as the previous one left them), reads the measured mean time of the same
`kernel_name,problem_size` from calibration/data/mi300a/mgpusim_mi300a.csv, and prints a
markdown table per family and overall: MAPE, Spearman rank correlation, launches within 10/25%.

    python3 calibration/validation/amd/mi300a/compare.py --kernsim build/kernsim \\
        [--out predictions.csv] [--only FAMILY] [--cache warm|cold] [--jobs N]
"""
import argparse
import csv
import json
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
MEASURED = ROOT / "calibration" / "data" / "mi300a" / "mgpusim_mi300a.csv"


def measured():
    out = {}
    with open(MEASURED) as f:
        for row in csv.DictReader(f):
            out[f"{row['kernel_name']}:{row['problem_size']}"] = float(row["avg_ms"]) * 1000.0
    return out


def measured_min():
    with open(MEASURED) as f:
        return {f"{r['kernel_name']}:{r['problem_size']}": float(r["min_ms"]) * 1000.0 for r in csv.DictReader(f)}


def spearman(a, b):
    """Rank correlation: Pearson's r of the ranks, tied values sharing their mean rank."""
    if len(a) < 2:
        return float("nan")

    def ranks(x):
        x = np.asarray(x, dtype=float)
        r = np.empty(len(x))
        r[x.argsort(kind="stable")] = np.arange(len(x))
        for v in np.unique(x):
            r[x == v] = r[x == v].mean()
        return r

    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def run(kernsim, spec, cache):
    p = subprocess.run([kernsim, "run", str(spec), "--arch", "mi300a", "--cache", cache, "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    j = json.loads(p.stdout)
    return j["time_us"], j["sampling"]["note"]


def stats(rows):
    errs = [abs(p - m) / m for _, m, p in rows]
    return {
        "n": len(rows),
        "mape": 100.0 * sum(errs) / len(errs),
        "spearman": spearman([m for _, m, _ in rows], [p for _, _, p in rows]),
        "w10": sum(e <= 0.10 for e in errs),
        "w25": sum(e <= 0.25 for e in errs),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernsim", default=str(ROOT / "build" / "kernsim"))
    ap.add_argument("--out", help="write id,family,measured_us,kernsim_us,note")
    ap.add_argument("--only", help="run only specs whose family contains this")
    ap.add_argument("--cache", default="warm", choices=["warm", "cold"])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--rows", action="store_true", help="also print a markdown row per launch")
    ap.add_argument("--large-us", type=float, default=20.0, help="also summarise launches measured at least this long")
    a = ap.parse_args()
    meas = measured()
    specs = sorted((HERE / "specs").glob("*.json"))
    todo = []
    for s in specs:
        j = json.loads(s.read_text())
        if a.only and a.only not in j["family"]:
            continue
        sid = j["id"].split("#")[0]  # `id#part`: one of several launches timed together
        if sid not in meas:
            sys.exit(f"{s.name}: no measured time for {sid} in {MEASURED}")
        todo.append((s, j["id"], j["family"]))
    with ThreadPoolExecutor(a.jobs) as ex:
        got = list(ex.map(lambda t: run(a.kernsim, t[0], a.cache), todo))
    # the launches of one measured time add up (each with its own launch overhead)
    summed = {}
    for (s, pid, fam), (us, note) in zip(todo, got):
        sid = pid.split("#")[0]
        prev = summed.get(sid)
        if us is None or (prev is not None and prev[1] is None):
            summed[sid] = (fam, None, note)
        else:
            summed[sid] = (fam, us + (prev[1] if prev else 0.0), note if not prev else prev[2] + " | " + note)
    fams = {}
    lines = []
    for sid, (fam, us, note) in summed.items():
        m = meas[sid]
        if us is None:
            print(f"{sid}: kernsim failed: {note}", file=sys.stderr)
            continue
        fams.setdefault(fam, []).append((sid, m, us))
        lines.append((sid, fam, m, us, note))
        print(f"{sid:40s} measured {m:10.2f} us  kernsim {us:10.2f} us  {100 * (us - m) / m:+6.1f}%", file=sys.stderr)
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "family", "measured_us", "kernsim_us", "note"])
            for r in lines:
                w.writerow([r[0], r[1], f"{r[2]:.2f}", f"{r[3]:.3f}", r[4]])
    if a.rows:
        mins = measured_min()
        print("| launch | measured mean (min) us | kernsim us | error |")
        print("| --- | --- | --- | --- |")
        for sid, fam, m, us, _ in sorted(lines, key=lambda r: (r[1], r[2])):
            print(f"| {sid} | {m:.1f} ({mins[sid]:.1f}) | {us:.1f} | {100 * (us - m) / m:+.0f}% |")
        print()
    print("| family | launches | MAPE | Spearman | within 10% | within 25% |")
    print("| --- | --- | --- | --- | --- | --- |")
    every = []
    for fam in sorted(fams):
        st = stats(fams[fam])
        every += fams[fam]
        print(f"| {fam} | {st['n']} | {st['mape']:.1f}% | {st['spearman']:.3f} | {st['w10']} | {st['w25']} |")
    if every:
        st = stats(every)
        print(f"| **all** | {st['n']} | {st['mape']:.1f}% | {st['spearman']:.3f} | {st['w10']} | {st['w25']} |")
        big = [r for r in every if r[1] >= a.large_us]
        if big:
            st = stats(big)
            print(f"| all, measured >= {a.large_us:g} us | {st['n']} | {st['mape']:.1f}% | {st['spearman']:.3f} | {st['w10']} | {st['w25']} |")


if __name__ == "__main__":
    main()
