#!/usr/bin/env python3
"""Renders `kernsim validate --json` output as the markdown tables of docs/validation.md.

  kernsim validate calibration/validation/h200/specs --arch h200 \\
      --measured calibration/data/h200/validation_measured_clang.csv --json > v.json
  python3 calibration/validation/validation_md.py v.json > tables.md
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: validation_md.py VALIDATE.json")
    with open(sys.argv[1]) as f:
        v = json.load(f)
    out = []
    out.append(f"Overall ({v['arch']}, {len(v['launches'])} launches): **MAPE {100 * v['mape']:.1f}%**, "
               f"Spearman {v['spearman']:.3f}, pairwise ordering {100 * v['pairwise']:.1f}%, "
               f"faster variant predicted faster in {v['ladder_pairwise'] * v['ladder_pairs']:.0f} of {v['ladder_pairs']} ladder pairs; "
               f"simulation time per launch: median {v['median_sim_seconds']:.2f} s, max {v['max_sim_seconds']:.2f} s.")
    out.append("")
    fams = {}
    for l in v["launches"]:
        fams.setdefault(l["family"], []).append(l)
    out.append("| family | launches | MAPE | worst |")
    out.append("| --- | ---: | ---: | --- |")
    for fam, m in sorted(v["family_mape"].items()):
        ls = [l for l in fams.get(fam, []) if "error" in l]
        worst = max(ls, key=lambda l: abs(l["error"])) if ls else None
        w = f"{worst['id']} ({100 * worst['error']:+.0f}%)" if worst else ""
        out.append(f"| {fam} | {len(fams.get(fam, []))} | {100 * m:.1f}% | {w} |")
    out.append("")
    fast = v.get("tier") == "fast"  # the fast tier: its bottleneck instead of whether it sampled
    out.append(f"| launch | family | measured µs | predicted µs | error | {'bound' if fast else 'sampled'} | sim s |")
    out.append("| --- | --- | ---: | ---: | ---: | :---: | ---: |")
    for l in sorted(v["launches"], key=lambda l: (l["family"], l["id"])):
        if "error" in l:
            col = l.get("bottleneck", "") if fast else ("yes" if l.get("extrapolated") else "")
            out.append(f"| {l['id']} | {l['family']} | {l['measured_us']:.2f} | {l['predicted_us']:.2f} | {100 * l['error']:+.1f}% | "
                       f"{col} | {l['sim_seconds']:.3f} |" if fast else
                       f"| {l['id']} | {l['family']} | {l['measured_us']:.2f} | {l['predicted_us']:.2f} | {100 * l['error']:+.1f}% | "
                       f"{col} | {l['sim_seconds']:.2f} |")
        else:
            out.append(f"| {l['id']} | {l['family']} | {l['measured_us']:.2f} | failed: {l['failure']} | | | |")
    if v.get("ladder_misses"):
        out.append("")
        out.append("Ladder misses: " + "; ".join(v["ladder_misses"]) + ".")
    print("\n".join(out))


if __name__ == "__main__":
    main()
