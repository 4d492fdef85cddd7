// gfx950's lane-exchanging instructions for the AMD functional tests: ds_read_b64_tr_b16 (LDS
// holds 0, 1, 2, ... as 16-bit values; lane l reads the 4 at element 4 * perm(l)), and
// v_permlane16_swap_b32 / v_permlane32_swap_b32 on (1000 + lane, 2000 + lane). Each lane writes 8
// words: the 4 transposed elements, then vdst and vsrc after each swap.
#include <hip/hip_runtime.h>

typedef short ks_i16x4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void gfx950_lanes(unsigned* out) {
  __shared__ unsigned short lds[64 * 4];
  const int l = threadIdx.x;
  for (int i = l; i < 64 * 4; i += 64) lds[i] = (unsigned short)i;
  __syncthreads();
  const int src = (l * 5) & 63;  // each lane's 8 bytes: a permutation of the lanes' slots
  const ks_i16x4 t =
      __builtin_amdgcn_ds_read_tr16_b64_v4i16((__attribute__((address_space(3))) ks_i16x4*)(lds + 4 * src));
  unsigned* o = out + 8 * l;
  for (int e = 0; e < 4; ++e) o[e] = (unsigned short)t[e];
  const auto s16 = __builtin_amdgcn_permlane16_swap(1000u + l, 2000u + l, false, false);
  const auto s32 = __builtin_amdgcn_permlane32_swap(1000u + l, 2000u + l, false, false);
  o[4] = s16[0];
  o[5] = s16[1];
  o[6] = s32[0];
  o[7] = s32[1];
}
