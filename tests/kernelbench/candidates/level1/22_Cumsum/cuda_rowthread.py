"""KernelBench-format candidate for level1/22_Cumsum: one thread per row, sequential running sum (naive).

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

__global__ void cumsum_row_kernel(const float* __restrict__ x, float* __restrict__ out, int rows, int D) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = 0.0f;
    for (int j = 0; j < D; ++j) {
        s += x[(int64_t)row * D + j];
        out[(int64_t)row * D + j] = s;
    }
}

torch::Tensor cumsum_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int rows = (int)x.size(0), D = (int)x.size(1);
    auto out = torch::empty_like(x);
    cumsum_row_kernel<<<(rows + 127) / 128, 128>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, D);
    return out;
}
"""

cpp_source = r"""
torch::Tensor cumsum_cuda(torch::Tensor x);
"""

cuda_rowthread_ext = load_inline(
    name="kb_l1_22_cuda_rowthread",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['cumsum_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x) -> torch.Tensor:
        return cuda_rowthread_ext.cumsum_cuda(x)
