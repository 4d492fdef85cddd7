"""The KernelBench-format problem set (tests/kernelbench): manifest and files agree, references run on
CPU torch with the stated output shapes, candidates import, the manifest's correctness expectations
hold where they can be checked without a GPU (the bugs emulated in torch against the tolerance), the
GPU MODE and AgentKernelArena folders have their formats, and the H200 script's machinery works."""
import importlib.util
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
yaml = pytest.importorskip("yaml")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KB = os.path.join(ROOT, "tests", "kernelbench")
sys.path.insert(0, KB)
import check_problems as cp  # noqa: E402

ATOL = RTOL = 1e-2


@pytest.fixture(scope="module")
def manifest():
    return cp.load_manifest()


def test_generated_files_match_the_generator_table():
    r = subprocess.run([sys.executable, os.path.join(KB, "gen_problems.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_manifest_is_consistent_with_the_files(manifest):
    assert cp.check_manifest(manifest) == []
    probs = manifest["problems"]
    assert len(probs) >= 30
    assert {p["level"] for p in probs} == {1, 2}
    cands = [c for p in probs for c in p["candidates"]]
    assert all(len(p["candidates"]) >= 2 for p in probs)
    assert {c["lang"] for c in cands} == {"cuda", "triton"}
    assert sum(c["lang"] == "triton" for c in cands) >= 30
    hacks = {c["hack"] for c in cands if c["hack"]}
    assert hacks == set(manifest["conventions"]["hacks"])
    assert sum(c["expected"] == "incorrect" for c in cands) >= 5
    assert {c["expected"] for c in cands} >= {"correct", "incorrect", "hack", "compile_error", "runtime_error",
                                              "timeout"}
    # every problem can rank speed: two correct candidates at least, or a correct one and a hack that times
    for p in probs:
        assert sum(c["expected"] == "correct" for c in p["candidates"]) >= 1, p["id"]


def test_every_reference_runs_on_cpu_with_the_stated_output_shape(manifest):
    for p in manifest["problems"]:
        assert cp.run_reference(p) == p["output_shape"], p["id"]


def test_every_candidate_imports_and_has_the_shape_of_a_kernelbench_candidate(manifest):
    for p in manifest["problems"]:
        for c in p["candidates"]:
            names = []
            mod = cp.import_candidate(c, names)
            src = open(os.path.join(KB, c["file"])).read()
            if c["lang"] == "cuda":
                assert len(names) == 1, c["id"]  # one load_inline, its functions defined in the sources
                assert "__global__" in src and "<<<" in src and "is_cuda()" in src, c["id"]
                # check_problems --nvcc hoists this include for every candidate: each must carry its own
                assert "at::cuda" not in src or "#include <ATen/cuda/CUDAContext.h>" in src, c["id"]
            else:
                assert names == [] and "@triton.jit" in src, c["id"]
            assert callable(getattr(mod.ModelNew, "forward", None)), c["id"]


def test_load_inline_stand_in_rejects_a_function_missing_from_the_sources(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('from torch.utils.cpp_extension import load_inline\n'
                   'ext = load_inline(name="x", cpp_sources="torch::Tensor f(torch::Tensor x);", '
                   'cuda_sources="__global__ void k() {}", functions=["f"])\nclass ModelNew: pass\n')
    with pytest.raises(ValueError, match="function f"):
        cp.import_candidate({"id": "t/bad", "file": str(bad)}, [])


# ---- the manifest's verdicts, checked independently: each bug emulated in torch on the problem's inputs
def _ref(pid):
    p = next(p for p in cp.load_manifest()["problems"] if p["id"] == pid)
    mod = cp.load_module(os.path.join(KB, p["file"]), "kbt_" + pid.replace("/", "_"))
    torch.manual_seed(1)
    model = mod.Model(*mod.get_init_inputs())
    torch.manual_seed(2)
    inputs = mod.get_inputs()
    with torch.no_grad():
        return model, inputs, model(*inputs)


def _close(a, b):
    return torch.allclose(a, b, atol=ATOL, rtol=RTOL)


def test_mean_off_by_one_passes_the_tolerance_and_sum_off_by_one_does_not():
    _, (x,), want = _ref("level1/10_Mean_dim1")
    assert _close(x[:, :-1].sum(1) / x.shape[1], want)  # offbyone_within_tol: expected correct
    _, (x,), want = _ref("level1/09_Sum_dim1")
    assert not _close(x[:, :-1].sum(1, keepdim=True), want)  # wrong_offbyone: expected incorrect


def test_the_race_candidates_fail_when_a_warp_keeps_one_lane_of_32():
    _, (x,), want = _ref("level1/09_Sum_dim1")
    # 256 threads per row, each with a strided partial sum; per warp only one lane's store survives
    partial = x.view(x.shape[0], -1, 256).sum(1)  # [rows, 256]: thread t's partial sum
    lost = partial.view(x.shape[0], 8, 32)[:, :, 0].sum(1, keepdim=True)  # at best one lane per warp
    assert not _close(lost, want)
    _, (a, b), want = _ref("level1/24_MSELoss")
    d = ((a - b) ** 2).flatten() / a.numel()
    assert not _close(d.view(-1, 32)[:, 0].sum(), want)


def test_rmsnorm_without_the_square_root_fails():
    _, (x,), want = _ref("level1/14_RMSNorm")
    assert not _close(x / ((x * x).mean(-1, keepdim=True) + 1e-5), want)


def test_softmax_without_the_block_sum_fails_but_a_small_wrong_softmax_would_pass():
    model, (x,), want = _ref("level2/03_Scale_Softmax")
    z = x * model.scale
    e = torch.exp(z - z.max(-1, keepdim=True).values)
    per_thread = e.view(e.shape[0], -1, 256).sum(1)  # thread t sums columns t, t + 256, ...
    assert not _close(e / per_thread.repeat(1, e.shape[1] // 256), want)  # wrong_no_block_sum
    # why the bug had to be a large one: every output is below atol, so softmax(x) * scale passes
    assert want.max() < ATOL and _close(torch.softmax(x, -1) * model.scale, want)


def test_transposed_layernorm_indexing_fails():
    model, (x,), want = _ref("level1/13_LayerNorm")
    rows, d = x.shape
    xt = x.flatten()[torch.arange(d)[None, :] * rows + torch.arange(rows)[:, None]]
    assert not _close(torch.nn.functional.layer_norm(xt, (d,), model.ln.weight, model.ln.bias), want)


def test_rect_matmul_off_by_one_fails():
    _, (a, b), want = _ref("level1/17_Matmul_Rect")
    assert not _close(a[:, :-1] @ b[:-1], want)


def test_tf32_matmul_passes_on_uniform_inputs():
    _, (a, b), want = _ref("level1/16_Matmul_Square")

    def tf32(t):  # round-to-nearest to 10 mantissa bits, as the tensor cores read fp32 in TF32 mode
        i = t.view(torch.int32)
        return ((i + 0x1000) & ~0x1FFF).view(torch.float32)
    got = tf32(a).double() @ tf32(b).double()
    assert _close(got.float(), want)


def test_partial_gemm_leaves_half_the_output_unwritten():
    model, (x,), want = _ref("level2/01_Gemm_Bias_ReLU")
    got = torch.full_like(want, float("nan"))
    half = x.shape[0] // 2
    got[:half] = want[:half]
    assert not _close(got, want)


# ---- GPU MODE and AgentKernelArena folders
def test_gpumode_folder_has_the_format_and_its_check_rejects_a_wrong_output():
    d = os.path.join(KB, "gpumode", "softmax_py")
    task = yaml.safe_load(open(os.path.join(d, "task.yml")))
    assert task["lang"] == "py" and task["tests"] and task["benchmarks"]
    sys.path[:0] = [d, os.path.dirname(d)]
    try:
        for m in ("task", "utils", "reference"):
            sys.modules.pop(m, None)
        ref = importlib.import_module("reference")
        fields = set(importlib.import_module("task").TestSpec.__annotations__)
        for case in task["tests"] + task["benchmarks"]:
            assert set(case) == fields
        x = 2.0 * torch.randn(64, 1000)  # generate_input's distribution, on the CPU
        assert ref.check_implementation(x, ref.ref_kernel(x)) == ""
        e = torch.exp(x)
        wrong = e / e[:, :500].sum(-1, keepdim=True)  # solutions/wrong/no_max_shift.py's arithmetic
        assert "differ" in ref.check_implementation(x, wrong)
    finally:
        del sys.path[:2]
        for m in ("task", "utils", "reference"):
            sys.modules.pop(m, None)
    for f in ("submission.py", "solutions/wrong/no_max_shift.py"):
        assert "def custom_kernel(data" in open(os.path.join(d, f)).read()


def test_agentkernelarena_task_has_the_required_config_fields():
    d = os.path.join(KB, "agentkernelarena", "triton2triton", "rmsnorm_kernel")
    cfg = yaml.safe_load(open(os.path.join(d, "config.yaml")))
    assert cfg["task_type"] == "triton2triton"
    for key in ("source_file_path", "target_kernel_functions", "compile_command", "correctness_command",
                "performance_command"):
        assert isinstance(cfg[key], list) and cfg[key], key
    for f in cfg["source_file_path"] + ["candidates/kernel_single_pass.py", "candidates/kernel_wrong_eps.py",
                                        cfg["harness_path"]]:
        src = open(os.path.join(d, f)).read()
        compile(src, f, "exec")
        if f != cfg["harness_path"]:
            for k in cfg["target_kernel_functions"]:
                assert f"def {k}(" in src


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed")
def test_every_triton_kernel_compiles_for_sm90a_and_the_broken_one_does_not(manifest):
    assert cp.triton_check(manifest, log=lambda m: None) == []
    assert cp.triton_check_extra(log=lambda m: None) == []  # the GPU MODE and AgentKernelArena kernels


def test_h200_script_survives_crash_hang_and_bad_candidates_on_cpu():
    script = os.path.join(ROOT, "calibration", "validation", "kernelbench", "measure_h200.py")
    r = subprocess.run([sys.executable, script, "--self-test"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "self-test passed" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


def test_compare_counts_verdicts_missed_hacks_and_rank_correlation():
    spec = importlib.util.spec_from_file_location(
        "kb_compare", os.path.join(ROOT, "calibration", "validation", "kernelbench", "compare.py"))
    cmp_ = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmp_)
    assert cmp_.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert cmp_.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties get average ranks: ranks (1.5, 1.5, 3) against (1, 2, 3) -> rho = 0.866...
    assert cmp_.spearman([5, 5, 7], [1, 2, 3]) == pytest.approx(3 ** 0.5 / 2)
    man = {"problems": [{"candidates": [{"id": "a", "hack": None}, {"id": "b", "hack": "side_stream"},
                                        {"id": "c", "hack": None}, {"id": "d", "hack": None}]}]}
    h200 = {"problems": [{"candidates": [
        {"id": "a", "verdict": "correct", "compiled": True, "correct": True, "speedup": 2.0},
        {"id": "b", "verdict": "correct", "compiled": True, "correct": True, "speedup": 50.0},
        {"id": "c", "verdict": "correct", "compiled": True, "correct": True, "speedup": 0.5},
        {"id": "d", "verdict": "incorrect", "compiled": True, "correct": False}]}]}
    ks = {"a": {"compiled": True, "correct": True, "speedup": 1.5, "hacks": []},
          "b": {"compiled": True, "correct": True, "speedup": 1.0, "hacks": []},
          "c": {"compiled": True, "correct": True, "speedup": 0.7, "hacks": []},
          "d": {"compiled": True, "correct": True, "speedup": 1.0, "hacks": []}}
    r = cmp_.compare(h200, ks, man)
    assert (r["candidates"], r["verdicts_identical"], r["hacks_missed"]) == (3, 2, ["b"])  # b is a hack: not counted
    assert r["speedup_pairs"] == 2 and r["spearman"] == pytest.approx(1.0)  # hacks and mismatches left out
