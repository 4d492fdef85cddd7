#!/usr/bin/env python3
"""Writes the H200 validation launch set, specs/<id>.json (stdlib only).

Realistic sizes (a few MB to a few hundred MB per launch, GEMMs 1024-4096) of the kernels in
tests/kernels/cuda. Most launches form ladders: variants of one task, e.g. transpose naive / tiled /
padded. A ladder's members carry `notes: "ladder=<name>;variant=<k>; ..."`; k only numbers the
variants and says nothing about which is faster -- that is what the measurement is for. The rest are
singles chosen to be memory-, compute- or latency-bound (`notes: "single=<kind>; ..."`).
`flops` counts useful floating-point operations (FMA = 2); `min_bytes` is the compulsory DRAM traffic
(every input read once, every output written once).

    python3 calibration/validation/h200/gen_specs.py           # (re)write specs/
    python3 calibration/validation/h200/gen_specs.py --check   # fail if specs/ differs from this table

The SpMV launches read calibration/validation/h200/inputs/csr_big.rowptr.i32.bin, made on demand by
tests/kernels/cuda/gen_inputs.py --validation (measure_h200.py does it itself when it is missing).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SPECS = os.path.join(HERE, "specs")
SRC = "../../../../tests/kernels/cuda/"  # from specs/ to the corpus sources

sys.path.insert(0, os.path.join(REPO, "tests", "kernels", "cuda"))
import gen_inputs  # noqa: E402  (for the CSR size)

sys.path.insert(0, HERE)
import ext_specs  # noqa: E402  (issue 17's launches)


def cdiv(a, b):
    return (a + b - 1) // b


def buf(t, count, init="zeros", name=None):
    d = {"buffer": t, "count": count, "init": init}
    if name:
        d["name"] = name
    return d


def sc(t, v, name=None):
    d = {"type": t, "value": v}
    if name:
        d["name"] = name
    return d


SMS = 132  # H200 SXM: used only to size persistent-style grids


def all_specs():
    S = []

    def add(id_, src, kernel, grid, block, args, family, notes, flops=None, min_bytes=None, dyn=0):
        d = {"spec_version": 1, "id": id_, "family": family, "source": src if src.startswith("../") else SRC + src,
             "kernel": kernel,
             "grid": list(grid), "block": list(block)}
        if dyn:
            d["dynamic_shared_bytes"] = dyn
        d["args"] = args
        d["notes"] = notes
        if flops is not None:
            d["flops"] = flops
        if min_bytes is not None:
            d["min_bytes"] = min_bytes
        S.append(d)

    # ------------------------------------------------------------------ stream (memory-bound)
    n = 1 << 25  # 32 Mi floats = 128 MiB per array
    add("copy_f32_32M", "stream.cu", "copy_f32", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n), sc("i32", n)], "stream",
        "ladder=copy;variant=1; scalar loads", 0, 8 * n)
    add("copy_f32x4_32M", "stream.cu", "copy_f32x4", [cdiv(n // 4, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n), sc("i32", n)], "stream",
        "ladder=copy;variant=2; float4 loads", 0, 8 * n)
    add("triad_f32_32M", "stream.cu", "triad_f32", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n, "uniform"), buf("f32", n), sc("f32", 3.0), sc("i32", n)], "stream",
        "ladder=triad;variant=1; scalar", 2 * n, 12 * n)
    add("triad_f32x4_32M", "stream.cu", "triad_f32x4", [cdiv(n // 4, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n, "uniform"), buf("f32", n), sc("f32", 3.0), sc("i32", n)], "stream",
        "ladder=triad;variant=2; float4", 2 * n, 12 * n)
    add("scale_f32_32M", "stream.cu", "scale_f32", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n), sc("f32", 2.5), sc("i32", n)], "stream",
        "single=memory", n, 8 * n)
    add("vec_add_tu_32M", "whole_tu.cu", "vec_add_tu", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n, "uniform"), buf("f32", n), sc("i32", n)], "stream",
        "single=memory; kernel from a whole translation unit with host main()", n, 12 * n)
    m = 1 << 22  # 4 Mi floats = 16 MiB per array
    for k, (g, what) in enumerate([(1, "one block of 256 threads: latency-bound"),
                                   (SMS * 4, "4 blocks per SM, grid-stride"),
                                   (cdiv(m, 256), "one element per thread")], 1):
        add(f"saxpy_grid{g}_4M", "stream.cu", "saxpy_grid_stride", [g], [256],
            [sc("i32", m), sc("f32", -1.75), buf("f32", m, "uniform"), buf("f32", m, "uniform")], "stream",
            f"ladder=saxpy_grid;variant={k}; {what}", 2 * m, 12 * m)

    # --------------------------------------------------------------------------- reductions
    n = 1 << 24  # 64 MiB of floats
    add("reduce_atomic_16M", "reduce.cu", "reduce_atomic_f32", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", 1), sc("i32", n)], "reduction",
        "ladder=sum16M;variant=1; one same-address atomicAdd per element; out accumulates across launches "
        "(its value does not change the timing)", n, 4 * n)
    add("reduce_shared_16M", "reduce.cu", "reduce_shared_f32", [cdiv(n, 512)], [256],
        [buf("f32", n, "uniform"), buf("f32", cdiv(n, 512)), sc("i32", n)], "reduction",
        "ladder=sum16M;variant=2; shared-memory tree, partial sums per block", n, 4 * n)
    add("reduce_shuffle_16M", "reduce.cu", "reduce_shuffle_f32", [SMS * 8], [256],
        [buf("f32", n, "uniform"), buf("f32", 1), sc("i32", n)], "reduction",
        "ladder=sum16M;variant=3; grid-stride + warp shuffles + one atomic per block", n, 4 * n)
    add("block_sum_t_f32_16M", "template.cu", "_Z11block_sum_tIfLi256EEvPKT_PS0_i", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", cdiv(n, 256)), sc("i32", n)], "reduction",
        "ladder=sum16M;variant=4; templated block tree, one element per thread", n, 4 * n + 4 * cdiv(n, 256))
    add("minmax_i32_16M", "reduce.cu", "reduce_minmax_i32", [SMS * 8], [256],
        [buf("i32", n, "randint:-1000000:1000000"), buf("i32", 2), sc("i32", n)], "reduction",
        "single=memory; integer min/max with shuffles and atomicMin/Max", None, 4 * n)
    n = 1 << 23
    add("dot_f64_8M", "reduce.cu", "dot_f64", [SMS * 8], [256],
        [buf("f64", n, "uniform"), buf("f64", n, "uniform"), buf("f64", 1), sc("i32", n)], "reduction",
        "single=memory; fp64 dot product", 2 * n, 16 * n)

    # ----------------------------------------------------------------------------- transpose
    for tag, rows, cols in [("4096", 4096, 4096), ("3001x5003", 3001, 5003)]:
        e = rows * cols
        add(f"transpose_naive_{tag}", "transpose.cu", "transpose_naive", [cdiv(cols, 16), cdiv(rows, 16)], [16, 16],
            [buf("f32", e, "uniform"), buf("f32", e), sc("i32", rows), sc("i32", cols)], "transpose",
            f"ladder=transpose_{tag};variant=1; naive, strided writes", 0, 8 * e)
        add(f"transpose_tiled_{tag}", "transpose.cu", "transpose_tiled", [cdiv(cols, 32), cdiv(rows, 32)], [32, 8],
            [buf("f32", e, "uniform"), buf("f32", e), sc("i32", rows), sc("i32", cols)], "transpose",
            f"ladder=transpose_{tag};variant=2; 32x32 shared tile, bank conflicts", 0, 8 * e)
        add(f"transpose_padded_{tag}", "transpose.cu", "transpose_tiled_padded", [cdiv(cols, 32), cdiv(rows, 32)],
            [32, 8], [buf("f32", e, "uniform"), buf("f32", e), sc("i32", rows), sc("i32", cols)], "transpose",
            f"ladder=transpose_{tag};variant=3; 32x33 padded shared tile", 0, 8 * e)

    # ------------------------------------------------------------------------ softmax, norms
    for tag, rows, cols in [("16384x1024", 16384, 1024), ("2048x8192", 2048, 8192)]:
        e = rows * cols
        add(f"softmax_block_{tag}", "softmax.cu", "softmax_rows_block", [rows], [256],
            [buf("f32", e, "uniform"), buf("f32", e), sc("i32", rows), sc("i32", cols)], "softmax",
            f"ladder=softmax_{tag};variant=1; one block per row, expf", None, 8 * e)
        add(f"softmax_warp_{tag}", "softmax.cu", "softmax_rows_warp", [cdiv(rows, 4)], [128],
            [buf("f32", e, "uniform"), buf("f32", e), sc("i32", rows), sc("i32", cols)], "softmax",
            f"ladder=softmax_{tag};variant=2; one warp per row, __expf", None, 8 * e)
    rows, cols = 16384, 1024
    e = rows * cols
    add("layernorm_16384x1024", "layernorm.cu", "layernorm_rows", [rows], [256],
        [buf("f32", e, "uniform"), buf("f32", cols, "uniform"), buf("f32", cols, "uniform"), buf("f32", e),
         sc("i32", rows), sc("i32", cols), sc("f32", 1e-5)], "layernorm",
        "single=memory; block per row, two passes over the row", None, 8 * e + 8 * cols)
    add("rmsnorm_16384x1024", "layernorm.cu", "rmsnorm_rows_warp", [cdiv(rows, 4)], [128],
        [buf("f32", e, "uniform"), buf("f32", cols, "uniform"), buf("f32", e), sc("i32", rows), sc("i32", cols),
         sc("f32", 1e-6)], "layernorm", "single=memory; warp per row", None, 8 * e + 4 * cols)

    # ---------------------------------------------------------------------------------- gemm
    for N in (1024, 2048, 4096):
        fl = 2 * N ** 3
        f32args = [sc("i32", N), sc("i32", N), sc("i32", N), sc("f32", 1.0), buf("f32", N * N, "uniform"),
                   buf("f32", N * N, "uniform"), sc("f32", 0.0), buf("f32", N * N)]
        f32bytes = 16 * N * N  # A, B, C read (beta = 0 still reads C), C written
        f16args = [buf("f16", N * N, "uniform"), buf("f16", N * N, "uniform"), buf("f32", N * N),
                   sc("i32", N), sc("i32", N), sc("i32", N)]
        f16bytes = 8 * N * N
        lad = f"gemm{N}"
        add(f"sgemm_naive_{N}", "sgemm.cu", "sgemm_naive", [cdiv(N, 16), cdiv(N, 16)], [16, 16], f32args, "gemm",
            f"ladder={lad};variant=1; fp32, one output per thread from global memory", fl, f32bytes)
        add(f"sgemm_tiled_{N}", "sgemm.cu", "sgemm_tiled", [cdiv(N, 16), cdiv(N, 16)], [16, 16], f32args, "gemm",
            f"ladder={lad};variant=2; fp32, 16x16 shared tiles", fl, f32bytes)
        add(f"sgemm_regblock_{N}", "sgemm.cu", "sgemm_regblock", [cdiv(N, 64), cdiv(N, 64)], [16, 16], f32args,
            "gemm", f"ladder={lad};variant=3; fp32, 64x64 block tile, 4x4 per thread", fl, f32bytes)
        add(f"wmma_f16_{N}", "wmma_gemm.cu", "wmma_gemm_f16", [cdiv(N, 32), cdiv(N, 32)], [128], f16args, "tensor",
            f"ladder={lad};variant=4; f16 in, f32 accumulate, WMMA 16x16x16 per warp", fl, f16bytes)
        add(f"mma_f16_{N}", "mma_gemm.cu", "mma_gemm_f16", [cdiv(N, 64), cdiv(N, 64)], [128], f16args, "tensor",
            f"ladder={lad};variant=5; f16 in, f32 accumulate, cp.async + ldmatrix + mma.sync m16n8k16", fl, f16bytes)

    # ---------------------------------------------------------------------- histogram, scan
    n = 1 << 26  # 64 MiB of bytes
    for tag, init, what in [("uniform", "uniform", "256 bins evenly hit"), ("skewed", "randint:40:43", "4 hot bins")]:
        add(f"histogram_global_{tag}_64M", "histogram.cu", "histogram_global", [cdiv(n, 256)], [256],
            [buf("u8", n, init), buf("u32", 256), sc("i32", n)], "histogram",
            f"ladder=histogram_{tag};variant=1; global atomics, {what}; counts accumulate across launches "
            "(values do not change the timing)", None, n + 1024)
        add(f"histogram_shared_{tag}_64M", "histogram.cu", "histogram_shared", [SMS * 8], [256],
            [buf("u8", n, init), buf("u32", 256), sc("i32", n)], "histogram",
            f"ladder=histogram_{tag};variant=2; shared-memory privatised, {what}", None, n + 1024)
    n = 1 << 24
    add("scan_blelloch_16M", "scan.cu", "scan_blelloch_i32", [cdiv(n, 1024)], [512],
        [buf("i32", n, "randint:-50:50"), buf("i32", n), buf("i32", cdiv(n, 1024)), sc("i32", n)], "scan",
        "ladder=block_scan;variant=1; Blelloch exclusive, 1024 ints per block", None, 8 * n)
    add("scan_warp_16M", "scan.cu", "scan_warp_f32", [cdiv(n, 1024)], [1024],
        [buf("f32", n, "uniform"), buf("f32", n), sc("i32", n)], "scan",
        "ladder=block_scan;variant=2; shuffle scan, 1024 floats per block", n, 8 * n)

    # ------------------------------------------------------------------------------ stencils
    nx, ny = 8192, 4096
    e = nx * ny
    add("stencil2d_8192x4096", "stencil.cu", "stencil2d_5pt", [cdiv(nx, 32), cdiv(ny, 8)], [32, 8],
        [buf("f32", e, "uniform"), buf("f32", e), sc("i32", nx), sc("i32", ny), sc("f32", 0.5), sc("f32", 0.125)],
        "stencil", "ladder=stencil2d;variant=1; neighbours from global memory (caches)", 6 * e, 8 * e)
    add("stencil2d_smem_8192x4096", "stencil.cu", "stencil2d_5pt_smem", [cdiv(nx, 32), cdiv(ny, 8)], [32, 8],
        [buf("f32", e, "uniform"), buf("f32", e), sc("i32", nx), sc("i32", ny), sc("f32", 0.5), sc("f32", 0.125)],
        "stencil", "ladder=stencil2d;variant=2; shared tile with halo", 6 * e, 8 * e)
    nx, ny, nz = 512, 256, 256
    e = nx * ny * nz
    add("stencil3d_512x256x256", "stencil.cu", "stencil3d_7pt", [cdiv(nx, 32), cdiv(ny, 4), cdiv(nz, 2)], [32, 4, 2],
        [buf("f32", e, "uniform"), buf("f32", e), sc("i32", nx), sc("i32", ny), sc("i32", nz), sc("f32", 0.4),
         sc("f32", 0.1)], "stencil", "single=memory; 3D grid of 3D blocks", 8 * e, 8 * e)

    # ----------------------------------------------------------------------------------- spmv
    rows, cols = gen_inputs.BIG_ROWS, gen_inputs.BIG_COLS
    nnz = gen_inputs.csr_big_rowptr()[-1]
    sargs = [sc("i32", rows), buf("i32", rows + 1, "file:../inputs/csr_big.rowptr.i32.bin"),
             buf("i32", nnz, f"randint:0:{cols - 1}"), buf("f32", nnz, "uniform"), buf("f32", cols, "uniform"),
             buf("f32", rows)]
    sbytes = 4 * (rows + 1) + 8 * nnz + 4 * cols + 4 * rows
    add("spmv_scalar_500k", "spmv.cu", "spmv_csr_scalar", [cdiv(rows, 256)], [256], sargs, "spmv",
        f"ladder=spmv;variant=1; thread per row; {nnz} nnz, row lengths 0-64, random columns", 2 * nnz, sbytes)
    add("spmv_vector_500k", "spmv.cu", "spmv_csr_vector", [cdiv(rows, 8)], [256], sargs, "spmv",
        "ladder=spmv;variant=2; warp per row", 2 * nnz, sbytes)

    # ---------------------------------------------------------------- branches, calls, types
    n = 1 << 22
    add("collatz_4M", "branch.cu", "collatz_steps", [cdiv(n, 256)], [256],
        [buf("u32", n, "randint:1:100000"), buf("u32", n), sc("i32", n), sc("u32", 1000)], "branch",
        "single=divergence; data-dependent trip counts (up to 350)", None, 8 * n)
    n = 1 << 24
    add("piecewise_16M", "branch.cu", "piecewise_chain", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n), sc("i32", n)], "branch",
        "single=memory; five-way if/else chain, divergent warps", None, 8 * n)
    add("switch_ops_16M", "branch.cu", "switch_ops", [cdiv(n, 256)], [256],
        [buf("i32", n, "randint:0:7"), buf("f32", n, "uniform"), buf("f32", n, "uniform"), buf("f32", n),
         sc("i32", n)], "branch", "single=memory; switch on a random opcode per element", None, 16 * n)
    n = 1 << 22
    add("call_noinline_4M", "call.cu", "call_noinline", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", 9, "uniform"), sc("i32", 8), buf("u32", n, "randint:1:100000"),
         buf("u32", n, "randint:1:100000"), buf("f32", n), buf("i32", n), buf("u32", n), sc("i32", n)], "call",
        "single=latency; three real calls per thread, Euclid's gcd loop", None, 24 * n)
    n = 1 << 24
    add("half_axpby_16M", "fp16.cu", "half_axpby", [cdiv(n, 256)], [256],
        [buf("f16", n, "uniform"), buf("f16", n, "uniform"), buf("f16", n), sc("f32", 0.75), sc("f32", -1.25),
         sc("i32", n)], "fp16", "single=memory; scalar __half arithmetic", 3 * n, 6 * n)
    add("half2_fma_relu_16M", "fp16.cu", "half2_fma_relu", [cdiv(n // 2, 256)], [256],
        [buf("f16", n, "uniform"), buf("f16", n, "uniform"), buf("f16", n, "uniform"), buf("f16", n),
         sc("i32", n // 2)], "fp16", "single=memory; __half2 FMA + ReLU", 3 * n, 8 * n)
    add("bf16_mix_16M", "fp16.cu", "bf16_mix", [cdiv(n, 256)], [256],
        [buf("bf16", n, "uniform"), buf("f32", n, "uniform"), buf("f32", n), buf("bf16", n), sc("f32", 1.375),
         sc("i32", n)], "fp16", "single=memory; bf16 arithmetic and conversions", 4 * n, 12 * n)
    n = 1 << 22
    add("bit_tricks_4M", "bits.cu", "bit_tricks", [cdiv(n, 256)], [256],
        [buf("u32", n, "randint:0:4294967295"), buf("u32", n, "randint:0:4294967295"), buf("u32", 8 * n),
         sc("i32", n)], "bits", "single=memory; 8 integer intrinsics per element, 32 B written", None, 40 * n)
    add("math_f32_4M", "math.cu", "math_f32", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", 8 * n), sc("i32", n)], "math",
        "single=compute; expf/logf/sinf/rsqrtf/__fdividef/sqrtf/__expf/tanhf", None, 36 * n)
    n = 1 << 21
    add("math_f64_2M", "math.cu", "math_f64", [cdiv(n, 256)], [256],
        [buf("f64", n, "uniform"), buf("f64", 6 * n), sc("i32", n)], "math",
        "single=compute; fp64 exp/log/sin/sqrt/rsqrt/atan2 (fp64 units)", None, 56 * n)
    n = 1 << 22
    add("warp_vote_4M", "warp.cu", "warp_vote", [cdiv(n, 256)], [256],
        [buf("i32", n, "uniform"), buf("u32", 8 * n), sc("i32", n)], "warp",
        "single=memory; ballot/all/any/match/redux", None, 36 * n)
    add("warp_shuffles_4M", "warp.cu", "warp_shuffles", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", 5 * n), sc("i32", n)], "warp",
        "single=memory; five shuffles per element", None, 24 * n)
    n = 1 << 25
    add("reverse_dynsmem_32M", "dynsmem.cu", "reverse_dynsmem", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform"), buf("f32", n), sc("i32", n)], "shared",
        "single=memory; dynamic shared memory staging", 0, 8 * n, dyn=1024)

    # -------------------------------------------------------------- compute and latency-bound
    T = SMS * 16 * 256  # 16 blocks of 256 per SM: full occupancy
    it = 4096
    add("fma_chain_full", "compute.cu", "fma_chain", [SMS * 16], [256],
        [buf("f32", T), sc("i32", it), sc("f32", 0.999), sc("f32", 0.001)], "compute",
        "ladder=fma_throughput;variant=1; one dependent FMA chain per thread, full occupancy", 2 * T * it, 4 * T)
    add("fma_ilp4_full", "compute.cu", "fma_chain_ilp4", [SMS * 16], [256],
        [buf("f32", T), sc("i32", it), sc("f32", 0.999), sc("f32", 0.001)], "compute",
        "ladder=fma_throughput;variant=2; four independent chains per thread, full occupancy", 2 * T * it, 4 * T)
    T = SMS * 32
    it = 1 << 16
    add("fma_chain_1warp_per_sm", "compute.cu", "fma_chain", [SMS], [32],
        [buf("f32", T), sc("i32", it), sc("f32", 0.999), sc("f32", 0.001)], "compute",
        "ladder=fma_latency;variant=1; one warp per SM, one dependent chain: FMA latency-bound", 2 * T * it, 4 * T)
    add("fma_ilp4_1warp_per_sm", "compute.cu", "fma_chain_ilp4", [SMS], [32],
        [buf("f32", T), sc("i32", it), sc("f32", 0.999), sc("f32", 0.001)], "compute",
        "ladder=fma_latency;variant=2; one warp per SM, four independent chains", 2 * T * it, 4 * T)
    T = SMS * 32
    for k, (tag, n) in enumerate([("1MiB", 1 << 18), ("64MiB", 1 << 24)], 1):
        add(f"pointer_chase_{tag}", "compute.cu", "pointer_chase", [SMS], [32],
            [buf("u32", n, f"randint:0:{n - 1}"), buf("u32", T), sc("i32", 2048), sc("i32", n)], "latency",
            f"ladder=chase;variant={k}; one warp per SM, 2048 dependent loads per thread over a random map of "
            f"{tag} (random functional graph: trajectories merge, so the touched set is smaller)", None, None)

    # ------------------------------------------------------- issue 17's additions (ext_specs.py)
    ext_specs.cuda_specs(add, buf, sc)
    ext_specs.triton_specs(S.append)
    return S


def render(spec):
    lines = ["{"]
    items = list(spec.items())
    for k, (key, val) in enumerate(items):
        comma = "," if k + 1 < len(items) else ""
        if key == "args":
            lines.append('  "args": [')
            for j, a in enumerate(val):
                lines.append("    " + json.dumps(a) + ("," if j + 1 < len(val) else ""))
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(val)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    check = "--check" in sys.argv
    os.makedirs(SPECS, exist_ok=True)
    specs = all_specs()
    ids = [s["id"] for s in specs]
    assert len(ids) == len(set(ids)), "duplicate ids"
    bad = 0
    for s in specs:
        path = os.path.join(SPECS, s["id"] + ".json")
        text = render(s)
        if check:
            try:
                with open(path) as f:
                    same = f.read() == text
            except FileNotFoundError:
                same = False
            if not same:
                print("DIFF", path)
                bad += 1
        else:
            with open(path, "w") as f:
                f.write(text)
    known = {s["id"] + ".json" for s in specs}
    stray = [f for f in os.listdir(SPECS) if f.endswith(".json") and f not in known]
    for f in stray:
        print("stray spec not in the table:", f)
    ladders = {}
    for s in specs:
        note = s["notes"].split(";")[0]
        if note.startswith("ladder="):
            ladders.setdefault(note[7:], []).append(s["id"])
    print(f"{len(specs)} specs {'checked' if check else 'written'} in {os.path.relpath(SPECS, REPO)}; "
          f"{len(ladders)} ladders, {sum(1 for s in specs if s['notes'].startswith('single='))} singles")
    return 1 if (bad or stray) else 0


if __name__ == "__main__":
    sys.exit(main())
