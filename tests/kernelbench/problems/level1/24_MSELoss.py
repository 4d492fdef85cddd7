"""Mean squared error between two tensors (a scalar).

Size chosen: a and b of 4096 x 2048 float32 (8 Mi each)
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Mean squared error between two tensors (a scalar)."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean((predictions - targets) ** 2)


batch_size = 4096
dim = 2048


def get_inputs():
    predictions = torch.randn(batch_size, dim)
    targets = torch.randn(batch_size, dim)
    return [predictions, targets]


def get_init_inputs():
    return []
