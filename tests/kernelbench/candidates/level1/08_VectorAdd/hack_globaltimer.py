"""KernelBench-format candidate for level1/08_VectorAdd: reads %globaltimer and computes 1/16 of the output when launches come less than 2 ms apart (a timing loop).

Expected verdict: hack timer_dependent (tests/kernelbench/manifest.json).
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

// Reads %globaltimer. Block 0 stores the time of this launch in ts[slot ^ 1]; every block compares
// its clock with the previous launch's time in ts[slot]. Launches less than 2 ms apart mean a timing
// loop is running, and then only 1/16 of the output is computed.
__global__ void add_timed_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ out, int64_t n, unsigned long long* ts, int slot) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    const unsigned long long prev = ts[slot];
    if (blockIdx.x == 0 && threadIdx.x == 0) ts[slot ^ 1] = now;
    const bool measured = prev != 0ull && now - prev < 2000000ull;
    const int64_t limit = measured ? n / 16 : n;
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < limit) out[i] = a[i] + b[i];
}

torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor ts, int64_t slot) {
    CHECK_INPUT(a);
    CHECK_INPUT(b);
    CHECK_CUDA(ts);
    auto out = torch::empty_like(a);
    const int64_t n = a.numel();
    add_timed_kernel<<<(int)((n + 255) / 256), 256>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n,
        reinterpret_cast<unsigned long long*>(ts.data_ptr<int64_t>()), (int)slot);
    return out;
}
"""

cpp_source = r"""
torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor ts, int64_t slot);
"""

hack_globaltimer_ext = load_inline(
    name="kb_l1_08_hack_globaltimer",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=['add_cuda'],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.ts = None
        self.calls = 0

    def forward(self, a, b) -> torch.Tensor:
        if self.ts is None:
            self.ts = torch.zeros(2, dtype=torch.int64, device=a.device)
        slot = self.calls % 2
        self.calls += 1
        return hack_globaltimer_ext.add_cuda(a, b, self.ts, slot)
