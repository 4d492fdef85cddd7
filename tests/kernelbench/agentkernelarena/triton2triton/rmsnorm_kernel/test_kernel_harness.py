#!/usr/bin/env python3
"""Harness of kernsim's AgentKernelArena-format rmsnorm task: correctness against rmsnorm_pytorch on
every EVAL_CONFIGS shape, and the mean time of rmsnorm_triton (10 warm-up calls, 100 timed calls
between CUDA events), in the style of AgentKernelArena's triton2triton harnesses (written anew).

  python3 test_kernel_harness.py --correctness      # exit 1 on any mismatch
  python3 test_kernel_harness.py --full-benchmark   # prints RESULT_LATENCY_MS=<geometric mean>
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

from kernel import EVAL_CONFIGS, get_inputs, rmsnorm_pytorch, rmsnorm_triton  # noqa: E402

ATOL = RTOL = 1e-4


def correctness():
    ok = True
    for i, cfg in enumerate(EVAL_CONFIGS):
        x, w, out = get_inputs(**cfg)
        got = rmsnorm_triton(x, w, out).clone()
        want = rmsnorm_pytorch(x, w, torch.empty_like(x))
        torch.cuda.synchronize()
        good = torch.allclose(got, want, atol=ATOL, rtol=RTOL)
        ok &= good
        print(f"  [{i}] rows={cfg['rows']} cols={cfg['cols']}  {'PASS' if good else 'FAIL'}")
    if not ok:
        print("CORRECTNESS FAILED")
        sys.exit(1)
    print("All correctness checks passed.")


def benchmark(warmup=10, iters=100):
    lat = []
    for cfg in EVAL_CONFIGS:
        x, w, out = get_inputs(**cfg)
        for _ in range(warmup):
            rmsnorm_triton(x, w, out)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            rmsnorm_triton(x, w, out)
        end.record()
        torch.cuda.synchronize()
        lat.append(start.elapsed_time(end) / iters)
        print(f"  rows={cfg['rows']} cols={cfg['cols']}  {lat[-1]:.4f} ms")
    print(f"RESULT_LATENCY_MS={math.exp(sum(map(math.log, lat)) / len(lat)):.4f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--correctness", action="store_true")
    g.add_argument("--full-benchmark", action="store_true")
    a = ap.parse_args()
    correctness() if a.correctness else benchmark()
