// kernsim::sim::Listener — the events the timing model emits. Reports, stall breakdowns and
// traces are listeners ("views"); the model never computes a statistic for its own sake.
#pragma once

#include <cstdint>

#include "isa/unit.h"
#include "memory_model/events.h"

namespace kernsim::sim {

enum class Stall : std::uint8_t {
  MemoryDependency,     // waiting for a load / atomic result
  ExecutionDependency,  // waiting for an arithmetic result
  PipeBusy,             // the unit it needs is still busy (throughput)
  Barrier,              // waiting at a CTA barrier
  AsyncWait,            // cp.async.wait_group
  Idle,                 // no resident warps on this scheduler
  kCount
};

inline const char* to_string(Stall s) {
  switch (s) {
    case Stall::MemoryDependency: return "memory_dependency";
    case Stall::ExecutionDependency: return "execution_dependency";
    case Stall::PipeBusy: return "pipe_busy";
    case Stall::Barrier: return "barrier";
    case Stall::AsyncWait: return "async_wait";
    case Stall::Idle: return "idle";
    case Stall::kCount: break;
  }
  return "?";
}

class Listener {
 public:
  virtual ~Listener() = default;
  // One warp instruction issued on scheduler `sub` of `sm`: `lanes` active threads, `flops`
  // floating-point operations it performs (FMA = 2), `issue_cycles` the pipe is busy.
  virtual void on_issue(int sm, int sub, isa::Unit unit, int lanes, double flops, double issue_cycles, double cycle) {}
  // A scheduler issued nothing for `cycles` cycles because of `why`.
  virtual void on_stall(int sm, int sub, Stall why, double cycles) {}
  virtual void on_cta(int sm, std::uint64_t cta, double start, double end) {}
  // `warps` warps were resident on `sm` from `from` to `to` (for achieved occupancy).
  virtual void on_residency(int sm, int warps, double from, double to) {}
  virtual void on_memory(const mem::MemCounters& counters, double dram_busy_cycles, double l2_busy_cycles) {}
  // The detailed window lasted `cycles` (models whose schedulers issue several instructions per
  // cycle report it, as stall and issue counts do not add up to it).
  virtual void on_window(double cycles) {}
};

}  // namespace kernsim::sim
