#!/usr/bin/env python3
"""kernsim against the H100's flush_state measurement (calibration/data/h100/flush_state/): the
ReLU, read-only and write-only streams of cuda/flush_state.cu at 4-256 MiB per buffer, each after a
read flush (kernsim --cache cold) and a write flush (--cache cold-dirty), predicted and measured
medians side by side. The launches are the measured ones: the same kernels, grid and block.

    python3 calibration/microbenchmarks/flush_state_compare.py [--kernsim build/kernsim] [--arch h100]
        [--sizes 8,32,128] [--kernels relu,read,write] [--json OUT]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "calibration", "data", "h100", "flush_state", "flush_state.jsonl")
SOURCE = os.path.join(HERE, "cuda", "flush_state.cu")
MODES = {"read": "cold", "write": "cold-dirty"}  # measured flush -> kernsim cache state


def spec(kernel, n):
    buf = {"buffer": "f32", "count": n, "init": "zeros"}
    args = {"relu": [buf, dict(buf), {"type": "i64", "value": n}],
            "read": [buf, dict(buf), {"type": "i64", "value": n}],
            "write": [buf, {"type": "i64", "value": n}]}[kernel]
    return {"spec_version": 1, "source": SOURCE, "kernel": "fs_" + kernel, "grid": [(n + 255) // 256, 1, 1],
            "block": [256, 1, 1], "args": args}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build", "kernsim"))
    ap.add_argument("--arch", default="h100")
    ap.add_argument("--sizes", default="8,32,128", help="MiB per buffer (of 4,8,...,256)")
    ap.add_argument("--kernels", default="relu,read,write")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    measured = {}
    for line in open(DATA):
        d = json.loads(line)
        measured[(d["kernel"], d["bytes_per_buffer"] >> 20, d["flush"])] = d["median_us"]
    rows, errs = [], {m: [] for m in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for k in a.kernels.split(","):
            for mib in (int(x) for x in a.sizes.split(",")):
                path = os.path.join(tmp, f"{k}_{mib}.json")
                with open(path, "w") as f:
                    json.dump(spec(k, mib << 18), f)
                for flush, cache in MODES.items():
                    out = subprocess.run([a.kernsim, "run", path, "--arch", a.arch, "--cache", cache, "--json"],
                                         capture_output=True, text=True)
                    if out.returncode:
                        sys.exit(f"kernsim failed on {k} {mib} MiB {cache}: {out.stderr.strip()}")
                    r = json.loads(out.stdout)
                    m = measured[(k, mib, flush)]
                    err = r["time_us"] / m - 1
                    errs[flush].append(abs(err))
                    dram = r["memory"]["dram"]
                    rows.append({"kernel": k, "mib": mib, "flush": flush, "cache": cache, "measured_us": m,
                                 "kernsim_us": r["time_us"], "error": err, "dram_write_mb": dram["write_bytes"] / 1e6})
                    print(f"{k:6s} {mib:4d} MiB  {flush:5s} flush ({cache:10s})  measured {m:8.2f} us  "
                          f"kernsim {r['time_us']:8.2f} us  {100 * err:+6.1f}%  DRAM write {dram['write_bytes'] / 1e6:6.1f} MB",
                          flush=True)
    for flush, e in errs.items():
        if e:
            print(f"{flush} flush: MAPE {100 * sum(e) / len(e):.1f}% over {len(e)} launches")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
