"""SwiGLU gate: split the last dim in two halves a, b and return silu(a) * b.

Size chosen: x of 4096 x 4096 float32 (16 Mi elements in, 8 Mi out)
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """SwiGLU gate: split the last dim in two halves a, b and return silu(a) * b."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


batch_size = 4096
dim = 4096


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
