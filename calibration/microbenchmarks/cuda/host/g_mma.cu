// Group `mma`: issue rate and latency of warp-level mma.sync (mma.cu).
#include "../mma.cu"
#include "pipe_bench.h"

namespace mb {

#define MB_K(n) \
  { #n, reinterpret_cast < const void*>(&n) }

void kernels_mma(std::vector<KernelEntry>& k) {
  const KernelEntry e[] = {MB_K(issue_mma_f16),  MB_K(lat_mma_f16),  MB_K(issue_mma_f16v), MB_K(lat_mma_f16v),
                           MB_K(issue_mma_bf16), MB_K(lat_mma_bf16), MB_K(issue_mma_tf32), MB_K(lat_mma_tf32),
                           MB_K(issue_mma_s8),   MB_K(lat_mma_s8),   MB_K(issue_mma_e4m3), MB_K(lat_mma_e4m3),
                           MB_K(issue_dmma_f64), MB_K(lat_dmma_f64)};
  k.insert(k.end(), std::begin(e), std::end(e));
}

#define MB_MOP(name, sass, flops)                                                                                 \
  PipeOp {                                                                                                        \
#name, reinterpret_cast < const void*>(&issue_##name), reinterpret_cast < const void*>(&lat_##name), 1, sass, \
        flops, 4                                                                                                  \
  }

void group_mma(Context& ctx) {
  std::vector<PipeOp> ops = {
      MB_MOP(mma_f16, "HMMA.16816.F32 (mma.sync m16n8k16 f16->f32)", 4096),
      MB_MOP(mma_bf16, "HMMA.16816.F32.BF16 (mma.sync m16n8k16 bf16->f32)", 4096),
      MB_MOP(mma_tf32, "HMMA.1688.F32.TF32 (mma.sync m16n8k8 tf32->f32)", 2048),
      MB_MOP(mma_s8, "IMMA.16832.S8.S8 (mma.sync m16n8k32 s8->s32)", 8192),
      MB_MOP(mma_e4m3,
             "mma.sync m16n8k32 e4m3->f32 emulated on sm_90: 12 F2FP.F16.E4M3.UNPACK_B + 2 HMMA.16816.F32 + "
             "4 FADD per mma, + 6 VIADD operand updates (fresh operands every mma)",
             8192),
      MB_MOP(mma_f16v, "HMMA.16816.F32 + 6 VIADD/IADD3 operand updates per mma (control for e4m3)", 4096),
      MB_MOP(dmma_f64, "DMMA.8x8x4 (mma.sync m8n8k4 f64)", 512),
  };
  if (ctx.opt.quick) ops = {ops[0], ops[4], ops[6]};
  for (const auto& p : ops) run_pipe_op(ctx, p);
}

}  // namespace mb
