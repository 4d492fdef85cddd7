// A kernel that executes an instruction kernsim does not implement (a typed buffer load), written
// as AMDGCN assembly with its kernel descriptor and metadata; for the AMD error-path tests.
	.text
	.globl	uses_format_load
	.p2align	8
	.type	uses_format_load,@function
uses_format_load:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_mov_b32_e32 v1, 0
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s4, s2
	s_mov_b32 s5, s3
	s_mov_b32 s6, 0x100
	s_mov_b32 s7, 0x27000
	buffer_load_format_x v1, v0, s[4:7], 0 idxen
	s_waitcnt vmcnt(0)
	v_lshlrev_b32_e32 v0, 2, v0
	global_store_dword v0, v1, s[2:3]
	s_endpgm
.Lfunc_end0:
	.size	uses_format_load, .Lfunc_end0-uses_format_load

	.rodata
	.p2align	6
	.amdhsa_kernel uses_format_load
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
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
    .max_flat_workgroup_size: 256
    .name:           uses_format_load
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         uses_format_load.kd
    .vgpr_count:     2
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
