"""KernelBench-format candidate for level1/03_Sigmoid: float4 vectorised, grid-stride over 8 blocks per SM (fast).

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

__device__ __forceinline__ float sigmoid_f(float v) { return 1.0f / (1.0f + __expf(-v)); }

// float4 loads and stores, grid-stride loop; block 0 also does the n % 4 tail.
__global__ void sigmoid_vec4_kernel(const float4* __restrict__ x4, float4* __restrict__ out4, int64_t n4,
                                 const float* __restrict__ x, float* __restrict__ out, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x4[i];
        v.x = sigmoid_f(v.x);
        v.y = sigmoid_f(v.y);
        v.z = sigmoid_f(v.z);
        v.w = sigmoid_f(v.w);
        out4[i] = v;
    }
    if (blockIdx.x == 0 && threadIdx.x < n - 4 * n4) {
        const int64_t j = 4 * n4 + threadIdx.x;
        out[j] = sigmoid_f(x[j]);
    }
}

torch::Tensor sigmoid_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    auto out = torch::empty_like(x);
    const int64_t n = x.numel();
    const int64_t n4 = n / 4;
    const int threads = 256;
    const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    int blocks = (int)std::min<int64_t>((n4 + threads - 1) / threads, (int64_t)sms * 8);
    if (blocks < 1) blocks = 1;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sigmoid_vec4_kernel<<<blocks, threads, 0, stream>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), reinterpret_cast<float4*>(out.data_ptr<float>()),
        n4, x.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

cpp_source = r"""
torch::Tensor sigmoid_cuda(torch::Tensor x);
"""

cuda_vec4_ext = load_inline(
    name="kb_l1_03_cuda_vec4",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['sigmoid_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x) -> torch.Tensor:
        return cuda_vec4_ext.sigmoid_cuda(x)
