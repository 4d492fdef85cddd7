"""kernsim's models of PyTorch eager kernels whose shape decides their time more than their bytes.

The streaming model (reftime.py) times a memory-bound ATen op as an ideal coalesced pass over its
bytes. For some ops PyTorch's CUDA kernel is far from that, and the H100 KernelBench measurement
shows it (calibration/data/h100/kernelbench: cumsum over rows -80%, a transposing copy -66%, a
matrix-vector product through the SGEMM model +629% before these models). Each op here is timed by
a kernel written for kernsim that follows the algorithm and launch shape of PyTorch's own kernel
(read to learn, not copied), simulated on the part:

* ``cumsum``/``cumprod`` over the innermost dimension of a 2-D+ fp32 tensor: PyTorch's
  innermost-dimension scan runs blocks of 16 x 32 threads, one row per 16-thread group, for at
  most rows / 32 blocks; each row is walked in chunks of 32 elements, each chunk scanned in shared
  memory by the Sklansky method (5 levels, a barrier per level) and the running total carried.
  Over an outer dimension: one thread per (outer, inner) column walking the scanned dimension.
* ``clone``/``copy_``/``_to_copy``/``contiguous`` of a non-contiguous input (a transpose made
  contiguous): an elementwise copy, one thread per 4 output elements (128-thread blocks, each
  thread's elements 128 apart, as PyTorch's unrolled elementwise kernel), reading the input at
  its own strides.
* ``mm``/``addmm`` with a vector operand (N = 1 or M = 1, fp32): a matrix-vector product, as
  cuBLAS runs such a GEMM: one warp per output along a contiguous K (lanes stride K, a shuffle
  reduction), or one thread per output when the outputs are contiguous (loop over K, loads
  coalesced across threads).

Times are cached like the GEMM models' (refcache.py: ``sgemm_times.json``).
"""

from __future__ import annotations

import math

import numpy as np

from . import gemm, refcache

NoModel = gemm.NoModel

EAGER_SRC = r'''
// kernsim's models of PyTorch eager kernels: python/kernsim/kernelbench/eager.py
#define KB_SCAN_OP(a, b) ((mul) ? (a) * (b) : (a) + (b))

// Inclusive scan of each row (row length n, rows contiguous): 16 x 32 threads, one row per
// threadIdx.y, chunks of 32 elements scanned in shared memory (Sklansky: 5 levels, a barrier
// each), the running total carried into the next chunk.
extern "C" __global__ void __launch_bounds__(512) kb_scan_inner(const float* __restrict__ x, float* __restrict__ y,
                                                               long long rows, long long n, int mul) {
  __shared__ float buf[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (long long row0 = (long long)blockIdx.x * 32; row0 < rows; row0 += (long long)gridDim.x * 32) {
    const long long row = row0 + ty;
    const float* xr = x + row * n;
    float* yr = y + row * n;
    float carry = mul ? 1.f : 0.f;
    for (long long c0 = 0; c0 < n; c0 += 32) {
      const long long a = c0 + tx, b = c0 + tx + 16;
      buf[ty][tx] = (row < rows && a < n) ? xr[a] : (mul ? 1.f : 0.f);
      buf[ty][tx + 16] = (row < rows && b < n) ? xr[b] : (mul ? 1.f : 0.f);
      if (tx == 0) buf[ty][0] = KB_SCAN_OP(buf[ty][0], carry);
      __syncthreads();
      for (int s = 1; s <= 16; s <<= 1) {  // Sklansky: at level s every element of the upper half
        const int hi = (tx / s) * 2 * s + s;  // of each 2s group adds the last of its lower half
        buf[ty][hi + tx % s] = KB_SCAN_OP(buf[ty][hi + tx % s], buf[ty][hi - 1]);
        __syncthreads();
      }
      if (row < rows && a < n) yr[a] = buf[ty][tx];
      if (row < rows && b < n) yr[b] = buf[ty][tx + 16];
      carry = buf[ty][31];
      __syncthreads();
    }
  }
}

// Inclusive scan along a dimension of length n with `inner` contiguous elements after it and
// `outer` before: one thread per (outer, inner) column.
extern "C" __global__ void kb_scan_outer(const float* __restrict__ x, float* __restrict__ y, long long outer,
                                         long long n, long long inner, int mul) {
  for (long long o = blockIdx.x; o < outer; o += gridDim.x)
    for (long long c = (long long)blockIdx.y * blockDim.x + threadIdx.x; c < inner;
         c += (long long)gridDim.y * blockDim.x) {
      const float* xp = x + o * n * inner + c;
      float* yp = y + o * n * inner + c;
      float acc = mul ? 1.f : 0.f;
      for (long long i = 0; i < n; ++i) {
        acc = KB_SCAN_OP(acc, xp[i * inner]);
        yp[i * inner] = acc;
      }
    }
}

// Contiguous copy of a strided input of up to 4 dimensions (sizes s0..s3, element strides
// t0..t3, s3 the fastest of the output): 128-thread blocks, 4 elements per thread 128 apart.
template <typename T>
__device__ __forceinline__ void kb_copy_strided(const T* __restrict__ x, T* __restrict__ y, long long total, long long s1,
                                                long long s2, long long s3, long long t0, long long t1, long long t2,
                                                long long t3) {
  const long long base = (long long)blockIdx.x * 512 + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const long long i = base + k * 128;
    if (i >= total) return;
    long long r = i;
    const long long i3 = r % s3;
    r /= s3;
    const long long i2 = r % s2;
    r /= s2;
    const long long i1 = r % s1;
    const long long i0 = r / s1;
    y[i] = x[i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3];
  }
}
#define KB_COPY(NAME, T)                                                                                     \
  extern "C" __global__ void __launch_bounds__(128) NAME(const T* x, T* y, long long total, long long s1,     \
                                                         long long s2, long long s3, long long t0, long long t1, \
                                                         long long t2, long long t3) {                       \
    kb_copy_strided<T>(x, y, total, s1, s2, s3, t0, t1, t2, t3);                                             \
  }
KB_COPY(kb_copy_strided_4, float)
KB_COPY(kb_copy_strided_2, unsigned short)
KB_COPY(kb_copy_strided_8, double)
KB_COPY(kb_copy_strided_1, unsigned char)

// y[r] = sum_k A[r * K + k] * v[k] (+ bias[r]): one warp per output row, lanes stride K.
extern "C" __global__ void __launch_bounds__(256) kb_gemv_rows(const float* __restrict__ A, const float* __restrict__ v,
                                                              const float* __restrict__ bias, float* __restrict__ y,
                                                              int R, int K) {
  const int lane = threadIdx.x % 32;
  const long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (r >= R) return;
  const float* a = A + r * K;
  float s = 0.f;
  for (int k = lane; k < K; k += 32) s = fmaf(a[k], v[k], s);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) y[r] = s + (bias ? bias[r] : 0.f);
}

// y[r] = sum_k A[k * R + r] * v[k] (+ bias[r]): one thread per output, outputs contiguous in A.
extern "C" __global__ void __launch_bounds__(256) kb_gemv_cols(const float* __restrict__ A, const float* __restrict__ v,
                                                              const float* __restrict__ bias, float* __restrict__ y,
                                                              int R, int K) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float s = 0.f;
  for (int k = 0; k < K; ++k) s = fmaf(A[(long long)k * R + r], v[k], s);
  y[r] = s + (bias ? bias[r] : 0.f);
}
'''

SCAN_OPS = {"cumsum", "cumprod"}
COPY_OPS = {"clone", "copy", "copy_", "_to_copy", "contiguous"}


def _contiguous(meta: dict) -> bool:
    shape, strides = meta["shape"], meta.get("strides")
    if strides is None:
        return True
    expect = 1
    for size, st in reversed(list(zip(shape, strides))):
        if size != 1 and st != expect:
            return False
        expect *= size
    return True


def scan_problem(op: dict) -> dict | None:
    """{rows, n, inner, outer, mul, kind} of a cumsum/cumprod record, None when the streaming
    model stays (1-D: CUB's single-pass scan; not fp32 or not contiguous: no eager model here)."""
    if op["op"] not in SCAN_OPS or not op["inputs"] or not op["outputs"]:
        return None
    x = op["inputs"][0]
    dim = (op.get("params") or {}).get("dim")
    if dim is None or x["dtype"] != "float32" or len(x["shape"]) < 2 or not _contiguous(x):
        return None
    shape = x["shape"]
    dim %= len(shape)
    n = shape[dim]
    inner = math.prod(shape[dim + 1:])
    outer = math.prod(shape[:dim])
    mul = int(op["op"] == "cumprod")
    if inner == 1:
        return {"kind": "inner", "rows": outer, "n": n, "mul": mul}
    return {"kind": "outer", "outer": outer, "n": n, "inner": inner, "mul": mul}


def copy_problem(op: dict) -> dict | None:
    """The strided copy of a copy-like record whose input is not contiguous (same dtype, up to
    4-D), None when the streaming model fits (a contiguous input)."""
    if op["op"] not in COPY_OPS or not op["inputs"] or not op["outputs"]:
        return None
    x, y = op["inputs"][-1] if op["op"] == "copy_" else op["inputs"][0], op["outputs"][0]
    if _contiguous(x) or x.get("strides") is None:
        return None
    if x["dtype"] != y["dtype"] or x["shape"] != y["shape"] or len(x["shape"]) > 4:
        return None
    size = x["bytes"] // max(1, math.prod(x["shape"]))
    if size not in (1, 2, 4, 8):
        return None
    shape = [1] * (4 - len(x["shape"])) + list(x["shape"])
    strides = [0] * (4 - len(x["shape"])) + list(x["strides"])
    span = 1 + sum((s - 1) * abs(t) for s, t in zip(shape, strides))  # elements the input spans
    if any(t < 0 for t in strides):
        return None
    return {"elem": size, "shape": shape, "strides": strides, "span": span}


def gemv_problem(op: dict) -> dict | None:
    """{R, K, rows_contiguous, bias} of an fp32 mm/addmm with a vector operand, None otherwise."""
    if op["op"] not in ("mm", "addmm"):
        return None
    try:
        p = gemm.product(op)
    except NoModel:
        return None
    if p["N"] == 1:  # y (M) = A (M x K) v: A rows contiguous along K unless A is stored K x M
        return {"R": p["M"], "K": p["K"], "rows_contiguous": not p["trans_a"], "bias": p["bias"] or p["d"]}
    if p["M"] == 1:  # y (N) = v B (K x N): B stored N x K has rows contiguous along K
        return {"R": p["N"], "K": p["K"], "rows_contiguous": p["trans_b"], "bias": p["bias"] or p["d"]}
    return None


def _launch_plan(kind: str, p: dict, dev: dict) -> tuple:
    """(kernel, grid, block, args) of model ``kind`` for problem ``p``."""
    import kernsim
    i64 = kernsim.i64
    if kind == "scan_inner":
        rows, n = p["rows"], p["n"]
        x, y = np.zeros(rows * n, np.float32), np.zeros(rows * n, np.float32)
        return "kb_scan_inner", (min(2 ** 31 - 1, -(-rows // 32)),), (16, 32), [x, y, i64(rows), i64(n), kernsim.i32(p["mul"])]
    if kind == "scan_outer":
        outer, n, inner = p["outer"], p["n"], p["inner"]
        x, y = np.zeros(outer * n * inner, np.float32), np.zeros(outer * n * inner, np.float32)
        threads = min(512, inner)
        return "kb_scan_outer", (min(65535, outer), min(65535, -(-inner // threads))), (threads,), \
            [x, y, i64(outer), i64(n), i64(inner), kernsim.i32(p["mul"])]
    if kind == "copy":
        total = math.prod(p["shape"])
        dt = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.float64}[p["elem"]]
        x, y = np.zeros(p["span"], dt), np.zeros(total, dt)
        s, t = p["shape"], p["strides"]
        return f"kb_copy_strided_{p['elem']}", (-(-total // 512),), (128,), \
            [x, y, i64(total), i64(s[1]), i64(s[2]), i64(s[3]), i64(t[0]), i64(t[1]), i64(t[2]), i64(t[3])]
    if kind == "gemv":
        r, k = p["R"], p["K"]
        a, v, y = np.zeros(r * k, np.float32), np.zeros(k, np.float32), np.zeros(r, np.float32)
        b = np.zeros(r, np.float32) if p["bias"] else None
        if p["rows_contiguous"]:
            return "kb_gemv_rows", (-(-r * 32 // 256),), (256,), [a, v, b, y, kernsim.i32(r), kernsim.i32(k)]
        return "kb_gemv_cols", (-(-r // 256),), (256,), [a, v, b, y, kernsim.i32(r), kernsim.i32(k)]
    raise ValueError(kind)


def time_eager(kind: str, p: dict, arch: str, device_file: str | None = None, cache: str = "cold") -> dict:
    """{"time_us", "kernel"} of eager model ``kind`` (scan_inner, scan_outer, copy, gemv); cached."""
    import kernsim

    def compute():
        m = refcache.module(EAGER_SRC, arch, device_file)
        name, grid, block, args = _launch_plan(kind, p, {})
        try:
            r = kernsim.launch(m[name], grid, block, args, arch=arch, device_file=device_file, cache=cache,
                               wall_time_limit_s=0)
        except kernsim.KernsimError as e:
            raise NoModel(f"kernsim's eager model {name} did not run: {e}") from e
        return {"time_us": float(r.time_us), "kernel": name}

    return refcache.cached(refcache.key(f"eager {kind}", EAGER_SRC, arch, device_file, cache, p), compute)
