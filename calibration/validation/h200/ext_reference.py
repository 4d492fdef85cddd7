"""numpy references for the launches issue 17 added to the H200 validation set (ext_specs.py).

check(spec, ins, outs) -> (ok, message): `ins` holds each argument before the launch (numpy arrays
for buffers, typed by the spec; Python numbers for scalars), `outs` each buffer after it (None for
scalars). Used on the GPU by measure_h200.py (first launch, outputs as initialised) and on
kernsim's --dump-buffers by check_ext.py. Tolerances are stated per kernel; integer results and
pure data movement are compared exactly.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import launch_inputs as li  # noqa: E402

NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16, "i32": np.int32, "u32": np.uint32,
      "i64": np.int64, "u64": np.uint64, "u8": np.uint8, "i8": np.int8}


def as_f64(arr, t):
    if t == "bf16":
        return li.bf16_bits_to_f32(arr.astype(np.uint32) if arr.dtype != np.uint16 else arr, np).astype(np.float64)
    return arr.astype(np.float64)


def close(name, got, want, atol, rtol=0.0, scale=None):
    """|got - want| <= atol + rtol * (scale if given else |want|), everywhere."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return False, f"{name}: shape {got.shape} != {want.shape}"
    s = np.abs(want) if scale is None else np.asarray(scale, dtype=np.float64)
    bad = ~(np.abs(got - want) <= atol + rtol * s)  # NaN counts as bad
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        return False, (f"{name}: {int(bad.sum())} of {bad.size} outside tolerance, first at {i}: got "
                       f"{got.ravel()[i]!r}, want {want.ravel()[i]!r}")
    return True, f"{name}: {got.size} values within tolerance (max abs err {np.abs(got - want).max():.3g})"


def exact(name, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        d = np.flatnonzero(got.ravel() != want.ravel()) if got.shape == want.shape else [0]
        return False, f"{name}: differs at {len(d)} places (first {int(d[0])})"
    return True, f"{name}: {got.size} values equal"


def both(*results):
    ok = all(r[0] for r in results)
    return ok, "; ".join(r[1] for r in results)


def sample_rows(n, k=12, seed=17):
    rng = np.random.default_rng(seed)
    return np.unique(np.concatenate([[0, n - 1], rng.integers(0, n, k)]))


# ------------------------------------------------------------------------------ per kernel


def _atomic_lines(spec, ins, outs):
    x, out0 = ins[0], ins[1]
    n, naddr, stride = ins[2], ins[3], ins[4]
    t = spec["args"][0]["buffer"]
    idx = np.arange(n) % naddr
    want = out0.astype(np.float64).copy()
    if t == "u32":  # exact: the sums stay far below 2^53
        want = out0.astype(np.uint64).copy()
        low = (x[:n] & np.uint32(0xFF)).astype(np.float64)
        sums = np.bincount(idx, weights=low, minlength=naddr).astype(np.uint64)
        want[np.arange(naddr) * stride] += sums
        return exact("out", outs[1], (want & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    sums = np.bincount(idx, weights=x[:n].astype(np.float64), minlength=naddr)
    mags = np.bincount(idx, weights=np.abs(x[:n].astype(np.float64)), minlength=naddr)
    want[np.arange(naddr) * stride] += sums
    scale = np.zeros_like(want)
    scale[np.arange(naddr) * stride] = mags
    return close("out", outs[1], want, 1e-6, 1e-6, scale)


def pow_bins(x, nbins, squarings):
    u = np.abs(x.astype(np.float32))
    for _ in range(squarings):
        u = (u * u).astype(np.float32)
    b = (u * np.float32(nbins)).astype(np.float32).astype(np.int64)
    return np.minimum(b, nbins - 1)


def _hist_pow(spec, ins, outs):
    x, bins0, n, nbins, sq = ins[0], ins[1], ins[2], ins[3], ins[4]
    want = bins0.astype(np.uint64) + np.bincount(pow_bins(x[:n], nbins, sq), minlength=nbins).astype(np.uint64)
    return exact("bins", outs[1], want.astype(np.uint32))


def _sum_tree(spec, ins, outs):
    x, n = ins[0].astype(np.float64), ins[2]
    per = spec["block"][0] * (2 if spec["kernel"].endswith("firstadd") else 1)
    nb = -(-n // per)
    xp = np.zeros(nb * per)
    xp[:n] = x[:n]
    xp = xp.reshape(nb, per)
    return close("partial", outs[1], xp.sum(axis=1), 1e-6, 1e-5, np.abs(xp).sum(axis=1))


def _sum_shuffle(spec, ins, outs):
    x = ins[0].astype(np.float64)
    want = ins[1].astype(np.float64) + x.sum()
    return close("out", outs[1], want, 1e-6, 1e-6, np.abs(x).sum() + np.abs(want))


def _sgemm(spec, ins, outs):
    M, N, K, A, B = ins[0], ins[1], ins[2], ins[3], ins[4]
    A = A.astype(np.float64).reshape(M, K)
    B = B.astype(np.float64).reshape(K, N)
    C = outs[5].reshape(M, N)
    rows = sample_rows(M)
    want = A[rows] @ B
    scale = np.abs(A[rows]) @ np.abs(B)
    return close(f"C rows {len(rows)} sampled", C[rows], want, 1e-6, 2e-6 * np.sqrt(K) / 8, scale)


def _mma_tn(spec, ins, outs):
    t = spec["args"][0]["buffer"]
    M, N, K = ins[3], ins[4], ins[5]
    A = as_f64(ins[0], t).reshape(M, K)
    B = as_f64(ins[1], t).reshape(N, K)
    C = outs[2].reshape(M, N)
    rows = sample_rows(M)
    want = A[rows] @ B.T
    return close(f"C rows {len(rows)} sampled", C[rows], want, 1e-5, 2e-5, np.abs(A[rows]) @ np.abs(B).T)


def _spmv(spec, ins, outs):
    rows, rp, col, val, x = ins[0], ins[1].astype(np.int64), ins[2], ins[3].astype(np.float64), ins[4].astype(np.float64)
    prod = val * x[col]
    lens = np.diff(rp)
    nz = lens > 0
    want = np.zeros(rows)
    mag = np.zeros(rows)
    want[nz] = np.add.reduceat(prod, rp[:-1][nz])
    mag[nz] = np.add.reduceat(np.abs(prod), rp[:-1][nz])
    return close("y", outs[5], want, 1e-6, 1e-5, mag)


def _softmax_short(spec, ins, outs):
    rows = ins[2]
    cols = ins[3] if len(ins) > 3 else {"softmax_thread_16": 16, "softmax_thread_32": 32, "softmax_thread_64": 64,
                                        "softmax_warp_32": 32}[spec["kernel"]]
    x = ins[0].astype(np.float64).reshape(rows, cols)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return close("out", outs[1].reshape(rows, cols), e / e.sum(axis=1, keepdims=True), 1e-7, 2e-5)


def _stencil(spec, ins, outs):
    k = spec["kernel"]
    x = ins[0].astype(np.float64)
    nx, ny, nz = ins[2], ins[3], ins[4]
    c = ins[5:]
    u = x.reshape(nz, ny, nx)
    want = u.copy()
    r = 2 if k == "st13_march" else 1
    I = (slice(r, nz - r), slice(r, ny - r), slice(r, nx - r))

    def sh(dz, dy, dx):
        return u[r + dz:nz - r + dz, r + dy:ny - r + dy, r + dx:nx - r + dx]

    ones = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    if k in ("st7_march", "st7_tile3d"):
        want[I] = c[0] * u[I] + c[1] * sum(sh(*d) for d in ones)
    elif k == "st13_march":
        want[I] = c[0] * u[I] + c[1] * sum(sh(*d) for d in ones) + c[2] * sum(sh(2 * a, 2 * b, 2 * d) for a, b, d in ones)
    else:  # st27_tile3d
        acc = c[0] * u[I]
        for dz in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    d = (dx != 0) + (dy != 0) + (dz != 0)
                    if d:
                        acc = acc + c[d] * sh(dz, dy, dx)
        want[I] = acc
    return close("out", outs[1].reshape(nz, ny, nx), want, 1e-6, 1e-5)


def _sfu(spec, ins, outs):
    k, iters = spec["kernel"], ins[1]
    T = ins[0].size
    t = np.arange(T, dtype=np.float64)
    x0 = np.float32(0.1) + np.float32(1e-6) * t.astype(np.float32)
    x0 = x0.astype(np.float64)
    steps = min(iters, 400)
    if k == "sfu_sin_chain":
        x = x0
        for _ in range(steps):
            x = 0.5 * np.sin(x) + 0.25
        want = x
    elif k == "sfu_sin_fma8":
        x = x0
        for _ in range(steps):
            s = np.sin(x)
            for _ in range(8):
                s = s * 0.9 + 0.01
            x = 0.5 * s + 0.25
        want = x
    elif k == "sfu_exp_ilp4":
        v = [x0, x0 + 0.2, x0 + 0.4, x0 + 0.6]
        for _ in range(steps):
            v = [np.exp(-a) for a in v]
        want = sum(v)
    else:  # sfu_rsqrt_log
        x = y = x0
        for _ in range(steps):
            x = 1.0 / np.sqrt(x + 1.0)
            y = np.log(y + 2.0)
        want = x + y
    return close("out", outs[0], want, 2e-4, 0.0)


# ------------------------------------------------------------------------------ Triton


def _tr(spec, ins, outs):
    k = spec["kernel"]
    names = [a.get("name") for a in spec["args"]]
    types = [a.get("buffer") for a in spec["args"]]
    A = {nm: (as_f64(v, t) if t else v) for nm, v, t in zip(names, ins, types)}
    O = {nm: v for nm, v in zip(names, outs)}
    if k == "add":
        return exact("z", O["z_ptr"], (ins[0] + ins[1]).astype(np.float32))
    if k == "gelu_f16":
        x = A["x_ptr"]
        want = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
        return close("y", O["y_ptr"], want, 2e-3, 2e-3)
    if k == "silu_mul_bf16":
        g, u = A["g_ptr"], A["u_ptr"]
        return close("y", as_f64(O["y_ptr"], "bf16"), g / (1 + np.exp(-g)) * u, 1e-3, 1e-2)
    if k == "row_sum":
        cols = A["cols"]
        x = A["x_ptr"].reshape(-1, cols)
        return close("s", O["s_ptr"], x.sum(axis=1), 1e-6, 1e-5, np.abs(x).sum(axis=1))
    if k == "sum_atomic":
        x = A["x_ptr"]
        want = A["out_ptr"] + x.sum()
        return close("out", O["out_ptr"], want, 1e-6, 1e-6, np.abs(x).sum())
    if k in ("layernorm_f16", "rmsnorm_f16"):
        cols = A["cols"]
        x = A["x_ptr"].reshape(-1, cols)
        rows = sample_rows(x.shape[0], 64)
        x = x[rows]
        if k == "layernorm_f16":
            d = x - x.mean(axis=1, keepdims=True)
            want = d / np.sqrt((d * d).mean(axis=1, keepdims=True) + A["eps"]) * A["w_ptr"] + A["b_ptr"]
        else:
            want = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + A["eps"]) * A["w_ptr"]
        got = O["y_ptr"].reshape(-1, cols)[rows]
        return close(f"y rows {len(rows)} sampled", got, want, 4e-3, 4e-3)
    if k == "softmax":
        cols = A["cols"]
        x = A["x_ptr"].reshape(-1, cols)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return close("y", O["y_ptr"].reshape(-1, cols), e / e.sum(axis=1, keepdims=True), 1e-8, 2e-5)
    if k == "embedding_f16":
        dim = A["dim"]
        table = ins[names.index("table_ptr")].reshape(-1, dim)
        ids = ins[names.index("ids_ptr")]
        return exact("out", O["out_ptr"].reshape(-1, dim), table[ids])
    if k == "transpose":
        rows, cols = A["rows"], A["cols"]
        x = ins[names.index("x_ptr")].reshape(rows, cols)
        return exact("y", O["y_ptr"].reshape(cols, rows), x.T)
    return None


CHECKS = {"atomic_lines_f32": _atomic_lines, "atomic_lines_u32": _atomic_lines, "hist_pow_global": _hist_pow,
          "hist_pow_shared": _hist_pow, "hist_pow_warpagg": _hist_pow, "sum_tree_interleaved": _sum_tree,
          "sum_tree_sequential": _sum_tree, "sum_tree_firstadd": _sum_tree, "sum_shuffle_gs": _sum_shuffle,
          "sum_shuffle_gs_f4": _sum_shuffle, "sgemm_naive32": _sgemm, "sgemm_naive32_rowx": _sgemm,
          "sgemm_f4_64": _sgemm, "sgemm_f4_128": _sgemm, "hgemm_mma_tn": _mma_tn, "hgemm_mma_cpasync": _mma_tn,
          "bgemm_mma_tn": _mma_tn, "spmv_pl_thread": _spmv, "spmv_pl_warp": _spmv, "spmv_pl_sub8": _spmv,
          "softmax_thread_16": _softmax_short, "softmax_thread_32": _softmax_short,
          "softmax_thread_64": _softmax_short, "softmax_thread_dyn": _softmax_short, "softmax_warp_32": _softmax_short,
          "st7_march": _stencil, "st7_tile3d": _stencil, "st27_tile3d": _stencil, "st13_march": _stencil,
          "sfu_sin_chain": _sfu, "sfu_sin_fma8": _sfu, "sfu_exp_ilp4": _sfu, "sfu_rsqrt_log": _sfu}
TRITON = {"add", "gelu_f16", "silu_mul_bf16", "row_sum", "sum_atomic", "layernorm_f16", "rmsnorm_f16", "softmax",
          "embedding_f16", "transpose"}


def has_check(spec):
    return spec["kernel"] in CHECKS or (spec["source"].endswith(".ptx") and spec["kernel"] in TRITON)


def check(spec, ins, outs):
    fn = CHECKS.get(spec["kernel"])
    if fn is None and spec["kernel"] in TRITON:
        fn = _tr
    if fn is None:
        return None
    try:
        return fn(spec, ins, outs)
    except Exception as e:  # noqa: BLE001 -- a broken reference is a failed check, with its reason
        return False, f"reference raised {type(e).__name__}: {e}"


def typed(arg, raw_bytes):
    return np.frombuffer(raw_bytes, dtype=NP[arg["buffer"]]).copy()
