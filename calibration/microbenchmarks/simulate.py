#!/usr/bin/env python3
"""Simulate the microbenchmark launch specs on a part and derive what the GPU runner would report.

For a part we cannot measure (B200, MI300X, MI355X) this is the model's side of the comparison
with published figures; for the H200 it checks the model against cuda_microbench.json result by
result. Every spec under --specs runs through `kernsim run --json --dump-buffers`; the quantity
its `notes` name (`measures=<result>`) is derived from the simulated kernel's own clock reads
(the out buffer) or from the simulated time, with the formula run_cuda.py uses on the GPU:

  chases, latency chains   cycles per step = out[0] / out[1]  (/ instructions per step)
  issue_<op>               per SM: busy cycles / (warps x steps x instrs per step / schedulers), where
                           busy = the union of the SM's blocks' [t0, t1] (= max t1 - min t0 when
                           they overlap, as on the GPU)
  smem_bank                1 chain: (t1 - t0) / steps;  4 chains: per SM span / (warps x 4 x steps)
  atom_shared_u32          per SM: (t1 - t0) / (warps x iterations)
  global atomics           Gop/s = threads x iterations / kernel time
  bandwidth                GB/s = bytes the loads/stores request / kernel time
  launch                   us = simulated launch time (kernel + launch overhead)
  cta_stamp                per SM: median gap between consecutive block starts, cycles

Pairs (the HIP specs: `<id>` and `<id>_2x`, the twin's notes say `delta_of=<id>`) are derived
from the difference of the two simulated kernel times instead of the clock reads: (cycles_2x -
cycles) / (work_2x - work), with the work counted from the launch (steps, lanes, bytes). That needs
no clock values from the model and cancels build phases, warm-up and launch costs.

Every launch's dumped buffers also go through check_specs.py's functional checks (a launch that
computes the wrong thing is reported, not derived). Launches run with `--full` (every CTA timed in detail): an extrapolated time is a few percent off,
which a difference of two launches magnifies. "kernel time" is the simulated kernel span without
the launch overhead: the GPU runner measures
bandwidth and atomics with launches of ~2 ms, where the overhead is negligible, while these specs
are sized for the simulator (microseconds).

    python3 calibration/microbenchmarks/simulate.py --arch b200 --out OUT.json
    python3 calibration/microbenchmarks/simulate.py --arch h200 --compare calibration/data/h200/cuda_microbench.json

The JSON has the measurement format (`results`: name, value, unit, params), so `kernsim calibrate`
reads it too (a self-consistency check: calibrating a device against its own simulation must
leave it where it is).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import struct

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_specs  # noqa: E402  (the functional checks of the same dumped buffers)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Instructions of the measured class per step, where a step is more than one (see alu.cu).
INSTRS_PER_STEP = {"iadd_lop": 2, "cvt": 2}


def find_kernsim(given):
    for cand in [given, os.path.join(ROOT, "build", "kernsim"), shutil.which("kernsim")]:
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    sys.exit("simulate.py: no kernsim binary (build it, or pass --kernsim PATH)")


def u64s(path):
    with open(path, "rb") as f:
        data = f.read()
    return list(struct.unpack("<%dQ" % (len(data) // 8), data[: len(data) // 8 * 8]))


def measures(notes):
    tag = notes.split("measures=", 1)[1] if "measures=" in notes else ""
    name = ""
    for ch in tag:
        if ch.isalnum() or ch in "._":
            name += ch
        else:
            break
    return name


def scalars(spec):
    return [a.get("value") for a in spec["args"] if "buffer" not in a]


def out_index(spec):
    for i, a in enumerate(spec["args"]):
        if "buffer" in a and a.get("name") == "out":
            return i
    return None


class NoUnitIds(Exception):
    """The model reports one SM/CU id for every block of a multi-block launch."""


def per_sm(out, blocks):
    """(t0, t1, sm) triples of every block -> {sm: [(t0, t1), ...]}."""
    d = collections.defaultdict(list)
    for b in range(blocks):
        d[out[3 * b + 2]].append((out[3 * b], out[3 * b + 1]))
    if blocks > 1 and len(d) == 1:
        raise NoUnitIds()
    return d


def span(v):
    """Cycles during which at least one of the SM's blocks ran: the union of their [t0, t1]. On a
    GPU the blocks of one wave overlap and this is max t1 - min t0, the runner's formula; a model
    that starts an SM's blocks one after another would otherwise count the gaps between them as
    issue time."""
    busy, end = 0, None
    for t0, t1 in sorted(v):
        if end is None or t0 > end:
            busy += t1 - t0
            end = t1
        elif t1 > end:
            busy += t1 - end
            end = t1
    return busy


def derive(spec, report, out, dev):
    """The result name, value, unit and params the GPU runner would report for this launch."""
    k = spec["kernel"]
    name = measures(spec.get("notes", ""))
    grid, block = spec["grid"][0] * spec["grid"][1] * spec["grid"][2], spec["block"][0] * spec["block"][1] * spec["block"][2]
    warp = dev["warp_size"]
    warps_per_block = (block + warp - 1) // warp
    sub = dev["sub_partitions"]
    mhz = report["clock_mhz"]
    kernel_ns = report["cycles"] / mhz * 1000.0
    sc = scalars(spec)
    p = {"spec": spec["id"], "time_us": report["time_us"], "cycles": report["cycles"]}
    op = k.split("_", 1)[1] if "_" in k else k
    if k in ("lat_ptr_chase", "lat_idx_chase", "smem_lat_chase", "atom_lat_global", "atom_lat_shared") or (
            k.startswith(("lat_", "pf_")) and out is not None):  # pf_: pipe_forward.cu, cycles per two-instruction step
        if not out or out[1] == 0:
            return name, None, "cycles", p
        return name, out[0] / out[1] / (1 if k.startswith("pf_") else INSTRS_PER_STEP.get(op, 1)), "cycles", p
    if k.startswith("issue_"):
        steps = out[3 * grid + 1] if out else 0
        if not steps:  # the part lacks the instruction (the kernel ran no steps)
            return name, None, "cycles/instr/SMSP", p
        cyc = statistics.median(span(v) / (len(v) * warps_per_block * steps * INSTRS_PER_STEP.get(op, 1) / sub)
                                for v in per_sm(out, grid).values())
        if spec.get("flops"):
            p["flops_per_clk_per_sm"] = sub * spec["flops"] / (grid * warps_per_block * steps) / cyc
        return name, cyc, "cycles/instr/SMSP", p
    if k == "smem_bank":
        stride, chains, steps = sc[0], sc[1], sc[2]
        if chains <= 1:
            return name, (out[1] - out[0]) / steps, "cycles", p
        cyc = statistics.median(span(v) / (len(v) * warps_per_block * 4 * steps) for v in per_sm(out, grid).values())
        p["bytes_per_clk_per_sm"] = 4 * warp / cyc  # one 4-byte word per lane
        return name, cyc, "cycles/warp-instr/SM", p
    if k == "atom_shared_u32":
        iters = sc[1]
        cyc = statistics.median(span(v) / (len(v) * warps_per_block * iters) for v in per_sm(out, grid).values())
        return name, cyc, "cycles/warp-instr/SM", p
    if k in ("atom_global_u32", "atom_global_f32"):
        return name, grid * block * sc[1] / kernel_ns, "Gop/s", p
    if k == "atom_global_u32_uniform":
        return name, grid * block * sc[0] / kernel_ns, "Gop/s", p
    if k.startswith("bw_"):
        vec = 16
        nbytes = {"bw_l1_read": lambda: grid * sc[1] * sc[0] * vec, "bw_l2_read": lambda: grid * sc[1] * sc[0] * vec,
                  "bw_stream_read": lambda: sc[1] * sc[0] * vec,
                  "bw_read": lambda: sc[0] * vec, "bw_write": lambda: sc[0] * vec, "bw_copy": lambda: 2 * sc[0] * vec}[k]()
        p["bytes"] = nbytes
        p["units_used"] = min(grid, dev["units"])
        p["bytes_per_clk_per_sm"] = nbytes / report["cycles"] / p["units_used"]
        return name, nbytes / kernel_ns, "GB/s", p
    if k == "cta_stamp":
        starts = collections.defaultdict(list)
        for b in range(grid):
            starts[out[2 * b + 1]].append(out[2 * b])
        if grid > 1 and len(starts) == 1:
            raise NoUnitIds()
        gaps = []
        for v in starts.values():
            v.sort()
            gaps += [b - a for a, b in zip(v, v[1:])]
        return name, statistics.median(gaps) if gaps else None, "cycles", p
    if k in ("k_empty", "k_one_block"):
        return name, report["time_us"], "us", p
    return name, None, "", p


def waves_per_cu(spec, dev):
    grid = spec["grid"][0] * spec["grid"][1] * spec["grid"][2]
    block = spec["block"][0] * spec["block"][1] * spec["block"][2]
    per_cu = -(-grid // min(grid, dev["units"]))  # workgroups per CU, spread evenly
    return per_cu * (-(-block // dev["warp_size"]))


def timed_work(spec, out, dev):
    """Units of timed work of a launch, such that value = d cycles / d work; None if unknown."""
    k = spec["kernel"]
    op = k.split("_", 1)[1] if "_" in k else k
    sc = scalars(spec)
    grid = spec["grid"][0] * spec["grid"][1] * spec["grid"][2]
    if k in ("lat_ptr_chase", "lat_idx_chase", "smem_lat_chase", "atom_lat_global", "atom_lat_shared") or k.startswith("lat_"):
        return out[1] * INSTRS_PER_STEP.get(op, 1) if out else None
    if k.startswith("issue_"):
        return out[3 * grid + 1] * INSTRS_PER_STEP.get(op, 1) * waves_per_cu(spec, dev) / dev["sub_partitions"] if out else None
    if k == "smem_bank":
        return sc[2] if sc[1] <= 1 else sc[2] * 4 * waves_per_cu(spec, dev)
    if k == "atom_shared_u32":
        return sc[1] * waves_per_cu(spec, dev)
    return None


def bytes_of(spec):
    k, sc = spec["kernel"], scalars(spec)
    grid = spec["grid"][0] * spec["grid"][1] * spec["grid"][2]
    vec = 16
    f = {"bw_l1_read": lambda: grid * sc[1] * sc[0] * vec, "bw_l2_read": lambda: grid * sc[1] * sc[0] * vec,
                  "bw_stream_read": lambda: sc[1] * sc[0] * vec,
         "bw_read": lambda: sc[0] * vec, "bw_write": lambda: sc[0] * vec, "bw_copy": lambda: 2 * sc[0] * vec}.get(k)
    return f() if f else None


def derive_delta(base, twin, dev):
    """The derived value of a pair from the difference of the two kernel times."""
    (sb, rb, ob), (st, rt, ot) = base, twin
    name = measures(sb.get("notes", ""))
    dcyc = rt["cycles"] - rb["cycles"]
    p = {"spec": sb["id"], "twin": st["id"], "delta_cycles": dcyc, "method": "launch-time difference of the pair"}
    if sb["kernel"].startswith("bw_"):
        db = bytes_of(st) - bytes_of(sb)
        ns = dcyc / rb["clock_mhz"] * 1000.0
        p["units_used"] = min(sb["grid"][0] * sb["grid"][1] * sb["grid"][2], dev["units"])
        p["bytes_per_clk_per_sm"] = db / dcyc / p["units_used"] if dcyc > 0 else None
        return name, (db / ns if ns > 0 else None), "GB/s", p
    wb, wt = timed_work(sb, ob, dev), timed_work(st, ot, dev)
    if wb is None or wt is None or wt == wb:
        return name, None, "", p
    v = dcyc / (wt - wb)
    unit = "cycles"
    if sb["kernel"].startswith("issue_"):
        unit = "cycles/instr/SMSP"
        if sb.get("flops") and v > 0:
            grid = sb["grid"][0] * sb["grid"][1] * sb["grid"][2]
            waves = grid * (-(-sb["block"][0] // dev["warp_size"]))
            p["flops_per_clk_per_sm"] = dev["sub_partitions"] * sb["flops"] / (waves * ob[3 * grid + 1]) / v
    elif sb["kernel"] in ("smem_bank",) and scalars(sb)[1] > 1:
        unit = "cycles/warp-instr/SM"
        p["bytes_per_clk_per_sm"] = 4 * dev["warp_size"] / v if v > 0 else None  # one 4-byte word per lane
    elif sb["kernel"] == "atom_shared_u32":
        unit = "cycles/warp-instr/SM"
    return name, v, unit, p


def run_one(kernsim, arch_args, path, tmp, full=True, vendor="", target=""):
    with open(path) as f:
        spec = json.load(f)
    spec.setdefault("id", os.path.splitext(os.path.basename(path))[0])
    d = os.path.join(tmp, spec["id"])
    r = subprocess.run([kernsim, "run", path, *arch_args, "--json", "--dump-buffers", d] + (["--full"] if full else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        return spec, None, None, (r.stderr.strip() or r.stdout.strip())[-400:]
    report = json.loads(r.stdout)
    oi = out_index(spec)
    out = u64s(os.path.join(d, "arg%d.out.bin" % oi)) if oi is not None and os.path.exists(os.path.join(d, "arg%d.out.bin" % oi)) else None
    bad = check_specs.check(spec, d, vendor, target) if full else []
    shutil.rmtree(d, ignore_errors=True)
    if bad:  # a launch that computes the wrong thing has no timing worth deriving
        return spec, None, None, "functional check failed: " + "; ".join(bad)
    return spec, report, out, None


def device_info(kernsim, arch_args):
    j = json.loads(subprocess.run([kernsim, "device", *arch_args, "--json"], check=True, capture_output=True, text=True).stdout)
    v = j["values"]
    sec = "sm" if j["vendor"] == "nvidia" else "cu"
    return {"name": j["name"], "vendor": j["vendor"], "target": str(v["isa.target"]["value"]), "warp_size": v[sec + ".warp_size"]["value"],
            "sub_partitions": v[sec + ".sub_partitions"]["value"], "units": v[sec + ".count"]["value"],
            "banks": v["shared.banks"]["value"], "bank_width": v["shared.bank_width_bytes"]["value"],
            "clock_mhz": v["clocks.core_mhz"]["value"]}


def fmt(v):
    if v is None:
        return "-"
    return "%.4g" % v if abs(v) < 1e5 else "%.0f" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--arch", help="a built-in device (h200, b200, mi300x, mi355x)")
    g.add_argument("--device", help="a device file")
    ap.add_argument("--specs", help="launch specs (default: cuda/specs for NVIDIA, hip/specs for AMD)")
    ap.add_argument("--kernsim", help="the kernsim binary (default: build/kernsim, then PATH)")
    ap.add_argument("--jobs", type=int, default=1, help="simulations in parallel (default 1)")
    ap.add_argument("--only", default="", help="only specs whose id contains this")
    ap.add_argument("--out", help="write the results as a measurement JSON")
    ap.add_argument("--sampled", action="store_true",
                    help="let kernsim sample large launches (faster; extrapolated times bias pair differences by several %%)")
    ap.add_argument("--compare", help="a measurement JSON (the GPU's): print it beside the simulation")
    ap.add_argument("--max-error", type=float, help="with --compare: exit 1 when a result differs by more than this percentage")
    a = ap.parse_args()
    kernsim = find_kernsim(a.kernsim)
    arch_args = ["--arch", a.arch] if a.arch else ["--device", a.device]
    dev = device_info(kernsim, arch_args)
    specs_dir = a.specs or os.path.join(HERE, "cuda" if dev["vendor"] == "nvidia" else "hip", "specs")
    paths = sorted(os.path.join(specs_dir, f) for f in os.listdir(specs_dir) if f.endswith(".json"))
    paths = [p for p in paths if a.only in os.path.basename(p)]
    results, errors, runs = [], [], {}
    with tempfile.TemporaryDirectory(prefix="kernsim_mb_") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for spec, report, out, err in ex.map(lambda p: run_one(kernsim, arch_args, p, tmp, not a.sampled, dev["vendor"], dev["target"]), paths):
            if err:
                errors.append({"spec": spec["id"], "error": err})
                print("%-34s FAILED: %s" % (spec["id"], err.splitlines()[-1] if err else ""), file=sys.stderr)
                continue
            runs[spec["id"]] = (spec, report, out)
            results.append({"name": "spec." + spec["id"], "value": report["time_us"], "unit": "us",
                            "params": {"cycles": report["cycles"], "sampling": report.get("sampling", {}).get("mode", "")}})
    paired = {}
    for sid, (spec, report, out) in runs.items():
        notes = spec.get("notes", "")
        if "delta_of=" in notes:
            base = notes.split("delta_of=", 1)[1].split()[0].rstrip(";")
            if base in runs:
                paired[base] = sid
    for sid, (spec, report, out) in sorted(runs.items()):
        if "delta_of=" in spec.get("notes", ""):
            continue  # the twin: derived with its base
        if sid in paired:
            name, value, unit, params = derive_delta(runs[sid], runs[paired[sid]], dev)
            try:
                params["in_kernel_clock_value"] = derive(spec, report, out, dev)[1]
            except NoUnitIds:
                params["in_kernel_clock_value"] = None
        else:
            try:
                name, value, unit, params = derive(spec, report, out, dev)
            except NoUnitIds:
                print("%-34s no derived value: every block reports the same SM/CU id" % sid, file=sys.stderr)
                continue
        if name and value is not None:
            results.append({"name": name, "value": value, "unit": unit, "params": params})
    results.sort(key=lambda r: r["name"])
    doc = {"schema": "kernsim-simulated-microbench/1", "device": {"name": "kernsim " + dev["name"], "simulated": True},
           "clocks": {"core_mhz": dev["clock_mhz"]}, "specs": {"dir": os.path.relpath(specs_dir, HERE), "count": len(paths)},
           "command": " ".join(["simulate.py"] + sys.argv[1:]), "results": results, "errors": errors}
    # The runner's canonical clock result, so formulas that read it work on simulated data too.
    doc["results"].insert(0, {"name": "clock.sm_mhz_measured", "value": dev["clock_mhz"], "unit": "MHz",
                              "params": {"source": "the device file (simulated)"}})
    if a.out:
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    measured = {}
    if a.compare:
        with open(a.compare) as f:
            measured = {r["name"]: r for r in json.load(f)["results"] if r.get("value") is not None}
    print("%-36s %12s %12s %8s  %s" % ("result", "simulated", "measured" if measured else "", "error" if measured else "", "unit"))
    over = []
    for r in results:
        if r["name"].startswith("spec."):
            continue
        m = measured.get(r["name"], {}).get("value")
        err = "%+.1f%%" % (100 * (r["value"] - m) / m) if m else ""
        if m and a.max_error is not None and abs(100 * (r["value"] - m) / m) > a.max_error:
            over.append("%s %s" % (r["name"], err))
        print("%-36s %12s %12s %8s  %s" % (r["name"], fmt(r["value"]), fmt(m) if m else "", err, r["unit"]))
    if over:
        print("beyond %g%%: %s" % (a.max_error, ", ".join(over)), file=sys.stderr)
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
