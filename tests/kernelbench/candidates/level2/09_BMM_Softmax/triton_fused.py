"""KernelBench-format candidate for level2/09_BMM_Softmax: Triton, one program per 32 query rows: scores for all 256 keys with tl.dot, softmax in registers, one store.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def bmm_softmax_kernel(q_ptr, k_ptr, out_ptr, S, scale, HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    b = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + b * S * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    k = tl.load(k_ptr + b * S * HEAD_D + offs_n[:, None] * HEAD_D + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
    s = tl.where(offs_n[None, :] < S, s, -float("inf"))
    e = tl.exp(s - tl.max(s, axis=1)[:, None])
    p = e / tl.sum(e, axis=1)[:, None]
    mask = (offs_m[:, None] < S) & (offs_n[None, :] < S)
    tl.store(out_ptr + b * S * S + offs_m[:, None] * S + offs_n[None, :], p, mask=mask)


def triton_bmm_softmax(q, k, scale):
    assert q.is_cuda and k.is_cuda
    q, k = q.contiguous(), k.contiguous()
    B, S, D = q.shape
    out = torch.empty((B, S, S), device=q.device, dtype=q.dtype)
    bmm_softmax_kernel[(triton.cdiv(S, 32), B)](q, k, out, S, scale, HEAD_D=D, BLOCK_M=32,
                                               BLOCK_N=triton.next_power_of_2(S), num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super(ModelNew, self).__init__()
        self.scale = scale

    def forward(self, q, k) -> torch.Tensor:
        return triton_bmm_softmax(q, k, self.scale)
