#!/usr/bin/env python3
"""Writes the launch specs of the Hopper microbenchmarks (cuda/specs_hopper/*.json) for kernsim.

The kernels are those run_cuda.py's groups wgmma, tma and hsync measured on the H200
(hopper_wgmma.cu, hopper_async.cu; results in calibration/data/h200/hopper_microbench.json), in
the same launch configuration, with fewer loop iterations where the quantity is per step (the
kernels report cycles per step in `out`, so the simulator can be compared on that number).
Specs that pass a tensor map or launch a cluster are spec version 2 (issue 12): a parameter
{"tensor_map": {"buffer": K, ...}} describes buffer argument K, exactly as the host's
cuTensorMapEncodeTiled call does (host/g_hopper.cu make_map), and "cluster": [C, 1, 1].
kernsim cannot run wgmma, TMA, mbarrier or clusters yet: these specs are not replayed by
run_cuda.py nor run by check_specs.py; they wait for that support.

    python3 make_specs_hopper.py            # (re)write cuda/specs_hopper/
    python3 make_specs_hopper.py --check    # exit 1 if cuda/specs_hopper/ differs
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC_DIR = os.path.join(HERE, "specs_hopper")
SMS = 132
HW_SMEM = 8192 + 32768 + 1024  # HW_SMEM_BYTES of hopper_wgmma.cu
ONE_PER_SM = 120 * 1024        # kOneBlockPerSm of host/g_hopper.cu
WG_TYPES = ["f16f32", "bf16f32", "f16f16", "tf32f32", "e4m3f32", "s8s32"]
WG_NS = [8, 16, 32, 64, 128, 256]


def out_buf(n):
    return {"buffer": "i64", "count": int(n), "init": "zeros", "name": "out"}


def u32(v, name):
    return {"type": "u32", "value": v, "name": name}


def i32(v, name):
    return {"type": "i32", "value": v, "name": name}


def spec(sid, source, kernel, grid, block, smem, args, measures, notes, cluster=None):
    s = {
        "spec_version": 2 if cluster or any("tensor_map" in a for a in args) else 1,
        "source": "../" + source,
        "kernel": kernel,
        "grid": [grid, 1, 1],
        "block": [block, 1, 1],
        "dynamic_shared_bytes": smem,
        "args": args,
        "id": "hmb_" + sid,
        "family": "microbench-hopper",
        "notes": "measures=%s; %s" % (measures, notes),
    }
    if cluster:
        s["cluster"] = [cluster, 1, 1]
    return s


def tmap(buffer_index, rows, box_rows):
    """The map host/g_hopper.cu make_map builds: bf16 rows of 4096 elements, box {64, box_rows}."""
    return {"tensor_map": {"buffer": buffer_index, "dtype": "bf16", "dims": [4096, rows], "strides_bytes": [8192],
                           "box": [64, box_rows], "element_strides": [1, 1], "swizzle": "128B",
                           "interleave": "none", "l2_promotion": "256B", "oob_fill": "none"},
            "name": "map"}


def data_buf(rows):
    return {"buffer": "bf16", "count": 4096 * rows, "init": "uniform", "name": "src"}


def wgmma_specs():
    out = []
    for t in WG_TYPES:
        for n in WG_NS:
            for form in ("ss", "rs"):
                k = "wgmma_issue_%s_%s_n%d" % (form, t, n)
                out.append(spec("%s_wg1" % k, "hopper_wgmma.cu", k, SMS, 128, ONE_PER_SM,
                                [out_buf(6 * SMS + 8), u32(4, "iters")],
                                "wgmma.issue_%s_%s_n%d_wg1" % (form, t, n),
                                "one warpgroup per SM, 4 iterations of 8 wgmmas (measured with %d); cycles per "
                                "wgmma per SM = (out[6b+1] - out[6b]) / 32" % max(16, 262144 // n)))
                k = "wgmma_lat_%s_%s_n%d" % (form, t, n)
                out.append(spec(k, "hopper_wgmma.cu", k, 1, 128, HW_SMEM, [out_buf(16), u32(8, "iters")],
                                "wgmma.lat_%s_%s_n%d" % (form, t, n),
                                "one warpgroup, 8 x 4 dependent steps (measured 512 x 4); cycles per step = "
                                "(out[1] - out[0]) / 32"))
    return out


def async_specs():
    out = []
    names = ["mbar.arrive", "mbar.arrive_wait", "mbar.try_wait_done", "mbar.expect_tx_complete", "mbar.wake"]
    for mode, name in enumerate(names):
        out.append(spec("mbar_ops_m%d" % mode, "hopper_async.cu", "mbar_ops", 1, 64, 0,
                        [out_buf(8), u32(16, "iters"), i32(mode, "mode")], name,
                        "16 x 16 steps (measured 256 x 16); cycles per step = out[0] / out[1]"))
    # TMA latency: L2-resident 4 MiB (512 tiles, warm lap), and cold from a 64 MiB buffer (measured: 1 GiB).
    for hbm in (False, True):
        rows = 8192 if hbm else 512
        for mode, what in ((0, "tile"), (1, "bulk")):
            ntiles, tiles_x, warm = (128, 1, 0) if hbm else (512, 64, 512)
            out.append(spec("tma_lat_%s_%s" % ("hbm" if hbm else "l2", what), "hopper_async.cu", "tma_lat", 1, 32,
                            8192 + 1024,
                            [tmap(1, rows, 64), data_buf(rows), out_buf(8), u32(64, "steps"), u32(ntiles, "ntiles"),
                             u32(tiles_x, "tiles_x"), i32(mode, "mode"), u32(warm, "warm")],
                            "tma.lat_%s_%s" % ("hbm" if hbm else "l2", what),
                            "64 steps (measured 256); cycles per load = out[0] / out[1]; the HBM case runs on "
                            "cold caches (kernsim's assumption; the GPU run flushed L2 before each launch)"))
    for grid, stages in ((1, 1), (1, 4), (1, 16), (SMS, 4)):
        for mode, what in ((0, "tile"), (1, "bulk")):
            iters = max(1, 256 // (grid * stages)) if grid == 1 else 2
            out.append(spec("tma_bw_%s_l2_%s_s%d" % ("sm" if grid == 1 else "chip", what, stages), "hopper_async.cu",
                            "tma_bw", grid, 128, 8192 * stages + 1024,
                            [tmap(1, 512, 64), data_buf(512), out_buf(6 * grid + 8), u32(iters, "iters"),
                             u32(stages, "stages"), u32(512, "ntiles"), u32(64, "tiles_x"), i32(mode, "mode")],
                            "tma.bw_%s_l2_%s_s%d" % ("sm" if grid == 1 else "chip", what, stages),
                            "bytes per CTA = out[6b+5], cycles = out[6b+1] - out[6b]"))
    for rows in (128, 256):
        out.append(spec("tma_bw_box_sm_l2_r%d_s2" % rows, "hopper_async.cu", "tma_bw_box", 1, 128,
                        128 * rows * 2 + 1024,
                        [tmap(None, 512, rows), out_buf(16), u32(4, "iters"), u32(2, "stages"),
                         u32(64 * 512 // rows, "ntiles"), u32(64, "tiles_x"), u32(rows, "box_rows")],
                        "tma.bw_box_sm_l2_r%d_s2" % rows, "8 loads of %d KiB (not yet measured on the GPU)" % (rows // 8)))
    for c, mc in ((2, 0), (2, 1), (4, 0), (4, 1)):
        out.append(spec("tma_mc_l2_c%d_%s" % (c, "multicast" if mc else "separate"), "hopper_async.cu", "tma_mc",
                        SMS // c * c, 128, 8192 * 4 + 1024,
                        [tmap(None, 512, 64 // c if mc else 64), out_buf(6 * SMS + 8), u32(4, "iters"),
                         u32(4, "stages"), u32(64, "tiles_x"), u32(512, "ntiles"), i32(mc, "mcast")],
                        "tma.mc_l2_c%d_%s" % (c, "multicast" if mc else "separate"),
                        "4 rounds of 4 stages (measured 64)", cluster=c))
    for c in (2, 4, 8):
        for target in (0, c - 1):
            out.append(spec("dsmem_lat_c%d_%s" % (c, "self" if target == 0 else "remote"), "hopper_async.cu",
                            "dsmem_lat", c, 32, 0, [out_buf(8), u32(512, "steps"), u32(target, "target")],
                            "dsmem.lat_c%d_%s" % (c, "self" if target == 0 else "remote"),
                            "512 steps (measured 4096); cycles per load = out[0] / out[1]", cluster=c))
        for peer in (0, 1):
            out.append(spec("dsmem_bw_c%d_%s" % (c, "self" if peer == 0 else "remote"), "hopper_async.cu", "dsmem_bw",
                            SMS // c * c, 256, 0, [out_buf(6 * SMS + 8), u32(8, "iters"), u32(peer, "peer")],
                            "dsmem.bw_c%d_%s" % (c, "self" if peer == 0 else "remote"),
                            "8 iterations (measured 256)", cluster=c))
    for c in (1, 2, 4, 8):
        for relaxed in (0, 1):
            out.append(spec("cluster_bar_c%d%s" % (c, "_relaxed" if relaxed else ""), "hopper_async.cu",
                            "cluster_bar", c, 128, 0, [out_buf(6 * c + 8), u32(8, "iters"), i32(relaxed, "relaxed")],
                            "cluster.barrier_c%d%s" % (c, "_relaxed" if relaxed else ""),
                            "64 barriers (measured 1024); cycles per barrier = (out[1] - out[0]) / 64",
                            cluster=c if c > 1 else None))
    for k, name in (("nreg_ws_set", "setmaxnreg.with"), ("nreg_ws_plain", "setmaxnreg.without")):
        out.append(spec(k, "hopper_async.cu", k, 2 * SMS, 384, 0, [out_buf(7 * 2 * SMS + 8), u32(4, "iters")], name,
                        "2 x SMs blocks of 3 warpgroups (measured iters 256); residency from out[6b+3..4]; "
                        "consumer loop end of block b in out[6 x grid + 1 + b]"))
    return out


def all_specs():
    specs = wgmma_specs() + async_specs()
    for s in specs:  # tma_mc has no pointer parameter: its map carries its buffer inline
        for a in s["args"]:
            if "tensor_map" in a and a["tensor_map"]["buffer"] is None:
                a["tensor_map"]["buffer"] = data_buf(512)
    return specs


def ptx_check(specs, nvcc):
    """Every spec's kernel is an entry of its source's sm_90a PTX with as many parameters as args."""
    import re
    import subprocess
    import tempfile
    problems, entries = [], {}
    for src in sorted({s["source"] for s in specs}):
        path = os.path.normpath(os.path.join(SPEC_DIR, src))
        out = os.path.join(tempfile.mkdtemp(prefix="hmb_ptx_"), "k.ptx")
        p = subprocess.run([nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-std=c++17", "-ptx", path, "-o",
                            out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            problems.append("%s: nvcc -ptx failed" % path)
            continue
        for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)", open(out).read(), re.S):
            entries[(src, m.group(1))] = len(re.findall(r"\.param\s", m.group(2)))
    for s in specs:
        n = entries.get((s["source"], s["kernel"]))
        if n is None:
            problems.append("%s: kernel %s not in %s" % (s["id"], s["kernel"], s["source"]))
        elif n != len(s["args"]):
            problems.append("%s: %d args for %d parameters" % (s["id"], len(s["args"]), n))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--ptx-check", metavar="NVCC", help="also check every spec against the PTX nvcc emits")
    args = ap.parse_args()
    specs = all_specs()
    if args.ptx_check:
        problems = ptx_check(specs, args.ptx_check)
        for p in problems:
            print(p)
        print("specs_hopper: %d specs checked against the PTX, %d problems" % (len(specs), len(problems)))
        return 1 if problems else 0
    want = {s["id"] + ".json": json.dumps(s, indent=2) + "\n" for s in specs}
    if args.check:
        have = {f: open(os.path.join(SPEC_DIR, f)).read() for f in os.listdir(SPEC_DIR)} if os.path.isdir(SPEC_DIR) else {}
        if have != want:
            print("cuda/specs_hopper differs from make_specs_hopper.py: %s" % sorted(set(have) ^ set(want))[:5])
            return 1
        print("cuda/specs_hopper: %d specs current" % len(want))
        return 0
    os.makedirs(SPEC_DIR, exist_ok=True)
    for f in os.listdir(SPEC_DIR):
        if f.endswith(".json") and f not in want:
            os.remove(os.path.join(SPEC_DIR, f))
    for f, text in want.items():
        with open(os.path.join(SPEC_DIR, f), "w") as fh:
            fh.write(text)
    print("wrote %d specs to %s" % (len(want), SPEC_DIR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
