// ptx::Module -> ptx::Program for one kernel: registers to banks, immediates to constant rows,
// symbols to addresses, opcodes to Op + modifiers, labels to indices, branches to their
// reconvergence points (immediate post-dominators). Done once per (module, kernel).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "isa/ptx/ast.h"
#include "isa/ptx/program.h"

namespace kernsim::isa::ptx {

// `source` is the PTX text (kept for error messages: instructions are quoted by line).
Program decode_kernel(const ast::Module& module, const std::string& kernel, std::string_view source,
                      const std::string& origin);

// Registers per thread a kernel would need, estimated from the decoded program when ptxas is
// not available: the peak number of simultaneously live virtual registers in program order
// (64-bit registers count twice), capped at 255.
int estimate_registers(const Program& program);

// Marks memory instructions whose address is provably the same for every lane of a warp
// (computed only from parameters, constants, block indices and loads from such addresses), and
// atomic adds on such addresses, which ptxas turns into one atomic per warp.
void mark_uniform_addresses(Program& program);

// Moves each load up within its basic block past instructions it does not depend on (never
// across stores, atomics, barriers, fences, calls, branches or clock reads), as ptxas's
// scheduler does, so that loads a warp can have in flight together are issued together.
void hoist_loads(Program& program);
// Marks float neg/abs instructions whose every reader takes the operand modifier for free
// (kFoldedModifier): ptxas emits no instruction for them.
void fold_operand_modifiers(Program& program);

// ptxas unrolls small loops (typically by 4) and issues the unrolled iterations' loads back
// to back, so a warp has several of them in flight where the PTX has one. Given the number of
// global/generic loads in each innermost loop of the kernel's SASS (address order), matches
// them to the PTX's innermost loops in order and sets Inst::batch to the unroll factor on each
// load whose address does not depend on a value loaded in the same loop (a pointer chase stays
// serial). Returns the number of loops found unrolled.
int mark_unrolled_loads(Program& program, const std::vector<int>& sass_loop_loads,
                        const std::vector<int>& sass_loop_load_bytes = {});

// Immediate post-dominators of a CFG given as successor lists (node n_nodes is the virtual exit);
// returns for each node its ipdom node index (n_nodes for the exit, -1 for unreachable).
std::vector<int> immediate_post_dominators(const std::vector<std::vector<int>>& succ);

}  // namespace kernsim::isa::ptx
