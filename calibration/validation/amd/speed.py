#!/usr/bin/env python3
"""Runs the AMD launch set (specs/*.json) through kernsim and reports, per launch, the predicted
time, the fraction timed in detail and what the run cost one core (user + system CPU seconds of
the kernsim process), then the median cost: the speed figure docs/amd.md quotes.

    python3 calibration/validation/amd/speed.py --kernsim build/kernsim --arch mi300x [--only 'sgemm*'] [--json out.json]
"""
import argparse
import fnmatch
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernsim", default=os.path.join(HERE, "..", "..", "..", "build", "kernsim"))
    ap.add_argument("--arch", default="mi300x")
    ap.add_argument("--only", default="*", help="glob over spec ids")
    ap.add_argument("--full", action="store_true", help="time every workgroup (kernsim run --full)")
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args()
    specs = sorted(f for f in os.listdir(os.path.join(HERE, "specs")) if f.endswith(".json") and fnmatch.fnmatch(f[:-5], a.only))
    rows = []
    for f in specs:
        cmd = [a.kernsim, "run", os.path.join(HERE, "specs", f), "--arch", a.arch, "--json"] + (["--full"] if a.full else [])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if p.returncode != 0:
            print(f"{f[:-5]:32s} FAILED exit {p.returncode}: {p.stderr.strip()[-200:]}")
            rows.append({"id": f[:-5], "error": p.stderr.strip()[-500:], "cpu_s": cpu})
            continue
        j = json.loads(p.stdout)
        row = {"id": f[:-5], "time_us": j["time_us"], "fraction_timed": j["sampling"]["fraction_timed"], "bottleneck": j["bottleneck"],
               "cpu_s": cpu, "wall_s": wall, "max_rss_mb": after.ru_maxrss / 1024}
        rows.append(row)
        print(f"{row['id']:32s} {row['time_us']:10.2f} us  timed {100 * row['fraction_timed']:5.1f}%  {row['bottleneck']:8s} "
              f"cpu {cpu:6.2f} s  wall {wall:6.2f} s", flush=True)
    costs = [r["cpu_s"] for r in rows if "error" not in r]
    if costs:
        print(f"{len(costs)} launches on {a.arch}: median {statistics.median(costs):.2f} s of CPU per launch, "
              f"max {max(costs):.2f} s, {sum(1 for r in rows if 'error' in r)} failed")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"arch": a.arch, "rows": rows}, fh, indent=1)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
