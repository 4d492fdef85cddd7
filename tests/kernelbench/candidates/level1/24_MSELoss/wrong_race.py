"""KernelBench-format candidate for level1/24_MSELoss: each thread accumulates into the scalar with a non-atomic += (race).

Expected verdict: incorrect (tests/kernelbench/manifest.json).
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

// Every thread adds its own term into *out with a plain +=: a data race (lost updates).
__global__ void mse_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                           int64_t n, float inv_n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float d = a[i] - b[i];
        *out += d * d * inv_n;
    }
}

torch::Tensor mse_cuda(torch::Tensor a, torch::Tensor b) {
    CHECK_INPUT(a);
    CHECK_INPUT(b);
    const int64_t n = a.numel();
    auto out = torch::zeros({}, a.options());
    mse_kernel<<<(int)((n + 255) / 256), 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n, 1.0f / (float)n);
    return out;
}
"""

cpp_source = r"""
torch::Tensor mse_cuda(torch::Tensor a, torch::Tensor b);
"""

wrong_race_ext = load_inline(
    name="kb_l1_24_wrong_race",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['mse_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, predictions, targets) -> torch.Tensor:
        return wrong_race_ext.mse_cuda(predictions, targets)
