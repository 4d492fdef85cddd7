"""RL reward for one task: four candidate kernels, four verdicts.

The task: row sums of a float32 matrix, out[r] = sum_c x[r, c]. The reference reduces each row
with one 256-thread block and a shared-memory tree. The candidates are what a model might write:

  slow      correct, one thread per row: every load is strided by a row, nothing coalesces
  fast      correct, one warp per row with float4 loads and warp shuffles
  wrong     forgets to combine the warps' partial sums (only warp 0's part is written)
  oob       reads one element past the end of each row (caught by bounds checking)

Run:  python3 examples/rl_reward.py [--arch h200] [--workers 2]

The candidates are CUDA; on an AMD part (--arch mi300x, mi355x) they are ported (compiled as
HIP, docs/cuda_on_amd.md), and the note names the port's warnings: `fast` is written for 32-lane
warps, and stays correct on a 64-lane wave because each 32-lane half does a whole row.
"""

import argparse
import time

import numpy as np

import kernsim

REFERENCE = r'''
extern "C" __global__ void row_sum(const float* x, float* out, int rows, int cols) {
  __shared__ float part[256];
  int r = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(long)r * cols + c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[r] = part[0];
}'''

SLOW = r'''
extern "C" __global__ void row_sum_slow(const float* x, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += x[(long)r * cols + c];
  out[r] = s;
}'''

FAST = r'''
extern "C" __global__ void row_sum_fast(const float* x, float* out, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const float* row = x + (long)warp * cols;
  float s = 0.0f;
  if (cols % 4 == 0) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    for (int c = lane; c < cols / 4; c += 32) { float4 v = row4[c]; s += (v.x + v.y) + (v.z + v.w); }
  } else {
    for (int c = lane; c < cols; c += 32) s += row[c];
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) out[warp] = s;
}'''

WRONG = REFERENCE.replace("for (int w = blockDim.x / 2; w > 0; w /= 2)", "for (int w = 16; w > 0; w /= 2)")
OOB = SLOW.replace("for (int c = 0; c < cols; ++c)", "for (int c = 0; c <= cols; ++c)").replace("row_sum_slow", "row_sum_oob")

ARGS = ["x", "out", "rows", "cols"]
CANDIDATES = {
    "slow": {"source": SLOW, "kernel": "row_sum_slow", "grid": "cdiv(rows, 128)", "block": 128, "args": ARGS},
    "fast": {"source": FAST, "kernel": "row_sum_fast", "grid": "cdiv(rows * 32, 256)", "block": 256, "args": ARGS},
    "wrong": {"source": WRONG, "kernel": "row_sum", "grid": "rows", "block": 256, "args": ARGS},
    "oob": {"source": OOB, "kernel": "row_sum_oob", "grid": "cdiv(rows, 128)", "block": 128, "args": ARGS},
}
EXPECTED = {"slow": True, "fast": True, "wrong": False, "oob": False}


def make_inputs(size, rng):
    rows, cols = size["rows"], size["cols"]
    return {"x": rng.uniform(-1, 1, (rows, cols)).astype(np.float32), "out": np.zeros(rows, np.float32),
            "rows": rows, "cols": cols}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    reference = {"source": REFERENCE, "kernel": "row_sum", "grid": "rows", "block": 256, "args": ARGS,
                 "flops": "rows * cols", "min_bytes": "4 * rows * (cols + 1)"}
    task = {"reference": reference, "make_inputs": make_inputs, "outputs": ["out"], "arch": a.arch,
            "check_sizes": [{"rows": 70, "cols": 1000}, {"rows": 5, "cols": 4096}],
            "time_size": {"rows": 2048, "cols": 2048},
            # Sums in another order differ by rounding: a row of 2048 values in [-1, 1) sums to ~±45
            # with an absolute error ~1e-5, so the absolute tolerance must cover sums near zero.
            "tolerance": {"float32": (1e-4, 1e-3)}}
    t0 = time.perf_counter()
    results = kernsim.score_many([dict(task, candidate=c) for c in CANDIDATES.values()], workers=a.workers)
    wall = time.perf_counter() - t0
    print(f"task: row sums, timed at 2048 x 2048 on {a.arch}; reward = speedup over the reference (0 if wrong)\n")
    print(f"{'candidate':10} {'correct':8} {'time_us':>9} {'ref_us':>9} {'speedup':>8} {'reward':>7}  note")
    ok = True
    for (name, _), r in zip(CANDIDATES.items(), results):
        note = r["error"].splitlines()[0][:120] if r["error"] else f"bottleneck: {r['report']['bottleneck']}"
        if r.get("warnings"):  # a CUDA candidate on an AMD part: where it assumes 32-lane warps
            names = sorted({w["name"] for w in r["warnings"]})
            note += f"; {len(r['warnings'])} port warnings ({', '.join(names)})"
        t = f"{r['time_us']:9.2f}" if r["time_us"] else f"{'-':>9}"
        rt = f"{r['ref_time_us']:9.2f}" if r["ref_time_us"] else f"{'-':>9}"
        sp = f"{r['speedup']:8.2f}" if r["speedup"] else f"{'-':>8}"
        print(f"{name:10} {str(r['correct']):8} {t} {rt} {sp} {kernsim.reward(r):7.2f}  {note}")
        ok &= r["correct"] == EXPECTED[name]
    print(f"\n{len(results)} candidates scored in {wall:.1f} s with {a.workers} workers")
    if not ok:
        raise SystemExit("unexpected verdict")


if __name__ == "__main__":
    main()
