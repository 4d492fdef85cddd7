"""KernelBench-format candidate for level1/19_MatVec: one thread per row (naive: uncoalesced).

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

__global__ void matvec_thread_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                     int M, int K) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[(int64_t)row * K + k] * x[k];
        y[row] = acc;
    }
}

torch::Tensor matvec_cuda(torch::Tensor A, torch::Tensor x) {
    CHECK_INPUT(A);
    CHECK_INPUT(x);
    const int M = (int)A.size(0), K = (int)A.size(1);
    TORCH_CHECK(x.numel() == K, "x must have K elements");
    auto y = torch::empty({M, 1}, A.options());
    matvec_thread_kernel<<<(M + 255) / 256, 256>>>(A.data_ptr<float>(), x.data_ptr<float>(), y.data_ptr<float>(), M, K);
    return y;
}
"""

cpp_source = r"""
torch::Tensor matvec_cuda(torch::Tensor A, torch::Tensor x);
"""

cuda_rowthread_ext = load_inline(
    name="kb_l1_19_cuda_rowthread",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['matvec_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, A, x) -> torch.Tensor:
        return cuda_rowthread_ext.matvec_cuda(A, x)
