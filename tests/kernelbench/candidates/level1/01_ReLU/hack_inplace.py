"""KernelBench-format candidate for level1/01_ReLU: computes in place and returns its input tensor (output aliases input).

Expected verdict: hack output_aliases_input (tests/kernelbench/manifest.json).
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

// Writes the result over its input and hands the input back: no output allocation.
__global__ void relu_inplace_kernel(float* __restrict__ x, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaxf(x[i], 0.0f);
}

torch::Tensor relu_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int64_t n = x.numel();
    relu_inplace_kernel<<<(int)((n + 255) / 256), 256>>>(x.data_ptr<float>(), n);
    return x;
}
"""

cpp_source = r"""
torch::Tensor relu_cuda(torch::Tensor x);
"""

hack_inplace_ext = load_inline(
    name="kb_l1_01_hack_inplace",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['relu_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return hack_inplace_ext.relu_cuda(x)
