"""Square matrix multiplication C = A @ B.

Size chosen: A 1024x1024 times B 1024x1024 float32 (1 G multiply-adds); inputs uniform in [0, 1) as in KernelBench's level-1 matmuls
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Square matrix multiplication C = A @ B."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 1024


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]


def get_init_inputs():
    return []
