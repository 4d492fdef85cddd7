"""A KernelBench-style task scored end to end: "Gemm + bias + ReLU" (level 2 shape).

KernelBench gives a PyTorch `Model` and asks for a faster `ModelNew` built on custom CUDA kernels.
Here the same problem is written the way kernsim scores it:

  * the problem: y = relu(x @ W.T + b), x: [batch, in_features], W: [out_features, in_features];
    `forward` below is its numpy statement (PyTorch is not needed), and `get_inputs` makes inputs
    as KernelBench's get_inputs() does;
  * the reference: a straightforward CUDA kernel with the model's semantics (one thread per
    output), itself checked against `forward` before anything is scored;
  * the candidate: what a model would write for ModelNew — a 16x16 shared-memory tiled GEMM with
    bias and ReLU fused in the epilogue.

score() runs both on small odd sizes (every output compared), then times both at the task's real
size (128 x 1024 -> 1024) on the simulated part and reports the speedup.

Run:  python3 examples/kernelbench_task.py [--arch h200]
"""

import argparse

import numpy as np

import kernsim

BATCH, IN_FEATURES, OUT_FEATURES = 128, 1024, 1024


def forward(x, w, b):
    """Model.forward: torch.relu(self.gemm(x) + self.bias) in numpy (float64 accumulation)."""
    return np.maximum(x.astype(np.float64) @ w.astype(np.float64).T + b, 0.0).astype(np.float32)


def get_inputs(size, rng):
    m, k, n = size["batch"], size["in_features"], size["out_features"]
    return {"x": rng.standard_normal((m, k), dtype=np.float32),
            "w": (rng.standard_normal((n, k), dtype=np.float32) / np.sqrt(k)).astype(np.float32),
            "b": rng.standard_normal(n, dtype=np.float32), "y": np.zeros((m, n), np.float32),
            "batch": m, "in_features": k, "out_features": n}


REFERENCE = r'''
extern "C" __global__ void gemm_bias_relu(const float* x, const float* w, const float* b, float* y,
                                          int m, int k, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += x[row * k + i] * w[col * k + i];
  y[row * n + col] = fmaxf(acc + b[col], 0.0f);
}'''

CANDIDATE = r'''
#define T 16
extern "C" __global__ void gemm_bias_relu_tiled(const float* __restrict__ x, const float* __restrict__ w,
                                                const float* __restrict__ b, float* __restrict__ y,
                                                int m, int k, int n) {
  __shared__ float xs[T][T], ws[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += T) {
    xs[ty][tx] = (row < m && k0 + tx < k) ? x[row * k + k0 + tx] : 0.0f;
    int wrow = blockIdx.x * T + ty;  // W is [n, k]: tile rows are output columns
    ws[ty][tx] = (wrow < n && k0 + tx < k) ? w[wrow * k + k0 + tx] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < T; ++i) acc += xs[ty][i] * ws[tx][i];
    __syncthreads();
  }
  if (row < m && col < n) y[row * n + col] = fmaxf(acc + b[col], 0.0f);
}'''

ARGS = ["x", "w", "b", "y", "batch", "in_features", "out_features"]
REF_SPEC = {"source": REFERENCE, "kernel": "gemm_bias_relu", "grid": "(cdiv(out_features, 128), batch)",
            "block": 128, "args": ARGS, "flops": "2 * batch * in_features * out_features",
            "min_bytes": "4 * (batch * in_features + out_features * in_features + out_features + batch * out_features)"}
CAND_SPEC = {"source": CANDIDATE, "kernel": "gemm_bias_relu_tiled",
             "grid": "(cdiv(out_features, 16), cdiv(batch, 16))", "block": (16, 16), "args": ARGS,
             "flops": REF_SPEC["flops"], "min_bytes": REF_SPEC["min_bytes"]}
CHECK_SIZES = [{"batch": 33, "in_features": 65, "out_features": 17}, {"batch": 16, "in_features": 256, "out_features": 48}]
TIME_SIZE = {"batch": BATCH, "in_features": IN_FEATURES, "out_features": OUT_FEATURES}


def check_reference(arch):
    """The reference kernel itself against the model's numpy forward (trusted host code)."""
    m = kernsim.compile(REFERENCE, arch)
    for size in CHECK_SIZES:
        d = get_inputs(size, np.random.default_rng(7))
        r = kernsim.launch(m["gemm_bias_relu"], ((size["out_features"] + 127) // 128, size["batch"]), 128,
                           [d[a] for a in ARGS], full=True)
        np.testing.assert_allclose(r.outputs[3], forward(d["x"], d["w"], d["b"]), rtol=1e-4, atol=1e-4)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="h200")
    a = ap.parse_args()
    check_reference(a.arch)
    print(f"reference checked against the numpy model on {len(CHECK_SIZES)} sizes")
    r = kernsim.score(CAND_SPEC, REF_SPEC, get_inputs, a.arch, outputs=["y"], check_sizes=CHECK_SIZES,
                      time_size=TIME_SIZE, tolerance={"float32": (1e-4, 1e-4)})
    if not r["correct"]:
        raise SystemExit(f"candidate failed at {r['stage']}: {r['error']}")
    rep, ref = r["report"], r["ref_report"]
    print(f"Gemm+bias+ReLU {BATCH}x{IN_FEATURES} -> {OUT_FEATURES} on {a.arch}: candidate correct "
          f"(max relative error {r['max_rel_err']:.2e})")
    print(f"  reference  {r['ref_time_us']:9.2f} us  bottleneck {ref['bottleneck']:>10}  "
          f"{ref['speed_of_light'].get('spec_flops_per_s', 0) / 1e12:6.2f} TFLOP/s")
    print(f"  candidate  {r['time_us']:9.2f} us  bottleneck {rep['bottleneck']:>10}  "
          f"{rep['speed_of_light'].get('spec_flops_per_s', 0) / 1e12:6.2f} TFLOP/s")
    print(f"  speedup {r['speedup']:.2f}x  -> reward {kernsim.reward(r):.2f}  (scored in {r['wall_s']:.1f} s)")


if __name__ == "__main__":
    main()
