"""score / score_many: the right verdicts, and the reward-hacking guards."""

import math

import numpy as np
import pytest

import kernsim
from conftest import REF, VADD, VADD4, VADD_SLOW, strip_wall, vadd_inputs, vadd_task, variant

FAST = {"source": VADD4, "kernel": "vadd4", "grid": "cdiv(n // 4, 256)", "block": 256, "args": ["a", "b", "c", "n"]}
SLOW = {"source": VADD_SLOW, "kernel": "vadd_slow", "grid": "cdiv(n, 64)", "block": 1, "args": ["a", "b", "c", "n"]}


def score(candidate, **kw):
    return kernsim.score_many([vadd_task(candidate, **kw)])[0]


def test_the_reference_against_itself_is_correct_with_speedup_one():
    r = score(REF)
    assert r["correct"] and r["stage"] is None and r["error"] is None
    assert r["max_rel_err"] == 0.0
    assert r["time_us"] == r["ref_time_us"] and r["speedup"] == 1.0
    assert r["report"]["kernel"].startswith("vadd")
    assert [c["size"] for c in r["checks"]] == ["check[0]", "check[1]", "time"]


def test_a_correct_fast_and_a_correct_slow_candidate():
    fast, slow = kernsim.score_many([vadd_task(FAST), vadd_task(SLOW)], workers=2)
    assert fast["correct"] and slow["correct"]
    assert slow["speedup"] < 0.5 < fast["speedup"]
    assert kernsim.reward(slow) == slow["speedup"]


def test_the_fast_tier_times_the_candidates_and_ranks_the_serial_one_slower():
    # a pre-filter: the correctness checks stay full runs, the timed runs use the fast tier
    fast, slow = kernsim.score_many([vadd_task(FAST, tier="fast"), vadd_task(SLOW, tier="fast")])
    assert fast["correct"] and slow["correct"]
    assert fast["report"]["tier"] == "fast" and slow["report"]["tier"] == "fast"
    # one thread per block walking 64 elements is slower than the reference and the float4 one
    assert slow["speedup"] < 1 and slow["speedup"] < fast["speedup"]
    wrong = score(variant(source=VADD.replace("a[i] + b[i]", "a[i] - b[i]")), tier="fast")
    assert not wrong["correct"] and wrong["stage"] == "check"
    with pytest.raises(ValueError, match="tier"):
        score(REF, tier="quick")


def test_a_wrong_candidate_fails_with_every_element_counted():
    r = score(variant(source=VADD.replace("a[i] + b[i]", "a[i] - b[i]")))
    assert not r["correct"] and r["stage"] == "check" and r["speedup"] is None
    assert r["checks"][0]["outputs"]["c"]["mismatches"] == 1000
    assert kernsim.reward(r) == 0.0


def test_tolerance_is_relative_per_dtype():
    close = score(variant(source=VADD.replace("a[i] + b[i]", "(a[i] + b[i]) * 1.000001f")))
    far = score(variant(source=VADD.replace("a[i] + b[i]", "(a[i] + b[i]) * 1.001f")))
    assert close["correct"] and 0 < close["max_rel_err"] < 1e-5
    assert not far["correct"] and far["max_rel_err"] > 5e-4
    loose = score(variant(source=VADD.replace("a[i] + b[i]", "(a[i] + b[i]) * 1.001f")), tolerance=(1e-2, 1e-3))
    assert loose["correct"]


def test_unwritten_elements_fail_because_outputs_are_poisoned():
    r = score(variant(source=VADD.replace("if (i < n)", "if (i < n / 2)")))
    assert not r["correct"]
    assert r["checks"][0]["outputs"]["c"]["mismatches"] == 500  # n=1000: the upper half stays NaN


def test_nan_never_passes():
    r = score(variant(source=VADD.replace("c[i] = a[i] + b[i];", "c[i] = (i == 7) ? __int_as_float(0x7fc00000) : a[i] + b[i];")))
    assert not r["correct"] and r["checks"][0]["outputs"]["c"]["mismatches"] == 1


INT_REF = r'''
extern "C" __global__ void pattern(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0x5A5A5A5A;
}'''


def test_integer_outputs_are_poisoned_twice():
    # The reference writes exactly the first poison pattern; a candidate that writes nothing
    # matches it under that poison, and must still fail under the second.
    def inputs(size, rng):
        return {"out": np.zeros(size["n"], np.int32), "n": size["n"]}

    ref = {"source": INT_REF, "kernel": "pattern", "grid": "cdiv(n, 128)", "block": 128, "args": ["out", "n"]}
    lazy = dict(ref, source=INT_REF.replace("out[i] = 0x5A5A5A5A;", ";"))
    ok, bad = kernsim.score_many([dict(candidate=c, reference=ref, make_inputs=inputs, outputs=["out"],
                                       check_sizes=[{"n": 300}]) for c in (ref, lazy)])
    assert ok["correct"]
    assert not bad["correct"]
    assert [c["correct"] for c in bad["checks"]] == [True, False]


def test_out_of_bounds_write_is_a_fault_not_a_score():
    r = score(variant(source=VADD.replace("if (i < n)", "if (i <= n)")))
    assert not r["correct"] and r["stage"] == "check" and r["error_kind"] == "KernelFault"
    assert "out of bounds" in r["error"]


def test_an_endless_candidate_hits_the_instruction_limit():
    r = score(variant(source=VADD.replace("if (i < n) c[i] = a[i] + b[i];",
                                          "while (atomicAdd((int*)c, 0) != 12345) {}")))
    assert not r["correct"] and r["error_kind"] == "KernelFault" and "instruction limit" in r["error"]
    assert r["instruction_limit"] >= 1_000_000


def test_a_candidate_that_skips_work_at_the_timed_size_is_caught():
    lazy = variant(source=VADD.replace("if (i < n)", "if (i < n && n < 10000)"))
    r = score(lazy)
    assert not r["correct"] and r["stage"] == "time"
    unchecked = score(lazy, check_timed_outputs=False)
    assert unchecked["correct"]  # the guard is what catches it


def test_compile_errors_are_reported_at_the_compile_stage():
    r = score(variant(source=VADD + "\nthis is not C++"))
    assert not r["correct"] and r["stage"] == "compile" and r["error_kind"] == "Compile"


def test_candidates_are_data_callables_are_refused():
    with pytest.raises(TypeError, match="callables are not accepted"):
        score(variant(grid=lambda size, inputs: size["n"] // 256 + 1))
    r = score(variant(grid=lambda size, inputs: -(-size["n"] // 256)), trust_candidate=True)
    assert r["correct"]


def test_expressions_allow_arithmetic_only():
    assert kernsim.evaluate("(cdiv(n, 256), max(1, m // 2))", {"n": 1000, "m": 3}) == (4, 1)
    for bad in ["__import__('os').system('true')", "n.__class__", "[x for x in (1,)]", "open('f')", "n if n else 1"]:
        with pytest.raises(ValueError):
            kernsim.evaluate(bad, {"n": 1})


def test_results_do_not_depend_on_repetition_or_names():
    runs = [strip_wall(score(REF)) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    # The same kernel name with a different body is a different candidate.
    wrong = score(variant(source=VADD.replace("a[i] + b[i]", "a[i] * b[i]")))
    assert not wrong["correct"]
    again = strip_wall(score(REF))
    assert again == runs[0]


def test_score_many_matches_single_scores_for_any_worker_count():
    cands = [REF, FAST, SLOW, variant(source=VADD.replace("a[i] + b[i]", "a[i] - b[i]"))]
    tasks = [vadd_task(c) for c in cands]
    one = [strip_wall(r) for r in kernsim.score_many(tasks, workers=1)]
    two = [strip_wall(r) for r in kernsim.score_many(tasks, workers=2)]
    single = [strip_wall(kernsim.score(c, REF, vadd_inputs, "h200", outputs=["c"],
                                       check_sizes=[{"n": 1000}, {"n": 4099}], time_size={"n": 1 << 16}))
              for c in cands]
    assert one == two == single
    assert [r["correct"] for r in one] == [True, True, True, False]


def test_bad_task_keys_are_named():
    with pytest.raises(ValueError, match="unknown keys"):
        kernsim.score_many([vadd_task(REF, speed_bonus=2)])
    with pytest.raises(ValueError, match="unknown keys"):
        score(variant(host_code="print(1)"))


def test_compare_helper():
    want = np.array([1.0, 2.0, np.inf], np.float32)
    assert kernsim.compare(want.copy(), want, kernsim.DEFAULT_TOLERANCE)["ok"]
    got = want.copy()
    got[2] = -np.inf
    assert not kernsim.compare(got, want, kernsim.DEFAULT_TOLERANCE)["ok"]
    got = want.copy()
    got[0] = np.nan
    c = kernsim.compare(got, want, kernsim.DEFAULT_TOLERANCE)
    assert not c["ok"] and math.isinf(c["max_rel_err"])


def test_a_vectorized_candidate_that_forgets_the_tail_fails():
    no_tail = dict(FAST, source=VADD4.split("  if (i == 0)")[0] + "}")
    r = score(no_tail)
    assert not r["correct"] and r["stage"] == "check"
    assert r["checks"][0]["correct"]  # n = 1000 is a multiple of 4
    assert r["checks"][1]["outputs"]["c"]["mismatches"] == 3  # n = 4099 leaves 3 elements unwritten


def test_an_unknown_part_fails_only_its_task():
    bad, good = kernsim.score_many([vadd_task(REF, arch="no_such_gpu"), vadd_task(REF)])
    assert not bad["correct"] and bad["stage"] == "device" and "no_such_gpu" in bad["error"]
    assert good["correct"]
