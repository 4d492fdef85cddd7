#!/usr/bin/env python3
"""Simulation speed: CPU seconds (user + system, one core: kernsim runs a launch on one thread)
that `kernsim run` takes for every launch spec in DIR, with the compile cache warm (each spec
is run once first). Prints per launch and the median/max; CPU time, not wall time, so that other
work on the machine does not inflate it.

  python3 calibration/validation/sim_speed.py calibration/validation/h200/specs --arch h200
"""
import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys


def cpu_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip()[:300])
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--kernsim", default="build/kernsim")
    ap.add_argument("--reps", type=int, default=1, help="timed runs per launch (median)")
    a = ap.parse_args()
    rows = []
    for spec in sorted(glob.glob(os.path.join(a.dir, "*.json"))):
        cmd = [a.kernsim, "run", spec, "--arch", a.arch, "--json"]
        _, out = cpu_of(cmd)  # warm the compile cache
        insts = json.loads(out)["sampling"]["warp_instructions_timed"]
        times = [cpu_of(cmd)[0] for _ in range(a.reps)]
        t = statistics.median(times)
        rows.append((os.path.basename(spec), t, insts))
        print(f"{os.path.basename(spec):40s} {t:7.2f} s  {insts / max(t, 1e-9) / 1e6:6.2f} M timed warp inst/s", flush=True)
    ts = [r[1] for r in rows]
    print(f"\n{len(rows)} launches: median {statistics.median(ts):.2f} s, max {max(ts):.2f} s CPU per launch")


if __name__ == "__main__":
    sys.exit(main())
