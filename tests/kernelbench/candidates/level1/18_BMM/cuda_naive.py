"""KernelBench-format candidate for level1/18_BMM: one thread per output, batch on grid z (naive).

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

__global__ void bmm_naive_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    const int64_t z = blockIdx.z;
    A += z * (int64_t)M * K;
    B += z * (int64_t)K * N;
    C += z * (int64_t)M * N;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int kk = 0; kk < K; ++kk) acc += A[(int64_t)row * K + kk] * B[(int64_t)kk * N + col];
        C[(int64_t)row * N + col] = acc;
    }
}

torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B) {
    CHECK_INPUT(A);
    CHECK_INPUT(B);
    TORCH_CHECK(A.dim() == 3 && B.dim() == 3 && A.size(0) == B.size(0) && A.size(2) == B.size(1), "shape mismatch");
    const int batch = (int)A.size(0), M = (int)A.size(1), K = (int)A.size(2), N = (int)B.size(2);
    auto C = torch::empty({batch, M, N}, A.options());
    const dim3 block(16, 16);
    const dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
    bmm_naive_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    return C;
}
"""

cpp_source = r"""
torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B);
"""

cuda_naive_ext = load_inline(
    name="kb_l1_18_cuda_naive",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['bmm_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, A, B) -> torch.Tensor:
        return cuda_naive_ext.bmm_cuda(A, B)
