import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=m) - tl.load(b_ptr + offs, mask=m), mask=m)  # a - b


def custom_kernel(data):
    a, b = data
    c = torch.empty_like(a)
    add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, c, a.numel(), BLOCK=1024)
    return c
