"""KernelBench-format candidate for level1/23_Conv2d_3x3: direct convolution, one output per thread (naive).

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

__global__ void conv3x3_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                               int N, int Cin, int Cout, int H, int W) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t total = (int64_t)N * Cout * H * W;
    if (idx >= total) return;
    const int ow = idx % W, oh = (idx / W) % H, co = (idx / ((int64_t)W * H)) % Cout, n = idx / ((int64_t)W * H * Cout);
    float acc = 0.0f;
    for (int ci = 0; ci < Cin; ++ci)
        for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                    acc += x[(((int64_t)n * Cin + ci) * H + ih) * W + iw] * w[((co * Cin + ci) * 3 + kh) * 3 + kw];
            }
    y[idx] = acc;
}

torch::Tensor conv3x3_cuda(torch::Tensor x, torch::Tensor w) {
    CHECK_INPUT(x);
    CHECK_INPUT(w);
    const int N = (int)x.size(0), Cin = (int)x.size(1), H = (int)x.size(2), W = (int)x.size(3);
    const int Cout = (int)w.size(0);
    TORCH_CHECK(w.size(1) == Cin && w.size(2) == 3 && w.size(3) == 3, "weight must be Cout x Cin x 3 x 3");
    auto y = torch::empty({N, Cout, H, W}, x.options());
    const int64_t total = (int64_t)N * Cout * H * W;
    conv3x3_kernel<<<(int)((total + 255) / 256), 256>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), N, Cin, Cout, H, W);
    return y;
}
"""

cpp_source = r"""
torch::Tensor conv3x3_cuda(torch::Tensor x, torch::Tensor w);
"""

cuda_naive_ext = load_inline(
    name="kb_l1_23_cuda_naive",
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
        return cuda_naive_ext.conv3x3_cuda(x, self.conv.weight)
