"""The Triton launches of the H200 validation set: one table, read by emit.py (to compile them),
gen_specs.py (to write the specs) and ext_reference.py (to check their outputs).

Each launch: id, kernel (a function of kernels.py), args in kernsim's spec form (buffers and
scalars, named as the kernel's parameters), constexprs, num_warps, grid, and the flops/min_bytes of
the spec. Scalars equal to 1 are avoided (Triton would specialise them away).
"""


def cdiv(a, b):
    return (a + b - 1) // b


def buf(t, count, init="zeros", name=None):
    return {"buffer": t, "count": count, "init": init, "name": name}


def sc(t, v, name=None):
    return {"type": t, "value": v, "name": name}


def launches():
    L = []

    def add(id_, kernel, args, constexprs, warps, grid, notes, flops=None, min_bytes=None):
        L.append({"id": id_, "kernel": kernel, "args": args, "constexprs": constexprs, "num_warps": warps,
                  "grid": grid, "notes": notes, "flops": flops, "min_bytes": min_bytes})

    for tag, n in [("4M", 1 << 22), ("16M", 1 << 24), ("64M", 1 << 26), ("10M_odd", 10_000_007)]:
        add(f"tr_add_f32_{tag}", "add",
            [buf("f32", n, "uniform", "x_ptr"), buf("f32", n, "uniform", "y_ptr"), buf("f32", n, name="z_ptr"),
             sc("i32", n, "n")], {"BLOCK": 1024}, 4, [cdiv(n, 1024)],
            "single=memory; elementwise fp32" + (", masked tail" if n % 1024 else ""), n, 12 * n)
    for tag, n in [("8M", 1 << 23), ("32M", 1 << 25)]:
        add(f"tr_gelu_f16_{tag}", "gelu_f16", [buf("f16", n, "uniform", "x_ptr"), buf("f16", n, name="y_ptr"),
                                               sc("i32", n, "n")], {"BLOCK": 1024}, 4, [cdiv(n, 1024)],
            "single=memory; GELU (tanh form) fp16", None, 4 * n)
        add(f"tr_silu_mul_bf16_{tag}", "silu_mul_bf16",
            [buf("bf16", n, "uniform", "g_ptr"), buf("bf16", n, "uniform", "u_ptr"), buf("bf16", n, name="y_ptr"),
             sc("i32", n, "n")], {"BLOCK": 1024}, 4, [cdiv(n, 1024)], "single=memory; SwiGLU silu(g)*u bf16", None,
            6 * n)
    for tag, rows, cols, block, w in [("8192x8192", 8192, 8192, 8192, 8), ("32768x1024", 32768, 1024, 1024, 4)]:
        add(f"tr_row_sum_{tag}", "row_sum", [buf("f32", rows * cols, "uniform", "x_ptr"), buf("f32", rows, name="s_ptr"),
                                             sc("i32", cols, "cols")], {"BLOCK": block}, w, [rows],
            "single=memory; row sums, one program per row", rows * cols, 4 * rows * cols + 4 * rows)
    n = 1 << 26
    add("tr_sum_atomic_64M", "sum_atomic", [buf("f32", n, "uniform", "x_ptr"), buf("f32", 1, name="out_ptr"),
                                            sc("i32", n, "n")], {"BLOCK": 4096}, 8, [cdiv(n, 4096)],
        "single=memory; full sum, one atomic per program; out accumulates across launches", n, 4 * n)
    for tag, rows, cols, block, w in [("16384x1024", 16384, 1024, 1024, 4), ("4096x8192", 4096, 8192, 8192, 8)]:
        e = rows * cols
        add(f"tr_layernorm_f16_{tag}", "layernorm_f16",
            [buf("f16", e, "uniform", "x_ptr"), buf("f16", cols, "uniform", "w_ptr"), buf("f16", cols, "uniform", "b_ptr"),
             buf("f16", e, name="y_ptr"), sc("i32", cols, "cols"), sc("f32", 1e-5, "eps")], {"BLOCK": block}, w, [rows],
            "single=memory; LayerNorm fp16, one program per row", None, 4 * e + 4 * cols)
    for tag, rows, cols, block, w in [("16384x4096", 16384, 4096, 4096, 8), ("65536x1024", 65536, 1024, 1024, 4)]:
        e = rows * cols
        add(f"tr_rmsnorm_f16_{tag}", "rmsnorm_f16",
            [buf("f16", e, "uniform", "x_ptr"), buf("f16", cols, "uniform", "w_ptr"), buf("f16", e, name="y_ptr"),
             sc("i32", cols, "cols"), sc("f32", 1e-6, "eps")], {"BLOCK": block}, w, [rows],
            "single=memory; RMSNorm fp16, one program per row", None, 4 * e + 2 * cols)
    for k, (tag, rows, cols, block, w) in enumerate([("32768x512", 32768, 512, 512, 4),
                                                     ("16384x1024", 16384, 1024, 1024, 4),
                                                     ("4096x4096", 4096, 4096, 4096, 8),
                                                     ("2048x16384", 2048, 16384, 16384, 16),
                                                     ("8192x3000", 8192, 3000, 4096, 8)], 1):
        e = rows * cols
        add(f"tr_softmax_{tag}", "softmax", [buf("f32", e, "uniform", "x_ptr"), buf("f32", e, name="y_ptr"),
                                             sc("i32", cols, "cols")], {"BLOCK": block}, w, [rows],
            "single=memory; row softmax fp32, one program per row" + ("" if cols == block else ", masked row"),
            None, 8 * e)
    V = 32000
    for tag, T, D, bd in [("t16384_d1024", 16384, 1024, 1024), ("t4096_d4096", 4096, 4096, 1024)]:
        add(f"tr_embedding_f16_{tag}", "embedding_f16",
            [buf("i32", T, f"randint:0:{V - 1}", "ids_ptr"), buf("f16", V * D, "uniform", "table_ptr"),
             buf("f16", T * D, name="out_ptr"), sc("i32", D, "dim")], {"BLOCK_D": bd}, 4, [T, cdiv(D, bd)],
            f"single=memory; embedding gather, vocabulary {V}", None, 4 * T + 4 * T * D)
    for tag, t, rows, cols, bm, bn in [("f32_8192", "f32", 8192, 8192, 64, 64), ("f32_3000x5000", "f32", 3000, 5000, 64, 64),
                                       ("f16_8192", "f16", 8192, 8192, 64, 64)]:
        e = rows * cols
        sz = 4 if t == "f32" else 2
        add(f"tr_transpose_{tag}", "transpose",
            [buf(t, e, "uniform", "x_ptr"), buf(t, e, name="y_ptr"), sc("i32", rows, "rows"), sc("i32", cols, "cols")],
            {"BLOCK_M": bm, "BLOCK_N": bn}, 4, [cdiv(rows, bm), cdiv(cols, bn)],
            f"single=memory; tiled transpose {t}, {bm}x{bn} tiles", 0, 2 * sz * e)
    return L
