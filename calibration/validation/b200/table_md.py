#!/usr/bin/env python3
"""The docs/validation.md table of the Blackwell set: each launch, the published B200 figures for the
same or an equivalent kernel (published.json, with citations) and kernsim's answer on b200 (TFLOPS
when the launch runs, else `stops: <what kernsim names>`).

  python3 calibration/validation/b200/table_md.py [--kernsim build/kernsim] [--time-limit S]

Without --kernsim the kernsim column says `not run`. A launch that runs is run in full (no
instruction limit), so give --time-limit room once tcgen05 runs.
"""
import argparse
import fnmatch
import importlib.util
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import b200_launches as bl  # noqa: E402

SPECS = os.path.join(HERE, "specs")


def kernsim_cell(kernsim, L, time_limit):
    spec = os.path.join(SPECS, L["id"] + ".json")
    r = subprocess.run([kernsim, "run", spec, "--arch", "b200", "--json", "--time-limit", str(time_limit)],
                       capture_output=True, text=True)
    if r.returncode == 0:
        us = json.loads(r.stdout)["time_us"]
        return f"{L['flops'] / (us * 1e-6) / 1e12:.0f} ({us:.1f} µs)"
    msg = (r.stderr.strip().splitlines() or [""])[-1]
    if r.returncode == 5:
        m = re.search(r"does not implement (.+)$", msg) or re.search(r"unsupported: .*?: (register type \.\w+|[^:]+)$", msg)
        return "stops: `" + (m.group(1) if m else msg[-80:]) + "`"
    return f"exit {r.returncode}: {msg[-100:]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernsim")
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--only", action="append", default=[], help="run kernsim only on ids matching (others: not run)")
    a = ap.parse_args()
    pub = json.load(open(os.path.join(HERE, "published.json")))
    print("| launch | what | published B200 figure (TFLOPS, kind, source) | kernsim on b200 (TFLOPS) |")
    print("| --- | --- | --- | --- |")
    for L in bl.all_launches():
        figs = pub["launches"].get(L["id"], [])
        cell = "<br>".join(f"{f['tflops']:g} ({f['same']}: {f['what']}; {f['source']})" for f in figs) or "none found"
        what = L["notes"].split("; ", 1)[1] if "; " in L["notes"] else L["notes"]
        if L["family"] == "triton_attention":
            c = L["constexprs"]
            what = f"bf16 B=4 H=16 S=4096 d={c['HEAD_D']}, {'causal' if c['CAUSAL'] else 'full'}, " + what
        chosen = not a.only or any(fnmatch.fnmatch(L["id"], p) for p in a.only)
        ks = kernsim_cell(a.kernsim, L, a.time_limit) if a.kernsim and chosen else "not run"
        print(f"| `{L['id']}` | {what} | {cell} | {ks} |")
    print()
    print("Sources: " + "; ".join(f"**{k}**: {v}" for k, v in pub["sources"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
