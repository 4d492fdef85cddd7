// kernsim's CUDA-on-AMD port: <cuda_runtime_api.h> is the port header (__kernsim_cuda_port.h, also
// force-included): kernsim's HIP runtime with CUDA's spellings. docs/cuda_on_amd.md.
#pragma once
#include "__kernsim_cuda_port.h"
