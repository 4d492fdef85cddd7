"""KernelBench-format candidate for level1/24_MSELoss: Triton block sums combined with tl.atomic_add.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


BLOCK_SIZE = 4096


@triton.jit
def mse_kernel(a_ptr, b_ptr, out_ptr, n_elements, inv_n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    d = tl.load(a_ptr + offs, mask=mask, other=0.0) - tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(d * d, axis=0) * inv_n)


def triton_mse(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert a.is_cuda and b.is_cuda
    a, b = a.contiguous(), b.contiguous()
    n = a.numel()
    out = torch.zeros((), device=a.device, dtype=torch.float32)
    mse_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, out, n, 1.0 / n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, predictions, targets) -> torch.Tensor:
        return triton_mse(predictions, targets)
