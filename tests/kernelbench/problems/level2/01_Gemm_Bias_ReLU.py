"""nn.Linear followed by ReLU.

Size chosen: x 512x1024, W 1024x1024 float32 (0.5 G multiply-adds)
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """nn.Linear followed by ReLU."""

    def __init__(self, in_features: int, out_features: int):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.gemm(x))


batch_size = 512
in_features = 1024
out_features = 1024


def get_inputs():
    x = torch.randn(batch_size, in_features)
    return [x]


def get_init_inputs():
    return [in_features, out_features]
