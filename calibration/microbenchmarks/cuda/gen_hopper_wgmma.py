#!/usr/bin/env python3
"""Writes cuda/hopper_wgmma.cu: the wgmma issue-interval and latency kernels, one per shape and type.

    python3 calibration/microbenchmarks/cuda/gen_hopper_wgmma.py           # rewrite the .cu file
    python3 calibration/microbenchmarks/cuda/gen_hopper_wgmma.py --check   # fail if it is stale

A wgmma's accumulator is one inline-asm operand per 32-bit register (up to 128 for m64n256 f32),
which is why the file is generated rather than written by hand. The instructions are written from
the PTX ISA (wgmma.mma_async, sm_90a); see the header comment of the generated file.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hopper_wgmma.cu")

# name: (PTX type suffix, K, accumulator kind, operand tail for SS, operand tail for RS)
# The tails are the immediates after scale-d: imm-scale-a, imm-scale-b and the transposes where
# the type has them (f16/bf16 only; RS has no transpose of A). Integer wgmma has none.
TYPES = {
    "f16f32": ("f32.f16.f16", 16, "f32", ", 1, 1, 0, 0", ", 1, 1, 0"),
    "bf16f32": ("f32.bf16.bf16", 16, "f32", ", 1, 1, 0, 0", ", 1, 1, 0"),
    "f16f16": ("f16.f16.f16", 16, "f16", ", 1, 1, 0, 0", ", 1, 1, 0"),
    "tf32f32": ("f32.tf32.tf32", 8, "f32", ", 1, 1", ", 1, 1"),
    "e4m3f32": ("f32.e4m3.e4m3", 32, "f32", ", 1, 1", ", 1, 1"),
    "s8s32": ("s32.s8.s8", 32, "s32", "", ""),
}
NS = [8, 16, 32, 64, 128, 256]
U_ISSUE = 8  # wgmmas per loop iteration in the issue kernels (two passes over the 4 k-slices)
U_LAT = 4    # dependent steps per loop iteration in the latency kernels


def acc_regs(kind, n):
    return n // 4 if kind == "f16" else n // 2


def launch_bound(kind, n):
    """Threads per block the kernel allows: 4 warpgroups while accumulators + ~40 fit 128 registers."""
    return 512 if acc_regs(kind, n) <= 64 else 256


def wgmma_asm(t, n, rs, steps, commit_wait):
    """One asm statement: `steps` wgmmas on k-slice j % 4 (descriptor + 2 = 32 bytes on), fenced;
    commit_wait "each": commit + wait_group 0 after every wgmma (a dependent chain); "batch": one
    commit and wait_group 1 at the end (one batch stays in flight)."""
    ptx, k, kind, tail_ss, tail_rs = TYPES[t]
    na = acc_regs(kind, n)
    regs = ", ".join("%%%d" % i for i in range(na))
    # Inputs after the accumulators: SS: descA, descB, scale; RS: a0..a3, descB, scale.
    ia = na
    ib = na + 4 if rs else na + 1
    isc = ib + 1
    lines = ["{", ".reg .pred p;", ".reg .b64 da<4>, db<4>;", "setp.ne.b32 p, %%%d, 0;" % isc]
    for j in range(4):
        if not rs:
            lines.append(("mov.b64 da0, %%%d;" % ia) if j == 0 else "add.s64 da%d, da0, %d;" % (j, 2 * j))
        lines.append(("mov.b64 db0, %%%d;" % ib) if j == 0 else "add.s64 db%d, db0, %d;" % (j, 2 * j))
    for j in range(steps):
        if commit_wait == "each" or j == 0:
            lines.append("wgmma.fence.sync.aligned;")
        if rs:
            a = "{%%%d, %%%d, %%%d, %%%d}" % (ia, ia + 1, ia + 2, ia + 3)
            tail = tail_rs
        else:
            a = "da%d" % (j % 4)
            tail = tail_ss
        lines.append("wgmma.mma_async.sync.aligned.m64n%dk%d.%s {%s}, %s, db%d, p%s;" % (
            n, k, ptx, regs, a, j % 4, tail))
        if commit_wait == "each":
            lines.append("wgmma.commit_group.sync.aligned;")
            lines.append("wgmma.wait_group.sync.aligned 0;")
    if commit_wait == "batch":
        lines.append("wgmma.commit_group.sync.aligned;")
        lines.append("wgmma.wait_group.sync.aligned 1;")
    lines.append("}")
    return lines, na


def asm_statement(t, n, rs, steps, commit_wait, desc_a, desc_b, indent):
    lines, na = wgmma_asm(t, n, rs, steps, commit_wait)
    kind = TYPES[t][2]
    cons = "+f" if kind == "f32" else "+r"
    outs = ", ".join('"%s"(d[%d])' % (cons, i) for i in range(na))
    if rs:
        ins = '"r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(%s), "r"(1)' % desc_b
    else:
        ins = '"l"(%s), "l"(%s), "r"(1)' % (desc_a, desc_b)
    body = "\n".join(indent + '  "' + l + '\\n"' for l in lines)
    return "%sasm volatile(\n%s\n%s  : %s\n%s  : %s\n%s  : \"memory\");" % (
        indent, body, indent, outs, indent, ins, indent)


def kernel(t, n, rs, mode):
    kind = TYPES[t][2]
    na = acc_regs(kind, n)
    ctype = "float" if kind == "f32" else "unsigned"
    form = "rs" if rs else "ss"
    name = "wgmma_%s_%s_%s_n%d" % (mode, form, t, n)
    lb = launch_bound(kind, n) if mode == "issue" else 128
    out = []
    out.append('extern "C" __global__ void __launch_bounds__(%d, 1) %s(unsigned long long* out, unsigned iters) {' % (lb, name))
    out.append("  const unsigned base = hw_fill_tiles();")
    out.append("  %s d[%d];" % (ctype, na))
    out.append("#pragma unroll")
    out.append("  for (int i = 0; i < %d; ++i) d[i] = 0;" % na)
    if rs:
        out.append("  const unsigned a0 = hw_pattern(threadIdx.x * 4 + 0), a1 = hw_pattern(threadIdx.x * 4 + 1);")
        out.append("  const unsigned a2 = hw_pattern(threadIdx.x * 4 + 2), a3 = hw_pattern(threadIdx.x * 4 + 3);")
    out.append("  const unsigned long long t0 = hw_start();")
    out.append("  const unsigned long long g0 = mb_globaltimer();")
    out.append("  for (unsigned it = 0; it < iters; ++it) {")
    out.append("    const unsigned long long da = hw_desc(base), db = hw_desc(base + HW_B_OFFSET);")
    if mode == "issue":
        out.append(asm_statement(t, n, rs, U_ISSUE, "batch", "da", "db", "    "))
    else:
        out.append(asm_statement(t, n, rs, U_LAT, "each", "da", "db", "    "))
    out.append("  }")
    cons = "+f" if kind == "f32" else "+r"
    out.append('  asm volatile("wgmma.wait_group.sync.aligned 0;" : "%s"(d[0]), "%s"(d[%d]) : : "memory");' % (cons, cons, na - 1))
    sink = "__float_as_uint(d[0]) ^ __float_as_uint(d[%d])" % (na - 1) if kind == "f32" else "d[0] ^ d[%d]" % (na - 1)
    out.append("  hw_finish(out, t0, g0, %s);" % sink)
    out.append("}")
    return name, "\n".join(out)


HEADER = r'''// GENERATED by gen_hopper_wgmma.py — do not edit; change the generator and rerun it.
//
// wgmma (sm_90a warpgroup matrix multiply-accumulate): issue interval and dependent latency per
// shape m64nNk{8,16,32} and type, written from the PTX ISA (wgmma.mma_async, .fence,
// .commit_group, .wait_group). Plain launches: (out, iters), dynamic shared memory HW_SMEM_BYTES.
//
//   wgmma_issue_<ss|rs>_<type>_n<N>(out, iters)
//       block = 128 x W threads (W = 1, 2 or 4 warpgroups; N=256 with 32-bit accumulators allows
//       W <= 2), one block per SM, every warpgroup its own accumulator. Each loop iteration is one
//       fence, 8 wgmmas into the same accumulator (no wait in between, as a GEMM main loop issues
//       its k-slices), commit_group, wait_group 1: one batch always in flight.
//       cycles per wgmma per SM = span / (W x iters x 8); per warpgroup = span / (iters x 8).
//   wgmma_lat_<ss|rs>_<type>_n<N>(out, iters)
//       one warpgroup (128 threads); every step is fence, one wgmma, commit_group, wait_group 0:
//       a chain through the accumulator. cycles per step = span / (iters x 4).
//
// out per block (6 x u64): t0, t1 (clock64 around the timed loop, after __syncthreads), smid,
// globaltimer at start and end (ns: the SM clock is d clock64 / d globaltimer), and a sink word.
//
// Operands: A (64 x K) and B (N x K) K-major in shared memory, 128-byte swizzle, 1024-byte aligned
// (A at the base, B at +8 KiB); every row holds one 128-byte swizzle row, and the k-slice of a
// wgmma is 32 bytes of it (K = 16 f16/bf16, 8 tf32, 32 e4m3/s8), the descriptor start address
// advancing by 32 bytes per slice, as a GEMM's k-loop does. The tiles are filled with bytes
// (r & 0x87) | 0x30: finite, non-zero values in every interpretation (f16, bf16, tf32, e4m3, s8).
// RS kernels take A from four 32-bit registers per thread of the same pattern.
//
// Type        PTX                                     K   FLOP per wgmma
// f16f32      wgmma...m64nNk16.f32.f16.f16            16  2*64*N*16
// bf16f32     wgmma...m64nNk16.f32.bf16.bf16          16  2*64*N*16
// f16f16      wgmma...m64nNk16.f16.f16.f16            16  2*64*N*16
// tf32f32     wgmma...m64nNk8.f32.tf32.tf32            8  2*64*N*8
// e4m3f32     wgmma...m64nNk32.f32.e4m3.e4m3          32  2*64*N*32
// s8s32       wgmma...m64nNk32.s32.s8.s8              32  2*64*N*32 (integer ops)

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

#define HW_B_OFFSET 8192u
#define HW_TILE_BYTES (8192u + 32768u)
#define HW_SMEM_BYTES (HW_TILE_BYTES + 1024u)

static __device__ __forceinline__ unsigned hw_pattern(unsigned i) {
  unsigned r = i * 0x9e3779b9u + 0x7f4a7c15u;
  r ^= r >> 15;
  r *= 0x2c1b3c6du;
  r ^= r >> 12;
  return (r & 0x87878787u) | 0x30303030u;
}

// Fills the operand tiles, makes them visible to the async proxy, returns the 1024-aligned
// shared-memory address of the tiles.
static __device__ __forceinline__ unsigned hw_fill_tiles() {
  extern __shared__ __align__(1024) unsigned char hw_smem[];
  unsigned raw;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(raw) : "l"(hw_smem));
  const unsigned base = (raw + 1023u) & ~1023u;
  for (unsigned i = threadIdx.x; i < HW_TILE_BYTES / 4; i += blockDim.x)
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(base + 4 * i), "r"(hw_pattern(i + 977u * blockIdx.x)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  return base;
}

// Shared-memory matrix descriptor: start address >> 4, leading byte offset 16 (unused for swizzled
// K-major), stride byte offset 1024 (8 rows of 128 bytes), layout 128-byte swizzle (1 << 62).
static __device__ __forceinline__ unsigned long long hw_desc(unsigned addr) {
  const unsigned long long a = (addr & 0x3FFFFu) >> 4;
  return a | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}

static __device__ __forceinline__ unsigned long long hw_start() {
  __syncthreads();
  return mb_clock64();
}

static __device__ __forceinline__ void hw_finish(unsigned long long* out, unsigned long long t0,
                                                 unsigned long long g0, unsigned sink) {
  __syncthreads();
  const unsigned long long t1 = mb_clock64();
  const unsigned long long g1 = mb_globaltimer();
  if (threadIdx.x == 0) {
    unsigned long long* o = out + 6ull * blockIdx.x;
    o[0] = t0;
    o[1] = t1;
    o[2] = mb_smid();
    o[3] = g0;
    o[4] = g1;
  }
  if (sink == 0x12345678u) out[6ull * blockIdx.x + 5] = sink;
}
'''


def generate():
    parts = [HEADER]
    names = []
    for t in TYPES:
        for n in NS:
            for rs in (False, True):
                for mode in ("issue", "lat"):
                    name, text = kernel(t, n, rs, mode)
                    names.append(name)
                    parts.append(text)
    reg = "// Every kernel above, for the host's registry: HW_WGMMA_KERNELS(X) expands X(name) for each.\n"
    reg += "#define HW_WGMMA_KERNELS(X) \\\n" + " \\\n".join("  X(%s)" % n for n in names) + "\n"
    parts.append(reg)
    return "\n\n".join(parts), names


def main():
    text, _ = generate()
    if "--check" in sys.argv:
        cur = open(OUT).read() if os.path.exists(OUT) else ""
        if cur != text:
            print("hopper_wgmma.cu is stale: run gen_hopper_wgmma.py")
            return 1
        return 0
    with open(OUT, "w") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
