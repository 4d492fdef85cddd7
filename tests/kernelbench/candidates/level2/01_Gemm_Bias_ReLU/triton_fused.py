"""KernelBench-format candidate for level2/01_Gemm_Bias_ReLU: Triton tl.dot (IEEE fp32) with the bias/activation epilogue in registers.

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def linear_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_az, stride_am, stride_ak, stride_bz, stride_bk,
                  stride_bn, stride_cz, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    z = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + z * stride_az + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + z * stride_bz + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    c_ptrs = c_ptr + z * stride_cz + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def triton_linear(x: torch.Tensor, W: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and W.is_cuda
    M, K = x.shape
    N = W.shape[0]
    C = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), 1)
    # W is [N, K]: read it as B[k, n] through its strides
    linear_kernel[grid](x, W, C, bias, M, N, K, 0, x.stride(0), x.stride(1), 0, W.stride(1), W.stride(0), 0,
                        C.stride(0), C.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)
    return C


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x) -> torch.Tensor:
        return triton_linear(x, self.gemm.weight, self.gemm.bias)
