"""score_many() on a Ray cluster: the same tasks, the same results, spread over machines.

    import kernsim.distributed as kd
    results = kd.score_many(tasks)                      # ray.init() on demand (local or RAY_ADDRESS)
    results = kd.score_many(tasks, address="auto", chunk_size=16, workers_per_task=4)

Tasks are split into chunks; each chunk runs kernsim.score_many(chunk, workers=workers_per_task)
in one Ray task that reserves that many CPUs, on a node where the kernsim package is installed.
Results come back in task order. Because every launch is simulated deterministically and on its
own, a task's result does not depend on which chunk, node or worker count it ran with — the
test suite checks that this path and kernsim.score_many agree exactly.

Tasks travel with cloudpickle: make_inputs and other callables from modules the workers cannot
import (a script, a test file) are sent by value.
"""

from __future__ import annotations

import sys
from typing import Sequence

from .scoring import score_many as _local_score_many

_remote = None


def _score_chunk(chunk: list, workers: int) -> list:
    return _local_score_many(chunk, workers=workers)


def _send_by_value(tasks: Sequence[dict]) -> None:
    """Registers the modules of the tasks' callables for pickling by value unless they live in
    an installed package (site-packages) that Ray workers can import themselves."""
    from ray import cloudpickle

    seen = set()

    def visit(v):
        if callable(v) and hasattr(v, "__module__"):
            mod = sys.modules.get(v.__module__)
            if mod is None or mod.__name__ in seen or mod.__name__ == "__main__":
                return
            f = getattr(mod, "__file__", "") or ""
            if "site-packages" in f or "dist-packages" in f or not f:
                return
            seen.add(mod.__name__)
            try:
                cloudpickle.register_pickle_by_value(mod)
            except ValueError:
                pass
        elif isinstance(v, dict):
            for x in v.values():
                visit(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x)

    for t in tasks:
        visit(t)


def score_many(tasks: Sequence[dict], *, address: str | None = None, chunk_size: int | None = None,
               workers_per_task: int = 1, init_kwargs: dict | None = None) -> list[dict]:
    """kernsim.score_many over Ray. Starts (or connects to) Ray when it is not initialised:
    ``address`` as for ray.init (None: RAY_ADDRESS or a new local instance)."""
    import ray

    global _remote
    if not ray.is_initialized():
        ray.init(address=address, **(init_kwargs or {}))
    tasks = list(tasks)
    if not tasks:
        return []
    if chunk_size is None:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        slots = max(1, cpus // max(1, workers_per_task))
        chunk_size = max(1, -(-len(tasks) // (slots * 2)))  # about two chunks per slot, for balance
    if _remote is None:
        _remote = ray.remote(_score_chunk)
    _send_by_value(tasks)
    chunks = [tasks[i:i + chunk_size] for i in range(0, len(tasks), chunk_size)]
    refs = [_remote.options(num_cpus=workers_per_task).remote(c, workers_per_task) for c in chunks]
    out: list = []
    for r in ray.get(refs):
        out.extend(r)
    return out
