#!/usr/bin/env python3
"""Builds and runs kernsim's CUDA microbenchmarks on an NVIDIA GPU; writes ONE measurement JSON.

    python3 calibration/microbenchmarks/run_cuda.py --out DIR            # full run (< 6 min on an H200)
    python3 calibration/microbenchmarks/run_cuda.py --out DIR --quick    # ~1 minute subset
    python3 calibration/microbenchmarks/run_cuda.py --out DIR --dry-run  # no GPU: build, SASS and spec
                                                                         # checks, fake-timing run
Needs only python3 (standard library) and nvcc; cuobjdump (optional) for the SASS checks and
nvidia-smi (optional) for clocks. The host program cuda/host/*.cu includes the very kernel files
that the launch specs in cuda/specs/ name, so the GPU runs the same code kernsim simulates.

Writes DIR/cuda_microbench.json (device, clocks, toolchain, every result as
{"name", "value", "unit", "params", "samples", "spread": [p10, p90]}, errors, SASS checks) and
DIR/run.log (build output and the host program's full transcript). See README.md.
"""
import argparse
import datetime
import glob
import hashlib
import json
import math
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CUDA_DIR = os.path.join(HERE, "cuda")
HOST_DIR = os.path.join(CUDA_DIR, "host")
SPEC_DIR = os.path.join(CUDA_DIR, "specs")
KERNEL_FILES = ["lat_chase.cu", "lat_shared.cu", "alu.cu", "mma.cu", "bw.cu", "atomics.cu", "launch.cu",
                "hopper_wgmma.cu", "hopper_async.cu"]
HOST_TUS = ["common", "main", "pipe_bench", "g_chase", "g_shared", "g_alu", "g_mma", "g_bw", "g_atomics", "g_launch",
            "g_hopper"]
# The Hopper groups (wgmma, tma, hsync, tclock) need sm_90a; tclock runs the tensor cores for 8 s.
ALL_GROUPS = ["clock", "latency", "shared", "alu", "mma", "bandwidth", "atomics", "launch", "wgmma", "tma", "hsync",
              "tclock", "specs"]
OUT_NAME = "cuda_microbench.json"
SCHEMA = "kernsim-cuda-microbench/1"

# Per-group wall-time limits (s) for the watchdog; a group over its limit is killed and skipped.
GROUP_LIMIT_S = {"clock": 30, "latency": 120, "shared": 30, "alu": 60, "mma": 60, "bandwidth": 60,
                 "atomics": 60, "launch": 60, "wgmma": 120, "tma": 90, "hsync": 60, "tclock": 30, "specs": 90}

# SASS expectations per kernel: (opcode regex, minimum count) that must appear, and opcode regexes
# that must not. Counts are static instruction counts in the kernel (loop bodies are unrolled).
SASS_EXPECT = {
    "lat_ptr_chase": ([(r"^LDG\.E\.64$", 16)], []),
    "lat_idx_chase": ([(r"^LDG\.E$", 16), (r"^LOP3\.LUT$", 16)], []),
    "smem_lat_chase": ([(r"^LDS$", 32)], []),
    "smem_bank": ([(r"^LDS$", 64)], []),
    "issue_ffma": ([(r"^FFMA$", 128)], []),
    "lat_ffma": ([(r"^FFMA$", 128)], []),
    "issue_fadd": ([(r"^FADD$", 128)], [r"^FFMA$"]),
    "lat_fadd": ([(r"^FADD$", 128)], [r"^FFMA$"]),
    "issue_imad": ([(r"^IMAD$", 128)], []),
    "lat_imad": ([(r"^IMAD$", 128)], []),
    "issue_lop3": ([(r"^LOP3\.LUT$", 128)], []),
    "lat_lop3": ([(r"^LOP3\.LUT$", 128)], []),
    "issue_iadd_lop": ([(r"^LOP3\.LUT$", 64), (r"^(VIADD|IADD3|IMAD\.IADD)$", 64)], []),
    "lat_iadd_lop": ([(r"^LOP3\.LUT$", 128), (r"^(VIADD|IADD3|IMAD\.IADD)$", 127)], []),
    "issue_mufu_ex2": ([(r"^MUFU\.EX2$", 128)], []),
    "lat_mufu_ex2": ([(r"^MUFU\.EX2$", 128)], []),
    "issue_mufu_rsq": ([(r"^MUFU\.RSQ$", 128)], []),
    "lat_mufu_rsq": ([(r"^MUFU\.RSQ$", 128)], []),
    "issue_mufu_sin": ([(r"^MUFU\.SIN$", 128)], []),
    "lat_mufu_sin": ([(r"^MUFU\.SIN$", 128)], []),
    "issue_dfma": ([(r"^DFMA$", 128)], []),
    "lat_dfma": ([(r"^DFMA$", 128)], []),
    "issue_hfma2": ([(r"^HFMA2(\.MMA)?$", 128)], []),
    "lat_hfma2": ([(r"^HFMA2(\.MMA)?$", 128)], []),
    "issue_cvt": ([(r"^F2I", 64), (r"^I2F", 64)], []),
    "lat_cvt": ([(r"^F2I", 128), (r"^I2F", 128)], []),
    "issue_mma_f16": ([(r"^HMMA\.16816\.F32$", 32)], []),
    "lat_mma_f16": ([(r"^HMMA\.16816\.F32$", 32)], []),
    "issue_mma_f16v": ([(r"^HMMA\.16816\.F32$", 32)], []),
    "lat_mma_f16v": ([(r"^HMMA\.16816\.F32$", 32)], []),
    "issue_mma_bf16": ([(r"^HMMA\.16816\.F32\.BF16$", 32)], []),
    "lat_mma_bf16": ([(r"^HMMA\.16816\.F32\.BF16$", 32)], []),
    "issue_mma_tf32": ([(r"^HMMA\.1688\.F32\.TF32$", 32)], []),
    "lat_mma_tf32": ([(r"^HMMA\.1688\.F32\.TF32$", 32)], []),
    "issue_mma_s8": ([(r"^IMMA\.16832\.S8\.S8$", 32)], []),
    "lat_mma_s8": ([(r"^IMMA\.16832\.S8\.S8$", 32)], []),
    "issue_mma_e4m3": ([(r"^HMMA\.16816\.F32$", 64), (r"^F2FP\.F16\.E4M3\.UNPACK_B$", 64)], []),
    "lat_mma_e4m3": ([(r"^HMMA\.16816\.F32$", 64), (r"^F2FP\.F16\.E4M3\.UNPACK_B$", 64)], []),
    "issue_dmma_f64": ([(r"^DMMA\.8x8x4$", 32)], []),
    "lat_dmma_f64": ([(r"^DMMA\.8x8x4$", 32)], []),
    "bw_l1_read": ([(r"^LDG\.E\.128$", 4)], []),
    "bw_l2_read": ([(r"^LDG\.E\.128\.STRONG\.GPU$", 4)], []),
    "bw_read": ([(r"^LDG\.E\.128$", 4)], []),
    "bw_write": ([(r"^STG\.E\.128$", 4)], []),
    "bw_copy": ([(r"^LDG\.E\.128$", 4), (r"^STG\.E\.128$", 4)], []),
    "atom_global_u32": ([(r"^REDG\.E\.ADD\.STRONG\.GPU$", 8)], [r"^VOTEU?\.", r"^REDUX", r"^POPC$"]),
    "atom_global_u32_uniform": ([(r"^REDG\.E\.ADD\.STRONG\.GPU$", 8), (r"^VOTEU?\.ANY$", 1)], []),
    "atom_global_f32": ([(r"^REDG\.E\.ADD\.F32", 8)], []),
    "atom_shared_u32": ([(r"^ATOMS\.ADD$", 8)], [r"^REDUX", r"^VOTEU?\."]),
    "atom_lat_global": ([(r"^ATOMG\.E\.ADD", 8)], [r"^VOTEU?\.", r"^SHFL"]),
    "atom_lat_shared": ([(r"^ATOMS\.ADD$", 8)], []),
    # Hopper (hopper_async.cu); the wgmma kernels are added below from gen_hopper_wgmma.py's tables.
    "mbar_ops": ([(r"^SYNCS\.ARRIVE\.TRANS64", 32), (r"^SYNCS\.PHASECHK\.TRANS64", 32)], []),
    "tma_lat": ([(r"^UTMALDG\.2D$", 1), (r"^UBLKCP\.S\.G$", 1), (r"^SYNCS\.PHASECHK\.TRANS64", 1)], []),
    "tma_bw": ([(r"^UTMALDG\.2D$", 1), (r"^UBLKCP\.S\.G$", 1), (r"^SYNCS\.ARRIVE\.TRANS64", 1)], []),
    "tma_bw_box": ([(r"^UTMALDG\.2D$", 1), (r"^SYNCS\.PHASECHK\.TRANS64", 1)], []),
    "tma_mc": ([(r"^UTMALDG\.2D\.MULTICAST$", 1), (r"^UTMALDG\.2D$", 1), (r"^UCGABAR_ARV$", 1)], []),
    "dsmem_lat": ([(r"^LD\.E$", 16), (r"^UCGABAR_WAIT$", 1)], []),
    "dsmem_bw": ([(r"^LD\.E\.128$", 8)], []),
    "cluster_bar": ([(r"^UCGABAR_ARV$", 16), (r"^UCGABAR_WAIT$", 16)], []),
    "nreg_ws_set": ([(r"^USETMAXREG\.DEALLOC", 1), (r"^USETMAXREG\.TRY_ALLOC", 1), (r"^FFMA$", 192)], [r"^STL", r"^LDL"]),
    "nreg_ws_plain": ([(r"^FFMA$", 192)], [r"^USETMAXREG"]),
}


def _wgmma_sass_expect():
    """HGMMA/QGMMA/IGMMA of the right shape in every generated wgmma kernel; no local memory."""
    sys.path.insert(0, CUDA_DIR)
    import gen_hopper_wgmma as g  # noqa: E402 - the generator owns the kernel list
    sys.path.pop(0)
    op = {"f16f32": "HGMMA\\.64x%dx16\\.F32$", "bf16f32": "HGMMA\\.64x%dx16\\.F32\\.BF16$",
          "f16f16": "HGMMA\\.64x%dx16\\.F16$", "tf32f32": "HGMMA\\.64x%dx8\\.F32\\.TF32$",
          "e4m3f32": "QGMMA\\.64x%dx32\\.F32\\.E4M3\\.E4M3$", "s8s32": "IGMMA\\.64x%dx32\\.S8\\.S8$"}
    out = {}
    for t in g.TYPES:
        for n in g.NS:
            for form in ("ss", "rs"):
                for mode, cnt in (("issue", g.U_ISSUE), ("lat", g.U_LAT)):
                    out["wgmma_%s_%s_%s_n%d" % (mode, form, t, n)] = (
                        [("^" + op[t] % n, cnt), (r"^WARPGROUP\.ARRIVE$", 1)], [r"^STL", r"^LDL"])
    return out


SASS_EXPECT.update(_wgmma_sass_expect())

# Opcodes worth reporting per kernel in the JSON (the rest is summed as "other").
SASS_REPORT = re.compile(r"^(FFMA|FADD|FMUL|IMAD|IADD3|VIADD|LOP3|MUFU|DFMA|DADD|HFMA2|F2I|I2F|F2FP|HMMA|IMMA|DMMA|"
                         r"LDG|STG|LDS|STS|ATOM|RED|LD|ST|CS2R|BAR|VOTE|POPC|REDUX|SHFL|LEA|BRA|"
                         r"HGMMA|QGMMA|IGMMA|WARPGROUP|UTMALDG|UBLKCP|SYNCS|UCGABAR|USETMAXREG|MEMBAR|FENCE)")

UNIT_SHORT = {"cycles/wgmma/SM": "cyc/wgmma", "bytes/cycle/SM": "B/cyc/SM", "TFLOP/s": "TFLOP/s",
              "cycles": "cyc", "cycles/instr/SMSP": "cyc/i/smsp", "cycles/warp-instr/SM": "cyc/wi/sm",
              "GB/s": "GB/s", "Gop/s": "Gop/s", "us": "us", "ns": "ns", "MHz": "MHz"}


def log_line(fh, text):
    if fh:
        fh.write(text if text.endswith("\n") else text + "\n")
        fh.flush()


def say(msg, fh=None):
    print(msg, flush=True)
    log_line(fh, msg)


# ---------------------------------------------------------------------------------------------
# tools

def find_tool(name, explicit=None, extra_dirs=()):
    if explicit:
        return explicit if os.path.exists(explicit) or shutil.which(explicit) else None
    p = shutil.which(name)
    if p:
        return p
    for d in list(extra_dirs) + ["/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin", "/opt/cuda/bin"]:
        c = os.path.join(d, name)
        if os.path.exists(c):
            return c
    return None


def run_cmd(cmd, timeout=600, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=env)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return 124, "timeout after %d s: %s" % (timeout, " ".join(cmd))
    except OSError as e:
        return 127, str(e)


def nvcc_version(nvcc):
    rc, out = run_cmd([nvcc, "--version"], timeout=60)
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", out)
    return {"release": m.group(1), "version": m.group(2)} if m else {"raw": out.strip()[-200:]}


def nvidia_smi(smi):
    """Clocks and identity from nvidia-smi; one query per field so one unknown field costs only itself."""
    fields = ["name", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem",
              "clocks.applications.graphics", "power.draw", "power.limit", "temperature.gpu", "pstate",
              "persistence_mode", "ecc.mode.current", "clocks_event_reasons.active"]
    res = {}
    if not smi:
        return {"error": "nvidia-smi not found"}
    rc, out = run_cmd([smi, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"], timeout=30)
    if rc == 0 and out.strip():
        vals = [v.strip() for v in out.strip().splitlines()[0].split(",")]
        if len(vals) == len(fields):
            return dict(zip(fields, vals))
    for f in fields:
        rc, out = run_cmd([smi, "--query-gpu=" + f, "--format=csv,noheader,nounits"], timeout=15)
        res[f] = out.strip().splitlines()[0].strip() if rc == 0 and out.strip() else None
    return res


# ---------------------------------------------------------------------------------------------
# build

def source_hash(flags):
    h = hashlib.sha256(" ".join(flags).encode())
    for f in sorted(glob.glob(os.path.join(CUDA_DIR, "*.cu")) + glob.glob(os.path.join(HOST_DIR, "*"))):
        h.update(f.encode())
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:16]


def parse_ptxas(text):
    """ptxas -v lines -> {kernel: {registers, spill_stores, spill_loads, stack}} (sm_90a only)."""
    info, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)' for 'sm_\w+'", line)
        if m:
            cur = m.group(1)
            info.setdefault(cur, {})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            info[cur].update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            info[cur]["registers"] = int(m.group(1))
            cur = None
    return info


def arch_flag(arch):
    """nvcc target flag. `-arch=sm_90a` also runs a plain compute_90 pass, which rejects wgmma and
    setmaxnreg (CUDA 13.0); the -gencode form compiles for the arch-specific target only."""
    m = re.match(r"^sm_(\d+a)$", arch)
    return "-gencode=arch=compute_%s,code=%s" % (m.group(1), arch) if m else "-arch=" + arch


def build(args, logf):
    """Compiles cuda/host/*.cu (one TU per kernel file) and links mb_host. Returns (path, info)."""
    nvcc = args.nvcc_path
    flags = ["-O3", "-std=c++17", arch_flag(args.arch), "-Xptxas", "-v"]
    os.makedirs(args.build_dir, exist_ok=True)
    stamp = os.path.join(args.build_dir, "stamp")
    exe = os.path.join(args.build_dir, "mb_host")
    h = source_hash(flags + [nvcc])
    info = {"nvcc": nvcc, "flags": " ".join(flags), "source_hash": h, "ptxas": {}}
    ptxas_cache = os.path.join(args.build_dir, "ptxas.json")
    if os.path.exists(stamp) and open(stamp).read().strip() == h and os.path.exists(exe):
        say("build: up to date (%s)" % args.build_dir, logf)
        if os.path.exists(ptxas_cache):
            info["ptxas"] = json.load(open(ptxas_cache))
        info["cached"] = True
        return exe, info
    t0 = time.time()
    jobs = max(1, args.jobs)
    pending = list(HOST_TUS)
    running = []
    failed = []
    outputs = []
    while pending or running:
        while pending and len(running) < jobs:
            tu = pending.pop(0)
            obj = os.path.join(args.build_dir, tu + ".o")
            cmd = [nvcc] + flags + ["-c", os.path.join(HOST_DIR, tu + ".cu"), "-o", obj]
            log_line(logf, "$ " + " ".join(cmd))
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            running.append((tu, p, time.time()))
        time.sleep(0.05)
        for item in list(running):
            tu, p, ts = item
            if p.poll() is None:
                if time.time() - ts > 600:
                    p.kill()
                continue
            out = p.stdout.read().decode("utf-8", "replace")
            running.remove(item)
            outputs.append(out)
            log_line(logf, out)
            if p.returncode != 0:
                failed.append(tu)
                say("build: %s.cu FAILED:\n%s" % (tu, out[-3000:]), logf)
            else:
                say("build: %s.cu ok (%.1f s)" % (tu, time.time() - ts), logf)
    if failed:
        raise RuntimeError("compilation failed: " + ", ".join(failed))
    cmd = [nvcc, arch_flag(args.arch), "-o", exe] + [os.path.join(args.build_dir, t + ".o") for t in HOST_TUS]
    rc, out = run_cmd(cmd, timeout=300)
    log_line(logf, "$ " + " ".join(cmd) + "\n" + out)
    if rc != 0:
        raise RuntimeError("link failed:\n" + out[-3000:])
    ptxas = {}
    for o in outputs:
        ptxas.update(parse_ptxas(o))
    info["ptxas"] = ptxas
    with open(ptxas_cache, "w") as fh:
        json.dump(ptxas, fh)
    with open(stamp, "w") as fh:
        fh.write(h)
    info["build_s"] = round(time.time() - t0, 1)
    say("build: mb_host linked in %.1f s" % (time.time() - t0), logf)
    return exe, info


# ---------------------------------------------------------------------------------------------
# SASS

def parse_sass(text):
    """cuobjdump -sass text -> {function: {opcode: count}} (opcode with modifiers, no predicate)."""
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = {}
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Za-z0-9_.]*)", line)
        if m and cur:
            op = m.group(1)
            funcs[cur][op] = funcs[cur].get(op, 0) + 1
    return funcs


def sass_checks(exe, cuobjdump, logf):
    if not cuobjdump:
        return {"available": False, "note": "cuobjdump not found: SASS not inspected"}, []
    rc, out = run_cmd([cuobjdump, "-sass", exe], timeout=300)
    if rc != 0:
        return {"available": False, "note": "cuobjdump failed: " + out[-500:]}, []
    funcs = parse_sass(out)
    checks = []
    for k, (need, forbid) in sorted(SASS_EXPECT.items()):
        ops = funcs.get(k)
        if ops is None:
            checks.append({"kernel": k, "check": "present", "ok": False, "detail": "kernel not in SASS"})
            continue
        for rx, n in need:
            c = sum(v for op, v in ops.items() if re.search(rx, op))
            checks.append({"kernel": k, "check": "%s >= %d" % (rx, n), "ok": c >= n, "count": c})
        for rx in forbid:
            c = sum(v for op, v in ops.items() if re.search(rx, op))
            checks.append({"kernel": k, "check": "no %s" % rx, "ok": c == 0, "count": c})
    summary = {}
    for f, ops in funcs.items():
        rep, other = {}, 0
        for op, v in sorted(ops.items()):
            if SASS_REPORT.match(op):
                rep[op] = v
            elif op != "NOP":
                other += v
        rep["other"] = other
        summary[f] = rep
    bad = [c for c in checks if not c["ok"]]
    say("sass: %d kernels, %d checks, %d failed" % (len(funcs), len(checks), len(bad)), logf)
    for c in bad:
        say("sass: FAILED %s %s (count %s)" % (c["kernel"], c["check"], c.get("count")), logf)
    return {"available": True, "tool": cuobjdump, "opcodes": summary}, checks


# ---------------------------------------------------------------------------------------------
# launch specs

SCALAR_SIZE = {"i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}
BUFFER_TYPES = {"f32", "f16", "bf16", "f64", "i32", "u32", "i64", "u8"}


def load_specs():
    specs = []
    for f in sorted(glob.glob(os.path.join(SPEC_DIR, "*.json"))):
        with open(f) as fh:
            s = json.load(fh)
        s["_file"] = f
        specs.append(s)
    return specs


def spec_line(s):
    """One SPEC line for mb_host (see cuda/host/main.cu)."""
    sid = re.sub(r"[^A-Za-z0-9_.-]", "_", s.get("id") or os.path.basename(s["_file"])[:-5])
    g = (list(s["grid"]) + [1, 1, 1])[:3] if isinstance(s["grid"], list) else [s["grid"], 1, 1]
    b = (list(s["block"]) + [1, 1, 1])[:3] if isinstance(s["block"], list) else [s["block"], 1, 1]
    toks = []
    for i, a in enumerate(s["args"]):
        if "buffer" in a:
            if a["buffer"] not in BUFFER_TYPES:
                raise ValueError("%s: args[%d]: buffer type %s" % (s["_file"], i, a["buffer"]))
            init = a.get("init", "zeros")
            if init not in ("zeros", "iota", "uniform") and not re.match(r"^randint:-?\d+:-?\d+$", init):
                raise ValueError("%s: args[%d]: init %s not supported by the replay" % (s["_file"], i, init))
            toks.append("b:%s:%d:%s" % (a["buffer"], int(a["count"]), init))
        else:
            t = a["type"]
            if t not in SCALAR_SIZE:
                raise ValueError("%s: args[%d]: scalar type %s" % (s["_file"], i, t))
            v = a["value"]
            if t in ("f32", "f64"):
                v = repr(float(v))
            else:
                v = str(int(v))
            toks.append("s:%s:%s" % (t, v))
    return "SPEC %s %s %d %d %d %d %d %d %d %d %d %s" % (
        sid, s["kernel"], g[0], g[1], g[2], b[0], b[1], b[2], int(s.get("dynamic_shared_bytes", 0)),
        int(s.get("seed", 0)), len(toks), " ".join(toks))


def ptx_entries(text):
    """PTX text -> {entry name: [param types]} (e.g. ['u64', 'u32', 'f32'])."""
    out = {}
    for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)", text, re.S):
        params = re.findall(r"\.param\s+\.(\w+)", m.group(2))
        out[m.group(1)] = params
    return out


def check_specs_against_ptx(specs, nvcc, arch, build_dir, logf):
    """Every spec: source exists, kernel is an entry of the source's PTX, argument count and sizes
    match the parameters (buffer -> 64-bit pointer). Returns a list of problems."""
    problems, ptx_cache = [], {}
    for s in specs:
        src = os.path.normpath(os.path.join(os.path.dirname(s["_file"]), s["source"]))
        if not os.path.exists(src):
            problems.append("%s: source %s missing" % (s["_file"], src))
            continue
        if src not in ptx_cache:
            out_ptx = os.path.join(build_dir, os.path.basename(src) + ".ptx")
            rc, out = run_cmd([nvcc, "-arch=" + arch, "-O3", "-std=c++17", "-ptx", src, "-o", out_ptx], timeout=300)
            ptx_cache[src] = ptx_entries(open(out_ptx).read()) if rc == 0 else None
            if rc != 0:
                problems.append("%s: nvcc -ptx failed: %s" % (src, out[-500:]))
        entries = ptx_cache[src]
        if entries is None:
            continue
        params = entries.get(s["kernel"])
        if params is None:
            problems.append("%s: kernel %s not an entry of %s" % (s["_file"], s["kernel"], src))
            continue
        if len(params) != len(s["args"]):
            problems.append("%s: %d args for %d parameters" % (s["_file"], len(s["args"]), len(params)))
            continue
        for i, (a, p) in enumerate(zip(s["args"], params)):
            psize = int(re.sub(r"\D", "", p) or 0) // 8
            if "buffer" in a:
                if psize != 8:
                    problems.append("%s: args[%d] buffer for a %s parameter" % (s["_file"], i, p))
            elif SCALAR_SIZE.get(a["type"]) != psize:
                problems.append("%s: args[%d] %s for a %s parameter" % (s["_file"], i, a["type"], p))
    say("specs: %d specs checked against the PTX signatures, %d problems" % (len(specs), len(problems)), logf)
    for p in problems:
        say("specs: " + p, logf)
    return problems


def clang_check(logf, arch):
    """Compiles every kernel file the way kernsim's frontend does (clang CUDA -> PTX), if clang exists."""
    clang = None
    for c in ("clang++-22", "clang++", "clang-22", "clang"):
        clang = shutil.which(c)
        if clang:
            break
    if not clang:
        return {"available": False}
    res = {"available": True, "tool": clang, "files": {}}
    tmp = tempfile.mkdtemp(prefix="mb_clang_")
    for f in KERNEL_FILES:
        cmd = [clang, "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + arch, "-O3", "-std=c++17",
               "-Wno-unknown-cuda-version", "-S", os.path.join(CUDA_DIR, f), "-o", os.path.join(tmp, f + ".ptx")]
        if os.path.isdir("/usr/local/cuda"):
            cmd.insert(1, "--cuda-path=/usr/local/cuda")
        rc, out = run_cmd(cmd, timeout=300)
        res["files"][f] = "ok" if rc == 0 else ("failed: " + out[-800:])
    shutil.rmtree(tmp, ignore_errors=True)
    bad = [f for f, v in res["files"].items() if v != "ok"]
    say("clang: %d kernel files compiled to PTX with %s, %d failed %s" % (len(KERNEL_FILES), clang, len(bad), bad), logf)
    return res


# ---------------------------------------------------------------------------------------------
# running the host program

class HostRun:
    """Drives mb_host: restarts it without the group that crashed or hung, until every group ran."""

    def __init__(self, exe_cmd, base_args, groups, deadline, logf, limits=None):
        self.exe_cmd = exe_cmd
        self.base_args = base_args
        self.groups = list(groups)
        self.deadline = deadline
        self.logf = logf
        self.limits = limits or GROUP_LIMIT_S
        self.results = []
        self.errors = []
        self.info = None
        self.groups_done = []
        self.groups_failed = {}
        self.sm_mhz = None

    def _handle(self, line, group_state):
        if line.startswith("@@RESULT "):
            try:
                r = json.loads(line[9:])
                self.results.append(r)
                if r.get("name") == "clock.sm_mhz_measured":
                    v = [x for x in r.get("samples", []) if isinstance(x, (int, float))]
                    if v:
                        self.sm_mhz = sorted(v)[len(v) // 2]
            except ValueError as e:
                self.errors.append({"group": group_state.get("g"), "bench": "?", "error": "bad RESULT line: %s" % e})
        elif line.startswith("@@ERROR "):
            try:
                self.errors.append(json.loads(line[8:]))
            except ValueError:
                self.errors.append({"group": group_state.get("g"), "error": line})
            say("  error: " + line[8:][:300], None)
        elif line.startswith("@@FATAL "):
            try:
                e = json.loads(line[8:])
            except ValueError:
                e = {"group": group_state.get("g"), "error": line}
            e["fatal"] = True
            self.errors.append(e)
            group_state["fatal"] = e
            say("  FATAL: " + line[8:][:300], None)
        elif line.startswith("@@INFO "):
            try:
                self.info = json.loads(line[7:])
            except ValueError:
                pass
        elif line.startswith("@@GROUP_START "):
            group_state["g"] = line.split()[1]
            group_state["t"] = time.time()
            say("group %-10s started" % group_state["g"], None)
        elif line.startswith("@@GROUP_END "):
            g = line.split()[1]
            self.groups_done.append(g)
            say("group %-10s done in %.1f s" % (g, time.time() - group_state.get("t", time.time())), None)
            group_state["g"] = None
            group_state["t"] = time.time()

    def run(self):
        remaining = list(self.groups)
        attempts = 0
        while remaining and attempts < len(self.groups) + 2:
            attempts += 1
            if time.time() > self.deadline - 5:
                for g in remaining:
                    self.groups_failed[g] = "skipped: time budget exhausted"
                break
            cmd = self.exe_cmd + ["--groups", ",".join(remaining)] + self.base_args
            if self.sm_mhz:
                cmd += ["--sm-mhz", "%.3f" % self.sm_mhz]
            log_line(self.logf, "$ " + " ".join(cmd))
            state = {"g": None, "t": time.time()}
            try:
                p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            except OSError as e:
                for g in remaining:
                    self.groups_failed[g] = "could not start mb_host: %s" % e
                break
            q = queue.Queue()

            def reader():
                for raw in iter(p.stdout.readline, b""):
                    q.put(raw.decode("utf-8", "replace"))
                q.put(None)

            th = threading.Thread(target=reader, daemon=True)
            th.start()
            killed_for = None
            while True:
                try:
                    line = q.get(timeout=0.5)
                except queue.Empty:
                    line = ""
                if line is None:
                    break
                if line:
                    log_line(self.logf, line)
                    self._handle(line.rstrip("\n"), state)
                g = state.get("g")
                now = time.time()
                over_group = g is not None and now - state["t"] > self.limits.get(g, 120)
                # Before the first group (context creation, allocations) and between groups.
                over_init = g is None and now - state["t"] > 120
                if (over_group or over_init or now > self.deadline) and killed_for is None:
                    killed_for = g or "startup"
                    if over_group:
                        why = "watchdog: group over its %d s limit" % self.limits.get(g, 120)
                    elif over_init:
                        why = "watchdog: no group started within 120 s"
                    else:
                        why = "watchdog: total time budget exhausted"
                    say("  %s (%s): killing mb_host pid %d" % (why, killed_for, p.pid), self.logf)
                    self.groups_failed[killed_for] = why
                    p.kill()
            p.wait()
            th.join(timeout=5)
            done = set(self.groups_done)
            crashed = state.get("g")  # started, not ended
            if killed_for == "startup":
                for g2 in remaining:
                    if g2 not in done:
                        self.groups_failed.setdefault(g2, "mb_host killed before the group started")
                break
            if p.returncode != 0 and crashed is None and not state.get("fatal"):
                # Died before starting a group (init failure): nothing else will work either.
                for g2 in remaining:
                    if g2 not in done:
                        self.groups_failed.setdefault(g2, "mb_host exited %s before the group started" % p.returncode)
                break
            if state.get("fatal") and state["fatal"].get("group") == "init":
                for g2 in remaining:
                    self.groups_failed.setdefault(g2, "init failed: %s" % state["fatal"].get("error"))
                break
            if crashed is not None:
                self.groups_failed.setdefault(crashed, "mb_host exited %s in the group" % p.returncode)
            remaining = [g2 for g2 in remaining if g2 not in done and g2 not in self.groups_failed]
        return self


# ---------------------------------------------------------------------------------------------
# results

def percentile(v, p):
    v = sorted(x for x in v if isinstance(x, (int, float)) and math.isfinite(x))
    if not v:
        return None
    pos = p / 100.0 * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    f = pos - lo
    return v[lo] * (1 - f) + v[hi] * f


def finalize(raw):
    """@@RESULT objects -> the JSON's result entries."""
    out = []
    for r in raw:
        s = [x for x in r.get("samples", []) if isinstance(x, (int, float))]
        med = percentile(s, 50)
        out.append({
            "name": r.get("name"),
            "value": None if med is None else float("%.6g" % med),
            "unit": r.get("unit"),
            "params": r.get("params", {}),
            "samples": len(s),
            "spread": [None if percentile(s, 10) is None else float("%.6g" % percentile(s, 10)),
                       None if percentile(s, 90) is None else float("%.6g" % percentile(s, 90))],
            "raw_samples": [float("%.6g" % x) for x in s],
        })
    return out


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1e5 or (abs(v) < 1e-2 and v != 0):
        return "%.3g" % v
    return "%.4g" % v


def summary_table(results, errors, groups_failed, out_path, sass_bad, dry):
    lines = []
    lines.append("=" * 78)
    lines.append("kernsim CUDA microbenchmarks%s: %d results, %d errors -> %s" % (
        " (DRY RUN, FAKE TIMINGS)" if dry else "", len(results), len(errors), out_path))
    lines.append("%-34s %10s %-11s %s" % ("result", "median", "unit", "[p10, p90]"))
    spec_res = [r for r in results if r["name"].startswith("spec.")]
    sweeps = {"latency.chase_": "latency.chase_<footprint> (cycles)",
              "bandwidth.l2_read_": "bandwidth.l2_read_<footprint> (GB/s; 8m is bandwidth.l2_read)",
              "bandwidth.l1_read_": "bandwidth.l1_read_<footprint> (GB/s; 32k is bandwidth.l1_read)",
              "launch.empty_grid_": "launch.empty_grid_<grid>x<block> (us)"}
    swept = {k: [] for k in sweeps}
    for r in results:
        if r["name"].startswith("spec."):
            continue
        key = next((k for k in sweeps if r["name"].startswith(k)), None)
        if key:
            swept[key].append("%s=%s" % (r["name"][len(key):].replace("_us", ""), fmt(r["value"])))
            continue
        lines.append("%-34s %10s %-11s [%s, %s]" % (r["name"][:34], fmt(r["value"]), UNIT_SHORT.get(r["unit"], r["unit"])[:11],
                                                    fmt(r["spread"][0]), fmt(r["spread"][1])))
    for key, title in sweeps.items():
        if swept[key]:
            lines.append(title + ":")
            for i in range(0, len(swept[key]), 6):
                lines.append("  " + "  ".join(swept[key][i:i + 6]))
    if spec_res:
        ok = [r for r in spec_res if r["value"] is not None]
        lines.append("spec replays: %d launches timed (spec.<id>, us per launch after an L2 flush)" % len(ok))
    for g, why in sorted(groups_failed.items()):
        lines.append("GROUP FAILED %s: %s" % (g, why[:120]))
    for e in errors[:12]:
        lines.append("ERROR %s/%s: %s" % (e.get("group"), e.get("bench", ""), str(e.get("error"))[:110]))
    if len(errors) > 12:
        lines.append("... %d more errors in the JSON" % (len(errors) - 12))
    if sass_bad:
        lines.append("SASS checks failed: " + ", ".join("%s(%s)" % (c["kernel"], c["check"]) for c in sass_bad)[:300])
    lines.append("=" * 78)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# dry run: a fake mb_host that speaks the protocol, so the driver, the restart logic and the JSON
# writer are exercised without a GPU.

FAKE_HOST = r'''
import json, sys, random
args = sys.argv[1:]
groups = args[args.index("--groups") + 1].split(",") if "--groups" in args else []
random.seed(7)
def res(name, unit, base, n=20, **params):
    s = [base * (1 + 0.01 * random.uniform(-1, 1)) for _ in range(n)]
    print("@@RESULT " + json.dumps({"name": name, "unit": unit, "samples": s, "params": dict(params, fake=True)}))
print("@@INFO " + json.dumps({"name": "FAKE (dry run)", "compute_capability": "9.0", "sm_count": 132,
                             "l2_bytes": 62914560, "driver_version": 0, "runtime_version": 13000}))
FAKE = {
  "clock": [("clock.sm_mhz_measured", "MHz", 1980.0)],
  "latency": [("latency.chase_32k", "cycles", 32.0), ("latency.l1_hit", "cycles", 32.0),
              ("latency.l2_hit", "cycles", 280.0), ("latency.l2_far", "cycles", 500.0),
              ("latency.hbm", "cycles", 660.0), ("latency.l1_idx", "cycles", 45.0),
              ("latency.idx_overhead", "cycles", 13.0)],
  "shared": [("latency.smem", "cycles", 29.0), ("smem.bank_lat_s32", "cycles", 90.0),
             ("smem.bank_tput_s1", "cycles/warp-instr/SM", 1.0)],
  "alu": [("issue.ffma", "cycles/instr/SMSP", 1.0), ("latency.ffma", "cycles", 4.0)],
  "mma": [("issue.mma_f16", "cycles/instr/SMSP", 8.0), ("latency.mma_f16", "cycles", 33.0)],
  "bandwidth": [("bandwidth.hbm_read", "GB/s", 4300.0), ("bandwidth.l2_read", "GB/s", 10000.0)],
  "atomics": [("atomic.global_u32_1addr", "Gop/s", 1.4)],
  "launch": [("launch.empty_event_us", "us", 4.0), ("launch.cta_dispatch_cycles_per_sm", "cycles", 150.0)],
  "wgmma": [("wgmma.issue_ss_bf16f32_n256_wg2", "cycles/wgmma/SM", 128.0), ("wgmma.lat_ss_bf16f32_n256", "cycles", 150.0)],
  "tma": [("tma.lat_l2_tile", "cycles", 900.0), ("tma.bw_chip_hbm_tile_s4", "bytes/cycle/SM", 16.0)],
  "hsync": [("mbar.arrive", "cycles", 8.0), ("dsmem.lat_c2_remote", "cycles", 200.0)],
  "tclock": [("tclock.wgmma_mhz", "MHz", 1755.0)],
}
crash_once = "--fake-crash" in args
for g in groups:
    print("@@GROUP_START " + g, flush=True)
    if g == "mma" and crash_once:
        print("@@FATAL " + json.dumps({"group": g, "error": "fake sticky error (tests the restart)"}), flush=True)
        sys.exit(3)
    if g == "specs":
        path = args[args.index("--specs") + 1]
        for line in open(path):
            if line.startswith("SPEC "):
                res("spec." + line.split()[1], "us", 10.0, kernel=line.split()[2])
    for name, unit, base in FAKE.get(g, []):
        res(name, unit, base)
    if g == "atomics":
        print("@@ERROR " + json.dumps({"group": g, "bench": "atomic.fake", "error": "fake error (tests reporting)"}))
    print("@@GROUP_END " + g, flush=True)
'''


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--quick", action="store_true", help="~1 minute subset")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: build, check SASS and specs, fake timings")
    ap.add_argument("--groups", default=None, help="comma list of %s" % ",".join(ALL_GROUPS))
    ap.add_argument("--reps", type=int, default=30, help="repetitions per measurement (>= 20)")
    ap.add_argument("--target-ms", type=float, default=2.0, help="duration of scaled throughput launches")
    ap.add_argument("--budget-s", type=float, default=330.0, help="total wall-time budget incl. build")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--nvcc", default=None, help="path of nvcc (default: PATH, /usr/local/cuda/bin)")
    ap.add_argument("--build-dir", default=None, help="default: a fresh temporary directory")
    ap.add_argument("--jobs", type=int, default=None, help="parallel compilations (default: cores/2, max 10)")
    ap.add_argument("--no-specs", action="store_true", help="skip the spec replays")
    args = ap.parse_args()

    t_start = time.time()
    deadline = t_start + args.budget_s
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "run.log"), "w")
    out_path = os.path.join(args.out, OUT_NAME)
    say("kernsim CUDA microbenchmarks: %s%s, out %s" % ("dry run" if args.dry_run else "GPU run",
                                                         " (quick)" if args.quick else "", out_path), logf)

    doc = {
        "schema": SCHEMA,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dry_run": bool(args.dry_run),
        "quick": bool(args.quick),
        "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
        "host": {"python": sys.version.split()[0], "hostname": os.uname().nodename},
        "device": {},
        "clocks": {},
        "toolchain": {},
        "results": [],
        "errors": [],
        "groups_failed": {},
        "sass": {},
        "sass_checks": [],
        "spec_checks": [],
    }

    def write_doc():
        tmp = out_path + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(doc, fh, indent=1, sort_keys=False)
        os.replace(tmp, out_path)

    args.nvcc_path = find_tool("nvcc", args.nvcc)
    if args.jobs is None:
        args.jobs = max(1, min(10, (os.cpu_count() or 2) // 2))
        if args.dry_run:
            args.jobs = 1  # the development machine's cores are shared
    if args.build_dir is None:
        args.build_dir = tempfile.mkdtemp(prefix="kernsim_mb_cuda_")
    cuobjdump = find_tool("cuobjdump")
    smi = find_tool("nvidia-smi", extra_dirs=["/usr/bin"])
    doc["toolchain"] = {"nvcc": args.nvcc_path, "cuobjdump": cuobjdump, "arch": args.arch}

    if not args.nvcc_path:
        doc["errors"].append({"group": "build", "error": "nvcc not found (give --nvcc)"})
        write_doc()
        say("nvcc not found; wrote %s" % out_path, logf)
        return 2
    doc["toolchain"]["nvcc_version"] = nvcc_version(args.nvcc_path)
    doc["toolchain"]["cuda_version"] = doc["toolchain"]["nvcc_version"].get("release")

    if not args.dry_run:
        doc["clocks"]["before"] = nvidia_smi(smi)

    # Build.
    exe = None
    try:
        exe, binfo = build(args, logf)
        doc["toolchain"]["build"] = {k: v for k, v in binfo.items() if k != "ptxas"}
        doc["kernels_ptxas"] = binfo.get("ptxas", {})
    except Exception as e:  # noqa: BLE001 - report and stop: nothing runs without the binary
        doc["errors"].append({"group": "build", "error": str(e)[-3000:]})
        write_doc()
        say("BUILD FAILED: %s\nwrote %s" % (str(e)[-2000:], out_path), logf)
        return 1
    sass_info, checks = sass_checks(exe, cuobjdump, logf)
    doc["sass"] = sass_info
    doc["sass_checks"] = checks

    # Launch specs -> the replay list.
    groups = [g.strip() for g in (args.groups.split(",") if args.groups else ALL_GROUPS) if g.strip()]
    if args.no_specs and "specs" in groups:
        groups.remove("specs")
    spec_file = os.path.join(args.build_dir, "specs.txt")
    specs = []
    try:
        specs = load_specs()
        with open(spec_file, "w") as fh:
            for s in specs:
                fh.write(spec_line(s) + "\n")
        doc["specs"] = {"count": len(specs), "dir": os.path.relpath(SPEC_DIR, HERE)}
    except Exception as e:  # noqa: BLE001
        doc["errors"].append({"group": "specs", "error": "spec conversion: %s" % e})
        if "specs" in groups:
            groups.remove("specs")

    if args.dry_run:
        # Everything a GPU-less machine can check.
        problems = check_specs_against_ptx(specs, args.nvcc_path, args.arch, args.build_dir, logf)
        rc, out = run_cmd([exe, "--list-kernels"], timeout=60)
        registered = set(out.split()) if rc == 0 else set()
        for s in specs:
            if s["kernel"] not in registered:
                problems.append("%s: kernel %s not registered in mb_host" % (s["_file"], s["kernel"]))
        rc, out = run_cmd([exe, "--parse-specs", spec_file], timeout=300)
        parsed = [l for l in out.splitlines() if l.startswith("PARSED ")]
        if rc != 0 or len(parsed) != len(specs):
            problems.append("mb_host --parse-specs: rc %d, %d of %d parsed: %s" % (rc, len(parsed), len(specs), out[-500:]))
        for l in parsed:
            if "registered=1" not in l:
                problems.append("not registered: " + l[:200])
        log_line(logf, out)
        rc, out = run_cmd([sys.executable, os.path.join(CUDA_DIR, "make_specs.py"), "--check"], timeout=60)
        if rc != 0:
            problems.append("specs out of date (run cuda/make_specs.py): " + out.strip()[:500])
        for tool in (["gen_hopper_wgmma.py", "--check"], ["make_specs_hopper.py", "--check"],
                     ["make_specs_hopper.py", "--ptx-check", args.nvcc_path]):
            rc, out = run_cmd([sys.executable, os.path.join(CUDA_DIR, tool[0])] + tool[1:], timeout=600)
            if rc != 0:
                problems.append("%s: %s" % (" ".join(tool[:2]), out.strip()[-500:]))
        doc["spec_checks"] = problems
        doc["clang"] = clang_check(logf, args.arch)
        rc, out = run_cmd([exe, "--groups", "clock"], timeout=60)
        doc["no_gpu_behaviour"] = out.strip()[-300:]
        say("mb_host without a GPU: rc %d: %s" % (rc, out.strip()[-200:]), logf)
        # Fake-timing run through the real driver (with one simulated crash + restart).
        fake = os.path.join(args.build_dir, "fake_mb_host.py")
        with open(fake, "w") as fh:
            fh.write(FAKE_HOST)
        exe_cmd = [sys.executable, fake]
        base = ["--specs", spec_file, "--fake-crash"]
    else:
        exe_cmd = [exe]
        base = ["--reps", str(max(20, args.reps)), "--target-ms", str(args.target_ms)]
        if args.quick:
            base.append("--quick")
        if "specs" in groups:
            base += ["--specs", spec_file]

    runner = HostRun(exe_cmd, base, groups, deadline, logf)
    if args.dry_run:
        # The fake crashes in `mma` every time it is started with --fake-crash: mma is marked failed
        # and the driver goes on with the remaining groups.
        pass
    runner.run()

    if not args.dry_run:
        doc["clocks"]["after"] = nvidia_smi(smi)
    info = runner.info or {}
    doc["device"] = info
    doc["device"]["name"] = info.get("name") or (doc["clocks"].get("before") or {}).get("name")
    doc["driver_version"] = (doc["clocks"].get("before") or {}).get("driver_version") or info.get("driver_version")
    doc["cuda_version"] = doc["toolchain"].get("cuda_version")
    doc["sm_count"] = info.get("sm_count")
    before = doc["clocks"].get("before") or {}
    doc["clocks"]["sm_mhz"] = before.get("clocks.sm")
    doc["clocks"]["max_sm_mhz"] = before.get("clocks.max.sm")
    doc["clocks"]["mem_mhz"] = before.get("clocks.mem")
    doc["clocks"]["sm_mhz_measured"] = runner.sm_mhz
    doc["results"] = finalize(runner.results)
    doc["values"] = {r["name"]: r["value"] for r in doc["results"]}  # name -> median, for quick use
    doc["errors"] += runner.errors
    doc["groups_failed"] = runner.groups_failed
    doc["groups_done"] = runner.groups_done
    doc["wall_s"] = round(time.time() - t_start, 1)
    write_doc()

    bad_sass = [c for c in checks if not c["ok"]]
    print(summary_table(doc["results"], doc["errors"], doc["groups_failed"], out_path, bad_sass, args.dry_run), flush=True)
    say("wall time %.1f s; full transcript in %s" % (time.time() - t_start, os.path.join(args.out, "run.log")), logf)
    if args.dry_run:
        ok = (not bad_sass and not doc["spec_checks"] and "mma" in doc["groups_failed"]
              and set(doc["groups_done"]) >= set(groups) - {"mma"} and all(
                  v == "ok" for v in (doc.get("clang") or {}).get("files", {}).values()))
        say("DRY RUN %s" % ("PASSED" if ok else "FOUND PROBLEMS (see above and %s)" % out_path), logf)
        return 0 if ok else 1
    return 0 if doc["results"] else 1


if __name__ == "__main__":
    sys.exit(main())
