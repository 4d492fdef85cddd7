"""KernelBench-format candidate for level2/01_Gemm_Bias_ReLU: GEMM + epilogue in one kernel, one thread per output (naive).

Expected verdict: correct (tests/kernelbench/manifest.json).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_FLOAT(x) TORCH_CHECK(x.scalar_type() == torch::kFloat32, #x " must be float32")
#define CHECK_INPUT(x) CHECK_CUDA(x); CHECK_CONTIGUOUS(x); CHECK_FLOAT(x)

__global__ void linear_naive_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K, const float* __restrict__ bias) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int kk = 0; kk < K; ++kk) acc += A[(int64_t)row * K + kk] * B[(int64_t)col * K + kk];
        C[(int64_t)row * N + col] = fmaxf(acc + bias[col], 0.0f);
    }
}

torch::Tensor linear_cuda(torch::Tensor x, torch::Tensor W, torch::Tensor bias) {
    CHECK_INPUT(x);
    CHECK_INPUT(W);
    CHECK_INPUT(bias);
    const int M = (int)x.size(0), K = (int)x.size(1), N = (int)W.size(0);
    TORCH_CHECK(W.size(1) == K && bias.numel() == N, "shape mismatch");
    auto C = torch::empty({M, N}, x.options());
    const dim3 block(16, 16);
    const dim3 grid((N + 15) / 16, (M + 15) / 16);
    linear_naive_kernel<<<grid, block>>>(x.data_ptr<float>(), W.data_ptr<float>(), C.data_ptr<float>(), M, N, K, bias.data_ptr<float>());
    return C;
}
"""

cpp_source = r"""
torch::Tensor linear_cuda(torch::Tensor x, torch::Tensor W, torch::Tensor bias);
"""

cuda_naive_fused_ext = load_inline(
    name="kb_l2_01_cuda_naive_fused",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['linear_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x) -> torch.Tensor:
        return cuda_naive_fused_ext.linear_cuda(x, self.gemm.weight, self.gemm.bias)
