#!/usr/bin/env python3
"""Put kernsim's simulated microbenchmarks beside published figures, one Markdown table per part.

    python3 calibration/microbenchmarks/parts_table.py --part b200 --sim b200.json

--sim is simulate.py's JSON for the part; the published figures, their sources and the expression
that gives the same quantity from the simulated results are in calibration/data/published/
figures.json. `gap` is the model's distance from the published range (0 inside it); gaps beyond
10% are bold. A row whose published figure does not exist says `gap` in the published column.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES = os.path.join(HERE, "..", "data", "published", "figures.json")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*(?::[A-Za-z0-9_]+)?")


def evaluate(expr, results):
    """An arithmetic expression over result names (`a.b`, `a.b:param`); None if a name is missing."""
    missing = []

    def value(m):
        name, _, param = m.group(0).partition(":")
        r = results.get(name)
        v = None if r is None else (r["value"] if not param else r.get("params", {}).get(param))
        if v is None:
            missing.append(m.group(0))
            return "0"
        return repr(float(v))

    py = NAME.sub(value, expr)
    if missing:
        return None
    try:
        return float(eval(py, {"__builtins__": {}}, {}))  # digits, operators and parentheses only
    except ZeroDivisionError:
        return None


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.3g" % v


def table(part, results):
    rows = json.load(open(FIGURES))["parts"][part]
    out = ["| quantity | unit | published | kernsim (simulated) | gap | kind | source |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        model = evaluate(r["model"], results) if r.get("model") else None
        pub = r.get("published")
        if pub:
            lo, hi = pub
            ptxt = fmt(lo) if lo == hi else "%s-%s" % (fmt(lo), fmt(hi))
            if model is None:
                gap = "no model value"
            else:
                g = 0.0 if lo <= model <= hi else ((model - hi) / hi if model > hi else (model - lo) / lo)
                gap = "%+.0f%%" % (100 * g)
                if abs(g) > 0.10:
                    gap = "**" + gap + "**"
        else:
            ptxt, gap = "gap", "-"
        src = r["source"] + (" — " + r["note"] if r.get("note") else "")
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (r["quantity"], r["unit"], ptxt, fmt(model), gap, r["kind"], src))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", required=True)
    ap.add_argument("--sim", required=True, nargs="+", help="simulate.py's JSON for the part (later files override)")
    a = ap.parse_args()
    results = {}
    for path in a.sim:
        with open(path) as f:
            results.update({r["name"]: r for r in json.load(f)["results"]})
    print(table(a.part, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
