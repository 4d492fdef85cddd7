#!/usr/bin/env python3
"""Learns kernsim's expected error band per bottleneck class from validation residuals (issue 17
item 4) and writes the data file kernsim reads: calibration/error_bands/<part>.json.

Input: `kernsim validate DIR --arch PART --measured CSV --json` output (each launch with its
measured time, kernsim's prediction and the report's one-word `bottleneck`). For every bottleneck
class the ratios measured / predicted are collected; the band is the interval between two
quantiles of them (by default the 10th and 90th percentile: a central 80% band), so a prediction
of T µs in that class carries `error_band: [T * lo, T * hi]`. A class with fewer than
`--min-class` launches (a policy, not a hardware number) uses the ratios of all launches of the
tier instead, and says so (`"pooled": true`); `"all"` is what a class the set never produced gets.

Cross-validation (what docs/validation.md reports): for every launch, the band of its class is
learned again without that launch (leave one out; the class falls back to the pooled ratios the
same way when it becomes too small) and the launch counts as inside when its measured time lies
in [prediction * lo, prediction * hi]. The coverage per class and overall is written into the
file's provenance and printed as a markdown table.

  kernsim validate calibration/validation/h200/specs --arch h200 \\
      --measured calibration/data/h200/validation_grown_measured_clang.csv --threads 2 --time-limit 0 --json > v.json
  python3 calibration/validation/error_bands.py v.json --part h200 --measured-csv \\
      calibration/data/h200/validation_grown_measured_clang.csv --command "..." [--tier detailed]

Several tiers of one part go into the same file (run once per tier; the other tiers are kept).
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT_DIR = os.path.join(REPO, "calibration", "error_bands")


def quantile(xs: list, q: float) -> float:
    """The q-quantile of xs by linear interpolation between order statistics (numpy's default)."""
    s = sorted(xs)
    if not s:
        raise ValueError("no values")
    pos = q * (len(s) - 1)
    i = int(math.floor(pos))
    j = min(i + 1, len(s) - 1)
    return s[i] + (s[j] - s[i]) * (pos - i)


def residuals(validate: dict) -> list:
    """[(id, bottleneck, measured_us, predicted_us)] of the launches that ran."""
    out = []
    for l in validate["launches"]:
        if "predicted_us" in l and l.get("measured_us", 0) > 0 and l["predicted_us"] > 0:
            out.append((l["id"], l.get("bottleneck", "unknown"), float(l["measured_us"]), float(l["predicted_us"])))
    return out


def bands(rows: list, q_lo: float, q_hi: float, min_class: int) -> dict:
    """{class: {n, lo, hi, pooled}} plus "all": the ratio quantiles per bottleneck class."""
    ratios = {}
    for _, cls, meas, pred in rows:
        ratios.setdefault(cls, []).append(meas / pred)
    pooled = [r for rs in ratios.values() for r in rs]
    out = {"all": {"n": len(pooled), "lo": quantile(pooled, q_lo), "hi": quantile(pooled, q_hi), "pooled": True}}
    for cls, rs in sorted(ratios.items()):
        src = rs if len(rs) >= min_class else pooled
        out[cls] = {"n": len(rs), "lo": quantile(src, q_lo), "hi": quantile(src, q_hi), "pooled": len(rs) < min_class}
    return out


def cross_validate(rows: list, q_lo: float, q_hi: float, min_class: int) -> dict:
    """Leave-one-out coverage: {class: {n, inside}, "all": {n, inside}} and the misses."""
    cov = {}
    misses = []
    for i, (lid, cls, meas, pred) in enumerate(rows):
        b = bands(rows[:i] + rows[i + 1:], q_lo, q_hi, min_class)
        band = b.get(cls, b["all"])
        inside = pred * band["lo"] <= meas <= pred * band["hi"]
        for key in (cls, "all"):
            c = cov.setdefault(key, {"n": 0, "inside": 0})
            c["n"] += 1
            c["inside"] += int(inside)
        if not inside:
            misses.append({"id": lid, "bottleneck": cls, "measured_us": meas, "predicted_us": pred,
                           "band_us": [pred * band["lo"], pred * band["hi"]]})
    for c in cov.values():
        c["fraction"] = c["inside"] / c["n"]
    return {"coverage": cov, "misses": misses}


def markdown(part: str, tier: str, b: dict, cv: dict, q_lo: float, q_hi: float) -> str:
    lines = [f"| {part} {tier}: class | launches | band (measured / predicted) | inside, leave-one-out |",
             "| --- | ---: | --- | ---: |"]
    for cls, v in b.items():
        if cls == "all":
            continue
        c = cv["coverage"].get(cls, {"n": 0, "inside": 0, "fraction": 0})
        lines.append(f"| {cls} | {v['n']} | [{v['lo']:.2f}, {v['hi']:.2f}]{' (pooled)' if v['pooled'] else ''} | "
                     f"{c['inside']}/{c['n']} ({100 * c['fraction']:.0f}%) |")
    a = cv["coverage"]["all"]
    lines.append(f"| all | {b['all']['n']} | [{b['all']['lo']:.2f}, {b['all']['hi']:.2f}] | "
                 f"{a['inside']}/{a['n']} ({100 * a['fraction']:.0f}%) |")
    lines.append(f"\nnominal coverage {100 * (q_hi - q_lo):.0f}% (quantiles {q_lo} and {q_hi} of measured / predicted)")
    return "\n".join(lines)


def git_head() -> str:
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validate_json", help="`kernsim validate ... --json` output")
    ap.add_argument("--part", help="the part's name (default: the validate output's arch)")
    ap.add_argument("--tier", help="detailed or fast (default: the validate output's tier)")
    ap.add_argument("--measured-csv", required=True, help="the measured CSV the validate run compared with (provenance)")
    ap.add_argument("--command", default="", help="the kernsim validate command that produced the input (provenance)")
    ap.add_argument("--kernsim-commit", default=None, help="the commit kernsim was built from (default: this tree's HEAD)")
    ap.add_argument("--q-lo", type=float, default=0.1)
    ap.add_argument("--q-hi", type=float, default=0.9)
    ap.add_argument("--min-class", type=int, default=10,
                    help="fewer launches than this in a class: use the pooled ratios of all launches (policy)")
    ap.add_argument("--out", help="the data file (default calibration/error_bands/PART.json)")
    ap.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    a = ap.parse_args(argv)
    with open(a.validate_json) as f:
        v = json.load(f)
    part = a.part or v["arch"]
    tier = a.tier or v.get("tier", "detailed")
    rows = residuals(v)
    if len(rows) < a.min_class:
        print(f"error_bands: only {len(rows)} launches with a prediction in {a.validate_json}", file=sys.stderr)
        return 2
    b = bands(rows, a.q_lo, a.q_hi, a.min_class)
    cv = cross_validate(rows, a.q_lo, a.q_hi, a.min_class)
    print(markdown(part, tier, b, cv, a.q_lo, a.q_hi))
    if a.dry_run:
        return 0
    out = a.out or os.path.join(OUT_DIR, f"{part}.json")
    data = {}
    if os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    data["part"] = part
    data["what"] = ("kernsim's expected error band per bottleneck class: a prediction of T us whose report names "
                    "class C carries error_band [T * lo, T * hi] (tiers.TIER.classes.C; a class not listed uses "
                    "\"all\"). Learned, never hand-set: calibration/validation/error_bands.py")
    data.setdefault("tiers", {})[tier] = {
        "quantiles": [a.q_lo, a.q_hi],
        "min_class": a.min_class,
        "classes": b,
        "cross_validation": {"method": "leave one out", **cv},
        "provenance": {
            "confidence": "measured",
            "source": "validation residuals: measured / predicted per launch of the set",
            "measured": os.path.relpath(os.path.abspath(a.measured_csv), REPO),
            "command": a.command,
            "kernsim_commit": a.kernsim_commit or git_head(),
            "launches": len(rows),
            "date": datetime.date.today().isoformat(),
        },
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.relpath(out, REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
