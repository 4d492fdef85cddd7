#!/usr/bin/env python3
"""Runs launches of the Blackwell set at small sizes with `kernsim run --full --dump-buffers` and
checks every output element against the numpy reference (b200_reference.py): the functional check
that kernsim's tcgen05 and this set's kernels agree, before any of the set's times mean anything.

The kernels and their compiled code are the set's own (the Triton PTX takes M, N, K at run time;
the ladder reads them too); only the sizes shrink, so a whole grid runs functionally in seconds.

  python3 calibration/validation/b200/check_small.py --kernsim build/kernsim [--only PATTERN]

Prints one line per launch: ok / FAIL with the relative L2 error, or what kernsim stopped on.
Exit 1 when an output that ran is wrong, or when a launch stops that is not in EXPECTED_STOPS (or
stops on something else than it names): what runs today must keep running.
"""
import argparse
import fnmatch
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import b200_launches as bl  # noqa: E402
import b200_reference as br  # noqa: E402

_gs = importlib.util.spec_from_file_location("b200_gen_specs", os.path.join(HERE, "gen_specs.py"))
gs = importlib.util.module_from_spec(_gs)
_gs.loader.exec_module(gs)

# The launches that still stop (exit 5), with a piece of what kernsim names: none since CTA pairs
# and clusterlaunchcontrol were built (2026-12-07).
EXPECTED_STOPS = {}


def extra_launches():
    """Ladder step 4 with more tiles (80 of 256 x 256, K 64) than the B200 holds clusters at once
    (74: one CTA per SM), so that running clusters cancel the rest with clusterlaunchcontrol and do
    their tiles; at the set's small size every cluster launches at once and no cancel succeeds."""
    row = [r for r in bl.LADDER if r[1] == "ladder_tc2_clc"][0]
    return [bl._ladder(*row, M=2560, N=2048, K=64)]

STORAGE = {"f16": np.float16, "bf16": np.uint16, "f32": np.float32, "i32": np.int32, "e4m3": np.uint8, "u8": np.uint8}


def run(kernsim, L, tmp):
    problems = []
    spec = gs.spec_of(L, problems)
    if problems:
        return "spec: " + "; ".join(problems)
    spec["source"] = os.path.normpath(os.path.join(gs.SPECS, spec["source"]))
    path = os.path.join(tmp, L["id"] + ".json")
    with open(path, "w") as f:
        json.dump(spec, f)
    dump = os.path.join(tmp, L["id"])
    r = subprocess.run([kernsim, "run", path, "--arch", "b200", "--full", "--dump-buffers", dump, "--time-limit", "600"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"exit {r.returncode}: " + (r.stderr.strip().splitlines() or [""])[-1][:220]
    idx = bl.spec_buffer_index(L)
    inputs, outputs = {}, {}
    for a in L["args"]:
        if a["kind"] != "buf":
            continue
        st = np.fromfile(os.path.join(dump, f"arg{idx[a['name']]}.{'out' if a['out'] else 'in'}.bin"),
                         dtype=STORAGE[a["dtype"]])
        (outputs if a["out"] else inputs)[a["name"]] = br.decode(a["dtype"], st, a["shape"])
    res = br.check(L, inputs, outputs, subset=False)
    return {k: v for k, v in res.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernsim", default=os.path.join(HERE, "..", "..", "..", "build", "kernsim"))
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for L in bl.all_launches(small=True) + extra_launches():
            if a.only and not any(fnmatch.fnmatch(L["id"], p) for p in a.only):
                continue
            res = run(a.kernsim, L, tmp)
            if isinstance(res, str):
                want = EXPECTED_STOPS.get(L["id"])
                ok = want is not None and res.startswith("exit 5") and want in res
                bad += not ok
                print(f"{L['id']:45s} {res}" + ("" if ok else "  <- FAIL: expected to run" if want is None else
                                                f"  <- FAIL: expected a stop naming {want}"))
                continue
            for name, r in res.items():
                bad += not r["ok"]
                print(f"{L['id']:45s} {'ok  ' if r['ok'] else 'FAIL'} {name}: rel_l2 {r['rel_l2']:.2e} "
                      f"(tol {r['tol']:.0e}), non-finite {r['nonfinite']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
