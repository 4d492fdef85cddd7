"""Attention scores: softmax(Q @ K^T * scale) over the keys.

Size chosen: Q, K of 32 x 256 x 64 float32; scores 32 x 256 x 256
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Attention scores: softmax(Q @ K^T * scale) over the keys."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * self.scale, dim=-1)


batch_size = 32
seq_len = 256
head_dim = 64
scale = 0.125


def get_inputs():
    q = torch.randn(batch_size, seq_len, head_dim)
    k = torch.randn(batch_size, seq_len, head_dim)
    return [q, k]


def get_init_inputs():
    return [scale]
