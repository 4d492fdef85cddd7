"""HardTanh activation (clamp to [-1, 1]), elementwise.

Size chosen: x of 4096 x 2048 float32 (8 Mi elements, 32 MiB in + 32 MiB out): large enough that the H200 time is memory-bound rather than launch-bound, small enough for the CPU simulator
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """HardTanh activation (clamp to [-1, 1]), elementwise."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(x, min_val=-1.0, max_val=1.0)


batch_size = 4096
dim = 2048


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
