#!/usr/bin/env python3
"""Checks a `kernsim run --trace` file against the `--json` report of the same run: the trace
loads as JSON, names its SM processes and scheduler / CTA-slot threads, has a slice per timed CTA,
issue slices whose instruction counts add up to the warp instructions timed and stall slices
named by reason, all with ts and dur; the report's `by_pc` issue counts add up to the same count.
usage: check_trace.py TRACE.json REPORT.json   (prints what is wrong and exits 1)"""
import json
import sys

REASONS = {"memory_dependency", "execution_dependency", "pipe_busy", "barrier", "async_wait", "idle"}


def main(trace_path, report_path):
    with open(trace_path) as f:
        t = json.load(f)
    with open(report_path) as f:
        r = json.load(f)
    bad = []
    ev = t["traceEvents"]
    if t.get("displayTimeUnit") != "ns":
        bad.append("displayTimeUnit is not ns")
    procs = [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
    if not procs or not all(e["args"]["name"] == f"SM {e['pid']}" for e in procs):
        bad.append(f"process names: {procs[:3]}")
    threads = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    if "scheduler 0" not in threads or "CTA slot 0" not in threads:
        bad.append(f"thread names lack scheduler 0 / CTA slot 0: {sorted(threads)[:6]}")
    slices = [e for e in ev if e["ph"] == "X"]
    if not all(isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0 for e in slices):
        bad.append("a slice without ts/dur")
    ctas = [e for e in slices if e.get("cat") == "cta"]
    issues = [e for e in slices if e.get("cat") == "issue"]
    stalls = [e for e in slices if e.get("cat") == "stall"]
    timed = r["sampling"]["warp_instructions_timed"]
    if len(ctas) != r["sampling"]["ctas_timed"]:
        bad.append(f"{len(ctas)} CTA slices, the report timed {r['sampling']['ctas_timed']} CTAs")
    if sum(e["args"]["n"] for e in issues) != timed:
        bad.append(f"issue slices hold {sum(e['args']['n'] for e in issues)} instructions, the report timed {timed}")
    if not stalls or not all(e["name"] in REASONS for e in stalls):
        bad.append("no stall slices, or one not named by a reason")
    if t["otherData"].get("truncated"):
        bad.append("truncated")
    by_pc = r.get("by_pc")
    if not by_pc:
        bad.append("the report has no by_pc")
    else:
        if sum(p["issued"] for p in by_pc) != timed:
            bad.append(f"by_pc issues add up to {sum(p['issued'] for p in by_pc)}, the report timed {timed}")
        if [p["pc"] for p in by_pc] != sorted(p["pc"] for p in by_pc) or not all("inst" in p and "line" in p for p in by_pc):
            bad.append("by_pc not sorted by pc, or a row without inst/line")
        # the stall cycles the trace shows are the ones by_pc charges (slices round to a cycle)
        shown = sum(e["args"]["cycles"] for e in stalls)
        charged = sum(p["stall_cycles_total"] for p in by_pc) + sum(r["stall_cycles_without_pc"].values())
        if abs(shown - charged) > 0.01 * charged + len(stalls):
            bad.append(f"trace stalls {shown} cycles, by_pc charges {charged}")
    for b in bad:
        print("check_trace:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
