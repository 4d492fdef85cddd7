#!/usr/bin/env python3
"""Writes the corpus launch specs, specs/<id>.json, one per kernel launch (stdlib only).

The specs are small on purpose (n ~ 1000-5000, matrices ~ 100 x 100, odd sizes, grids that
overhang the data) so a CPU simulator executes every CTA in well under a second. The table below
is the single place that says what each launch is; `python3 gen_specs.py --check` fails when a
committed spec differs from it.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "specs")


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


def csr_nnz():
    size = os.path.getsize(os.path.join(HERE, "inputs", "csr_small.colidx.i32.bin"))
    return size // 4


def all_specs():
    S = []

    def add(id_, src, kernel, grid, block, args, family, notes="", dyn=0, **extra):
        d = {"spec_version": 1, "id": id_, "family": family, "source": "../" + src, "kernel": kernel,
             "grid": list(grid), "block": list(block)}
        if dyn:
            d["dynamic_shared_bytes"] = dyn
        d["args"] = args
        if notes:
            d["notes"] = notes
        d.update(extra)
        S.append(d)

    n = 4099
    # --- stream
    add("copy_f32", "stream.cu", "copy_f32", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "in"), buf("f32", n, "zeros", "out"), sc("i32", n, "n")], "stream")
    add("copy_f32x4", "stream.cu", "copy_f32x4", [cdiv(cdiv(n, 4), 128)], [128],
        [buf("f32", n, "uniform", "in"), buf("f32", n, "zeros", "out"), sc("i32", n, "n")], "stream",
        "n % 4 == 3: the last thread copies a 3-element tail")
    add("scale_f32", "stream.cu", "scale_f32", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "in"), buf("f32", n, "zeros", "out"), sc("f32", 2.5, "q"), sc("i32", n, "n")],
        "stream")
    add("triad_f32", "stream.cu", "triad_f32", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "b"), buf("f32", n, "uniform", "c"), buf("f32", n, "zeros", "a"),
         sc("f32", 3.0, "q"), sc("i32", n, "n")], "stream")
    add("triad_f32x4", "stream.cu", "triad_f32x4", [cdiv(cdiv(n, 4), 64)], [64],
        [buf("f32", n, "uniform", "b"), buf("f32", n, "uniform", "c"), buf("f32", n, "zeros", "a"),
         sc("f32", 3.0, "q"), sc("i32", n, "n")], "stream")
    add("saxpy_grid_stride", "stream.cu", "saxpy_grid_stride", [5], [128],
        [sc("i32", n, "n"), sc("f32", -1.75, "a"), buf("f32", n, "uniform", "x"), buf("f32", n, "uniform", "y")],
        "stream", "640 threads stride over 4099 elements")
    add("vec_add_tu", "whole_tu.cu", "vec_add_tu", [cdiv(n, 256)], [256],
        [buf("f32", n, "uniform", "a"), buf("f32", n, "uniform", "b"), buf("f32", n, "zeros", "c"), sc("i32", n, "n")],
        "stream", "whole translation unit with host main()")

    # --- reduction
    add("reduce_atomic_f32", "reduce.cu", "reduce_atomic_f32", [cdiv(n, 128)], [128],
        [buf("f32", n, "randint:-1000:1000", "in"), buf("f32", 1, "zeros", "out"), sc("i32", n, "n")], "reduction",
        "integer-valued floats: the sum is exact in any atomic order, so the check is exact")
    add("reduce_atomic_f32_uniform", "reduce.cu", "reduce_atomic_f32", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "in"), buf("f32", 1, "zeros", "out"), sc("i32", n, "n")], "reduction",
        "order-dependent rounding: checked against a worst-case bound")
    add("reduce_shared_f32", "reduce.cu", "reduce_shared_f32", [cdiv(n, 512)], [256],
        [buf("f32", n, "uniform", "in"), buf("f32", cdiv(n, 512), "zeros", "partial"), sc("i32", n, "n")],
        "reduction", "one partial sum per block of 512 elements")
    add("reduce_shuffle_f32", "reduce.cu", "reduce_shuffle_f32", [6], [192],
        [buf("f32", n, "randint:-1000:1000", "in"), buf("f32", 1, "zeros", "out"), sc("i32", n, "n")], "reduction",
        "integer-valued floats: exact in any order")
    add("reduce_minmax_i32", "reduce.cu", "reduce_minmax_i32", [4], [128],
        [buf("i32", n, "randint:-100000:100000", "in"), buf("i32", 2, "zeros", "out"), sc("i32", n, "n")],
        "reduction", "out starts at {0, 0}: data has both signs")
    add("dot_f64", "reduce.cu", "dot_f64", [5], [256],
        [buf("f64", n, "uniform", "x"), buf("f64", n, "uniform", "y"), buf("f64", 1, "zeros", "out"),
         sc("i32", n, "n")], "reduction")
    nt = 1000
    add("tmpl_block_sum_f32", "template.cu", "_Z11block_sum_tIfLi256EEvPKT_PS0_i", [cdiv(nt, 256)], [256],
        [buf("f32", nt, "uniform", "in"), buf("f32", cdiv(nt, 256), "zeros", "out"), sc("i32", nt, "n")],
        "reduction", "block_sum_t<float, 256>, C++-mangled name")
    add("tmpl_block_sum_i32", "template.cu", "_Z11block_sum_tIiLi128EEvPKT_PS0_i", [cdiv(nt, 128)], [128],
        [buf("i32", nt, "randint:-1000:1000", "in"), buf("i32", cdiv(nt, 128), "zeros", "out"), sc("i32", nt, "n")],
        "reduction", "block_sum_t<int, 128>, C++-mangled name")

    # --- transpose
    rows, cols = 67, 45
    add("transpose_naive", "transpose.cu", "transpose_naive", [cdiv(cols, 16), cdiv(rows, 16)], [16, 16],
        [buf("f32", rows * cols, "uniform", "in"), buf("f32", rows * cols, "zeros", "out"),
         sc("i32", rows, "rows"), sc("i32", cols, "cols")], "transpose")
    for k in ("transpose_tiled", "transpose_tiled_padded"):
        add(k, "transpose.cu", k, [cdiv(cols, 32), cdiv(rows, 32)], [32, 8],
            [buf("f32", rows * cols, "uniform", "in"), buf("f32", rows * cols, "zeros", "out"),
             sc("i32", rows, "rows"), sc("i32", cols, "cols")], "transpose")

    # --- softmax, norms
    rows, cols = 37, 999
    add("softmax_rows_block", "softmax.cu", "softmax_rows_block", [rows], [128],
        [buf("f32", rows * cols, "uniform", "in"), buf("f32", rows * cols, "zeros", "out"),
         sc("i32", rows, "rows"), sc("i32", cols, "cols")], "softmax")
    add("softmax_rows_warp", "softmax.cu", "softmax_rows_warp", [cdiv(rows, 4)], [128],
        [buf("f32", rows * cols, "uniform", "in"), buf("f32", rows * cols, "zeros", "out"),
         sc("i32", rows, "rows"), sc("i32", cols, "cols")], "softmax", "one warp per row, 3 idle warps")
    rows, cols = 29, 771
    add("layernorm_rows", "layernorm.cu", "layernorm_rows", [rows], [256],
        [buf("f32", rows * cols, "uniform", "x"), buf("f32", cols, "uniform", "gamma"), buf("f32", cols, "uniform", "beta"),
         buf("f32", rows * cols, "zeros", "y"), sc("i32", rows, "rows"), sc("i32", cols, "cols"), sc("f32", 1e-5, "eps")],
        "layernorm")
    add("rmsnorm_rows_warp", "layernorm.cu", "rmsnorm_rows_warp", [cdiv(rows, 4)], [128],
        [buf("f32", rows * cols, "uniform", "x"), buf("f32", cols, "uniform", "w"), buf("f32", rows * cols, "zeros", "y"),
         sc("i32", rows, "rows"), sc("i32", cols, "cols"), sc("f32", 1e-6, "eps")], "layernorm")

    # --- gemm
    M, N, K = 131, 97, 53
    gargs = [sc("i32", M, "M"), sc("i32", N, "N"), sc("i32", K, "K"), sc("f32", 1.5, "alpha"),
             buf("f32", M * K, "uniform", "A"), buf("f32", K * N, "uniform", "B"), sc("f32", -0.5, "beta"),
             buf("f32", M * N, "uniform", "C")]
    add("sgemm_naive", "sgemm.cu", "sgemm_naive", [cdiv(N, 16), cdiv(M, 16)], [16, 16], gargs, "gemm")
    add("sgemm_tiled", "sgemm.cu", "sgemm_tiled", [cdiv(N, 16), cdiv(M, 16)], [16, 16], gargs, "gemm")
    add("sgemm_regblock", "sgemm.cu", "sgemm_regblock", [cdiv(N, 64), cdiv(M, 64)], [16, 16], gargs, "gemm")
    M, N, K = 80, 48, 64
    add("wmma_gemm_f16", "wmma_gemm.cu", "wmma_gemm_f16", [cdiv(N, 32), cdiv(M, 32)], [128],
        [buf("f16", M * K, "uniform", "A"), buf("f16", K * N, "uniform", "B"), buf("f32", M * N, "zeros", "C"),
         sc("i32", M, "M"), sc("i32", N, "N"), sc("i32", K, "K")], "tensor",
        "5 x 3 warp tiles on a 3 x 2 grid of 2 x 2-warp blocks: some warps have no tile")
    M, N, K = 128, 192, 96
    add("mma_gemm_f16", "mma_gemm.cu", "mma_gemm_f16", [cdiv(N, 64) + 1, cdiv(M, 64)], [128],
        [buf("f16", M * K, "uniform", "A"), buf("f16", K * N, "uniform", "B"), buf("f32", M * N, "zeros", "C"),
         sc("i32", M, "M"), sc("i32", N, "N"), sc("i32", K, "K")], "tensor",
        "grid overhangs by one block column, which returns at once; 3 K-steps exercise the double buffer")

    # --- histogram, scan
    nh = 5003
    add("histogram_global", "histogram.cu", "histogram_global", [cdiv(nh, 256)], [256],
        [buf("u8", nh, "uniform", "data"), buf("u32", 256, "zeros", "hist"), sc("i32", nh, "n")], "histogram")
    add("histogram_shared", "histogram.cu", "histogram_shared", [3], [256],
        [buf("u8", nh, "uniform", "data"), buf("u32", 256, "zeros", "hist"), sc("i32", nh, "n")], "histogram")
    add("histogram_shared_skewed", "histogram.cu", "histogram_shared", [3], [128],
        [buf("u8", nh, "randint:40:43", "data"), buf("u32", 256, "zeros", "hist"), sc("i32", nh, "n")], "histogram",
        "4 hot bins: heavy shared-atomic contention")
    ns = 3001
    add("scan_blelloch_i32", "scan.cu", "scan_blelloch_i32", [cdiv(ns, 512)], [256],
        [buf("i32", ns, "randint:-50:50", "in"), buf("i32", ns, "zeros", "out"), buf("i32", cdiv(ns, 512), "zeros", "block_sums"),
         sc("i32", ns, "n")], "scan")
    add("scan_warp_f32", "scan.cu", "scan_warp_f32", [cdiv(ns, 256)], [256],
        [buf("f32", ns, "uniform", "in"), buf("f32", ns, "zeros", "out"), sc("i32", ns, "n")], "scan")

    # --- stencils
    nx, ny = 70, 45
    add("stencil2d_5pt", "stencil.cu", "stencil2d_5pt", [cdiv(nx, 16), cdiv(ny, 8)], [16, 8],
        [buf("f32", nx * ny, "uniform", "in"), buf("f32", nx * ny, "zeros", "out"), sc("i32", nx, "nx"), sc("i32", ny, "ny"),
         sc("f32", 0.5, "c0"), sc("f32", 0.125, "c1")], "stencil", "2D grid of 2D blocks")
    add("stencil2d_5pt_smem", "stencil.cu", "stencil2d_5pt_smem", [cdiv(nx, 32), cdiv(ny, 8)], [32, 8],
        [buf("f32", nx * ny, "uniform", "in"), buf("f32", nx * ny, "zeros", "out"), sc("i32", nx, "nx"), sc("i32", ny, "ny"),
         sc("f32", 0.5, "c0"), sc("f32", 0.125, "c1")], "stencil")
    nx, ny, nz = 37, 21, 13
    add("stencil3d_7pt", "stencil.cu", "stencil3d_7pt", [cdiv(nx, 16), cdiv(ny, 4), cdiv(nz, 4)], [16, 4, 4],
        [buf("f32", nx * ny * nz, "uniform", "in"), buf("f32", nx * ny * nz, "zeros", "out"), sc("i32", nx, "nx"),
         sc("i32", ny, "ny"), sc("i32", nz, "nz"), sc("f32", 0.4, "c0"), sc("f32", 0.1, "c1")], "stencil",
        "3D grid of 3D blocks")

    # --- spmv
    rows, cols, nnz = 203, 171, csr_nnz()
    sargs = [sc("i32", rows, "rows"), buf("i32", rows + 1, "file:../inputs/csr_small.rowptr.i32.bin", "row_ptr"),
             buf("i32", nnz, "file:../inputs/csr_small.colidx.i32.bin", "col_idx"), buf("f32", nnz, "uniform", "vals"),
             buf("f32", cols, "uniform", "x"), buf("f32", rows, "zeros", "y")]
    add("spmv_csr_scalar", "spmv.cu", "spmv_csr_scalar", [cdiv(rows, 128)], [128], sargs, "spmv",
        "CSR from gen_inputs.py: empty rows and rows of 97 and 65 entries")
    add("spmv_csr_vector", "spmv.cu", "spmv_csr_vector", [cdiv(rows, 4)], [128], sargs, "spmv")

    # --- branches, calls
    add("collatz_steps", "branch.cu", "collatz_steps", [cdiv(2000, 128)], [128],
        [buf("u32", 2000, "randint:1:100000", "start"), buf("u32", 2000, "zeros", "steps"), sc("i32", 2000, "n"),
         sc("u32", 1000, "max_steps")], "branch")
    add("piecewise_chain", "branch.cu", "piecewise_chain", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "x"), buf("f32", n, "zeros", "y"), sc("i32", n, "n")], "branch")
    add("switch_ops", "branch.cu", "switch_ops", [cdiv(n, 128)], [128],
        [buf("i32", n, "randint:0:7", "op"), buf("f32", n, "uniform", "a"), buf("f32", n, "uniform", "b"),
         buf("f32", n, "zeros", "out"), sc("i32", n, "n")], "branch", "opcode 7 takes the default case")
    nc = 1500
    add("call_noinline", "call.cu", "call_noinline", [cdiv(nc, 128)], [128],
        [buf("f32", nc, "uniform", "x"), buf("f32", 6, "uniform", "coeffs"), sc("i32", 5, "deg"),
         buf("u32", nc, "randint:1:360", "u"), buf("u32", nc, "randint:1:360", "w"), buf("f32", nc, "zeros", "y"),
         buf("i32", nc, "zeros", "bucket"), buf("u32", nc, "zeros", "g"), sc("i32", nc, "n")], "call")

    # --- fp16 / bf16
    nf = 3001
    add("half_axpby", "fp16.cu", "half_axpby", [cdiv(nf, 128)], [128],
        [buf("f16", nf, "uniform", "x"), buf("f16", nf, "uniform", "y"), buf("f16", nf, "zeros", "out"),
         sc("f32", 0.75, "a"), sc("f32", -1.25, "b"), sc("i32", nf, "n")], "fp16")
    n2 = 1500
    add("half2_fma_relu", "fp16.cu", "half2_fma_relu", [cdiv(n2, 128)], [128],
        [buf("f16", 2 * n2, "uniform", "x"), buf("f16", 2 * n2, "uniform", "w"), buf("f16", 2 * n2, "uniform", "bias"),
         buf("f16", 2 * n2, "zeros", "out"), sc("i32", n2, "n2")], "fp16", "n2 __half2 pairs")
    add("bf16_mix", "fp16.cu", "bf16_mix", [cdiv(nf, 128)], [128],
        [buf("bf16", nf, "uniform", "x"), buf("f32", nf, "uniform", "f"), buf("f32", nf, "zeros", "out_f"),
         buf("bf16", nf, "zeros", "out_b"), sc("f32", 1.375, "s"), sc("i32", nf, "n")], "fp16")
    add("f16_roundtrip", "fp16.cu", "f16_roundtrip", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "in"), buf("f16", n, "zeros", "h"), buf("f32", n, "zeros", "back"),
         sc("f32", 70000.0, "scale"), sc("i32", n, "n")], "fp16", "|in*scale| > 65520 rounds to inf")
    add("f16_roundtrip_subnormal", "fp16.cu", "f16_roundtrip", [cdiv(n, 128)], [128],
        [buf("f32", n, "uniform", "in"), buf("f16", n, "zeros", "h"), buf("f32", n, "zeros", "back"),
         sc("f32", 6.0e-5, "scale"), sc("i32", n, "n")], "fp16", "every result is an f16 subnormal or zero")

    # --- bits, math
    add("bit_tricks", "bits.cu", "bit_tricks", [cdiv(1000, 128)], [128],
        [buf("u32", 1000, "randint:0:4294967295", "a"), buf("u32", 1000, "randint:0:4294967295", "b"),
         buf("u32", 8000, "zeros", "out"), sc("i32", 1000, "n")], "bits")
    add("bit_tricks_small", "bits.cu", "bit_tricks", [cdiv(1000, 128)], [128],
        [buf("u32", 1000, "randint:0:3", "a"), buf("u32", 1000, "randint:0:40", "b"),
         buf("u32", 8000, "zeros", "out"), sc("i32", 1000, "n")], "bits", "zeros and tiny values: clz 32, ffs 0")
    add("math_f32", "math.cu", "math_f32", [cdiv(2000, 128)], [128],
        [buf("f32", 2000, "uniform", "x"), buf("f32", 16000, "zeros", "out"), sc("i32", 2000, "n")], "math")
    add("math_f64", "math.cu", "math_f64", [cdiv(2000, 128)], [128],
        [buf("f64", 2000, "uniform", "x"), buf("f64", 12000, "zeros", "out"), sc("i32", 2000, "n")], "math")

    # --- warp primitives, shared memory
    nw = 1000
    add("warp_vote", "warp.cu", "warp_vote", [cdiv(nw, 128)], [128],
        [buf("i32", nw, "uniform", "in"), buf("u32", 8 * nw, "zeros", "out"), sc("i32", nw, "n")], "warp",
        "the last warp is partly past n")
    add("warp_shuffles", "warp.cu", "warp_shuffles", [cdiv(nw, 128)], [128],
        [buf("f32", nw, "uniform", "in"), buf("f32", 5 * nw, "zeros", "out"), sc("i32", nw, "n")], "warp")
    add("reverse_dynsmem", "dynsmem.cu", "reverse_dynsmem", [cdiv(nw, 96)], [96],
        [buf("f32", nw, "uniform", "in"), buf("f32", nw, "zeros", "out"), sc("i32", nw, "n")], "shared",
        "extern __shared__; the last block has 40 elements", dyn=96 * 4)

    # --- compute and latency
    add("fma_chain", "compute.cu", "fma_chain", [4], [128],
        [buf("f32", 512, "zeros", "out"), sc("i32", 1000, "iters"), sc("f32", 0.999, "a"), sc("f32", 0.001, "b")],
        "compute")
    add("fma_chain_ilp4", "compute.cu", "fma_chain_ilp4", [4], [128],
        [buf("f32", 512, "zeros", "out"), sc("i32", 1000, "iters"), sc("f32", 0.999, "a"), sc("f32", 0.001, "b")],
        "compute")
    add("pointer_chase", "compute.cu", "pointer_chase", [4], [128],
        [buf("u32", 1024, "randint:0:1023", "next"), buf("u32", 512, "zeros", "out"), sc("i32", 100, "steps"),
         sc("i32", 1024, "n")], "latency")

    # --- CCCL from the CUDA toolkit: CUB and cooperative groups
    nc = 1000
    add("cub_block_sum_f32", "cccl.cu", "cub_block_sum_f32", [cdiv(nc, 128)], [128],
        [buf("f32", nc, "randint:-1000:1000", "in"), buf("f32", cdiv(nc, 128), "zeros", "out"), sc("i32", nc, "n")],
        "reduction", "cub::BlockReduce<float, 128>::Sum; integer-valued floats: exact in any order")
    add("cg_tile_sum_f32", "cccl.cu", "cg_tile_sum_f32", [cdiv(nc, 96)], [96],
        [buf("f32", nc, "randint:-1000:1000", "in"), buf("f32", cdiv(nc, 96) * 6, "zeros", "out"), sc("i32", nc, "n")],
        "reduction", "cg::tiled_partition<16> + cg::reduce; tiles past n write 0; exact (integer-valued)")
    return S


def render(spec):
    """One key per line, args one per line: readable diffs."""
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
    print(f"{len(specs)} specs {'checked' if check else 'written'} in {os.path.relpath(SPECS)}")
    return 1 if (bad or stray) else 0


if __name__ == "__main__":
    sys.exit(main())
