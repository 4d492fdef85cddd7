#!/usr/bin/env python3
"""Checks kernsim's outputs of issue 17's launches against ext_reference.py: reads the buffers
`kernsim run SPEC --dump-buffers DIR/<id>` wrote (arg<N>.in.bin before the launch, arg<N>.out.bin
after) and prints one PASS/FAIL line per launch.

  kernsim run calibration/validation/h200/specs/ID.json --arch h200 --dump-buffers /tmp/d/ID
  python3 calibration/validation/h200/check_ext.py /tmp/d [--only PATTERN]
"""
import argparse
import fnmatch
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import ext_reference as R  # noqa: E402
import launch_inputs as li  # noqa: E402


def load_dump(spec, d):
    ins, outs = [], []
    for k, a in enumerate(spec["args"]):
        if "buffer" in a:
            with open(os.path.join(d, f"arg{k}.in.bin"), "rb") as f:
                ins.append(R.typed(a, f.read()))
            with open(os.path.join(d, f"arg{k}.out.bin"), "rb") as f:
                outs.append(R.typed(a, f.read()))
        else:
            ins.append(li.scalar_value(a).item())
            outs.append(None)
    return ins, outs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps")
    ap.add_argument("--specs", default=os.path.join(HERE, "specs"))
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    bad = n = 0
    for sid in sorted(os.listdir(a.dumps)):
        if a.only and not any(fnmatch.fnmatch(sid, p) for p in a.only):
            continue
        path = os.path.join(a.specs, sid + ".json")
        if not os.path.exists(path):
            continue
        spec = li.load_spec(path)
        if not R.has_check(spec):
            continue
        try:
            dump = load_dump(spec, os.path.join(a.dumps, sid))
        except FileNotFoundError as e:
            print(f"SKIP {sid}: incomplete dump ({e.filename})")
            continue
        res = R.check(spec, *dump)
        n += 1
        bad += not res[0]
        print(f"{'PASS' if res[0] else 'FAIL'} {sid}: {res[1]}", flush=True)
    print(f"{n - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
