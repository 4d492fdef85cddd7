"""Triton kernels of the Hopper (wgmma/TMA) validation set, written for this set.

Every kernel here compiles for sm_90a to wgmma (tl.dot on a 64-row-multiple tile with
num_warps a multiple of 4); `matmul_tma` reads and writes through host-side tensor descriptors
(cp.async.bulk.tensor into shared memory, completing on an mbarrier).

  matmul       C[M,N] = A[M,K] @ B[K,N] with arbitrary strides (B given K-major for fp8), fp32
               accumulation, output in C's type; tiles ordered in groups of GROUP_M rows of tiles
               so that neighbouring programs share A and B in the L2.
  matmul_tma   the same product with A [M,K], B [N,K] (K-major) and C [M,N] described by tensor
               maps (TMA loads and a TMA store).
  attn_fwd     flash-attention forward, O = softmax(Q K^T * scale [causal mask]) V, per (batch,
               head), online softmax in fp32 with exp2; Q, K, V, O are [B, H, S, D] contiguous.
  moe_gemm     grouped GEMM over experts: rows of X [T, K] sorted by expert, expert e owning rows
               offsets[e] .. offsets[e+1]; Y[r, :] = X[r, :] @ W[e]^T with W [E, N, K]. The grid's
               first axis walks a tile table (expert, first row) built on the host.
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
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm, BLOCK_M: tl.constexpr,
           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, B_KMAJOR: tl.constexpr,
           FP8_ACC: tl.constexpr):
    """A [M, K] and C [M, N] row-major (rows stride_am, stride_cm apart); B [K, N] row-major with
    rows stride_b apart, or with B_KMAJOR [N, K] row-major (B^T stored). K % BLOCK_K == 0.
    FP8_ACC (fp8 only; None otherwise): products summed in the tensor core's own fp8 accumulator
    before each addition into the fp32 one (tl.dot's max_num_imprecise_acc)."""
    tile_m, tile_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rm_in = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rn_in = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    a_tile = a_ptr + rm_in[:, None] * stride_am + rk[None, :]
    if B_KMAJOR:
        b_tile = b_ptr + rk[:, None] + rn_in[None, :] * stride_b
        b_step = BLOCK_K
    else:
        b_tile = b_ptr + rk[:, None] * stride_b + rn_in[None, :]
        b_step = BLOCK_K * stride_b
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K // BLOCK_K):
        a = tl.load(a_tile)
        b = tl.load(b_tile)
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=FP8_ACC)
        a_tile += BLOCK_K
        b_tile += b_step
    c = acc.to(c_ptr.dtype.element_ty)
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_tile, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_tma(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, FP8_ACC: tl.constexpr):
    tile_m, tile_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = tile_m * BLOCK_M
    off_n = tile_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k0 * BLOCK_K])
        b = b_desc.load([off_n, k0 * BLOCK_K])
        acc = tl.dot(a, b.T, acc, max_num_imprecise_acc=FP8_ACC)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, S, H: tl.constexpr, HEAD_D: tl.constexpr,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * S * HEAD_D
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_D + offs_d[None, :])
    k_tile = k_ptr + base + offs_n[None, :] * HEAD_D + offs_d[:, None]  # K^T block: [HEAD_D, BLOCK_N]
    v_tile = v_ptr + base + offs_n[:, None] * HEAD_D + offs_d[None, :]
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # softmax in base 2
    if CAUSAL:
        full_end = start_m * BLOCK_M  # blocks wholly below the diagonal need no mask
        end = (start_m + 1) * BLOCK_M
    else:
        full_end = S
        end = S
    for start_n in range(0, full_end, BLOCK_N):
        kt = tl.load(k_tile + start_n * HEAD_D)
        s = tl.dot(q, kt) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_tile + start_n * HEAD_D)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    for start_n in range(full_end, end, BLOCK_N):  # the diagonal blocks (causal only)
        kt = tl.load(k_tile + start_n * HEAD_D)
        s = tl.dot(q, kt) * qk_scale
        s = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_tile + start_n * HEAD_D)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_D + offs_d[None, :], o.to(o_ptr.dtype.element_ty))


@triton.jit
def moe_gemm(x_ptr, w_ptr, y_ptr, offsets_ptr, tiles_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             BLOCK_K: tl.constexpr):
    tile = tl.program_id(0)
    expert = tl.load(tiles_ptr + 2 * tile)
    row0 = tl.load(tiles_ptr + 2 * tile + 1)
    row_end = tl.load(offsets_ptr + expert + 1)
    rm = row0 + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    row_ok = rm < row_end
    x_tile = x_ptr + tl.where(row_ok, rm, row0).to(tl.int64)[:, None] * K + rk[None, :]
    w_tile = w_ptr + expert.to(tl.int64) * N * K + rn[None, :] * K + rk[:, None]  # W[e]^T block: [BLOCK_K, BLOCK_N]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_tile)
        w = tl.load(w_tile)
        acc = tl.dot(x, w, acc)
        x_tile += BLOCK_K
        w_tile += BLOCK_K
    y = acc.to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], y, mask=row_ok[:, None])
