"""KernelBench-format candidate for level1/11_Max_dim1: Triton, one program per row holding the whole row in registers.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def max_kernel(x_ptr, out_ptr, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


def triton_max(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    rows, D = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    BLOCK_D = triton.next_power_of_2(D)
    max_kernel[(rows,)](x, out, D, BLOCK_D=BLOCK_D, num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return triton_max(x)
