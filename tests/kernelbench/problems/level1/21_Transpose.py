"""2-D transpose materialised contiguously: x.t().contiguous().

Size chosen: x of 4096 x 2048 float32 (8 Mi elements)
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """2-D transpose materialised contiguously: x.t().contiguous()."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()


rows = 4096
cols = 2048


def get_inputs():
    x = torch.randn(rows, cols)
    return [x]


def get_init_inputs():
    return []
