"""KernelBench-format candidate for level2/10_Attention: one thread per query row with an online softmax (naive; no data reuse).

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

#define HEAD_D 64
// One thread per query row: online softmax over the keys, output accumulated in registers.
__global__ void attention_row_kernel(const float* __restrict__ q, const float* __restrict__ k,
                                     const float* __restrict__ v, float* __restrict__ o, int B, int S, float scale) {
    const int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= (int64_t)B * S) return;
    const int b = gid / S;
    const float* qr = q + gid * HEAD_D;
    const float* kb = k + (int64_t)b * S * HEAD_D;
    const float* vb = v + (int64_t)b * S * HEAD_D;
    float qv[HEAD_D], acc[HEAD_D];
    for (int d = 0; d < HEAD_D; ++d) { qv[d] = qr[d]; acc[d] = 0.0f; }
    float m = -INFINITY, l = 0.0f;
    for (int j = 0; j < S; ++j) {
        float s = 0.0f;
        for (int d = 0; d < HEAD_D; ++d) s += qv[d] * kb[(int64_t)j * HEAD_D + d];
        s *= scale;
        const float m_new = fmaxf(m, s);
        const float corr = __expf(m - m_new), p = __expf(s - m_new);
        l = l * corr + p;
        for (int d = 0; d < HEAD_D; ++d) acc[d] = acc[d] * corr + p * vb[(int64_t)j * HEAD_D + d];
        m = m_new;
    }
    for (int d = 0; d < HEAD_D; ++d) o[gid * HEAD_D + d] = acc[d] / l;
}

torch::Tensor attention_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor v) {
    CHECK_INPUT(q);
    CHECK_INPUT(k);
    CHECK_INPUT(v);
    TORCH_CHECK(q.size(2) == 64, "head_dim must be 64");
    const int B = (int)q.size(0), S = (int)q.size(1);
    auto o = torch::empty_like(q);
    const float scale = 1.0f / sqrtf((float)q.size(2));
    attention_row_kernel<<<(B * S + 127) / 128, 128>>>(q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(),
                                                       o.data_ptr<float>(), B, S, scale);
    return o;
}
"""

cpp_source = r"""
torch::Tensor attention_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor v);
"""

cuda_rowthread_ext = load_inline(
    name="kb_l2_10_cuda_rowthread",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['attention_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, q, k, v) -> torch.Tensor:
        return cuda_rowthread_ext.attention_cuda(q, k, v)
