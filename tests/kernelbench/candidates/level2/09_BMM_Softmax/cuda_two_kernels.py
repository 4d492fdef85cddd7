"""KernelBench-format candidate for level2/09_BMM_Softmax: naive scores kernel, then an in-place row softmax kernel (two launches).

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

__global__ void scores_kernel(const float* __restrict__ q, const float* __restrict__ k, float* __restrict__ s,
                              int S, int Dh, float scale) {
    const int b = blockIdx.z;
    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= S || col >= S) return;
    const float* qr = q + ((int64_t)b * S + row) * Dh;
    const float* kr = k + ((int64_t)b * S + col) * Dh;
    float acc = 0.0f;
    for (int d = 0; d < Dh; ++d) acc += qr[d] * kr[d];
    s[((int64_t)b * S + row) * S + col] = acc * scale;
}

// In place, one block per row of scores.
__global__ void softmax_rows_kernel(float* __restrict__ s, int S) {
    float* r = s + (int64_t)blockIdx.x * S;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < S; j += blockDim.x) m = fmaxf(m, r[j]);
    m = block_max(m);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < S; j += blockDim.x) sum += __expf(r[j] - m);
    sum = block_sum(sum);
    for (int j = threadIdx.x; j < S; j += blockDim.x) r[j] = __expf(r[j] - m) / sum;
}

torch::Tensor bmm_softmax_cuda(torch::Tensor q, torch::Tensor k, double scale) {
    CHECK_INPUT(q);
    CHECK_INPUT(k);
    const int B = (int)q.size(0), S = (int)q.size(1), Dh = (int)q.size(2);
    auto s = torch::empty({B, S, S}, q.options());
    const dim3 block(16, 16), grid((S + 15) / 16, (S + 15) / 16, B);
    scores_kernel<<<grid, block>>>(q.data_ptr<float>(), k.data_ptr<float>(), s.data_ptr<float>(), S, Dh, (float)scale);
    softmax_rows_kernel<<<B * S, 256>>>(s.data_ptr<float>(), S);
    return s;
}
"""

cpp_source = r"""
torch::Tensor bmm_softmax_cuda(torch::Tensor q, torch::Tensor k, double scale);
"""

cuda_two_kernels_ext = load_inline(
    name="kb_l2_09_cuda_two_kernels",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['bmm_softmax_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super(ModelNew, self).__init__()
        self.scale = scale

    def forward(self, q, k) -> torch.Tensor:
        return cuda_two_kernels_ext.bmm_softmax_cuda(q, k, self.scale)
