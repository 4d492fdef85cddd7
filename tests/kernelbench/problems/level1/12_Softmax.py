"""Softmax over dim 1.

Size chosen: x of 4096 x 2048 float32 (8 Mi elements); one row per CUDA block / Triton program
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Softmax over dim 1."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4096
dim = 2048


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
