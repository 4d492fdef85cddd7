// Launch overhead and workgroup dispatch on AMD CDNA. The HIP twin of ../cuda/launch.cu.
//
//   k_empty           an empty kernel (event time of an empty launch; grids of many workgroups give
//                     the dispatch rate)
//   k_one_block(out)  one workgroup writing 256 words
//   cta_stamp(out)    every workgroup records [shader clock at entry, CU id]: per CU the gap
//                     between consecutive workgroup starts
#include <hip/hip_runtime.h>

#include "mb_helpers.h"  // mb_clock64, mb_realtime, mb_smid

extern "C" __global__ void k_empty() {}

extern "C" __global__ void k_one_block(unsigned* out) { out[threadIdx.x] = threadIdx.x; }

extern "C" __global__ void cta_stamp(unsigned long long* out) {
  if (threadIdx.x == 0) {
    out[2ull * blockIdx.x + 0] = mb_clock64();
    out[2ull * blockIdx.x + 1] = mb_smid();
  }
}
