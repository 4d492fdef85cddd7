// kernsim: ROCm code includes <hip/amd_detail/amd_hip_runtime.h> directly (HipKittens does); everything it
// declares is in kernsim's hip_runtime.h, so that a ROCm installation's own header is never read.
#pragma once

#include <hip/hip_runtime.h>
