"""KernelBench-format candidate for level1/23_Conv2d_3x3: direct convolution, 4 output channels per thread.

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

// Four output channels per thread: every input value loaded is used four times.
__global__ void conv3x3_oc4_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                                   int N, int Cin, int Cout, int H, int W) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int groups = Cout / 4;
    const int64_t total = (int64_t)N * groups * H * W;
    if (idx >= total) return;
    const int ow = idx % W, oh = (idx / W) % H, g = (idx / ((int64_t)W * H)) % groups, n = idx / ((int64_t)W * H * groups);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ci = 0; ci < Cin; ++ci)
        for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const float v = x[(((int64_t)n * Cin + ci) * H + ih) * W + iw];
#pragma unroll
                for (int o = 0; o < 4; ++o) acc[o] += v * w[(((g * 4 + o) * Cin + ci) * 3 + kh) * 3 + kw];
            }
#pragma unroll
    for (int o = 0; o < 4; ++o) y[(((int64_t)n * Cout + g * 4 + o) * H + oh) * W + ow] = acc[o];
}

torch::Tensor conv3x3_cuda(torch::Tensor x, torch::Tensor w) {
    CHECK_INPUT(x);
    CHECK_INPUT(w);
    const int N = (int)x.size(0), Cin = (int)x.size(1), H = (int)x.size(2), W = (int)x.size(3);
    const int Cout = (int)w.size(0);
    TORCH_CHECK(w.size(1) == Cin && w.size(2) == 3 && w.size(3) == 3, "weight must be Cout x Cin x 3 x 3");
    auto y = torch::empty({N, Cout, H, W}, x.options());
    TORCH_CHECK(Cout % 4 == 0, "Cout must be a multiple of 4");
    const int64_t total = (int64_t)N * (Cout / 4) * H * W;
    conv3x3_oc4_kernel<<<(int)((total + 127) / 128), 128>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), N, Cin, Cout, H, W);
    return y;
}
"""

cpp_source = r"""
torch::Tensor conv3x3_cuda(torch::Tensor x, torch::Tensor w);
"""

cuda_oc4_ext = load_inline(
    name="kb_l1_23_cuda_oc4",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['conv3x3_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False)

    def forward(self, x) -> torch.Tensor:
        return cuda_oc4_ext.conv3x3_cuda(x, self.conv.weight)
