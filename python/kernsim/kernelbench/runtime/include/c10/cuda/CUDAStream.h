// kernsim stand-in (docs/kernelbench.md): the CUDA-side PyTorch API over a CPU process.
#pragma once
#include "kernsim_cuda_shim.h"
