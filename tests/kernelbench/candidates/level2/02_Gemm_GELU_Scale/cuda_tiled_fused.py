"""KernelBench-format candidate for level2/02_Gemm_GELU_Scale: 32x32 shared-memory tiles with the bias/activation epilogue fused.

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

#define TILE 32

__global__ void linear_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K, const float* __restrict__ bias, float scale) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? A[(int64_t)row * K + t + threadIdx.x] : 0.0f;
        {  // W tile loaded along K (coalesced) and stored transposed
            const int wn = blockIdx.x * TILE + threadIdx.y, wk = t + threadIdx.x;
            Bs[threadIdx.x][threadIdx.y] = (wn < N && wk < K) ? B[(int64_t)wn * K + wk] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) {
        C[(int64_t)row * N + col] = 0.5f * (acc + bias[col]) * (1.0f + erff((acc + bias[col]) * 0.70710678118654752f)) * scale;
    }
}

torch::Tensor linear_cuda(torch::Tensor x, torch::Tensor W, torch::Tensor bias, double scale) {
    CHECK_INPUT(x);
    CHECK_INPUT(W);
    CHECK_INPUT(bias);
    const int M = (int)x.size(0), K = (int)x.size(1), N = (int)W.size(0);
    TORCH_CHECK(W.size(1) == K && bias.numel() == N, "shape mismatch");
    auto C = torch::empty({M, N}, x.options());
    const dim3 block(32, 32);
    const dim3 grid((N + 31) / 32, (M + 31) / 32);
    linear_tiled_kernel<<<grid, block>>>(x.data_ptr<float>(), W.data_ptr<float>(), C.data_ptr<float>(), M, N, K, bias.data_ptr<float>(), (float)scale);
    return C;
}
"""

cpp_source = r"""
torch::Tensor linear_cuda(torch::Tensor x, torch::Tensor W, torch::Tensor bias, double scale);
"""

cuda_tiled_fused_ext = load_inline(
    name="kb_l2_02_cuda_tiled_fused",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['linear_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, scale: float):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x) -> torch.Tensor:
        return cuda_tiled_fused_ext.linear_cuda(x, self.gemm.weight, self.gemm.bias, self.scale)
