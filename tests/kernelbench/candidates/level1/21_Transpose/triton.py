"""KernelBench-format candidate for level1/21_Transpose: Triton 64x64 tile, tl.trans.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    offs_r = pid_r * BLOCK + tl.arange(0, BLOCK)
    offs_c = pid_c * BLOCK + tl.arange(0, BLOCK)
    mask = (offs_r[:, None] < R) & (offs_c[None, :] < C)
    tile = tl.load(x_ptr + offs_r[:, None] * C + offs_c[None, :], mask=mask)
    out_mask = (offs_c[:, None] < C) & (offs_r[None, :] < R)
    tl.store(out_ptr + offs_c[:, None] * R + offs_r[None, :], tl.trans(tile), mask=out_mask)


def triton_transpose(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    R, C = x.shape
    out = torch.empty((C, R), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(R, 64), triton.cdiv(C, 64))
    transpose_kernel[grid](x, out, R, C, BLOCK=64, num_warps=4)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return triton_transpose(x)
