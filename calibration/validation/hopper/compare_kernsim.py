#!/usr/bin/env python3
"""kernsim on the Hopper wgmma/TMA set at one commit, against the H200's read-flush measurement.

  python3 calibration/validation/hopper/compare_kernsim.py [--kernsim build/kernsim] [--jobs 2]
      [--only ID ...] [--csv calibration/data/h200/hopper_validation_kernsim.csv] [--md OUT.md]
      [--time-limit 600] [--no-run] [--save-json DIR] [--arch h200] [--measured JSON]

Runs `kernsim run SPEC --arch h200 --json` for every launch of the set (`specs/`, at most --jobs
processes at once), compares each time with `calibration/data/h200/hopper_validation_readflush.json`
(the L2 flushed by a read, as kernsim assumes a clean cold L2; the ladder against clang's PTX,
the code kernsim simulates) and prints MAPE, Spearman's rank correlation, how many launches are
within 10/25%, and the ladder's step-to-step speedups (predicted against measured: the ratio of
the two and whether the direction is right). Writes one CSV row per launch (id, measured and
predicted µs, error, exit code, wall seconds, the kernsim commit) and a markdown table (stdout, or
--md). With --only, just those launches run and the other rows are kept from the existing CSV
(so the table can mix commits: the CSV's `commit` column says which). --no-run recomputes the
summary from the CSV. `--arch h100 --measured calibration/data/h100/hopper_validation.json
--csv FILE` compares another part (that H100 file was flushed by a write, not a read). Issue 19's targets: MAPE <= 15%, every ladder step's speedup within 25%
and in the right direction.
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import launches as hl  # noqa: E402

MEASURED = os.path.join(ROOT, "calibration/data/h200/hopper_validation_readflush.json")
CSV_DEFAULT = os.path.join(ROOT, "calibration/data/h200/hopper_validation_kernsim.csv")
FIELDS = ["id", "measured_us", "predicted_us", "error", "exit", "wall_s", "commit", "note"]


def measured_times(path=MEASURED):
    """id -> measured µs (median): the ladder's clang-PTX build, every other launch as measured."""
    out = {}
    for r in json.load(open(path))["launches"]:
        if r.get("kind") == "ladder" and "clang_ptx" in r:
            out[r["id"]] = r["clang_ptx"]["median_us"]
        elif "median_us" in r:
            out[r["id"]] = r["median_us"]
    return out


def commit_of(root=ROOT):
    p = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def run_one(kernsim, lid, time_limit, save_dir=None, arch="h200"):
    spec = os.path.join(HERE, "specs", lid + ".json")
    cmd = [kernsim, "run", spec, "--arch", arch, "--json", "--time-limit", str(time_limit)]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = round(time.time() - t0, 1)
    if p.returncode != 0:
        msg = p.stderr.strip().splitlines()
        return lid, {"exit": p.returncode, "predicted_us": None, "wall_s": wall,
                     "note": (msg[-1] if msg else "")[:200]}
    j = json.loads(p.stdout)
    if save_dir:
        with open(os.path.join(save_dir, lid + ".json"), "w") as f:
            f.write(p.stdout)
    note = (j.get("sampling") or {}).get("note", "")
    return lid, {"exit": 0, "predicted_us": j["time_us"], "wall_s": wall, "note": note[:200]}


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else float("nan")


def summary(rows):
    ok = [r for r in rows if r.get("predicted_us") not in (None, "") and r.get("measured_us")]
    errs = [float(r["predicted_us"]) / float(r["measured_us"]) - 1 for r in ok]
    s = {"launches": len(rows), "ran": len(ok)}
    if ok:
        s["mape"] = 100 * sum(abs(e) for e in errs) / len(errs)
        s["spearman"] = spearman([float(r["measured_us"]) for r in ok], [float(r["predicted_us"]) for r in ok])
        s["within10"] = sum(abs(e) <= 0.10 for e in errs)
        s["within25"] = sum(abs(e) <= 0.25 for e in errs)
    return s


def ladders():
    """The set's ladders (notes `ladder=NAME;variant=K`): name -> launch ids in variant order."""
    out = {}
    for L in hl.all_launches():
        kv = dict(x.split("=", 1) for x in L["notes"].split(";")[:2] if "=" in x)
        if "ladder" in kv:
            out.setdefault(kv["ladder"].strip(), []).append((int(kv["variant"].split()[0]), L["id"]))
    return {k: [i for _, i in sorted(v)] for k, v in out.items()}


def ladder_pairs(rows):
    by = {r["id"]: r for r in rows}
    out = []
    for name, lad in ladders().items():
        for a, b in zip(lad, lad[1:]):
            ra, rb = by.get(a), by.get(b)
            if not ra or not rb:
                continue
            ms = float(ra["measured_us"]) / float(rb["measured_us"])
            ps = None
            if ra.get("predicted_us") not in (None, "") and rb.get("predicted_us") not in (None, ""):
                ps = float(ra["predicted_us"]) / float(rb["predicted_us"])
            p = {"ladder": name, "from": a, "to": b, "measured": ms, "predicted": ps}
            if ps is not None:
                p["ratio"] = ps / ms
                # direction: a measured step within 2% of level may go either way if the ratio is
                # within 25%; otherwise the predicted speedup must be on the same side of 1
                md = 0 if abs(ms - 1) < 0.02 else (1 if ms > 1 else -1)
                pd = 1 if ps > 1 else -1
                p["direction_ok"] = md == pd or md == 0 and abs(ps / ms - 1) <= 0.25
                p["within25"] = abs(ps / ms - 1) <= 0.25
            out.append(p)
    return out


def markdown(rows, commit):
    lines = [f"kernsim at {commit} against the read-flush measurement (ladder: clang's PTX).", "",
             "| launch | kernsim µs | measured µs | error | wall s |", "| --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if r.get("predicted_us") in (None, ""):
            lines.append(f"| {r['id']} | exit {r['exit']}: {r.get('note', '')} | {float(r['measured_us']):.1f} | — | {r.get('wall_s', '')} |")
        else:
            e = float(r["predicted_us"]) / float(r["measured_us"]) - 1
            lines.append(f"| {r['id']} | {float(r['predicted_us']):.1f} | {float(r['measured_us']):.1f} | {100 * e:+.0f}% | {r.get('wall_s', '')} |")
    s = summary(rows)
    lines += ["", f"{s['ran']} of {s['launches']} launches ran"]
    if s["ran"]:
        lines[-1] += (f": MAPE {s['mape']:.1f}%, Spearman {s['spearman']:.3f}, {s['within10']} within 10%, "
                      f"{s['within25']} within 25%.")
    lines += ["", "| ladder step (speedup over the step before) | measured | kernsim | kernsim / measured | direction |",
              "| --- | ---: | ---: | ---: | --- |"]
    for p in ladder_pairs(rows):
        if p["predicted"] is None:
            lines.append(f"| {p['to']} | {p['measured']:.2f}x | — | — | — |")
        else:
            lines.append(f"| {p['to']} | {p['measured']:.2f}x | {p['predicted']:.2f}x | {p['ratio']:.2f} | "
                         f"{'right' if p['direction_ok'] else 'WRONG'} |")
    return "\n".join(lines)


def read_csv(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {r["id"]: r for r in csv.DictReader(f) if "measured_us" in r}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build", "kernsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--csv", default=CSV_DEFAULT)
    ap.add_argument("--md")
    ap.add_argument("--time-limit", type=int, default=600)
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--arch", default="h200", help="the part kernsim simulates (match --measured)")
    ap.add_argument("--measured", default=MEASURED, help="the measurement JSON (measure_hopper.py)")
    ap.add_argument("--save-json", metavar="DIR", help="keep each launch's `kernsim run --json` report there")
    a = ap.parse_args()
    meas = measured_times(a.measured)
    ids = [L["id"] for L in hl.all_launches()]
    old = read_csv(a.csv)
    commit = commit_of()
    rows = {i: old.get(i) for i in ids if i in old}
    todo = [] if a.no_run else (a.only or ids)
    if a.save_json:
        os.makedirs(a.save_json, exist_ok=True)
    with cf.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        for lid, r in ex.map(lambda i: run_one(a.kernsim, i, a.time_limit, a.save_json, a.arch), todo):
            m = meas[lid]
            p = r["predicted_us"]
            rows[lid] = {"id": lid, "measured_us": f"{m:.2f}", "predicted_us": "" if p is None else f"{p:.2f}",
                         "error": "" if p is None else f"{p / m - 1:+.4f}", "exit": r["exit"], "wall_s": r["wall_s"],
                         "commit": commit, "note": r["note"]}
            print(f"{lid:48s} {rows[lid]['predicted_us'] or 'exit %d' % r['exit']:>10s} measured {m:8.1f} "
                  f"{rows[lid]['error']} ({r['wall_s']} s)", flush=True)
            ordered = [rows[i] for i in ids if i in rows]
            with open(a.csv, "w", newline="") as f:  # after every launch: a killed run keeps what it did
                w = csv.DictWriter(f, FIELDS)
                w.writeheader()
                w.writerows(ordered)
    ordered = [rows[i] for i in ids if i in rows]
    commits = sorted({r["commit"] for r in ordered})
    md = markdown(ordered, ", ".join(commits))
    if a.md:
        with open(a.md, "w") as f:
            f.write(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
