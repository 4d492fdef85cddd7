// Group `alu`: issue rate and latency of the non-tensor pipes (alu.cu).
#include "../alu.cu"
#include "pipe_bench.h"

namespace mb {

#define MB_K(n) \
  { #n, reinterpret_cast < const void*>(&n) }

void kernels_alu(std::vector<KernelEntry>& k) {
  const KernelEntry e[] = {MB_K(issue_ffma),     MB_K(lat_ffma),     MB_K(issue_fadd),     MB_K(lat_fadd),
                           MB_K(issue_imad),     MB_K(lat_imad),     MB_K(issue_lop3),     MB_K(lat_lop3),
                           MB_K(issue_iadd_lop), MB_K(lat_iadd_lop), MB_K(issue_mufu_ex2), MB_K(lat_mufu_ex2),
                           MB_K(issue_mufu_rsq), MB_K(lat_mufu_rsq), MB_K(issue_mufu_sin), MB_K(lat_mufu_sin),
                           MB_K(issue_dfma),     MB_K(lat_dfma),     MB_K(issue_hfma2),    MB_K(lat_hfma2),
                           MB_K(issue_cvt),      MB_K(lat_cvt)};
  k.insert(k.end(), std::begin(e), std::end(e));
}

#define MB_OP(name, OP, sass, BPS)                                                                                  \
  PipeOp {                                                                                                          \
#name, reinterpret_cast < const void*>(&issue_##name), reinterpret_cast < const void*>(&lat_##name), OP::kSass, \
        sass, 0.0, BPS                                                                                              \
  }

void group_alu(Context& ctx) {
  std::vector<PipeOp> ops = {
      MB_OP(ffma, OpFfma, "FFMA", 8),
      MB_OP(fadd, OpFadd, "FADD", 8),
      MB_OP(imad, OpImad, "IMAD", 8),
      MB_OP(lop3, OpLop3, "LOP3.LUT", 8),
      MB_OP(iadd_lop, OpIaddLop, "VIADD + LOP3.LUT (per instruction: the average of the two)", 8),
      MB_OP(mufu_ex2, OpMufuEx2, "MUFU.EX2 (ex2.approx.ftz, negated operand folded)", 8),
      MB_OP(mufu_rsq, OpMufuRsq, "MUFU.RSQ", 8),
      MB_OP(mufu_sin, OpMufuSin, "FMUL.RZ + MUFU.SIN per step (counted as one MUFU)", 8),
      MB_OP(dfma, OpDfma, "DFMA", 4),
      MB_OP(hfma2, OpHfma2, "HFMA2 and HFMA2.MMA alternating (ptxas splits over two pipes)", 8),
      MB_OP(cvt, OpCvt, "F2I.NTZ + I2FP.F32.S32 (per instruction: the average of the two)", 8),
  };
  if (ctx.opt.quick) ops = {ops[0], ops[2], ops[5], ops[8]};
  for (const auto& p : ops) run_pipe_op(ctx, p);
}

}  // namespace mb
