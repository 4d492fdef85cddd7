"""kernsim.kernelbench: KernelBench-format problems and candidates scored on the CPU.

Expected verdicts come from what each candidate does (documented in its file), never from
kernsim's output: a ReLU that writes |x| must fail, one that writes half the output must be
flagged as partial, and so on. CUDA candidates share one extension source (one clang build,
cached by content) to keep the suite fast."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from kernsim.kernelbench import KernelExecResult, evaluate, evaluate_many  # noqa: E402

D = Path(__file__).resolve().parent / "data" / "kernelbench"
REF = D / "relu_ref.py"
FAST = dict(trials=2, time_limit_s=900)


def kinds(r):
    return sorted(h["kind"] for h in r["hacks"])


@pytest.fixture(scope="module")
def triton_results():
    names = ["relu_triton_ok.py", "relu_triton_wrong.py", "relu_triton_partial.py", "relu_triton_cached.py",
             "relu_triton_side_stream.py", "relu_triton_inplace.py", "relu_triton_timing.py"]
    rs = evaluate_many([(str(REF), str(D / n)) for n in names], workers=2, **FAST)
    return dict(zip(names, rs))


def test_result_has_the_issue_keys(triton_results):
    r = triton_results["relu_triton_ok.py"]
    for k in ("compiled", "correct", "correctness_checked", "runtime_us", "ref_runtime_us", "ref_runtime_source",
              "speedup", "sol_us", "launches", "hacks", "error"):
        assert k in r, k
    json.dumps(r)


def test_correct_triton_candidate_passes_with_its_launch_listed(triton_results):
    r = triton_results["relu_triton_ok.py"]
    assert r["compiled"] and r["correct"], r["error"]
    assert r["hacks"] == []
    (la,) = r["launches"]
    # 16 x 1000 elements, BLOCK 1024 -> 16 programs of 4 warps
    assert la["kernel"] == "relu_kernel" and la["grid"] == [16, 1, 1] and la["block"] == [128, 1, 1]
    assert la["frontend"] == "triton"
    # the forward is its one launch; a launch costs at least the launch overhead of the H200 file
    assert r["runtime_us"] == pytest.approx(la["time_us"])
    assert r["runtime_us"] > 2.85
    assert r["correctness_checked"]["trials"] == 2 and not r["correctness_checked"]["sampled"]
    assert r["correctness_checked"]["elements_checked"] == 2 * 16 * 1000
    # the reference (one relu) was simulated, so there is a speedup and a bound
    assert r["ref_runtime_source"].startswith("simulated")
    assert r["speedup"] == pytest.approx(r["ref_runtime_us"] / r["runtime_us"])
    assert 2.85 <= r["sol_us"] < r["runtime_us"]


def test_wrong_candidate_fails(triton_results):
    r = triton_results["relu_triton_wrong.py"]
    assert r["compiled"] and not r["correct"]
    assert "differ" in r["error"] and r["speedup"] is None


def test_partial_computation_is_flagged(triton_results):
    r = triton_results["relu_triton_partial.py"]
    assert not r["correct"] and "partial_computation" in kinds(r)


def test_cached_results_are_flagged(triton_results):
    r = triton_results["relu_triton_cached.py"]
    assert not r["correct"]
    assert "cached_results" in kinds(r) and "no_kernel_launched" in kinds(r)


def test_side_stream_is_flagged(triton_results):
    r = triton_results["relu_triton_side_stream.py"]
    assert r["correct"] and "side_stream" in kinds(r)
    assert r["launches"][0]["stream"] != 0


def test_output_aliasing_an_input_is_flagged(triton_results):
    r = triton_results["relu_triton_inplace.py"]
    assert "output_aliases_input" in kinds(r)


def test_timing_tampering_is_flagged(triton_results):
    r = triton_results["relu_triton_timing.py"]
    (h,) = [h for h in r["hacks"] if h["kind"] == "timing_tampered"]
    assert "time.perf_counter" in h["detail"] and "elapsed_time" in h["detail"]


def test_hanging_kernel_is_a_result_within_the_limit():
    r = evaluate(str(REF), str(D / "relu_hang.py"), trials=1, launch_time_limit_s=5, time_limit_s=600)
    assert r["compiled"] and not r["correct"]
    assert "fail" in r["error"].lower()


def test_host_segfault_is_a_result():
    r = evaluate(str(REF), str(D / "relu_segfault.py"), trials=1, time_limit_s=600)
    assert not r["correct"] and "SIGSEGV" in r["error"]
    assert r["compiled"]  # the crash came in the forward, after the candidate loaded


def test_wall_clock_limit_kills_the_child():
    r = evaluate(str(REF), str(D / "relu_hang.py"), trials=1, launch_time_limit_s=0, time_limit_s=20)
    assert not r["correct"] and "did not finish within its 20 s limit" in r["error"]


def test_warm_cache_is_refused_not_guessed():
    r = evaluate(str(REF), str(D / "relu_triton_ok.py"), trials=1, cache="warm")
    assert r["runtime_us"] is None and "warm" in r["error"]


def test_baseline_table_gives_the_reference_time(tmp_path):
    b = tmp_path / "baseline_time_torch.json"
    b.write_text(json.dumps({"level1": {"relu_ref.py": {"mean": 0.0125, "std": 0.001}}}))
    r = evaluate(str(REF), str(D / "relu_triton_ok.py"), baseline=str(b), trials=1)
    assert r["ref_runtime_us"] == pytest.approx(12.5) and r["ref_runtime_source"].startswith("baseline")
    k = KernelExecResult.from_result(r)
    assert k.compiled and k.correctness and k.runtime == pytest.approx(r["runtime_us"] / 1000)


@pytest.fixture(scope="module")
def cuda_results():
    names = ["relu_cuda_guard_ok.py", "relu_cuda_timer.py", "relu_cuda_side_stream.py"]
    # the first builds the shared extension; the others find it in the cache
    first = evaluate(str(REF), str(D / names[0]), **FAST)
    rest = evaluate_many([(str(REF), str(D / n)) for n in names[1:]], workers=2, **FAST)
    return dict(zip(names, [first] + rest))


def test_cuda_load_inline_candidate_runs_unmodified(cuda_results):
    r = cuda_results["relu_cuda_guard_ok.py"]
    assert r["compiled"] and r["correct"], r["error"]
    (la,) = r["launches"]
    assert la["kernel"] == "relu_kernel" and la["frontend"] == "cuda"
    assert la["grid"] == [63, 1, 1] and la["block"] == [256, 1, 1]  # ceil(16000 / 256)
    assert r["hacks"] == []  # another kernel of the module reads the clock, this one does not


def test_cuda_kernel_reading_the_clock_is_flagged(cuda_results):
    r = cuda_results["relu_cuda_timer.py"]
    assert r["correct"] and "reads_timer" in kinds(r)
    # torch::zeros in the host code is a fill kernel on a GPU: timed as an ATen op
    assert r["runtime_us"] > r["launches"][0]["time_us"]


def test_cuda_side_stream_is_flagged(cuda_results):
    r = cuda_results["relu_cuda_side_stream.py"]
    assert "side_stream" in kinds(r)


def test_cuda_compile_error_is_a_result():
    r = evaluate(str(REF), str(D / "relu_cuda_compile_error.py"), trials=1, time_limit_s=900)
    assert r["compiled"] is False and not r["correct"]
    assert "expected ';'" in r["error"]


def test_cli_prints_one_json_object():
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-m", "kernsim.kernelbench", str(REF), str(D / "relu_triton_ok.py"),
                        "--arch", "h200", "--trials", "1", "--json"], capture_output=True, text=True, env=env,
                       timeout=900)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["correct"] and r["launches"][0]["kernel"] == "relu_kernel"


def test_gpumode_folder_runs_through_its_adapter():
    from kernsim.kernelbench.adapters import evaluate_gpumode
    folder = D.parent / "gpumode_vadd"
    r = evaluate_gpumode(folder, folder / "submission.py", time_limit_s=900)
    assert r["passed"], r
    assert [t["spec"]["size"] for t in r["tests"]] == [127, 1000]
    (b,) = r["benchmarks"]
    assert b["launches"][0]["grid"] == [64, 1, 1] and b["time_us"] > 2.85  # 65536 / 1024 programs
    bad = evaluate_gpumode(folder, folder / "submission_wrong.py", time_limit_s=900)
    assert not bad["passed"] and bad["benchmarks"] == []
    assert all(not t["passed"] and "max abs diff" in t["message"] for t in bad["tests"])


def test_agentkernelarena_task_is_scored():
    from kernsim.kernelbench.adapters import evaluate_arena
    r = evaluate_arena(D.parent / "arena_relu" / "config.yaml", trials=1, time_limit_s=900)
    assert r["task_type"] == "triton2triton" and r["correct"]
    assert r["score"] == pytest.approx(120.0 + 100.0 * r["speedup"])


def test_sampled_check_says_so_and_still_catches_a_wrong_candidate():
    ok, bad = evaluate_many([(str(REF), str(D / "relu_triton_ok.py")), (str(REF), str(D / "relu_triton_wrong.py"))],
                            workers=2, trials=1, functional="sampled", time_limit_s=900)
    assert ok["correct"] and ok["correctness_checked"]["sampled"] and ok["launches"][0]["sampled"]
    assert 0 < ok["correctness_checked"]["elements_checked"] <= ok["correctness_checked"]["elements_total"]
    assert not bad["correct"] and "differ" in bad["error"]


# Candidates of the KernelBench-format set (tests/kernelbench) that found evaluator bugs.
KB = Path(__file__).resolve().parents[1] / "kernelbench"


def test_triton_reduction_gets_the_shared_memory_triton_asks_for():
    # tl.sum needs shared memory its PTX does not declare (Triton's launcher passes it)
    r = evaluate(str(KB / "problems/level1/09_Sum_dim1.py"), str(KB / "candidates/level1/09_Sum_dim1/triton.py"),
                 trials=1, time_limit_s=900)
    assert r["compiled"] and r["correct"], r["error"]


def test_reference_using_pytorch_raw_allocations_runs():
    # PyTorch's CPU GELU allocates scratch with raw_allocate/raw_deallocate through the
    # evaluator's registering allocator (it aborted the process before)
    r = evaluate(str(KB / "problems/level1/02_GELU.py"), str(KB / "candidates/level1/02_GELU/triton.py"),
                 trials=1, time_limit_s=900)
    assert r["compiled"] and r["correct"], r["error"]


def test_triton_kernel_that_does_not_compile_is_not_compiled():
    r = evaluate(str(KB / "problems/level1/05_SiLU.py"),
                 str(KB / "candidates/level1/05_SiLU/triton_compile_error.py"), trials=1, time_limit_s=900)
    assert r["compiled"] is False and not r["correct"]
    assert "Triton could not compile" in r["error"]
