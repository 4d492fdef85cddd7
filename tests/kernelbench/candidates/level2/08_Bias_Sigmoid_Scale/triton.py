"""KernelBench-format candidate for level2/08_Bias_Sigmoid_Scale: Triton, one (n, c) plane per program row, the channel's bias loaded once.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def bias_sigmoid_scale_kernel(x_ptr, bias_ptr, out_ptr, HW, C, scale, BLOCK: tl.constexpr):
    plane = tl.program_id(0)  # one (n, c) plane per program row
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < HW
    bias = tl.load(bias_ptr + plane % C)
    x = tl.load(x_ptr + plane * HW + offs, mask=mask, other=0.0)
    tl.store(out_ptr + plane * HW + offs, scale / (1.0 + tl.exp(-(x + bias))), mask=mask)


def triton_bias_sigmoid_scale(x, bias, scale):
    assert x.is_cuda
    x = x.contiguous()
    N, C, H, W = x.shape
    out = torch.empty_like(x)
    HW = H * W
    bias_sigmoid_scale_kernel[(N * C, triton.cdiv(HW, 1024))](x, bias, out, HW, C, scale, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, channels: int, scale: float):
        super(ModelNew, self).__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1))
        self.scale = scale

    def forward(self, x) -> torch.Tensor:
        return triton_bias_sigmoid_scale(x, self.bias, self.scale)
