#!/usr/bin/env python3
"""Writes the `id,median_us` CSV that `kernsim validate --measured` reads from the JSON documents
of the mem_paths and launch_shapes microbenchmarks (calibration/data/<part>/).

  python3 calibration/microbenchmarks/measured_csv.py calibration/data/h200/mem_paths.json > paths.csv
  kernsim validate calibration/microbenchmarks/cuda/specs_paths --arch h200 --measured paths.csv
"""
import json
import sys


def rows(doc):
    if "us" in doc:  # launch_shapes
        yield from doc["us"].items()
        return
    yield from doc.get("spec_us", {}).items()  # mem_paths
    for k, v in doc.get("single_sm", {}).items():
        yield k, v["us"]
    yield from doc.get("scatter", {}).items()


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: measured_csv.py FILE.json [FILE.json ...]")
    print("id,median_us")
    for path in sys.argv[1:]:
        with open(path) as f:
            for k, v in rows(json.load(f)):
                print(f"{k},{v}")


if __name__ == "__main__":
    main()
