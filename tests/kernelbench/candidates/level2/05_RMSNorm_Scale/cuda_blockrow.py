"""KernelBench-format candidate for level2/05_RMSNorm_Scale: one 256-thread block per row, warp-shuffle + shared-memory block reductions (fast).

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

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Sum over the block; every thread gets the result. Safe to call repeatedly in one kernel.
__device__ float block_sum(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = (lane < nwarps) ? partial[lane] : 0.0f;
    if (warp == 0) v = warp_sum(v);
    if (threadIdx.x == 0) partial[0] = v;
    __syncthreads();
    return partial[0];
}

__device__ float block_max(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = (lane < nwarps) ? partial[lane] : -INFINITY;
    if (warp == 0) v = warp_max(v);
    if (threadIdx.x == 0) partial[0] = v;
    __syncthreads();
    return partial[0];
}

__global__ void rmsnorm_scale_blockrow_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t rows, int D, const float* __restrict__ w, float eps) {
    const int64_t row = blockIdx.x;
    const float* xr = x + row * D;
    float* yr = out + row * D;
    (void)yr;
    float ss = 0.0f;
    for (int j = threadIdx.x; j < D; j += blockDim.x) ss += xr[j] * xr[j];
    const float r = rsqrtf(block_sum(ss) / D + eps);
    for (int j = threadIdx.x; j < D; j += blockDim.x) yr[j] = xr[j] * r * w[j];
}

torch::Tensor rmsnorm_scale_cuda(torch::Tensor x, torch::Tensor w, double eps) {
    CHECK_INPUT(x);
    CHECK_INPUT(w);
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    const int64_t rows = x.size(0);
    const int D = (int)x.size(1);
    auto out = torch::empty_like(x);
    const int threads = 256;
    rmsnorm_scale_blockrow_kernel<<<rows, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, D, w.data_ptr<float>(), (float)eps);
    return out;
}
"""

cpp_source = r"""
torch::Tensor rmsnorm_scale_cuda(torch::Tensor x, torch::Tensor w, double eps);
"""

cuda_blockrow_ext = load_inline(
    name="kb_l2_05_cuda_blockrow",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['rmsnorm_scale_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x) -> torch.Tensor:
        return cuda_blockrow_ext.rmsnorm_scale_cuda(x, self.weight, self.eps)
