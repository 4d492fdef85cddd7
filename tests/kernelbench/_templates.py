"""Text templates shared by gen_problems.py: the KernelBench reference file and the two candidate
shapes (CUDA through torch.utils.cpp_extension.load_inline, Triton through @triton.jit).

Only gen_problems.py imports this; the generated files are standalone (they import nothing from
here), exactly as KernelBench problem and candidate files are.
"""
import textwrap


def indent(src: str, n: int) -> str:
    return textwrap.indent(textwrap.dedent(src).strip("\n"), " " * n)


def reference(doc: str, size: str, init_sig: str, init_body: str, fwd_sig: str, fwd_body: str,
              consts: str, inputs: str, init_inputs: str = "[]") -> str:
    return f'''"""{doc}

Size chosen: {size}
Written for kernsim's KernelBench-format set (tests/kernelbench/README.md).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """{doc.splitlines()[0]}"""

    def __init__(self{init_sig}):
        super(Model, self).__init__()
{indent(init_body or "pass", 8)}

    def forward(self, {fwd_sig}) -> torch.Tensor:
{indent(fwd_body, 8)}


{textwrap.dedent(consts).strip()}


def get_inputs():
{indent(inputs, 4)}


def get_init_inputs():
    return {init_inputs}
'''


CUDA_PRELUDE = """\
#include <torch/extension.h>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_FLOAT(x) TORCH_CHECK(x.scalar_type() == torch::kFloat32, #x " must be float32")
#define CHECK_INPUT(x) CHECK_CUDA(x); CHECK_CONTIGUOUS(x); CHECK_FLOAT(x)
"""

BLOCK_REDUCE = """\
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
"""


def cuda_candidate(doc: str, ext: str, kernels: str, host: str, decls: str, funcs: list,
                   init_sig: str, init_body: str, fwd_sig: str, fwd_body: str, extra_py: str = "",
                   helpers: bool = False, stream_header: bool = False) -> str:
    headers = CUDA_PRELUDE
    if stream_header:
        headers += "#include <ATen/cuda/CUDAContext.h>\n"
    body = headers + "\n" + (BLOCK_REDUCE + "\n" if helpers else "") + textwrap.dedent(kernels).strip() + \
        "\n\n" + textwrap.dedent(host).strip() + "\n"
    var = ext.split("_", 3)[-1]
    return f'''"""{doc}
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
{body}"""

cpp_source = r"""
{textwrap.dedent(decls).strip()}
"""

{var}_ext = load_inline(
    name="{ext}",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions={funcs!r},
    extra_cuda_cflags=["-O3"],
    verbose=False,
)
{textwrap.dedent(extra_py).rstrip()}

class ModelNew(nn.Module):
    def __init__(self{init_sig}):
        super(ModelNew, self).__init__()
{indent(init_body or "pass", 8)}

    def forward(self, {fwd_sig}) -> torch.Tensor:
{indent(fwd_body.replace("EXT", var + "_ext"), 8)}
'''


def triton_candidate(doc: str, kernels: str, wrappers: str, init_sig: str, init_body: str,
                     fwd_sig: str, fwd_body: str) -> str:
    return f'''"""{doc}
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


{textwrap.dedent(kernels).strip()}


{textwrap.dedent(wrappers).strip()}


class ModelNew(nn.Module):
    def __init__(self{init_sig}):
        super(ModelNew, self).__init__()
{indent(init_body or "pass", 8)}

    def forward(self, {fwd_sig}) -> torch.Tensor:
{indent(fwd_body, 8)}
'''
