"""Pointer arguments into another argument's buffer and buffer offsets (launch spec version 2):
expected values from numpy."""

import numpy as np
import pytest

import kernsim

SRC = r'''
extern "C" __global__ void twice(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.f * a[i];
}'''


def test_pointer_aliases_another_arguments_buffer():
    m = kernsim.compile(SRC, "h200")
    x = np.arange(64, dtype=np.float32)
    # a = x + 16 elements, b = x: b[i] = 2 a[i] writes into the same buffer
    r = kernsim.launch(m["twice"], 1, 32, [kernsim.BufferAt(x, 64), kernsim.Pointer(0, 0), 16], full=True)
    want = x.copy()
    want[:16] = 2 * x[16:32]
    np.testing.assert_array_equal(r.outputs[0], want)
    assert 1 not in r.outputs  # one buffer, returned once


def test_in_place_through_a_pointer():
    m = kernsim.compile(SRC, "h200")
    x = np.arange(40, dtype=np.float32)
    r = kernsim.launch(m["twice"], 2, 32, [x, kernsim.Pointer(0, 0), 40], full=True)
    np.testing.assert_array_equal(r.outputs[0], 2 * x)


def test_pointer_outside_the_buffer_is_refused():
    m = kernsim.compile(SRC, "h200")
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(kernsim.LaunchSpecError, match="offset_bytes"):
        kernsim.launch(m["twice"], 1, 32, [x, kernsim.Pointer(0, 64), 8], full=True)
    with pytest.raises(kernsim.LaunchSpecError, match="not the index of an array"):
        kernsim.launch(m["twice"], 1, 32, [x, kernsim.Pointer(2, 0), 8], full=True)
