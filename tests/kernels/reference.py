"""numpy CPU references for the CUDA test corpus (tests/kernels/cuda).

One function per kernel, registered under the kernel's name as written in the spec (the mangled
name for templates). A reference receives a `Launch` -- the spec, the grid and block, and every
argument: buffers as the typed arrays read from `arg<N>.in.bin` (bf16 as uint16 bits), scalars as
numpy scalars -- and returns {arg_index: Expect} for every buffer the kernel writes. Buffers not in
that dict must come back unchanged.

An `Expect` holds the expected values and a tolerance with a one-line justification:
  |got - expected| <= atol + rtol * |expected|, elementwise (atol may be an array);
  integers and data movement are exact; NaN must match NaN, infinities must match exactly.
Notation in the justifications: u32 = 2^-24 (fp32 unit roundoff), one fp32 ulp <= 2^-23 |x|,
u16 = 2^-11 (f16), ubf = 2^-8 (bf16), u64 = 2^-53.

Where a kernel's floating-point operation order is fixed (shared-memory trees, shuffle scans) the
reference replays that order in fp32 and demands bit-exact results; where the order is not fixed
(atomics) or a compiler may contract a*b+c into an FMA, the tolerance is a worst-case bound of the
rounding error, computed elementwise from the magnitudes involved.

Only numpy and the standard library.
"""
from __future__ import annotations

import math

import numpy as np

U32 = 2.0 ** -24
ULP32 = 2.0 ** -23
U64 = 2.0 ** -53
ULP64 = 2.0 ** -52
U16 = 2.0 ** -11
UBF = 2.0 ** -8
F16_MIN_SUB = 2.0 ** -24
BF16_TYPES = ("bf16",)


class Tol:
    def __init__(self, atol=0.0, rtol=0.0, why=""):
        self.atol = atol
        self.rtol = rtol
        self.why = why

    @property
    def exact(self):
        return np.isscalar(self.atol) and self.atol == 0 and self.rtol == 0


def exact(why="exact: integer arithmetic or data movement"):
    return Tol(0.0, 0.0, why)


class Expect:
    def __init__(self, values, tol: Tol):
        self.values = values
        self.tol = tol


class Launch:
    """What a reference sees: the spec and the arguments' initial contents."""

    def __init__(self, spec: dict, args: list):
        self.spec = spec
        self.args = args  # numpy arrays (buffers) or numpy scalars
        g = spec["grid"]
        b = spec["block"]
        g = [g] if isinstance(g, int) else list(g)
        b = [b] if isinstance(b, int) else list(b)
        self.grid = tuple(g + [1] * (3 - len(g)))
        self.block = tuple(b + [1] * (3 - len(b)))

    def elem_type(self, k):
        return self.spec["args"][k]["buffer"]

    def a(self, k):
        """Buffer k in its storage dtype (bf16 as uint16)."""
        return self.args[k]

    def f(self, k):
        """Buffer k as float64 values (f16/bf16 decoded)."""
        return as_float64(self.args[k], self.elem_type(k))

    def s(self, k):
        """Scalar k as a Python number."""
        return self.args[k].item()

    @property
    def threads(self):
        return int(np.prod(self.grid)) * int(np.prod(self.block))


def as_float64(arr, etype):
    if etype == "bf16":
        return (arr.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return arr.astype(np.float64)


def f32(x):
    return np.asarray(x, dtype=np.float32)


REFS = {}


def ref(*names):
    def deco(fn):
        for n in names:
            REFS[n] = fn
        return fn

    return deco


def two_term_tol(t1, t2, k=2.0, why="a + b*c: FMA contraction or not, <= 2 roundings of the terms"):
    return Tol(k * U32 * (np.abs(t1) + np.abs(t2)), 0.0, why)


# ----------------------------------------------------------------------------------------- stream


@ref("copy_f32", "copy_f32x4")
def _copy(L):
    return {1: Expect(L.a(0).copy(), exact("copy"))}


@ref("scale_f32")
def _scale(L):
    return {1: Expect(f32(L.a(0) * np.float32(L.s(2))), exact("one fp32 multiply, correctly rounded"))}


@ref("triad_f32", "triad_f32x4")
def _triad(L):
    b, c, q = L.f(0), L.f(1), np.float64(np.float32(L.s(3)))
    return {2: Expect(b + q * c, two_term_tol(b, q * c))}


@ref("saxpy_grid_stride")
def _saxpy(L):
    a, x, y = np.float64(np.float32(L.s(1))), L.f(2), L.f(3)
    return {3: Expect(a * x + y, two_term_tol(a * x, y))}


@ref("vec_add_tu")
def _vec_add(L):
    return {2: Expect(f32(L.a(0) + L.a(1)), exact("one fp32 add, correctly rounded"))}


# -------------------------------------------------------------------------------------- reduction


def tree_reduce_f32(blocks):
    """Sequential-addressing shared-memory tree over the last axis (a power of two), in fp32:
    s[t] += s[t + stride] for stride = n/2 .. 1, exactly as the kernels do."""
    s = blocks.astype(np.float32).copy()
    stride = s.shape[-1] // 2
    while stride > 0:
        s[..., :stride] = s[..., :stride] + s[..., stride:2 * stride]
        stride //= 2
    return s[..., 0]


def sum_tol(terms, start=0.0):
    """Tolerance of an fp32 sum of `terms` (plus a start value) in an unknown order."""
    t = np.append(np.asarray(terms, np.float64), start)
    mag = float(np.abs(t).sum())
    if np.all(t == np.round(t)) and mag < 2.0 ** 24:
        return Tol(0.0, 0.0, "integer-valued data, every partial sum below 2^24: exact in fp32 in any order")
    return Tol((t.size + 1) * U32 * mag, 0.0, "fp32 sum of n terms in an order set by atomics: |err| <= n u32 sum|x|")


@ref("reduce_atomic_f32", "reduce_shuffle_f32")
def _reduce_sum(L):
    x = L.f(0)
    n = L.s(2)
    x = x[:n]
    start = L.f(1)[0]
    return {1: Expect(np.array([start + x.sum()]), sum_tol(x, start))}


@ref("reduce_shared_f32")
def _reduce_shared(L):
    x, n = L.a(0), L.s(2)
    bd = L.block[0]
    nblk = L.grid[0]
    padded = np.zeros(nblk * 2 * bd, np.float32)
    padded[:n] = x[:n]
    pairs = padded.reshape(nblk, 2, bd)
    first = f32(pairs[:, 0, :] + pairs[:, 1, :])  # v = in[i]; v += in[i + blockDim]
    out = L.a(1).copy()
    out[:nblk] = tree_reduce_f32(first)
    return {1: Expect(out, exact("replays the kernel's fp32 addition order (load pair, then tree)"))}


@ref("reduce_minmax_i32")
def _minmax(L):
    x, n = L.a(0)[:L.s(2)], L.s(2)
    o = L.a(1).copy()
    o[0] = min(int(o[0]), int(x.min()))
    o[1] = max(int(o[1]), int(x.max()))
    return {1: Expect(o, exact())}


@ref("dot_f64")
def _dot(L):
    n = L.s(3)
    p = L.f(0)[:n] * L.f(1)[:n]
    bound = (n + 2) * U64 * np.abs(p).sum()
    return {2: Expect(np.array([L.f(2)[0] + p.sum()]),
                      Tol(bound, 0.0, "fp64 sum of n products, atomic order: |err| <= (n+1) u64 sum|xy|"))}


@ref("_Z11block_sum_tIfLi256EEvPKT_PS0_i", "_Z11block_sum_tIiLi128EEvPKT_PS0_i")
def _block_sum_t(L):
    x, n = L.a(0), L.s(2)
    bd = L.block[0]
    nblk = L.grid[0]
    padded = np.zeros(nblk * bd, x.dtype)
    padded[:n] = x[:n]
    out = L.a(1).copy()
    if x.dtype == np.float32:
        out[:nblk] = tree_reduce_f32(padded.reshape(nblk, bd))
        why = "replays the fp32 tree order"
    else:
        out[:nblk] = padded.reshape(nblk, bd).astype(np.int64).sum(axis=1).astype(x.dtype)
        why = "integer sum"
    return {1: Expect(out, exact(why))}


@ref("cub_block_sum_f32", "cg_tile_sum_f32")
def _group_sum(L):
    """One sum per group of `size` consecutive elements (128 for the CUB block, 16 for the cg
    tile), zero past n."""
    x, n = L.f(0), L.s(2)
    size = 128 if L.spec["kernel"] == "cub_block_sum_f32" else 16
    groups = L.grid[0] * L.block[0] // size
    padded = np.zeros(groups * size)
    padded[:n] = x[:n]
    out = L.f(1).copy()
    out[:groups] = padded.reshape(groups, size).sum(axis=1)
    return {1: Expect(out, exact("integer-valued floats, partial sums below 2^24: exact in any order"))}


# -------------------------------------------------------------------------------------- transpose


@ref("transpose_naive", "transpose_tiled", "transpose_tiled_padded")
def _transpose(L):
    rows, cols = L.s(2), L.s(3)
    x = L.a(0)[:rows * cols].reshape(rows, cols)
    out = L.a(1).copy()
    out[:rows * cols] = x.T.reshape(-1)
    return {1: Expect(out, exact("transpose moves data"))}


# ------------------------------------------------------------------------------ softmax and norms


def _softmax(L, fast):
    rows, cols = L.s(2), L.s(3)
    x = L.a(0)[:rows * cols].reshape(rows, cols)
    m = x.max(axis=1, keepdims=True)
    d = f32(x - m).astype(np.float64)  # x - m is an fp32 subtraction in the kernel
    e = np.exp(d)
    y = e / e.sum(axis=1, keepdims=True)
    k = cols + (16 if fast else 8)
    why = ("row of positive terms: fp32 sum |rel err| <= cols u32, exp %s, divide and scale 2 ulp"
           % ("__expf ~4 ulp" if fast else "expf 2 ulp"))
    out = L.f(1).copy()
    out[:rows * cols] = y.reshape(-1)
    tol = np.zeros_like(out)
    tol[:rows * cols] = (k * U32 * np.abs(y)).reshape(-1)
    return {1: Expect(out, Tol(tol, 0.0, why))}


@ref("softmax_rows_block")
def _softmax_block(L):
    return _softmax(L, False)


@ref("softmax_rows_warp")
def _softmax_warp(L):
    return _softmax(L, True)


@ref("layernorm_rows")
def _layernorm(L):
    rows, cols, eps = L.s(4), L.s(5), np.float32(L.s(6))
    x = L.f(0)[:rows * cols].reshape(rows, cols)
    g, b = L.f(1)[:cols], L.f(2)[:cols]
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + float(eps))
    xhat = (x - mean) * rstd
    y = xhat * g + b
    err_mean = (cols + 2) * U32 * np.abs(x).mean(axis=1, keepdims=True)  # absolute error of the fp32 mean
    rel_rstd = (cols + 4) * U32 + 2 * ULP32  # fp32 variance sum, then rsqrtf (2 ulp)
    tol = np.abs(g) * (np.abs(xhat) * rel_rstd + rstd * err_mean) + 4 * U32 * (np.abs(xhat * g) + np.abs(b))
    out = L.f(3).copy()
    out[:rows * cols] = y.reshape(-1)
    t = np.zeros_like(out)
    t[:rows * cols] = tol.reshape(-1)
    return {3: Expect(out, Tol(t, 0.0, "fp32 row sums of cols terms (mean, variance) + rsqrtf 2 ulp + 4 roundings"))}


@ref("rmsnorm_rows_warp")
def _rmsnorm(L):
    rows, cols, eps = L.s(3), L.s(4), np.float32(L.s(5))
    x = L.f(0)[:rows * cols].reshape(rows, cols)
    w = L.f(1)[:cols]
    r = 1.0 / np.sqrt((x * x).sum(axis=1, keepdims=True) / cols + float(eps))
    y = x * r * w
    out = L.f(2).copy()
    out[:rows * cols] = y.reshape(-1)
    t = np.zeros_like(out)
    t[:rows * cols] = (((cols + 4) * U32 + 6 * ULP32) * np.abs(y)).reshape(-1)
    return {2: Expect(out, Tol(t, 0.0, "fp32 sum of cols squares (rel <= cols u32), rsqrtf 2 ulp, 2 multiplies"))}


# ------------------------------------------------------------------------------------------- gemm


@ref("sgemm_naive", "sgemm_tiled", "sgemm_regblock")
def _sgemm(L):
    M, N, K = L.s(0), L.s(1), L.s(2)
    alpha, beta = float(np.float32(L.s(3))), float(np.float32(L.s(6)))
    A = L.f(4)[:M * K].reshape(M, K)
    B = L.f(5)[:K * N].reshape(K, N)
    C0 = L.f(7)
    C = C0.copy()
    ab = A @ B
    C[:M * N] = (alpha * ab + beta * C0[:M * N].reshape(M, N)).reshape(-1)
    bound = np.zeros_like(C)
    bound[:M * N] = ((K + 4) * U32 * (abs(alpha) * (np.abs(A) @ np.abs(B)) + abs(beta) * np.abs(C0[:M * N].reshape(M, N)))).reshape(-1)
    return {7: Expect(C, Tol(bound, 0.0, "fp32 dot of K terms (FMA or not) + alpha/beta update: <= (K+3) u32 (|alpha||A||B| + |beta C|)"))}


def _tensor_gemm(L, a_idx, b_idx, c_idx, m_idx):
    M, N, K = L.s(m_idx), L.s(m_idx + 1), L.s(m_idx + 2)
    A = L.f(a_idx)[:M * K].reshape(M, K)
    B = L.f(b_idx)[:K * N].reshape(K, N)
    C = L.f(c_idx).copy()
    C[:M * N] = (A @ B).reshape(-1)  # f16 x f16 products are exact in fp32
    bound = np.zeros_like(C)
    bound[:M * N] = ((K + 16) * 2.0 * U32 * (np.abs(A) @ np.abs(B))).reshape(-1)
    return {c_idx: Expect(C, Tol(bound, 0.0,
                                 "exact f16 products, fp32 accumulation of K terms in the tensor core's own order and "
                                 "rounding (truncation possible): <= (K+16) 2 u32 |A||B|"))}


@ref("wmma_gemm_f16", "mma_gemm_f16")
def _wmma(L):
    return _tensor_gemm(L, 0, 1, 2, 3)


# ------------------------------------------------------------------------------- histogram, scan


@ref("histogram_global", "histogram_shared")
def _hist(L):
    n = L.s(2)
    counts = np.bincount(L.a(0)[:n].astype(np.int64), minlength=256)
    return {1: Expect((L.a(1).astype(np.int64) + counts).astype(np.uint32), exact("counts"))}


@ref("scan_blelloch_i32")
def _scan_blelloch(L):
    x, n = L.a(0).astype(np.int64), L.s(3)
    seg = 2 * L.block[0]
    nblk = L.grid[0]
    padded = np.zeros(nblk * seg, np.int64)
    padded[:n] = x[:n]
    p = padded.reshape(nblk, seg)
    incl = np.cumsum(p, axis=1)
    excl = incl - p
    out = L.a(1).copy()
    out[:n] = excl.reshape(-1)[:n].astype(np.int32)
    sums = L.a(2).copy()
    sums[:nblk] = incl[:, -1].astype(np.int32)
    return {1: Expect(out, exact("integer exclusive scan per block of 2*blockDim")),
            2: Expect(sums, exact("block totals"))}


def hillis_steele_f32(v):
    """Inclusive Hillis-Steele scan over the last axis (32 lanes) in fp32, as __shfl_up_sync does it."""
    v = v.astype(np.float32).copy()
    off = 1
    while off < v.shape[-1]:
        nv = v.copy()
        nv[..., off:] = v[..., off:] + v[..., :-off]
        v = nv
        off *= 2
    return v


@ref("scan_warp_f32")
def _scan_warp(L):
    x, n = L.a(0), L.s(2)
    bd, nblk = L.block[0], L.grid[0]
    nw = bd // 32
    padded = np.zeros(nblk * bd, np.float32)
    padded[:n] = x[:n]
    v = hillis_steele_f32(padded.reshape(nblk, nw, 32))
    totals = np.zeros((nblk, 32), np.float32)
    totals[:, :nw] = v[:, :, 31]
    tscan = hillis_steele_f32(totals)
    v[:, 1:, :] = v[:, 1:, :] + tscan[:, :nw - 1, None]
    out = L.a(1).copy()
    out[:n] = v.reshape(-1)[:n]
    return {1: Expect(out, exact("replays the kernel's fp32 order: warp scan, scan of warp totals, add"))}


# ---------------------------------------------------------------------------------------- stencil


@ref("stencil2d_5pt", "stencil2d_5pt_smem")
def _stencil2d(L):
    nx, ny = L.s(2), L.s(3)
    c0, c1 = float(np.float32(L.s(4))), float(np.float32(L.s(5)))
    u = L.a(0)[:nx * ny].reshape(ny, nx)
    out = u.astype(np.float64).copy()
    c = u[1:-1, 1:-1]
    nb = f32(f32(f32(u[1:-1, :-2] + u[1:-1, 2:]) + u[:-2, 1:-1]) + u[2:, 1:-1]).astype(np.float64)  # W+E+N+S in fp32
    out[1:-1, 1:-1] = c0 * c + c1 * nb
    tol = np.zeros_like(out)
    tol[1:-1, 1:-1] = 2 * U32 * (np.abs(c0 * c) + np.abs(c1 * nb))
    full = L.f(1).copy()
    full[:nx * ny] = out.reshape(-1)
    t = np.zeros_like(full)
    t[:nx * ny] = tol.reshape(-1)
    return {1: Expect(full, Tol(t, 0.0, "neighbour sum replayed in fp32; c0*u + c1*nb with or without FMA: 2 roundings; "
                                        "boundary copied exactly"))}


@ref("stencil3d_7pt")
def _stencil3d(L):
    nx, ny, nz = L.s(2), L.s(3), L.s(4)
    c0, c1 = float(np.float32(L.s(5))), float(np.float32(L.s(6)))
    u = L.a(0)[:nx * ny * nz].reshape(nz, ny, nx)
    I = (slice(1, -1),) * 3
    out = u.astype(np.float64).copy()
    c = u[I]
    terms = [u[1:-1, 1:-1, :-2], u[1:-1, 1:-1, 2:], u[1:-1, :-2, 1:-1], u[1:-1, 2:, 1:-1], u[:-2, 1:-1, 1:-1],
             u[2:, 1:-1, 1:-1]]
    nb = terms[0]
    for t in terms[1:]:
        nb = f32(nb + t)
    nb = nb.astype(np.float64)
    out[I] = c0 * c + c1 * nb
    tol = np.zeros_like(out)
    tol[I] = 2 * U32 * (np.abs(c0 * c) + np.abs(c1 * nb))
    full = L.f(1).copy()
    full[:u.size] = out.reshape(-1)
    t = np.zeros_like(full)
    t[:u.size] = tol.reshape(-1)
    return {1: Expect(full, Tol(t, 0.0, "6-term neighbour sum replayed in fp32; final c0*u + c1*nb: 2 roundings"))}


# ------------------------------------------------------------------------------------------- spmv


@ref("spmv_csr_scalar", "spmv_csr_vector")
def _spmv(L):
    rows = L.s(0)
    rp, ci, v, x = L.a(1).astype(np.int64), L.a(2).astype(np.int64), L.f(3), L.f(4)
    prod = v[:rp[rows]] * x[ci[:rp[rows]]]
    seg = np.repeat(np.arange(rows), np.diff(rp[:rows + 1]))
    y = np.zeros(rows)
    np.add.at(y, seg, prod)
    absum = np.zeros(rows)
    np.add.at(absum, seg, np.abs(prod))
    lens = np.diff(rp[:rows + 1])
    out = L.f(5).copy()
    out[:rows] = y
    t = np.zeros_like(out)
    t[:rows] = (lens + 2) * U32 * absum
    return {5: Expect(out, Tol(t, 0.0, "fp32 dot of a row's nnz terms in any order: <= (len+1) u32 sum|a x|"))}


# --------------------------------------------------------------------------------------- branches


def collatz_np(start, max_steps):
    v = start.astype(np.uint32).copy()
    s = np.zeros_like(v)
    active = (v > 1) & (s < max_steps)
    while active.any():
        odd = (v & np.uint32(1)) == 1
        nv = np.where(odd, v * np.uint32(3) + np.uint32(1), v >> np.uint32(1))  # uint32 wraps like the kernel
        v = np.where(active, nv, v)
        s = np.where(active, s + np.uint32(1), s)
        active = (v > 1) & (s < max_steps)
    return s


@ref("collatz_steps")
def _collatz(L):
    n, mx = L.s(2), L.s(3)
    out = L.a(1).copy()
    out[:n] = collatz_np(L.a(0)[:n], mx)
    return {1: Expect(out, exact("integer iteration"))}


@ref("piecewise_chain")
def _piecewise(L):
    n = L.s(2)
    v = L.a(0)[:n]
    vd = v.astype(np.float64)
    safe = np.where(v == 0, np.float32(1), v)  # np.select evaluates every branch; avoid 1/0 warnings
    r = np.select(
        [v < -0.5, v < 0.0, v < 0.25, v < 0.75],
        [-1.0 - vd * vd,                                        # may be one FMA: tolerance below
         f32(np.float32(2) * v).astype(np.float64),             # exact
         f32(f32(v * v) * v).astype(np.float64),                # (v*v)*v, two fp32 roundings replayed
         np.sqrt(np.maximum(v, np.float32(0))).astype(np.float64)],  # fp32 sqrt, correctly rounded
        default=f32(np.float32(1) / safe).astype(np.float64))   # fp32 division, correctly rounded
    tol = np.where(v < -0.5, 2 * U32 * (1.0 + vd * vd), 0.0)
    out = L.f(1).copy()
    out[:n] = r
    t = np.zeros_like(out)
    t[:n] = tol
    return {1: Expect(out, Tol(t, 0.0, "branch -1 - v*v may be one FMA (1 rounding) or two; the other branches are "
                                       "correctly rounded fp32 ops, exact"))}


@ref("switch_ops")
def _switch(L):
    n = L.s(4)
    op = L.a(0)[:n]
    a, b = L.a(1)[:n], L.a(2)[:n]
    ad, bd = a.astype(np.float64), b.astype(np.float64)
    r = np.select([op == 0, op == 1, op == 2, op == 3, op == 4, op == 5, op == 6],
                  [f32(a + b), f32(a - b), f32(a * b), np.maximum(a, b), np.minimum(a, b), ad * ad + bd,
                   np.abs(f32(a - b))], default=0.0).astype(np.float64)
    tol = np.where(op == 5, 2 * U32 * (ad * ad + np.abs(bd)), 0.0)
    out = L.f(3).copy()
    out[:n] = r
    t = np.zeros_like(out)
    t[:n] = tol
    return {3: Expect(out, Tol(t, 0.0, "opcode 5 (x*x + y) may contract to an FMA: 2 roundings; other ops exact"))}


# ------------------------------------------------------------------------------------------ calls


@ref("call_noinline")
def _call(L):
    n, deg = L.s(8), L.s(2)
    x = L.a(0)[:n]
    c = L.f(1)
    xd = x.astype(np.float64)
    y = np.zeros(n)
    for k in range(deg, -1, -1):
        y = y * xd + c[k]
    mag = np.zeros(n)
    for k in range(deg + 1):
        mag += np.abs(c[k]) * np.abs(xd) ** k
    lo, hi, nb = np.float32(-1), np.float32(1), 16
    with np.errstate(invalid="ignore"):
        b = np.floor(f32(f32(f32(x - lo) / f32(hi - lo)) * np.float32(nb))).astype(np.int64)
    b = np.where(x < lo, 0, np.where(x >= hi, nb - 1, np.minimum(b, nb - 1))).astype(np.int32)
    g = np.gcd(L.a(3)[:n].astype(np.int64), L.a(4)[:n].astype(np.int64)).astype(np.uint32)
    oy, ob, og = L.f(5).copy(), L.a(6).copy(), L.a(7).copy()
    oy[:n] = y
    ob[:n] = b
    og[:n] = g
    t = np.zeros_like(oy)
    t[:n] = (2 * deg + 2) * U32 * mag
    return {5: Expect(oy, Tol(t, 0.0, "Horner with deg fmaf: <= deg+1 roundings of terms bounded by sum|c_k x^k|")),
            6: Expect(ob, exact("bin index from exact fp32 ops (x+1, /2, *16 are exact or replayed)")),
            7: Expect(og, exact("gcd"))}


# -------------------------------------------------------------------------------------- fp16/bf16


def one_of(variants):
    """Expected = the first variant; tolerance = the elementwise spread of all legal variants, so a
    result must equal one of them (or lie between them)."""
    base = np.asarray(variants[0], np.float64)
    spread = np.zeros_like(base)
    for v in variants[1:]:
        spread = np.maximum(spread, np.abs(np.asarray(v, np.float64) - base))
    return base, spread


def h16(v):
    """Round float64 values to f16 once (numpy converts float64 -> float16 directly, nearest even)."""
    with np.errstate(over="ignore"):
        return np.asarray(v, np.float64).astype(np.float16).astype(np.float64)


def bf16_round(v):
    """Round float64 values to bf16 once (8-bit significand, nearest even; normal range)."""
    m, e = np.frexp(np.asarray(v, np.float64))
    return np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)


@ref("half_axpby")
def _half_axpby(L):
    n = L.s(5)
    a, b = float(np.float16(np.float32(L.s(3)))), float(np.float16(np.float32(L.s(4))))
    x, y = L.f(0)[:n], L.f(1)[:n]
    # products of f16 values are exact in fp64, so each variant below is rounded exactly once per op
    ax, by = a * x, b * y
    unfused = h16(h16(ax) + h16(by))
    fused_a = h16(ax + h16(by))  # fma(a, x, round(b*y))
    fused_b = h16(by + h16(ax))  # fma(b, y, round(a*x))
    r, spread = one_of([unfused, fused_a, fused_b])
    out = L.f(2).copy()
    out[:n] = r
    t = np.zeros_like(out)
    t[:n] = spread
    return {2: Expect(out, Tol(t, 0.0, "f16 mul/mul/add rounded per op, or contracted to an FMA either way: the "
                                       "result must be one of those three"))}


@ref("half2_fma_relu")
def _half2(L):
    n2 = L.s(4)
    x, w, bias = L.f(0)[:2 * n2], L.f(1)[:2 * n2], L.f(2)[:2 * n2]
    r = np.maximum((x * w + bias).astype(np.float16), np.float16(0)).astype(np.float64)  # exact sum, one rounding
    out = L.f(3).copy()
    out[:2 * n2] = r
    return {3: Expect(out, exact("fma.rn.f16x2 rounds once; x*w+bias is exact in fp64 for these inputs; max exact"))}


@ref("bf16_mix")
def _bf16(L):
    n = L.s(5)
    s = float(np.float32(L.s(4)))
    x, fv = L.f(0)[:n], L.f(1)[:n]
    of = L.f(2).copy()
    of[:n] = x * s + fv
    tf = np.zeros_like(of)
    tf[:n] = 2 * U32 * (np.abs(x * s) + np.abs(fv))
    sb = as_float64(_f32_to_bf16_bits(f32(np.float32(s))), "bf16")[()]  # __float2bfloat16(s)
    fb = as_float64(_f32_to_bf16_bits(f32(fv)), "bf16")                  # __float2bfloat16(f[i])
    xs = x * sb  # exact in fp64
    r, spread = one_of([bf16_round(bf16_round(xs) + fb), bf16_round(xs + fb)])
    ob = as_float64(L.a(3), "bf16")
    ob[:n] = r
    tb = np.zeros_like(ob)
    tb[:n] = spread
    return {2: Expect(of, Tol(tf, 0.0, "fp32 x*s + f, FMA or not: 2 roundings")),
            3: Expect(ob, Tol(tb, 0.0, "bf16 mul then add rounded per op, or one FMA: the result must be one of the two"))}


def _f32_to_bf16_bits(x):
    b = np.asarray(x, np.float32).view(np.uint32)
    lsb = (b >> np.uint32(16)) & np.uint32(1)
    return ((b + np.uint32(0x7FFF) + lsb) >> np.uint32(16)).astype(np.uint16)


@ref("f16_roundtrip")
def _f16_roundtrip(L):
    n = L.s(4)
    with np.errstate(over="ignore"):
        h = f32(L.a(0)[:n] * np.float32(L.s(3))).astype(np.float16)
    oh, ob = L.a(1).copy(), L.a(2).copy()
    oh[:n] = h
    ob[:n] = h.astype(np.float32)
    return {1: Expect(oh, exact("cvt.rn.f16.f32 of an fp32 product: IEEE round to nearest even, inf on overflow")),
            2: Expect(ob, exact("f16 -> f32 is exact"))}


# ------------------------------------------------------------------------------------------- bits

_POPC8 = np.array([bin(i).count("1") for i in range(256)], np.uint32)
_BREV8 = np.array([int(format(i, "08b")[::-1], 2) for i in range(256)], np.uint32)


def popc32(x):
    x = x.astype(np.uint32)
    return sum(_POPC8[(x >> np.uint32(8 * k)) & np.uint32(0xFF)] for k in range(4)).astype(np.uint32)


def brev32(x):
    x = x.astype(np.uint32)
    r = np.zeros_like(x)
    for k in range(4):
        r |= _BREV8[(x >> np.uint32(8 * k)) & np.uint32(0xFF)] << np.uint32(8 * (3 - k))
    return r


def clz32(x):
    x = x.astype(np.uint64)
    out = np.full(x.shape, 32, np.uint32)
    for bit in range(32):  # highest set bit wins: iterate upward, overwrite
        out = np.where((x >> np.uint64(bit)) & np.uint64(1) == 1, np.uint32(31 - bit), out)
    return out


def ffs32(x):
    x = x.astype(np.uint64)
    out = np.zeros(x.shape, np.uint32)
    for bit in range(31, -1, -1):  # lowest set bit wins: iterate downward, overwrite
        out = np.where((x >> np.uint64(bit)) & np.uint64(1) == 1, np.uint32(bit + 1), out)
    return out


@ref("bit_tricks")
def _bits(L):
    n = L.s(3)
    x, y = L.a(0)[:n].astype(np.uint64), L.a(1)[:n].astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    pair = (y << np.uint64(32)) | x  # hi:lo = y:x
    fl = ((pair << (y & np.uint64(31))) >> np.uint64(32)) & m32
    sh = np.minimum(x >> np.uint64(26), np.uint64(32))
    fr = (pair >> sh) & m32
    sel = y & np.uint64(0x7777)
    bytes8 = [(x >> np.uint64(8 * k)) & np.uint64(0xFF) for k in range(4)] + \
             [(y >> np.uint64(8 * k)) & np.uint64(0xFF) for k in range(4)]
    stack = np.stack(bytes8)  # (8, n)
    perm = np.zeros(n, np.uint64)
    for k in range(4):
        idx = ((sel >> np.uint64(4 * k)) & np.uint64(7)).astype(np.int64)
        perm |= stack[idx, np.arange(n)] << np.uint64(8 * k)
    umulhi = (x * y) >> np.uint64(32)
    res = np.stack([popc32(x), clz32(x), brev32(x), fl, fr, perm, ffs32(x), umulhi], axis=1).astype(np.uint32)
    out = L.a(2).copy()
    out[:8 * n] = res.reshape(-1)
    return {2: Expect(out, exact("integer intrinsics"))}


# ------------------------------------------------------------------------------------------- math


@ref("math_f32")
def _math32(L):
    n = L.s(2)
    v = L.a(0)[:n]
    vd = v.astype(np.float64)
    av = np.abs(v)
    cols = [
        (np.exp(vd), 3, "expf 2 ulp"),
        (np.log(f32(av + np.float32(1e-3)).astype(np.float64)), 3, "logf 1 ulp (|x|+1e-3 replayed in fp32)"),
        (np.sin(f32(np.float32(3) * v).astype(np.float64)), 3, "sinf 2 ulp (3x replayed in fp32)"),
        (1.0 / np.sqrt(f32(av + np.float32(0.01)).astype(np.float64)), 3, "rsqrtf 2 ulp"),
        (vd / (1.5 + vd * vd), 5, "__fdividef 2 ulp + denominator 1.5 + x*x with or without FMA 1 ulp"),
        (np.sqrt(av.astype(np.float64)), 1, "sqrtf correctly rounded"),
        (np.exp(vd), 5, "__expf: 2 + floor(1.17|x|) ulp, |x| < 1"),
        (np.tanh(vd), 3, "tanhf 2 ulp"),
    ]
    res = np.stack([c[0] for c in cols], axis=1)
    rt = np.array([c[1] for c in cols], np.float64) * ULP32
    out = L.f(1).copy()
    out[:8 * n] = res.reshape(-1)
    t = np.zeros_like(out)
    t[:8 * n] = (np.abs(res) * rt[None, :]).reshape(-1) + 1e-30
    return {1: Expect(out, Tol(t, 0.0, "CUDA fp32 math error bounds in ulp of the result: " +
                               "; ".join(f"[{k}] {c[2]}" for k, c in enumerate(cols))))}


@ref("math_f64")
def _math64(L):
    n = L.s(2)
    v = L.a(0)[:n].astype(np.float64)
    av = np.abs(v)
    res = np.stack([np.exp(v), np.log(av + 1e-3), np.sin(3.0 * v), np.sqrt(av), 1.0 / np.sqrt(av + 0.01),
                    np.arctan2(v, 0.5)], axis=1)
    out = L.f(1).copy()
    out[:6 * n] = res.reshape(-1)
    t = np.zeros_like(out)
    t[:6 * n] = (np.abs(res) * 4 * ULP64).reshape(-1) + 1e-300
    return {1: Expect(out, Tol(t, 0.0, "CUDA fp64 exp/log/sqrt/rsqrt <= 1 ulp, sin/atan2 <= 2 ulp; numpy's libm "
                                       "< 1 ulp: 4 ulp"))}


# ------------------------------------------------------------------------------------------- warp


def _lanes(L, x, n, fill):
    T = L.threads
    v = np.full(T, fill, dtype=x.dtype)
    v[:n] = x[:n]
    return v.reshape(-1, 32)


@ref("warp_vote")
def _vote(L):
    n = L.s(2)
    v = _lanes(L, L.a(0), n, -1).astype(np.int64)  # (warps, 32)
    lane_bits = (np.uint64(1) << np.arange(32, dtype=np.uint64))
    ballot = ((v > 0).astype(np.uint64) * lane_bits).sum(axis=1).astype(np.uint32)
    allv = (v > -100).all(axis=1).astype(np.uint32)
    anyv = (v > 120).any(axis=1).astype(np.uint32)
    key = v & 7
    same = key[:, :, None] == key[:, None, :]  # [w, lane, other]
    match_any = (same.astype(np.uint64) * lane_bits[None, None, :]).sum(axis=2).astype(np.uint32)
    radd = (v & 0xFF).sum(axis=1).astype(np.uint32)
    rmax = (v & 0xFF).max(axis=1).astype(np.uint32)
    rmin = v.min(axis=1).astype(np.int32).view(np.uint32)
    k256 = v & 0x100
    match_all = np.where((k256 == k256[:, :1]).all(axis=1), np.uint32(0xFFFFFFFF), np.uint32(0))
    W = v.shape[0]
    per_warp = [ballot, allv, anyv, None, radd, rmax, rmin, match_all]
    res = np.zeros((W, 32, 8), np.uint32)
    for k, col in enumerate(per_warp):
        if col is not None:
            res[:, :, k] = col[:, None]
    res[:, :, 3] = match_any
    out = L.a(1).copy()
    out[:8 * n] = res.reshape(-1, 8)[:n].reshape(-1)
    return {1: Expect(out, exact("warp votes and integer reductions"))}


@ref("warp_shuffles")
def _shuffles(L):
    n = L.s(2)
    v = _lanes(L, L.a(0), n, np.float32(0))
    lane = np.arange(32)
    src = [lane ^ 5,
           np.where(lane >= 3, lane - 3, lane),
           np.where(lane % 16 + 7 < 16, lane + 7, lane),
           (lane * 7 + 3) & 31,
           (2 * lane + 1) % 8 + (lane // 8) * 8]
    res = np.stack([v[:, s] for s in src], axis=2)  # (warps, 32, 5)
    out = L.a(1).copy()
    out[:5 * n] = res.reshape(-1, 5)[:n].reshape(-1)
    return {1: Expect(out, exact("shuffles move data"))}


@ref("reverse_dynsmem")
def _reverse(L):
    n = L.s(2)
    bd = L.block[0]
    x = L.a(0)
    out = L.a(1).copy()
    for base in range(0, n, bd):
        cnt = min(bd, n - base)
        out[base:base + cnt] = x[base:base + cnt][::-1]
    return {1: Expect(out, exact("data movement"))}


# ------------------------------------------------------------------------------- compute, latency


def fma32(a, b, c):
    """fp32 FMA via fp64: a*b is exact in fp64; the sum rounds twice only in rare cases (covered by tol)."""
    return f32(a.astype(np.float64) * np.float64(b) + np.float64(c))


@ref("fma_chain")
def _fma_chain(L):
    iters, a, b = L.s(1), np.float32(L.s(2)), np.float32(L.s(3))
    T = L.threads
    x = f32((np.arange(T) & 1023).astype(np.float32) * np.float32(1.0 / 1024.0))
    for _ in range(iters):
        x = fma32(x, a, b)
    out = L.f(0).copy()
    out[:T] = x
    return {0: Expect(out, Tol(0.0, 4 * ULP32, "fp32 FMA chain replayed through fp64 (rare double rounding, 1 ulp), "
                                               "contracting map |a| < 1: 4 ulp"))}


@ref("fma_chain_ilp4")
def _fma_chain4(L):
    iters, a, b = L.s(1), np.float32(L.s(2)), np.float32(L.s(3))
    T = L.threads
    x0 = f32((np.arange(T) & 1023).astype(np.float32) * np.float32(1.0 / 1024.0))
    xs = [x0, f32(x0 + np.float32(0.25)), f32(x0 + np.float32(0.5)), f32(x0 + np.float32(0.75))]
    for _ in range(iters // 4):
        xs = [fma32(x, a, b) for x in xs]
    r = f32(f32(xs[0] + xs[1]) + f32(xs[2] + xs[3]))
    out = L.f(0).copy()
    out[:T] = r
    return {0: Expect(out, Tol(0.0, 8 * ULP32, "four FMA chains as in fma_chain (4 ulp each) and 3 fp32 adds"))}


@ref("pointer_chase")
def _chase(L):
    steps, n = L.s(2), L.s(3)
    nxt = L.a(0).astype(np.int64)
    T = L.threads
    j = np.arange(T) % n
    for _ in range(steps):
        j = nxt[j]
    out = L.a(1).copy()
    out[:T] = j.astype(np.uint32)
    return {1: Expect(out, exact("index chasing"))}


# ------------------------------------------------------------------------------------- comparison


def compare(got, exp: Expect, etype: str):
    """-> (ok, max_abs_err, max_rel_err, n_bad, first_bad_index)"""
    if etype in ("i32", "u32", "i64", "u8"):
        g = np.asarray(got).astype(np.int64)
        e = np.asarray(exp.values).astype(np.int64)
        diff = np.abs(g - e)
        bad = diff != 0
        mx = int(diff.max()) if diff.size else 0
        rel = float((diff / np.maximum(np.abs(e), 1)).max()) if diff.size else 0.0
    else:
        g = as_float64(np.asarray(got), etype)
        e = np.asarray(exp.values, dtype=np.float64)
        nan_e, nan_g = np.isnan(e), np.isnan(g)
        inf_mismatch = (np.isinf(e) | np.isinf(g)) & ~(nan_e | nan_g) & (e != g)
        with np.errstate(invalid="ignore"):
            diff = np.abs(g - e)
        finite = np.isfinite(e) & np.isfinite(g)
        diff = np.where(finite, diff, 0.0)
        atol = np.broadcast_to(np.asarray(exp.tol.atol, dtype=np.float64), e.shape)
        with np.errstate(invalid="ignore"):
            allowed = atol + exp.tol.rtol * np.where(finite, np.abs(e), 0.0)
        bad = (nan_e != nan_g) | inf_mismatch | (finite & (diff > allowed))
        mx = float(diff.max()) if diff.size else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            relv = np.where(finite & (np.abs(e) > 0), diff / np.abs(e), 0.0)
        rel = float(relv.max()) if relv.size else 0.0
    nbad = int(bad.sum())
    first = int(np.argmax(bad)) if nbad else -1
    return nbad == 0, mx, rel, nbad, first


def run_reference(spec: dict, args: list):
    """-> {arg_index: Expect} for the spec's kernel; KeyError if no reference exists."""
    fn = REFS[spec["kernel"]]
    return fn(Launch(spec, args))


def has_reference(kernel: str) -> bool:
    return kernel in REFS


# ------------------------------------------------------------------------ HIP corpus (wave64, MFMA)
# References for the kernels only the HIP corpus has (tests/kernels/hip). They register in HIP_REFS,
# not REFS, so the CUDA corpus's self-test (every reference must have a CUDA spec) is unaffected;
# tests/kernels/check_hip_corpus.py merges them before running the checker on the HIP specs.

HIP_REFS = {}


def hip_ref(*names):
    def deco(fn):
        for n in names:
            HIP_REFS[n] = fn
        return fn

    return deco


def _waves(L, x, n, fill):
    """Per-thread values in launch order, threads past n set to `fill`, as (waves, 64)."""
    T = L.threads
    v = np.full(T, fill, dtype=x.dtype)
    v[:n] = x[:n]
    return v.reshape(-1, 64)


@hip_ref("wave_vote")
def _wave_vote(L):
    n = L.s(2)
    v = _waves(L, L.a(0), n, -1).astype(np.int64)  # (waves, 64)
    lane = np.arange(64, dtype=np.uint64)
    bits = np.uint64(1) << lane

    def ballot(pred):
        return (pred.astype(np.uint64) * bits).sum(axis=1, dtype=np.uint64)

    b = ballot(v > 0)
    res = np.zeros((v.shape[0], 64, 8), np.uint32)
    res[:, :, 0] = (b & np.uint64(0xFFFFFFFF)).astype(np.uint32)[:, None]
    res[:, :, 1] = (b >> np.uint64(32)).astype(np.uint32)[:, None]
    res[:, :, 2] = (v > -100).all(axis=1).astype(np.uint32)[:, None]
    res[:, :, 3] = (v > 120).any(axis=1).astype(np.uint32)[:, None]
    res[:, :, 4] = np.array([bin(int(x)).count("1") for x in ballot((v & 1) != 0)], np.uint32)[:, None]
    res[:, :, 5] = np.arange(64, dtype=np.uint32)[None, :]
    below = np.cumsum(v > 0, axis=1) - (v > 0)  # lanes below this one with v > 0
    res[:, :, 6] = below.astype(np.uint32)
    res[:, :, 7] = (v & 0xFF).max(axis=1).astype(np.uint32)[:, None]
    out = L.a(1).copy()
    out[:8 * n] = res.reshape(-1, 8)[:n].reshape(-1)
    return {1: Expect(out, exact("wave ballots, votes, counts and an integer maximum"))}


@hip_ref("wave_shuffles")
def _wave_shuffles(L):
    n = L.s(2)
    v = _waves(L, L.a(0), n, np.float32(0))
    lane = np.arange(64)
    src = [lane ^ 37,
           np.where(lane >= 3, lane - 3, lane),
           np.where(lane % 16 + 7 < 16, lane + 7, lane),
           (lane * 7 + 3) & 63,
           (lane // 8) * 8 + (2 * lane + 1) % 8]
    res = np.stack([v[:, s] for s in src], axis=2)  # (waves, 64, 5)
    out = L.a(1).copy()
    out[:5 * n] = res.reshape(-1, 5)[:n].reshape(-1)
    return {1: Expect(out, exact("shuffles move data"))}


@hip_ref("scan_wave_f32")
def _scan_wave(L):
    x, n = L.a(0), L.s(2)
    bd, nblk = L.block[0], L.grid[0]
    nw = bd // 64
    padded = np.zeros(nblk * bd, np.float32)
    padded[:n] = x[:n]
    v = hillis_steele_f32(padded.reshape(nblk, nw, 64))
    totals = np.zeros((nblk, 64), np.float32)
    totals[:, :nw] = v[:, :, 63]
    tscan = hillis_steele_f32(totals)
    v[:, 1:, :] = v[:, 1:, :] + tscan[:, :nw - 1, None]
    out = L.a(1).copy()
    out[:n] = v.reshape(-1)[:n]
    return {1: Expect(out, exact("replays the kernel's fp32 order: 64-lane wave scan, scan of wave totals, add"))}


def _mfma_dims(L):
    return L.s(3), L.s(4), L.s(5)


@hip_ref("mfma_gemm_f16", "mfma_gemm_bf16")
def _mfma_half(L):
    return _tensor_gemm(L, 0, 1, 2, 3)


@hip_ref("mfma_gemm_f32", "mfma_gemm_f32_32")
def _mfma_f32(L):
    M, N, K = _mfma_dims(L)
    A = L.f(0)[:M * K].reshape(M, K)
    B = L.f(1)[:K * N].reshape(K, N)
    C = L.f(2).copy()
    C[:M * N] = (A @ B).reshape(-1)
    bound = np.zeros_like(C)
    bound[:M * N] = ((K + 2) * 2.0 * U32 * (np.abs(A) @ np.abs(B))).reshape(-1)
    return {2: Expect(C, Tol(bound, 0.0, "fp32 products and sums of K terms in the matrix core's order: "
                                         "<= (K+2) 2 u32 |A||B|"))}


@hip_ref("mfma_gemm_f64")
def _mfma_f64(L):
    M, N, K = _mfma_dims(L)
    A = L.f(0)[:M * K].reshape(M, K)
    B = L.f(1)[:K * N].reshape(K, N)
    C = L.f(2).copy()
    C[:M * N] = (A @ B).reshape(-1)
    bound = np.zeros_like(C)
    bound[:M * N] = ((K + 2) * U64 * (np.abs(A) @ np.abs(B))).reshape(-1)
    return {2: Expect(C, Tol(bound, 0.0, "fp64 dot products of K terms (FMA chain): <= (K+2) u64 |A||B|"))}


@hip_ref("mfma_gemm_i8")
def _mfma_i8(L):
    M, N, K = _mfma_dims(L)
    A = L.a(0)[:M * K].view(np.int8).astype(np.int64).reshape(M, K)
    B = L.a(1)[:K * N].view(np.int8).astype(np.int64).reshape(K, N)
    C = L.a(2).copy()
    C[:M * N] = (A @ B).reshape(-1).astype(np.int32)
    return {2: Expect(C, exact("int8 x int8 products summed in int32"))}


@hip_ref("mfma_gemm_fp8")
def _mfma_fp8(L):
    M, N, K = _mfma_dims(L)
    A = L.f(0)[:M * K].reshape(M, K)
    B = L.f(1)[:K * N].reshape(K, N)
    assert np.all(A == np.round(A)) and np.all(np.abs(A) <= 16) and np.all(B == np.round(B)) and np.all(np.abs(B) <= 16)
    C = L.f(2).copy()
    C[:M * N] = (A @ B).reshape(-1)
    return {2: Expect(C, exact("integers |x| <= 16 convert to e4m3 exactly; integer sums below 2^24 are exact"))}


# ------------------------------------------------------------- HIP instruction coverage (coverage.hip)

_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1


def _s64(v):
    v &= _M64
    return v - (1 << 64) if v >> 63 else v


def _cdiv_trunc(a, b):
    """C integer division (rounds toward zero) on Python ints."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@hip_ref("cov_int")
def _cov_int(L):
    n = L.s(4)
    a, b = L.a(0), L.a(1)
    o, u = L.a(2).copy(), L.a(3).copy()
    for i in range(n):
        x, y = int(a[i]), int(b[i]) | 1
        q = _cdiv_trunc(x, y)
        xu, yu = x & _M64, y & _M64
        d = (y & 0x7FFFFFFF) | 1
        clz = 64 - xu.bit_length()
        ffs = (xu & -xu).bit_length()
        o[8 * i:8 * i + 8] = [q, x - q * y, _s64(xu // d), bin(xu).count("1") + clz + ffs, x >> (y & 63),
                              xu >> (y & 31), _s64((xu * yu) >> 64), _s64((x * x) >> 64)]
        first = int(b[(i // 64) * 64]) | 1  # readfirstlane: the wave's first lane (every wave's first lane is < n)
        r = y - _cdiv_trunc(y, 13) * 13
        u[4 * i:4 * i + 4] = [(y & _M32) // 7, r & _M32, first & _M32, (min(y, 5) * max(y, -3)) & _M32]
    return {2: Expect(o, exact("64-bit integer division (C truncation), remainder, shifts, bit counts, high halves")),
            3: Expect(u, exact("32-bit unsigned division, signed remainder, readfirstlane, min*max with wrap"))}


@hip_ref("cov_atomics")
def _cov_atomics(L):
    n = L.s(4)
    bd, nb = L.block[0], L.grid[0]
    f, c, u, d = L.a(0).copy(), L.a(1).copy(), L.a(2).copy(), L.a(3).copy()
    idx = list(range(n))
    f[0] = max([float(f[0])] + [float(i) for i in idx])
    f[1] = min([float(f[1])] + [-float(i) for i in idx])
    f[2] = float(f[2]) + n  # LDS float counters (+1.0 each, small integers: exact), summed into f[2]
    cv = [int(v) for v in c]
    uv = [int(v) for v in u]
    block_terms = 0
    for blk in range(nb):
        ids = [i for i in range(blk * bd, (blk + 1) * bd) if i < n]
        si = [0, 0, 0, 0]
        for i in ids:
            si[0] = max(si[0], i)
            si[1] = min(si[1], -i)
            si[2] = 7
            si[3] = 1 if si[3] == 0 else si[3]
        block_terms += sum(si)
    for i in idx:
        cv[0] = 42
        cv[1] = 7 if cv[1] == 0 else cv[1]
        uv[0] = 0 if uv[0] >= 100 else uv[0] + 1                      # atomicInc wraps at 100
        uv[1] = 50 if (uv[1] == 0 or uv[1] > 50) else uv[1] - 1       # atomicDec wraps at 0 / above 50
        cv[2] -= 3
        cv[3] &= ~(1 << (i & 31))
        cv[4] |= 1 << (i & 31)
        cv[5] ^= i
    cv[6] += block_terms
    c[:] = np.array([((v + (1 << 31)) & _M32) - (1 << 31) for v in cv], np.int64).astype(np.int32)
    u[:] = np.array(uv, np.uint32)
    d[0] = float(d[0]) + 0.5 * n
    return {0: Expect(f, exact("float max/min of integers; LDS counts of 1.0 summed (small integers, exact)")),
            1: Expect(c, exact("integer atomics: the results do not depend on the order (exch and CAS write one "
                                "value)")),
            2: Expect(u, exact("inc/dec with wrap-around: a cyclic counter, order-independent")),
            3: Expect(d, exact("sums of 0.5 below 2^53: exact"))}


@hip_ref("cov_math")
def _cov_math(L):
    n = L.s(6)
    v = L.a(0)[:n]
    vd = v.astype(np.float64)
    w = L.a(1)[:n].astype(np.float64)

    def p32(x):  # an fp32 expression evaluated in fp32, as float64
        return np.asarray(x, np.float32).astype(np.float64)

    av = np.abs(vd)
    s, co = np.sin(vd), np.cos(vd)
    x10 = p32(v * np.float32(10))
    rnd = np.sign(p32(v * np.float32(5))) * np.floor(np.abs(p32(v * np.float32(5))) + 0.5)
    ints = np.floor(p32(v * np.float32(7))) + np.ceil(p32(v * np.float32(3))) + rnd + np.trunc(p32(v * np.float32(11)))
    cols = [  # (expected, atol) per column
        (av ** p32(np.float32(1.3)), 4),
        (np.array([math.erf(t) for t in vd]), 4),
        (np.cbrt(vd), 4),
        (np.arctan2(vd, p32(np.float32(0.7))), 4),
        (np.fmod(x10, 3.0), 0),
        (ints, 0),
        (np.rint(p32(v * np.float32(100))), 0),
        (np.log1p(av), 4),
        (np.expm1(vd), 4),
        (np.hypot(vd, 2.0), 4),
        (s + co, 4),
        (vd / (vd * vd + 0.5), 4),
    ]
    res = np.stack([c[0] for c in cols], axis=1)
    ulps = np.array([c[1] for c in cols], np.float64)
    scale = np.abs(res)
    scale[:, 10] = np.maximum(np.abs(s), np.abs(co))  # sin + cos can cancel: ulps of the terms
    o = L.f(2).copy()
    o[:12 * n] = res.reshape(-1)
    to = np.zeros_like(o)
    to[:12 * n] = (scale * ulps[None, :] * ULP32).reshape(-1)
    cols64 = [w / (w * w + 0.25), np.abs(w) ** 0.7, np.tanh(w), np.cbrt(w), np.fmod(w * 9.0, 2.5), np.trunc(w * 1e6)]
    ulps64 = np.array([4, 4, 4, 4, 0, 0], np.float64)
    r64 = np.stack(cols64, axis=1)
    od = L.f(3).copy()
    od[:6 * n] = r64.reshape(-1)
    td = np.zeros_like(od)
    td[:6 * n] = (np.abs(r64) * ulps64[None, :] * ULP64).reshape(-1)
    hv = v.astype(np.float16).astype(np.float64)
    h = L.f(4).copy()
    h[0:2 * n:2] = h16(hv * hv + 0.25)  # one rounding: hv*hv + 1/4 is exact in fp64
    sq = np.sqrt(np.abs(hv))
    h[1:2 * n:2] = h16(sq)
    th = np.zeros_like(h)
    th[1:2 * n:2] = np.abs(sq) * 2 * U16
    bb = as_float64(L.a(5), "bf16")
    bb[0:2 * n:2] = as_float64(_f32_to_bf16_bits(v * np.float32(3.3)), "bf16")
    b1 = as_float64(_f32_to_bf16_bits(v), "bf16").astype(np.float32)
    b2 = as_float64(_f32_to_bf16_bits(w.astype(np.float32)), "bf16").astype(np.float32)
    bb[1:2 * n:2] = as_float64(_f32_to_bf16_bits(b1 + b2), "bf16")
    return {2: Expect(o, Tol(to, 0.0, "fp32: rounding functions, fmod, rint exact (operands replayed in fp32); "
                                      "powf/erff/cbrtf/atan2f/log1pf/expm1f/hypotf/sincosf/division within 4 ulp "
                                      "(ocml bounds 1-4 ulp); sin+cos in ulps of the larger term")),
            3: Expect(od, Tol(td, 0.0, "fp64: fmod and truncation exact; division, pow, tanh, cbrt within 4 ulp")),
            4: Expect(h, Tol(th, 0.0, "f16 fma rounds once (exact); hsqrt within 1 f16 ulp")),
            5: Expect(bb, exact("bf16: the fp32 product rounded to nearest even; bf16 add as fp32 add then "
                                "round to nearest even, replayed"))}


@hip_ref("cov_wave")
def _cov_wave(L):
    n = L.s(2)
    v = _waves(L, L.a(0), n, np.float32(0))
    lane = np.arange(64)
    res = np.stack([v[:, lane ^ 2], v[:, lane ^ 1], v[:, lane ^ 3], v], axis=2)
    o = L.a(1).copy()
    o[:4 * n] = res.reshape(-1, 4)[:n].reshape(-1)
    return {1: Expect(o, exact("DPP quad_perm [2,3,0,1], ds_swizzle xor 1, 64-bit shfl_xor 3, value + 0*row_shr"))}


@hip_ref("cov_misc")
def _cov_misc(L):
    n = L.s(2)
    x = L.a(0)
    bd, nb = L.block[0], L.grid[0]
    T = bd * nb
    v = np.zeros(T, np.float32)
    v[:n] = x[:n]
    vb = v.reshape(nb, bd)
    w = np.roll(vb, -1, axis=1).reshape(-1)                    # dyn[(t + 1) % blockDim]
    vw = v.reshape(-1, 64)
    s = np.concatenate([vw[:, 1:], vw[:, 63:]], axis=1).reshape(-1)  # __shfl_down 1: the last lane keeps its own
    cnt = np.repeat((vb > 100).sum(axis=1), bd)
    votes = np.repeat((vb >= 0).all(axis=1) * 2 + (vb > 200).any(axis=1), bd)
    i = np.arange(T)
    fr, e = np.frexp(v + np.float32(1))
    c6 = f32(f32(fr * np.float32(100)) + e.astype(np.float32))
    p = f32(v * np.float32(0.37))
    fp, ip = np.modf(p)
    c7 = f32(fp + f32(ip * np.float32(10)))
    q = f32(v * np.float32(0.01)).astype(np.float64)
    sp, cp = np.sin(np.pi * q), np.cos(np.pi * q)
    ncdf = np.array([0.5 * math.erfc(-t / math.sqrt(2.0)) for t in q])
    vd = v.astype(np.float64)
    cols = np.stack([f32(w + s), np.full(T, 64.0), np.ones(T), x[i % n], cnt, votes, c6, c7, sp + cp, ncdf,
                     1.0 / np.sqrt(vd * vd + 5.0), i + (i + 2) // 2], axis=1).astype(np.float64)
    tol = np.zeros_like(cols)
    tol[:, 8] = 4 * ULP32 * np.maximum(np.abs(sp), np.abs(cp))
    tol[:, 9] = 4 * ULP32 * np.abs(ncdf)
    tol[:, 10] = 4 * ULP32 * np.abs(cols[:, 10])
    out = L.f(1).copy()
    out[:12 * n] = cols[:n].reshape(-1)
    t = np.zeros_like(out)
    t[:12 * n] = tol[:n].reshape(-1)
    return {1: Expect(out, Tol(t, 0.0, "data movement, votes, frexp/modf and integer results exact (fp32 "
                                       "arithmetic replayed); sincospi, normcdf and rnorm3d within 4 ulp"))}
