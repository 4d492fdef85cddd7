"""KernelBench-format candidate for level2/10_Attention: Triton flash-attention style: 64-query tiles, online softmax over 64-key tiles.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def flash_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, scale, HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    b = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_D)
    base = b * S * HEAD_D
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_D + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), dtype=tl.float32)
    for start in range(0, S, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv_mask = offs_n[:, None] < S
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_D + offs_d[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        s = tl.where(offs_n[None, :] < S, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        corr = tl.exp(m_i - m_new)
        l_i = l_i * corr + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD_D + offs_d[None, :], mask=kv_mask, other=0.0)
        acc = acc * corr[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_D + offs_d[None, :], acc, mask=offs_m[:, None] < S)


def triton_attention(q, k, v):
    assert q.is_cuda and k.is_cuda and v.is_cuda
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    B, S, D = q.shape
    o = torch.empty_like(q)
    flash_attn_kernel[(triton.cdiv(S, 64), B)](q, k, v, o, S, 1.0 / D ** 0.5, HEAD_D=D, BLOCK_M=64, BLOCK_N=64,
                                              num_warps=4)
    return o


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, q, k, v) -> torch.Tensor:
        return triton_attention(q, k, v)
