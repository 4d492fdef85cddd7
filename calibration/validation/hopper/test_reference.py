"""The numpy references (reference.py) against hand computations on tiny shapes, and the checks
they feed (a wrong or unwritten output must fail).   python3 -m pytest calibration/validation/hopper"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launches as hl  # noqa: E402
import reference as ref  # noqa: E402


def test_e4m3_table_known_values():
    t = ref.e4m3_table()
    assert t[0x38] == 1.0 and t[0x40] == 2.0 and t[0xB8] == -1.0
    assert t[0x7E] == 448.0 and t[0x01] == 2.0 ** -9 and t[0x20] == 0.125 and t[0x3F] == 1.875
    assert np.isnan(t[0x7F]) and np.isnan(t[0xFF])


def test_decode_bf16_bits():
    bits = np.array([0x3F80, 0xC000, 0x3E80], dtype=np.uint16)  # 1, -2, 0.25
    assert ref.decode("bf16", bits, [3]).tolist() == [1.0, -2.0, 0.25]


def _loops_matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    return np.array([[sum(float(a[i, k]) * float(b[k, j]) for k in range(K)) for j in range(N)] for i in range(M)])


def test_matmul_reference_both_layouts():
    rng = np.random.default_rng(1)
    L = hl._matmul("bf16", 8, 6, 4, 64, 64, 64, 4, 3, "t")
    a, b = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((4, 6)).astype(np.float32)
    got = ref.reference(L, {"a_ptr": a, "b_ptr": b}, np.arange(8))
    assert np.allclose(got, _loops_matmul(a, b), rtol=1e-5, atol=1e-5)
    Lk = hl._matmul("bf16", 8, 6, 4, 64, 64, 64, 4, 3, "t", b_kmajor=True)
    got = ref.reference(Lk, {"a_ptr": a, "b_ptr": np.ascontiguousarray(b.T)}, np.arange(8))
    assert np.allclose(got, _loops_matmul(a, b), rtol=1e-5, atol=1e-5)


def _loops_attention(q, k, v, scale, causal):
    S, D = q.shape
    out = np.zeros((S, D))
    for i in range(S):
        js = range(i + 1) if causal else range(S)
        s = [scale * sum(q[i, d] * k[j, d] for d in range(D)) for j in js]
        m = max(s)
        w = [math.exp(x - m) for x in s]
        for jj, j in enumerate(js):
            out[i] += w[jj] / sum(w) * v[j]
    return out


def test_attention_reference_causal_and_full():
    rng = np.random.default_rng(2)
    for causal in (False, True):
        L = hl._attn(4, causal, B=1, H=2, S=6)
        q, k, v = (rng.standard_normal((1, 2, 6, 4)).astype(np.float32) for _ in range(3))
        got = ref.reference(L, {"q_ptr": q, "k_ptr": k, "v_ptr": v}, np.arange(2))
        for h in range(2):
            want = _loops_attention(q[0, h], k[0, h], v[0, h], 0.5, causal)
            assert np.allclose(got[h], want, rtol=1e-4, atol=1e-5)


def test_moe_reference_uses_each_rows_expert():
    rng = np.random.default_rng(3)
    offsets = np.array([0, 3, 3, 7], dtype=np.int32)  # expert 1 gets no rows
    x = rng.standard_normal((7, 5)).astype(np.float32)
    w = rng.standard_normal((3, 4, 5)).astype(np.float32)
    L = {"ref": "moe", "args": [{"name": "y_ptr", "out": True, "shape": [7, 4], "dtype": "bf16"}]}
    rows = np.arange(7)
    got = ref.reference(L, {"x_ptr": x, "w_ptr": w, "offsets_ptr": offsets}, rows)
    for r in rows:
        e = 0 if r < 3 else 2
        assert np.allclose(got[r], _loops_matmul(x[r:r + 1], w[e].T)[0], rtol=1e-5, atol=1e-5)


def test_check_fails_on_wrong_and_unwritten_outputs():
    rng = np.random.default_rng(4)
    L = hl._matmul("bf16", 16, 8, 32, 64, 64, 64, 4, 3, "t")
    a, b = rng.standard_normal((16, 32)).astype(np.float32), rng.standard_normal((32, 8)).astype(np.float32)
    good = a @ b
    assert ref.check(L, {"a_ptr": a, "b_ptr": b}, {"c_ptr": good})["c_ptr"]["ok"]
    assert not ref.check(L, {"a_ptr": a, "b_ptr": b}, {"c_ptr": a @ b[:, ::-1]})["c_ptr"]["ok"]
    nan = good.copy()
    nan[3, 2] = np.nan
    r = ref.check(L, {"a_ptr": a, "b_ptr": b}, {"c_ptr": nan})["c_ptr"]
    assert not r["ok"] and r["nonfinite"] == 1


def test_moe_tables_cover_every_row_once():
    offsets, tiles = hl.moe_tables(hl.MOE_COUNTS, 128)
    covered = []
    for e, r0 in tiles:
        covered += list(range(r0, min(r0 + 128, offsets[e + 1])))
    assert covered == list(range(sum(hl.MOE_COUNTS)))


def test_set_size_and_ids():
    L = hl.all_launches()
    assert len(L) >= 24 and len({x["id"] for x in L}) == len(L)


def test_check_dump_reads_kernsim_dump_layout(tmp_path):
    import check_dump
    rng = np.random.default_rng(5)
    L = hl._ladder(1, "ladder_mma_sync", 256, 0, None, (128, 128), "t", M=32, N=16, K=8)
    a = rng.integers(0x3C00, 0x3F80, (32, 8)).astype(np.uint16)  # bf16 bits 0.0078 .. 1
    b = rng.integers(0x3C00, 0x3F80, (16, 8)).astype(np.uint16)
    af, bf = ref.decode("bf16", a, [32, 8]), ref.decode("bf16", b, [16, 8])
    c = ((af @ bf.T).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # truncated to bf16
    a.tofile(tmp_path / "arg0.in.bin")
    b.tofile(tmp_path / "arg1.in.bin")
    c.tofile(tmp_path / "arg2.out.bin")
    assert check_dump.check_dir(L, str(tmp_path))["c_ptr"]["ok"]
    c[:, ::2] = c[:, 1::2]  # columns swapped in pairs
    c.tofile(tmp_path / "arg2.out.bin")
    assert not check_dump.check_dir(L, str(tmp_path))["c_ptr"]["ok"]


def test_ladder_launches_match_what_was_measured():
    """grid, block and dynamic shared bytes of each ladder step as ladder_host.cu launched them."""
    import json
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "h200", "hopper_validation.json")
    measured = {r["id"]: r for r in json.load(open(path))["launches"]}
    for L in hl.all_launches():
        if L["kind"] == "ladder":
            host = measured[L["id"]]["host"]
            assert (host["grid"], host["block"], host["dynamic_shared_bytes"]) == \
                (L["grid"][0], L["block"][0], L["dynamic_shared_bytes"]), L["id"]
