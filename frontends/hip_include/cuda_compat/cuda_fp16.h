// kernsim's CUDA-on-AMD port: <cuda_fp16.h> is kernsim's <hip/hip_fp16.h>, which spells __half,
// __half2 and their functions as CUDA does. docs/cuda_on_amd.md.
#pragma once
#include <hip/hip_fp16.h>

#include "__kernsim_cuda_port.h"
