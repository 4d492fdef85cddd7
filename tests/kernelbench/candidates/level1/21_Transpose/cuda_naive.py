"""KernelBench-format candidate for level1/21_Transpose: one element per thread: coalesced reads, strided writes (naive).

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

__global__ void transpose_naive_kernel(const float* __restrict__ x, float* __restrict__ out, int R, int C) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < R && c < C) out[(int64_t)c * R + r] = x[(int64_t)r * C + c];
}

torch::Tensor transpose_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int R = (int)x.size(0), C = (int)x.size(1);
    auto out = torch::empty({C, R}, x.options());
    const dim3 block(32, 8);
    const dim3 grid((C + 31) / 32, (R + 7) / 8);
    transpose_naive_kernel<<<grid, block>>>(x.data_ptr<float>(), out.data_ptr<float>(), R, C);
    return out;
}
"""

cpp_source = r"""
torch::Tensor transpose_cuda(torch::Tensor x);
"""

cuda_naive_ext = load_inline(
    name="kb_l1_21_cuda_naive",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['transpose_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return cuda_naive_ext.transpose_cuda(x)
