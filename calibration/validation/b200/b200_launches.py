"""The Blackwell (sm_100a) validation launch set: one table, read by gen_specs.py (kernsim launch
specs), emit_ptx.py (Triton's PTX for sm_100a), b200_reference.py (numpy references) and
check_set.py (the ctest).

Launches are dicts in the Hopper set's format (../hopper/launches.py: id, family, kind, kernel,
constexprs, num_warps, num_stages, grid, block, dynamic_shared_bytes, cluster, args, flops,
min_bytes, ref, notes), built with its helpers where the kernel is the same: the plain Triton
matmul and the flash-attention forward are the Hopper set's kernels compiled for sm_100a. New here:
  - `matmul_scaled` (b200_triton.py): tl.dot_scaled with MX block scales, mxfp8 (e4m3) and mxfp4
    (e2m1, two a byte); A [M, K], B [N, K] K-major, scales [rows, K/32] e8m0 bytes;
  - the tcgen05 GEMM ladder (cuda/tcgen05_ladder.cu), four steps, C = A B^T in bf16.
Inputs are kernsim's initialisers, chosen so no value is NaN or Inf: e4m3 bytes 0x20..0x3F
(0.125 .. 1.875), e2m1 bytes 0..255 (every pair of the 16 fp4 values, |x| <= 6), e8m0 scale bytes
124..130 (2^-3 .. 2^3; 0xFF would be NaN).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hopper"))
import launches as hl  # noqa: E402  (the Hopper set's table and helpers)

buf, scalar, desc, cdiv, numel = hl.buf, hl.scalar, hl.desc, hl.cdiv, hl.numel
E2M1_INIT = "randint:0:255"
E8M0_INIT = "randint:124:130"


def _for_b200(launch, prefix="bw_"):
    """A Hopper-set launch recompiled for sm_100a: same kernel and arguments, its own id."""
    d = dict(launch)
    d["id"] = prefix + launch["id"]
    return d


def _matmul(dt, M, N, K, bm, bn, bk, w, s, km=False):
    tag = f"single=compute; {dt}, BLOCK {bm}x{bn}x{bk}, w{w} s{s}" + ("; B K-major" if km else "")
    L = _for_b200(hl._matmul(dt, M, N, K, bm, bn, bk, w, s, tag, km))
    if dt == "e4m3":  # tcgen05 accumulates fp8 products in fp32: no imprecise-accumulation knob
        L["constexprs"] = dict(L["constexprs"], FP8_ACC=None)
    return L


def _scaled(fmt, M, N, K, bm, bn, bk, w, s):
    """matmul_scaled: fmt "e4m3" (mxfp8) or "e2m1" (mxfp4)."""
    pack = 2 if fmt == "e2m1" else 1
    name = "mxfp4" if fmt == "e2m1" else "mxfp8"
    init = E2M1_INIT if fmt == "e2m1" else hl.FP8_INIT
    store = "u8" if fmt == "e2m1" else "e4m3"
    tag = f"{M}x{N}x{K}" if not (M == N == K) else f"{M}"
    return {"id": f"bw_smm_{name}_{tag}_{bm}x{bn}x{bk}_w{w}s{s}", "family": "triton_scaled_matmul", "kind": "triton",
            "kernel": "matmul_scaled", "constexprs": {"FMT": fmt, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
            "num_warps": w, "num_stages": s, "grid": [cdiv(M, bm) * cdiv(N, bn)],
            "args": [buf("a_ptr", store, [M, K // pack], init), buf("sa_ptr", "u8", [M, K // 32], E8M0_INIT),
                     buf("b_ptr", store, [N, K // pack], init), buf("sb_ptr", "u8", [N, K // 32], E8M0_INIT),
                     buf("c_ptr", "bf16", [M, N], out=True),
                     scalar("M", "i32", M), scalar("N", "i32", N), scalar("K", "i32", K)],
            "flops": 2 * M * N * K, "min_bytes": (M + N) * (K // pack + K // 32) + M * N * 2,
            "ref": f"scaled_{fmt}", "fmt": fmt,
            "notes": f"single=compute; {name} (tl.dot_scaled, e8m0 scales per 32 of K), BLOCK {bm}x{bn}x{bk}, w{w} s{s}"}


# (variant, kernel, dynamic shared bytes, cluster, CTA tile M x N, B box rows, what). Shared bytes:
# the stages + 1024 for aligning the base to the 128B swizzle's 1024-byte atoms.
LADDER = [
    (1, "ladder_tc1", 4 * (128 + 256) * 64 * 2 + 1024, None, (128, 256), 256,
     "tcgen05.mma.cta_group::1 m128n256k16, TMA into a 4-stage full/empty mbarrier ring, accumulator in TMEM"),
    (2, "ladder_tc1_mc", 4 * (128 + 256) * 64 * 2 + 1024, (2, 1, 1), (128, 256), 128,
     "as 1 in a 2x1 cluster: B tile loaded half by each CTA and multicast to both, MMA commits multicast"),
    (3, "ladder_tc2", 6 * (128 + 128) * 64 * 2 + 1024, (2, 1, 1), (128, 256), 128,
     "cta_group::2: a CTA pair issues m256n256k16 over both CTAs' shared memory, 6 stages"),
    (4, "ladder_tc2_clc", 6 * (128 + 128) * 64 * 2 + 1024, (2, 1, 1), (128, 256), 128,
     "as 3, persistent: clusterlaunchcontrol.try_cancel takes the next tile, two TMEM accumulators"),
]


def _ladder(variant, kernel, dyn, cluster, tile, b_rows, what, M=4096, N=4096, K=4096):
    tm, tn = tile
    args = [buf("a_ptr", "bf16", [M, K], "uniform"), buf("b_ptr", "bf16", [N, K], "uniform"),
            buf("c_ptr", "bf16", [M, N], out=True),
            desc("tma_a", "a_ptr", [128, 64]), desc("tma_b", "b_ptr", [b_rows, 64]),
            scalar("M", "i32", M), scalar("N", "i32", N), scalar("K", "i32", K)]
    return {"id": f"bw_ladder_bf16_{M}_v{variant}_{kernel[len('ladder_'):]}", "family": "cuda_tcgen05_ladder",
            "kind": "ladder", "kernel": kernel, "grid": [(M // tm) * (N // tn)], "block": [192],
            "dynamic_shared_bytes": dyn, "cluster": list(cluster) if cluster else None, "args": args,
            "flops": 2 * M * N * K, "min_bytes": (M * K + N * K + M * N) * 2, "ref": "matmul_nt",
            "notes": f"ladder=tcgen05_gemm_bf16_{M};variant={variant}; C = A B^T, {what}"}


def all_launches(small=False):
    """The set. small=True: the same launches (same ids, kernels and compiled code) at sizes whose
    whole grid kernsim runs functionally in seconds -- matmuls 256 x 512 x 512 (M = 64 stays 64),
    attention B=1 H=2 S=256 -- for check_small.py."""
    def sz(M, N, K):
        return ((64 if M == 64 else 256), 512, 512) if small else (M, N, K)

    def keep_id(full, built):
        built["id"] = full["id"]
        return built

    L = []
    mm = [  # (dtype, M, N, K, BM, BN, BK, warps, stages, B K-major)
        ("f16", 4096, 4096, 4096, 128, 128, 64, 4, 4, False),
        ("f16", 2048, 2048, 2048, 128, 128, 64, 4, 4, False),
        ("bf16", 4096, 4096, 4096, 128, 256, 64, 4, 3, False),
        ("bf16", 8192, 8192, 8192, 128, 256, 64, 4, 3, False),
        ("bf16", 64, 8192, 8192, 64, 64, 128, 4, 4, True),  # weight streaming: W [N, K]
        ("e4m3", 4096, 4096, 4096, 128, 128, 128, 4, 4, True),
        ("e4m3", 8192, 8192, 8192, 128, 256, 128, 4, 3, True),
    ]
    for dt, M, N, K, bm, bn, bk, w, s, km in mm:
        L.append(keep_id(_matmul(dt, M, N, K, bm, bn, bk, w, s, km), _matmul(dt, *sz(M, N, K), bm, bn, bk, w, s, km)))
    for fmt, M, N, K, bm, bn, bk, w, s in [("e4m3", 4096, 4096, 4096, 128, 128, 128, 4, 3),
                                           ("e4m3", 8192, 8192, 8192, 128, 256, 128, 4, 3),
                                           ("e2m1", 4096, 4096, 4096, 128, 128, 256, 4, 3),
                                           ("e2m1", 8192, 8192, 8192, 128, 256, 256, 4, 3)]:
        L.append(keep_id(_scaled(fmt, M, N, K, bm, bn, bk, w, s), _scaled(fmt, *sz(M, N, K), bm, bn, bk, w, s)))
    for D, causal in ((128, False), (128, True), (64, False)):
        full = _for_b200(hl._attn(D, causal))
        L.append(keep_id(full, _for_b200(hl._attn(D, causal, B=1, H=2, S=256))) if small else full)
    for row in LADDER:
        L.append(keep_id(_ladder(*row), _ladder(*row, M=256, N=512, K=512)) if small else _ladder(*row))
    return L


def spec_buffer_index(launch):
    return hl.spec_buffer_index(launch)
