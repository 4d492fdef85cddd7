// kernsim's HIP prelude: force-included (-include) before the translation unit, as the HIP
// toolchain force-includes its runtime wrapper, so that the function qualifiers exist before any
// standard header (clang's cuda_wrappers for <algorithm>, <cmath>, <new> use them).
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

// <stdlib.h> before any standard header, as clang's HIP runtime wrapper includes it: clang's
// cuda_wrappers/new (reached from <memory>, <vector>, ...) calls ::malloc and ::free
#include <stdlib.h>
