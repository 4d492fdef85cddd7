"""Baseline of kernsim's small AgentKernelArena-format task: out = 3 * x, Candidate (wrong): multiplies by 2."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def scale_triton(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128, num_warps=1)
    return out


def scale_pytorch(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    out.copy_(3.0 * x)
    return out


def get_inputs(size, seed=42, device="cuda"):
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    x = torch.randn(size, device=device, dtype=torch.float32, generator=gen)
    return x, torch.empty_like(x)


EVAL_CONFIGS = [{"size": 1000, "seed": 1}, {"size": 65536, "seed": 2}]
