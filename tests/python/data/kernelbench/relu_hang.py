import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def spin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = 0
    while i >= 0:                 # never ends
        i = (i + 1) % 7
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + i)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        spin_kernel[(1,)](x, y, x.numel(), BLOCK=128)
        return y
