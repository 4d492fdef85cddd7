#!/usr/bin/env python3
"""The SM clock of an H100/H200 under sustained tensor load, sampled by nvidia-smi every 100 ms.

    python3 calibration/microbenchmarks/hopper_clock.py --mb-host BUILD/mb_host --out DIR [--seconds 7]

Phases, one after the other while `nvidia-smi --query-gpu=... -lms 100` samples in the background:
  idle (1 s), torch.matmul bf16 8192 x 8192 x 8192 on random data for --seconds (TFLOP/s per batch
  of 8 products, timed with CUDA events), idle (2 s), mb_host's group `tclock` (our own wgmma
  loop: m64n256k16 bf16, 2 warpgroups on every SM, ~40 ms launches for 8 s; it reports the
  in-kernel clock d clock64 / d globaltimer per launch), idle (1 s).
Writes DIR/hopper_clock.json: the samples, the phase windows, and per phase the median clock,
power and temperature of the samples in the phase's second half ("steady"). Needs python3 with
torch (optional: the torch phase is skipped without it) and nvidia-smi.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

FIELDS = ["timestamp", "clocks.sm", "power.draw", "temperature.gpu", "clocks_throttle_reasons.active"]
FALLBACK = "clocks_event_reasons.active"  # the newer name of the same field


def start_sampler(path):
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None, None
    for fields in (FIELDS, FIELDS[:-1] + [FALLBACK], FIELDS[:-1]):
        fh = open(path, "w")
        p = subprocess.Popen([smi, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits", "-lms", "100"],
                             stdout=fh, stderr=subprocess.STDOUT)
        time.sleep(0.6)
        if p.poll() is None:
            return p, fields
        fh.close()
    return None, None


def read_samples(path, fields, t0):
    rows = []
    for line in open(path):
        vals = [v.strip() for v in line.split(",")]
        if len(vals) != len(fields):
            continue
        try:
            row = {"t_s": None, "sm_mhz": float(vals[1]), "power_w": float(vals[2]), "temp_c": float(vals[3])}
        except ValueError:
            continue
        row["reasons"] = vals[4] if len(vals) > 4 else None
        row["stamp"] = vals[0]
        rows.append(row)
    # nvidia-smi's timestamp has 1 ms resolution: "YYYY/MM/DD HH:MM:SS.mmm"
    for r in rows:
        try:
            st = time.strptime(r["stamp"].split(".")[0], "%Y/%m/%d %H:%M:%S")
            ms = float("0." + r["stamp"].split(".")[1]) if "." in r["stamp"] else 0.0
            r["t_s"] = round(time.mktime(st) + ms - t0, 3)
        except (ValueError, IndexError):
            pass
    return rows


def torch_phase(seconds):
    try:
        import torch
    except ImportError:
        return {"error": "torch not importable"}
    n = 8192
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
    for _ in range(3):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    series = []
    t_start = time.time()
    while time.time() - t_start < seconds:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(8):
            c = torch.matmul(a, b)
        e1.record()
        e1.synchronize()
        ms = e0.elapsed_time(e1)
        series.append({"t_s": round(time.time() - t_start, 3), "tflops": round(8 * 2 * n ** 3 / (ms * 1e-3) / 1e12, 1)})
    ok = bool(torch.isfinite(c.float()).all().item())
    return {"series": series, "finite": ok, "torch": torch.__version__}


def mb_host_phase(exe):
    if not exe or not os.path.exists(exe):
        return {"error": "mb_host not found: %s" % exe}
    p = subprocess.run([exe, "--groups", "tclock"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    res = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("@@RESULT "):
            res.append(json.loads(line[9:]))
        elif line.startswith("@@ERROR ") or line.startswith("@@FATAL "):
            res.append({"error": line})
    return {"rc": p.returncode, "results": res}


def steady(rows, t_from, t_to):
    mid = t_from + (t_to - t_from) / 2
    sel = [r for r in rows if r["t_s"] is not None and mid <= r["t_s"] <= t_to]
    if not sel:
        return None

    def med(k):
        v = sorted(r[k] for r in sel)
        return v[len(v) // 2]
    return {"samples": len(sel), "sm_mhz": med("sm_mhz"), "power_w": med("power_w"), "temp_c": med("temp_c"),
            "sm_mhz_min": min(r["sm_mhz"] for r in sel), "sm_mhz_max": max(r["sm_mhz"] for r in sel),
            "reasons": sorted(set(r["reasons"] for r in sel if r["reasons"]))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mb-host", default=None)
    ap.add_argument("--seconds", type=float, default=7.0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    smi_path = os.path.join(args.out, "smi_samples.csv")
    t0 = time.time()
    sampler, fields = start_sampler(smi_path)
    phases = {}

    def phase(name, fn):
        a = time.time() - t0
        r = fn()
        phases[name] = {"from_s": round(a, 3), "to_s": round(time.time() - t0, 3), "result": r}

    phase("idle_before", lambda: time.sleep(1.0))
    phase("torch_matmul_bf16_8192", lambda: torch_phase(args.seconds))
    phase("idle_between", lambda: time.sleep(2.0))
    phase("wgmma_loop", lambda: mb_host_phase(args.mb_host))
    phase("idle_after", lambda: time.sleep(1.0))
    if sampler:
        sampler.terminate()
        sampler.wait(timeout=10)
    rows = read_samples(smi_path, fields, t0) if sampler else []
    doc = {"schema": "kernsim-hopper-clock/1", "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "command": " ".join(sys.argv), "smi_fields": fields, "phases": phases, "samples": rows,
           "steady": {k: steady(rows, v["from_s"], v["to_s"]) for k, v in phases.items()}}
    with open(os.path.join(args.out, "hopper_clock.json"), "w") as fh:
        json.dump(doc, fh, indent=1)
    for k, v in doc["steady"].items():
        print("%-24s %s" % (k, json.dumps(v)))
    tp = phases["torch_matmul_bf16_8192"]["result"]
    if isinstance(tp, dict) and tp.get("series"):
        s = sorted(x["tflops"] for x in tp["series"])
        print("torch bf16 8192^3: median %.1f TFLOP/s over %d batches" % (s[len(s) // 2], len(s)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
