"""KernelBench-format candidate for level2/04_LayerNorm_GELU: Triton, one program per row holding the whole row in registers.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def layernorm_gelu_kernel(x_ptr, out_ptr, w_ptr, b_ptr, eps, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / D
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / D
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    y = xc * rstd * w + b
    y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    tl.store(out_ptr + row * D + cols, y, mask=mask)


def triton_layernorm_gelu(x: torch.Tensor, w, b, eps) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    rows, D = x.shape
    out = torch.empty_like(x)
    BLOCK_D = triton.next_power_of_2(D)
    layernorm_gelu_kernel[(rows,)](x, out, w, b, eps, D, BLOCK_D=BLOCK_D, num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int):
        super(ModelNew, self).__init__()
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x) -> torch.Tensor:
        return triton_layernorm_gelu(x, self.ln.weight, self.ln.bias, self.ln.eps)
