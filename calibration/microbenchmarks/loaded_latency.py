#!/usr/bin/env python3
"""HBM latency under load, simulated: runs the launch specs in cuda/specs_loaded (kernel
cuda/loaded_latency.cu) with --full and derives, as the GPU's host program does, the streaming
CTAs' bandwidth and the chase's cycles per step while every streaming CTA was running; prints them
beside the H200 measurement (calibration/data/h200/loaded_latency.json).

  python3 calibration/microbenchmarks/loaded_latency.py --arch h200
"""
import argparse
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def derive(spec, out):
    steps = spec["args"][3]["value"]
    marks = steps // 64
    n = spec["grid"][0] - 1
    off = 2 * (marks + 1)
    stream_bytes = spec["args"][5]["value"] * 16
    if n:
        st = [out[off + 2 * b] for b in range(n)]
        en = [out[off + 2 * b + 1] for b in range(n)]
        s0, s1, lo, hi = max(st), min(en), min(st), max(en)
        gbps = stream_bytes / (hi - lo) if hi > lo else None
    else:
        s0, s1, gbps = 0, float("inf"), 0.0
    inside = [m for m in range(marks + 1) if s0 <= out[2 * m + 1] <= s1]
    lat = (out[2 * inside[-1]] - out[2 * inside[0]]) / (64.0 * (inside[-1] - inside[0])) if len(inside) > 1 else None
    return gbps, lat


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build", "kernsim"))
    ap.add_argument("--measured", default=os.path.join(ROOT, "calibration", "data", "h200", "loaded_latency.json"))
    a = ap.parse_args()
    meas = {}
    if a.measured and os.path.exists(a.measured):
        for r in json.load(open(a.measured))["results"]:
            meas[(r["loads_in_flight_per_thread"], r["stream_ctas_per_sm"])] = r
    print("%-10s %-5s %12s %12s %14s %14s" % ("ctas/SM", "loads", "sim GB/s", "GPU GB/s", "sim cyc/step", "GPU cyc/step"))
    for path in sorted(glob.glob(os.path.join(HERE, "cuda", "specs_loaded", "*.json"))):
        spec = json.load(open(path))
        u = 4 if spec["kernel"].endswith("u4") else 1
        per_sm = (spec["grid"][0] - 1 + 131) // 132
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([a.kernsim, "run", path, "--arch", a.arch, "--full", "--dump-buffers", d], capture_output=True, text=True)
            if r.returncode != 0:
                print(spec["id"], "FAILED:", r.stderr.strip()[-300:])
                continue
            raw = open(os.path.join(d, "arg6.out.bin"), "rb").read()
        out = struct.unpack("<%dQ" % (len(raw) // 8), raw)
        gbps, lat = derive(spec, out)
        m = meas.get((u, per_sm), {})
        f = lambda v: "-" if v is None else "%.0f" % v
        print("%-10d %-5d %12s %12s %14s %14s" % (per_sm, u, f(gbps), f(m.get("stream_gbps")), f(lat), f(m.get("chase_cycles_per_step"))))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
