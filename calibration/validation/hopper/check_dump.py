#!/usr/bin/env python3
"""Checks a launch's outputs dumped by `kernsim run SPEC --dump-buffers DIR` (arg<N>.in.bin,
arg<N>.out.bin, N the spec argument index) against the numpy reference (reference.py).

  python3 calibration/validation/hopper/check_dump.py LAUNCH_ID DIR [--full]

Exit 0 when every output passes, 1 otherwise; prints the relative L2 error and the tolerance.
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import launches as hl  # noqa: E402
import reference  # noqa: E402

STORAGE = {"f16": np.float16, "bf16": np.uint16, "f32": np.float32, "i32": np.int32, "e4m3": np.uint8}


def load_dump(launch, d):
    """({input name: float32 array}, {output name: float32 array}) from a dump directory."""
    idx = hl.spec_buffer_index(launch)
    inputs, outputs = {}, {}
    for a in launch["args"]:
        if a["kind"] != "buf":
            continue
        path = os.path.join(d, f"arg{idx[a['name']]}.{'out' if a['out'] else 'in'}.bin")
        st = np.fromfile(path, dtype=STORAGE[a["dtype"]])
        if st.size != hl.numel(a["shape"]):
            raise ValueError(f"{path}: {st.size} elements, {a['name']} has {hl.numel(a['shape'])}")
        (outputs if a["out"] else inputs)[a["name"]] = reference.decode(a["dtype"], st, a["shape"])
    return inputs, outputs


def check_dir(launch, d, full=False):
    inputs, outputs = load_dump(launch, d)
    return reference.check(launch, inputs, outputs, subset=not full)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("launch_id")
    ap.add_argument("dump_dir")
    ap.add_argument("--full", action="store_true", help="compare the whole output, not the reference's subset")
    a = ap.parse_args()
    launch = next((L for L in hl.all_launches() if L["id"] == a.launch_id), None)
    if launch is None:
        print(f"no launch {a.launch_id!r} in launches.py")
        return 2
    res = check_dir(launch, a.dump_dir, a.full)
    print(json.dumps(res, indent=1))
    return 0 if all(r["ok"] for r in res.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
