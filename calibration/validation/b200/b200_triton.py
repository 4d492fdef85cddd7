"""Triton kernels of the Blackwell (sm_100a) validation set that the Hopper set does not have.

The plain matmul and the flash-attention forward are the Hopper set's kernels
(../hopper/triton_kernels.py: `matmul`, `attn_fwd`), compiled here for sm_100a, where Triton lowers
tl.dot to tcgen05.mma with the accumulator in tensor memory.

  matmul_scaled  C[M, N] = (A * 2^SA) @ (B * 2^SB)^T with OCP microscaling (MX) block scales:
                 A [M, K] and B [N, K] (K-major) in FMT ("e4m3": one byte an element; "e2m1":
                 two fp4 values a byte, the lower K index in the low nibble, so a row is K/2
                 bytes), SA [M, K/32] and SB [N, K/32] e8m0 exponents (one per 32 elements of K),
                 fp32 accumulation, bf16 output. tl.dot_scaled lowers to tcgen05.mma
                 .kind::mxf8f6f4.block_scale (mxfp8) or .kind::mxf4 (mxfp4) on sm_100a.
No imports besides triton: the file is accepted by kernsim's untrusted-source check as well.
"""
import triton
import triton.language as tl


@triton.jit
def _tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows = tl.minimum(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows
    tile_n = (pid % per_group) // rows
    return tile_m, tile_n


@triton.jit
def matmul_scaled(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, M, N, K, FMT: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """M % BLOCK_M == N % BLOCK_N == K % BLOCK_K == 0; BLOCK_K a multiple of 32 (64 for e2m1)."""
    PACK: tl.constexpr = 2 if FMT == "e2m1" else 1
    tile_m, tile_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K // PACK)
    rs = tl.arange(0, BLOCK_K // 32)
    row_bytes = K // PACK
    a_tile = a_ptr + rm[:, None] * row_bytes + rk[None, :]
    b_tile = b_ptr + rn[:, None] * row_bytes + rk[None, :]
    sa_tile = sa_ptr + rm[:, None] * (K // 32) + rs[None, :]
    sb_tile = sb_ptr + rn[:, None] * (K // 32) + rs[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K // BLOCK_K):
        a = tl.load(a_tile)
        b = tl.load(b_tile)
        sa = tl.load(sa_tile)
        sb = tl.load(sb_tile)
        acc = tl.dot_scaled(a, sa, FMT, b.T, sb, FMT, acc)
        a_tile += BLOCK_K // PACK
        b_tile += BLOCK_K // PACK
        sa_tile += BLOCK_K // 32
        sb_tile += BLOCK_K // 32
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))
