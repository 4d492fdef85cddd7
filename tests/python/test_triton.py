"""Triton kernels through Triton's own compiler: PTX simulated like any other, AMD code objects
handed to the AMD frontend, untrusted source text checked before anything is imported."""

import importlib.util
import sys

import numpy as np
import pytest

import kernsim
from conftest import DATA, REF, vadd_inputs

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed")

SRC = (DATA / "triton_add.py").read_text()


def _add_fn():
    sys.path.insert(0, str(DATA))
    try:
        import triton_add
    finally:
        sys.path.pop(0)
    return triton_add.add


@pytest.mark.parametrize("arch", ["h200", "b200"])
def test_triton_function_compiles_to_ptx_and_runs(arch):
    x = np.random.default_rng(0).standard_normal(3000, dtype=np.float32)
    y = np.random.default_rng(1).standard_normal(3000, dtype=np.float32)
    out = np.zeros_like(x)
    m = kernsim.compile_triton(_add_fn(), args=[x, y, out, x.size], constexprs={"BLOCK": 1024}, arch=arch)
    assert m.isa == "ptx" and m.target == kernsim.device_info(arch)["isa_target"]
    assert m.extra["triton"]["num_warps"] == 4
    r = kernsim.launch(m.kernel(), grid=3, block=None, args=[x, y, out, x.size], full=True)
    np.testing.assert_array_equal(r.outputs[2], x + y)
    assert r.report["launch"]["block"] == [128, 1, 1]


def test_triton_file_path_compiles_in_a_subprocess():
    x = np.ones(100, np.float32)
    m = kernsim.compile_triton(DATA / "triton_add.py", "add", signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                               "out_ptr": "*fp32", "n": "i32"}, constexprs={"BLOCK": 128}, arch="h200")
    r = kernsim.launch(m.kernel(), 1, None, [x, x, np.zeros_like(x), 100], full=True)
    np.testing.assert_array_equal(r.outputs[2], 2 * x)


@pytest.mark.parametrize("arch", ["mi300x", "mi355x"])
def test_triton_amd_targets_compile_and_reach_the_amd_path(arch):
    x = np.arange(300, dtype=np.float32)
    m = kernsim.compile_triton(_add_fn(), args=[x, x, x, 300], constexprs={"BLOCK": 128}, arch=arch)
    assert m.isa == "amdgcn" and m.target == kernsim.device_info(arch)["isa_target"]
    assert len(m.kernel().params) >= 4  # from the code object's metadata
    r = kernsim.launch(m.kernel(), 3, None, [x, x, np.zeros_like(x), 300], full=True)
    np.testing.assert_array_equal(r.outputs[2], 2 * x)
    assert r.time_us > 0


def test_untrusted_triton_source_is_checked_before_import():
    x = np.ones(8, np.float32)
    evil = "import os\nos.system('touch /tmp/kernsim_pwned')\n" + SRC
    with pytest.raises(kernsim.CompileError, match="import of os is not allowed"):
        kernsim.compile_triton(evil, "add", args=[x, x, x, 8], constexprs={"BLOCK": 8}, trusted=False)
    for bad in ["print('hi')\n", "def helper():\n    return 1\n", "X = open('f')\n"]:
        with pytest.raises(kernsim.CompileError, match="triton source"):
            kernsim.compile_triton(SRC + bad, "add", args=[x, x, x, 8], constexprs={"BLOCK": 8}, trusted=False)


def test_a_triton_candidate_scores_against_a_cuda_reference():
    cand = {"source": SRC, "lang": "triton", "kernel": "add", "grid": "cdiv(n, 512)", "args": ["a", "b", "c", "n"],
            "constexprs": {"BLOCK": 512}, "num_warps": 4}
    r = kernsim.score(cand, REF, vadd_inputs, "h200", outputs=["c"], check_sizes=[{"n": 1000}],
                      time_size={"n": 1 << 16})
    assert r["correct"], r["error"]
    assert r["speedup"] > 0
    wrong = dict(cand, source=SRC.replace("x + y", "x - y"))
    assert not kernsim.score(wrong, REF, vadd_inputs, "h200", outputs=["c"], check_sizes=[{"n": 1000}])["correct"]
