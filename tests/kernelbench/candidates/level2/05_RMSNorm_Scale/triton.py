"""KernelBench-format candidate for level2/05_RMSNorm_Scale: Triton, one program per row holding the whole row in registers.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def rmsnorm_scale_kernel(x_ptr, out_ptr, w_ptr, eps, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)
    r = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)
    y = x * r * tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * D + cols, y, mask=mask)


def triton_rmsnorm_scale(x: torch.Tensor, w, eps) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    rows, D = x.shape
    out = torch.empty_like(x)
    BLOCK_D = triton.next_power_of_2(D)
    rmsnorm_scale_kernel[(rows,)](x, out, w, eps, D, BLOCK_D=BLOCK_D, num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x) -> torch.Tensor:
        return triton_rmsnorm_scale(x, self.weight, self.eps)
