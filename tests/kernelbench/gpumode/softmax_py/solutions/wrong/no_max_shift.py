"""A wrong softmax_py submission: divides by a sum over only the first half of the row (it also skips
the max shift, harmless at these magnitudes). check_implementation must reject it."""
import torch
import triton
import triton.language as tl

from task import input_t, output_t


@triton.jit
def softmax_half_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x)
    s = tl.sum(tl.where(offs < cols // 2, e, 0.0), axis=0)
    tl.store(out_ptr + row * cols + offs, e / s, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    rows, cols = data.shape
    out = torch.empty_like(data)
    softmax_half_kernel[(rows,)](data, out, cols, BLOCK=triton.next_power_of_2(cols), num_warps=4)
    return out
