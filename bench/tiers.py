"""Seconds per launch of both tiers on the validation set, as a new user runs kernsim.

    python3 bench/tiers.py [--tiers fast detailed] [--specs DIR] [--measured CSV] [--arch h200]
                           [--only SUBSTRING] [--json OUT.json]

One `kernsim run SPEC --tier T --json` process per launch (what a script or an RL worker that
shells out pays: process start, device file, compile-cache lookup, decode, buffers, the model),
after one untimed run of each spec that leaves its compile in the cache. Wall seconds come from
the clock around the process, CPU seconds (user + system) from the kernel's accounting of the
child; on a machine shared with other work prefer CPU seconds. The functional rate is the warp
instructions the tier executed (the detailed tier's timed window, the fast tier's sampled CTAs)
over the CPU seconds of all launches together.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def run_one(kernsim, spec, arch, tier):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    # no wall-time limit: on a loaded machine a 5-CPU-second launch can take 120 s of wall time
    p = subprocess.run([kernsim, "run", spec, "--arch", arch, "--tier", tier, "--json", "--time-limit", "0"],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        return {"spec": spec, "tier": tier, "wall_s": wall, "cpu_s": cpu, "failure": p.stderr.strip()[-300:]}
    r = json.loads(p.stdout)
    s = r.get("sampling", {})
    executed = s.get("warp_instructions_sampled", s.get("warp_instructions_timed", 0))
    return {"spec": spec, "id": r.get("id", ""), "tier": tier, "wall_s": wall, "cpu_s": cpu, "time_us": r["time_us"],
            "warp_instructions": executed}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiers", nargs="+", default=["fast", "detailed"])
    ap.add_argument("--specs", default=os.path.join(ROOT, "calibration/validation/h200/specs"))
    ap.add_argument("--measured", default=os.path.join(ROOT, "calibration/data/h200/validation_measured_clang.csv"),
                    help="only specs with an id in this CSV run (the validation set)")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build/kernsim"))
    ap.add_argument("--only", default="")
    ap.add_argument("--json", help="write every launch's figures here")
    a = ap.parse_args()

    ids = set()
    with open(a.measured) as f:
        for line in f.readlines()[1:]:
            if line.strip():
                ids.add(line.split(",")[0])
    specs = []
    for name in sorted(os.listdir(a.specs)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(a.specs, name)
        with open(path) as f:
            sid = json.load(f).get("id", name[:-5])
        if sid in ids and a.only in sid:
            specs.append(path)
    if not specs:
        sys.exit("no launch spec under %s has a measured time in %s" % (a.specs, a.measured))

    for s in specs:  # the compile cache, warm
        subprocess.run([a.kernsim, "run", s, "--arch", a.arch, "--tier", "fast"], capture_output=True)

    rows = []
    for tier in a.tiers:
        for s in specs:
            rows.append(run_one(a.kernsim, s, a.arch, tier))
            r = rows[-1]
            print("%-8s %-36s wall %7.3f s  cpu %7.3f s%s" % (tier, os.path.basename(s)[:-5], r["wall_s"], r["cpu_s"],
                  "  FAILED " + r["failure"] if "failure" in r else ""), file=sys.stderr)

    print("%d launches of %s, one process each, compile cached (%s)" % (len(specs), a.specs, a.arch))
    print("%-9s %8s %8s %8s   %8s %8s %8s   %14s  %s" % ("tier", "wall med", "p90", "max", "cpu med", "p90", "max",
                                                           "warp inst/s", "failed"))
    for tier in a.tiers:
        ok = [r for r in rows if r["tier"] == tier and "failure" not in r]
        wall = [r["wall_s"] for r in ok]
        cpu = [r["cpu_s"] for r in ok]
        rate = sum(r["warp_instructions"] for r in ok) / max(1e-9, sum(cpu))
        print("%-9s %8.3f %8.3f %8.3f   %8.3f %8.3f %8.3f   %14.3g  %d" % (
            tier, statistics.median(wall), pct(wall, 0.9), max(wall), statistics.median(cpu), pct(cpu, 0.9), max(cpu),
            rate, len([r for r in rows if r["tier"] == tier]) - len(ok)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
