"""KernelBench-format candidate for level2/07_Add_ReLU_Mul: Triton, fused in one pass.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


BLOCK_SIZE = 1024


@triton.jit
def add_relu_mul_kernel(a_ptr, b_ptr, c_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(a + b, 0.0) * c, mask=mask)


def triton_add_relu_mul(a, b, c):
    assert a.is_cuda and b.is_cuda and c.is_cuda
    out = torch.empty_like(a)
    n = a.numel()
    add_relu_mul_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, c, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, a, b, c) -> torch.Tensor:
        return triton_add_relu_mul(a, b, c)
