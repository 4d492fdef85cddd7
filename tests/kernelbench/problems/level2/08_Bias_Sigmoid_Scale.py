"""Per-channel bias add, sigmoid, then a constant scale on an NCHW tensor.

Size chosen: x of 32 x 128 x 32 x 32 float32 (4 Mi elements); bias 128x1x1
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Per-channel bias add, sigmoid, then a constant scale on an NCHW tensor."""

    def __init__(self, channels: int, scale: float):
        super(Model, self).__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1))
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x + self.bias) * self.scale


batch_size = 32
channels = 128
height = 32
width = 32
scale = 2.0


def get_inputs():
    x = torch.randn(batch_size, channels, height, width)
    return [x]


def get_init_inputs():
    return [channels, scale]
