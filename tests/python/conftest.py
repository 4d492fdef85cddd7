"""Shared kernels and tasks for the Python tests. Expected values always come from numpy, never
from kernsim's own output."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"

VADD = r'''
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}'''

VADD4 = r'''
extern "C" __global__ void vadd4(const float4* a, const float4* b, float4* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) { float4 x = a[i], y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
  if (i == 0)  // the tail that n % 4 leaves
    for (int j = n & ~3; j < n; ++j) ((float*)c)[j] = ((const float*)a)[j] + ((const float*)b)[j];
}'''

# One thread per block, each looping over a 64-element slice: correct but serial.
VADD_SLOW = r'''
extern "C" __global__ void vadd_slow(const float* a, const float* b, float* c, int n) {
  int start = blockIdx.x * 64;
  for (int i = start; i < start + 64 && i < n; ++i) c[i] = a[i] + b[i];
}'''


def vadd_inputs(size, rng):
    n = size["n"]
    return {"a": rng.standard_normal(n, dtype=np.float32), "b": rng.standard_normal(n, dtype=np.float32),
            "c": np.zeros(n, np.float32), "n": n}


REF = {"source": VADD, "kernel": "vadd", "grid": "cdiv(n, 256)", "block": 256, "args": ["a", "b", "c", "n"]}


def vadd_task(candidate, **kw):
    t = dict(candidate=candidate, reference=REF, make_inputs=vadd_inputs, outputs=["c"],
             check_sizes=[{"n": 1000}, {"n": 4099}], time_size={"n": 1 << 16})
    t.update(kw)
    return t


def variant(**kw):
    d = dict(REF)
    d.update(kw)
    return d


def strip_wall(r):
    return {k: v for k, v in r.items() if k != "wall_s"}


@pytest.fixture(scope="session")
def cli():
    """The kernsim CLI binary built from this tree, when there is one."""
    for p in (ROOT / "build" / "kernsim",):
        if p.exists():
            return str(p)
    pytest.skip("build/kernsim not built")
