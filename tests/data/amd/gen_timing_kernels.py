#!/usr/bin/env python3
"""Writes timing_kernels.s, the gfx942 microkernels of tests/unit/amd_timing_test.cpp (the .s is
committed; rerun this after changing it: python3 tests/data/amd/gen_timing_kernels.py)."""
import os
kernels = []  # (name, body, nvgpr, nsgpr, nargs(list of (size,kind)), lds)

def chain(name, n, dep):
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\tv_mov_b32_e32 v1, 1.0"]
    for i in range(n):
        body.append("\tv_exp_f32_e32 v1, v1" if dep else f"\tv_exp_f32_e32 v{2 + i % 4}, v1")
    body += ["\tv_add_f32_e32 v1, v1, v2", "\ts_waitcnt lgkmcnt(0)", "\tv_lshlrev_b32_e32 v0, 2, v0", "\tglobal_store_dword v0, v1, s[2:3]", "\ts_endpgm"]
    kernels.append((name, body, 8, 8, [(8, "global_buffer")], 0))

for n in (64, 128):
    chain(f"exp_chain{n}", n, True)
    chain(f"exp_indep{n}", n, False)

def mfma(name, n, kind):
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\ts_waitcnt lgkmcnt(0)", "\tv_mov_b32_e32 v2, 0", "\tv_mov_b32_e32 v3, 0", "\tv_mov_b32_e32 v4, 0",
            "\tv_mov_b32_e32 v5, 0", "\tv_mov_b32_e32 v6, 0", "\tv_mov_b32_e32 v7, 0", "\tv_mov_b32_e32 v8, 0", "\tv_mov_b32_e32 v9, 0"]
    for i in range(n):
        if kind == "acc":      # D feeds the next MFMA's accumulator (C)
            body.append("\tv_mfma_f32_16x16x16_f16 v[6:9], v[2:3], v[4:5], v[6:9]")
        elif kind == "srca":   # D feeds the next MFMA's A operand
            body.append("\tv_mfma_f32_16x16x16_f16 v[6:9], v[6:7], v[4:5], v[10:13]")
        else:                  # D read by a VALU instruction
            body.append("\tv_mfma_f32_16x16x16_f16 v[6:9], v[2:3], v[4:5], v[10:13]")
            body.append("\tv_add_f32_e32 v2, v6, v2")
    body += ["\tv_lshlrev_b32_e32 v0, 2, v0", "\tglobal_store_dword v0, v6, s[2:3]", "\ts_endpgm"]
    kernels.append((name, body, 16, 8, [(8, "global_buffer")], 0))

for n in (16, 32):
    mfma(f"mfma_acc{n}", n, "acc")
    mfma(f"mfma_srca{n}", n, "srca")
    mfma(f"mfma_valu{n}", n, "valu")

def load_then_chain(name, wait_first):
    # one cold load, then 64 dependent v_exp on another register; the load's result is used last
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\ts_waitcnt lgkmcnt(0)", "\tv_lshlrev_b32_e32 v4, 2, v0",
            "\tglobal_load_dword v1, v4, s[2:3]", "\tv_mov_b32_e32 v2, 1.0"]
    if wait_first: body.append("\ts_waitcnt vmcnt(0)")
    body += ["\tv_exp_f32_e32 v2, v2"] * 64
    body += ["\ts_waitcnt vmcnt(0)", "\tv_add_f32_e32 v1, v1, v2", "\tglobal_store_dword v4, v1, s[2:3]", "\ts_endpgm"]
    kernels.append((name, body, 8, 8, [(8, "global_buffer")], 0))

load_then_chain("load_wait_then_chain", True)
load_then_chain("load_chain_then_wait", False)

def vmcnt_order(name, count):
    # the line at offset 2048 is loaded first (cold) and waited for; then a cold load of offset 0
    # (slow) and a load of offset 2048 (a vL1D hit, fast); `s_waitcnt vmcnt(count)` then a chain
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\ts_waitcnt lgkmcnt(0)", "\tv_lshlrev_b32_e32 v4, 2, v0",
            "\tglobal_load_dword v5, v4, s[2:3] offset:2048", "\ts_waitcnt vmcnt(0)",
            "\tglobal_load_dword v1, v4, s[2:3]", "\tglobal_load_dword v3, v4, s[2:3] offset:2048",
            f"\ts_waitcnt vmcnt({count})", "\tv_mov_b32_e32 v2, 1.0"]
    body += ["\tv_exp_f32_e32 v2, v2"] * 64
    body += ["\ts_waitcnt vmcnt(0)", "\tv_add_f32_e32 v1, v1, v2", "\tglobal_store_dword v4, v1, s[2:3] offset:3072", "\ts_endpgm"]
    kernels.append((name, body, 8, 8, [(8, "global_buffer")], 0))

vmcnt_order("vmcnt_wait1", 1)
vmcnt_order("vmcnt_wait2", 2)

def lds_reads(name, n):
    # every lane reads LDS word lane * stride (stride from the second argument), n times
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\ts_load_dword s4, s[0:1], 0x8", "\ts_waitcnt lgkmcnt(0)",
            "\tv_and_b32_e32 v3, 63, v0", "\tv_mul_lo_u32 v2, v3, s4", "\tv_lshlrev_b32_e32 v2, 2, v2"]
    for i in range(n):
        body.append("\tds_read_b32 v1, v2")
        if i % 8 == 7: body.append("\ts_waitcnt lgkmcnt(0)")
    body += ["\ts_waitcnt lgkmcnt(0)", "\tv_lshlrev_b32_e32 v0, 2, v0", "\tglobal_store_dword v0, v1, s[2:3]", "\ts_endpgm"]
    kernels.append((name, body, 8, 8, [(8, "global_buffer"), (4, "by_value")], 16384))

for n in (64, 128):
    lds_reads(f"lds_reads{n}", n)

def lds_reads_b64(name, n):
    # every lane reads its own 8 bytes at lane * 8 (conflict-free), n times, 8 in flight per wave
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\ts_waitcnt lgkmcnt(0)",
            "\tv_and_b32_e32 v3, 63, v0", "\tv_lshlrev_b32_e32 v2, 3, v3"]
    for i in range(n):
        body.append(f"\tds_read_b64 v[{4 + 2 * (i % 8)}:{5 + 2 * (i % 8)}], v2")
        if i % 8 == 7: body.append("\ts_waitcnt lgkmcnt(0)")
    body += ["\ts_waitcnt lgkmcnt(0)", "\tv_lshlrev_b32_e32 v0, 2, v0", "\tglobal_store_dword v0, v4, s[2:3]", "\ts_endpgm"]
    kernels.append((name, body, 24, 8, [(8, "global_buffer")], 16384))

for n in (64, 128):
    lds_reads_b64(f"lds_reads_b64_{n}", n)

# Lane 0 of each wave of a 256-item workgroup stores HW_ID and XCC_ID at out[2 * (4 * workgroup + wave)].
kernels.append(("hw_id", ["\ts_load_dwordx2 s[4:5], s[0:1], 0x0", "\ts_getreg_b32 s6, hwreg(HW_REG_HW_ID)",
                          "\ts_getreg_b32 s7, hwreg(HW_REG_XCC_ID)", "\tv_lshrrev_b32_e32 v1, 6, v0",
                          "\tv_lshl_add_u32 v1, s2, 2, v1", "\tv_lshlrev_b32_e32 v1, 3, v1", "\tv_mov_b32_e32 v2, s6",
                          "\tv_mov_b32_e32 v3, s7", "\ts_waitcnt lgkmcnt(0)", "\tglobal_store_dwordx2 v1, v[2:3], s[4:5]",
                          "\ts_endpgm"], 8, 8, [(8, "global_buffer")], 0))

def waits(name, n, inst):
    body = ["\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "\ts_waitcnt lgkmcnt(0)", "\tv_mov_b32_e32 v1, 1.0"]
    body += [f"\t{inst}"] * n
    body += ["\tv_lshlrev_b32_e32 v0, 2, v0", "\tglobal_store_dword v0, v1, s[2:3]", "\ts_endpgm"]
    kernels.append((name, body, 8, 8, [(8, "global_buffer")], 0))

for n in (16, 32):
    waits(f"nop7_{n}", n, "s_nop 7")
    waits(f"sleep2_{n}", n, "s_sleep 2")

out = ["// Timing microkernels for tests/unit/amd_timing_test.cpp, as gfx942 assembly with kernel",
       "// descriptors and metadata. Generated by a script: each kernel isolates one timing rule (dependent",
       "// vs independent chains, MFMA forwarding, s_waitcnt, LDS bank conflicts); tests compare pairs of",
       "// kernels that differ only in the instructions under test.", "\t.text"]
for name, body, nv, ns, args, lds in kernels:
    out += [f"\t.globl\t{name}", "\t.p2align\t8", f"\t.type\t{name},@function", f"{name}:"] + body
    out += [f".Lfunc_end_{name}:", f"\t.size\t{name}, .Lfunc_end_{name}-{name}", ""]
out += ["\t.rodata"]
for name, body, nv, ns, args, lds in kernels:
    out += ["\t.p2align\t6", f"\t.amdhsa_kernel {name}", "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1",
            f"\t\t.amdhsa_next_free_vgpr {nv}", f"\t\t.amdhsa_next_free_sgpr {ns}", f"\t\t.amdhsa_accum_offset {nv}",
            f"\t\t.amdhsa_group_segment_fixed_size {lds}", "\t.end_amdhsa_kernel", ""]
out += ["\t.amdgpu_metadata", "---", "amdhsa.kernels:"]
for name, body, nv, ns, args, lds in kernels:
    out.append("  - .args:")
    off = 0
    for size, kind in args:
        if kind == "global_buffer":
            out += ["      - .address_space:  global", f"        .offset:         {off}", f"        .size:           {size}", "        .value_kind:     global_buffer"]
        else:
            out += [f"      - .offset:         {off}", f"        .size:           {size}", "        .value_kind:     by_value"]
        off += size
    ks = (off + 7) // 8 * 8
    out += [f"    .group_segment_fixed_size: {lds}", "    .kernarg_segment_align: 8", f"    .kernarg_segment_size: {ks}",
            "    .max_flat_workgroup_size: 1024", f"    .name:           {name}", "    .private_segment_fixed_size: 0",
            f"    .sgpr_count:     {ns}", f"    .symbol:         {name}.kd", f"    .vgpr_count:     {nv}", "    .wavefront_size: 64"]
out += ["amdhsa.target:   amdgcn-amd-amdhsa--gfx942", "amdhsa.version:", "  - 1", "  - 2", "...", "\t.end_amdgpu_metadata", ""]
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "timing_kernels.s"), "w").write("\n".join(out))
print(len(kernels), "kernels")
