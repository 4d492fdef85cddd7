"""nn.Linear, GELU, then multiplication by a constant.

Size chosen: x 256x1024, W 2048x1024 float32 (0.5 G multiply-adds)
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """nn.Linear, GELU, then multiplication by a constant."""

    def __init__(self, in_features: int, out_features: int, scale: float):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.gemm(x)) * self.scale


batch_size = 256
in_features = 1024
out_features = 2048
scale = 2.0


def get_inputs():
    x = torch.randn(batch_size, in_features)
    return [x]


def get_init_inputs():
    return [in_features, out_features, scale]
