import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

// reads the SM clock: a kernel that could behave differently while it is measured
__global__ void relu_timer_kernel(const float* x, float* y, int n, long long* t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long c = clock64();
  if (i < n) y[i] = fmaxf(x[i], 0.f);
  if (i == 0) t[0] = c;
}

#define CHECK_INPUT(x) TORCH_CHECK(x.is_cuda() && x.is_contiguous(), #x " must be a contiguous CUDA tensor")

torch::Tensor relu_ok(torch::Tensor x) {
  CHECK_INPUT(x);
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto y = torch::empty_like(x);
  int n = x.numel();
  auto stream = at::cuda::getCurrentCUDAStream();
  relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

torch::Tensor relu_timer(torch::Tensor x) {
  CHECK_INPUT(x);
  auto y = torch::empty_like(x);
  auto t = torch::zeros({1}, torch::dtype(torch::kInt64).device(torch::kCUDA));
  int n = x.numel();
  relu_timer_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n, reinterpret_cast<long long*>(t.data_ptr<int64_t>()));
  return y;
}

torch::Tensor relu_side(torch::Tensor x) {
  CHECK_INPUT(x);
  auto y = torch::empty_like(x);
  int n = x.numel();
  cudaStream_t s;
  cudaStreamCreate(&s);   // never joined back to the current stream
  relu_kernel<<<(n + 255) / 256, 256, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""

cpp_source = """
torch::Tensor relu_ok(torch::Tensor x);
torch::Tensor relu_timer(torch::Tensor x);
torch::Tensor relu_side(torch::Tensor x);
"""

ext = load_inline(name="kb_test_relu_multi", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["relu_ok", "relu_timer", "relu_side"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_ok(x)
