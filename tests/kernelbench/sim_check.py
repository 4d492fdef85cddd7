#!/usr/bin/env python3
"""Runs the device code of 21 CUDA candidates and 5 Triton candidates in kernsim itself (Python API, h200, full execution) at
small sizes with the launch configuration their host wrappers use, and checks the correct ones match
torch and the wrong ones do not -- evidence, short of a GPU, that the kernels do what the manifest
says. The host wrappers (torch:: code) are cut off; only the kernels are compiled.

  python3 tests/kernelbench/sim_check.py        # ~1-2 min; needs the kernsim package installed
"""
import ast
import os
import sys

import numpy as np
import torch

import kernsim

KB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "candidates")

def device_src(rel):
    tree = ast.parse(open(os.path.join(KB, rel)).read())
    src = [n.value.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "cuda_source"][0]
    src = src.split("\ntorch::Tensor ")[0]
    lines = [l for l in src.splitlines() if not l.startswith("#include") and "CHECK_" not in l]
    return "#include <cuda_runtime.h>\n#include <math_constants.h>\n#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n" + "\n".join(lines)

def run(rel, kname, grid, block, args, out_idx):
    m = kernsim.compile(device_src(rel), arch="h200")
    k = m[kname]
    r = kernsim.launch(k, grid=grid, block=block, args=args, full=True)
    return [r.outputs[i] for i in out_idx], r.time_us

def close(a, b, tol=1e-2):
    return np.allclose(a, b, atol=tol, rtol=tol)

rng = np.random.default_rng(0)
res = []
def check(name, ok, t):
    res.append((name, ok)); print(f"{'OK ' if ok else 'BAD'} {name}  {t:.1f} us", flush=True)

# matmul regblock (kn) and naive, tiled
M, K, N = 96, 80, 72
A = rng.standard_normal((M, K)).astype(np.float32); B = rng.standard_normal((K, N)).astype(np.float32)
C = np.zeros((M, N), np.float32); want = A @ B
(o,), t = run("level1/16_Matmul_Square/cuda_regblock.py", "matmul_regblock_kernel", ((N+63)//64, (M+63)//64), 256, [A, B, C, M, N, K], [2]); check("matmul regblock", close(o, want), t)
(o,), t = run("level1/17_Matmul_Rect/cuda_tiled.py", "matmul_tiled_kernel", ((N+31)//32, (M+31)//32), (32, 32), [A, B, C, M, N, K], [2]); check("matmul tiled", close(o, want), t)
(o,), t = run("level1/17_Matmul_Rect/wrong_offbyone.py", "matmul_naive_kernel", ((N+15)//16, (M+15)//16), (16, 16), [A, B, C, M, N, K], [2]); check("matmul offbyone FAILS", not close(o, want), t)
# linear nk with bias relu (regblock fused), tiled linear
W = rng.standard_normal((N, K)).astype(np.float32); bias = rng.standard_normal(N).astype(np.float32)
want = np.maximum(A @ W.T + bias, 0)
(o,), t = run("level2/01_Gemm_Bias_ReLU/cuda_regblock_fused.py", "linear_regblock_kernel", ((N+63)//64, (M+63)//64), 256, [A, W, C, M, N, K, bias], [2]); check("linear regblock relu", close(o, want), t)
(o,), t = run("level2/01_Gemm_Bias_ReLU/cuda_naive_fused.py", "linear_naive_kernel", ((N+15)//16, (M+15)//16), (16, 16), [A, W, C, M, N, K, bias], [2]); check("linear naive relu", close(o, want), t)
(o,), t = run("level1/20_Linear/cuda_tiled.py", "linear_tiled_kernel", ((N+31)//32, (M+31)//32), (32, 32), [A, W, C, M, N, K, bias], [2]); check("linear tiled", close(o, A @ W.T + bias), t)
g = torch.nn.functional.gelu(torch.from_numpy(A @ W.T + bias)).numpy() * 2.0
(o,), t = run("level2/02_Gemm_GELU_Scale/cuda_tiled_fused.py", "linear_tiled_kernel", ((N+31)//32, (M+31)//32), (32, 32), [A, W, C, M, N, K, bias, 2.0], [2]); check("linear gelu scale", close(o, g), t)
# rowwise
R, D = 6, 1000
x = rng.standard_normal((R, D)).astype(np.float32); xt = torch.from_numpy(x)
w = rng.standard_normal(D).astype(np.float32); b = rng.standard_normal(D).astype(np.float32)
y = np.zeros_like(x)
ln = torch.nn.functional.layer_norm(xt, (D,), torch.from_numpy(w), torch.from_numpy(b), 1e-5).numpy()
(o,), t = run("level1/13_LayerNorm/cuda_blockrow.py", "layernorm_blockrow_kernel", R, 256, [x, y, R, D, w, b, 1e-5], [1]); check("layernorm blockrow", close(o, ln), t)
(o,), t = run("level1/13_LayerNorm/cuda_rowthread.py", "layernorm_rowthread_kernel", 1, 256, [x, y, R, D, w, b, 1e-5], [1]); check("layernorm rowthread", close(o, ln), t)
sm = torch.softmax(xt * 0.125, -1).numpy()
(o,), t = run("level2/03_Scale_Softmax/cuda_blockrow.py", "scale_softmax_blockrow_kernel", R, 256, [x, y, R, D, 0.125], [1]); check("scale softmax blockrow", close(o, sm, 1e-5), t)
(o,), t = run("level2/03_Scale_Softmax/wrong_no_block_sum.py", "scale_softmax_blockrow_kernel", R, 256, [x, y, R, D, 0.125], [1]); check("softmax no block sum FAILS", not close(o, sm), t)
s1 = np.zeros(R, np.float32)
(o,), t = run("level1/09_Sum_dim1/cuda_blockrow.py", "sum_blockrow_kernel", R, 256, [x, s1, R, D], [1]); check("sum blockrow", close(o, x.sum(1)), t)
(o,), t = run("level1/09_Sum_dim1/wrong_race.py", "sum_blockrow_kernel", R, 256, [x, s1, R, D], [1]); check("sum race FAILS", not close(o, x.sum(1)), t)
(o,), t = run("level2/11_LogSumExp/cuda_blockrow.py", "logsumexp_blockrow_kernel", R, 256, [x, s1, R, D, 1.0], [1]); check("logsumexp", close(o, torch.logsumexp(xt, 1).numpy()), t)
(o,), t = run("level2/05_RMSNorm_Scale/cuda_blockrow.py", "rmsnorm_scale_blockrow_kernel", R, 256, [x, y, R, D, w, 1e-5], [1]); check("rmsnorm scale", close(o, x / np.sqrt((x*x).mean(1, keepdims=True) + 1e-5) * w), t)
# transpose tiled
Rt, Ct = 70, 45
xt2 = rng.standard_normal((Rt, Ct)).astype(np.float32); yt = np.zeros((Ct, Rt), np.float32)
(o,), t = run("level1/21_Transpose/cuda_tiled.py", "transpose_tiled_kernel", ((Ct+31)//32, (Rt+31)//32), (32, 8), [xt2, yt, Rt, Ct], [1]); check("transpose tiled", np.array_equal(o, xt2.T), t)
# conv oc4
xc = rng.standard_normal((2, 3, 9, 7)).astype(np.float32); wc = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
yc = np.zeros((2, 8, 9, 7), np.float32); want = torch.nn.functional.conv2d(torch.from_numpy(xc), torch.from_numpy(wc), padding=1).numpy()
tot = 2 * 2 * 9 * 7
(o,), t = run("level1/23_Conv2d_3x3/cuda_oc4.py", "conv3x3_oc4_kernel", (tot + 127)//128, 128, [xc, wc, yc, 2, 3, 8, 9, 7], [2]); check("conv oc4", close(o, want), t)
# attention rowthread
q, kk, v = (rng.standard_normal((2, 40, 64)).astype(np.float32) for _ in range(3))
want = (torch.softmax(torch.from_numpy(q) @ torch.from_numpy(kk).transpose(1, 2) / 8.0, -1) @ torch.from_numpy(v)).numpy()
(o,), t = run("level2/10_Attention/cuda_rowthread.py", "attention_row_kernel", 1, 128, [q, kk, v, np.zeros_like(q), 2, 40, 0.125], [3]); check("attention rowthread", close(o, want), t)
# mse
a = rng.standard_normal(5000).astype(np.float32); bb = rng.standard_normal(5000).astype(np.float32)
(o,), t = run("level1/24_MSELoss/cuda_blockatomic.py", "mse_kernel", 4, 256, [a, bb, np.zeros(1, np.float32), 5000, 1.0/5000], [2]); check("mse blockatomic", close(o[0], ((a-bb)**2).mean()), t)
(o,), t = run("level1/24_MSELoss/wrong_race.py", "mse_kernel", (5000+255)//256, 256, [a, bb, np.zeros(1, np.float32), 5000, 1.0/5000], [2]); check("mse race FAILS", not close(o[0], ((a-bb)**2).mean()), t)
# matvec warp
Am = rng.standard_normal((50, 300)).astype(np.float32); xv = rng.standard_normal(300).astype(np.float32)
(o,), t = run("level1/19_MatVec/cuda_warprow.py", "matvec_warp_kernel", (50*32+255)//256, 256, [Am, xv, np.zeros(50, np.float32), 50, 300], [2]); check("matvec warp", close(o, Am @ xv), t)


# ---- Triton candidates through kernsim.compile_triton (the kernels as the candidate files define them)
def tri(rel, kname, grid, args, constexprs, out_idx, num_warps=4):
    import importlib.util
    spec = importlib.util.spec_from_file_location("kbtri_" + kname, os.path.join(KB, rel))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = kernsim.compile_triton(getattr(mod, kname), args=args, constexprs=constexprs, arch="h200", num_warps=num_warps)
    # Triton's kernels take their shared memory as dynamic shared memory of the size in its metadata
    r = kernsim.launch(m.kernel(), grid=grid, block=None, args=args, full=True,
                       dynamic_shared_bytes=m.extra["triton"]["shared"])
    return [r.outputs[i] for i in out_idx], r.time_us


q, kk, v = (rng.standard_normal((2, 100, 64)).astype(np.float32) for _ in range(3))
att = (torch.softmax(torch.from_numpy(q) @ torch.from_numpy(kk).transpose(1, 2) / 8.0, -1) @ torch.from_numpy(v)).numpy()
(o,), t = tri("level2/10_Attention/triton_flash.py", "flash_attn_kernel", (2, 2), [q, kk, v, np.zeros_like(q), 100, 0.125],
              {"HEAD_D": 64, "BLOCK_M": 64, "BLOCK_N": 64}, [3])
check("triton flash attention", close(o, att), t)
sc = torch.softmax(torch.from_numpy(q) @ torch.from_numpy(kk).transpose(1, 2) * 0.125, -1).numpy()
(o,), t = tri("level2/09_BMM_Softmax/triton_fused.py", "bmm_softmax_kernel", (4, 2), [q, kk, np.zeros((2, 100, 100), np.float32), 100, 0.125],
              {"HEAD_D": 64, "BLOCK_M": 32, "BLOCK_N": 128}, [2], num_warps=8)
check("triton bmm softmax", close(o, sc, 1e-5), t)
Au = rng.random((64, 96)).astype(np.float32); Bu = rng.random((96, 80)).astype(np.float32)
(o,), t = tri("level1/16_Matmul_Square/triton_tf32.py", "matmul_kernel", (1, 2, 1),
              [Au, Bu, np.zeros((64, 80), np.float32), 64, 80, 96, 0, 96, 1, 0, 80, 1, 0, 80, 1],
              {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, [2])
check("triton tf32 matmul (uniform inputs)", close(o, Au @ Bu), t)
(o,), t = tri("level1/13_LayerNorm/triton.py", "layernorm_kernel", (R,), [x, y, w, b, 1e-5, D], {"BLOCK_D": 1024}, [1], num_warps=8)
check("triton layernorm", close(o, ln), t)
(o,), t = tri("level1/22_Cumsum/triton.py", "cumsum_kernel", (R,), [x, y, D], {"BLOCK_D": 1024}, [1], num_warps=8)
check("triton cumsum", close(o, np.cumsum(x, 1)), t)

print(sum(ok for _, ok in res), "of", len(res), "as expected")
sys.exit(0 if all(ok for _, ok in res) else 1)
