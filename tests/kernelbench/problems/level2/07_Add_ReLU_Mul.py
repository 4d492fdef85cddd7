"""relu(a + b) * c, elementwise over three tensors.

Size chosen: a, b, c of 4096 x 2048 float32 (8 Mi each)
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """relu(a + b) * c, elementwise over three tensors."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.relu(a + b) * c


batch_size = 4096
dim = 2048


def get_inputs():
    a = torch.randn(batch_size, dim)
    b = torch.randn(batch_size, dim)
    c = torch.randn(batch_size, dim)
    return [a, b, c]


def get_init_inputs():
    return []
