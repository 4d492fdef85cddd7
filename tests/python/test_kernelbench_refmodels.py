"""The reference's half-precision matrix products and convolutions (kernsim.kernelbench tcgemm.py
and conv.py): the kernels compute what they model (checked against numpy / CPU torch, never
against kernsim's own output), the ATen records are read right, what has no model stays named,
and the times respect the part's tensor peak."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import kernsim  # noqa: E402
from kernsim.kernelbench import conv, gemm, reftime, tcgemm  # noqa: E402
from kernsim.types import f32, i32, i64  # noqa: E402


def bf16_bits(x):
    """float32 -> bfloat16 bit patterns, round to nearest even (what torch's .bfloat16() does)."""
    b = np.ascontiguousarray(x, np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_val(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


CODEC = {"float16": (lambda x: x.astype(np.float16), lambda a: a.view(np.float16).astype(np.float32)),
         "bfloat16": (bf16_bits, bf16_val)}


@pytest.mark.parametrize("dtype,ta,tb", [("float16", 0, 1), ("float16", 1, 0), ("bfloat16", 0, 0), ("bfloat16", 1, 1)])
def test_tensor_core_gemm_computes_the_product_in_every_layout(dtype, ta, tb):
    enc, dec = CODEC[dtype]
    m = kernsim.compile(tcgemm.hgemm_source(dtype, bool(ta), bool(tb)), "h200")
    rng = np.random.default_rng(1)
    # M, N not multiples of any tile; K = 50 is not a multiple of the 8-element chunk: the scalar path
    for (M, N, K, B) in [(40, 72, 56, 2), (33, 20, 50, 1)]:
        a, b = rng.standard_normal((B, M, K)).astype(np.float32), rng.standard_normal((B, K, N)).astype(np.float32)
        bias, d = rng.standard_normal(N).astype(np.float32), rng.standard_normal((B, M, N)).astype(np.float32)
        ae = enc(np.ascontiguousarray(a.transpose(0, 2, 1)) if ta else a)
        be = enc(np.ascontiguousarray(b.transpose(0, 2, 1)) if tb else b)
        want = dec(enc(a)) @ dec(enc(b)) * 0.5 + 2.0 * dec(enc(d)) + dec(enc(bias))
        for name, bm, bn, wm, wn in tcgemm.CONFIGS:
            c = np.zeros((B, M, N), np.uint16)
            r = kernsim.launch(m[name], (-(-N // bn), -(-M // bm), B), wm * wn * 32,
                               [ae, be, c, enc(d), enc(bias), i32(M), i32(N), i32(K), i64(M * K), i64(K * N),
                                i64(M * N), i64(M * N), f32(0.5), f32(2.0), i32(int((M if ta else K) % 8 == 0)),
                                i32(int((K if tb else N) % 8 == 0))], full=True)
            got = dec(r.outputs[2].view(np.uint16)).reshape(B, M, N)
            # the output is rounded to the dtype: 2^-8 (bf16) / 2^-11 (f16) of the largest value
            tol = (2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10) * np.abs(want).max()
            np.testing.assert_allclose(got, want, atol=tol, rtol=0, err_msg=f"{dtype} ta={ta} tb={tb} {name} {M}x{N}x{K}")


CONV_CASES = [  # (F, N, C, spatial, K, kernel, stride, padding, dilation, groups, bias)
    (torch.nn.functional.conv2d, 2, 6, (9, 11), 10, (3, 3), (1, 1), (1, 1), (1, 1), 1, True),
    (torch.nn.functional.conv2d, 1, 4, (10, 12), 6, (3, 2), (2, 1), (0, 1), (1, 2), 2, False),
    (torch.nn.functional.conv1d, 2, 5, (17,), 7, (5,), (2,), (2,), (1,), 1, True),
    (torch.nn.functional.conv3d, 1, 3, (5, 6, 7), 4, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, False),
]


def _conv_record(f, x, w, b, st, pd, dl, g):
    _, ops = reftime.record_ops(lambda x: f(x, w, b, stride=st, padding=pd, dilation=dl, groups=g), [x])
    (op,) = [o for o in ops if o["op"] in conv.CONV_OPS]
    return op


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_implicit_gemm_convolution_computes_the_convolution(dtype):
    m = kernsim.compile(conv.conv_source(dtype), "h200")
    torch.manual_seed(0)
    for (f, n, c, sp, k, ks, st, pd, dl, g, hasb) in CONV_CASES[:2] if dtype == "float16" else CONV_CASES:
        x, w = torch.randn(n, c, *sp), torch.randn(k, c // g, *ks)
        b = torch.randn(k) if hasb else None
        p = conv.problem(_conv_record(f, x, w, b, st, pd, dl, g))
        if dtype == "float32":  # TF32: 10 explicit mantissa bits in, fp32 accumulation
            want, enc, dec, tol = f(x, w, b, stride=st, padding=pd, dilation=dl, groups=g), \
                (lambda t: t.numpy()), (lambda a: a), 2.0 ** -9
        else:
            h = lambda t: t.half().float()  # noqa: E731
            want = f(h(x), h(w), h(b) if b is not None else None, stride=st, padding=pd, dilation=dl, groups=g)
            enc, dec, tol = (lambda t: t.half().numpy().view(np.uint16)), CODEC["float16"][1], 2.0 ** -10
        tab = conv.tap_table(p)
        xs = enc(x).reshape(p["N"], p["C"], p["D"], p["H"], p["W"])
        for name, bm, bn, wm, wn in conv.CONFIGS:
            y = np.zeros(want.numel(), np.float32 if dtype == "float32" else np.uint16)
            r = kernsim.launch(m[name], conv.grid(p, bm, bn), wm * wn * 32,
                               [xs, enc(w), y, enc(b) if b is not None else None, tab, conv._struct(p),
                                i32(tab.shape[0])], full=True)
            got = dec(r.outputs[2]).reshape(want.shape)
            np.testing.assert_allclose(got, want.numpy(), atol=tol * want.abs().max().item() * 4, rtol=0,
                                       err_msg=f"{dtype} {name} {p}")


def test_convolution_records_give_the_shape_and_what_has_no_model_is_named():
    x, w = torch.randn(2, 4, 9, 9), torch.randn(8, 2, 3, 3)
    p = conv.problem(_conv_record(torch.nn.functional.conv2d, x, w, None, (2, 2), (1, 1), (1, 1), 2))
    assert (p["N"], p["C"], p["K"], p["G"], p["OH"], p["OW"], p["R"], p["S"]) == (2, 4, 8, 2, 5, 5, 3, 3)
    assert p["stride"] == [1, 2, 2] and p["pad"] == [0, 1, 1] and not p["bias"] and p["dtype"] == "float32"
    # the tap table: (c, r, s) -> offset c*H*W + r*W + s from the window origin
    tab = conv.tap_table(p)
    assert tab.shape == (2 * 9, 4) and list(tab[9 + 4]) == [81 + 9 + 1, 0, 1, 1]
    # a transposed convolution is named, never guessed
    ct = torch.nn.ConvTranspose2d(4, 4, 3)
    _, ops = reftime.record_ops(ct, [torch.randn(1, 4, 6, 6)])
    rt = None  # simulate_ops must not reach the simulator for an unmodeled op
    total, per, unmodeled, why = reftime.simulate_ops([o for o in ops if o["op"] in conv.CONV_OPS], rt)
    assert total is None and unmodeled == ["convolution"] and "transposed" in why["convolution"]


def test_half_products_go_to_the_tensor_core_model_and_mixed_ones_are_named():
    _, ops = reftime.record_ops(torch.nn.Linear(64, 32).half(), [torch.randn(16, 64).half()])
    (op,) = [o for o in ops if o["op"] in reftime.GEMM]
    p = tcgemm.check_product(op)
    assert p["dtype"] == "float16" and p["trans_b"] and p["bias"] and (p["M"], p["N"], p["K"]) == (16, 32, 64)
    _, ops = reftime.record_ops(lambda a, b: a @ b, [torch.randn(8, 8).double(), torch.randn(8, 8).double()])
    with pytest.raises(gemm.NoModel, match="float64"):
        tcgemm.check_product(ops[0])


def test_half_gemm_time_is_above_the_tensor_peak_bound_and_below_the_sgemm(tmp_path, monkeypatch):
    # 512^3 on the h200: no kernel beats 2*M*N*K / the f16 tensor peak; kernsim's tensor-core GEMM
    # must be faster than its fp32 SGEMM of the same product (what tensor cores are for)
    monkeypatch.setenv("KERNSIM_CACHE_DIR", str(tmp_path))
    from kernsim.kernelbench import devinfo
    dv = devinfo.device_numbers("h200", None)
    op = {"op": "mm", "inputs": [{"shape": [512, 512], "dtype": "float16", "strides": [512, 1]},
                                 {"shape": [512, 512], "dtype": "float16", "strides": [512, 1]}],
          "outputs": [{"shape": [512, 512], "dtype": "float16"}]}
    h = tcgemm.time_product(tcgemm.check_product(op), "h200")
    op32 = {**op, "inputs": [dict(i, dtype="float32") for i in op["inputs"]]}
    s = gemm.time_product(gemm.product(op32), "h200")
    assert h["time_us"] > 2 * 512 ** 3 / dv["tensor_f16_flops"] * 1e6
    assert h["time_us"] < s["time_us"]
    assert set(h["configs"]) == {c[0] for c in tcgemm.CONFIGS}


# ---- eager-kernel models (eager.py): the kernels compute what PyTorch's do
def test_eager_models_compute_scan_strided_copy_and_matrix_vector():
    from kernsim.kernelbench import eager
    m = kernsim.compile(eager.EAGER_SRC, "h200")
    rng = np.random.default_rng(2)
    # cumsum over rows of 70 x 100 (rows not a multiple of 32, n not of the 32-element chunk), cumprod too
    x = rng.standard_normal((70, 100)).astype(np.float32)
    for mul, want in ((0, np.cumsum(x, axis=1)), (1, np.cumprod(1 + 0.01 * x, axis=1))):
        xin = (1 + 0.01 * x).astype(np.float32) if mul else x
        r = kernsim.launch(m["kb_scan_inner"], (3,), (16, 32), [xin, np.zeros_like(x), i64(70), i64(100), i32(mul)],
                           full=True)
        np.testing.assert_allclose(r.outputs[1].reshape(70, 100), want, rtol=1e-4, atol=1e-4)
    # cumsum over the middle dimension of 3 x 50 x 7
    x3 = rng.standard_normal((3, 50, 7)).astype(np.float32)
    r = kernsim.launch(m["kb_scan_outer"], (3, 1), (7,), [x3, np.zeros_like(x3), i64(3), i64(50), i64(7), i32(0)],
                       full=True)
    np.testing.assert_allclose(r.outputs[1].reshape(3, 50, 7), np.cumsum(x3, axis=1), rtol=1e-4, atol=1e-4)
    # a transposed 37 x 45 matrix made contiguous
    a = rng.standard_normal((45, 37)).astype(np.float32)
    r = kernsim.launch(m["kb_copy_strided_4"], (-(-37 * 45 // 512),), (128,),
                       [a, np.zeros(37 * 45, np.float32), i64(37 * 45), i64(1), i64(37), i64(45), i64(0), i64(0),
                        i64(1), i64(37)], full=True)
    np.testing.assert_array_equal(r.outputs[1].reshape(37, 45), a.T)
    # y = A v + b with A 50 x 70 row-major (warp per row) and stored column-major (thread per row)
    A, v, b = (rng.standard_normal((50, 70)).astype(np.float32), rng.standard_normal(70).astype(np.float32),
               rng.standard_normal(50).astype(np.float32))
    for name, stored, grid in (("kb_gemv_rows", A, (-(-50 * 32 // 256),)), ("kb_gemv_cols", np.ascontiguousarray(A.T), (1,))):
        r = kernsim.launch(m[name], grid, (256,), [stored, v, b, np.zeros(50, np.float32), i32(50), i32(70)], full=True)
        np.testing.assert_allclose(r.outputs[3], A @ v + b, rtol=1e-4, atol=1e-4)


def test_eager_models_read_the_records():
    from kernsim.kernelbench import eager
    _, ops = reftime.record_ops(lambda x: torch.cumsum(x, dim=1), [torch.randn(8, 16)])
    assert eager.scan_problem(ops[0]) == {"kind": "inner", "rows": 8, "n": 16, "mul": 0}
    _, ops = reftime.record_ops(lambda x: torch.cumsum(x, dim=0), [torch.randn(8, 16)])
    assert eager.scan_problem(ops[0]) == {"kind": "outer", "outer": 1, "n": 8, "inner": 16, "mul": 0}
    _, ops = reftime.record_ops(lambda x: torch.cumsum(x, dim=0), [torch.randn(8)])
    assert eager.scan_problem(ops[0]) is None  # 1-D: CUB's single-pass scan, the streaming model
    _, ops = reftime.record_ops(lambda x: x.t().contiguous(), [torch.randn(8, 16)])
    (c,) = [o for o in ops if o["op"] in eager.COPY_OPS]
    assert eager.copy_problem(c) == {"elem": 4, "shape": [1, 1, 16, 8], "strides": [0, 0, 1, 16], "span": 128}
    _, ops = reftime.record_ops(lambda x: x.clone(), [torch.randn(8, 16)])
    assert eager.copy_problem(ops[0]) is None  # contiguous: the streaming model
    _, ops = reftime.record_ops(lambda a, v: a @ v, [torch.randn(64, 32), torch.randn(32, 1)])
    assert eager.gemv_problem(ops[0]) == {"R": 64, "K": 32, "rows_contiguous": True, "bias": False}
    # logsumexp is ATen's composite: 9 kernels, 4 of them over the whole input
    from kernsim.kernelbench.reftime import COMPOSITE
    assert len(COMPOSITE["logsumexp"]) == 9 and sum("in" in r or "in" in w for _, r, w in COMPOSITE["logsumexp"]) == 4
