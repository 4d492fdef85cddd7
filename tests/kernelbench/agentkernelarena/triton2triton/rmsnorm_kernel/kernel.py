#!/usr/bin/env python3
"""RMSNorm -- baseline Triton kernel of kernsim's AgentKernelArena-format task (written for kernsim).

y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w. The baseline walks each row twice in chunks of
BLOCK columns (sum of squares, then the scaled store).
"""
import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0)
        tl.store(out_ptr + row * n_cols + offs, x * rstd * w, mask=mask)


def rmsnorm_triton(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    rows, n_cols = x.shape
    rmsnorm_kernel[(rows,)](x, w, out, n_cols, EPS, BLOCK=256, num_warps=4)
    return out


def rmsnorm_pytorch(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    out.copy_(x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + EPS) * w)
    return out


def get_inputs(rows, cols, seed=42, device="cuda"):
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    x = torch.randn(rows, cols, device=device, dtype=torch.float32, generator=gen)
    w = torch.randn(cols, device=device, dtype=torch.float32, generator=gen)
    return x, w, torch.empty_like(x)


EVAL_CONFIGS = [
    {"rows": 64, "cols": 1000, "seed": 4242},
    {"rows": 1024, "cols": 1024, "seed": 5236},
    {"rows": 4096, "cols": 2048, "seed": 1001},
]
