#!/usr/bin/env python3
"""One H200 call: where Triton's cp.async GEMM CTAs run, and whether the L2 read sectors they save
follow which SMs share data (issue 19 part 2, the cp.async GEMM miss).

Run on the GPU machine (one call, about 1-2 minutes; torch, triton and ncu present):

    python3 calibration/validation/device/h200_gemm_placement.py --out $OUT

It writes $OUT/gemm_placement.json and $OUT/gemm_placement_ncu.csv (and prints a summary). Copy
both to calibration/data/h200/.

What it measures. The Hopper set's bf16 4096^3 Triton matmul with pointer loads (cp.async),
BLOCK 128x128x64, 4 warps, 4 stages (tmm_bf16_4096_128x128x64_w4s4), with its tile order's
GROUP_M = 1, 3, 8 (the set's) and 32, plus the set's 128x256x64 w8s3 and 64x128x64 w4s4 configs:
  1. per CTA, the SM it ran on (%smid) and its first and last %globaltimer (ns) and %clock64,
     written by an instrumented copy of the kernel (one extra store per CTA);
  2. the median time of 20 launches each after a 256 MiB read flushing the L2 (CUDA events), the
     uninstrumented kernel;
  3. Nsight Compute on one launch of each uninstrumented variant (L2 flushed before it):
     lts__t_sectors_srcunit_tex_op_read.sum (the sectors the L2 sees from the SMs),
     lts__t_requests_srcunit_tex_op_read.sum, dram__bytes_read.sum, SM and L2 clocks.
Sectors requested by the tiles: CTAs x (BLOCK_M + BLOCK_N) x K x 2 bytes / 32.

What it decides. ncu said the H200 reads 0.53-0.86 of the requested sectors for these GEMMs, and
l2_merge.cu showed reads of the same sectors by SMs of one TPC merge fully and by SMs of one GPC
in part. Without clusters the dispatcher put CTA i on SM 2i (mod 132, rotated), so the CTAs of
one GPC (TPCs t, t+8, ...) are i, i+8, i+16, ...; with GROUP_M = 8 they share their A tile, with
GROUP_M = 3 only every third of them does, with GROUP_M = 32 they share B, and TPC partners (i,
i+66) share nothing in any order. If the sector ratio moves with GROUP_M as GPC-mate sharing
predicts (GROUP_M 3 nearer 1.0 than 8), the merge is GPC-scoped and kernsim needs the dispatcher's
placement (the smids recorded here, including how later waves fill freed SMs) to model it; if the
ratio does not move, the saving is elsewhere (e.g. the L2's own sector promotion, or L1). The
clocks say which SM clock each variant ran at (clocks.wgmma_mhz).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

M = N = K = 4096
VARIANTS = [  # (name, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, warps, stages)
    ("bf16_4096_128x128x64_w4s4_g1", 128, 128, 64, 1, 4, 4),
    ("bf16_4096_128x128x64_w4s4_g3", 128, 128, 64, 3, 4, 4),
    ("bf16_4096_128x128x64_w4s4_g8", 128, 128, 64, 8, 4, 4),
    ("bf16_4096_128x128x64_w4s4_g32", 128, 128, 64, 32, 4, 4),
    ("bf16_4096_128x256x64_w8s3_g8", 128, 256, 64, 8, 8, 3),
    ("bf16_4096_64x128x64_w4s4_g8", 64, 128, 64, 8, 4, 4),
]


def kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
        tiles_m = tl.cdiv(M, BLOCK_M)
        tiles_n = tl.cdiv(N, BLOCK_N)
        per_group = GROUP_M * tiles_n
        group = pid // per_group
        first_m = group * GROUP_M
        rows = tl.minimum(tiles_m - first_m, GROUP_M)
        return first_m + (pid % per_group) % rows, (pid % per_group) // rows

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, stamps, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, STAMP: tl.constexpr):
        # the Hopper set's triton_kernels.matmul (B [K, N] row-major), plus per-CTA stamps
        pid = tl.program_id(0)
        if STAMP:
            t0 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l,r", [pid], dtype=tl.int64, is_pure=False, pack=1)
            c0 = tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l,r", [pid], dtype=tl.int64, is_pure=False, pack=1)
        tile_m, tile_n = tile_coords(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        rm_in = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
        rn_in = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
        a_tile = a_ptr + rm_in[:, None] * K + rk[None, :]
        b_tile = b_ptr + rk[:, None] * N + rn_in[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K // BLOCK_K):
            a = tl.load(a_tile)
            b = tl.load(b_tile)
            acc = tl.dot(a, b, acc)
            a_tile += BLOCK_K
            b_tile += BLOCK_K * N
        c = acc.to(c_ptr.dtype.element_ty)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))
        if STAMP:
            t1 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l,r", [pid], dtype=tl.int64, is_pure=False, pack=1)
            c1 = tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l,r", [pid], dtype=tl.int64, is_pure=False, pack=1)
            sm = tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r,r", [pid], dtype=tl.int32, is_pure=False, pack=1)
            base = stamps + pid * 5
            tl.store(base + 0, sm.to(tl.int64))
            tl.store(base + 1, t0)
            tl.store(base + 2, t1)
            tl.store(base + 3, c0)
            tl.store(base + 4, c1)

    return matmul


def run(a):
    import torch
    matmul = kernels()
    torch.manual_seed(0)
    A = (torch.rand(M, K, device="cuda") * 2 - 1).to(torch.bfloat16)
    B = (torch.rand(K, N, device="cuda") * 2 - 1).to(torch.bfloat16)
    C = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    ref = (A.float() @ B.float())
    flush = torch.zeros(256 << 20, dtype=torch.uint8, device="cuda")
    only = set(a.only or [])
    out = {"what": "h200_gemm_placement", "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "device": torch.cuda.get_device_name(), "torch": torch.__version__, "variants": []}
    try:
        import triton
        out["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass
    for name, bm, bn, bk, g, w, s in VARIANTS:
        if only and name not in only:
            continue
        grid = ((M // bm) * (N // bn),)
        stamps = torch.zeros(grid[0] * 5, dtype=torch.int64, device="cuda")

        def launch(stamp):
            matmul[grid](A, B, C, stamps, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g,
                         STAMP=stamp, num_warps=w, num_stages=s)
        v = {"name": name, "block": [bm, bn, bk], "group_m": g, "warps": w, "stages": s, "grid": grid[0],
             "requested_sectors": grid[0] * (bm + bn) * K * 2 // 32}
        if a.ncu_pass:  # under ncu: one flushed launch of the plain kernel, nothing else
            launch(False)
            torch.cuda.synchronize()
            flush.view(torch.float32).sum()
            torch.cuda.synchronize()
            launch(False)
            torch.cuda.synchronize()
            continue
        launch(False)
        torch.cuda.synchronize()
        err = ((C.float() - ref).norm() / ref.norm()).item()
        v["rel_l2"] = err
        times = []
        st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(a.reps):
            flush.view(torch.float32).sum()
            torch.cuda._sleep(200000)
            st.record()
            launch(False)
            en.record()
            en.synchronize()
            times.append(st.elapsed_time(en) * 1000)
        v["median_us"] = statistics.median(times)
        v["samples_us"] = times
        flush.view(torch.float32).sum()
        torch.cuda._sleep(200000)
        launch(True)
        torch.cuda.synchronize()
        x = stamps.view(grid[0], 5).cpu().tolist()
        t_min = min(r[1] for r in x)
        v["ctas"] = [[r[0], r[1] - t_min, r[2] - t_min, r[4] - r[3]] for r in x]  # smid, start ns, end ns, cycles
        span = max(r[2] for r in x) - t_min
        v["stamped_span_ns"] = span
        v["sm_mhz_from_stamps"] = statistics.median((r[4] - r[3]) / max(1, r[2] - r[1]) * 1000 for r in x)
        print(f"{name}: {v['median_us']:.1f} us, rel err {err:.1e}, SM clock by stamps {v['sm_mhz_from_stamps']:.0f} MHz, "
              f"first smids {[r[0] for r in x[:8]]}", flush=True)
        out["variants"].append(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--only", action="append")
    ap.add_argument("--ncu-pass", action="store_true", help="internal: the run under ncu")
    ap.add_argument("--no-ncu", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.ncu_pass:
        run(a)
        return
    t0 = time.time()
    res = run(a)
    res["wall_s_timing"] = round(time.time() - t0, 1)
    with open(os.path.join(a.out, "gemm_placement.json"), "w") as f:
        json.dump(res, f)
    ncu = shutil.which("ncu") or next((p for p in sorted(__import__("glob").glob("/opt/nvidia/nsight-compute/*/ncu"))), None)
    if a.no_ncu or not ncu:
        print("ncu: skipped" if a.no_ncu else "ncu: not found")
        return
    metrics = ",".join(["gpu__time_duration.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
                        "lts__t_requests_srcunit_tex_op_read.sum", "dram__bytes_read.sum",
                        "sm__cycles_elapsed.avg.per_second", "lts__cycles_elapsed.avg.per_second"])
    cmd = [ncu, "--clock-control", "none", "-k", "regex:matmul", "--metrics", metrics, "--csv",
           sys.executable, os.path.abspath(__file__), "--out", a.out, "--ncu-pass"]
    for o in a.only or []:
        cmd += ["--only", o]
    with open(os.path.join(a.out, "gemm_placement_ncu.csv"), "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True, timeout=150)
    print(f"ncu exit {p.returncode}; {p.stderr.strip()[-400:]}")
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
