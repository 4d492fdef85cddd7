"""The launches added to the H200 validation set for issue 17 (gen_specs.py writes them with the
first 72): the families the issue names as off on launches kernsim's developers had not seen --
atomics on few lines and skewed histogram bins, tree and shuffle reductions over hundreds of MB,
mma.sync + ldmatrix GEMMs and float4 register-blocked SGEMMs, the textbook naive SGEMM in 32 x 32
blocks, power-law CSR SpMV, thread-per-row softmax over short rows, 3-D stencils through shared
memory, low-occupancy SFU work -- and Triton kernels of the common kinds. The CUDA kernels are in
cuda/ (written for this set), the Triton ones in triton/kernels.py (PTX in ptx_triton/, made by
triton/emit.py). Each launch's output is checked against numpy by ext_reference.py, on the GPU
(measure_h200.py) and on kernsim's dumps (check_ext.py).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "triton"))
import ext_inputs  # noqa: E402
import launches as triton_launches  # noqa: E402

SMS = 132


def cdiv(a, b):
    return (a + b - 1) // b


def cuda_specs(add, buf, sc):
    C = "../cuda/"
    # ----------------------------------------------------------------- atomics on few lines
    for k, (tag, t, n, naddr, stride, what) in enumerate([
            ("f32_1addr_4M", "f32", 1 << 22, 1, 1, "one address"),
            ("f32_32addr_1line_16M", "f32", 1 << 24, 32, 1, "32 addresses in one 128-byte line"),
            ("f32_8lines_16M", "f32", 1 << 24, 8, 32, "8 addresses, one per line"),
            ("f32_64lines_16M", "f32", 1 << 24, 64, 32, "64 addresses, one per line"),
            ("u32_256addr_8lines_16M", "u32", 1 << 24, 256, 1, "256 addresses packed in 8 lines"),
            ("u32_4096addr_16M", "u32", 1 << 24, 4096, 1, "4096 addresses packed in 128 lines")], 1):
        init = "uniform" if t == "f32" else "randint:0:255"
        add(f"atomic_{tag}", C + "atomics.cu", f"atomic_lines_{t}", [cdiv(n, 256)], [256],
            [buf(t, n, init), buf(t, naddr * stride), sc("i32", n), sc("i32", naddr), sc("i32", stride)], "atomics",
            f"single=atomics; one atomicAdd per element, {what}; out accumulates across launches", None, 4 * n)
    n = 1 << 25
    hist = [("global", "p1_256b", 0, 256, "ladder=hist_p1_256;variant=1"),
            ("warpagg", "p1_256b", 0, 256, "ladder=hist_p1_256;variant=2"),
            ("global", "p4_256b", 2, 256, "single=atomics"),
            ("global", "p16_256b", 4, 256, "ladder=hist_p16_256;variant=1"),
            ("shared", "p16_256b", 4, 256, "ladder=hist_p16_256;variant=2"),
            ("warpagg", "p16_256b", 4, 256, "ladder=hist_p16_256;variant=3"),
            ("global", "p4_4096b", 2, 4096, "ladder=hist_p4_4096;variant=1"),
            ("shared", "p4_4096b", 2, 4096, "ladder=hist_p4_4096;variant=2")]
    for style, tag, sq, nb, lad in hist:
        grid = [SMS * 8] if style == "shared" else [cdiv(n, 256)]
        add(f"hist_pow_{style}_{tag}_32M", C + "atomics.cu", f"hist_pow_{style}", grid, [256],
            [buf("f32", n, "uniform"), buf("u32", nb), sc("i32", n), sc("i32", nb), sc("i32", sq)], "histogram",
            f"{lad}; bins skewed as |x|^{2 ** sq}, {nb} bins, {style} atomics; counts accumulate across launches",
            None, 4 * n + 4 * nb, dyn=4 * nb if style == "shared" else 0)

    # ------------------------------------------------------------ reductions over 256-512 MB
    # (at 128M the trees take kernsim over two minutes to execute; 64M keeps them near 20 s)
    for N, tag, blk in [(1 << 26, "64M", 256)]:
        for k, style in enumerate(["interleaved", "sequential", "firstadd"], 1):
            per = 2 * blk if style == "firstadd" else blk
            add(f"sum_tree_{style}_{tag}", C + "reduce_big.cu", f"sum_tree_{style}", [cdiv(N, per)], [blk],
                [buf("f32", N, "uniform"), buf("f32", cdiv(N, per)), sc("i32", N)], "reduction",
                f"ladder=tree_{tag};variant={k}; shared-memory tree, {blk} threads, one partial per block", N,
                4 * N + 4 * cdiv(N, per), dyn=4 * blk)
    for N, tag in [(1 << 26, "64M"), (1 << 27, "128M")]:
        add(f"sum_shuffle_gs_{tag}", C + "reduce_big.cu", "sum_shuffle_gs", [SMS * 8], [256],
            [buf("f32", N, "uniform"), buf("f32", 1), sc("i64", N)], "reduction",
            f"ladder=shuffle_{tag};variant=1; grid-stride floats, shuffles, one atomic per block", N, 4 * N)
        add(f"sum_shuffle_gs_f4_{tag}", C + "reduce_big.cu", "sum_shuffle_gs_f4", [SMS * 8], [256],
            [buf("f32", N, "uniform"), buf("f32", 1), sc("i64", N // 4)], "reduction",
            f"ladder=shuffle_{tag};variant=2; grid-stride float4, shuffles, one atomic per block", N, 4 * N)
    N = 1 << 27
    add("sum_shuffle_gs_f4_128M_g32", C + "reduce_big.cu", "sum_shuffle_gs_f4", [SMS * 32], [128],
        [buf("f32", N, "uniform"), buf("f32", 1), sc("i64", N // 4)], "reduction",
        "ladder=shuffle_128M;variant=3; grid-stride float4, 32 blocks of 128 per SM", N, 4 * N)

    # --------------------------------------------------------------------------------- gemm
    for N in (1024, 2048, 4096):
        fl = 2 * N ** 3
        a32 = [sc("i32", N), sc("i32", N), sc("i32", N), buf("f32", N * N, "uniform"), buf("f32", N * N, "uniform"),
               buf("f32", N * N)]
        lad = f"gemm32_{N}"
        add(f"sgemm_naive32_{N}", C + "gemm2.cu", "sgemm_naive32", [N // 32, N // 32], [32, 32], a32, "gemm",
            f"ladder={lad};variant=2; fp32, one output per thread, 32x32 blocks, A broadcast, B coalesced", fl,
            12 * N * N)
        if N <= 2048:
            add(f"sgemm_naive32_rowx_{N}", C + "gemm2.cu", "sgemm_naive32_rowx", [N // 32, N // 32], [32, 32], a32,
                "gemm", f"ladder={lad};variant=1; fp32, one output per thread, threadIdx.x walks rows (A strided)",
                fl, 12 * N * N)
        add(f"sgemm_f4_64_{N}", C + "gemm2.cu", "sgemm_f4_64", [N // 64, N // 64], [256], a32, "gemm",
            f"ladder={lad};variant=3; fp32, 64x64x8 tile, 4x4 per thread, float4", fl, 12 * N * N)
        add(f"sgemm_f4_128_{N}", C + "gemm2.cu", "sgemm_f4_128", [N // 128, N // 128], [256], a32, "gemm",
            f"ladder={lad};variant=4; fp32, 128x128x8 tile, 8x8 per thread, float4", fl, 12 * N * N)
        for kern, t, sizes in [("hgemm_mma_tn", "f16", (1024, 2048, 4096)), ("hgemm_mma_cpasync", "f16", (2048, 4096)),
                               ("bgemm_mma_tn", "bf16", (2048, 4096))]:
            if N in sizes:
                add(f"{kern}_{N}", C + "gemm2.cu", kern, [N // 128, N // 128], [256],
                    [buf(t, N * N, "uniform"), buf(t, N * N, "uniform"), buf("f32", N * N), sc("i32", N), sc("i32", N),
                     sc("i32", N)], "tensor",
                    f"ladder=mma_tn_{N};variant={ {'hgemm_mma_tn': 1, 'hgemm_mma_cpasync': 2, 'bgemm_mma_tn': 3}[kern] }; "
                    f"{t} C = A B^T, 128x128x32 tile, 8 warps of 64x32, ldmatrix + mma.sync m16n8k16"
                    + (", cp.async double buffer" if "cpasync" in kern else ", 16-byte loads to registers"),
                    fl, 8 * N * N)

    # ----------------------------------------------------------------------- power-law SpMV
    for name in ext_inputs.MATRICES:
        rows = ext_inputs.MATRICES[name][0]
        cols = ext_inputs.PL_COLS
        nnz = ext_inputs.nnz(name)
        args = [sc("i32", rows), buf("i32", rows + 1, f"file:../inputs/{name}.rowptr.i32.bin"),
                buf("i32", nnz, f"randint:0:{cols - 1}"), buf("f32", nnz, "uniform"), buf("f32", cols, "uniform"),
                buf("f32", rows)]
        by = 4 * (rows + 1) + 8 * nnz + 4 * cols + 4 * rows
        for k, (style, per_row) in enumerate([("thread", 1), ("warp", 32), ("sub8", 8)], 1):
            add(f"spmv_pl_{style}_{name[3:]}", C + "spmv_pl.cu", f"spmv_pl_{style}", [cdiv(rows * per_row, 256)], [256],
                args, "spmv", f"ladder=spmv_{name};variant={k}; power-law rows ({nnz} nnz), {per_row} lanes per row",
                2 * nnz, by)

    # -------------------------------------------------------- softmax, one thread per short row
    for k, (kern, rows, cols, tag) in enumerate([("softmax_thread_16", 1 << 20, 16, "16x1M"),
                                                 ("softmax_thread_16", 1 << 22, 16, "16x4M"),
                                                 ("softmax_thread_32", 1 << 19, 32, "32x512k"),
                                                 ("softmax_thread_64", 1 << 18, 64, "64x256k"),
                                                 ("softmax_thread_dyn", 1 << 19, 32, "dyn32x512k"),
                                                 ("softmax_thread_dyn", 1 << 17, 128, "dyn128x128k"),
                                                 ("softmax_warp_32", 1 << 19, 32, "warp32x512k")]):
        e = rows * cols
        per_thread = 32 if "warp" in kern else 1
        args = [buf("f32", e, "uniform"), buf("f32", e), sc("i32", rows)] + ([sc("i32", cols)] if "dyn" in kern else [])
        lad = {"32x512k": "ladder=softmax_short32;variant=1", "dyn32x512k": "ladder=softmax_short32;variant=2",
               "warp32x512k": "ladder=softmax_short32;variant=3"}.get(tag, "single=memory")
        add(f"softmax_short_{tag}", C + "softmax_short.cu", kern, [cdiv(rows * per_thread, 256)], [256], args,
            "softmax", f"{lad}; rows of {cols} floats, " + ("one warp" if per_thread == 32 else "one thread")
            + " per row" + (", three passes through global memory" if "dyn" in kern else ""), None, 8 * e)

    # --------------------------------------------------------------- 3-D stencils, shared memory
    for nx, ny, nz in [(256, 256, 256), (512, 512, 256)]:
        e = nx * ny * nz
        tag = f"{nx}x{ny}x{nz}"
        dims = [sc("i32", nx), sc("i32", ny), sc("i32", nz)]
        add(f"st7_march_{tag}", C + "stencil3d_smem.cu", "st7_march", [nx // 32, ny // 8], [32, 8],
            [buf("f32", e, "uniform"), buf("f32", e)] + dims + [sc("f32", 0.4), sc("f32", 0.1)], "stencil",
            f"ladder=st7_{tag};variant=1; 7-point, 2-D shared plane marching in z", 8 * e, 8 * e)
        add(f"st7_tile3d_{tag}", C + "stencil3d_smem.cu", "st7_tile3d", [nx // 32, ny // 4, nz // 4], [32, 4, 4],
            [buf("f32", e, "uniform"), buf("f32", e)] + dims + [sc("f32", 0.4), sc("f32", 0.1)], "stencil",
            f"ladder=st7_{tag};variant=2; 7-point, 3-D shared tile with halo", 8 * e, 8 * e)
        add(f"st13_march_{tag}", C + "stencil3d_smem.cu", "st13_march", [nx // 32, ny // 8], [32, 8],
            [buf("f32", e, "uniform"), buf("f32", e)] + dims + [sc("f32", 0.3), sc("f32", 0.08), sc("f32", 0.03)],
            "stencil", "single=memory; 13-point radius-2 star, 2-D shared plane marching in z", 15 * e, 8 * e)
    nx = ny = nz = 256
    e = nx * ny * nz
    add("st27_tile3d_256x256x256", C + "stencil3d_smem.cu", "st27_tile3d", [nx // 32, ny // 4, nz // 4], [32, 4, 4],
        [buf("f32", e, "uniform"), buf("f32", e), sc("i32", nx), sc("i32", ny), sc("i32", nz), sc("f32", 0.3),
         sc("f32", 0.04), sc("f32", 0.02), sc("f32", 0.01)], "stencil",
        "single=memory; 27-point box, 3-D shared tile with halo", 30 * e, 8 * e)

    # ----------------------------------------------------------------- SFU at low occupancy
    for kern, grid, block, iters, what in [("sfu_sin_chain", SMS, 32, 8192, "ladder=sfu_sin;variant=1; 1 warp per SM"),
                                           ("sfu_sin_chain", SMS, 128, 8192, "ladder=sfu_sin;variant=2; 4 warps per SM"),
                                           ("sfu_sin_chain", SMS * 8, 256, 1024,
                                            "ladder=sfu_sin;variant=3; 64 warps per SM, 1/8 the steps"),
                                           ("sfu_sin_fma8", SMS, 32, 4096, "single=latency; 1 warp per SM"),
                                           ("sfu_exp_ilp4", SMS, 32, 4096, "ladder=sfu_exp;variant=1; 1 warp per SM"),
                                           ("sfu_exp_ilp4", 2 * SMS, 64, 4096, "ladder=sfu_exp;variant=2; 4 warps per SM"),
                                           ("sfu_rsqrt_log", SMS, 64, 4096, "single=latency; 2 warps per SM")]:
        T = grid * block
        add(f"{kern}_{grid}x{block}_{iters}", C + "sfu_lowocc.cu", kern, [grid], [block],
            [buf("f32", T), sc("i32", iters)], "sfu", f"{what}; {iters} steps per thread", None, 4 * T)


def triton_specs(add_raw):
    """Specs of the Triton launches from their PTX and Triton's metadata (ptx_triton/<id>.json)."""
    for L in triton_launches.launches():
        mdp = os.path.join(HERE, "ptx_triton", L["id"] + ".json")
        with open(mdp) as f:
            md = json.load(f)
        args = [{k: v for k, v in a.items()} for a in L["args"]]
        args += [{"buffer": "u8", "count": 1, "init": "zeros", "name": "global_scratch"},
                 {"buffer": "u8", "count": 1, "init": "zeros", "name": "profile_scratch"}]
        d = {"spec_version": 1, "id": L["id"], "family": "triton_" + L["kernel"].split("_")[0],
             "source": f"../ptx_triton/{L['id']}.ptx", "kernel": md["name"], "grid": list(L["grid"]),
             "block": [32 * md["num_warps"]]}
        if md.get("shared"):
            d["dynamic_shared_bytes"] = md["shared"]
        d["args"] = args
        d["notes"] = L["notes"] + f"; Triton {md['triton_version']}, {md['num_warps']} warps, " + \
            ", ".join(f"{k}={v}" for k, v in L["constexprs"].items())
        if L["flops"] is not None:
            d["flops"] = L["flops"]
        if L["min_bytes"] is not None:
            d["min_bytes"] = L["min_bytes"]
        add_raw(d)


def ids():
    """The ids of the launches this module adds."""
    out = []
    cuda_specs(lambda id_, *a, **k: out.append(id_), lambda *a, **k: {}, lambda *a, **k: {})
    out += [L["id"] for L in triton_launches.launches()]
    return out
