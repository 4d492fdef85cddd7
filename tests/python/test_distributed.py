"""kernsim.distributed.score_many on a local Ray instance that the test starts and stops: the
same results as the in-process batch."""

import importlib.util

import pytest

import kernsim
from conftest import REF, VADD, VADD4, strip_wall, vadd_task, variant

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray not installed")]


@pytest.fixture(scope="module")
def local_ray():
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_results_equal_local_results(local_ray):
    import kernsim.distributed as kd

    fast = {"source": VADD4, "kernel": "vadd4", "grid": "cdiv(n // 4, 256)", "block": 256, "args": ["a", "b", "c", "n"]}
    cands = [REF, fast, variant(source=VADD.replace("a[i] + b[i]", "a[i] - b[i]")),
             variant(source=VADD.replace("if (i < n)", "if (i <= n)")), variant(source="not cuda")]
    tasks = [vadd_task(c) for c in cands]
    local = [strip_wall(r) for r in kernsim.score_many(tasks, workers=2)]
    remote = [strip_wall(r) for r in kd.score_many(tasks, chunk_size=2)]
    assert remote == local
    assert [r["correct"] for r in remote] == [True, True, False, False, False]
    assert [r["stage"] for r in remote] == [None, None, "check", "check", "compile"]
