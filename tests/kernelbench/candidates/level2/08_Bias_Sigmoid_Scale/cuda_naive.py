"""KernelBench-format candidate for level2/08_Bias_Sigmoid_Scale: one element per thread, channel from the flat index.

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

__global__ void bias_sigmoid_scale_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                          float* __restrict__ out, int64_t n, int C, int HW, float scale) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int c = (int)((i / HW) % C);
        const float v = x[i] + bias[c];
        out[i] = scale / (1.0f + __expf(-v));
    }
}

torch::Tensor bias_sigmoid_scale_cuda(torch::Tensor x, torch::Tensor bias, double scale) {
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    const int C = (int)x.size(1), HW = (int)(x.size(2) * x.size(3));
    TORCH_CHECK(bias.numel() == C, "one bias per channel");
    auto out = torch::empty_like(x);
    const int64_t n = x.numel();
    bias_sigmoid_scale_kernel<<<(int)((n + 255) / 256), 256>>>(x.data_ptr<float>(), bias.data_ptr<float>(),
                                                             out.data_ptr<float>(), n, C, HW, (float)scale);
    return out;
}
"""

cpp_source = r"""
torch::Tensor bias_sigmoid_scale_cuda(torch::Tensor x, torch::Tensor bias, double scale);
"""

cuda_naive_ext = load_inline(
    name="kb_l2_08_cuda_naive",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['bias_sigmoid_scale_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, channels: int, scale: float):
        super(ModelNew, self).__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1))
        self.scale = scale

    def forward(self, x) -> torch.Tensor:
        return cuda_naive_ext.bias_sigmoid_scale_cuda(x, self.bias, self.scale)
