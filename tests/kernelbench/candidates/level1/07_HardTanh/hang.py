"""KernelBench-format candidate for level1/07_HardTanh: spins on a flag nothing sets (never terminates).

Expected verdict: timeout (tests/kernelbench/manifest.json).
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

// Waits for a flag that nothing ever sets: never terminates.
__global__ void hardtanh_kernel(const float* __restrict__ x, float* __restrict__ out,
                                const int* __restrict__ ready, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    while (((volatile const int*)ready)[0] == 0) {
    }
    if (i < n) out[i] = fminf(fmaxf(x[i], -1.0f), 1.0f);
}

torch::Tensor hardtanh_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    auto out = torch::empty_like(x);
    auto ready = torch::zeros({1}, x.options().dtype(torch::kInt32));
    const int64_t n = x.numel();
    hardtanh_kernel<<<(int)((n + 255) / 256), 256>>>(x.data_ptr<float>(), out.data_ptr<float>(),
                                                     ready.data_ptr<int>(), n);
    return out;
}
"""

cpp_source = r"""
torch::Tensor hardtanh_cuda(torch::Tensor x);
"""

hang_ext = load_inline(
    name="kb_l1_07_hang",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['hardtanh_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return hang_ext.hardtanh_cuda(x)
