#!/usr/bin/env python3
"""Writes the launch specs of the HIP microbenchmarks (hip/specs/*.json) for kernsim.

The AMD twin of ../cuda/make_specs.py: the same kernels (hip/*.hip mirror cuda/*.cu), sized for
the simulator and for both CDNA parts (MI300X: 304 CUs, MI355X: 256 CUs): per-CU quantities use
at most 256 workgroups, so every workgroup has a CU of its own on either part. Each spec's `notes`
start with `measures=<result>` and `gpu_replay=spec.<id>`, as on NVIDIA.

Latency, issue-rate and bank specs come in pairs: `<id>` and `<id>_2x` with twice the timed work
and otherwise the same launch (`delta_of=<id>` in the twin's notes). The difference of the two
launch times is the timed work alone, whatever the build and warm-up phases, the launch costs and
the clock reads cost: that is how calibration/microbenchmarks/simulate.py derives latencies and
rates from a model that may not report clock values, and how a runner can check the in-kernel
clocks on a real GPU.

    python3 make_specs.py            # (re)write hip/specs/
    python3 make_specs.py --check    # exit 1 if hip/specs/ differs from what would be written
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC_DIR = os.path.join(HERE, "specs")
KiB, MiB = 1024, 1024 * 1024
CUS = 256  # workgroups of per-CU specs: one per CU on both MI300X (304) and MI355X (256)
CHIP = 1216  # workgroups of chip-wide bandwidth specs: every CU busy on both (4 per CU on MI300X)

ALU_OPS = ["ffma", "fadd", "imad", "lop3", "iadd_lop", "mufu_ex2", "mufu_rsq", "mufu_sin", "dfma", "hfma2", "cvt"]
# FLOP (or OP) per wave instruction of each MFMA op in mma.hip: 2 M N K.
MMA_OPS = {"f16": 8192, "bf16": 8192, "tf32": 4096, "s8": 16384, "e4m3": 16384, "f64": 2048,
           "f16_k32": 16384, "bf16_k32": 16384, "s8_k64": 32768, "fp8_k128": 65536, "fp4_k128": 65536}  # gfx950 only


# The spec builders are the CUDA generator's (one format, one way to write it).
_cuda = importlib.util.spec_from_file_location("cuda_make_specs", os.path.join(HERE, "..", "cuda", "make_specs.py"))
_cuda_mod = importlib.util.module_from_spec(_cuda)
_cuda.loader.exec_module(_cuda_mod)
scalar, buf, spec = _cuda_mod.scalar, _cuda_mod.buf, _cuda_mod.spec


def pair(make, sid, *a, **kw):
    """The spec with work 1 and its twin with work 2 (make(sid, scale) returns a spec)."""
    base = make(sid, 1)
    twin = make(sid + "_2x", 2)
    twin["notes"] += "; delta_of=mb_%s (twice the timed work: the launch-time difference is the timed part)" % sid
    return [base, twin]


def latency_specs():
    out = []
    for label, fp, measures, warm, steps in [
        ("16k", 16 * KiB, "latency.l1_hit (= latency.chase_16k)", 128, 1024),
        ("1m", 1 * MiB, "latency.l2_hit (= latency.chase_1m)", 8192, 512),
        ("32m", 32 * MiB, "latency.mall_hit (= latency.chase_32m)", 1024, 512),
    ]:
        nodes = fp // 128

        def make(sid, k, fp=fp, nodes=nodes, warm=warm, steps=steps, measures=measures):
            return spec(sid, "lat_chase.hip", "lat_ptr_chase", 1, 256,
                        [buf("i64", fp // 8, name="chain"), buf("i64", 16, name="out"),
                         scalar("u64", nodes), scalar("u32", 16), scalar("u32", 1), scalar("u32", 7),
                         scalar("u32", warm), scalar("u32", steps * k)],
                        "microbench-latency", measures,
                        "pure pointer chase over %d nodes at 128 B stride (footprint %d B), golden-ratio order, "
                        "%d timed steps; cycles per load = out[0]/out[1] (s_memtime in the kernel)" % (nodes, fp, steps * k))
        out += pair(make, "lat_chase_" + label)
    for label, fp, measures, warm, steps in [
        ("l1_16k", 16 * KiB, "latency.l1_idx", 512, 1024),
        ("hbm_256m", 256 * MiB, "latency.hbm_idx", 0, 256),
    ]:
        def make(sid, k, fp=fp, warm=warm, steps=steps, measures=measures):
            return spec(sid, "lat_chase.hip", "lat_idx_chase", 1, 64,
                        [buf("u32", fp // 4, name="zeros"), buf("i64", 16, name="out"),
                         scalar("u32", fp // 4 - 1), scalar("u32", 64), scalar("u32", warm), scalar("u32", steps * k)],
                        "microbench-latency", measures,
                        "index chase idx = (buf[idx] + idx + 64) & mask on a %d B zero buffer (cold), %d timed steps; "
                        "cycles per step = out[0]/out[1]" % (fp, steps * k))
        out += pair(make, "lat_idx_" + label)
    return out


def shared_specs():
    out = []

    def lat(sid, k):
        return spec(sid, "lat_lds.hip", "smem_lat_chase", 1, 64, [buf("i64", 16, name="out"), scalar("u32", 1), scalar("u32", 1024 * k)],
                    "microbench-shared", "latency.smem", "one lane, dependent ds_read_b32, %d steps; cycles per load = out[0]/out[1]" % (1024 * k))
    out += pair(lat, "smem_lat")
    for s in (1, 2, 4, 8, 16, 32):
        def bank_lat(sid, k, s=s):
            return spec(sid, "lat_lds.hip", "smem_bank", 1, 64,
                        [buf("i64", 4, name="out"), scalar("u32", s), scalar("u32", 1), scalar("u32", 512 * k)],
                        "microbench-shared", "smem.bank_lat_s%d" % s,
                        "one wave, lanes at stride %d words, one chain, %d steps; cycles per access = (out[1]-out[0])/steps" % (s, 512 * k))
        out += pair(bank_lat, "smem_bank_lat_s%d" % s)
    for s in (1, 2, 8, 32):
        def bank_tput(sid, k, s=s):
            return spec(sid, "lat_lds.hip", "smem_bank", 16, 1024,
                        [buf("i64", 49, name="out"), scalar("u32", s), scalar("u32", 4), scalar("u32", 128 * k)],
                        "microbench-shared", "smem.bank_tput_s%d" % s,
                        "16 waves per workgroup (one workgroup per CU), 4 independent chains per lane, %d steps; "
                        "per CU cycles per wave-wide ds_read = (t1 - t0) / (16 * 4 * steps)" % (128 * k))
        out += pair(bank_tput, "smem_bank_tput_s%d" % s)
    return out


def pipe_specs():
    out = []
    for op in ALU_OPS + ["mma_" + m for m in MMA_OPS]:
        src = "mma.hip" if op.startswith("mma_") else "alu.hip"
        steps_per_iter = 32 if op.startswith("mma_") else 128  # K x U of issue_*, U of lat_*

        def issue(sid, k, op=op, src=src, spi=steps_per_iter):
            extra = {}
            if op.startswith("mma_"):
                extra["flops"] = MMA_OPS[op[4:]] * CUS * 16 * 2 * k * spi
            return spec(sid, src, "issue_" + op, CUS, 1024, [buf("i64", 3 * CUS + 2, name="out"), scalar("u32", 2 * k), scalar("f32", 1.0)],
                        "microbench-issue", "issue." + op,
                        "%d workgroups of 1024 lanes (four waves per SIMD), %d steps per lane; per CU cycles per instruction "
                        "per SIMD = (t1 - t0) / (steps * instrs_per_step * waves per SIMD); records out[3b..3b+2] = t0, t1, "
                        "CU id; steps per lane in out[3*grid+1]" % (CUS, 2 * k * spi), **extra)
        out += pair(issue, "issue_" + op)

        def lat(sid, k, op=op, src=src, spi=steps_per_iter):
            return spec(sid, src, "lat_" + op, 1, 64, [buf("i64", 8, name="out"), scalar("u32", 8 * k), scalar("f32", 1.0)],
                        "microbench-latency-pipe", "latency." + op,
                        "one wave, one dependent chain of %d steps; cycles per step = out[0]/out[1] (divide by the "
                        "instructions per step)" % (8 * k * spi))
        out += pair(lat, "lat_" + op)
    return out


def bandwidth_specs():
    out = []

    def l1(sid, k):
        return spec(sid, "bw.hip", "bw_l1_read", CHIP, 256, [buf("u32", 4096, name="buf"), buf("u32", 4, name="out"), scalar("u32", 1024), scalar("u32", 16 * k)],
                    "microbench-bandwidth", "bandwidth.l1_read", "every workgroup re-reads the same 16 KiB %d times (vector L1 resident)" % (16 * k))
    out += pair(l1, "bw_l1_read")

    def l2(sid, k):
        return spec(sid, "bw.hip", "bw_stream_read", CHIP, 256, [buf("u32", 8 * MiB // 4, name="buf"), buf("u32", 4, name="out"), scalar("u64", 8 * MiB // 16), scalar("u32", k)],
                    "microbench-bandwidth", "bandwidth.l2_read",
                    "all CUs read an 8 MiB region (1 MiB per XCD's L2) %d time(s), grid-stride, sc1 loads; the first pass "
                    "fetches from HBM, the twin's second pass finds the L2" % k)
    out += pair(l2, "bw_l2_read_8m")

    def mall(sid, k):
        return spec(sid, "bw.hip", "bw_stream_read", CHIP, 256, [buf("u32", 64 * MiB // 4, name="buf"), buf("u32", 4, name="out"), scalar("u64", 64 * MiB // 16), scalar("u32", k)],
                    "microbench-bandwidth", "bandwidth.mall_read",
                    "all CUs read a 64 MiB region (8 MiB per XCD: more than its L2, inside the 256 MiB Infinity Cache) %d "
                    "time(s), grid-stride, sc1 loads" % k)
    out += pair(mall, "bw_mall_read_64m")
    for k in (1, 2):  # pairs: the difference of a 32 and a 64 MiB stream is the steady state alone
        n, sfx = 32 * MiB * k, "" if k == 1 else "_2x"
        note = "" if k == 1 else "; delta_of=mb_bw_hbm_%s_32m (twice the bytes: the launch-time difference is the steady-state stream)"
        out.append(spec("bw_hbm_read_32m" + sfx, "bw.hip", "bw_read", 4 * CHIP, 256, [buf("u32", n // 4, name="buf"), buf("u32", 4, name="out"), scalar("u64", n // 16)],
                        "microbench-bandwidth", "bandwidth.hbm_read", "grid-stride streaming read of %d MiB from cold caches" % (n // MiB) + (note % "read" if k == 2 else "")))
        out.append(spec("bw_hbm_write_32m" + sfx, "bw.hip", "bw_write", 4 * CHIP, 256, [buf("u32", n // 4, name="buf"), scalar("u64", n // 16), scalar("u32", 7)],
                        "microbench-bandwidth", "bandwidth.hbm_write", "grid-stride streaming write of %d MiB" % (n // MiB) + (note % "write" if k == 2 else "")))
        out.append(spec("bw_hbm_copy_32m" + sfx, "bw.hip", "bw_copy", 4 * CHIP, 256, [buf("u32", n // 8, name="src"), buf("u32", n // 8, name="dst"), scalar("u64", n // 32)],
                        "microbench-bandwidth", "bandwidth.hbm_copy", "grid-stride copy of %d MiB (%d MiB read + written)" % (n // 2 // MiB, n // MiB) + (note % "copy" if k == 2 else "")))
    return out


def atomic_specs():
    out = []
    threads = CUS * 256
    for label, naddr in [("1addr", 1), ("32addr", 32), ("1024addr", 1024), ("distinct", threads)]:
        iters = 2 if naddr == 1 else 4
        out.append(spec("atom_global_u32_" + label, "atomics.hip", "atom_global_u32", CUS, 256,
                        [buf("u32", max(naddr, 64), name="buf"), scalar("u32", naddr), scalar("u32", iters), scalar("u32", 1)],
                        "microbench-atomics", "atomic.global_u32_" + label,
                        "%d lanes x %d global_atomic_add to buf[g %% %d]; Gop/s = lanes*iters / time" % (threads, iters, naddr)))
    for label, naddr in [("1addr", 1), ("distinct", threads)]:
        out.append(spec("atom_global_f32_" + label, "atomics.hip", "atom_global_f32", CUS, 256,
                        [buf("f32", max(naddr, 64), name="buf"), scalar("u32", naddr), scalar("u32", 2), scalar("f32", 1.0)],
                        "microbench-atomics", "atomic.global_f32_" + label,
                        "%d lanes x 2 global_atomic_add_f32 to buf[g %% %d]" % (threads, naddr)))
    out.append(spec("atom_global_u32_1addr_aggregated", "atomics.hip", "atom_global_u32_uniform", CUS, 256,
                    [buf("u32", 64, name="buf"), scalar("u32", 4)], "microbench-atomics", "atomic.global_u32_1addr_aggregated",
                    "atomicAdd(&buf[0], 1) x 4 per lane, left to the compiler (one atomic per wave)"))
    for label, naddr in [("1addr", 1), ("32addr", 32), ("1024addr", 1024)]:
        def shared(sid, k, label=label, naddr=naddr):
            return spec(sid, "atomics.hip", "atom_shared_u32", 16, 1024,
                        [buf("i64", 49, name="out"), scalar("u32", naddr), scalar("u32", 64 * k), scalar("u32", 1)],
                        "microbench-atomics", "atomic.shared_u32_" + label,
                        "ds_add_u32 on s[tid %% %d], %d per lane; per CU cycles per wave-wide ds_add = (t1 - t0) / (16 * %d)"
                        % (naddr, 64 * k, 64 * k))
        out += pair(shared, "atom_shared_u32_" + label)

    def lat_g(sid, k):
        return spec(sid, "atomics.hip", "atom_lat_global", 1, 64, [buf("u32", 64, name="buf"), buf("i64", 8, name="out"), scalar("u32", 128 * k)],
                    "microbench-atomics", "latency.atomic_global", "one lane, v = global_atomic_add with return; cycles = out[0]/out[1]")
    out += pair(lat_g, "atom_lat_global")

    def lat_s(sid, k):
        return spec(sid, "atomics.hip", "atom_lat_shared", 1, 64, [buf("i64", 8, name="out"), scalar("u32", 256 * k)],
                    "microbench-atomics", "latency.atomic_shared", "one lane, v = ds_add_rtn_u32; cycles = out[0]/out[1]")
    out += pair(lat_s, "atom_lat_shared")
    return out


def launch_specs():
    out = [spec("launch_empty", "launch.hip", "k_empty", 1, 64, [], "microbench-launch", "launch.empty_event_queued_us",
                "one empty workgroup; the GPU-side time of an empty launch"),
           spec("launch_one_block", "launch.hip", "k_one_block", 1, 256, [buf("u32", 256, name="out")], "microbench-launch",
                "launch.one_block_event_queued_us", "one workgroup writing 256 words")]
    for g in (2048, 16384):
        out.append(spec("launch_empty_%dx64" % g, "launch.hip", "k_empty", g, 64, [], "microbench-launch",
                        "launch.empty_grid_%dx64_us" % g, "%d empty workgroups of one wave" % g))
    out.append(spec("cta_stamp_16384x64", "launch.hip", "cta_stamp", 16384, 64, [buf("i64", 2 * 16384, name="out")], "microbench-launch",
                    "launch.cta_interval_cycles_per_sm", "every workgroup records [s_memtime at entry, CU id]; per CU the median gap "
                    "between consecutive workgroup starts"))
    return out


def all_specs():
    return latency_specs() + shared_specs() + pipe_specs() + bandwidth_specs() + atomic_specs() + launch_specs()


def render(s):
    return json.dumps(s, indent=2) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if specs/ differs from what would be written")
    a = ap.parse_args()
    want = {s["id"][3:] + ".json": render(s) for s in all_specs()}
    have = {f: open(os.path.join(SPEC_DIR, f)).read() for f in os.listdir(SPEC_DIR) if f.endswith(".json")} if os.path.isdir(SPEC_DIR) else {}
    if a.check:
        bad = sorted(set(want) ^ set(have)) + sorted(f for f in want if f in have and want[f] != have[f])
        if bad:
            print("hip/specs differs from make_specs.py: " + ", ".join(bad), file=sys.stderr)
            return 1
        print("hip/specs: %d specs up to date" % len(want))
        return 0
    os.makedirs(SPEC_DIR, exist_ok=True)
    for f in set(have) - set(want):
        os.remove(os.path.join(SPEC_DIR, f))
    for f, text in want.items():
        if have.get(f) != text:
            with open(os.path.join(SPEC_DIR, f), "w") as fh:
                fh.write(text)
    print("wrote %d specs to %s" % (len(want), SPEC_DIR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
