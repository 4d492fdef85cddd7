"""Elementwise sum of two tensors.

Size chosen: a and b, each 4096 x 2048 float32 (8 Mi elements, 64 MiB in + 32 MiB out): large enough that the H200 time is memory-bound rather than launch-bound, small enough for the CPU simulator
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Elementwise sum of two tensors."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


batch_size = 4096
dim = 2048


def get_inputs():
    a = torch.randn(batch_size, dim)
    b = torch.randn(batch_size, dim)
    return [a, b]


def get_init_inputs():
    return []
