// kernsim's CUDA-on-AMD port: <cuda_bf16.h> is kernsim's <hip/hip_bf16.h> under CUDA's type names
// (__nv_bfloat16 is __hip_bfloat16; the functions have the same names). docs/cuda_on_amd.md.
#pragma once
#include <hip/hip_bf16.h>

#include "__kernsim_cuda_port.h"

typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
typedef __hip_bfloat16 nv_bfloat16;
typedef __hip_bfloat162 nv_bfloat162;
