#!/usr/bin/env python3
"""stream_startup.cu's GPU measurement beside kernsim: runs cuda/specs_startup/ss_{read,copy}_*m.json
and prints, per kernel and size, the H200's event times with the buffer's pages cold, touched
(translations warm) and warm (no flush) next to kernsim's time, the timelines' first-microsecond
bandwidths and the page-chase cycles.

  python3 calibration/microbenchmarks/stream_startup_compare.py OUT/stream_startup.jsonl [--arch h200]
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("measured", help="stream_startup.jsonl from s7_stream_startup.sh")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build", "kernsim"))
    a = ap.parse_args()
    size, timeline, chase = {}, [], []
    for line in open(a.measured):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("part") == "size":
            size[(r["kernel"], r["mib"], r["state"])] = r["median_us"]
        elif r.get("part") == "timeline":
            timeline.append(r)
        elif r.get("part") == "page_chase":
            chase.append(r)
    print("%-6s %5s %9s %9s %9s %9s %8s" % ("kernel", "MiB", "cold", "touched", "warm", "kernsim", "vs cold"))
    def order(path):
        name = os.path.basename(path)[:-len(".json")].split("_")
        return name[1], int(name[2][:-1])

    for path in sorted(glob.glob(os.path.join(HERE, "cuda", "specs_startup", "*.json")), key=order):
        spec = json.load(open(path))
        kernel = spec["kernel"][3:]
        mib = int(spec["id"].split("_")[-1][:-1])
        p = subprocess.run([a.kernsim, "run", path, "--arch", a.arch, "--json"], capture_output=True, text=True)
        t = json.loads(p.stdout)["time_us"] if p.returncode == 0 else None
        m = [size.get((kernel, mib, s)) for s in ("cold", "touched", "warm")]
        f = lambda v: "-" if v is None else "%.2f" % v
        err = "-" if t is None or not m[0] else "%+.1f%%" % (100 * (t - m[0]) / m[0])
        print("%-6s %5d %9s %9s %9s %9s %8s" % (kernel, mib, f(m[0]), f(m[1]), f(m[2]), f(t), err))
        sys.stdout.flush()
    for r in timeline:
        bins = r["gbps_per_500ns"]
        print("timeline %4d MiB: last start %6.2f us, last end %6.2f us, GB/s per 0.5 us: %s" %
              (r["mib"], r["last_start_ns"] / 1e3, r["last_end_ns"] / 1e3, " ".join(str(round(b)) for b in bins[:16])))
    for r in chase:
        print("page_chase %-20s %7.1f cycles/load (min %.1f, max %.1f)" % (r["pattern"], r["cycles_per_load_median"], r["min"], r["max"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
