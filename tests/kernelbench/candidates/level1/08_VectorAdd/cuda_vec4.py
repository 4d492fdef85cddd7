"""KernelBench-format candidate for level1/08_VectorAdd: float4, grid-stride (fast).

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
#include <ATen/cuda/CUDAContext.h>

__global__ void add_vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                                float4* __restrict__ out, int64_t n4) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const float4 x = a[i], y = b[i];
        out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b) {
    CHECK_INPUT(a);
    CHECK_INPUT(b);
    TORCH_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape");
    TORCH_CHECK(a.numel() % 4 == 0, "this kernel needs a multiple of 4 elements");
    auto out = torch::empty_like(a);
    const int64_t n4 = a.numel() / 4;
    const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    const int blocks = (int)std::min<int64_t>((n4 + 255) / 256, (int64_t)sms * 8);
    add_vec4_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const float4*>(a.data_ptr<float>()), reinterpret_cast<const float4*>(b.data_ptr<float>()),
        reinterpret_cast<float4*>(out.data_ptr<float>()), n4);
    return out;
}
"""

cpp_source = r"""
torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b);
"""

cuda_vec4_ext = load_inline(
    name="kb_l1_08_cuda_vec4",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['add_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, a, b) -> torch.Tensor:
        return cuda_vec4_ext.add_cuda(a, b)
