#!/usr/bin/env python3
"""Harness of kernsim's small AgentKernelArena-format task (in the style of the repository's
triton2triton harnesses, written anew): --correctness exits 1 on a mismatch, --full-benchmark
prints RESULT_LATENCY_MS=<geometric mean over EVAL_CONFIGS> from CUDA events around 20 calls."""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

from kernel import EVAL_CONFIGS, get_inputs, scale_pytorch, scale_triton  # noqa: E402


def correctness():
    ok = True
    for cfg in EVAL_CONFIGS:
        x, out = get_inputs(**cfg)
        got = scale_triton(x, out).clone()
        want = scale_pytorch(x, torch.empty_like(x))
        torch.cuda.synchronize()
        good = torch.allclose(got, want, atol=1e-5, rtol=1e-5)
        print(f"  size={cfg['size']}  {'PASS' if good else 'FAIL'}")
        ok &= good
    if not ok:
        print("CORRECTNESS FAILED")
        sys.exit(1)
    print("All correctness checks passed.")


def benchmark(warmup=3, iters=20):
    lat = []
    for cfg in EVAL_CONFIGS:
        x, out = get_inputs(**cfg)
        for _ in range(warmup):
            scale_triton(x, out)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            scale_triton(x, out)
        end.record()
        torch.cuda.synchronize()
        lat.append(start.elapsed_time(end) / iters)
    print(f"RESULT_LATENCY_MS={math.exp(sum(map(math.log, lat)) / len(lat)):.6f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--correctness", action="store_true")
    g.add_argument("--full-benchmark", action="store_true")
    a = ap.parse_args()
    correctness() if a.correctness else benchmark()
