"""kernsim's model of a reference convolution: an implicit-GEMM tensor-core kernel, simulated.

A KernelBench reference's ``nn.Conv1d/2d/3d`` runs cuDNN on the GPU. PyTorch leaves
``torch.backends.cudnn.allow_tf32`` on, so an fp32 convolution runs on the tensor cores in TF32,
and fp16/bf16 ones in their own type. kernsim has no cuDNN; it times the convolution with its own
implicit-GEMM kernel (``CONV_SRC``, written for this), simulated on the part:

* the GEMM view: M = batch x output positions, N = output channels of a group, K = input
  channels of a group x kernel volume; groups on gridDim.z;
* A (the im2col matrix) is never stored: each thread owns one output position of the tile (its
  batch index, input window origin and base address computed once) and gathers K elements per
  step straight from the NC(D)HW input, zero outside the padding, through a per-K table of
  (offset, kernel-tap coordinates) that the host builds once per shape (as CUTLASS-style
  "precomputed delta" iterators do); the weights are read as an N x K row-major matrix;
* tiles of BM x BN outputs over K steps of 32 through two shared-memory buffers (the next step
  gathered into registers while this one is multiplied, one barrier per step); fp32 inputs are
  rounded to TF32 (``cvt.rna.tf32.f32``) and multiplied with ``mma.sync.m16n8k8.tf32``, fp16/bf16
  ones with ``mma.sync.m16n8k16`` (fragments by ``ldmatrix``); fp32 accumulation; bias in the
  epilogue; the output written in NC(D)HW.

How it differs from cuDNN: cuDNN picks among many kernels by heuristics and benchmarks, usually
works in NHWC (an NCHW fp32 tensor is often transposed to NHWC and back by extra kernels, which
this model does not launch), on Hopper uses wgmma/TMA kernels, and for some shapes FFT or
Winograd algorithms. This model is one kernel, one algorithm: its time is what a competent
implicit-GEMM kernel takes on the part, not cuDNN's. Transposed convolutions, and dtypes other
than fp32/fp16/bf16, raise NoModel with the reason.
"""

from __future__ import annotations

import math

import numpy as np

from . import gemm, refcache, tcgemm

NoModel = gemm.NoModel
BK = 32
# (name, BM, BN, warps along M, warps along N)
CONFIGS = [("kb_conv_128x128", 128, 128, 2, 4), ("kb_conv_128x64", 128, 64, 2, 2), ("kb_conv_64x64", 64, 64, 2, 2),
           ("kb_conv_128x32", 128, 32, 4, 1)]
DTYPES = {"float32": ("float", "tf32"), "float16": ("u16", "f16"), "bfloat16": ("u16", "bf16")}

_CONV = r'''
struct KbConv {
  int N, C, D, H, W, K, G, OD, OH, OW, sd, sh, sw, pd, ph, pw;
};

// y = conv(x, w) (+ bias); x N x C x D x H x W, w K x C/G x T x R x S (flattened: K x Kg), y N x K x OD x OH x OW.
// tab[k] = {x offset of tap k relative to the window origin, t*dd, r*dh, s*dw} for k < Kg.
template <int BM, int BN, int WGM, int WGN>
__device__ __forceinline__ void kb_conv(const KB_T* __restrict__ x, const KB_T* __restrict__ w, KB_T* __restrict__ y,
                                        const KB_T* __restrict__ bias, const int4* __restrict__ tab, KbConv p, int Kg) {
  constexpr int NT = WGM * WGN * 32, BKK = KB_BK, WTM = BM / WGM, WTN = BN / WGN, MI = WTM / 16, NJ = WTN / 8;
  constexpr int KA = NT / BM, EA = BKK / KA, EB = BN * BKK / NT;
  constexpr int LDA = BM + 8, LDB = BKK + KB_BPAD;
  static_assert(EA <= 32 && EB <= 32, "the load masks are 32-bit");
  __shared__ __align__(16) KB_T As[2][BKK * LDA];
  __shared__ __align__(16) KB_T Bs[2][BN * LDB];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm0 = (warp / WGN) * WTM, wn0 = (warp % WGN) * WTN;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN, g = blockIdx.z;
  const int Kper = p.K / p.G, Cg = p.C / p.G;
  const long long osp = (long long)p.OD * p.OH * p.OW, M = p.N * osp, isp = (long long)p.D * p.H * p.W;
  // this thread's output position (its A row) for the whole K loop
  const int ml = tid % BM, kl = tid / BM;
  const long long m = bm + ml;
  const bool mv = m < M;
  const long long n = mv ? m / osp : 0, sp = mv ? m % osp : 0;
  const int od = (int)(sp / ((long long)p.OH * p.OW)), oh = (int)(sp / p.OW % p.OH), ow = (int)(sp % p.OW);
  const int d0 = od * p.sd - p.pd, h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
  const long long xo = (n * p.C + (long long)g * Cg) * isp + ((long long)d0 * p.H + h0) * p.W + w0;
  const KB_T* wg = w + (long long)g * Kper * Kg;
  float acc[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;
  KB_T ra[EA], rb[EB];
  int4 tp[EA];                // this step's taps: all loaded before any is used
  unsigned ma = 0u, mb = 0u;  // which of ra/rb are inside the input / weights (EA, EB <= 32)
  // The taps are all loaded first, then every input load is issued unconditionally (from element
  // 0 when outside, with non-short-circuit tests) and masked at the store: a test or a register
  // merge right after each load waits for it and serialises the gather. (Macros, not lambdas: a lambda capturing ra/rb by reference left them
  // in local memory.)
#define KB_LOAD(K0)                                                                                          \
  ma = mb = 0u;                                                                                              \
  _Pragma("unroll") for (int e = 0; e < EA; ++e) {                                                           \
    const int k = (K0) + kl + e * KA;                                                                        \
    tp[e] = tab[k < Kg ? k : 0];                                                                             \
  }                                                                                                          \
  _Pragma("unroll") for (int e = 0; e < EA; ++e) {                                                           \
    const int k = (K0) + kl + e * KA;                                                                        \
    const bool in = mv & (k < Kg) & ((unsigned)(d0 + tp[e].y) < (unsigned)p.D) &                             \
                    ((unsigned)(h0 + tp[e].z) < (unsigned)p.H) & ((unsigned)(w0 + tp[e].w) < (unsigned)p.W); \
    ma |= (unsigned)in << e;                                                                                 \
    ra[e] = x[in ? xo + tp[e].x : 0];                                                                        \
  }                                                                                                          \
  _Pragma("unroll") for (int e = 0; e < EB; ++e) {                                                           \
    const int idx = tid + e * NT, kk = idx % BKK, nn = idx / BKK, k = (K0) + kk, c = bn + nn;                \
    const bool in = (k < Kg) & (c < Kper);                                                                   \
    mb |= (unsigned)in << e;                                                                                 \
    rb[e] = wg[in ? (long long)c * Kg + k : 0];                                                              \
  }
#define KB_STORE(B)                                                                                          \
  _Pragma("unroll") for (int e = 0; e < EA; ++e)                                                             \
      As[B][(kl + e * KA) * LDA + ml] = ((ma >> e) & 1u) ? KB_ROUND(ra[e]) : KB_ZERO;                        \
  _Pragma("unroll") for (int e = 0; e < EB; ++e) {                                                           \
    const int idx = tid + e * NT;                                                                            \
    Bs[B][(idx / BKK) * LDB + idx % BKK] = ((mb >> e) & 1u) ? KB_ROUND(rb[e]) : KB_ZERO;                     \
  }
  KB_LOAD(0);
  KB_STORE(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < Kg; k0 += BKK) {
    const bool more = k0 + BKK < Kg;
    if (more) {
      KB_LOAD(k0 + BKK);
    }
    KB_MMA_STEP(As[buf], Bs[buf]);
    if (more) {
      KB_STORE(buf ^ 1);
    }
    __syncthreads();
    buf ^= 1;
  }
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long r = bm + wm0 + i * 16 + lane / 4 + h * 8;
      if (r >= M) continue;
      const long long rn = r / osp, rsp = r % osp;
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = bn + wn0 + j * 8 + (lane % 4) * 2 + e;
          if (c >= Kper) continue;
          const int ko = g * Kper + c;
          float v = acc[i][j][2 * h + e];
          if (bias) v += KB_TO_F(bias[ko]);
          y[(rn * p.K + ko) * osp + rsp] = KB_FROM_F(v);
        }
    }
}

#define KB_CONV(NAME, BM, BN, WGM, WGN)                                                                       \
  extern "C" __global__ void __launch_bounds__(WGM * WGN * 32)                                               \
      NAME(const KB_T* x, const KB_T* w, KB_T* y, const KB_T* bias, const int4* tab, KbConv p, int Kg) {     \
    kb_conv<BM, BN, WGM, WGN>(x, w, y, bias, tab, p, Kg);                                                     \
  }
'''

# The tensor-core step over one K tile in shared memory, per dtype. tf32: m16n8k8, fragments read
# as 32-bit words (A stored k-major with rows of BM + 8 words, B n-major with rows of BK + 4: both
# conflict-free); f16/bf16: m16n8k16 with ldmatrix (.trans for the k-major A tile).
_STEP_TF32 = r'''
#define KB_MMA_STEP(AS, BS)                                                                                    \
  _Pragma("unroll") for (int kk = 0; kk < BKK; kk += 8) {                                                      \
    unsigned a[MI][4], b[NJ][2];                                                                               \
    const int gq = lane / 4, tq = lane % 4;                                                                    \
    _Pragma("unroll") for (int i = 0; i < MI; ++i) {                                                           \
      const float* pa = (AS) + (kk + tq) * LDA + wm0 + i * 16 + gq;                                            \
      a[i][0] = __float_as_uint(pa[0]);                                                                        \
      a[i][1] = __float_as_uint(pa[8]);                                                                        \
      a[i][2] = __float_as_uint(pa[4 * LDA]);                                                                  \
      a[i][3] = __float_as_uint(pa[4 * LDA + 8]);                                                              \
    }                                                                                                          \
    _Pragma("unroll") for (int j = 0; j < NJ; ++j) {                                                           \
      const float* pb = (BS) + (wn0 + j * 8 + gq) * LDB + kk + tq;                                             \
      b[j][0] = __float_as_uint(pb[0]);                                                                        \
      b[j][1] = __float_as_uint(pb[4]);                                                                        \
    }                                                                                                          \
    _Pragma("unroll") for (int i = 0; i < MI; ++i) _Pragma("unroll") for (int j = 0; j < NJ; ++j)              \
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
                     "{%8, %9}, {%0, %1, %2, %3};\n"                                                           \
                     : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])          \
                     : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));    \
  }
__device__ __forceinline__ float kb_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return __uint_as_float(r);
}
'''

_STEP_HALF = r'''
#define KB_MMA_STEP(AS, BS)                                                                                    \
  _Pragma("unroll") for (int kk = 0; kk < BKK; kk += 16) {                                                     \
    unsigned a[MI][4], b[NJ][2];                                                                               \
    const int q = lane / 8, r8 = lane % 8;                                                                     \
    _Pragma("unroll") for (int i = 0; i < MI; ++i)                                                             \
        kb_ldsm_t(a[i], (AS) + (kk + (q / 2) * 8 + r8) * LDA + wm0 + i * 16 + (q % 2) * 8);                    \
    _Pragma("unroll") for (int j = 0; j < NJ; j += 2) {                                                        \
      unsigned t[4];                                                                                           \
      kb_ldsm(t, (BS) + (wn0 + j * 8 + (lane / 16) * 8 + r8) * LDB + kk + ((lane / 8) % 2) * 8);               \
      b[j][0] = t[0];                                                                                          \
      b[j][1] = t[1];                                                                                          \
      b[j + 1][0] = t[2];                                                                                      \
      b[j + 1][1] = t[3];                                                                                      \
    }                                                                                                          \
    _Pragma("unroll") for (int i = 0; i < MI; ++i) _Pragma("unroll") for (int j = 0; j < NJ; ++j)              \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." KB_MMA_T "." KB_MMA_T ".f32 {%0, %1, %2, %3}, "  \
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                                         \
                     : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])          \
                     : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));    \
  }
'''


def conv_source(dtype: str) -> str:
    """The CUDA source of kernsim's implicit-GEMM convolution for ``dtype``."""
    ctype, mma = DTYPES[dtype]
    if dtype == "float32":
        defs = ("#define KB_T float\n#define KB_ZERO 0.f\n#define KB_ROUND(v) kb_tf32(v)\n#define KB_BPAD 4\n"
                "#define KB_TO_F(v) (v)\n#define KB_FROM_F(v) (v)\n")
        step = _STEP_TF32
    else:
        to_f, from_f = (("__half2float(__ushort_as_half(v))", "__half_as_ushort(__float2half_rn(v))")
                        if dtype == "float16" else
                        ("__bfloat162float(__ushort_as_bfloat16(v))", "__bfloat16_as_ushort(__float2bfloat16_rn(v))"))
        defs = (f"#define KB_T u16\n#define KB_ZERO (u16)0\n#define KB_ROUND(v) (v)\n#define KB_BPAD 8\n"
                f"#define KB_MMA_T \"{mma}\"\n#define KB_TO_F(v) {to_f}\n#define KB_FROM_F(v) {from_f}\n")
        step = _STEP_HALF
    head = (f"// kernsim's reference implicit-GEMM convolution ({dtype}, {mma} tensor cores): "
            f"python/kernsim/kernelbench/conv.py\n#define KB_BK {BK}\n")
    inst = "".join(f"KB_CONV({n}, {bm}, {bn}, {wm}, {wn})\n" for n, bm, bn, wm, wn in CONFIGS)
    return head + tcgemm._COMMON + defs + step + _CONV + inst


CONV_OPS = {"convolution", "_convolution", "conv1d", "conv2d", "conv3d", "cudnn_convolution"}


def problem(op: dict) -> dict:
    """The convolution an ATen record (reftime.record_ops, with ``params``) asks for: NoModel
    when this model cannot time it."""
    name, ins, prm = op["op"], op["inputs"], op.get("params") or {}
    if name not in CONV_OPS or len(ins) < 2:
        raise NoModel(f"`{name}` is not a convolution kernsim's implicit-GEMM model times")
    x, w = ins[0], ins[1]
    bias = len(ins) > 2 and ins[2]["shape"] == [w["shape"][0]]
    if prm.get("transposed"):
        raise NoModel(f"`{name}`: transposed convolutions have no kernsim model")
    dims = len(x["shape"]) - 2
    if dims not in (1, 2, 3) or len(w["shape"]) != dims + 2:
        raise NoModel(f"`{name}` with input {x['shape']} and weight {w['shape']}")
    if x["dtype"] not in DTYPES or w["dtype"] != x["dtype"]:
        raise NoModel(f"`{name}` on {x['dtype']}/{w['dtype']}: kernsim's convolution model takes fp32 (TF32), fp16, bf16")
    if "stride" not in prm:
        raise NoModel(f"`{name}`: its stride/padding/dilation were not recorded")

    def pad3(v, fill):  # to (d, h, w)
        v = list(v) if isinstance(v, (list, tuple)) else [v] * dims
        v = v * dims if len(v) == 1 else v
        return [fill] * (3 - dims) + [int(t) for t in v]

    sd, sh, sw = pad3(prm["stride"], 1)
    pd, ph, pw = pad3(prm["padding"], 0)
    dd, dh, dw = pad3(prm["dilation"], 1)
    n, c = x["shape"][:2]
    D, H, W = [1] * (3 - dims) + list(x["shape"][2:])
    k = w["shape"][0]
    T, R, S = [1] * (3 - dims) + list(w["shape"][2:])
    groups = int(prm.get("groups", 1))
    out = op["outputs"][0]["shape"] if op["outputs"] else None
    if not out or len(out) != dims + 2:
        raise NoModel(f"`{name}` without an output of rank {dims + 2}")
    OD, OH, OW = [1] * (3 - dims) + list(out[2:])
    if groups < 1 or c % groups or k % groups or w["shape"][1] != c // groups:
        raise NoModel(f"`{name}` with {c} input channels, weight {w['shape']} and groups={groups}")
    if min(n, c, k, OD, OH, OW) <= 0:
        raise NoModel(f"`{name}` with an empty dimension")
    if math.prod(x["shape"]) >= 2 ** 31 or math.prod(out) >= 2 ** 31:
        raise NoModel(f"`{name}` with 2^31 elements or more: the model's offsets are 32-bit in places")
    return {"dtype": x["dtype"], "N": n, "C": c, "D": D, "H": H, "W": W, "K": k, "T": T, "R": R, "S": S,
            "G": groups, "OD": OD, "OH": OH, "OW": OW, "stride": [sd, sh, sw], "pad": [pd, ph, pw],
            "dil": [dd, dh, dw], "bias": bool(bias), "dims": dims}


def tap_table(p: dict) -> np.ndarray:
    """Per K index of a group (c, t, r, s): {x offset from the window origin, t*dd, r*dh, s*dw}."""
    cg = p["C"] // p["G"]
    dd, dh, dw = p["dil"]
    c, t, r, s = np.meshgrid(np.arange(cg), np.arange(p["T"]), np.arange(p["R"]), np.arange(p["S"]), indexing="ij")
    off = ((c * p["D"] + t * dd) * p["H"] + r * dh) * p["W"] + s * dw
    return np.stack([off, t * dd, r * dh, s * dw], axis=-1).reshape(-1, 4).astype(np.int32)


def _struct(p: dict) -> dict:
    vals = [p["N"], p["C"], p["D"], p["H"], p["W"], p["K"], p["G"], p["OD"], p["OH"], p["OW"], *p["stride"], *p["pad"]]
    return {"struct": [{"type": "i32", "value": int(v)} for v in vals]}


def launch_args(p: dict, with_data: np.random.Generator | None = None) -> tuple:
    """(x, w, y, bias, tab) arrays for a launch of problem ``p`` (zeros, or random with_data)."""
    dt = np.float32 if p["dtype"] == "float32" else np.uint16
    shape_x = (p["N"], p["C"], p["D"], p["H"], p["W"])
    shape_w = (p["K"], p["C"] // p["G"], p["T"], p["R"], p["S"])
    if with_data is None:
        x, w = np.zeros(shape_x, dt), np.zeros(shape_w, dt)
        b = np.zeros(p["K"], dt) if p["bias"] else None
    else:
        x, w = (with_data.standard_normal(shape_x).astype(np.float32), with_data.standard_normal(shape_w).astype(np.float32))
        b = with_data.standard_normal(p["K"]).astype(np.float32) if p["bias"] else None
    y = np.zeros((p["N"], p["K"], p["OD"], p["OH"], p["OW"]), dt)
    return x, w, y, b, tap_table(p)


def grid(p: dict, bm: int, bn: int) -> tuple:
    m = p["N"] * p["OD"] * p["OH"] * p["OW"]
    return (-(-(p["K"] // p["G"]) // bn), -(-m // bm), p["G"])


def time_conv(p: dict, arch: str, device_file: str | None = None, cache: str = "cold") -> dict:
    """{"time_us", "config", "configs"} of the fastest configuration for convolution ``p``; cached."""
    import kernsim
    src = conv_source(p["dtype"])

    def compute():
        m = refcache.module(src, arch, device_file)
        x, w, y, b, tab = launch_args(p)
        times = {}
        for kernel, bm, bn, wm, wn in CONFIGS:
            try:
                r = kernsim.launch(m[kernel], grid(p, bm, bn), (wm * wn * 32,),
                                   [x, w, y, b, tab, _struct(p), kernsim.i32(tab.shape[0])], arch=arch,
                                   device_file=device_file, cache=cache, keep_outputs=False, wall_time_limit_s=0)
            except kernsim.KernsimError as e:
                raise NoModel(f"kernsim's convolution kernel {kernel} did not run: {e}") from e
            times[kernel] = float(r.time_us)
        return refcache.fastest(times)

    return refcache.cached(refcache.key("conv", src, arch, device_file, cache, p), compute)
