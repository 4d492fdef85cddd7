#!/usr/bin/env python3
"""Writes the launch specs of the MGPUSim-equivalent MI300A set (specs/*.json).

Each family follows one of MGPUSim's gpu_perf_scripts benchmarks (sarchlab/mgpusim at
d01e70d5): its kernel is in mgpusim_equiv.hip (kernsim's own code), its grid, block and buffer
sizes are the benchmark's for the problem size, and the spec's `id` is the benchmark's
`kernel_name:problem_size`, the key of the measured time in
calibration/data/mi300a/mgpusim_mi300a.csv. The sizes are a subset of the measured ones: those
whose buffers fit this machine's memory and whose simulation takes seconds, spread over each
family's range.

    python3 calibration/validation/amd/mi300a/gen_specs.py
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "specs"
SRC = "../mgpusim_equiv.hip"


def buf(t, n, init="uniform"):
    return {"buffer": t, "count": int(n), "init": init}


def scalar(t, v):
    return {"type": t, "value": v}


def spec(name, size, kernel, grid, block, args, dyn=0, notes=""):
    s = {
        "spec_version": 1,
        "id": f"{name}:{size}",
        "family": name,
        "source": SRC,
        "kernel": kernel,
        "grid": list(grid),
        "block": list(block),
        "args": args,
    }
    if dyn:
        s["dynamic_shared_bytes"] = dyn
    if notes:
        s["notes"] = notes
    return s


def vectoradd(n):
    return spec("vectoradd", n, "va_add", [(n + 255) // 256], [256],
                [buf("f32", n, "zeros"), buf("f32", n), buf("f32", n), scalar("i32", n)])


def relu(n):
    return spec("relu", n, "relu_fwd", [(n + 255) // 256], [256],
                [scalar("i32", n), buf("f32", n), buf("f32", n, "zeros")])


def transpose(n):
    w4 = n // 4
    return spec("matrixtranspose", f"{n}x{n}", "mt_transpose", [w4 // 16, w4 // 16], [16, 16],
                [buf("f32", n * n, "zeros"), buf("f32", n * n), scalar("u32", w4), scalar("u32", w4 // 16)],
                dyn=16 * 16 * 16 * 4)


def stencil(n):
    cols = n + 2
    if cols % 16:
        cols += 16 - cols % 16
    total = (n + 2) * cols
    return spec("stencil2d", f"{n}x{n}", "st_stencil9", [n // 16, n // 64], [1, 64],
                [buf("f32", total), buf("f32", total), scalar("i32", 16), scalar("f32", 0.25),
                 scalar("f32", 0.15), scalar("f32", 0.05)])


def matmul(n):
    g = n // 32
    return spec("matrixmultiplication", f"{n}x{n}x{n}", "mm_tile4", [g, g], [8, 8],
                [buf("f32", n * n), buf("f32", n * n), buf("f32", n * n, "zeros"), scalar("i32", n),
                 buf("f32", g * g * 8 * 8 * 4 * 4, "zeros")],
                notes="the A tile lives in a global buffer shared by every workgroup, as in the benchmark")


def nbody(n):
    blocks = (n + 255) // 256
    return spec("nbody", f"{n}_particles", "nb_step", [blocks], [256],
                [buf("f32", 4 * n), buf("f32", 4 * n, "zeros"), scalar("i32", n), scalar("f32", 0.005),
                 scalar("f32", 50.0), buf("f32", 4 * blocks * 256, "zeros"), buf("f32", 4 * n, "zeros"),
                 buf("f32", 4 * n, "zeros")],
                notes="the position tile lives in a global buffer shared by every workgroup, as in the benchmark")


SETS = {
    vectoradd: [1024, 16384, 262144, 1048576, 4194304, 16777216, 67108864],
    relu: [1024, 65536, 1048576, 4194304, 16777216, 67108864],
    transpose: [256, 1024, 2048, 4096, 8192, 12288],
    stencil: [256, 1024, 2048, 4096, 8192, 12288],
    matmul: [64, 256, 512, 1024, 2048, 4096],
    nbody: [256, 1024, 4096, 16384, 65536],
}


def main():
    OUT.mkdir(exist_ok=True)
    for f, sizes in SETS.items():
        for n in sizes:
            s = f(n)
            name = s["id"].replace(":", "_")
            (OUT / f"{name}.json").write_text(json.dumps(s, indent=1) + "\n")
    print(f"wrote {sum(len(v) for v in SETS.values())} specs to {OUT}")


if __name__ == "__main__":
    main()
