"""Helpers for kernsim's GPU MODE-format problems (the role of reference-kernels' utils.py, written
anew): seeding and the default `check_implementation` built from a reference function.

check_implementation(data, output) returns '' when the output matches, else a message naming the
mismatches -- the contract GPU MODE's eval.py relies on.
"""
import torch


def set_seed(seed: int = 42):
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


@torch.no_grad()
def mismatches(received: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float, max_print: int = 5):
    """Messages describing where `received` differs from `expected` (empty list: they match)."""
    if received.shape != expected.shape:
        return [f"shape mismatch: got {tuple(received.shape)}, expected {tuple(expected.shape)}"]
    bad = (received - expected).abs() > atol + rtol * expected.abs()
    bad |= torch.isnan(received) != torch.isnan(expected)
    bad |= torch.isinf(received) != torch.isinf(expected)
    n = int(bad.count_nonzero().item())
    if n == 0:
        return []
    out = [f"{n} of {bad.numel()} elements differ"]
    for idx in torch.nonzero(bad)[:max_print]:
        i = tuple(idx.tolist())
        out.append(f"at {i}: got {received[i].item()}, expected {expected[i].item()}")
    return out


def make_match_reference(reference, rtol: float = 1e-5, atol: float = 1e-8):
    def check_implementation(data, output) -> str:
        reasons = mismatches(output, reference(data), rtol=rtol, atol=atol)
        return "" if not reasons else "output does not match the reference: " + "; ".join(reasons)
    return check_implementation
