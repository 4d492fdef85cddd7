"""LayerNorm over the last dim followed by GELU.

Size chosen: x of 4096 x 2048 float32 (8 Mi elements); one row per CUDA block / Triton program
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """LayerNorm over the last dim followed by GELU."""

    def __init__(self, normalized_shape: int):
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.ln(x))


batch_size = 4096
dim = 2048


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim]
