// kernsim's CUDA-on-AMD port: the constants of CUDA's <math_constants.h> that kernels use most.
// docs/cuda_on_amd.md.
#pragma once

#define CUDART_INF_F __builtin_huge_valf()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_PI_F 3.141592654f
#define CUDART_INF __builtin_huge_val()
#define CUDART_NAN __builtin_nan("")
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_SQRT_2PI 2.5066282746310002e+0
