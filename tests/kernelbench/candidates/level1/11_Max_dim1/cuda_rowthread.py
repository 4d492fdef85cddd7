"""KernelBench-format candidate for level1/11_Max_dim1: one thread per row, sequential loops (naive; uncoalesced).

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

__global__ void max_rowthread_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t rows, int D) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * D;
    float* yr = out + row * D;
    (void)yr;
    float m = -INFINITY;
    for (int j = 0; j < D; j += 1) m = fmaxf(m, xr[j]);
    m = (m);
    if (true) out[row] = m;
}

torch::Tensor max_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    const int64_t rows = x.size(0);
    const int D = (int)x.size(1);
    auto out = torch::empty({rows}, x.options());
    const int threads = 256;
    max_rowthread_kernel<<<(int)((rows + threads - 1) / threads), threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, D);
    return out;
}
"""

cpp_source = r"""
torch::Tensor max_cuda(torch::Tensor x);
"""

cuda_rowthread_ext = load_inline(
    name="kb_l1_11_cuda_rowthread",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['max_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return cuda_rowthread_ext.max_cuda(x)
