#!/usr/bin/env python3
"""Run the microbenchmark launch specs functionally with kernsim and check their outputs.

Every spec must run (exit 0), and where a kernel's result is determined by its arguments the
dumped buffers must hold it: the pointer and index chases end on the node the step count predicts,
the LDS chase on the right address, the step counters say how many steps ran, every atomic add
arrived (sums), the dependent atomic chains return the values of the recurrence, the write and
copy kernels wrote what they should. Timing is not checked here (simulate.py derives it).

    python3 calibration/microbenchmarks/check_specs.py --arch mi300x            # hip/specs
    python3 calibration/microbenchmarks/check_specs.py --arch h200 --quick      # cuda/specs, a subset
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# One spec per kernel, the smallest: what --quick runs.
QUICK = ["lat_chase_16k", "lat_chase_32k", "lat_idx_l1_16k", "lat_idx_l1_32k", "smem_lat", "smem_bank_lat_s4", "lat_ffma",
         "lat_iadd_lop", "lat_mma_f16", "issue_mma_e4m3", "atom_global_u32_32addr", "atom_global_f32_1addr",
         "atom_global_u32_1addr_aggregated", "atom_lat_global", "atom_lat_shared", "atom_shared_u32_32addr", "launch_one_block"]

U32 = 0xffffffff

# MFMA ops a target lacks: their kernels run no steps there and say so (out steps = 0).
ABSENT = {"gfx950": {"mma_tf32"}, "gfx942": {"mma_f16_k32", "mma_bf16_k32", "mma_s8_k64", "mma_fp8_k128", "mma_fp4_k128"}}


def find_kernsim(given):
    for cand in [given, os.path.join(ROOT, "build", "kernsim"), shutil.which("kernsim")]:
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    sys.exit("check_specs.py: no kernsim binary (build it, or pass --kernsim PATH)")


def words(path, fmt):
    with open(path, "rb") as f:
        data = f.read()
    n = len(data) // struct.calcsize(fmt)
    return list(struct.unpack("<%d%s" % (n, fmt), data[: n * struct.calcsize(fmt)]))


def chase_jump(nodes, pattern):
    if pattern == 0 or nodes < 3:
        return 1
    j = ((nodes * 40503) >> 16) | 1
    while True:
        a, b = j, nodes
        while b:
            a, b = b, a % b
        if a == 1:
            return j
        j += 2


def steps_per_iter(kernel, vendor):
    op = kernel.split("_", 1)[1]
    if op.startswith(("mma_", "dmma_")):  # mma.cu: 4 accumulators x 8 steps
        return 32
    if kernel.startswith("issue_") and op in ("iadd_lop", "cvt"):
        return 64
    return 128


def check(spec, d, vendor, target=""):
    """A list of problems with the dumped buffers of one launch (empty: fine)."""
    k = spec["kernel"]
    sc = [a.get("value") for a in spec["args"] if "buffer" not in a]
    grid = spec["grid"][0] * spec["grid"][1] * spec["grid"][2]
    block = spec["block"][0] * spec["block"][1] * spec["block"][2]
    out_i = next((i for i, a in enumerate(spec["args"]) if a.get("name") == "out"), None)
    o = words(os.path.join(d, "arg%d.out.bin" % out_i), "Q") if out_i is not None and spec["args"][out_i]["buffer"] == "i64" else None
    bad = []

    def want(what, got, exp):
        if got != exp:
            bad.append("%s = %s, expected %s" % (what, got, exp))

    if k == "lat_ptr_chase":
        nodes, stride, pattern, flags, warm, steps = sc
        chain = words(os.path.join(d, "arg0.out.bin"), "Q")
        base = min(v for v in chain[::stride] if v)
        jump = chase_jump(nodes, pattern)
        want("out[1] (steps)", o[1], steps)
        want("out[2] (final node)", (o[2] - base) // (8 * stride), (warm + steps) * jump % nodes)
    elif k == "lat_idx_chase":
        mask, stride, warm, steps = sc
        want("out[1] (steps)", o[1], steps)
        want("out[2] (final index)", o[2], ((warm + steps) * stride) & mask)
    elif k == "smem_lat_chase":
        stride, steps = sc
        nodes = 4096 // stride
        want("out[1] (steps)", o[1], steps)
        want("out[2] - out[3] (bytes walked)", (o[2] - o[3]) % (4 * 4096), (4 * stride * steps) % (4 * 4096))
    elif k.startswith("lat_"):
        absent = k.split("_", 1)[1] in ABSENT.get(target, ())
        want("out[1] (steps)", o[1], 0 if absent else sc[0] * steps_per_iter(k, vendor))
    elif k.startswith("issue_"):
        absent = k.split("_", 1)[1] in ABSENT.get(target, ())
        want("out[3*grid+1] (steps per thread)", o[3 * grid + 1], 0 if absent else sc[0] * steps_per_iter(k, vendor))
    elif k == "atom_global_u32":
        naddr, iters, inc = sc
        buf = words(os.path.join(d, "arg0.out.bin"), "I")
        want("sum of buf (every add arrived)", sum(buf) & U32, (grid * block * iters * inc) & U32)
    elif k == "atom_global_f32":
        naddr, iters, inc = sc
        buf = words(os.path.join(d, "arg0.out.bin"), "f")
        want("sum of buf", sum(buf), float(grid * block * iters * inc))
    elif k == "atom_global_u32_uniform":
        buf = words(os.path.join(d, "arg0.out.bin"), "I")
        want("buf[0]", buf[0], (grid * block * sc[0]) & U32)
    elif k in ("atom_lat_global", "atom_lat_shared"):
        steps = sc[0]
        mem, v, hist = 0, 1, []
        for _ in range(8 + steps):  # v = atomic_add(p, v) returns the old value
            old = mem
            mem = (mem + v) & U32
            v = old
            hist.append(v)
        want("out[1] (steps)", o[1], steps)
        want("out[3] (after warm-up)", o[3], hist[7])
        want("out[2] (last return)", o[2], hist[-1])
    elif k == "k_one_block":
        buf = words(os.path.join(d, "arg0.out.bin"), "I")
        want("out", buf[:block], list(range(block)))
    elif k == "bw_write":
        n_vec, value = sc
        buf = words(os.path.join(d, "arg0.out.bin"), "I")
        want("buf[0:4]", buf[:4], [value, value ^ 1, value ^ 2, value ^ 3])
        want("buf[-4:]", buf[-4:], [value, value ^ 1, value ^ 2, value ^ 3])
    elif k == "bw_copy":
        src = words(os.path.join(d, "arg0.out.bin"), "I")
        dst = words(os.path.join(d, "arg1.out.bin"), "I")
        if src != dst:
            bad.append("dst differs from src")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--arch", help="a built-in device")
    g.add_argument("--device", help="a device file")
    ap.add_argument("--specs", help="default: cuda/specs for NVIDIA parts, hip/specs for AMD parts")
    ap.add_argument("--kernsim")
    ap.add_argument("--quick", action="store_true", help="one small spec per kernel")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    kernsim = find_kernsim(a.kernsim)
    arch_args = ["--arch", a.arch] if a.arch else ["--device", a.device]
    dev = json.loads(subprocess.run([kernsim, "device", *arch_args, "--json"], check=True, capture_output=True, text=True).stdout)
    vendor = dev["vendor"]
    target = str(dev["values"]["isa.target"]["value"])
    specs_dir = a.specs or os.path.join(HERE, "cuda" if vendor == "nvidia" else "hip", "specs")
    names = sorted(f[:-5] for f in os.listdir(specs_dir) if f.endswith(".json"))
    if a.quick:
        names = [n for n in names if n in QUICK]
    names = [n for n in names if a.only in n]
    fails = 0
    with tempfile.TemporaryDirectory(prefix="kernsim_check_") as tmp:
        for n in names:
            path = os.path.join(specs_dir, n + ".json")
            with open(path) as f:
                spec = json.load(f)
            d = os.path.join(tmp, n)
            r = subprocess.run([kernsim, "run", path, *arch_args, "--full", "--dump-buffers", d],
                               capture_output=True, text=True)
            # exit 5 (not implemented) after a complete functional run still dumps the buffers: a
            # part whose timing model is missing can be checked functionally
            dumped = os.path.isdir(d) and any(f.endswith(".out.bin") for f in os.listdir(d))
            if r.returncode != 0 and not (r.returncode == 5 and (dumped or not spec["args"])):
                fails += 1
                print("FAIL %-36s kernsim exit %d: %s" % (n, r.returncode, (r.stderr or r.stdout).strip()[-300:]))
                continue
            bad = check(spec, d, vendor, target)
            shutil.rmtree(d, ignore_errors=True)
            if bad:
                fails += 1
                print("FAIL %-36s %s" % (n, "; ".join(bad)))
            else:
                print("ok   %s" % n)
    part = dev["name"]
    print("%d of %d launches on %s failed" % (fails, len(names), part) if fails else "all %d launches on %s passed" % (len(names), part))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
