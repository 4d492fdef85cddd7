// kernsim::isa::ptx::address_slice — which instructions of a kernel decide where it accesses
// memory and where it branches, and which only compute values nothing of that reads.
//
// A warm-up or a probe that runs CTAs only for their global addresses and their instruction
// counts (the L2 warm-up of an SM slice, the work probes) needs the control flow and the
// addresses exactly, and nothing else: an SGEMM's FMAs and mma.syncs, the data its loads bring
// and its stores write. The slice is the backward closure, over registers (flow-insensitive, so
// every write of a register something needed reads is needed) and over state spaces (a load whose
// value is needed makes every store and atomic that could write its space needed, with the values
// they store), from every instruction with an effect beyond its registers: branches, barriers,
// atomics, calls, asynchronous copies and the address operands of loads and stores.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/ptx/program.h"

namespace kernsim::isa::ptx {

enum class SliceRole : std::uint8_t {
  Execute,        // runs as always
  Skip,           // a register-only instruction whose results nothing needed reads
  AddressesOnly,  // a load whose value, or a store whose written data, nothing needed reads:
                  // its addresses are formed and checked, no data moves
};

// One role per instruction of `p`, or empty where the analysis does not apply (a program with
// calls or more than one function: registers are per frame).
std::vector<SliceRole> address_slice(const Program& p);

}  // namespace kernsim::isa::ptx
