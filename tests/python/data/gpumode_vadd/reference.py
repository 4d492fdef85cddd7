# A small GPU MODE-style problem: elementwise add of two float32 vectors.
import torch


def generate_input(size: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(size, generator=g).cuda()
    b = torch.randn(size, generator=g).cuda()
    return a, b


def ref_kernel(data):
    a, b = data
    return a + b


def check_implementation(data, output):
    expected = ref_kernel(data)
    if output.shape != expected.shape:
        return False, f"shape {tuple(output.shape)} != {tuple(expected.shape)}"
    if not torch.allclose(output, expected, atol=1e-5, rtol=1e-5):
        return False, f"max abs diff {(output - expected).abs().max().item():.3g}"
    return True, ""
