#!/usr/bin/env python3
"""The L2 read sectors kernsim sends for the Hopper GEMMs Nsight Compute profiled, against the
sectors the H200's L2 saw from the SMs (issue 19 part 2: the cp.async GEMM miss).

  python3 calibration/validation/hopper/l2_sector_ratio.py [--kernsim build/kernsim] [--jobs 2]
      [--from-json DIR]      # DIR: `compare_kernsim.py --save-json DIR` reports, instead of running

Measured: `calibration/data/h200/ncu_hopper_l2.tar.gz` (2026-12-04, `--clock-control none`),
`lts__t_sectors_srcunit_tex_op_read.sum` per launch (the mean of the profiled launches of each
kernel: a checked run and the timed one, and for the ladder nvcc's and clang's builds), with the
SM and L2 clocks. Requested: what the tiles ask for, every CTA reading its A rows and B columns
once over K: CTAs x (BLOCK_M + BLOCK_N) x K x element bytes / 32. kernsim: the report's
`memory.l2.bytes` (reads and writes reaching the L2, whole grid) less the output's bytes (C, written
once), over 32. A ratio below 1 on the H200 means reads of the same sectors by several SMs reached
the L2 once (calibration/data/h200/l2_merge_*: the two SMs of a TPC merge fully, SMs of a GPC in
part); kernsim has no such merging, so its ratio is about 1 and its L2 does ~1/ratio times the
H200's work.
"""
import argparse
import concurrent.futures as cf
import csv
import io
import json
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
NCU = os.path.join(ROOT, "calibration/data/h200/ncu_hopper_l2.tar.gz")

# launch id -> (ncu kernel name, grid, BLOCK_M, BLOCK_N); all bf16 4096^3
LAUNCHES = {
    "tmm_bf16_4096_128x128x64_w4s4": ("matmul", 1024, 128, 128),
    "tmm_bf16_4096_128x256x64_w8s3": ("matmul", 512, 128, 256),
    "tmm_bf16_4096_64x128x64_w4s4": ("matmul", 2048, 64, 128),
    "tmm_tma_bf16_4096_128x256x64_w8s3": ("matmul_tma", 512, 128, 256),
    "ladder_bf16_4096_v3_wgmma_tma": ("ladder_wgmma_tma", 1024, 128, 128),
    "ladder_bf16_4096_v4_wgmma_ws": ("ladder_wgmma_ws", 512, 128, 256),
}
M = N = K = 4096
ESIZE = 2


def ncu_rows():
    rows = []
    with tarfile.open(NCU) as t:
        for name in ("ncu_g1.csv", "ncu_g2.csv"):
            txt = t.extractfile(name).read().decode()
            rows += list(csv.DictReader(io.StringIO(txt[txt.index('"ID"'):])))
    return rows


def measured():
    out = {}
    for r in ncu_rows():
        grid = int(r["Grid Size"].strip("()").split(",")[0])
        for lid, (kname, g, _, _) in LAUNCHES.items():
            if r["Kernel Name"] == kname and grid == g:
                v = float(r["Metric Value"].replace(",", ""))
                out.setdefault(lid, {}).setdefault(r["Metric Name"], []).append(v)
    return {lid: {k: sum(v) / len(v) for k, v in m.items()} for lid, m in out.items()}


def requested_sectors(lid):
    _, grid, bm, bn = LAUNCHES[lid]
    return grid * (bm + bn) * K * ESIZE / 32


def kernsim_report(kernsim, lid):
    spec = os.path.join(HERE, "specs", lid + ".json")
    p = subprocess.run([kernsim, "run", spec, "--arch", "h200", "--json"], capture_output=True, text=True, cwd=ROOT)
    return lid, (json.loads(p.stdout) if p.returncode == 0 else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build", "kernsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--from-json", metavar="DIR")
    a = ap.parse_args()
    meas = measured()
    reports = {}
    if a.from_json:
        for lid in LAUNCHES:
            f = os.path.join(a.from_json, lid + ".json")
            if os.path.exists(f):
                reports[lid] = json.load(open(f))
    else:
        with cf.ThreadPoolExecutor(a.jobs) as ex:
            reports = dict(ex.map(lambda lid: kernsim_report(a.kernsim, lid), LAUNCHES))
    print("| launch | requested M sectors | H200 L2 read M sectors | H200 ratio | SM / L2 GHz | kernsim M sectors | kernsim ratio | kernsim / H200 |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    for lid in LAUNCHES:
        req = requested_sectors(lid)
        m = meas.get(lid, {})
        ms = m.get("lts__t_sectors_srcunit_tex_op_read.sum")
        clk = (f"{m['sm__cycles_elapsed.avg.per_second'] / 1e9:.2f} / {m['lts__cycles_elapsed.avg.per_second'] / 1e9:.2f}"
               if "sm__cycles_elapsed.avg.per_second" in m else "—")
        j = reports.get(lid)
        ks = None
        if j:
            ks = (j["memory"]["l2"]["bytes"] - M * N * ESIZE) / 32
        cells = [lid, f"{req / 1e6:.1f}", f"{ms / 1e6:.1f}" if ms else "—", f"{ms / req:.2f}" if ms else "—", clk,
                 f"{ks / 1e6:.1f}" if ks else "not run", f"{ks / req:.2f}" if ks else "—",
                 f"{ks / ms:.2f}" if ks and ms else "—"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
