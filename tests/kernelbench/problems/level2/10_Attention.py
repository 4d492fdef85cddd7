"""Single-head attention per batch entry: softmax(Q K^T / sqrt(d)) V.

Size chosen: Q, K, V of 16 x 512 x 64 float32
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Single-head attention per batch entry: softmax(Q K^T / sqrt(d)) V."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = 1.0 / (q.size(-1) ** 0.5)
        attn = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
        return attn @ v


batch_size = 16
seq_len = 512
head_dim = 64


def get_inputs():
    q = torch.randn(batch_size, seq_len, head_dim)
    k = torch.randn(batch_size, seq_len, head_dim)
    v = torch.randn(batch_size, seq_len, head_dim)
    return [q, k, v]


def get_init_inputs():
    return []
