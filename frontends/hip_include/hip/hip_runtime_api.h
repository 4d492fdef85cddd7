// kernsim's slim HIP headers: the runtime API header is the runtime header (device compilation only).
#pragma once
#include <hip/hip_runtime.h>
