#!/usr/bin/env python3
"""Runs b200_triton.matmul_scaled in Triton's interpreter (TRITON_INTERPRET=1, on the CPU, no GPU) on a
small mxfp4 and mxfp8 problem and compares it with b200_reference: a check that the reference reads
the formats as Triton's tl.dot_scaled defines them (e2m1 nibble order, e8m0 scales per 32 of K).
Prints one JSON object {fmt: check result}; test_reference.py runs it. Needs torch (CPU).
"""
import json
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
import torch  # noqa: E402

import b200_launches as bl  # noqa: E402
import b200_reference as br  # noqa: E402
import b200_triton as bt  # noqa: E402


def run(fmt, M=128, N=128, K=512, seed=3):
    rng = np.random.default_rng(seed)
    bk = 256 if fmt == "e2m1" else 128
    if fmt == "e2m1":
        a, b = rng.integers(0, 256, (M, K // 2), dtype=np.uint8), rng.integers(0, 256, (N, K // 2), dtype=np.uint8)
        ta, tb, ia, ib = torch.from_numpy(a), torch.from_numpy(b), a, b
    else:
        a, b = rng.integers(32, 64, (M, K), dtype=np.uint8), rng.integers(32, 64, (N, K), dtype=np.uint8)
        ta, tb = torch.from_numpy(a).view(torch.float8_e4m3fn), torch.from_numpy(b).view(torch.float8_e4m3fn)
        ia, ib = br.hr.e4m3_table()[a], br.hr.e4m3_table()[b]
    sa = rng.integers(124, 131, (M, K // 32), dtype=np.uint8)
    sb = rng.integers(124, 131, (N, K // 32), dtype=np.uint8)
    c = torch.zeros((M, N), dtype=torch.bfloat16)
    bt.matmul_scaled[(1,)](ta, torch.from_numpy(sa), tb, torch.from_numpy(sb), c, M, N, K, FMT=fmt, BLOCK_M=M,
                           BLOCK_N=N, BLOCK_K=bk, GROUP_M=8)
    L = bl._scaled(fmt, M, N, K, M, N, bk, 4, 3)
    out = {"c_ptr": c.float().numpy()}
    good = br.check(L, {"a_ptr": ia, "sa_ptr": sa, "b_ptr": ib, "sb_ptr": sb}, out, subset=False)["c_ptr"]
    if fmt == "e2m1":  # the negative control: the nibbles read the other way round must fail
        swapped = ((a & 0x0F) << 4) | (a >> 4)
        bad = br.check(L, {"a_ptr": swapped, "sa_ptr": sa, "b_ptr": ib, "sb_ptr": sb}, out, subset=False)["c_ptr"]
        good["swapped_nibbles_rel_l2"] = bad["rel_l2"]
    return good


if __name__ == "__main__":
    print(json.dumps({fmt: run(fmt) for fmt in ("e2m1", "e4m3")}))
