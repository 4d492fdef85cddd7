"""KernelBench-format candidate for level1/12_Softmax: Triton, one program per row holding the whole row in registers.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, scale, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=-float("inf")) * scale
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * D + cols, y, mask=mask)


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    rows, D = x.shape
    out = torch.empty_like(x)
    BLOCK_D = triton.next_power_of_2(D)
    softmax_kernel[(rows,)](x, out, 1.0, D, BLOCK_D=BLOCK_D, num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return triton_softmax(x)
