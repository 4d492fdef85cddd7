"""CUDA sources on AMD parts (docs/cuda_on_amd.md) and the inferred `lang`: expected values from
numpy, warnings checked by name and line."""

import numpy as np
import pytest

import kernsim
from conftest import ROOT

PORT = ROOT / "tests" / "data" / "port"


def test_lang_is_inferred_from_paths_and_text():
    assert kernsim.infer_lang(str(PORT / "warp32.cu")) == "cuda"
    assert kernsim.infer_lang("k.hip") == "hip"
    assert kernsim.infer_lang("k.py") == "triton"
    assert kernsim.infer_lang(b"\x7fELF") == "hsaco"
    assert kernsim.infer_lang("__global__ void k(float* x) { x[threadIdx.x] = 0; }") == "cuda"
    assert kernsim.infer_lang("#include <hip/hip_runtime.h>\n__global__ void k(float* x) {}") == "hip"
    assert kernsim.infer_lang("import triton\n@triton.jit\ndef k(x_ptr):\n    pass\n") == "triton"
    assert kernsim.infer_lang(".version 8.0\n.target sm_90a\n.visible .entry k() { ret; }") == "ptx"
    assert kernsim.infer_lang("\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\nk:\n\ts_endpgm\n") == "amdgcn"


def test_triton_text_in_compile_points_to_compile_triton():
    with pytest.raises(ValueError, match="compile_triton"):
        kernsim.compile("import triton\n@triton.jit\ndef k(x_ptr):\n    pass\n", arch="h200")


def test_hip_text_is_refused_on_an_nvidia_part_by_name():
    with pytest.raises(kernsim.KernsimError, match="AMD"):
        kernsim.compile("__global__ void k(float* x) { x[0] = 1; }", arch="h200", lang="hip")


def _run(src, kernel, arch):
    m = kernsim.compile(src, arch=arch)
    x = np.arange(256, dtype=np.float32)
    sums, below, total = np.zeros(256, np.float32), np.zeros(256, np.int32), np.zeros(1, np.float32)
    r = kernsim.launch(m[kernel], grid=2, block=128, args=[x, sums, below, total, 40.0, 256], full=True)
    return m, r


def test_warp32_cuda_kernel_on_mi300x_carries_the_warnings_where_it_goes_wrong():
    m, r = _run((PORT / "warp32.cu").read_text(), "warp_sums32", "mi300x")
    x = np.arange(256, dtype=np.float32)
    lower = x.reshape(4, 2, 32)[:, 0, :].sum(axis=1)  # lanes 0-31 of each 64-lane wave
    np.testing.assert_array_equal(r.outputs[1], np.repeat(lower, 64))
    assert r.outputs[3][0] == x.sum()
    assert m.port == "cuda-as-hip"
    assert {(w["name"], w["line"]) for w in m.warnings} == {(w["name"], w["line"]) for w in r.warnings}
    assert {w["name"] for w in r.warnings} == {"warp32-mask", "warp32-shuffle", "warp32-lane-math", "warp32-ballot-width"}


def test_warp_size_agnostic_cuda_kernel_is_right_on_mi355x_without_warnings():
    m, r = _run((PORT / "agnostic.cu").read_text(), "warp_sums", "mi355x")
    x = np.arange(256, dtype=np.float32)
    np.testing.assert_array_equal(r.outputs[1], np.repeat(x.reshape(4, 64).sum(axis=1), 64))
    np.testing.assert_array_equal(r.outputs[2], np.repeat([40, 0, 0, 0], 64))
    assert m.port == "cuda-as-hip" and m.warnings == [] and r.warnings == []


STRUCT_KERNEL = r'''
#include <cuda_fp16.h>
struct Params { __half2 h; int n; };
__global__ void scale_h(float* out, Params p) {
  int i = threadIdx.x;
  if (i < p.n) out[i] = __low2float(p.h) * i + __high2float(p.h);
}'''


@pytest.mark.parametrize("arch", ["h200", "mi300x"])
def test_struct_by_value_from_python(arch):
    m = kernsim.compile(STRUCT_KERNEL, arch=arch)
    out = np.zeros(64, np.float32)
    params = {"struct": [{"type": "f16x2", "value": [2.0, 0.5]}, {"type": "i32", "value": 10}]}
    r = kernsim.launch(m["scale_h"], 1, 64, [out, params], full=True)
    want = np.where(np.arange(64) < 10, 2.0 * np.arange(64) + 0.5, 0).astype(np.float32)
    np.testing.assert_array_equal(r.outputs[0], want)
