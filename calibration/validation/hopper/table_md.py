#!/usr/bin/env python3
"""The docs/validation.md tables of the Hopper set from the measurement JSON(s).

  python3 calibration/validation/hopper/table_md.py calibration/data/h200/hopper_validation.json \
      [--repeat calibration/data/h200/hopper_validation_repeat.json] [--predicted CSV id,us]
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import launches as hl  # noqa: E402


def shape_of(L):
    def v(n):
        return next(a["value"] for a in L["args"] if a.get("name") == n)
    if L["ref"] == "attention":
        B, H, S, D = next(a for a in L["args"] if a["name"] == "q_ptr")["shape"]
        return f"B{B} H{H} S{S} d{D}{' causal' if L['constexprs']['CAUSAL'] else ''}"
    if L["ref"] == "moe":
        T, K = next(a for a in L["args"] if a["name"] == "x_ptr")["shape"]
        return f"T{T} N{v('N')} K{K}, 8 experts"
    dt = next(a for a in L["args"] if a["name"] == "a_ptr")["dtype"]
    return f"{dt} {v('M')}x{v('N')}x{v('K')}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured")
    ap.add_argument("--repeat")
    ap.add_argument("--predicted", help="CSV of id,predicted_us (kernsim), where it has run")
    a = ap.parse_args()
    m = {r["id"]: r for r in json.load(open(a.measured))["launches"]}
    rep = {r["id"]: r for r in json.load(open(a.repeat))["launches"]} if a.repeat else {}
    pred = {}
    if a.predicted:
        with open(a.predicted) as f:
            pred = {row["id"]: float(row["predicted_us"]) for row in csv.DictReader(f)}
    print("| launch | shape | measured µs (median) | repeat µs | TFLOP/s | correct (torch / numpy) | kernsim µs |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: |")
    for L in hl.all_launches():
        r = m.get(L["id"])
        if not r or "median_us" not in r:
            print(f"| {L['id']} | {shape_of(L)} | — | — | — | {r.get('error', 'not run') if r else 'not run'} | — |")
            continue
        rr = rep.get(L["id"], {})
        ok = f"{'yes' if r['torch_check']['ok'] else 'NO'} {r['torch_check']['rel_l2']:.1e} / " \
             f"{'yes' if r['numpy_check']['ok'] else 'NO'} {r['numpy_check']['rel_l2']:.1e}"
        p = pred.get(L["id"])
        print(f"| {L['id']} | {shape_of(L)} | {r['median_us']:.1f} | {rr.get('median_us', float('nan')):.1f} | "
              f"{r['tflops']:.0f} | {ok} | {f'{p:.1f}' if p else '—'} |")
    lad = [L for L in hl.all_launches() if L["kind"] == "ladder"]
    print("\n| ladder step | nvcc µs | speedup over the step before | clang PTX µs (what kernsim runs) | speedup |")
    print("| --- | ---: | ---: | ---: | ---: |")
    prev = prev_c = None
    for L in lad:
        r = m[L["id"]]
        c = r.get("clang_ptx", {}).get("median_us")
        sp = f"{prev / r['median_us']:.2f}x" if prev else "—"
        spc = f"{prev_c / c:.2f}x" if prev_c and c else "—"
        print(f"| {L['id']} | {r['median_us']:.1f} | {sp} | {c:.1f} | {spc} |")
        prev, prev_c = r["median_us"], c
    return 0


if __name__ == "__main__":
    sys.exit(main())
