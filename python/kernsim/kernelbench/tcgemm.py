"""kernsim's model of a reference half-precision matrix product: a tensor-core GEMM, simulated.

A KernelBench reference's ``torch.matmul``/``nn.Linear`` on fp16 or bf16 tensors runs a cuBLAS
tensor-core GEMM (Hopper: wgmma kernels fed by TMA). kernsim has no cuBLAS; it times the product
with its own tensor-core GEMM (``HGEMM_SRC``, written for this): ``mma.sync.m16n8k16`` with fp32
accumulation, operand fragments read from shared memory with ``ldmatrix`` (``.trans`` for an
operand whose contiguous dimension is not K), tiles of BM x BN outputs over K steps of 32 through
two shared-memory buffers (the next step's 16-byte chunks loaded into registers while this one is
multiplied, one barrier per step), an alpha / beta*D / bias epilogue converting to the operands'
dtype, batches on gridDim.z. Like gemm.py's SGEMM, every configuration (``CONFIGS``) is simulated
and the fastest is the reference's time (``ref_ops[].model`` names it).

What it is not: cuBLAS on Hopper uses wgmma (warpgroup MMA reading shared memory directly) with TMA
loads and deeper pipelines; an mma.sync kernel of this kind reaches a smaller share of the tensor
peak on the same part. How far apart the two are is for a measurement to say (docs/kernelbench.md).

The source is generated per (dtype, operand layouts) so that a compile holds only the variant a
product needs. Times are cached like the SGEMM's (refcache.py: ``sgemm_times.json``, the key names the
kernel source's hash).
"""

from __future__ import annotations

from . import gemm, refcache

NoModel = gemm.NoModel

DTYPES = {"float16": ("__half", "f16"), "bfloat16": ("__nv_bfloat16", "bf16")}
BK = 32

# (name, BM, BN, warps along M, warps along N): every configuration is simulated, the fastest kept
CONFIGS = [("kb_hgemm_128x128", 128, 128, 2, 4), ("kb_hgemm_128x64", 128, 64, 2, 2), ("kb_hgemm_64x64", 64, 64, 2, 2)]

_COMMON = r'''
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef unsigned short u16;

__device__ __forceinline__ unsigned kb_smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// 8 consecutive elements [c, c+8) of row r of a rows x cols row-major operand with row stride ld;
// zeros outside it. One 16-byte load when the chunk is inside and the stride keeps it aligned.
// 8 consecutive elements [c, c+8) of row r of a rows x cols row-major operand with row stride ld,
// zeros outside it, element by element (a chunk on the operand's edge or a misaligned stride).
__device__ __forceinline__ uint4 kb_chunk(const u16* __restrict__ p, int r, int c, int rows, int cols, long long ld) {
  const u16* q = p + r * ld + c;
  unsigned w[4] = {0u, 0u, 0u, 0u};  // constant indices only: the words stay in registers
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (r < rows && c + e < cols) w[e / 2] |= (unsigned)q[e] << (16 * (e % 2));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// A TR x TC tile of an operand (rows from r0, columns from c0) in 16-byte chunks: NT threads,
// each CH chunks, into registers and then into shared memory rows of TC + 8 elements (the pad
// puts the 8 rows an ldmatrix reads in distinct banks). Every chunk is loaded with one 16-byte
// load, unconditionally (from the operand's start when the chunk is not whole and aligned, with
// the chunk built element by element at the store instead): a branch around each load would
// leave a register merge right after it that waits for the load and serialises the tile.
template <int TR, int TC, int NT>
struct KbTile {
  static constexpr int CH = TR * TC / 8 / NT, LD = TC + 8, SIZE = TR * (TC + 8);
  static_assert(CH <= 32, "the whole-chunk mask is 32-bit");
  uint4 reg[CH];
  unsigned whole;
  int r0, c0;
  __device__ __forceinline__ void load(const u16* p, int r0_, int c0_, int rows, int cols, long long ld, int vec, int tid) {
    r0 = r0_;
    c0 = c0_;
    whole = 0u;
#pragma unroll
    for (int l = 0; l < CH; ++l) {
      const int idx = tid + l * NT, r = r0 + idx / (TC / 8), c = c0 + (idx % (TC / 8)) * 8;
      const bool w = (vec != 0) & (r < rows) & (c + 8 <= cols);
      whole |= (unsigned)w << l;
      reg[l] = __ldg(reinterpret_cast<const uint4*>(w ? p + r * ld + c : p));
    }
  }
  __device__ __forceinline__ void store(u16* s, const u16* p, int rows, int cols, long long ld, int tid) const {
#pragma unroll
    for (int l = 0; l < CH; ++l) {
      const int idx = tid + l * NT, r = idx / (TC / 8), c = (idx % (TC / 8)) * 8;
      *reinterpret_cast<uint4*>(s + r * LD + c) = ((whole >> l) & 1u) ? reg[l] : kb_chunk(p, r0 + r, c0 + c, rows, cols, ld);
    }
  }
};

__device__ __forceinline__ void kb_ldsm(unsigned (&r)[4], const u16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(kb_smem(p)));
}
__device__ __forceinline__ void kb_ldsm_t(unsigned (&r)[4], const u16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(kb_smem(p)));
}
'''

_GEMM = r'''
// C = alpha * op(A) op(B) (+ beta * D) (+ bias[n]); op(A) M x K: A stored M x K (TA = 0) or K x M
// (TA = 1); op(B) K x N: B stored N x K (TB = 1, nn.Linear's weight) or K x N (TB = 0).
template <int BM, int BN, int WGM, int WGN, int TA, int TB>
__device__ __forceinline__ void kb_hgemm(const u16* __restrict__ A, const u16* __restrict__ B, u16* __restrict__ C,
                                         const u16* __restrict__ D, const u16* __restrict__ bias, int M, int N, int K,
                                         long long sA, long long sB, long long sC, long long sD, float alpha,
                                         float beta, int vec_a, int vec_b) {
  constexpr int NT = WGM * WGN * 32, BKK = KB_BK, WTM = BM / WGM, WTN = BN / WGN, MI = WTM / 16, NJ = WTN / 8;
  typedef KbTile<TA ? BKK : BM, TA ? BM : BKK, NT> TileA;
  typedef KbTile<TB ? BN : BKK, TB ? BKK : BN, NT> TileB;
  __shared__ __align__(16) u16 As[2][TileA::SIZE];
  __shared__ __align__(16) u16 Bs[2][TileB::SIZE];
  const long long z = blockIdx.z;
  A += z * sA;
  B += z * sB;
  C += z * sC;
  if (D) D += z * sD;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm0 = (warp / WGN) * WTM, wn0 = (warp % WGN) * WTN;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  float acc[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;
  TileA ta;
  TileB tb;
  auto load = [&](int k0) {
    if (TA) ta.load(A, k0, bm, K, M, M, vec_a, tid); else ta.load(A, bm, k0, M, K, K, vec_a, tid);
    if (TB) tb.load(B, bn, k0, N, K, K, vec_b, tid); else tb.load(B, k0, bn, K, N, N, vec_b, tid);
  };
  auto store = [&](int b) {
    if (TA) ta.store(As[b], A, K, M, M, tid); else ta.store(As[b], A, M, K, K, tid);
    if (TB) tb.store(Bs[b], B, N, K, K, tid); else tb.store(Bs[b], B, K, N, N, tid);
  };
  load(0);
  store(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += BKK) {
    const bool more = k0 + BKK < K;
    if (more) load(k0 + BKK);
    const u16* as = As[buf];
    const u16* bs = Bs[buf];
#pragma unroll
    for (int kk = 0; kk < BKK; kk += 16) {
      unsigned a[MI][4], b[NJ][2];
      const int q = lane / 8, r8 = lane % 8;
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        if (TA) kb_ldsm_t(a[i], as + (kk + (q / 2) * 8 + r8) * TileA::LD + wm0 + i * 16 + (q % 2) * 8);
        else kb_ldsm(a[i], as + (wm0 + i * 16 + lane % 16) * TileA::LD + kk + (lane / 16) * 8);
      }
#pragma unroll
      for (int j = 0; j < NJ; j += 2) {
        unsigned t[4];
        if (TB) kb_ldsm(t, bs + (wn0 + j * 8 + (lane / 16) * 8 + r8) * TileB::LD + kk + ((lane / 8) % 2) * 8);
        else kb_ldsm_t(t, bs + (kk + (q % 2) * 8 + r8) * TileB::LD + wn0 + j * 8 + (q / 2) * 8);
        b[j][0] = t[0];
        b[j][1] = t[1];
        b[j + 1][0] = t[2];
        b[j + 1][1] = t[3];
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." KB_MMA_T "." KB_MMA_T ".f32 {%0, %1, %2, %3}, "
                       "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                       : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                       : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    if (more) store(buf ^ 1);
    __syncthreads();
    buf ^= 1;
  }
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = bm + wm0 + i * 16 + lane / 4 + h * 8, c = bn + wn0 + j * 8 + (lane % 4) * 2;
        if (r >= M) continue;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          if (c + e >= N) continue;
          float v = alpha * acc[i][j][2 * h + e];
          if (D) v += beta * KB_TO_F(D[(long long)r * N + c + e]);
          if (bias) v += KB_TO_F(bias[c + e]);
          C[(long long)r * N + c + e] = KB_FROM_F(v);
        }
      }
}

#define KB_HGEMM(NAME, BM, BN, WGM, WGN)                                                                         \
  extern "C" __global__ void __launch_bounds__(WGM * WGN * 32)                                                  \
      NAME(const u16* A, const u16* B, u16* C, const u16* D, const u16* bias, int M, int N, int K, long long sA, \
           long long sB, long long sC, long long sD, float alpha, float beta, int vec_a, int vec_b) {           \
    kb_hgemm<BM, BN, WGM, WGN, KB_TA, KB_TB>(A, B, C, D, bias, M, N, K, sA, sB, sC, sD, alpha, beta, vec_a,     \
                                             vec_b);                                                            \
  }
'''


def hgemm_source(dtype: str, trans_a: bool, trans_b: bool) -> str:
    """The CUDA source of kernsim's tensor-core GEMM for ``dtype`` (float16 / bfloat16) and the
    operand layouts (see module docstring)."""
    ctype, mma = DTYPES[dtype]
    conv = ("__half2float(__ushort_as_half(x))", "__half_as_ushort(__float2half_rn(x))") if dtype == "float16" else \
        ("__bfloat162float(__ushort_as_bfloat16(x))", "__bfloat16_as_ushort(__float2bfloat16_rn(x))")
    head = (f"// kernsim's reference tensor-core GEMM ({ctype}, A {'K x M' if trans_a else 'M x K'}, "
            f"B {'N x K' if trans_b else 'K x N'}): python/kernsim/kernelbench/tcgemm.py\n"
            f"#define KB_BK {BK}\n#define KB_MMA_T \"{mma}\"\n#define KB_TA {int(trans_a)}\n#define KB_TB {int(trans_b)}\n"
            f"#define KB_TO_F(x) {conv[0]}\n#define KB_FROM_F(x) {conv[1]}\n")
    inst = "".join(f"KB_HGEMM({n}, {bm}, {bn}, {wm}, {wn})\n" for n, bm, bn, wm, wn in CONFIGS)
    return head + _COMMON + _GEMM + inst


def check_product(op: dict) -> dict:
    """The half-precision product an ATen record asks for (gemm.product's fields plus dtype)."""
    ins = op["inputs"]
    dts = {t["dtype"] for t in ins[:3] if t}
    p = gemm.product(op, dtypes=tuple(DTYPES))
    if len(dts) != 1:
        raise NoModel(f"`{op['op']}` with mixed dtypes {sorted(dts)}")
    p["dtype"] = dts.pop()
    return p


def _spec(module, kernel: str, bm: int, bn: int, p: dict) -> dict:
    lead_a = p["M"] if p["trans_a"] else p["K"]
    lead_b = p["K"] if p["trans_b"] else p["N"]
    aligned = [{"type": "i32", "value": int(lead_a % 8 == 0)}, {"type": "i32", "value": int(lead_b % 8 == 0)}]
    threads = [c[3] * c[4] * 32 for c in CONFIGS if c[0] == kernel][0]
    return refcache.gemm_spec(module, kernel, bm, bn, threads, "f16", p, [], aligned)


def time_product(p: dict, arch: str, device_file: str | None = None, cache: str = "cold") -> dict:
    """{"time_us", "config", "configs": {kernel: us}} of the fastest configuration for the
    half-precision product ``p`` (check_product()); cached."""
    src = hgemm_source(p["dtype"], p["trans_a"], p["trans_b"])

    def compute():
        m = refcache.module(src, arch, device_file)
        times = {}
        for kernel, bm, bn, _, _ in CONFIGS:
            r = refcache.run_spec(_spec(m, kernel, bm, bn, p), arch, device_file, cache,
                                  "reference tensor-core GEMM model")
            if "time_us" not in r:
                raise NoModel(f"kernsim's tensor-core GEMM {kernel} did not run: {r.get('error', r)}")
            times[kernel] = float(r["time_us"])
        return refcache.fastest(times)

    return refcache.cached(refcache.key("hgemm", src, arch, device_file, cache, p), compute)
