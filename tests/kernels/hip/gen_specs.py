#!/usr/bin/env python3
"""Writes the HIP corpus launch specs, specs/<id>.json (stdlib only).

The HIP corpus runs the same launches as the CUDA corpus (tests/kernels/cuda/gen_specs.py is the
single table of them): every CUDA spec is reused with its source switched to the HIP port, except
where wave64 changes the kernel or its launch shape:
  - one-wave-per-row kernels (softmax_rows_warp, rmsnorm_rows_warp, spmv_csr_vector) cover
    blockDim.x / 64 rows per block, so their grids shrink;
  - warp_vote / warp_shuffles / scan_warp_f32 become wave_vote / wave_shuffles / scan_wave_f32
    (64-lane semantics, their own references);
  - the tensor-core kernels (wmma, mma.sync) become MFMA GEMM tiles (mfma_gemm_*).
`python3 gen_specs.py --check` fails when a committed spec differs from this table.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "specs")
CUDA_GEN = os.path.join(HERE, "..", "cuda", "gen_specs.py")


def load_cuda_table():
    spec = importlib.util.spec_from_file_location("cuda_gen_specs", CUDA_GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cg = load_cuda_table()
buf, sc, cdiv = cg.buf, cg.sc, cg.cdiv

# CUDA specs whose kernels have no HIP port with the same semantics (replaced below).
REPLACED = {"warp_vote", "warp_shuffles", "scan_warp_f32", "wmma_gemm_f16", "mma_gemm_f16"}
# One wave per row: blockDim.x / 64 rows per block.
WAVE_PER_ROW = {"softmax_rows_warp": 37, "rmsnorm_rows_warp": 29, "spmv_csr_vector": 203}


def all_specs():
    S = []
    for s in cg.all_specs():
        if s["id"] in REPLACED:
            continue
        s = dict(s)
        s["source"] = s["source"][:-3] + ".hip"
        s["args"] = [dict(a, init=a["init"].replace("file:../inputs/", "file:../../cuda/inputs/"))
                     if isinstance(a.get("init"), str) else a for a in s["args"]]
        if s["id"] in WAVE_PER_ROW:
            rows = WAVE_PER_ROW[s["id"]]
            s["grid"] = [cdiv(rows, s["block"][0] // 64)]
            s["notes"] = ((s.get("notes", "") + "; ") if s.get("notes") else "") + "one 64-lane wave per row"
        S.append(s)

    def add(id_, src, kernel, grid, block, args, family, notes="", dynamic_shared_bytes=0):
        d = {"spec_version": 1, "id": id_, "family": family, "source": "../" + src, "kernel": kernel,
             "grid": list(grid), "block": list(block), "args": args}
        if dynamic_shared_bytes:
            d["dynamic_shared_bytes"] = dynamic_shared_bytes
        if notes:
            d["notes"] = notes
        S.append(d)

    nw = 1000
    add("wave_vote", "warp.hip", "wave_vote", [cdiv(nw, 128)], [128],
        [buf("i32", nw, "uniform", "in"), buf("u32", 8 * nw, "zeros", "out"), sc("i32", nw, "n")], "warp",
        "wave64 ballots and reductions; the last wave is partly past n")
    add("wave_shuffles", "warp.hip", "wave_shuffles", [cdiv(nw, 128)], [128],
        [buf("f32", nw, "uniform", "in"), buf("f32", 5 * nw, "zeros", "out"), sc("i32", nw, "n")], "warp")
    ns = 3001
    add("scan_wave_f32", "scan.hip", "scan_wave_f32", [cdiv(ns, 256)], [256],
        [buf("f32", ns, "uniform", "in"), buf("f32", ns, "zeros", "out"), sc("i32", ns, "n")], "scan")

    # MFMA GEMM tiles: 4 waves per block in a 2 x 2 arrangement of wave tiles
    def mfma(id_, kernel, ta, tc, M, N, K, tile=16, init="uniform", notes=""):
        add(id_, "mfma_gemm.hip", kernel, [cdiv(N, 2 * tile), cdiv(M, 2 * tile)], [256],
            [buf(ta, M * K, init, "A"), buf(ta, K * N, init, "B"), buf(tc, M * N, "zeros", "C"),
             sc("i32", M, "M"), sc("i32", N, "N"), sc("i32", K, "K")], "tensor", notes)

    mfma("mfma_gemm_f32", "mfma_gemm_f32", "f32", "f32", 80, 48, 36,
         notes="v_mfma_f32_16x16x4f32; 5 x 3 wave tiles on a 2 x 3 grid: some waves have no tile")
    mfma("mfma_gemm_f32_32", "mfma_gemm_f32_32", "f32", "f32", 96, 64, 34, tile=32,
         notes="v_mfma_f32_32x32x2f32: 16 accumulators per lane")
    mfma("mfma_gemm_f16", "mfma_gemm_f16", "f16", "f32", 64, 80, 96,
         notes="gfx942 v_mfma_f32_16x16x16f16, gfx950 v_mfma_f32_16x16x32_f16")
    mfma("mfma_gemm_bf16", "mfma_gemm_bf16", "bf16", "f32", 48, 64, 64,
         notes="gfx942 v_mfma_f32_16x16x16bf16_1k, gfx950 v_mfma_f32_16x16x32_bf16")
    mfma("mfma_gemm_i8", "mfma_gemm_i8", "u8", "i32", 48, 32, 128, init="randint:0:255",
         notes="bytes read as int8; gfx942 v_mfma_i32_16x16x32_i8, gfx950 v_mfma_i32_16x16x64_i8")
    mfma("mfma_gemm_fp8", "mfma_gemm_fp8", "f32", "f32", 32, 48, 64, init="randint:-16:16",
         notes="integers |x| <= 16 are exact in e4m3 (FNUZ and OCP): the fp8 product is exact")
    mfma("mfma_gemm_f64", "mfma_gemm_f64", "f64", "f64", 48, 32, 20, notes="v_mfma_f64_16x16x4f64")

    # instruction coverage beyond the ported corpus
    nc = 600
    add("cov_int", "coverage.hip", "cov_int", [cdiv(nc, 128)], [128],
        [buf("i64", nc, "randint:-9000000000000:9000000000000", "a"), buf("i32", nc, "randint:-100000:100000", "b"),
         buf("i64", 8 * nc, "zeros", "o"), buf("u32", 4 * nc, "zeros", "u"), sc("i32", nc, "n")], "bits",
        "64-bit division, remainder, shifts, bit counts, high multiplies; 32-bit division")
    add("cov_atomics", "coverage.hip", "cov_atomics", [3], [128],
        [buf("f32", 3, "zeros", "f"), buf("i32", 7, "zeros", "c"), buf("u32", 2, "zeros", "u"), buf("f64", 1, "zeros", "d"),
         sc("i32", 300, "n")], "atomics", "global and LDS atomics; the last block is partly past n")
    add("cov_math", "coverage.hip", "cov_math", [2], [128],
        [buf("f32", 256, "uniform", "x"), buf("f64", 256, "uniform", "y"), buf("f32", 12 * 256, "zeros", "o"),
         buf("f64", 6 * 256, "zeros", "od"), buf("f16", 512, "zeros", "h"), buf("bf16", 512, "zeros", "b"), sc("i32", 256, "n")],
        "math")
    add("cov_wave", "coverage.hip", "cov_wave", [2], [128],
        [buf("f32", 256, "uniform", "x"), buf("f32", 1024, "zeros", "o"), sc("i32", 250, "n")], "warp",
        "DPP and swizzle builtins; the last wave is partly past n")
    add("cov_misc", "coverage.hip", "cov_misc", [2], [128],
        [buf("f32", 256, "iota", "x"), buf("f32", 12 * 256, "zeros", "o"), sc("i32", 250, "n")], "misc",
        "CUDA-compatible helpers: dynamic shared memory, __ldg, workgroup votes, clocks, frexp/modf/sincospi/normcdf",
        dynamic_shared_bytes=512)
    return S


def main():
    check = "--check" in sys.argv
    os.makedirs(SPECS, exist_ok=True)
    specs = all_specs()
    ids = [s["id"] for s in specs]
    assert len(ids) == len(set(ids)), "duplicate ids"
    bad = 0
    for s in specs:
        path = os.path.join(SPECS, s["id"] + ".json")
        text = cg.render(s)
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
