"""KernelBench-format candidate for level1/21_Transpose: 32x32 shared-memory tile, padded (fast).

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

#define TD 32
#define ROWS 8
// 32x32 tile through shared memory (padded against bank conflicts): both global accesses coalesced.
__global__ void transpose_tiled_kernel(const float* __restrict__ x, float* __restrict__ out, int R, int C) {
    __shared__ float tile[TD][TD + 1];
    int c = blockIdx.x * TD + threadIdx.x;
    int r = blockIdx.y * TD + threadIdx.y;
    for (int i = 0; i < TD; i += ROWS)
        if (r + i < R && c < C) tile[threadIdx.y + i][threadIdx.x] = x[(int64_t)(r + i) * C + c];
    __syncthreads();
    c = blockIdx.y * TD + threadIdx.x;
    r = blockIdx.x * TD + threadIdx.y;
    for (int i = 0; i < TD; i += ROWS)
        if (r + i < C && c < R) out[(int64_t)(r + i) * R + c] = tile[threadIdx.x][threadIdx.y + i];
}

torch::Tensor transpose_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int R = (int)x.size(0), C = (int)x.size(1);
    auto out = torch::empty({C, R}, x.options());
    const dim3 block(32, 8);
    const dim3 grid((C + 31) / 32, (R + 31) / 32);
    transpose_tiled_kernel<<<grid, block>>>(x.data_ptr<float>(), out.data_ptr<float>(), R, C);
    return out;
}
"""

cpp_source = r"""
torch::Tensor transpose_cuda(torch::Tensor x);
"""

cuda_tiled_ext = load_inline(
    name="kb_l1_21_cuda_tiled",
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
        return cuda_tiled_ext.transpose_cuda(x)
