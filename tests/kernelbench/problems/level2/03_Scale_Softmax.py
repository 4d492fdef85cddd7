"""Scale then softmax over the last dim (attention-score style fusion).

Size chosen: x of 4096 x 2048 float32 (8 Mi elements); one row per CUDA block / Triton program
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Scale then softmax over the last dim (attention-score style fusion)."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x * self.scale, dim=-1)


batch_size = 4096
dim = 2048
scale = 0.125


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [scale]
