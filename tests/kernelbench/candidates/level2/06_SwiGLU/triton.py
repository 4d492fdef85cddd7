"""KernelBench-format candidate for level2/06_SwiGLU: Triton, 2-D grid (row, 1024-column block).

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(x_ptr, out_ptr, H, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < H
    a = tl.load(x_ptr + row * 2 * H + cols, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * 2 * H + H + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * H + cols, a / (1.0 + tl.exp(-a)) * b, mask=mask)


def triton_swiglu(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda
    x = x.contiguous()
    rows, D = x.shape
    H = D // 2
    out = torch.empty((rows, H), device=x.device, dtype=x.dtype)
    swiglu_kernel[(rows, triton.cdiv(H, 1024))](x, out, H, BLOCK=1024, num_warps=4)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return triton_swiglu(x)
