// Included first in every translation unit of an extension kernsim builds (docs/kernelbench.md).
// PyTorch's headers are parsed here, before the two renames below, so they keep their meaning;
// the candidate's own code then sees:
//   is_cuda -> is_cpu   (x.is_cuda(), x.device().is_cuda(): the "GPU tensors" are CPU tensors)
//   kCUDA   -> kCPU     (torch::kCUDA in options, device comparisons)
#pragma once
#include <torch/extension.h>
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <c10/util/Half.h>
#include <c10/util/BFloat16.h>
#include "kernsim_cuda_shim.h"
#define is_cuda is_cpu
#define kCUDA kCPU
