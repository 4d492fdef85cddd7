"""kernsim's model of a reference fp32 matrix product: a real SGEMM kernel, simulated.

A KernelBench reference's ``torch.matmul``/``nn.Linear`` runs a cuBLAS SGEMM on the GPU (fp32:
PyTorch leaves TF32 off for matmuls by default). kernsim has no cuBLAS; it times the same
product with its own tiled SGEMM (``SGEMM_SRC``: shared-memory tiles of A and B, each thread
accumulating a TM x TN block in registers, a bias / beta*D epilogue, batches on gridDim.z),
simulated on the part like any candidate's kernel. A library picks the tiling that suits the
shape; kernsim times each of its configurations (``CONFIGS``) and reports the fastest, saying
which. The kernel's data are zeros: its instruction stream and addresses do not depend on them.

Times are cached per (shape, layout, epilogue, part, cache mode, kernel source) in
``~/.cache/kernsim/kernelbench/sgemm_times.json`` (``KERNSIM_CACHE_DIR`` moves it). A product
this model cannot time (not fp32, a layout it does not read) raises ``NoModel`` with the reason;
the reference time is then not given, never guessed.
"""

from __future__ import annotations

import math

from . import refcache

SGEMM_SRC = r'''
// kernsim's reference SGEMM: C[b] = alpha * op(A[b]) x op(B[b]) (+ beta * D[b]) (+ bias[n]).
// op(A) is M x K: A row-major M x K, or (trans_a) A stored K x M. op(B) is K x N: B row-major
// K x N, or (trans_b) B stored N x K (nn.Linear's weight). Block: BM x BN outputs, 256 threads,
// each TM x TN of them in registers; K in steps of BK through shared memory, the next step's
// tiles loaded into registers while this one is multiplied (software pipelining); the A tile is
// stored transposed with a 4-float pad so that its stores do not conflict on banks.
template <int BM, int BN, int TM, int TN, int BK>
__device__ void sgemm_tile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                           const float* __restrict__ D, const float* __restrict__ bias, int M, int N, int K,
                           int trans_a, int trans_b, long long sA, long long sB, long long sC, long long sD,
                           float alpha, float beta) {
  constexpr int LA = BM * BK / 256, LB = BK * BN / 256;
  __shared__ __align__(16) float As[BK][BM + 4];
  __shared__ __align__(16) float Bs[BK][BN];
  const long long b = blockIdx.z;
  A += b * sA;
  B += b * sB;
  C += b * sC;
  if (D) D += b * sD;
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tr = tid / (BN / TN), tc = tid % (BN / TN);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  float ra[LA], rb[LB];
  auto load = [&](int k0) {
#pragma unroll
    for (int l = 0; l < LA; ++l) {
      const int idx = tid + l * 256;
      const int m = trans_a ? idx % BM : idx / BK, k = trans_a ? idx / BM : idx % BK;
      const int gm = row0 + m, gk = k0 + k;
      ra[l] = 0.f;
      if (gm < M && gk < K) ra[l] = trans_a ? A[(long long)gk * M + gm] : A[(long long)gm * K + gk];
    }
#pragma unroll
    for (int l = 0; l < LB; ++l) {
      const int idx = tid + l * 256;
      const int n = trans_b ? idx / BK : idx % BN, k = trans_b ? idx % BK : idx / BN;
      const int gn = col0 + n, gk = k0 + k;
      rb[l] = 0.f;
      if (gn < N && gk < K) rb[l] = trans_b ? B[(long long)gn * K + gk] : B[(long long)gk * N + gn];
    }
  };
  auto store = [&]() {
#pragma unroll
    for (int l = 0; l < LA; ++l) {
      const int idx = tid + l * 256;
      As[trans_a ? idx / BM : idx % BK][trans_a ? idx % BM : idx / BK] = ra[l];
    }
#pragma unroll
    for (int l = 0; l < LB; ++l) {
      const int idx = tid + l * 256;
      Bs[trans_b ? idx % BK : idx / BN][trans_b ? idx / BK : idx % BN] = rb[l];
    }
  };
  load(0);
  store();
  __syncthreads();
  for (int k0 = 0; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    if (more) load(k0 + BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], bb[TN];
#pragma unroll
      for (int i = 0; i < TM; i += 4) *(float4*)&a[i] = *(const float4*)&As[k][tr * TM + i];
#pragma unroll
      for (int j = 0; j < TN; j += 4) *(float4*)&bb[j] = *(const float4*)&Bs[k][tc * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], bb[j], acc[i][j]);
    }
    __syncthreads();
    if (more) {
      store();
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int gm = row0 + tr * TM + i;
    if (gm >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int gn = col0 + tc * TN + j;
      if (gn >= N) continue;
      float v = alpha * acc[i][j];
      if (D) v += beta * D[(long long)gm * N + gn];
      if (bias) v += bias[gn];
      C[(long long)gm * N + gn] = v;
    }
  }
}

#define KB_SGEMM(NAME, BM, BN, TM, TN)                                                                       \
  extern "C" __global__ void __launch_bounds__(256)                                                         \
      NAME(const float* A, const float* B, float* C, const float* D, const float* bias, int M, int N, int K, \
           int trans_a, int trans_b, long long sA, long long sB, long long sC, long long sD, float alpha,   \
           float beta) {                                                                                     \
    sgemm_tile<BM, BN, TM, TN, 8>(A, B, C, D, bias, M, N, K, trans_a, trans_b, sA, sB, sC, sD, alpha, beta); \
  }
KB_SGEMM(kb_sgemm_128x128, 128, 128, 8, 8)
KB_SGEMM(kb_sgemm_64x64, 64, 64, 4, 4)
'''

# (kernel, BM, BN): every configuration is timed, the fastest is the reference's time
CONFIGS = [("kb_sgemm_128x128", 128, 128), ("kb_sgemm_64x64", 64, 64)]
THREADS = 256


class NoModel(Exception):
    """A matrix product this model cannot time; the message says why."""


def _transposed(meta: dict) -> bool | None:
    """Whether a 2-D (or batched) operand is stored transposed (column-major in its last two
    dimensions), False when row-major, None when neither."""
    shape, strides = meta["shape"], meta.get("strides")
    if strides is None or len(shape) < 2:
        return False
    r, c = shape[-2], shape[-1]
    if strides[-1] == 1 and (strides[-2] == c or r == 1):
        return False
    if strides[-2] == 1 and (strides[-1] == r or c == 1):
        return True
    return None


def product(op: dict, dtypes: tuple = ("float32",)) -> dict:
    """The SGEMM an ATen matrix-product record (reftime.record_ops) asks for:
    {batch, M, N, K, trans_a, trans_b, d (beta * D input), bias}; NoModel when it is not one
    (``dtypes``: the operand dtypes the caller's kernel takes; tcgemm.py passes fp16/bf16)."""
    name, ins = op["op"], op["inputs"]
    if name in ("mm", "bmm"):
        a, b, extra = ins[0], ins[1], None
    elif name in ("addmm", "baddbmm"):
        extra, a, b = ins[0], ins[1], ins[2]
    else:
        raise NoModel(f"`{name}` is not a matrix product kernsim's SGEMM times (mm, addmm, bmm, baddbmm)")
    for t in (a, b) + ((extra,) if extra else ()):
        if t["dtype"] not in dtypes:
            raise NoModel(f"`{name}` on {t['dtype']}: kernsim's reference GEMM models take fp32 (SGEMM) and "
                          f"fp16/bf16 (tensor-core GEMM)")
    batched = name in ("bmm", "baddbmm")
    if len(a["shape"]) != (3 if batched else 2) or len(b["shape"]) != len(a["shape"]):
        raise NoModel(f"`{name}` with operands of shapes {a['shape']} and {b['shape']}")
    batch = a["shape"][0] if batched else 1
    m, k = a["shape"][-2:]
    n = b["shape"][-1]
    ta, tb = _transposed(a), _transposed(b)
    if ta is None or tb is None:
        raise NoModel(f"`{name}` with an operand that is neither row- nor column-major (strides "
                      f"{a.get('strides')}, {b.get('strides')})")
    if batched and any(t.get("strides") and t["strides"][0] == 0 for t in (a, b)):
        raise NoModel(f"`{name}` with a broadcast (stride 0) batch operand")
    bias = d = False
    if extra is not None:
        if len(extra["shape"]) == 1 or (len(extra["shape"]) >= 2 and math.prod(extra["shape"][:-1]) == 1):
            bias = True  # a row vector over N (nn.Linear's bias)
        else:
            d = True
    if min(m, n, k, batch) <= 0:
        raise NoModel(f"`{name}` with an empty dimension (M={m} N={n} K={k} batch={batch})")
    return {"batch": batch, "M": m, "N": n, "K": k, "trans_a": bool(ta), "trans_b": bool(tb), "d": d, "bias": bias}


def _spec(module, kernel: str, bm: int, bn: int, p: dict) -> dict:
    flags = [{"type": "i32", "value": int(p["trans_a"])}, {"type": "i32", "value": int(p["trans_b"])}]
    return refcache.gemm_spec(module, kernel, bm, bn, THREADS, "f32", p, flags, [])


def time_product(p: dict, arch: str, device_file: str | None = None, cache: str = "cold") -> dict:
    """{"time_us", "config", "configs": {kernel: us}} of the fastest configuration for product
    ``p`` (see product()); cached."""
    def compute():
        m = refcache.module(SGEMM_SRC, arch, device_file)
        times = {}
        for kernel, bm, bn in CONFIGS:
            r = refcache.run_spec(_spec(m, kernel, bm, bn, p), arch, device_file, cache, "reference GEMM model")
            if "time_us" not in r:
                raise NoModel(f"kernsim's SGEMM {kernel} did not run: {r.get('error', r)}")
            times[kernel] = float(r["time_us"])
        return refcache.fastest(times)

    return refcache.cached(refcache.key("sgemm", SGEMM_SRC, arch, device_file, cache, p), compute)
