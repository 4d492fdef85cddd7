#!/usr/bin/env python3
"""The error sampling adds: every launch spec in DIR timed with a detail budget (sampled: SM
slice, windows) and with --full (every CTA timed), relative difference per launch and its mean.

  python3 calibration/validation/sampling_error.py calibration/validation/h200/specs --arch h200 \\
      --budget 300000 --max-measured-us 200 --measured calibration/data/h200/validation_measured_clang.csv

--budget lowers the detail budget (default 3M warp instructions) so that launches small enough
to time completely in reasonable time are still sampled; --max-measured-us keeps only launches
whose measured time is below the bound (their full simulation is affordable); --max-sampled-us
does the same by the sampled prediction, for a set without measurements (AMD):

  python3 calibration/validation/sampling_error.py calibration/validation/amd/specs --arch mi300x \
      --budget 300000 --max-sampled-us 60
"""
import argparse
import concurrent.futures
import csv
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time


def run(kernsim, spec, arch, full, budget):
    env = dict(os.environ)
    if budget:
        env["KERNSIM_DETAIL_BUDGET"] = str(budget)
    cmd = [kernsim, "run", spec, "--arch", arch, "--json"] + (["--full", "--time-limit", "0"] if full else [])
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{spec}: {p.stderr.strip()[:200]}")
    d = json.loads(p.stdout)
    return d["time_us"], d["sampling"]["note"], time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--kernsim", default="build/kernsim")
    ap.add_argument("--budget", type=int, default=300000, help="detail budget of the sampled run; 0: kernsim's default")
    ap.add_argument("--jobs", type=int, default=1, help="launches timed at once (one kernsim process each)")
    ap.add_argument("--measured", help="CSV id,median_us: with --max-measured-us, which launches to keep")
    ap.add_argument("--max-measured-us", type=float, default=0)
    ap.add_argument("--max-sampled-us", type=float, default=0,
                    help="time with --full only launches whose sampled prediction is at most this (a set with no "
                         "measurements, such as AMD's)")
    a = ap.parse_args()
    keep = None
    if a.measured and a.max_measured_us:
        with open(a.measured) as f:
            keep = {r["id"] for r in csv.DictReader(f) if float(r["median_us"]) <= a.max_measured_us}
    specs = []
    for spec in sorted(glob.glob(os.path.join(a.dir, "*.json"))):
        sid = os.path.splitext(os.path.basename(spec))[0]
        if keep is not None and sid not in keep:
            continue
        specs.append((sid, spec))

    def one(item):
        sid, spec = item
        ts, note, ss = run(a.kernsim, spec, a.arch, False, a.budget)
        if a.max_sampled_us and ts > a.max_sampled_us:
            return None
        tf, _, sf = run(a.kernsim, spec, a.arch, True, 0)
        if re.match(r"every \w+ timed in detail", note) or note.startswith("timed 0"):
            method = "complete"
        elif note.startswith("SM slice"):
            method = "slice"
        else:
            method = "windows"
        print(f"{sid:36s} sampled {ts:10.2f} us  full {tf:10.2f} us  {100 * (ts / tf - 1):+6.1f}%  {method:8s} "
              f"({ss:.1f} s vs {sf:.1f} s)", flush=True)
        return (sid, ts, tf, ts / tf - 1, method, ss, sf)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        rows = [r for r in pool.map(one, specs) if r is not None]
    sampled = [r for r in rows if r[4] != "complete"]
    print(f"{len(rows) - len(sampled)} of {len(rows)} launches timed every CTA when sampled")
    if sampled:
        errs = [abs(r[3]) for r in sampled]
        print(f"\n{len(sampled)} sampled launches (budget {a.budget or 'default'}): mean |error| {100 * statistics.mean(errs):.1f}%, "
              f"median {100 * statistics.median(errs):.1f}%, max {100 * max(errs):.1f}%; "
              f"simulation time {statistics.median([r[5] for r in sampled]):.2f} s sampled vs "
              f"{statistics.median([r[6] for r in sampled]):.2f} s full (medians)")


if __name__ == "__main__":
    sys.exit(main())
