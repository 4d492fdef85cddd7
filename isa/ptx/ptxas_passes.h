// kernsim::isa::ptx — the passes that imitate what ptxas does to a kernel (if-conversion of
// short bodies, instruction order within basic blocks, operand folding, the uniform datapath, range reduction, loop unrolling),
// run in one fixed order by apply_ptxas_passes(). decode_kernel() runs it on every program it
// makes; the individual passes are public for their tests.
#pragma once

#include <vector>

#include "isa/ptx/program.h"

namespace kernsim::isa::ptx {

// What ptxas's output (the SASS) says about a kernel's innermost loops, in address order: the
// global/generic loads in each, and their bytes per lane. Empty when no SASS is available.
struct SassLoops {
  std::vector<int> loads;
  std::vector<int> load_bytes;  // empty, or one per loop
  // ptxas reported (C7514) that it serialized the kernel's wgmma.mma_async: each waits for the
  // one before it to complete (Program::wgmma_serialized; the timing model honours it)
  bool wgmma_serialized = false;
};

// Runs every pass below on `program`, in the order (and for the reasons) given at its definition
// in ptxas_passes.cpp: if_convert_skips, merge_shared_loads, hoist_loads, sink_loads,
// fold_operand_modifiers, fold_predicate_logic, mark_uniform_addresses, mark_shared_increments,
// mark_range_reduction, mark_denormal_guards, then mark_unrolled_loads when `sass` has loops.
void apply_ptxas_passes(Program& program, const SassLoops& sass);

// Predicates the body of a conditional skip (`@p bra J; body; J:` on !p, or `@p bra T; bra.uni
// J; T: body; J:` on p) where ptxas does: at most 12 arithmetic and shared-memory ld/st
// instructions, or at most 8 without stores, barriers or branches that load from global (or
// generic, local, constant) memory, as for bounds-checked loads. Every warp then issues the body.
// A load body's branch is removed (the body joins the block around it); a shared body's branches,
// its own trailing `bra.uni J` too, fold into jumps to the next instruction (kFoldedModifier: no
// machine instruction). Returns the number of bodies converted.
int if_convert_skips(Program& program);

// Merges scalar shared loads of one base register at consecutive offsets into one vector load
// (.v2/.v4, 8 or 16 bytes) where the address is provably aligned to its size (known trailing
// zero bits of the base register), as ptxas emits LDS.64/LDS.128 for them; the merged load takes
// the first one's place and the others are removed.
void merge_shared_loads(Program& program);

// Moves each load up within its basic block past instructions it does not depend on (never
// across a fence-like instruction: ops.h fence_like()), as ptxas's scheduler does, so that loads
// a warp can have in flight together are issued together.
void hoist_loads(Program& program);

// Moves a load whose values only the then-part of an if-without-else reads (`@p bra join;
// then-part; join:`, entered only through that branch) from before the branch to the start of the
// then-part, as ptxas issues it (a switch's range check before the loads its cases share).
void sink_loads(Program& program);

// Marks float neg/abs instructions whose every reader takes the operand modifier for free
// (kFoldedModifier): ptxas emits no instruction for them.
void fold_operand_modifiers(Program& program);

// Marks (kFoldedModifier) what ptxas folds into the comparison before it: an and/or/xor.pred of a
// setp's result that nothing else reads (ISETP takes a predicate and a boolean op), and a
// setp.eq/ne against 0 of a logical op's result that nothing else reads (LOP3 writes a predicate),
// each within one basic block.
void fold_predicate_logic(Program& program);

// Marks memory instructions whose address is provably the same for every lane of a warp
// (computed only from parameters, constants, block indices and loads from such addresses), and
// atomic adds on such addresses, which ptxas turns into one atomic per warp (kWarpAggregated).
void mark_uniform_addresses(Program& program);

// Marks a shared-memory atom/red.add.u32/s32 of the constant 1 whose result nothing reads
// (kPopcInc): ptxas's ATOMS.POPC.INC, which serves the lanes on one word together.
void mark_shared_increments(Program& program);

// Marks sin/cos.f32 (kRangeReduced): ptxas precedes the MUFU with an FMUL.RZ in its chain.
void mark_range_reduction(Program& program);

// Marks ex2/lg2/rsqrt/sqrt/rcp.approx.f32 without .ftz (kDenormGuarded): ptxas surrounds the
// MUFU with FP32 instructions that scale denormal inputs and results (TimingDesc::guard_chain).
void mark_denormal_guards(Program& program);

// ptxas unrolls small loops (typically by 4) and issues the unrolled iterations' loads back
// to back, so a warp has several of them in flight where the PTX has one. Given the number of
// global/generic loads in each innermost loop of the kernel's SASS (address order), matches
// them to the PTX's innermost loops in order and sets Inst::batch to the unroll factor on each
// load whose address does not depend on a value loaded in the same loop (a pointer chase stays
// serial). Returns the number of loops found unrolled.
int mark_unrolled_loads(Program& program, const std::vector<int>& sass_loop_loads,
                        const std::vector<int>& sass_loop_load_bytes = {});

}  // namespace kernsim::isa::ptx
