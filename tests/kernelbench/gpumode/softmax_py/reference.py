"""Reference for softmax_py: row-wise softmax of a float32 matrix (GPU MODE format, written for
kernsim's adapter tests; see ../../README.md)."""
import torch

from task import input_t, output_t
from utils import make_match_reference


def ref_kernel(data: input_t) -> output_t:
    """Softmax over the last dimension."""
    return torch.softmax(data, dim=-1)


def generate_input(rows: int, cols: int, seed: int) -> input_t:
    """A rows x cols float32 matrix of N(0, 2^2) values, on the GPU, from a seeded generator."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return (2.0 * torch.randn(rows, cols, device="cuda", dtype=torch.float32, generator=gen)).contiguous()


check_implementation = make_match_reference(ref_kernel, rtol=1e-4, atol=1e-6)
