"""Self-test of reference.py without a simulator or a GPU.

Each reference is checked two ways:
  1. against an independent, literal emulation of the CUDA kernel: plain Python loops over
     blocks and threads that follow the kernel's code line by line (shared-memory phases between
     __syncthreads, lanes of a warp for shuffles and votes). The emulation is written from the
     .cu source, not from the reference; they share only the input arrays. Where the reference
     claims bit-exactness (replayed fp32 order), the emulation computes in np.float32 scalars and
     must agree bit for bit; elsewhere it computes in Python floats (fp64) and must land inside
     the reference's tolerance.
  2. on tiny hand-computed cases (collatz(27) = 111 steps, popc/clz/brev/ffs of chosen words,
     a 2x3 transpose, a 2x2 GEMM, softmax of [0, ln 3], ...).
It also checks that the comparison can fail: every reference's expectation, perturbed by more
than its tolerance, must be rejected.

Inputs come from launch_inputs.py, the numpy port of kernsim's buffer initialisation.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "calibration", "validation"))

import launch_inputs as li  # noqa: E402
import reference as R  # noqa: E402

F = np.float32


def f32s(x):
    return float(np.float32(x))


# --------------------------------------------------------------------------- literal emulations
# Each takes (L) and returns {arg_index: array of outputs} (full buffers, float64 or ints).

EMU = {}


def emu(*names):
    def deco(fn):
        for n in names:
            EMU[n] = fn
        return fn

    return deco


def threads_1d(L):
    for b in range(L.grid[0]):
        for t in range(L.block[0]):
            yield b, t, b * L.block[0] + t


@emu("copy_f32")
def e_copy(L):
    x, out, n = L.a(0), L.a(1).copy(), L.s(2)
    for _, _, i in threads_1d(L):
        if i < n:
            out[i] = x[i]
    return {1: out}


@emu("copy_f32x4")
def e_copy4(L):
    x, out, n = L.a(0), L.a(1).copy(), L.s(2)
    for _, _, i in threads_1d(L):
        base = 4 * i
        if base + 3 < n:
            out[base:base + 4] = x[base:base + 4]
        else:
            for j in range(base, n):
                out[j] = x[j]
    return {1: out}


@emu("scale_f32")
def e_scale(L):
    x, out, q, n = L.a(0), L.a(1).copy(), F(L.s(2)), L.s(3)
    for _, _, i in threads_1d(L):
        if i < n:
            out[i] = q * x[i]
    return {1: out}


@emu("triad_f32", "triad_f32x4")
def e_triad(L):
    b, c, a, q, n = L.f(0), L.f(1), L.f(2).copy(), f32s(L.s(3)), L.s(4)
    vec = L.spec["kernel"].endswith("x4")
    for _, _, i in threads_1d(L):
        idx = range(4 * i, min(4 * i + 4, n)) if vec else ([i] if i < n else [])
        for j in idx:
            a[j] = b[j] + q * c[j]
    return {2: a}


@emu("saxpy_grid_stride")
def e_saxpy(L):
    n, a, x, y = L.s(0), f32s(L.s(1)), L.f(2), L.f(3).copy()
    stride = L.grid[0] * L.block[0]
    for _, _, i in threads_1d(L):
        while i < n:
            y[i] = a * x[i] + y[i]
            i += stride
    return {3: y}


@emu("vec_add_tu")
def e_vadd(L):
    a, b, c, n = L.a(0), L.a(1), L.a(2).copy(), L.s(3)
    for _, _, i in threads_1d(L):
        if i < n:
            c[i] = a[i] + b[i]
    return {2: c}


@emu("reduce_atomic_f32")
def e_ratomic(L):
    x, n = L.a(0), L.s(2)
    acc = F(L.a(1)[0])
    for _, _, i in threads_1d(L):
        if i < n:
            acc = F(acc + x[i])  # one possible atomic order: thread order
    return {1: np.array([acc], np.float32)}


@emu("reduce_shared_f32")
def e_rshared(L):
    x, out, n = L.a(0), L.a(1).copy(), L.s(2)
    bd = L.block[0]
    for b in range(L.grid[0]):
        s = [F(0)] * bd
        for t in range(bd):
            i = b * (bd * 2) + t
            v = F(0)
            if i < n:
                v = x[i]
            if i + bd < n:
                v = F(v + x[i + bd])
            s[t] = v
        stride = bd // 2
        while stride > 0:
            for t in range(stride):
                s[t] = F(s[t] + s[t + stride])
            stride //= 2
        out[b] = s[0]
    return {1: out}


def warp_sum_down(vals):
    """__shfl_down_sync tree over 32 lanes; lanes past the end keep their own value."""
    v = list(vals)
    off = 16
    while off > 0:
        v = [v[l] + (v[l + off] if l + off < 32 else v[l]) for l in range(32)]
        off //= 2
    return v[0]


@emu("reduce_shuffle_f32")
def e_rshuffle(L):
    x, n = L.f(0), L.s(2)
    bd, G = L.block[0], L.grid[0]
    total = L.f(1)[0]
    for b in range(G):
        per = []
        for t in range(bd):
            i, v = b * bd + t, 0.0
            while i < n:
                v += x[i]
                i += G * bd
            per.append(v)
        nw = (bd + 31) // 32
        sums = [warp_sum_down(per[w * 32:(w + 1) * 32] + [0.0] * (32 - len(per[w * 32:(w + 1) * 32]))) for w in range(nw)]
        total += warp_sum_down(sums + [0.0] * (32 - nw))
    return {1: np.array([total])}


@emu("reduce_minmax_i32")
def e_minmax(L):
    x, n = L.a(0), L.s(2)
    lo, hi = int(L.a(1)[0]), int(L.a(1)[1])
    bd, G = L.block[0], L.grid[0]
    for _, _, i in threads_1d(L):
        while i < n:
            lo, hi = min(lo, int(x[i])), max(hi, int(x[i]))
            i += G * bd
    return {1: np.array([lo, hi], np.int32)}


@emu("dot_f64")
def e_dot(L):
    x, y, n = L.f(0), L.f(1), L.s(3)
    return {2: np.array([L.f(2)[0] + math.fsum(x[i] * y[i] for i in range(n))])}


@emu("cub_block_sum_f32", "cg_tile_sum_f32")
def e_group_sum(L):
    x, out, n = L.f(0), L.f(1).copy(), L.s(2)
    size = 128 if L.spec["kernel"] == "cub_block_sum_f32" else 16
    for b, t, i in threads_1d(L):
        if i % size == 0:
            out[i // size] = sum(x[j] if j < n else 0.0 for j in range(i, i + size))
    return {1: out}


@emu("_Z11block_sum_tIfLi256EEvPKT_PS0_i", "_Z11block_sum_tIiLi128EEvPKT_PS0_i")
def e_tsum(L):
    x, out, n = L.a(0), L.a(1).copy(), L.s(2)
    bd = L.block[0]
    T = np.float32 if x.dtype == np.float32 else np.int32
    for b in range(L.grid[0]):
        s = [x[b * bd + t] if b * bd + t < n else T(0) for t in range(bd)]
        stride = bd // 2
        while stride > 0:
            for t in range(stride):
                s[t] = T(s[t] + s[t + stride])
            stride //= 2
        out[b] = s[0]
    return {1: out}


@emu("transpose_naive", "transpose_tiled", "transpose_tiled_padded")
def e_transpose(L):
    x, out, rows, cols = L.a(0), L.a(1).copy(), L.s(2), L.s(3)
    if L.spec["kernel"] == "transpose_naive":
        for by in range(L.grid[1]):
            for bx in range(L.grid[0]):
                for ty in range(L.block[1]):
                    for tx in range(L.block[0]):
                        c, r = bx * L.block[0] + tx, by * L.block[1] + ty
                        if r < rows and c < cols:
                            out[c * rows + r] = x[r * cols + c]
        return {1: out}
    for by in range(L.grid[1]):
        for bx in range(L.grid[0]):
            tile = [[None] * 32 for _ in range(32)]
            for ty in range(L.block[1]):
                for tx in range(32):
                    xx = bx * 32 + tx
                    for j in range(ty, 32, L.block[1]):
                        y = by * 32 + j
                        if xx < cols and y < rows:
                            tile[j][tx] = x[y * cols + xx]
            for ty in range(L.block[1]):
                for tx in range(32):
                    ox = by * 32 + tx
                    for j in range(ty, 32, L.block[1]):
                        oy = bx * 32 + j
                        if ox < rows and oy < cols:
                            out[oy * rows + ox] = tile[tx][j]
    return {1: out}


@emu("softmax_rows_block", "softmax_rows_warp")
def e_softmax(L):
    x, rows, cols = L.f(0), L.s(2), L.s(3)
    out = L.f(1).copy()
    for r in range(rows):
        row = [x[r * cols + c] for c in range(cols)]
        m = max(row)
        e = [math.exp(f32s(v - m)) for v in row]
        s = math.fsum(e)
        for c in range(cols):
            out[r * cols + c] = e[c] / s
    return {1: out}


@emu("layernorm_rows")
def e_layernorm(L):
    x, g, b, rows, cols, eps = L.f(0), L.f(1), L.f(2), L.s(4), L.s(5), f32s(L.s(6))
    y = L.f(3).copy()
    for r in range(rows):
        row = x[r * cols:(r + 1) * cols].tolist()
        mean = math.fsum(row) / cols
        var = math.fsum((v - mean) ** 2 for v in row) / cols
        rstd = 1.0 / math.sqrt(var + eps)
        for c in range(cols):
            y[r * cols + c] = (row[c] - mean) * rstd * g[c] + b[c]
    return {3: y}


@emu("rmsnorm_rows_warp")
def e_rmsnorm(L):
    x, w, rows, cols, eps = L.f(0), L.f(1), L.s(3), L.s(4), f32s(L.s(5))
    y = L.f(2).copy()
    for r in range(rows):
        row = x[r * cols:(r + 1) * cols].tolist()
        rr = 1.0 / math.sqrt(math.fsum(v * v for v in row) / cols + eps)
        for c in range(cols):
            y[r * cols + c] = row[c] * rr * w[c]
    return {2: y}


@emu("sgemm_naive", "sgemm_tiled", "sgemm_regblock")
def e_sgemm(L):
    M, N, K, alpha, beta = L.s(0), L.s(1), L.s(2), f32s(L.s(3)), f32s(L.s(6))
    A, B = L.f(4).tolist(), L.f(5).tolist()
    C = L.f(7).copy()
    for r in range(M):
        Ar = A[r * K:(r + 1) * K]
        for c in range(N):
            acc = 0.0
            for k in range(K):
                acc += Ar[k] * B[k * N + c]
            C[r * N + c] = alpha * acc + beta * C[r * N + c]
    return {7: C}


@emu("wmma_gemm_f16", "mma_gemm_f16")
def e_tensor(L):
    A, B = L.f(0).tolist(), L.f(1).tolist()
    M, N, K = L.s(3), L.s(4), L.s(5)
    C = L.f(2).copy()
    for r in range(M):
        for c in range(N):
            C[r * N + c] = math.fsum(A[r * K + k] * B[k * N + c] for k in range(K))
    return {2: C}


@emu("histogram_global", "histogram_shared")
def e_hist(L):
    data, n = L.a(0), L.s(2)
    h = [int(v) for v in L.a(1)]
    for i in range(n):
        h[int(data[i])] += 1
    return {1: np.array(h, np.uint32)}


@emu("scan_blelloch_i32")
def e_blelloch(L):
    x, out, sums, n = L.a(0), L.a(1).copy(), L.a(2).copy(), L.s(3)
    bd = L.block[0]
    m = 2 * bd
    for b in range(L.grid[0]):
        base = b * m
        temp = [int(x[base + k]) if base + k < n else 0 for k in range(m)]
        offset = 1
        d = m >> 1
        while d > 0:
            for tid in range(d):
                ai, bi = offset * (2 * tid + 1) - 1, offset * (2 * tid + 2) - 1
                temp[bi] += temp[ai]
            offset <<= 1
            d >>= 1
        sums[b] = temp[m - 1]
        temp[m - 1] = 0
        d = 1
        while d < m:
            offset >>= 1
            for tid in range(d):
                ai, bi = offset * (2 * tid + 1) - 1, offset * (2 * tid + 2) - 1
                t = temp[ai]
                temp[ai] = temp[bi]
                temp[bi] += t
            d <<= 1
        for k in range(m):
            if base + k < n:
                out[base + k] = temp[k]
    return {1: out, 2: sums}


@emu("scan_warp_f32")
def e_scanwarp(L):
    x, out, n = L.a(0), L.a(1).copy(), L.s(2)
    bd = L.block[0]
    nw = bd // 32

    def warp_scan(v):
        off = 1
        while off < 32:
            u = [v[l - off] if l >= off else v[l] for l in range(32)]  # shfl_up: lanes < off get their own
            v = [F(v[l] + u[l]) if l >= off else v[l] for l in range(32)]
            off <<= 1
        return v

    for b in range(L.grid[0]):
        vals = [x[b * bd + t] if b * bd + t < n else F(0) for t in range(bd)]
        warps = [warp_scan(vals[w * 32:(w + 1) * 32]) for w in range(nw)]
        totals = warp_scan([warps[w][31] if w < nw else F(0) for w in range(32)])
        for w in range(nw):
            for l in range(32):
                v = warps[w][l]
                if w > 0:
                    v = F(v + totals[w - 1])
                i = b * bd + w * 32 + l
                if i < n:
                    out[i] = v
    return {1: out}


@emu("stencil2d_5pt", "stencil2d_5pt_smem")
def e_st2(L):
    u, nx, ny, c0, c1 = L.a(0), L.s(2), L.s(3), f32s(L.s(4)), f32s(L.s(5))
    out = L.f(1).copy()
    for y in range(ny):
        for x in range(nx):
            i = y * nx + x
            if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
                out[i] = u[i]
            else:
                nb = F(F(F(u[i - 1] + u[i + 1]) + u[i - nx]) + u[i + nx])
                out[i] = c0 * float(u[i]) + c1 * float(nb)
    return {1: out}


@emu("stencil3d_7pt")
def e_st3(L):
    u, nx, ny, nz, c0, c1 = L.a(0), L.s(2), L.s(3), L.s(4), f32s(L.s(5)), f32s(L.s(6))
    out = L.f(1).copy()
    P = nx * ny
    for z in range(nz):
        for y in range(ny):
            for x in range(nx):
                i = z * P + y * nx + x
                if x in (0, nx - 1) or y in (0, ny - 1) or z in (0, nz - 1):
                    out[i] = u[i]
                else:
                    nb = u[i - 1]
                    for j in (i + 1, i - nx, i + nx, i - P, i + P):
                        nb = F(nb + u[j])
                    out[i] = c0 * float(u[i]) + c1 * float(nb)
    return {1: out}


@emu("spmv_csr_scalar", "spmv_csr_vector")
def e_spmv(L):
    rows, rp, ci, v, x = L.s(0), L.a(1), L.a(2), L.f(3), L.f(4)
    y = L.f(5).copy()
    for r in range(rows):
        y[r] = math.fsum(v[j] * x[ci[j]] for j in range(rp[r], rp[r + 1]))
    return {5: y}


@emu("collatz_steps")
def e_collatz(L):
    st, out, n, mx = L.a(0), L.a(1).copy(), L.s(2), L.s(3)
    for i in range(n):
        v, s = int(st[i]), 0
        while v > 1 and s < mx:
            v = (3 * v + 1) & 0xFFFFFFFF if v & 1 else v >> 1
            s += 1
        out[i] = s
    return {1: out}


@emu("piecewise_chain")
def e_piece(L):
    x, n = L.a(0), L.s(2)
    y = L.f(1).copy()
    for i in range(n):
        v = x[i]
        if v < F(-0.5):
            r = -1.0 - float(v) * float(v)
        elif v < F(0):
            r = F(F(2) * v)
        elif v < F(0.25):
            r = F(F(v * v) * v)
        elif v < F(0.75):
            r = F(math.sqrt(float(v)))  # correctly rounded: sqrt of an fp32 in fp64 then rounded once
        else:
            r = F(F(1) / v)
        y[i] = r
    return {1: y}


@emu("switch_ops")
def e_switch(L):
    op, a, b, n = L.a(0), L.a(1), L.a(2), L.s(4)
    out = L.f(3).copy()
    for i in range(n):
        x, y = a[i], b[i]
        o = int(op[i])
        if o == 0:
            r = F(x + y)
        elif o == 1:
            r = F(x - y)
        elif o == 2:
            r = F(x * y)
        elif o == 3:
            r = max(x, y)
        elif o == 4:
            r = min(x, y)
        elif o == 5:
            r = float(x) * float(x) + float(y)
        elif o == 6:
            r = abs(F(x - y))
        else:
            r = 0.0
        out[i] = r
    return {3: out}


@emu("call_noinline")
def e_call(L):
    x, c, deg, u, w, n = L.a(0), L.f(1), L.s(2), L.a(3), L.a(4), L.s(8)
    y, bk, g = L.f(5).copy(), L.a(6).copy(), L.a(7).copy()
    for i in range(n):
        v = float(x[i])
        r = c[deg]
        for k in range(deg - 1, -1, -1):
            r = r * v + c[k]
        y[i] = r
        # bucket_of(v, -1, 1, 16)
        if x[i] < F(-1):
            b = 0
        elif x[i] >= F(1):
            b = 15
        else:
            b = int(F(F(F(x[i] - F(-1)) / F(2)) * F(16)))
            b = min(b, 15)
        bk[i] = b
        a_, b_ = int(u[i]), int(w[i])
        while b_:
            a_, b_ = b_, a_ % b_
        g[i] = a_
    return {5: y, 6: bk, 7: g}


@emu("half_axpby")
def e_haxpby(L):
    x, yv, n = L.a(0), L.a(1), L.s(5)
    ha, hb = np.float16(L.s(3)), np.float16(L.s(4))
    out = L.f(2).copy()
    for i in range(n):
        out[i] = float(np.float16(np.float16(ha * x[i]) + np.float16(hb * yv[i])))  # unfused variant
    return {2: out}


@emu("half2_fma_relu")
def e_h2(L):
    x, w, b, n2 = L.f(0), L.f(1), L.f(2), L.s(4)
    out = L.f(3).copy()
    for i in range(2 * n2):
        r = float(np.float16(x[i] * w[i] + b[i]))
        out[i] = r if r > 0 else 0.0
    return {3: out}


@emu("bf16_mix")
def e_bf16(L):
    x, fv, s, n = L.f(0), L.f(1), f32s(L.s(4)), L.s(5)
    of, ob = L.f(2).copy(), R.as_float64(L.a(3), "bf16")

    def bf(v):  # round a float to bf16 (nearest even) through its fp32 bits
        b = int(np.array([v], np.float32).view(np.uint32)[0])
        b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
        return float(np.array([b << 16], np.uint32).view(np.float32)[0])

    for i in range(n):
        of[i] = x[i] * s + fv[i]
        ob[i] = bf(bf(x[i] * bf(s)) + bf(fv[i]))  # unfused variant
    return {2: of, 3: ob}


@emu("f16_roundtrip")
def e_f16rt(L):
    x, scale, n = L.a(0), F(L.s(3)), L.s(4)
    h, back = L.a(1).copy(), L.a(2).copy()
    for i in range(n):
        p = F(x[i] * scale)
        # round to f16 by hand: nearest even on the 11-bit significand, inf past 65520
        a = abs(float(p))
        if a >= 65520.0:
            q = math.inf
        elif a < 2.0 ** -14:
            q = round(a / 2.0 ** -24) * 2.0 ** -24  # subnormal grid; Python's round is half-to-even
        else:
            e = math.floor(math.log2(a))
            step = 2.0 ** (e - 10)
            q = round(a / step) * step
        q = math.copysign(q, float(p))
        h[i] = np.float16(q)
        back[i] = q
    return {1: h, 2: back}


@emu("bit_tricks")
def e_bits(L):
    a, b, n = L.a(0), L.a(1), L.s(3)
    out = L.a(2).copy()
    M = 0xFFFFFFFF
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        pair = (y << 32) | x
        sel = y & 0x7777
        by = [(x >> (8 * k)) & 0xFF for k in range(4)] + [(y >> (8 * k)) & 0xFF for k in range(4)]
        perm = sum(by[(sel >> (4 * k)) & 7] << (8 * k) for k in range(4))
        vals = [bin(x).count("1"),
                32 - x.bit_length(),
                int(format(x, "032b")[::-1], 2),
                ((pair << (y & 31)) >> 32) & M,
                (pair >> min(x >> 26, 32)) & M,
                perm,
                (x & -x).bit_length(),
                (x * y) >> 32]
        out[8 * i:8 * i + 8] = vals
    return {2: out}


@emu("math_f32")
def e_m32(L):
    x, n = L.a(0), L.s(2)
    out = L.f(1).copy()
    for i in range(n):
        v = x[i]
        av = abs(v)
        vals = [math.exp(v), math.log(F(av + F(1e-3))), math.sin(F(F(3) * v)), 1 / math.sqrt(F(av + F(0.01))),
                float(v) / (1.5 + float(v) * float(v)), math.sqrt(av), math.exp(v), math.tanh(v)]
        out[8 * i:8 * i + 8] = vals
    return {1: out}


@emu("math_f64")
def e_m64(L):
    x, n = L.f(0), L.s(2)
    out = L.f(1).copy()
    for i in range(n):
        v = x[i]
        out[6 * i:6 * i + 6] = [math.exp(v), math.log(abs(v) + 1e-3), math.sin(3.0 * v), math.sqrt(abs(v)),
                                1 / math.sqrt(abs(v) + 0.01), math.atan2(v, 0.5)]
    return {1: out}


def warps_of(L):
    T = L.threads
    for w in range(T // 32):
        yield w, [w * 32 + l for l in range(32)]


@emu("warp_vote")
def e_vote(L):
    x, n = L.a(0), L.s(2)
    out = L.a(1).copy()
    for _, ids in warps_of(L):
        v = [int(x[i]) if i < n else -1 for i in ids]
        ballot = sum(1 << l for l in range(32) if v[l] > 0)
        allv = int(all(t > -100 for t in v))
        anyv = int(any(t > 120 for t in v))
        radd = sum(t & 0xFF for t in v) & 0xFFFFFFFF
        rmax = max(t & 0xFF for t in v)
        rmin = min(v) & 0xFFFFFFFF
        mall = 0xFFFFFFFF if len({t & 0x100 for t in v}) == 1 else 0
        for l, i in enumerate(ids):
            if i < n:
                many = sum(1 << k for k in range(32) if (v[k] & 7) == (v[l] & 7))
                out[8 * i:8 * i + 8] = [ballot, allv, anyv, many, radd, rmax, rmin, mall]
    return {1: out}


@emu("warp_shuffles")
def e_shfl(L):
    x, n = L.a(0), L.s(2)
    out = L.a(1).copy()
    for _, ids in warps_of(L):
        v = [x[i] if i < n else F(0) for i in ids]
        for l, i in enumerate(ids):
            if i >= n:
                continue
            down = l + 7 if (l % 16) + 7 < 16 else l
            idx8 = (l // 8) * 8 + ((2 * l + 1) % 8)
            out[5 * i:5 * i + 5] = [v[l ^ 5], v[l - 3] if l >= 3 else v[l], v[down], v[(l * 7 + 3) & 31], v[idx8]]
    return {1: out}


@emu("reverse_dynsmem")
def e_rev(L):
    x, out, n = L.a(0), L.a(1).copy(), L.s(2)
    bd = L.block[0]
    for b in range(L.grid[0]):
        base = b * bd
        count = min(bd, n - base)
        stage = [x[base + t] for t in range(bd) if t < count]
        for t in range(bd):
            if t < count:
                out[base + t] = stage[count - 1 - t]
    return {1: out}


@emu("fma_chain", "fma_chain_ilp4")
def e_fma(L):
    iters, a, b = L.s(1), f32s(L.s(2)), f32s(L.s(3))
    out = L.f(0).copy()
    ilp = L.spec["kernel"].endswith("ilp4")
    for i in range(L.threads):
        x0 = f32s((i & 1023) / 1024.0)
        if not ilp:
            x = x0
            for _ in range(iters):
                x = f32s(x * a + b)
            out[i] = x
        else:
            xs = [x0, f32s(x0 + 0.25), f32s(x0 + 0.5), f32s(x0 + 0.75)]
            for _ in range(iters // 4):
                xs = [f32s(t * a + b) for t in xs]
            out[i] = f32s(f32s(xs[0] + xs[1]) + f32s(xs[2] + xs[3]))
    return {0: out}


@emu("pointer_chase")
def e_chase(L):
    nxt, steps, n = L.a(0), L.s(2), L.s(3)
    out = L.a(1).copy()
    for i in range(L.threads):
        j = i % n
        for _ in range(steps):
            j = int(nxt[j])
        out[i] = j
    return {1: out}


# ------------------------------------------------------------------------------ hand-made cases


def fake_launch(kernel, grid, block, args):
    """A Launch from literal arguments: ('f32', array) buffers or ('i32', value) scalars."""
    spec_args, vals = [], []
    for t, v in args:
        if isinstance(v, (list, np.ndarray)):
            dtype = li.ELEM[t][0]
            spec_args.append({"buffer": t, "count": len(v)})
            vals.append(np.array(v, dtype=dtype))
        else:
            spec_args.append({"type": t, "value": v})
            vals.append(li.SCALAR[t](v))
    spec = {"kernel": kernel, "grid": grid, "block": block, "args": spec_args}
    return R.Launch(spec, vals)


def hand_cases():
    """[(name, got_dict_from_reference, {arg: expected list}, exact?)]"""
    cases = []

    def run(kernel, grid, block, args):
        L = fake_launch(kernel, grid, block, args)
        return {k: v.values for k, v in R.REFS[kernel](L).items()}

    r = run("collatz_steps", [1], [32], [("u32", [27, 1, 6, 7, 97]), ("u32", [0] * 5), ("i32", 5), ("u32", 1000)])
    cases.append(("collatz 27,1,6,7,97 -> 111,0,8,16,118", r[1], [111, 0, 8, 16, 118]))
    r = run("collatz_steps", [1], [32], [("u32", [27]), ("u32", [0]), ("i32", 1), ("u32", 10)])
    cases.append(("collatz capped at max_steps", r[1], [10]))
    r = run("bit_tricks", [1], [32], [("u32", [0, 1, 0xF0F0, 0x80000000, 0xFFFFFFFF]),
                                       ("u32", [0, 4, 0x7654, 1, 0xFFFFFFFF]), ("u32", [0] * 40), ("i32", 5)])
    o = r[2].reshape(5, 8).tolist()
    cases.append(("bits of 0 (b=0)", o[0], [0, 32, 0, 0, 0, 0, 0, 0]))
    # x=1, y=4: funnelshift_l(1, 4, 4) = top 32 of (4<<32 | 1) << 4 = 0x40; funnelshift_rc(1, 4, 0) = 1;
    # byte_perm(1, 4, 4): result byte0 = byte 4 (= y's low byte 4), bytes 1..3 = byte 0 of x (1) -> 0x01010104
    cases.append(("bits of 1 (b=4)", o[1], [1, 31, 0x80000000, 0x40, 1, 0x01010104, 1, 0]))
    # x=0xF0F0, y=0x7654: sel 0x7654 -> bytes [4,5,6,7] = y itself = 0x00007654; shift y&31 = 20:
    # (0x7654<<32 | 0xF0F0) << 20 >> 32 = 0x7654 << 20 | 0xF0F0 >> 12 = 0x6540000F (mod 2^32)
    cases.append(("bits of 0xF0F0 (b=0x7654)", o[2], [8, 16, 0x0F0F0000, 0x6540000F, 0xF0F0, 0x00007654, 5, 0]))
    # x=0x80000000, y=1: funnelshift_l shift 1 -> 3; funnelshift_rc shift = min(x>>26 = 32, 32) = 32 -> hi
    # word = 1; byte_perm selector 1 picks x's byte 1 (0) then x's byte 0 (0) -> 0
    cases.append(("bits of 0x80000000 (b=1)", o[3], [1, 0, 1, 3, 1, 0, 32, 0]))
    cases.append(("bits of 0xFFFFFFFF (b=0xFFFFFFFF)", o[4],
                  [32, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 1, 0xFFFFFFFE]))
    r = run("transpose_naive", [1, 1], [16, 16], [("f32", [1, 2, 3, 4, 5, 6]), ("f32", [0] * 6), ("i32", 2), ("i32", 3)])
    cases.append(("transpose [[1,2,3],[4,5,6]]", r[1], [1, 4, 2, 5, 3, 6]))
    r = run("sgemm_naive", [1, 1], [16, 16], [("i32", 2), ("i32", 2), ("i32", 2), ("f32", 2.0), ("f32", [1, 2, 3, 4]),
                                              ("f32", [5, 6, 7, 8]), ("f32", 1.0), ("f32", [1, 1, 1, 1])])
    cases.append(("sgemm 2*[[1,2],[3,4]][[5,6],[7,8]] + 1", r[7], [39, 45, 87, 101]))
    r = run("softmax_rows_block", [1], [32], [("f32", [0.0, math.log(3.0)]), ("f32", [0, 0]), ("i32", 1), ("i32", 2)])
    cases.append(("softmax [0, ln 3]", r[1], [0.25, 0.75]))
    r = run("scan_blelloch_i32", [1], [4], [("i32", [3, 1, 7, 0, 4, 1, 6, 3]), ("i32", [0] * 8), ("i32", [0]), ("i32", 8)])
    cases.append(("blelloch [3,1,7,0,4,1,6,3]", r[1], [0, 3, 4, 11, 11, 15, 16, 22]))
    cases.append(("blelloch total", r[2], [25]))
    r = run("histogram_global", [1], [32], [("u8", [0, 5, 5, 255]), ("u32", [0] * 256), ("i32", 4)])
    cases.append(("histogram bins 0,5,255", [r[1][0], r[1][5], r[1][255], int(r[1].sum())], [1, 2, 1, 4]))
    r = run("warp_shuffles", [1], [32], [("f32", list(range(32))), ("f32", [0] * 160), ("i32", 32)])
    o = r[1].reshape(32, 5)
    cases.append(("shuffles lane 0", o[0].tolist(), [5, 0, 7, 3, 1]))
    cases.append(("shuffles lane 10", o[10].tolist(), [15, 7, 10, 9, 13]))  # 10+7=17 -> lane 10 keeps own
    r = run("reverse_dynsmem", [2], [4], [("f32", [1, 2, 3, 4, 5, 6]), ("f32", [0] * 6), ("i32", 6)])
    cases.append(("reverse chunks of 4 with a short tail", r[1], [4, 3, 2, 1, 6, 5]))
    r = run("f16_roundtrip", [1], [32], [("f32", [1.0, -0.5, 0.9, 1e-3]), ("f16", [0] * 4), ("f32", [0] * 4),
                                          ("f32", 70000.0), ("i32", 4)])
    cases.append(("f16 overflow to +-inf and rounding", r[2], [math.inf, -35008.0, 63008.0, 70.0]))
    r = run("call_noinline", [1], [32], [("f32", [0.5, -1.0, 0.999]), ("f32", [1, 2, 3]), ("i32", 2),
                                          ("u32", [12, 7, 360]), ("u32", [18, 5, 240]), ("f32", [0] * 3),
                                          ("i32", [0] * 3), ("u32", [0] * 3), ("i32", 3)])
    cases.append(("horner 1 + 2x + 3x^2", r[5], [2.75, 2.0, 1 + 2 * 0.999 + 3 * 0.999 ** 2]))
    cases.append(("bucket of 0.5, -1, 0.999", r[6], [12, 0, 15]))
    cases.append(("gcd (12,18),(7,5),(360,240)", r[7], [6, 1, 120]))
    return cases


# -------------------------------------------------------------------------------------- driver


def inputs_for(spec):
    vals = []
    for k, a in enumerate(spec["args"]):
        if "buffer" in a:
            vals.append(li.make_buffer(a, k, int(spec.get("seed", 0)), spec["_dir"]))
        else:
            vals.append(li.scalar_value(a))
    return vals


def perturb(values, tol, etype):
    """A copy of values that violates the tolerance at one element."""
    v = np.array(values, copy=True)
    i = v.size // 2
    if etype in ("i32", "u32", "i64", "u8"):
        v[i] = v[i] + 1 if v[i] < np.iinfo(v.dtype).max else v[i] - 1
        return v
    at = np.broadcast_to(np.asarray(tol.atol, dtype=np.float64), v.shape)[i]
    bump = 4 * (at + tol.rtol * abs(float(v[i]))) + 1e-3 * max(1.0, abs(float(v[i])))
    if etype == "bf16":
        # expected values of bf16 outputs are float64 numbers
        v = v.astype(np.float64)
    v = v.astype(np.float64)
    v[i] = v[i] + bump
    return v


def encode(values, etype):
    """Expected float64/ints -> the storage dtype a dump would hold."""
    if etype == "bf16":
        return R._f32_to_bf16_bits(np.asarray(values, np.float64).astype(np.float32))
    return np.asarray(values).astype(li.ELEM[etype][0])


def self_test(specs, verbose=False, report_unused=True):
    fails = 0
    seen_kernels = set()
    for spec in specs:
        kern = spec["kernel"]
        sid = spec.get("id", kern)
        if not R.has_reference(kern):
            print(f"FAIL {sid}: no reference for kernel {kern}")
            fails += 1
            continue
        if kern not in EMU:
            print(f"FAIL {sid}: no emulation for kernel {kern}")
            fails += 1
            continue
        args = inputs_for(spec)
        L = R.Launch(spec, args)
        expect = R.run_reference(spec, args)
        L2 = R.Launch(spec, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
        emulated = EMU[kern](L2)
        msgs = []
        ok = True
        if set(expect) != set(emulated):
            ok = False
            msgs.append(f"outputs differ: reference {sorted(expect)} emulation {sorted(emulated)}")
        for k, exp in expect.items():
            etype = spec["args"][k]["buffer"]
            if k not in emulated:
                continue
            got = encode(emulated[k], etype)
            good, mx, rel, nbad, first = R.compare(got, exp, etype)
            if not good:
                ok = False
                msgs.append(f"arg{k}: emulation vs reference: {nbad} bad, first at {first} "
                            f"(emu {np.asarray(emulated[k]).reshape(-1)[first]!r}, ref {np.asarray(exp.values).reshape(-1)[first]!r}), "
                            f"max abs {mx:.3g}")
            # the comparison must be able to fail
            bad_got = encode(perturb(exp.values, exp.tol, etype), etype)
            if R.compare(bad_got, exp, etype)[0]:
                ok = False
                msgs.append(f"arg{k}: a perturbed result was accepted (tolerance too loose?)")
            # the tolerance must stay meaningful: below 5% of the data's scale (max of |value| and the
            # output's RMS, so that values near zero after cancellation do not count), and on median
            # below 0.1% (1% for bf16 outputs)
            if not exp.tol.exact:
                e = np.abs(np.asarray(exp.values, dtype=np.float64))
                fin = np.isfinite(e)
                rms = float(np.sqrt(np.mean(e[fin] ** 2))) if fin.any() else 1.0
                at = np.broadcast_to(np.asarray(exp.tol.atol, dtype=np.float64), e.shape)
                slack = np.where(fin, (at + exp.tol.rtol * np.where(fin, e, 0)) / np.maximum(np.where(fin, e, 0), max(rms, 1e-30)), 0)
                worst, med = float(slack.max()), float(np.median(slack))
                med_cap = {"bf16": 1e-2, "f16": 2e-3}.get(etype, 1e-3)
                if (worst > 0.05 or med > med_cap) and not spec.get("notes", "").startswith("order-dependent"):
                    ok = False
                    msgs.append(f"arg{k}: tolerance too loose: worst {worst:.3g}, median {med:.3g} of the data's scale")
                elif verbose:
                    msgs.append(f"arg{k}: tolerance worst {worst:.2g} median {med:.2g}")
        seen_kernels.add(kern)
        print(("ok   " if ok else "FAIL ") + sid + (": " + "; ".join(msgs) if msgs else ""))
        fails += not ok
    for name, got, want in hand_cases():
        g = np.asarray(got, dtype=np.float64).reshape(-1)
        w = np.asarray(want, dtype=np.float64).reshape(-1)
        same = g.shape == w.shape and np.all((g == w) | (np.isclose(g, w, rtol=1e-6, atol=0)))
        print(("ok   " if same else "FAIL ") + "hand: " + name + ("" if same else f": got {g.tolist()} want {w.tolist()}"))
        fails += not same
    if report_unused:  # every reference must be exercised by some spec
        for m in sorted(set(R.REFS) - seen_kernels):
            print(f"FAIL reference {m} has no spec")
            fails += 1
    return fails
