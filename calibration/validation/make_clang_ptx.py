#!/usr/bin/env python3
"""Writes the PTX kernsim simulates for every source of the validation set (and the corpus), so
that the GPU can run exactly that code: `measure_h200.py --ptx-dir DIR --tag _clang`.

  python3 calibration/validation/make_clang_ptx.py --out calibration/validation/h200/ptx_clang

The PTX comes from `kernsim compile SRC --arch h200` (clang 22 through kernsim's own frontend,
the same flags and cache), and manifest.json maps each source (relative to the repository) to
its PTX file.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def sources(spec_dirs):
    out = set()
    for d in spec_dirs:
        for p in glob.glob(os.path.join(d, "*.json")):
            with open(p) as f:
                spec = json.load(f)
            src = os.path.normpath(os.path.join(os.path.dirname(p), spec["source"]))
            if src.endswith(".cu"):
                out.add(src)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernsim", default=os.path.join(REPO, "build", "kernsim"))
    ap.add_argument("--arch", default="h200")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dirs = [os.path.join(REPO, "calibration", "validation", "h200", "specs"), os.path.join(REPO, "tests", "kernels", "cuda", "specs")]
    manifest = {}
    for src in sources(dirs):
        rel = os.path.relpath(src, REPO)
        name = rel.replace(os.sep, "__").replace(".cu", ".ptx")
        p = subprocess.run([a.kernsim, "compile", src, "--arch", a.arch, "-o", os.path.join(a.out, name)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAILED {rel}: {p.stderr.strip()}", file=sys.stderr)
            return 1
        manifest[rel] = name
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print(f"{len(manifest)} sources -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
