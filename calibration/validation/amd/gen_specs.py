#!/usr/bin/env python3
"""Writes the AMD launch set at realistic sizes, specs/<id>.json (stdlib only).

The H200 validation table (../h200/gen_specs.py) with each kernel's HIP port
(tests/kernels/hip) in place of its CUDA source, at the same sizes, plus MFMA GEMMs in place of
the tensor-core (wmma / mma.sync) launches:
  - kernels whose HIP port differs in semantics (warp votes and shuffles, the warp scan, wmma,
    mma.sync) are left out;
  - one-wave-per-row kernels (softmax_rows_warp, rmsnorm_rows_warp, spmv_csr_vector) cover
    blockDim.x / 64 rows per block, so their grids shrink.
No AMD measurements exist yet: the set serves `kernsim run` speed figures (docs/amd.md) and is
ready for `kernsim validate` once an MI300X/MI355X has measured it.

    python3 calibration/validation/amd/gen_specs.py           # (re)write specs/
    python3 calibration/validation/amd/gen_specs.py --check   # fail if specs/ differs from this table
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "specs")


def load_h200_table():
    spec = importlib.util.spec_from_file_location("h200_gen_specs", os.path.join(HERE, "..", "h200", "gen_specs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


hg = load_h200_table()
buf, sc, cdiv = hg.buf, hg.sc, hg.cdiv
SKIP = {"warp_vote", "warp_shuffles", "scan_warp_f32", "wmma_gemm_f16", "mma_gemm_f16"}
WAVE_PER_ROW = {"softmax_rows_warp", "rmsnorm_rows_warp", "spmv_csr_vector"}


def all_specs():
    S = []
    for s in hg.all_specs():
        if s["kernel"] in SKIP:
            continue
        s = dict(s)
        s["source"] = s["source"].replace("tests/kernels/cuda/", "tests/kernels/hip/")[:-3] + ".hip"
        s["args"] = [dict(a, init=a["init"].replace("file:../inputs/", "file:../../h200/inputs/"))
                     if isinstance(a.get("init"), str) else a for a in s["args"]]
        if s["kernel"] in WAVE_PER_ROW:
            rows = s["grid"][0] * (s["block"][0] // 32)
            s["grid"] = [cdiv(rows, s["block"][0] // 64)]
            s["notes"] = s["notes"] + "; one 64-lane wave per row"
        S.append(s)
    # MFMA GEMMs (4 waves per block, 2 x 2 wave tiles of 16 x 16)
    for n in (1024, 2048, 4096):
        for kern, ta, tc in [("mfma_gemm_f16", "f16", "f32"), ("mfma_gemm_bf16", "bf16", "f32"), ("mfma_gemm_f32", "f32", "f32")]:
            d = {"spec_version": 1, "id": f"{kern}_{n}", "family": "gemm", "source": "../../../../tests/kernels/hip/mfma_gemm.hip",
                 "kernel": kern, "grid": [cdiv(n, 32), cdiv(n, 32)], "block": [256],
                 "args": [buf(ta, n * n, "uniform"), buf(ta, n * n, "uniform"), buf(tc, n * n), sc("i32", n), sc("i32", n), sc("i32", n)],
                 "notes": f"ladder=mfma{n};variant={kern}; one MFMA tile of 16 x 16 per wave, A and B from global memory",
                 "flops": 2 * n * n * n, "min_bytes": (2 * n * n * (2 if ta != "f32" else 4)) + 4 * n * n}
            S.append(d)
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
        text = hg.render(s)
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
