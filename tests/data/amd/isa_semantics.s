// Hand-written AMDGCN kernels whose results the unit tests derive from the ISA definitions
// (tests/unit/amd_functional_test.cpp, AmdSemantics): DPP, SDWA, LDS swizzles and permutes,
// lane reads and writes, exec-mask manipulation, 64-bit shifts, v_perm, v_bfe, scalar carries,
// the fp8 conversions, scratch addressing forms and VGPR indexing mode. Each lane writes 16
// (lane_ops), 3 (fp8_ops) or 8 (scratch_idx_ops) dwords to out[lane * N + j].
// Assembles for gfx942 and gfx950.
	.text
	.globl	lane_ops
	.p2align	8
	.type	lane_ops,@function
lane_ops:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_mad_u32_u24 v1, v0, 3, 1                  // v1 = lane * 3 + 1
	v_lshlrev_b32_e32 v2, 6, v0                 // v2 = lane * 64 (byte offset of the lane's 16 dwords)
	s_waitcnt lgkmcnt(0)
	// 0: quad_perm
	v_mov_b32_dpp v3, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
	global_store_dword v2, v3, s[2:3]
	// 1: row_shr:1 with bound_ctrl (lane 0 of each row reads 0)
	v_mov_b32_e32 v3, 7
	v_mov_b32_dpp v3, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
	global_store_dword v2, v3, s[2:3] offset:4
	// 2: row_bcast:15 without bound_ctrl (row 0 has no source and keeps 7)
	v_mov_b32_e32 v3, 7
	v_mov_b32_dpp v3, v1 row_bcast:15 row_mask:0xf bank_mask:0xf
	global_store_dword v2, v3, s[2:3] offset:8
	// 3: row_mirror
	v_mov_b32_dpp v3, v1 row_mirror row_mask:0xf bank_mask:0xf
	global_store_dword v2, v3, s[2:3] offset:12
	// 4: SDWA source byte select
	v_mov_b32_sdwa v3, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1
	global_store_dword v2, v3, s[2:3] offset:16
	// 5: SDWA destination word select, preserving the other word
	v_mov_b32_e32 v3, 0xabcd1234
	v_mov_b32_sdwa v3, v1 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:DWORD
	global_store_dword v2, v3, s[2:3] offset:20
	// 6: ds_swizzle bitmask mode: and 0x1f, or 0, xor 5
	ds_swizzle_b32 v3, v1 offset:0x141f
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v3, s[2:3] offset:24
	// 7: ds_bpermute from lane 63 - lane
	v_sub_u32_e32 v4, 63, v0
	v_lshlrev_b32_e32 v4, 2, v4
	ds_bpermute_b32 v3, v4, v1
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v3, s[2:3] offset:28
	// 8: v_readlane of lane 17, broadcast back
	v_readlane_b32 s4, v1, 17
	v_mov_b32_e32 v3, s4
	global_store_dword v2, v3, s[2:3] offset:32
	// 9: v_writelane into lane 40
	s_movk_i32 s5, 0x1234
	v_mov_b32_e32 v3, v1
	v_writelane_b32 v3, s5, 40
	global_store_dword v2, v3, s[2:3] offset:36
	// 10: lane id by mbcnt
	v_mbcnt_lo_u32_b32 v3, -1, 0
	v_mbcnt_hi_u32_b32 v3, -1, v3
	global_store_dword v2, v3, s[2:3] offset:40
	// 11: only odd lanes overwrite (compare, save exec, restore)
	v_mov_b32_e32 v3, 0xdead
	v_and_b32_e32 v4, 1, v0
	v_cmp_eq_u32_e32 vcc, 1, v4
	s_and_saveexec_b64 s[6:7], vcc
	v_mov_b32_e32 v3, v1
	s_mov_b64 exec, s[6:7]
	global_store_dword v2, v3, s[2:3] offset:44
	// 12: 64-bit logical shift right by the lane id
	v_mov_b32_e32 v4, 0x80000001
	v_mov_b32_e32 v5, v1
	v_lshrrev_b64 v[4:5], v0, v[4:5]
	global_store_dword v2, v4, s[2:3] offset:48
	// 13: v_perm_b32: bytes 0 and 2 from v1, bytes 1 and 3 from 0x11111111
	s_mov_b32 s8, 0x11111111
	s_mov_b32 s9, 0x07020500
	v_mov_b32_e32 v4, s9
	v_perm_b32 v3, s8, v1, v4
	global_store_dword v2, v3, s[2:3] offset:52
	// 14: v_bfe_u32 offset 2 width 5
	v_bfe_u32 v3, v1, 2, 5
	global_store_dword v2, v3, s[2:3] offset:56
	// 15: scalar carry chain: 0xfffffff0 + 0x10 carries into 5 + 6
	s_add_u32 s10, 0xfffffff0, 16
	s_addc_u32 s11, 5, 6
	v_mov_b32_e32 v3, s11
	global_store_dword v2, v3, s[2:3] offset:60
	s_endpgm
.Lfunc_end0:
	.size	lane_ops, .Lfunc_end0-lane_ops

	.globl	fp8_ops
	.p2align	8
	.type	fp8_ops,@function
fp8_ops:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_mul_u32_u24_e32 v2, 12, v0                // 3 dwords per lane
	v_mov_b32_e32 v4, 0x3fc00000                // 1.5
	v_mov_b32_e32 v5, 0xc0400000                // -3.0
	v_mov_b32_e32 v3, 0
	v_cvt_pk_fp8_f32 v3, v4, v5
	v_cvt_f32_fp8_sdwa v6, v3 src0_sel:BYTE_0
	v_cvt_f32_fp8_sdwa v7, v3 src0_sel:BYTE_1
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v3, s[2:3]
	global_store_dword v2, v6, s[2:3] offset:4
	global_store_dword v2, v7, s[2:3] offset:8
	s_endpgm
.Lfunc_end1:
	.size	fp8_ops, .Lfunc_end1-fp8_ops

	.text
	.globl	scratch_idx_ops
	.p2align	8
	.type	scratch_idx_ops,@function
// Scratch stores in every addressing form (the vaddr, vaddr + saddr and offset-only encodings),
// and VGPR indexing mode (s_set_gpr_idx_on / _idx / _mode / _off). Each lane writes 8 dwords.
scratch_idx_ops:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_lshlrev_b32_e32 v2, 5, v0                 // v2 = lane * 32 (byte offset of the lane's 8 dwords)
	v_mad_u32_u24 v1, v0, 3, 1                  // v1 = lane * 3 + 1
	v_mov_b32_e32 v3, 16                        // private offset 16
	// 0: vaddr form (scratch_store_dword vaddr, vdata, off), read back the same way
	scratch_store_dword v3, v1, off
	s_waitcnt vmcnt(0)
	scratch_load_dword v4, v3, off
	// 1, 2: vaddr + saddr form at 16 + 8 + 4 = 28, read back with the offset-only form
	s_mov_b32 s4, 8
	v_add_u32_e32 v6, 100, v1
	v_add_u32_e32 v7, 200, v1
	scratch_store_dwordx2 v3, v[6:7], s4 offset:4
	s_waitcnt vmcnt(0)
	scratch_load_dwordx2 v[8:9], off, off offset:28
	s_waitcnt vmcnt(0)
	// VGPR indexing: v10..v13 = 1000, 2000, 3000, 4000 + lane
	v_add_u32_e32 v10, 1000, v0
	v_add_u32_e32 v11, 2000, v0
	v_add_u32_e32 v12, 3000, v0
	v_add_u32_e32 v13, 4000, v0
	// 3: source indexing, index 2: v_mov v14, v10 reads v12
	s_mov_b32 s5, 2
	s_set_gpr_idx_on s5, gpr_idx(SRC0)
	v_mov_b32_e32 v14, v10
	s_set_gpr_idx_off
	// 4, 6: destination indexing, index 1: v_mov v10, v1 writes v11 and leaves v10
	s_mov_b32 s5, 1
	s_set_gpr_idx_on s5, gpr_idx(DST)
	v_mov_b32_e32 v10, v1
	s_set_gpr_idx_off
	// 5: s_set_gpr_idx_idx changes the index to 3: src0 v10 -> v13, src1 v1 not indexed
	s_mov_b32 s6, 3
	s_set_gpr_idx_on s5, gpr_idx(SRC0)
	s_set_gpr_idx_idx s6
	v_add_u32_e32 v15, v10, v1
	// 7: s_set_gpr_idx_mode switches to src1 (index still 3): 5000 - v7 reads v10
	s_set_gpr_idx_mode gpr_idx(SRC1)
	v_sub_u32_e32 v16, 5000, v7
	s_set_gpr_idx_off
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v4, s[2:3]
	global_store_dword v2, v8, s[2:3] offset:4
	global_store_dword v2, v9, s[2:3] offset:8
	global_store_dword v2, v14, s[2:3] offset:12
	global_store_dword v2, v11, s[2:3] offset:16
	global_store_dword v2, v15, s[2:3] offset:20
	global_store_dword v2, v10, s[2:3] offset:24
	global_store_dword v2, v16, s[2:3] offset:28
	s_endpgm
.Lfunc_end2:
	.size	scratch_idx_ops, .Lfunc_end2-scratch_idx_ops

	.rodata
	.p2align	6
	.amdhsa_kernel lane_ops
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 12
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel
	.p2align	6
	.amdhsa_kernel fp8_ops
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel
	.p2align	6
	.amdhsa_kernel scratch_idx_ops
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_enable_private_segment 1
		.amdhsa_private_segment_fixed_size 64
		.amdhsa_next_free_vgpr 20
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 20
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 64
    .name:           lane_ops
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .symbol:         lane_ops.kd
    .vgpr_count:     8
    .wavefront_size: 64
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 64
    .name:           fp8_ops
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         fp8_ops.kd
    .vgpr_count:     8
    .wavefront_size: 64
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 64
    .name:           scratch_idx_ops
    .private_segment_fixed_size: 64
    .sgpr_count:     8
    .symbol:         scratch_idx_ops.kd
    .vgpr_count:     20
    .wavefront_size: 64
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
