"""Triton's sm_100a matmul (tl.dot as tcgen05.mma with the accumulator in tensor memory, committed
onto an mbarrier, read back with tcgen05.ld) compiled by Triton itself for the B200 and run on b200:
from its .ptx through this tree's kernsim CLI, and through the Python API (compile_triton + launch).
The inputs are small integers, so every sum is exact in f32 and in the f16/bf16 output: C must equal
A @ B (numpy), and the run must report a time."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import DATA, ROOT

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed")

# e4m3 (Triton's fp8e4nv) bits of the integers -2..2, hand-encoded: sign, 4-bit exponent (bias 7), 3-bit mantissa
E4M3 = {-2: 0xC0, -1: 0xB8, 0: 0x00, 1: 0x38, 2: 0x40}


def _tree_env():
    """The environment for this tree's CLI: its own device files, whatever `import kernsim` (the
    installed package, which sets KERNSIM_DATA_DIR to its packaged copy) did to this process."""
    return dict(os.environ, KERNSIM_DATA_DIR=str(ROOT))


def _matmul():
    sys.path.insert(0, str(DATA))
    try:
        import triton_matmul
    finally:
        sys.path.pop(0)
    return triton_matmul.matmul


def _compile(dtype, out, num_warps, num_stages, tiles):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sig = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{out}", "M": "i32", "N": "i32", "K": "i32",
           "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    names = list(sig)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in names[:9]}
    bm, bn, bk = tiles
    src = ASTSource(_matmul(), sig, constexprs={"BM": bm, "BN": bn, "BK": bk}, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 100, 32), options={"num_warps": num_warps, "num_stages": num_stages})


def _bits(x, dtype):
    if dtype == "fp16":
        return x.astype(np.float16).tobytes()
    if dtype == "bf16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()  # exact: small integers
    return np.vectorize(E4M3.get)(x.astype(np.int64)).astype(np.uint8).tobytes()


def _values(raw, dtype):
    if dtype == "fp16":
        return raw.view(np.float16).astype(np.float32)
    return (raw.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("dtype,out,num_warps,num_stages,tiles", [
    ("fp16", "fp16", 4, 3, (128, 128, 64)),     # kind::f16, M128 N128, the A/B tiles through cp.async
    ("bf16", "bf16", 4, 2, (128, 64, 64)),      # bf16, N64
    ("fp8e4nv", "fp16", 4, 2, (128, 64, 64)),   # kind::f8f6f4 with e4m3 operands
])
def test_triton_sm100_matmul_ptx_runs_tcgen05_and_matches_numpy(cli, tmp_path, dtype, out, num_warps, num_stages, tiles):
    k = _compile(dtype, out, num_warps, num_stages, tiles)
    ptx = k.asm["ptx"]
    assert "tcgen05.mma.cta_group::1" in ptx and "tcgen05.commit" in ptx and "tcgen05.ld.sync.aligned" in ptx
    assert "tcgen05.alloc" in ptx and "tcgen05.dealloc" in ptx
    M, N, K = 256, 256, 320
    rng = np.random.default_rng(11)
    a = rng.integers(-2, 3, (M, K)).astype(np.float32)
    b = rng.integers(-2, 3, (K, N)).astype(np.float32)
    (tmp_path / "k.ptx").write_text(ptx)
    (tmp_path / "a.bin").write_bytes(_bits(a, dtype))
    (tmp_path / "b.bin").write_bytes(_bits(b, dtype))
    bt = {"fp16": "f16", "bf16": "bf16", "fp8e4nv": "u8"}[dtype]
    ct = {"fp16": "f16", "bf16": "bf16"}[out]
    bm, bn, _ = tiles
    spec = {"source": "k.ptx", "kernel": "matmul", "grid": [M // bm, N // bn], "block": num_warps * 32,
            "dynamic_shared_bytes": k.metadata.shared,
            "args": [{"buffer": bt, "count": M * K, "init": "file:a.bin"}, {"buffer": bt, "count": K * N, "init": "file:b.bin"},
                     {"buffer": ct, "count": M * N}] + [{"type": "i32", "value": v} for v in (M, N, K, K, N, N)] +
                    [{"type": "u64", "value": 0}, {"type": "u64", "value": 0}]}  # Triton's scratch pointers: none
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    r = subprocess.run([cli, "run", str(tmp_path / "spec.json"), "--arch", "b200", "--json", "--dump-buffers", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=600, env=_tree_env())
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["time_us"] > 0
    c = _values(np.fromfile(tmp_path / "o" / "arg2.out.bin", dtype=np.uint16), out).reshape(M, N)
    np.testing.assert_array_equal(c, a @ b)


def test_triton_sm100_matmul_from_the_python_api():
    import kernsim
    M, N, K = 256, 128, 192
    rng = np.random.default_rng(5)
    a = rng.integers(-2, 3, (M, K)).astype(np.float16)
    b = rng.integers(-2, 3, (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    args = [a, b, c, M, N, K, K, N, N]
    m = kernsim.compile_triton(_matmul(), args=args, constexprs={"BM": 128, "BN": 128, "BK": 64}, arch="b200", num_stages=2)
    assert m.target == kernsim.device_info("b200")["isa_target"]
    r = kernsim.launch(m.kernel(), grid=(M // 128, N // 128), block=None, args=args, full=True)
    np.testing.assert_array_equal(r.outputs[2].astype(np.float32), a.astype(np.float32) @ b.astype(np.float32))
    assert r.time_us > 0


# tl.dot_scaled (the B200 set's matmul_scaled): Triton lowers it for sm_100a to tcgen05.mma
# .kind::mxf8f6f4.block_scale (e4m3) or .kind::mxf4.block_scale (e2m1, two to a byte, the lower K
# index in the low nibble), the e8m0 scales written to tensor memory with tcgen05.st. Values and
# scales are small powers-of-two multiples, so the f32 sums are exact and C is the reference rounded
# to bf16 (to nearest even), bit for bit.
E2M1_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]  # codes 0..7; bit 3 is the sign
E4M3_CODES = {0.0: 0x00, 0.5: 0x30, 1.0: 0x38, 1.5: 0x3C, 2.0: 0x40, 3.0: 0x44}  # hand-encoded, bias 7


def _bf16_bits(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


@pytest.mark.parametrize("fmt,bk", [("e4m3", 128), ("e2m1", 256)])
def test_triton_sm100_dot_scaled_runs_block_scaled_tcgen05_exactly(cli, tmp_path, fmt, bk):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sys.path.insert(0, str(ROOT / "calibration" / "validation" / "b200"))
    try:
        import b200_triton
    finally:
        sys.path.pop(0)
    M, N, K, BM, BN = 128, 256, 2 * bk, 128, 128
    pack = 2 if fmt == "e2m1" else 1
    sig = {"a_ptr": "*u8", "sa_ptr": "*u8", "b_ptr": "*u8", "sb_ptr": "*u8", "c_ptr": "*bf16", "M": "i32", "N": "i32",
           "K": "i32", "FMT": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr",
           "GROUP_M": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(8)}
    src = ASTSource(b200_triton.matmul_scaled, sig, attrs=attrs,
                    constexprs={"FMT": fmt, "BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": bk, "GROUP_M": 8})
    k = triton.compile(src, target=GPUTarget("cuda", 100, 32), options={"num_warps": 4, "num_stages": 2})
    ptx = k.asm["ptx"]
    kind = "mxf8f6f4" if fmt == "e4m3" else "mxf4"
    assert f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale" in ptx
    rng = np.random.default_rng(7)
    if fmt == "e2m1":
        codes = rng.integers(0, 16, (M + N, K))  # sign bit 3, magnitude E2M1_VALUES[code & 7]
        vals = np.where(codes & 8, -1.0, 1.0) * np.array(E2M1_VALUES)[codes & 7]
        raw = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)  # the lower k in the low nibble
    else:
        mags = np.array(list(E4M3_CODES))
        idx, neg = rng.integers(0, len(mags), (M + N, K)), rng.integers(0, 2, (M + N, K))
        vals = np.where(neg, -1.0, 1.0) * mags[idx]
        raw = (np.array([E4M3_CODES[m] for m in mags])[idx] | (neg << 7)).astype(np.uint8)
    exps = rng.integers(126, 129, (M + N, K // 32))  # e8m0: 2^(e - 127), 0.5 .. 2
    scaled = vals * np.repeat(np.exp2(exps - 127.0), 32, axis=1)
    ref = scaled[:M] @ scaled[M:].T  # exact in f64 and in f32
    for name, arr in (("a", raw[:M]), ("b", raw[M:]), ("sa", exps[:M]), ("sb", exps[M:])):
        (tmp_path / f"{name}.bin").write_bytes(np.ascontiguousarray(arr, dtype=np.uint8).tobytes())
    (tmp_path / "k.ptx").write_text(ptx)
    buf = lambda n, count: {"buffer": "u8", "count": count, "init": f"file:{n}.bin"}  # noqa: E731
    spec = {"source": "k.ptx", "kernel": "matmul_scaled", "grid": (M // BM) * (N // BN), "block": 128,
            "dynamic_shared_bytes": k.metadata.shared,
            "args": [buf("a", M * K // pack), buf("sa", M * K // 32), buf("b", N * K // pack), buf("sb", N * K // 32),
                     {"buffer": "bf16", "count": M * N}] + [{"type": "i32", "value": v} for v in (M, N, K)] +
                    [{"type": "u64", "value": 0}, {"type": "u64", "value": 0}]}  # Triton's scratch pointers: none
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    r = subprocess.run([cli, "run", str(tmp_path / "spec.json"), "--arch", "b200", "--json", "--dump-buffers", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=600, env=_tree_env())
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["time_us"] > 0
    c = np.fromfile(tmp_path / "o" / "arg4.out.bin", dtype=np.uint16).reshape(M, N)
    np.testing.assert_array_equal(c, _bf16_bits(ref))
