#!/usr/bin/env python3
"""Writes the launch specs of the CUDA microbenchmarks (cuda/specs/*.json) for kernsim.

Each spec is one configuration the simulator should reproduce, sized for the simulator (~1000x
slower than the GPU): small footprints where the quantity is intensive (cycles per load, cycles
per instruction), a few hundred CTAs and a few MiB for bandwidth. Its `notes` start with
`measures=<result>` (the result of run_cuda.py's measurement JSON it corresponds to) and
`gpu_replay=spec.<id>` (run_cuda.py also times exactly this launch on the GPU).

    python3 make_specs.py            # (re)write cuda/specs/
    python3 make_specs.py --check    # exit 1 if cuda/specs/ differs from what would be written
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC_DIR = os.path.join(HERE, "specs")
SMS = 132  # H200 SM count: grids below are whole waves of the H200

KiB, MiB = 1024, 1024 * 1024


def scalar(t, v):
    return {"type": t, "value": v}


def buf(t, count, init="zeros", name=None):
    # The launch spec has no u64 buffer type: the kernels' u64 buffers are declared i64 (same bytes).
    b = {"buffer": t, "count": int(count), "init": init}
    if name:
        b["name"] = name
    return b


def spec(sid, source, kernel, grid, block, args, family, measures, notes, **extra):
    s = {
        "spec_version": 1,
        "source": "../" + source,
        "kernel": kernel,
        "grid": grid if isinstance(grid, list) else [grid, 1, 1],
        "block": block if isinstance(block, list) else [block, 1, 1],
        "dynamic_shared_bytes": 0,
        "args": args,
        "id": "mb_" + sid,
        "family": family,
        "notes": "measures=%s; gpu_replay=spec.mb_%s; %s" % (measures, sid, notes),
    }
    s.update(extra)
    return s


def latency_specs():
    out = []
    # Pointer chase: build + touch + untimed lap + timed steps, one launch (flags 1|2|4 = 7).
    for label, fp, measures, warm, steps in [
        ("32k", 32 * KiB, "latency.l1_hit (= latency.chase_32k)", 256, 2048),
        ("1m", 1 * MiB, "latency.chase_1m", 8192, 1024),
        ("8m", 8 * MiB, "latency.l2_hit (= latency.chase_8m)", 1024, 1024),
        ("48m", 48 * MiB, "latency.l2_far (= latency.chase_48m)", 1024, 1024),
    ]:
        nodes = fp // 128
        out.append(spec(
            "lat_chase_" + label, "lat_chase.cu", "lat_ptr_chase", 1, 256,
            [buf("i64", fp // 8, name="chain"), buf("i64", 16, name="out"),
             scalar("u64", nodes), scalar("u32", 16), scalar("u32", 1), scalar("u32", 7),
             scalar("u32", warm), scalar("u32", steps)],
            "microbench-latency", measures,
            "pure pointer chase over %d nodes at 128 B stride (footprint %d B), golden-ratio order; "
            "cycles per load = out[0]/out[1] (clock64 in the kernel)" % (nodes, fp)))
    # Index chase on a zero buffer: cold start in one launch (HBM), and the L1 twin for the overhead.
    for label, fp, measures, warm, steps in [
        ("l1_32k", 32 * KiB, "latency.l1_idx", 512, 2048),
        ("hbm_256m", 256 * MiB, "latency.hbm_idx", 0, 1024),
    ]:
        out.append(spec(
            "lat_idx_" + label, "lat_chase.cu", "lat_idx_chase", 1, 1,
            [buf("u32", fp // 4, name="zeros"), buf("i64", 16, name="out"),
             scalar("u32", fp // 4 - 1), scalar("u32", 32), scalar("u32", warm), scalar("u32", steps)],
            "microbench-latency", measures,
            "idx = (buf[idx] + idx + 32) & mask on a zero buffer (footprint %d B); each step adds "
            "IADD3, LOP3, IMAD.WIDE.U32 between loads (latency.idx_overhead); cycles = out[0]/out[1]" % fp))
    return out


def shared_specs():
    out = [spec("smem_lat", "lat_shared.cu", "smem_lat_chase", 1, 32,
                [buf("i64", 16, name="out"), scalar("u32", 1), scalar("u32", 1024)],
                "microbench-shared", "latency.smem",
                "one thread, dependent ld.shared; cycles per load = out[0]/out[1]")]
    for s in (1, 2, 4, 8, 16, 32):
        out.append(spec("smem_bank_lat_s%d" % s, "lat_shared.cu", "smem_bank", 1, 32,
                        [buf("i64", 4, name="out"), scalar("u32", s), scalar("u32", 1), scalar("u32", 1024)],
                        "microbench-shared", "smem.bank_lat_s%d" % s,
                        "one warp, lanes at stride %d words (%d-way conflict), one chain; "
                        "cycles per access = (out[1]-out[0])/1024" % (s, min(s, 32))))
    grid = 16
    for s in (1, 2, 8, 32):
        out.append(spec("smem_bank_tput_s%d" % s, "lat_shared.cu", "smem_bank", grid, 1024,
                        [buf("i64", 3 * grid + 1, name="out"), scalar("u32", s), scalar("u32", 4),
                         scalar("u32", 256)],
                        "microbench-shared", "smem.bank_tput_s%d" % s,
                        "32 warps per block, 4 independent chains per lane, 256 steps; per SM cycles per "
                        "warp-LDS = (t1 - t0) / (32 * 4 * 256) from out[3b..3b+1]"))
    return out


ALU_OPS = ["ffma", "fadd", "imad", "lop3", "iadd_lop", "mufu_ex2", "mufu_rsq", "mufu_sin", "dfma",
           "hfma2", "cvt"]
MMA_OPS = {"mma_f16": 4096, "mma_f16v": 4096, "mma_bf16": 4096, "mma_tf32": 2048, "mma_s8": 8192,
           "mma_e4m3": 8192, "dmma_f64": 512}


def pipe_specs():
    out = []
    for op in ALU_OPS + list(MMA_OPS):
        is_mma = op in MMA_OPS
        src = "mma.cu" if is_mma else "alu.cu"
        per_sm = 4 if (is_mma or op == "dfma") else 8  # the kernel's __launch_bounds__ minimum
        steps_per_iter = 32 if is_mma else 128           # K x U per loop iteration
        grid = SMS * per_sm
        iters = 2
        extra = {}
        if is_mma:
            extra["flops"] = MMA_OPS[op] * (grid * 256 // 32) * iters * steps_per_iter
        out.append(spec(
            "issue_" + op, src, "issue_" + op, grid, 256,
            [buf("i64", 3 * grid + 2, name="out"), scalar("u32", iters), scalar("f32", 1.0)],
            "microbench-issue", "issue." + op,
            "one full wave (%d blocks of 256 per SM), %d steps per thread; per SM cycles per instruction "
            "per SMSP = (max t1 - min t0) / (warps * steps * sass_per_step / 4), records out[3b..3b+2] = "
            "t0, t1, smid; steps per thread in out[3*grid+1]" % (per_sm, iters * steps_per_iter), **extra))
        lat_iters = 8
        out.append(spec(
            "lat_" + op, src, "lat_" + op, 1, 32,
            [buf("i64", 8, name="out"), scalar("u32", lat_iters), scalar("f32", 1.0)],
            "microbench-latency-pipe", "latency." + op,
            "one warp, one dependent chain of %d steps; cycles per step = out[0]/out[1] (divide by "
            "sass_per_step for per-instruction)" % (lat_iters * (32 if is_mma else 128))))
    return out


def bandwidth_specs():
    out = []
    grid = 2 * SMS
    vec, passes = 32 * KiB // 16, 64
    out.append(spec("bw_l1_read", "bw.cu", "bw_l1_read", grid, 256,
                    [buf("u32", 32 * KiB // 4, name="buf"), buf("u32", 4, name="sink"), scalar("u32", vec),
                     scalar("u32", passes)],
                    "microbench-bandwidth", "bandwidth.l1_read",
                    "every block re-reads the same 32 KiB %d times (L1-resident after the first pass)" % passes,
                    min_bytes=grid * passes * vec * 16))
    n_vec = 2 * MiB // 16
    out.append(spec("bw_l2_read_2m", "bw.cu", "bw_l2_read", grid, 256,
                    [buf("u32", 2 * MiB // 4, name="buf"), buf("u32", 4, name="sink"), scalar("u32", n_vec),
                     scalar("u32", 1)],
                    "microbench-bandwidth", "bandwidth.l2_read_2m",
                    "every block reads the whole 2 MiB once with ld.global.cg (L2 only); the first touch "
                    "of each line comes from HBM (2 MiB of %d MiB)" % (grid * 2),
                    min_bytes=grid * n_vec * 16))
    size = 32 * MiB
    out.append(spec("bw_hbm_read_32m", "bw.cu", "bw_read", grid, 256,
                    [buf("u32", size // 4, name="buf"), buf("u32", 4, name="sink"), scalar("u64", size // 16)],
                    "microbench-bandwidth", "bandwidth.hbm_read",
                    "grid-stride streaming read of 32 MiB from cold caches", min_bytes=size))
    out.append(spec("bw_hbm_write_32m", "bw.cu", "bw_write", grid, 256,
                    [buf("u32", size // 4, name="buf"), scalar("u64", size // 16), scalar("u32", 16909060)],
                    "microbench-bandwidth", "bandwidth.hbm_write",
                    "grid-stride streaming write of 32 MiB", min_bytes=size))
    half = size // 2
    out.append(spec("bw_hbm_copy_32m", "bw.cu", "bw_copy", grid, 256,
                    [buf("u32", half // 4, name="src"), buf("u32", half // 4, name="dst"), scalar("u64", half // 16)],
                    "microbench-bandwidth", "bandwidth.hbm_copy",
                    "grid-stride copy of 16 MiB (32 MiB read + written)", min_bytes=size))
    return out


def atomic_specs():
    out = []
    grid, block, iters = 2 * SMS, 256, 4
    threads = grid * block
    for tag, naddr in (("1addr", 1), ("32addr", 32), ("1024addr", 1024), ("distinct", threads)):
        out.append(spec("atom_global_u32_" + tag, "atomics.cu", "atom_global_u32", grid, block,
                        [buf("u32", threads, name="buf"), scalar("u32", naddr), scalar("u32", iters),
                         scalar("u32", 1)],
                        "microbench-atomics", "atomic.global_u32_" + tag,
                        "%d threads x %d red.global.add.u32 to buf[g %% %d] (no warp aggregation); "
                        "Gop/s = threads*iters / time" % (threads, iters, naddr)))
    out.append(spec("atom_global_u32_1addr_aggregated", "atomics.cu", "atom_global_u32_uniform", grid, block,
                    [buf("u32", 1, name="buf"), scalar("u32", iters)],
                    "microbench-atomics", "atomic.global_u32_1addr_aggregated",
                    "red.global.add.u32 [buf], 1 from every thread: ptxas aggregates each warp "
                    "(VOTEU.ANY + POPC + one REDG); ops counted per thread"))
    for tag, naddr in (("1addr", 1), ("distinct", threads)):
        out.append(spec("atom_global_f32_" + tag, "atomics.cu", "atom_global_f32", grid, block,
                        [buf("f32", threads, name="buf"), scalar("u32", naddr), scalar("u32", iters),
                         scalar("f32", 1.0)],
                        "microbench-atomics", "atomic.global_f32_" + tag,
                        "red.global.add.f32 to buf[g %% %d]" % naddr))
    sgrid, siters = 16, 64
    for naddr in (1, 32, 1024):
        out.append(spec("atom_shared_u32_%daddr" % naddr, "atomics.cu", "atom_shared_u32", sgrid, 1024,
                        [buf("i64", 3 * sgrid + 1, name="out"), scalar("u32", naddr), scalar("u32", siters),
                         scalar("u32", 1)],
                        "microbench-atomics", "atomic.shared_u32_%daddr" % naddr,
                        "red.shared.add.u32 on s[tid %% %d], %d per thread; per SM cycles per warp-ATOMS = "
                        "(t1 - t0) / (32 * %d)" % (naddr, siters, siters)))
    out.append(spec("atom_lat_global", "atomics.cu", "atom_lat_global", 1, 1,
                    [buf("u32", 32, name="buf"), buf("i64", 8, name="out"), scalar("u32", 256)],
                    "microbench-atomics", "latency.atomic_global",
                    "one thread, v = atom.global.add(p, v) chain; cycles = out[0]/out[1]"))
    out.append(spec("atom_lat_shared", "atomics.cu", "atom_lat_shared", 1, 32,
                    [buf("i64", 8, name="out"), scalar("u32", 256)],
                    "microbench-atomics", "latency.atomic_shared",
                    "one thread, v = atom.shared.add(p, v) chain; cycles = out[0]/out[1]"))
    return out


def launch_specs():
    out = [
        spec("launch_empty", "launch.cu", "k_empty", 1, 1, [], "microbench-launch",
             "launch.empty_event_queued_us", "one empty block; the GPU-side time of an empty launch"),
        spec("launch_one_block", "launch.cu", "k_one_block", 1, 256, [buf("u32", 256, name="out")],
             "microbench-launch", "launch.one_block_event_queued_us", "one block writing one word per thread"),
    ]
    for waves in (8, 64):
        g = SMS * waves
        out.append(spec("launch_empty_%dx32" % g, "launch.cu", "k_empty", g, 32, [], "microbench-launch",
                        "launch.empty_grid_%dx32_us" % g,
                        "%d empty 32-thread CTAs; the difference of the 1056 and 8448 grids gives "
                        "launch.cta_ns_per_block" % g))
    g = SMS * 64
    out.append(spec("cta_stamp_%dx32" % g, "launch.cu", "cta_stamp", g, 32, [buf("i64", 2 * g, name="out")],
                    "microbench-launch", "launch.cta_interval_cycles_per_sm",
                    "every block records [clock64 at entry, smid]; per SM the median gap between "
                    "consecutive block starts"))
    return out


def all_specs():
    return (latency_specs() + shared_specs() + pipe_specs() + bandwidth_specs() + atomic_specs()
            + launch_specs())


def render(s):
    return json.dumps(s, indent=2) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ap.add_argument("--dir", default=SPEC_DIR)
    a = ap.parse_args()
    specs = {s["id"][3:] + ".json": render(s) for s in all_specs()}
    existing = {f for f in os.listdir(a.dir) if f.endswith(".json")} if os.path.isdir(a.dir) else set()
    if a.check:
        bad = sorted(f for f in specs if f not in existing or open(os.path.join(a.dir, f)).read() != specs[f])
        stale = sorted(existing - set(specs))
        for f in bad:
            print("out of date: " + f)
        for f in stale:
            print("not generated: " + f)
        return 1 if bad or stale else 0
    os.makedirs(a.dir, exist_ok=True)
    for f in existing - set(specs):
        os.remove(os.path.join(a.dir, f))
    for f, text in specs.items():
        with open(os.path.join(a.dir, f), "w") as fh:
            fh.write(text)
    print("wrote %d specs to %s" % (len(specs), a.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
