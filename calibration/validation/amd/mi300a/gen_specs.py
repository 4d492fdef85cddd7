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


def fir(arg):
    n, taps = arg
    return spec("fir", f"{n}_taps{taps}", "fir_filter", [n // 256], [256],
                [buf("f32", n, "zeros"), buf("f32", taps), buf("f32", n), buf("f32", taps + 1, "zeros"), scalar("u32", taps)])


def simpleconv(arg):
    w, m = arg
    pitch = w + m - 1
    return spec("simpleconvolution", f"{w}x{w}_mask{m}", "sc_conv", [(w * w + 63) // 64], [64],
                [buf("u32", pitch * (w + m - 1), "randint:0:255"), buf("f32", m * m), buf("i32", w * w, "zeros"),
                 scalar("u32", w), scalar("u32", w), scalar("u32", m), scalar("u32", m), scalar("u32", pitch)])


def kmeans(arg):
    n, f = arg
    return spec("kmeans", f"pts{n}_feat{f}_clus5", "km_assign", [(n + 255) // 256], [256],
                [buf("f32", n * f), buf("f32", 5 * f), buf("i32", n, "zeros"), scalar("i32", n), scalar("i32", 5),
                 scalar("i32", f)])


def bicg(n):
    """Two launches per measured time: specs `...#rows` and `...#cols`, summed by compare.py."""
    g = [(n + 255) // 256]
    args = lambda: [buf("f32", n * n), buf("f32", n), buf("f32", n, "zeros"), scalar("i32", n), scalar("i32", n)]
    a = spec("bicg", f"{n}x{n}", "bicg_rows", g, [256], args())
    b = spec("bicg", f"{n}x{n}", "bicg_cols", g, [256], args())
    a["id"] += "#rows"
    b["id"] += "#cols"
    return [a, b]


SETS = {
    vectoradd: [1024, 16384, 262144, 1048576, 4194304, 16777216, 67108864],
    relu: [1024, 65536, 1048576, 4194304, 16777216, 67108864],
    transpose: [256, 1024, 2048, 4096, 8192, 12288],
    stencil: [256, 1024, 2048, 4096, 8192, 12288],
    matmul: [64, 256, 512, 1024, 2048, 4096],
    nbody: [256, 1024, 4096, 16384, 65536],
    fir: [(1024, 8), (1024, 64), (65536, 8), (65536, 64), (262144, 8), (262144, 16), (262144, 32), (262144, 64)],
    simpleconv: [(256, 3), (256, 9), (1024, 3), (1024, 9), (2048, 3), (2048, 9), (4096, 3), (4096, 5), (4096, 7), (4096, 9)],
    kmeans: [(1024, 8), (1024, 64), (65536, 8), (65536, 64), (262144, 8), (262144, 16), (262144, 32), (262144, 64)],
    bicg: [64, 256, 1024, 4096, 8192],
}


def main():
    OUT.mkdir(exist_ok=True)
    count = 0
    for f, sizes in SETS.items():
        for n in sizes:
            out = f(n)
            for s in out if isinstance(out, list) else [out]:
                name = s["id"].replace(":", "_").replace("#", "_")
                (OUT / f"{name}.json").write_text(json.dumps(s, indent=1) + "\n")
                count += 1
    print(f"wrote {count} specs to {OUT}")


if __name__ == "__main__":
    main()
