"""KernelBench-format candidate for level2/06_SwiGLU: one output per thread, both halves read in the same kernel.

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

__global__ void swiglu_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t rows, int H) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * H) return;
    const int64_t r = i / H, c = i % H;
    const float a = x[r * 2 * H + c], b = x[r * 2 * H + H + c];
    out[i] = a / (1.0f + __expf(-a)) * b;
}

torch::Tensor swiglu_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int64_t rows = x.size(0);
    const int H = (int)(x.size(1) / 2);
    auto out = torch::empty({rows, H}, x.options());
    swiglu_kernel<<<(int)((rows * H + 255) / 256), 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, H);
    return out;
}
"""

cpp_source = r"""
torch::Tensor swiglu_cuda(torch::Tensor x);
"""

cuda_naive_ext = load_inline(
    name="kb_l2_06_cuda_naive",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['swiglu_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return cuda_naive_ext.swiglu_cuda(x)
