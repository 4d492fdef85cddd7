"""Triton kernels of the common kinds, written for the H200 validation set (issue 17).

Each is a plain @triton.jit kernel as a user writes it; `emit.py` compiles them ahead of time for
sm_90a (no GPU needed) and the PTX is what kernsim runs and what the H200 measures.

  add              z = x + y (fp32), BLOCK elements per program
  gelu_f16         y = gelu(x) with the tanh form, fp16 in and out, fp32 math
  silu_mul_bf16    y = silu(g) * u (SwiGLU's elementwise part), bf16
  row_sum          s[r] = sum of row r (fp32), one program per row, BLOCK >= cols
  sum_atomic       out[0] += sum of each program's BLOCK elements (tl.atomic_add)
  layernorm_f16    y = (x - mean) / sqrt(var + eps) * w + b per row, fp16 in/out, fp32 stats
  rmsnorm_f16      y = x / sqrt(mean(x^2) + eps) * w per row, fp16
  softmax          y = softmax(x) per row (fp32), one program per row, BLOCK >= cols
  embedding_f16    out[t, :] = table[ids[t], :] (fp16 rows, BLOCK_D columns per program)
  transpose        y = x^T (rows x cols -> cols x rows), BLOCK_M x BLOCK_N tiles
"""
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, x + y, mask=mask)


@triton.jit
def gelu_f16(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0  # tanh(inner)
    tl.store(y_ptr + offs, (0.5 * x * (1.0 + t)).to(tl.float16), mask=mask)


@triton.jit
def silu_mul_bf16(g_ptr, u_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask).to(tl.float32)
    y = g / (1.0 + tl.exp(-g)) * u
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


@triton.jit
def row_sum(x_ptr, s_ptr, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * cols + offs, mask=offs < cols, other=0.0)
    tl.store(s_ptr + r, tl.sum(x, axis=0))


@triton.jit
def sum_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


@triton.jit
def layernorm_f16(x_ptr, w_ptr, b_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + r * cols + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + r * cols + offs, (d * rstd * w + b).to(tl.float16), mask=mask)


@triton.jit
def rmsnorm_f16(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + r * cols + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + r * cols + offs, (x * rstd * w).to(tl.float16), mask=mask)


@triton.jit
def softmax(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + r * cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + r * cols + offs, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def embedding_f16(ids_ptr, table_ptr, out_ptr, dim, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = d < dim
    row = tl.load(ids_ptr + t).to(tl.int64)
    v = tl.load(table_ptr + row * dim + d, mask=mask)
    tl.store(out_ptr + t.to(tl.int64) * dim + d, v, mask=mask)


@triton.jit
def transpose(x_ptr, y_ptr, rows, cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < rows) & (cn[None, :] < cols)
    x = tl.load(x_ptr + rm[:, None] * cols + cn[None, :], mask=mask)
    tl.store(y_ptr + cn[None, :] * rows + rm[:, None], x, mask=mask)
