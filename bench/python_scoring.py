"""Latency of single calls and throughput of score_many, for docs/python.md.

    python3 bench/python_scoring.py [--candidates 32] [--workers 1 2]

The batch is the row-sum task of examples/rl_reward.py with its four kinds of candidate repeated;
"cold" gives every candidate a unique comment so each one is compiled by clang (an RL batch of
fresh samples), "warm" resubmits the same texts (compile cache hits). Scores per second per
core = candidates / wall seconds / workers.
"""

import argparse
import os
import statistics
import sys
import time
import uuid

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import rl_reward  # noqa: E402

import kernsim  # noqa: E402


def timeit(f, n=5):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=32)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args()

    vadd = ('extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {\n'
            '  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n')
    m = kernsim.compile(vadd, "h200")
    x = np.ones(1000, np.float32)
    print(f"compile (cache hit)            {1e3 * timeit(lambda: kernsim.compile(vadd, 'h200')):8.2f} ms")
    print(f"compile (cold, clang)          {1e3 * timeit(lambda: kernsim.compile(vadd + '// ' + uuid.uuid4().hex, 'h200'), 3):8.2f} ms")
    print(f"launch 1000 elements, full     {1e3 * timeit(lambda: kernsim.launch(m['vadd'], 4, 256, [x, x, x, 1000], full=True)):8.2f} ms")
    big = np.ones(1 << 20, np.float32)
    print(f"launch 1M elements, sampled    {1e3 * timeit(lambda: kernsim.launch(m['vadd'], 4096, 256, [big, big, big, 1 << 20])):8.2f} ms")

    ref = {"source": rl_reward.REFERENCE, "kernel": "row_sum", "grid": "rows", "block": 256, "args": rl_reward.ARGS}
    task = {"reference": ref, "make_inputs": rl_reward.make_inputs, "outputs": ["out"],
            "check_sizes": [{"rows": 70, "cols": 1000}, {"rows": 5, "cols": 4096}],
            "time_size": {"rows": 2048, "cols": 2048}, "tolerance": {"float32": (1e-4, 1e-3)}}
    kinds = list(rl_reward.CANDIDATES.values())
    r = timeit(lambda: kernsim.score_many([dict(task, candidate=kinds[1])]), 3)
    print(f"score() one candidate (warm)   {1e3 * r:8.2f} ms")

    for mode in ("warm", "cold"):
        for w in a.workers:
            cands = []
            for i in range(a.candidates):
                c = dict(kinds[i % len(kinds)])
                if mode == "cold":
                    c["source"] = c["source"] + f"\n// sample {uuid.uuid4().hex}\n"
                cands.append(c)
            tasks = [dict(task, candidate=c) for c in cands]
            t = time.perf_counter()
            res = kernsim.score_many(tasks, workers=w)
            dt = time.perf_counter() - t
            n_ok = sum(r["correct"] for r in res)
            print(f"score_many {mode:4} {len(tasks)} candidates, workers={w}: {dt:6.2f} s, "
                  f"{len(tasks) / dt:5.2f} scores/s, {len(tasks) / dt / w:5.2f} scores/s/core ({n_ok} correct)")


if __name__ == "__main__":
    main()
