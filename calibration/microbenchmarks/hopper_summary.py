#!/usr/bin/env python3
"""Merges a run of the Hopper groups (run_cuda.py --groups clock,wgmma,tma,hsync) and hopper_clock.py
into calibration/data/h200/hopper_microbench.json, and prints the tables of docs/calibration.md.

    python3 calibration/microbenchmarks/hopper_summary.py --mb DIR/mb/cuda_microbench.json \
        --clock DIR/clk/hopper_clock.json --out calibration/data/h200/hopper_microbench.json \
        --provenance '{"command": "...", "device_call": "..."}'
    python3 calibration/microbenchmarks/hopper_summary.py --data calibration/data/h200/hopper_microbench.json
"""
import argparse
import json
import sys

TYPES = ["f16f32", "bf16f32", "f16f16", "tf32f32", "e4m3f32", "s8s32"]
K = {"f16f32": 16, "bf16f32": 16, "f16f16": 16, "tf32f32": 8, "e4m3f32": 32, "s8s32": 32}
NS = [8, 16, 32, 64, 128, 256]


def merge(args):
    mb = json.load(open(args.mb))
    clk = json.load(open(args.clock))
    prov = json.loads(args.provenance) if args.provenance else {}
    keep = [r for r in mb["results"] if r["name"].split(".")[0] in
            ("clock", "wgmma", "tma", "mbar", "dsmem", "cluster", "setmaxnreg")]
    for r in keep:
        r.pop("raw_samples", None) if len(r.get("raw_samples", [])) > 40 else None
    doc = {
        "schema": "kernsim-hopper-microbench/1",
        "provenance": dict(prov, **{
            "measured_utc": mb.get("created_utc"),
            "gpu": mb["device"].get("name"),
            "driver": mb.get("driver_version"),
            "cuda": mb.get("cuda_version"),
            "sm_count": mb.get("sm_count"),
            "clocks_before": mb["clocks"].get("before"),
            "clocks_after": mb["clocks"].get("after"),
            "sm_mhz_measured_idle_spin": mb["clocks"].get("sm_mhz_measured"),
            "build_flags": mb["toolchain"].get("build", {}).get("flags"),
            "run_cuda_command": mb.get("command"),
            "hopper_clock_command": clk.get("command"),
        }),
        "device": mb["device"],
        "results": keep,
        "values": {r["name"]: r["value"] for r in keep},
        "errors": mb.get("errors", []),
        "sass_checks_failed": [c for c in mb.get("sass_checks", []) if not c["ok"]],
        "kernels_ptxas": {k: v for k, v in mb.get("kernels_ptxas", {}).items()
                          if k.startswith(("wgmma_", "tma_", "mbar_", "dsmem_", "cluster_", "nreg_"))},
        "tensor_clock": clk,
    }
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
    return doc


def f(v, d=1):
    return "-" if v is None else ("%.*f" % (d, v))


def tables(doc):
    v = doc["values"]
    p = {r["name"]: r["params"] for r in doc["results"]}
    out = []
    out.append("| type | form | " + " | ".join("N=%d" % n for n in NS) + " |")
    out.append("| --- | --- |" + " --- |" * len(NS))
    for t in TYPES:
        for form in ("ss", "rs"):
            cells = []
            for n in NS:
                iss = v.get("wgmma.issue_%s_%s_n%d_wg1" % (form, t, n))
                lat = v.get("wgmma.lat_%s_%s_n%d" % (form, t, n))
                cells.append("%s / %s" % (f(iss), f(lat)))
            out.append("| %s | %s | %s |" % (t, form.upper(), " | ".join(cells)))
    out.append("")
    out.append("| type | " + " | ".join("N=%d" % n for n in NS) + " |")
    out.append("| --- |" + " --- |" * len(NS))
    for t in TYPES:
        cells = []
        for n in NS:
            r = p.get("wgmma.issue_ss_%s_n%d_wg1" % (t, n))
            cells.append(f(r["flop_per_clk_per_sm"], 0) if r else "-")
        out.append("| %s | %s |" % (t, " | ".join(cells)))
    out.append("")
    wg = []
    for n in NS:
        row = [f(v.get("wgmma.issue_ss_bf16f32_n%d_wg%d" % (n, w)), 2) for w in (1, 2, 4)]
        wg.append("| %d | %s |" % (n, " | ".join(row)))
    out.append("| N (bf16 SS) | 1 WG | 2 WG | 4 WG |")
    out.append("| --- | --- | --- | --- |")
    out += wg
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb")
    ap.add_argument("--clock")
    ap.add_argument("--out")
    ap.add_argument("--provenance")
    ap.add_argument("--data")
    args = ap.parse_args()
    doc = merge(args) if args.mb else json.load(open(args.data))
    print(tables(doc))
    for name in sorted(doc["values"]):
        if not name.startswith("wgmma."):
            print("%-36s %s" % (name, doc["values"][name]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
