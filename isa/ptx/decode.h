// ptx::Module -> ptx::Program for one kernel: registers to banks, immediates to constant rows,
// symbols to addresses, opcodes to Op + modifiers (the table isa/ptx/ops.def), labels to indices,
// branches to their reconvergence points (immediate post-dominators), then the ptxas passes
// (ptxas_passes.h). Done once per (module, kernel).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "isa/ptx/ast.h"
#include "isa/ptx/program.h"
#include "isa/ptx/ptxas_passes.h"

namespace kernsim::isa::ptx {

// `source` is the PTX text (kept for error messages: instructions are quoted by line); `sass`
// what ptxas's output says about the kernel's loops, when there is one (apply_ptxas_passes).
Program decode_kernel(const ast::Module& module, const std::string& kernel, std::string_view source,
                      const std::string& origin, const SassLoops& sass = {});

// Registers per thread a kernel would need, estimated from the decoded program when ptxas is
// not available: the peak number of simultaneously live virtual registers in program order
// (64-bit registers count twice), capped at 255.
int estimate_registers(const Program& program);

// Immediate post-dominators of a CFG given as successor lists (node n_nodes is the virtual exit);
// returns for each node its ipdom node index (n_nodes for the exit, -1 for unreachable).
std::vector<int> immediate_post_dominators(const std::vector<std::vector<int>>& succ);

}  // namespace kernsim::isa::ptx
