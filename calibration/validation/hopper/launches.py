"""The Hopper (wgmma/TMA) validation launch set: one table, read by gen_specs.py (kernsim launch
specs), measure_hopper.py (the H200 measurement) and reference.py (numpy references).

Each launch is a dict:
  id, family, kind ("triton" | "ladder"), notes (ladder=<name>;variant=<k> or single=<kind>)
  triton:  kernel (a function of triton_kernels.py), constexprs, num_warps, num_stages, grid
  ladder:  kernel (an extern "C" kernel of cuda/gemm_ladder.cu), grid, block, dynamic_shared_bytes,
           cluster
  args:    the kernel's user arguments in order, each one of
             buf(name, dtype, shape, init, out=False)   dtype f16 | bf16 | f32 | i32 | e4m3 (u8 storage)
             scalar(name, type, value)                  type i32 | f32
             desc(name, buffer, block)                  a TMA tensor map over a buffer argument:
                                                        row-major shape of the buffer, box `block`
  flops (FMA = 2), min_bytes (every input read once, every output written once)
  ref:     which numpy reference checks the outputs (reference.py)
Inputs are kernsim's initialisers (`uniform` floats in [-1, 1), `randint` for fp8 bytes: 0x20..0x3F
is 0.125..1.875 in e4m3, no NaN), so the GPU run and kernsim see the same bytes.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "inputs")
FP8_INIT = "randint:32:63"  # e4m3 bytes 0x20..0x3F: 0.125 .. 1.875


def buf(name, dtype, shape, init="zeros", out=False):
    return {"kind": "buf", "name": name, "dtype": dtype, "shape": list(shape), "init": init, "out": out}


def scalar(name, type_, value):
    return {"kind": "scalar", "name": name, "type": type_, "value": value}


def desc(name, buffer, block):
    return {"kind": "desc", "name": name, "buffer": buffer, "block": list(block)}


ESIZE = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "e4m3": 1}
OUT_OF = {"f16": "f16", "bf16": "bf16", "e4m3": "bf16"}  # the matmuls' output type per input type


def cdiv(a, b):
    return (a + b - 1) // b


def _matmul(dt, M, N, K, bm, bn, bk, w, s, notes, b_kmajor=False):
    """Triton matmul with pointer loads. B is [K, N] row-major, or [N, K] (K-major) when b_kmajor."""
    out = OUT_OF[dt]
    init = FP8_INIT if dt == "e4m3" else "uniform"
    b_shape = [N, K] if b_kmajor else [K, N]
    tag = f"{M}x{N}x{K}" if not (M == N == K) else f"{M}"
    lid = f"tmm_{dt}_{tag}_{bm}x{bn}x{bk}_w{w}s{s}"
    return {"id": lid, "family": "triton_matmul", "kind": "triton", "kernel": "matmul",
            "constexprs": {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "B_KMAJOR": b_kmajor,
                           "FP8_ACC": bk if dt == "e4m3" else None},
            "num_warps": w, "num_stages": s, "grid": [cdiv(M, bm) * cdiv(N, bn)],
            "args": [buf("a_ptr", dt, [M, K], init), buf("b_ptr", dt, b_shape, init), buf("c_ptr", out, [M, N], out=True),
                     scalar("M", "i32", M), scalar("N", "i32", N), scalar("K", "i32", K),
                     scalar("stride_am", "i32", K), scalar("stride_b", "i32", K if b_kmajor else N),
                     scalar("stride_cm", "i32", N)],
            "flops": 2 * M * N * K, "min_bytes": (M * K + N * K) * ESIZE[dt] + M * N * ESIZE[out],
            "ref": "matmul", "notes": notes}


def _matmul_tma(dt, M, N, K, bm, bn, bk, w, s, notes):
    out = OUT_OF[dt]
    init = FP8_INIT if dt == "e4m3" else "uniform"
    tag = f"{M}x{N}x{K}" if not (M == N == K) else f"{M}"
    lid = f"tmm_tma_{dt}_{tag}_{bm}x{bn}x{bk}_w{w}s{s}"
    return {"id": lid, "family": "triton_matmul_tma", "kind": "triton", "kernel": "matmul_tma",
            "constexprs": {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8,
                           "FP8_ACC": bk if dt == "e4m3" else None},
            "num_warps": w, "num_stages": s, "grid": [cdiv(M, bm) * cdiv(N, bn)],
            "args": [buf("a_ptr", dt, [M, K], init), buf("b_ptr", dt, [N, K], init), buf("c_ptr", out, [M, N], out=True),
                     desc("a_desc", "a_ptr", [bm, bk]), desc("b_desc", "b_ptr", [bn, bk]), desc("c_desc", "c_ptr", [bm, bn]),
                     scalar("M", "i32", M), scalar("N", "i32", N), scalar("K", "i32", K)],
            "flops": 2 * M * N * K, "min_bytes": (M * K + N * K) * ESIZE[dt] + M * N * ESIZE[out],
            "ref": "matmul", "notes": notes}


def _attn(D, causal, B=4, H=16, S=4096):
    bm, bn = 128, (128 if D == 64 else 64)
    w = 4 if D == 64 else 8
    lid = f"fa_fwd_bf16_b{B}h{H}s{S}d{D}_{'causal' if causal else 'full'}"
    shape = [B, H, S, D]
    pairs = S * S // 2 if causal else S * S
    return {"id": lid, "family": "triton_attention", "kind": "triton", "kernel": "attn_fwd",
            "constexprs": {"H": H, "HEAD_D": D, "BLOCK_M": bm, "BLOCK_N": bn, "CAUSAL": causal},
            "num_warps": w, "num_stages": 3, "grid": [S // bm, B * H],
            "args": [buf("q_ptr", "bf16", shape, "uniform"), buf("k_ptr", "bf16", shape, "uniform"),
                     buf("v_ptr", "bf16", shape, "uniform"), buf("o_ptr", "bf16", shape, out=True),
                     scalar("sm_scale", "f32", 1.0 / math.sqrt(D)), scalar("S", "i32", S)],
            "flops": 4 * B * H * pairs * D, "min_bytes": 4 * B * H * S * D * 2,
            "ref": "attention", "notes": f"ladder=fa_d{D};variant={2 if causal else 1}; BLOCK {bm}x{bn}, w{w} s3"}


MOE_COUNTS = [3968, 3200, 2560, 2100, 1500, 1300, 1000, 756]  # rows routed to each of 8 experts (16384)


def moe_tables(counts, bm):
    """(offsets [E+1], tiles [(expert, first row)]) for rows sorted by expert."""
    offsets = [0]
    for c in counts:
        offsets.append(offsets[-1] + c)
    tiles = []
    for e, c in enumerate(counts):
        for r in range(0, c, bm):
            tiles.append((e, offsets[e] + r))
    return offsets, tiles


def moe_files(bm=128):
    """Writes inputs/moe_offsets.i32.bin and inputs/moe_tiles_bm<bm>.i32.bin (small, committed)."""
    import struct
    offsets, tiles = moe_tables(MOE_COUNTS, bm)
    os.makedirs(INPUTS, exist_ok=True)
    with open(os.path.join(INPUTS, "moe_offsets.i32.bin"), "wb") as f:
        f.write(struct.pack(f"<{len(offsets)}i", *offsets))
    flat = [v for t in tiles for v in t]
    with open(os.path.join(INPUTS, f"moe_tiles_bm{bm}.i32.bin"), "wb") as f:
        f.write(struct.pack(f"<{len(flat)}i", *flat))


def _moe(name, N, K, bm=128, bn=128, bk=64, w=8, s=4):
    E, T = len(MOE_COUNTS), sum(MOE_COUNTS)
    offsets, tiles = moe_tables(MOE_COUNTS, bm)
    return {"id": f"moe_{name}_bf16_e{E}t{T}_n{N}k{K}", "family": "triton_moe", "kind": "triton", "kernel": "moe_gemm",
            "constexprs": {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, "num_warps": w, "num_stages": s,
            "grid": [len(tiles), N // bn],
            "args": [buf("x_ptr", "bf16", [T, K], "uniform"), buf("w_ptr", "bf16", [E, N, K], "uniform"),
                     buf("y_ptr", "bf16", [T, N], out=True),
                     buf("offsets_ptr", "i32", [E + 1], "file:../inputs/moe_offsets.i32.bin"),
                     buf("tiles_ptr", "i32", [len(tiles), 2], f"file:../inputs/moe_tiles_bm{bm}.i32.bin"),
                     scalar("N", "i32", N), scalar("K", "i32", K)],
            "flops": 2 * T * N * K, "min_bytes": (T * K + E * N * K + T * N) * 2,
            "ref": "moe", "notes": f"single=compute; grouped GEMM, 8 experts, rows {MOE_COUNTS}, BLOCK {bm}x{bn}x{bk} w{w} s{s}"}


LADDER = [  # (variant, kernel, block, dynamic shared bytes, cluster, tile M x N, what); the shared bytes
    # are ladder_host.cu's: tiles + 2048 (1024-byte alignment of the base, then the mbarriers)
    (1, "ladder_mma_sync", 256, 2 * (128 * 40 + 128 * 40) * 2, None, (128, 128),
     "mma.sync m16n8k16 + ldmatrix + cp.async double buffer, 128x128x32 tile, 8 warps"),
    (2, "ladder_wgmma_sync", 256, 128 * 64 * 2 * 2 + 2048, None, (128, 128),
     "wgmma m64n128k16 (2 warpgroups), tiles loaded by ld.global/st.shared with the 128B swizzle, one stage"),
    (3, "ladder_wgmma_tma", 256, 4 * 128 * 64 * 2 * 2 + 2048, None, (128, 128),
     "wgmma m64n128k16 + TMA (128B swizzle) into a 4-stage ring on mbarriers, one thread issues"),
    (4, "ladder_wgmma_ws", 384, 4 * (128 + 256) * 64 * 2 + 2048, None, (128, 256),
     "warp-specialised: 1 producer warpgroup (TMA), 2 consumer warpgroups m64n256k16, full/empty mbarriers, setmaxnreg"),
    (5, "ladder_wgmma_ws_mc", 384, 4 * (128 + 256) * 64 * 2 + 2048, (2, 1, 1), (128, 256),
     "as 4 in a 2x1 cluster: the B tile is loaded half by each CTA and multicast to both"),
]


def _ladder(variant, kernel, block, dyn, cluster, tile, what, M=4096, N=4096, K=4096):
    tm, tn = tile
    grid = [(M // tm) * (N // tn)]
    args = [buf("a_ptr", "bf16", [M, K], "uniform"), buf("b_ptr", "bf16", [N, K], "uniform"),
            buf("c_ptr", "bf16", [M, N], out=True)]
    if variant >= 3:
        bh = tn // 2 if variant == 5 else tn
        args += [desc("tma_a", "a_ptr", [tm, 64]), desc("tma_b", "b_ptr", [bh, 64])]
    args += [scalar("M", "i32", M), scalar("N", "i32", N), scalar("K", "i32", K)]
    return {"id": f"ladder_bf16_{M}_v{variant}_{kernel[len('ladder_'):]}", "family": "cuda_wgmma_ladder",
            "kind": "ladder", "kernel": kernel, "grid": grid, "block": [block], "dynamic_shared_bytes": dyn,
            "cluster": list(cluster) if cluster else None, "args": args,
            "flops": 2 * M * N * K, "min_bytes": (M * K + N * K + M * N) * 2, "ref": "matmul_nt",
            "notes": f"ladder=wgmma_gemm_bf16_{M};variant={variant}; C = A B^T, {what}"}


def all_launches():
    L = []
    mm = [  # (dtype, M, N, K, BM, BN, BK, warps, stages, B K-major)
        ("f16", 4096, 4096, 4096, 128, 128, 64, 4, 4, False),
        ("f16", 4096, 4096, 4096, 128, 256, 64, 8, 3, False),
        ("bf16", 4096, 4096, 4096, 128, 128, 64, 4, 4, False),
        ("bf16", 4096, 4096, 4096, 128, 128, 64, 8, 3, False),
        ("bf16", 4096, 4096, 4096, 128, 256, 64, 8, 3, False),
        ("bf16", 4096, 4096, 4096, 64, 128, 64, 4, 4, False),
        ("bf16", 8192, 8192, 4096, 128, 256, 64, 8, 3, False),
        ("f16", 8192, 8192, 4096, 128, 128, 64, 4, 4, False),
        ("e4m3", 4096, 4096, 4096, 128, 128, 128, 4, 4, True),
        ("e4m3", 4096, 4096, 4096, 128, 256, 128, 8, 3, True),
        ("e4m3", 8192, 8192, 4096, 128, 256, 128, 8, 3, True),
    ]
    for i, (dt, M, N, K, bm, bn, bk, w, s, km) in enumerate(mm):
        L.append(_matmul(dt, M, N, K, bm, bn, bk, w, s, f"single=compute; {dt}, BLOCK {bm}x{bn}x{bk}, w{w} s{s}"
                         + ("; B K-major" if km else ""), km))
    for v, m in enumerate((16, 32, 64)):  # weight streaming: W [N, K] (nn.Linear layout) read once
        L.append(_matmul("bf16", m, 8192, 8192, 64, 64, 128, 4, 4,
                         f"ladder=weight_stream_bf16;variant={v + 1}; M={m} rows of activations, W 8192x8192 K-major",
                         True))
    L.append(_matmul("e4m3", 64, 8192, 8192, 64, 64, 256, 4, 4,
                     "single=memory; fp8 weight streaming, W 8192x8192 K-major", True))
    tma = [("bf16", 4096, 4096, 4096, 128, 256, 64, 8, 3), ("f16", 8192, 8192, 4096, 128, 256, 64, 8, 3),
           ("e4m3", 4096, 4096, 4096, 128, 256, 128, 8, 3), ("bf16", 64, 8192, 8192, 64, 64, 128, 4, 4)]
    for dt, M, N, K, bm, bn, bk, w, s in tma:
        L.append(_matmul_tma(dt, M, N, K, bm, bn, bk, w, s, f"single=compute; {dt} TMA descriptors, BLOCK {bm}x{bn}x{bk}, w{w} s{s}"))
    for D in (64, 128):
        for causal in (False, True):
            L.append(_attn(D, causal))
    L.append(_moe("up", 2048, 4096))
    L.append(_moe("down", 4096, 2048))
    for row in LADDER:
        L.append(_ladder(*row))
    return L


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def spec_buffer_index(launch):
    """{buffer name: index of the spec argument holding it} -- the index kernsim's initialisers are
    keyed by. A Triton tensor-descriptor kernel takes no pointer: its buffers live inline in the
    descriptor's tensor map, which with the shape and strides after it fills 1 + 2 * rank slots."""
    out, k = {}, 0
    tma = launch["kind"] == "triton" and launch["kernel"] == "matmul_tma"
    by_name = {a["name"]: a for a in launch["args"]}
    for a in launch["args"]:
        if a["kind"] == "buf":
            if not tma:
                out[a["name"]] = k
                k += 1
        elif a["kind"] == "desc":
            if tma:
                out[a["buffer"]] = k
                k += 1 + 2 * len(by_name[a["buffer"]]["shape"])
            else:
                k += 1
        else:
            k += 1
    return out
