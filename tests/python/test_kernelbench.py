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
             "relu_triton_side_stream.py", "relu_triton_inplace.py", "relu_triton_timing.py",
             "relu_triton_torch_output.py", "relu_triton_torch_epilogue.py"]
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


def test_output_computed_by_torch_beside_a_decoy_kernel_is_flagged(triton_results):
    r = triton_results["relu_triton_torch_output.py"]
    # the values are right (torch.relu), a kernel ran, but no kernel made the output
    assert r["correct"] and [la["kernel"] for la in r["launches"]] == ["copy_kernel"]
    (h,) = [h for h in r["hacks"] if h["kind"] == "output_from_torch"]
    assert "`relu`" in h["detail"]


def test_torch_op_on_a_kernel_result_is_not_output_from_torch(triton_results):
    r = triton_results["relu_triton_torch_epilogue.py"]
    assert r["correct"], r["error"]
    assert r["hacks"] == []


def test_storage_states_follow_kernels_copies_and_torch_ops():
    from kernsim.kernelbench.provenance import storage_states
    x, scratch, y, out = 0x1000, 0x2000, 0x3000, 0x4000
    ev = [{"op": "empty_like", "ins": [x], "outs": [scratch]},
          {"launch": "decoy", "writes": [scratch]},
          {"op": "relu", "ins": [x], "outs": [y]},                  # from the input alone: torch's result
          {"op": "add", "ins": [scratch, x], "outs": [out]}]        # from a kernel's result: the candidate's
    st = storage_states(ev)
    assert st[scratch][0] == "kernel" and st[y] == ("torch", "relu") and st[out][0] == "kernel"
    # copy_ overwrites with its source's state; a fill leaves nothing computed
    st = storage_states(ev + [{"op": "copy_", "ins": [out, y], "outs": [out]},
                              {"op": "fill_", "ins": [y], "outs": [y]}])
    assert st[out] == ("torch", "copy_") and st[y] == (None, "fill_")
    # views change nothing; a kernel writing over torch's result makes it the kernel's
    st = storage_states(ev + [{"op": "view", "ins": [y], "outs": [y]}, {"launch": "k2", "writes": [y]}])
    assert st[y] == ("kernel", "k2")


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
    # functional "complete": no fallback to a sampled run when the functional budget runs out (on a
    # fast machine the budget ran out before 20 s and the sampled run answered instead)
    r = evaluate(str(REF), str(D / "relu_hang.py"), trials=1, launch_time_limit_s=0, time_limit_s=20,
                 functional="complete")
    assert not r["correct"] and "did not finish within its 20 s limit" in r["error"]


def test_cold_dirty_is_kernelbenchs_default_and_costs_the_flushs_write_back(triton_results):
    # KernelBench flushes the L2 by writing 256 MiB: by default each launch starts with the flush's
    # dirty lines, and the 64 KB ReLU's fills write some back, so it is slower than from a clean L2
    dirty = triton_results["relu_triton_ok.py"]
    assert dirty["cache"] == "cold-dirty"
    clean = evaluate(str(REF), str(D / "relu_triton_ok.py"), trials=1, cache="cold")
    assert clean["correct"] and clean["cache"] == "cold", clean["error"]
    assert clean["runtime_us"] < dirty["runtime_us"] and clean["ref_runtime_us"] < dirty["ref_runtime_us"]


def test_warm_cache_times_each_launch_after_a_replay(triton_results):
    cold = triton_results["relu_triton_ok.py"]
    r = evaluate(str(REF), str(D / "relu_triton_ok.py"), trials=1, cache="warm")
    assert r["correct"] and r["cache"] == "warm", r["error"]
    # 64 KB in and out stay in the L2 from the replay: no HBM latency on the loads
    assert r["runtime_us"] < cold["runtime_us"]
    # the reference is timed the same way
    assert r["ref_runtime_us"] < cold["ref_runtime_us"]


def test_warm_cache_on_an_amd_part_times_each_launch_after_a_replay():
    cold = evaluate(str(REF), str(D / "relu_triton_ok.py"), arch="mi300x", trials=1, cache="cold")
    r = evaluate(str(REF), str(D / "relu_triton_ok.py"), arch="mi300x", trials=1, cache="warm")
    assert cold["correct"] and r["correct"] and r["cache"] == "warm", r["error"]
    assert r["runtime_us"] < cold["runtime_us"]


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


@pytest.mark.slow  # tens of seconds: several child processes and 4-8 Mi-element launches
def test_gpumode_reference_kernels_layout_lays_out_task_files():
    # task.yml's `files` bring ../utils.py next to reference.py, as GPU MODE's runner does
    from kernsim.kernelbench.adapters import evaluate_gpumode
    folder = KB / "gpumode" / "softmax_py"
    r = evaluate_gpumode(folder, time_limit_s=900)  # FOLDER/submission.py by default
    assert r["passed"], r
    assert [t["spec"]["rows"] for t in r["tests"]] == [128, 257, 1024]
    assert [b["spec"]["rows"] for b in r["benchmarks"]] == [4096, 2048]
    assert all(b["time_us"] > 2.85 for b in r["benchmarks"])
    bad = evaluate_gpumode(folder, folder / "solutions" / "wrong" / "no_max_shift.py", time_limit_s=900)
    assert not bad["passed"] and bad["benchmarks"] == []
    assert all("differ" in t["message"] for t in bad["tests"])


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


def test_agentkernelarena_short_form_is_scored():
    from kernsim.kernelbench.adapters import evaluate_arena
    r = evaluate_arena(D.parent / "arena_relu" / "config.yaml", trials=1, time_limit_s=900)
    assert r["task_type"] == "triton2triton" and r["correct"]
    assert r["score"] == pytest.approx(120.0 + 100.0 * r["speedup"])


ARENA = D.parent / "arena_scale_task"


@pytest.fixture(scope="module")
def arena_results():
    from kernsim.kernelbench.adapters import evaluate_arena
    return {c: evaluate_arena(ARENA / "config.yaml", ARENA / "candidates" / c if c else None)
            for c in (None, "kernel_wide.py", "kernel_wrong.py", "kernel_syntax_error.py")}


@pytest.mark.slow  # tens of seconds: several child processes and 4-8 Mi-element launches
def test_agentkernelarena_config_runs_the_tasks_own_commands(arena_results):
    base = arena_results[None]
    assert base["pass_compilation"] and base["pass_correctness"], base["error"]
    kinds = [c["kind"] for c in base["baseline"]["commands"]]
    assert kinds == ["compile", "correctness", "performance"]
    perf = base["baseline"]["commands"][-1]
    # 2 configs x (3 warm-up + 20 timed) launches; a repeat of the same launch on the same data
    # is not simulated again
    assert perf["launches"] == 46 and perf["memo_hits"] >= 40
    # the harness's CUDA events read kernsim's clock: a launch costs at least the H200's overhead
    assert base["base_execution_time"] > 2.85e-3
    assert base["speedup_ratio"] == pytest.approx(1.0) and base["score"] == pytest.approx(220.0)


@pytest.mark.slow  # tens of seconds: several child processes and 4-8 Mi-element launches
def test_agentkernelarena_scores_a_candidate_as_the_repository_does(arena_results):
    wide, wrong, broken = (arena_results[c] for c in ("kernel_wide.py", "kernel_wrong.py", "kernel_syntax_error.py"))
    assert wide["pass_correctness"] and wide["benchmark_method_consistent"]
    assert wide["speedup_ratio"] == pytest.approx(wide["base_execution_time"] / wide["best_optimized_execution_time"])
    assert wide["score"] == pytest.approx(120.0 + 100.0 * wide["speedup_ratio"])
    assert wrong["pass_compilation"] and not wrong["pass_correctness"] and wrong["score"] == 20.0
    assert "correctness command" in wrong["error"]
    assert not broken["pass_compilation"] and broken["score"] == 0.0 and "SyntaxError" in broken["error"]


def test_agentkernelarena_shell_commands_are_refused_by_name(tmp_path):
    import shutil

    import yaml
    from kernsim.kernelbench.adapters import evaluate_arena
    shutil.copytree(ARENA, tmp_path / "t")
    cfg = yaml.safe_load((tmp_path / "t" / "config.yaml").read_text())
    cfg["compile_command"] = ["hipcc -O3 kernel.hip -o kernel"]
    (tmp_path / "t" / "config.yaml").write_text(yaml.safe_dump(cfg))
    r = evaluate_arena(tmp_path / "t" / "config.yaml")
    assert not r["pass_compilation"] and "not a Python command" in r["error"] and "hipcc" in r["error"]


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


# ---- the reference's matrix products: kernsim's SGEMM (gemm.py)
def test_sgemm_model_computes_the_product_for_every_layout_and_epilogue():
    import numpy as np

    import kernsim
    from kernsim.kernelbench import gemm
    from kernsim.types import f32, i32, i64
    m = kernsim.compile(gemm.SGEMM_SRC, "h200")
    rng = np.random.default_rng(0)
    M, N, K, B = 70, 50, 33, 2  # not multiples of any tile: the edges are masked
    for kernel, bm, ta, tb, use_d, use_bias in (("kb_sgemm_64x64", 64, 0, 0, 0, 0), ("kb_sgemm_128x128", 128, 1, 1, 1, 1),
                                                ("kb_sgemm_64x64", 64, 0, 1, 0, 1)):
        a, b = rng.standard_normal((B, M, K), dtype=np.float32), rng.standard_normal((B, K, N), dtype=np.float32)
        d, bias = rng.standard_normal((B, M, N), dtype=np.float32), rng.standard_normal(N, dtype=np.float32)
        args = [np.ascontiguousarray(a.transpose(0, 2, 1)) if ta else a,
                np.ascontiguousarray(b.transpose(0, 2, 1)) if tb else b, np.zeros((B, M, N), np.float32),
                d if use_d else None, bias if use_bias else None, i32(M), i32(N), i32(K), i32(ta), i32(tb),
                i64(M * K), i64(K * N), i64(M * N), i64(M * N), f32(1.5), f32(0.5)]
        r = kernsim.launch(m[kernel], (-(-N // bm), -(-M // bm), B), 256, args, full=True)
        want = 1.5 * a @ b + (0.5 * d if use_d else 0) + (bias if use_bias else 0)
        np.testing.assert_allclose(r.outputs[2], want, rtol=1e-4, atol=1e-4)


def test_sgemm_model_reads_the_aten_records_of_linear_and_bmm():
    from kernsim.kernelbench import gemm, reftime
    lin = torch.nn.Linear(96, 64)
    _, ops = reftime.record_ops(lin, [torch.randn(128, 96)])
    (op,) = [o for o in ops if o["op"] in reftime.GEMM]
    # nn.Linear: addmm(bias, x, weight.t()): the weight is read transposed, the bias is a row vector
    assert gemm.product(op) == {"batch": 1, "M": 128, "N": 64, "K": 96, "trans_a": False, "trans_b": True,
                                "d": False, "bias": True}
    _, ops = reftime.record_ops(lambda a, b: torch.bmm(a, b), [torch.randn(3, 8, 5), torch.randn(3, 5, 7)])
    assert gemm.product(ops[0])["batch"] == 3 and gemm.product(ops[0])["N"] == 7
    _, ops = reftime.record_ops(lambda a, b: a @ b, [torch.randn(8, 8).half(), torch.randn(8, 8).half()])
    with pytest.raises(gemm.NoModel, match="float16"):
        gemm.product(ops[0])


def test_matmul_reference_is_timed_by_kernsims_sgemm(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNSIM_CACHE_DIR", str(tmp_path))
    r = evaluate(str(D / "linear_relu_ref.py"), str(D / "linear_relu_triton.py"), trials=1, time_limit_s=900)
    assert r["correct"], r["error"]
    assert r["ref_runtime_us"] is not None and r["ref_runtime_source"].startswith("simulated")
    (g,) = [o for o in r["ref_ops"] if o["op"] == "addmm"]
    assert g["model"].startswith("kernsim SGEMM") and g["shape"]["trans_b"]
    # more than the launch overhead and more than the relu after it
    relu = [o for o in r["ref_ops"] if o["op"] == "relu"][0]
    assert g["time_us"] > 2.85
    assert r["ref_runtime_us"] == pytest.approx(g["time_us"] + relu["time_us"])
    # the candidate's own torch.matmul is the same model: its time is given, and so the speedup
    assert [o["op"] for o in r["torch_ops"]][:1] == ["mm"] and r["speedup"] is not None
    cached = json.loads((tmp_path / "kernelbench" / "sgemm_times.json").read_text())
    assert len(cached) == 2 and all(v["config"].startswith("kb_sgemm_") for v in cached.values())
