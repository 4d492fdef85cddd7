"""LeakyReLU activation (negative_slope 0.01), elementwise.

Size chosen: x of 4096 x 2048 float32 (8 Mi elements, 32 MiB in + 32 MiB out): large enough that the H200 time is memory-bound rather than launch-bound, small enough for the CPU simulator
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """LeakyReLU activation (negative_slope 0.01), elementwise."""

    def __init__(self, negative_slope: float = 0.01):
        super(Model, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 4096
dim = 2048


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
