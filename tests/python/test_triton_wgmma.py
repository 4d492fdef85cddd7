"""Triton's sm_90a matmul (tl.dot as wgmma.mma_async, fed by plain or cp.async-pipelined loads)
compiled by Triton itself, run by this tree's kernsim CLI, C checked against numpy. The inputs are
small integers, so every sum is exact in f32 and in the f16/bf16 output: C must equal A @ B."""

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import DATA

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed")


def _compile(dtype, num_warps, num_stages, divisible, tiles):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sys.path.insert(0, str(DATA))
    try:
        import triton_matmul
    finally:
        sys.path.pop(0)
    sig = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{dtype}", "M": "i32", "N": "i32", "K": "i32",
           "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    names = list(sig)
    # pointers and sizes known to be multiples of 16 let Triton vectorise and pipeline the loads
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in names[:9]} if divisible else None
    bm, bn, bk = tiles
    src = ASTSource(triton_matmul.matmul, sig, constexprs={"BM": bm, "BN": bn, "BK": bk}, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps, "num_stages": num_stages})


def _bits(x, dtype):
    if dtype == "fp16":
        return x.astype(np.float16).tobytes()
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()  # exact: small integers


def _values(raw, dtype):
    if dtype == "fp16":
        return raw.view(np.float16).astype(np.float32)
    return (raw.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("dtype,num_warps,num_stages,divisible,tiles", [
    ("fp16", 4, 3, True, (128, 128, 64)),    # cp.async pipeline, wgmma.wait_group 1 in the loop
    ("bf16", 8, 4, True, (128, 128, 64)),    # two warpgroups, four stages
    ("fp16", 8, 3, False, (128, 128, 64)),   # unknown alignment: scalar loads through registers
    ("bf16", 4, 2, True, (64, 256, 32)),     # m64n256k16
])
def test_triton_sm90_matmul_runs_wgmma_and_matches_numpy(cli, tmp_path, dtype, num_warps, num_stages, divisible, tiles):
    k = _compile(dtype, num_warps, num_stages, divisible, tiles)
    ptx = k.asm["ptx"]
    assert "wgmma.mma_async.sync.aligned" in ptx and "wgmma.wait_group.sync.aligned" in ptx
    assert "mbarrier" not in ptx and "cp.async.bulk" not in ptx  # Triton's pointer pipeline needs neither
    M, N, K = 256, 256, 320
    rng = np.random.default_rng(7)
    a = rng.integers(-2, 3, (M, K)).astype(np.float32)
    b = rng.integers(-2, 3, (K, N)).astype(np.float32)
    (tmp_path / "k.ptx").write_text(ptx)
    (tmp_path / "a.bin").write_bytes(_bits(a, dtype))
    (tmp_path / "b.bin").write_bytes(_bits(b, dtype))
    bt = "f16" if dtype == "fp16" else "bf16"
    bm, bn, _ = tiles
    spec = {"source": "k.ptx", "kernel": "matmul", "grid": [M // bm, N // bn], "block": num_warps * 32,
            "dynamic_shared_bytes": k.metadata.shared,
            "args": [{"buffer": bt, "count": M * K, "init": "file:a.bin"}, {"buffer": bt, "count": K * N, "init": "file:b.bin"},
                     {"buffer": bt, "count": M * N}] + [{"type": "i32", "value": v} for v in (M, N, K, K, N, N)] +
                    [{"type": "u64", "value": 0}, {"type": "u64", "value": 0}]}  # Triton's scratch pointers: none
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    r = subprocess.run([cli, "run", str(tmp_path / "spec.json"), "--arch", "h200", "--dump-buffers", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    c = _values(np.fromfile(tmp_path / "out" / "arg2.out.bin", dtype=np.uint16), dtype).reshape(M, N)
    np.testing.assert_array_equal(c, a @ b)
