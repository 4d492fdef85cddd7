// Issue-rate and latency runner shared by the `alu` and `mma` groups: every issue_<op> and
// lat_<op> kernel has the signature (unsigned long long* out, unsigned iters, float x) and the
// out layout documented in alu.cu.
#pragma once

#include "mb_host.h"

namespace mb {

struct PipeOp {
  std::string op;         // result suffix: issue.<op>, latency.<op>
  const void* issue;      // issue_<op>
  const void* lat;        // lat_<op>
  int sass_per_step;      // SASS instructions of the measured class per step (kSass)
  std::string sass;       // what one step is in SASS (sm_90a), for the reader
  double flops = 0;       // per step (tensor ops), 0 if not meaningful
  int blocks_per_sm = 8;  // the kernel's __launch_bounds__ minimum: grid = SMs x this (one wave)
  int block = 256;
};

void run_pipe_op(Context& ctx, const PipeOp& p);

}  // namespace mb
