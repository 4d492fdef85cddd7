"""compile / launch / run_spec: numpy in, numpy out, the CLI's messages as exceptions."""

import json
import subprocess

import numpy as np
import pytest

import kernsim
from conftest import ROOT, VADD

SAXPY = (ROOT / "examples" / "saxpy" / "saxpy.cu").read_text()

TEMPLATES = r'''
template <typename T> __global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);
extern "C" __global__ void fill_u64(unsigned long long* out, unsigned long long v, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = v + i;
}
extern "C" __global__ void spin(int* flag) { while (atomicAdd(flag, 0) == 0) {} }
'''


def test_devices_and_device_info():
    assert {"h200", "b200", "mi300x"} <= set(kernsim.devices())
    assert kernsim.device_info("h200")["isa_target"] == "sm_90a"
    assert kernsim.device_info("sm_100a")["name"] == "b200"
    with pytest.raises(kernsim.UsageError) as e:  # as the CLI's --arch
        kernsim.device_info("no_such_gpu")
    assert "no_such_gpu" in str(e.value)


def test_compile_text_lists_kernels_params_and_resources():
    m = kernsim.compile(TEMPLATES, "h200")
    assert m.target == "sm_90a" and m.isa == "ptx" and ".entry" in m.text
    assert sorted(m.names) == ["fill_u64", "scale<double>", "scale<float>", "spin"]
    k = m["scale<float>"]
    assert k.demangled == "void scale<float>(float*, float, int)"
    assert [(p.type, p.bytes, p.is_pointer) for p in k.params] == [("u64", 8, True), ("f32", 4, False), ("u32", 4, False)]
    assert k.resources["registers"] > 0
    assert m[k.name] is k  # by mangled name too
    with pytest.raises(kernsim.LaunchSpecError, match="ambiguous"):
        m["scale"]
    with pytest.raises(kernsim.LaunchSpecError, match="no kernel `nope`"):
        m["nope"]


def test_compile_from_path_and_cache_by_content(tmp_path):
    p = tmp_path / "saxpy.cu"
    p.write_text(SAXPY)
    m1 = kernsim.compile(p, "h200")
    m2 = kernsim.compile(str(p), "h200")
    assert m1.kernel().short_name == "saxpy"
    assert m2.from_cache
    p.write_text(SAXPY.replace("a * x[i]", "a * x[i] * 2.0f"))
    m3 = kernsim.compile(p, "h200")
    assert not m3.from_cache and m3.text != m1.text


def test_launch_saxpy_matches_numpy_and_leaves_inputs_alone():
    m = kernsim.compile(SAXPY, "h200")
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3000, dtype=np.float32)
    y = rng.standard_normal(3000, dtype=np.float32)
    y0 = y.copy()
    r = kernsim.launch(m["saxpy"], grid=12, block=256, args=[x.size, 2.5, x, y], full=True)
    np.testing.assert_allclose(r.outputs[3], np.float32(2.5) * x + y0, rtol=1e-6, atol=1e-6)  # fma or not
    np.testing.assert_array_equal(r.outputs[2], x)
    np.testing.assert_array_equal(y, y0)
    assert r.time_us > 0 and r.cycles > 0
    assert r.report["kernel"].startswith("saxpy") and r.report["launch"]["grid"] == [12, 1, 1]
    assert "time" in r.report_text


def test_sampled_launch_returns_outputs_only_when_asked():
    m = kernsim.compile(SAXPY, "h200")
    n = 1 << 18
    x = np.ones(n, np.float32)
    y = np.full(n, 3.0, np.float32)
    r = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y])
    assert r.outputs == {}
    r2 = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y], keep_outputs=True)
    np.testing.assert_array_equal(r2.outputs[3], np.full(n, 5.0, np.float32))
    assert r2.time_us == r.time_us  # the remaining CTAs run untimed


def test_fast_tier_answers_with_tier_fast_and_scales_with_the_bytes():
    m = kernsim.compile(SAXPY, "h200")
    times = []
    for n in (1 << 22, 1 << 24):
        x = np.ones(n, np.float32)
        y = np.zeros(n, np.float32)
        r = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y], tier="fast")
        assert r.report["tier"] == "fast" and r.report["bottleneck"]
        assert r.outputs == {}
        times.append(r.report["breakdown"]["kernel_us"])
    # a streaming kernel: four times the bytes take about four times as long (HBM-bound)
    assert 3.0 < times[1] / times[0] < 4.5
    with pytest.raises(kernsim.KernsimError, match="fast tier"):
        kernsim.launch(m["saxpy"], 16, 256, [4096, 2.0, np.ones(4096, np.float32), np.ones(4096, np.float32)],
                       tier="fast", full=True)


def test_scalar_types_follow_the_parameter_and_wrappers_are_exact():
    m = kernsim.compile(TEMPLATES, "h200")
    out = np.zeros(10, np.uint64)
    big = 2**40 + 7
    r = kernsim.launch(m["fill_u64"], 1, 32, [out, big, 10], full=True)
    np.testing.assert_array_equal(r.outputs[0], np.arange(10, dtype=np.uint64) + np.uint64(big))
    xd = np.arange(5, dtype=np.float64)
    r = kernsim.launch(m["scale<double>"], 1, 32, [xd, 0.5, kernsim.i32(5)], full=True)
    np.testing.assert_array_equal(r.outputs[0], xd * 0.5)
    r = kernsim.launch(m["scale<double>"], 1, 32, [xd, np.float64(3.0), np.int32(5)], full=True)
    np.testing.assert_array_equal(r.outputs[0], xd * 3.0)
    with pytest.raises(TypeError, match="8 bytes"):
        kernsim.launch(m["scale<double>"], 1, 32, [xd, 0.5, kernsim.i64(5)], full=True)
    with pytest.raises(OverflowError):
        kernsim.launch(m["scale<float>"], 1, 32, [xd.astype(np.float32), 1.0, 2**40], full=True)
    with pytest.raises(OverflowError):
        kernsim.i32(2**31)
    with pytest.raises(kernsim.LaunchSpecError, match="takes 3 parameters"):
        kernsim.launch(m["scale<float>"], 1, 32, [xd], full=True)


def test_out_of_bounds_is_a_kernel_fault_naming_the_buffer():
    m = kernsim.compile(VADD, "h200")
    a = np.ones(100, np.float32)
    with pytest.raises(kernsim.KernelFaultError) as e:
        kernsim.launch(m["vadd"], 1, 256, [a, a, a.copy(), 200], full=True)
    assert "out of bounds" in str(e.value) and "f32[100]" in str(e.value)
    assert e.value.exit_code == 6 and e.value.cli_message.startswith("kernsim: kernel fault: ")


def test_instruction_and_wall_time_limits_stop_an_endless_kernel():
    m = kernsim.compile(TEMPLATES, "h200")
    flag = np.zeros(1, np.int32)
    with pytest.raises(kernsim.KernelFaultError, match="instruction limit of 5000"):
        kernsim.launch(m["spin"], 1, 32, [flag], full=True, max_instructions=5000)
    with pytest.raises(kernsim.KernelFaultError, match="wall-time limit"):
        kernsim.launch(m["spin"], 1, 32, [flag], full=True, max_instructions=2**62, wall_time_limit_s=0.2)


def test_compile_error_is_a_compile_error():
    with pytest.raises(kernsim.CompileError, match="clang could not compile"):
        kernsim.compile("__global__ void k(float* x) { x[0] = undefined_name; }", "h200")


def test_ptx_text_compiles_as_ptx():
    m = kernsim.compile(kernsim.compile(VADD, "h200").text, "h200")
    assert m.producer == "ptx file"
    a = np.arange(64, dtype=np.float32)
    r = kernsim.launch(m["vadd"], 1, 64, [a, a, np.zeros_like(a), 64], full=True)
    np.testing.assert_array_equal(r.outputs[2], 2 * a)


def test_run_spec_agrees_with_the_cli(cli):
    spec = ROOT / "examples" / "saxpy" / "saxpy.json"
    r = kernsim.run_spec(spec, "h200")
    out = subprocess.run([cli, "run", str(spec), "--arch", "h200", "--json"], capture_output=True, text=True, check=True)
    assert r.time_us == pytest.approx(json.loads(out.stdout)["time_us"], rel=1e-12)


@pytest.mark.parametrize("spec", ["bad_grid.json", "big_block.json", "missing.json"])
def test_run_spec_errors_have_the_cli_message(cli, spec):
    path = ROOT / "tests" / "data" / "specs" / spec
    p = subprocess.run([cli, "run", str(path), "--arch", "h200"], capture_output=True, text=True)
    assert p.returncode != 0
    with pytest.raises(kernsim.KernsimError) as e:
        kernsim.run_spec(path, "h200")
    assert e.value.cli_message == p.stderr.strip()
    assert e.value.exit_code == p.returncode


def test_hip_kernel_runs_on_amd_parts():
    src = ("#include <hip/hip_runtime.h>\n"
           "extern \"C\" __global__ void k(float* x, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) x[i] = x[i] * 2.0f + 1.0f;\n}\n")
    x = np.arange(1000, dtype=np.float32)
    for arch, target in (("mi300x", "gfx942"), ("mi355x", "gfx950")):
        m = kernsim.compile(src, arch, lang="hip")
        assert m.target == target
        r = kernsim.launch(m["k"], 4, 256, [x, 1000], keep_outputs=True)
        np.testing.assert_array_equal(r.outputs[0], 2 * x + 1)
        assert r.time_us > 0


SCALED = r'''
#include "base.h"
extern "C" __global__ void scaled(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= SCALE * kBase;
}'''


def test_compile_settings_reach_clang_and_the_launch(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "base.h").write_text("constexpr float kBase = 2.0f;\n")
    x = np.arange(100, dtype=np.float32)
    for scale in (3, 5):
        m = kernsim.compile(SCALED, "h200", include_dirs=[tmp_path / "inc"], defines={"SCALE": scale}, std="c++20",
                            flags=["-ffast-math"])
        r = kernsim.launch(m["scaled"], 1, 128, [x.copy(), 100], full=True)
        np.testing.assert_array_equal(r[0], x * 2 * scale)
    with pytest.raises(kernsim.LaunchSpecError, match="compile.std"):
        kernsim.compile(SCALED, "h200", std="c++99")
    with pytest.raises(kernsim.CompileError, match="SCALE"):
        kernsim.compile(SCALED, "h200", include_dirs=[tmp_path / "inc"])


CLUSTER_RING = r'''
#define _CG_CLUSTER_INTRINSICS_AVAILABLE 1
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void ring(const int* in, int* out) {
  __shared__ int inbox[64];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned r = cluster.block_rank(), n = cluster.num_blocks();
  cluster.map_shared_rank(&inbox[0], (r + 1) % n)[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  cluster.sync();
  out[blockIdx.x * 64 + threadIdx.x] = inbox[threadIdx.x];
  cluster.sync();
}'''


def test_cluster_launch_exchanges_shared_memory_between_ctas():
    m = kernsim.compile(CLUSTER_RING, "h200")
    x = np.arange(8 * 64, dtype=np.int32)
    out = np.zeros_like(x)
    r = kernsim.launch(m["ring"], grid=8, block=64, args=[x, out], cluster=(4,), full=True)
    blocks = x.reshape(8, 64)
    want = np.concatenate([np.roll(blocks[c * 4:(c + 1) * 4], 1, axis=0) for c in range(2)]).ravel()
    np.testing.assert_array_equal(r.outputs[1], want)
    with pytest.raises(kernsim.LaunchSpecError, match="not a multiple"):
        kernsim.launch(m["ring"], grid=6, block=64, args=[x, out], cluster=(4,), full=True)


def test_warm_cache_starts_the_l2_as_a_previous_run_left_it():
    # saxpy over 1 Mi elements (12 MiB moved) fits the H200's L2: replayed once untimed, the
    # timed run reads nothing from HBM. y = 2x + y is computed once: the replay's writes are undone.
    m = kernsim.compile(SAXPY, "h200")
    n = 1 << 20
    x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    cold = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y], full=True)
    warm = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y], full=True, cache="warm")
    assert cold.report["cache"] == "cold" and warm.report["cache"] == "warm"
    np.testing.assert_array_equal(warm.outputs[3], 2 * x + 1)
    assert cold.report["memory"]["dram"]["read_bytes"] == 8 << 20
    assert warm.report["memory"]["dram"]["read_bytes"] == 0 and warm.report["memory"]["l2"]["hit_rate"] == 1.0
    assert warm.time_us < cold.time_us
    assert "replayed untimed" in warm.report["sampling"]["note"]


def test_cold_dirty_cache_writes_the_flushs_dirty_lines_back():
    # saxpy over 1 Mi elements reads x and y (8 MiB) and writes y over its own lines: from a clean
    # L2 nothing reaches HBM's write side; after a write flush (about half of the H100's L2 dirty,
    # 24 MiB) each of the 8 MiB of lines it fills evicts one of the flush's dirty lines first.
    m = kernsim.compile(SAXPY, "h100")
    n = 1 << 20
    x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    cold = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y], arch="h100", full=True)
    dirty = kernsim.launch(m["saxpy"], n // 256, 256, [n, 2.0, x, y], arch="h100", full=True, cache="cold-dirty")
    assert cold.report["cache"] == "cold" and dirty.report["cache"] == "cold-dirty"
    np.testing.assert_array_equal(dirty.outputs[3], 2 * x + 1)
    assert cold.report["memory"]["dram"]["write_bytes"] == 0
    assert dirty.report["memory"]["dram"]["write_bytes"] == 8 << 20
    assert dirty.report["memory"]["dram"]["read_bytes"] == cold.report["memory"]["dram"]["read_bytes"] == 8 << 20
    assert dirty.time_us > cold.time_us


def test_warm_cache_on_an_amd_part_replays_the_previous_launch():
    # 16 KiB in and out stay in the L2s and the MALL from the replay: of HBM reads only the
    # launch's kernel-argument line is left (a new one each launch)
    n = 1 << 12
    args = [n, 2.0, np.ones(n, np.float32), np.ones(n, np.float32)]
    hip = kernsim.compile("#include <hip/hip_runtime.h>\n" + SAXPY, "mi300x", lang="hip")
    cold = kernsim.launch(hip["saxpy"], n // 256, 256, args)
    warm = kernsim.launch(hip["saxpy"], n // 256, 256, args, cache="warm")
    assert "cache warm: the L2s and MALL as a previous run left them" in warm.report["sampling"]["note"]
    assert warm.report["memory"]["dram"]["read_bytes"] <= 128 < 16384 <= cold.report["memory"]["dram"]["read_bytes"]
    assert warm.time_us < cold.time_us


def test_warm_cache_is_refused_by_the_fast_tier():
    n = 1 << 12
    args = [n, 2.0, np.ones(n, np.float32), np.ones(n, np.float32)]
    m = kernsim.compile(SAXPY, "h200")
    with pytest.raises(kernsim.UsageError, match="fast tier"):
        kernsim.launch(m["saxpy"], n // 256, 256, args, cache="warm", tier="fast")
    with pytest.raises(kernsim.UsageError, match="cold.*warm"):
        kernsim.launch(m["saxpy"], n // 256, 256, args, cache="lukewarm")
