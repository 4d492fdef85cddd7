// kernsim::sim::Listener — the events the timing model emits. Reports, stall breakdowns, per-PC
// tables and traces are listeners ("views"); the model never computes a statistic for its own
// sake, and a new view needs no change to the model.
//
// Every event that concerns an instruction carries its PC (the index of the static instruction
// in the kernel's decoded program: isa::ptx::Program::insts or isa::amdgcn::Program::insts), so a
// view can attribute issue slots, stalls and memory traffic to instructions and, through the
// program's line table, to source lines. Times are in core cycles of the modelled part.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/unit.h"
#include "memory_model/events.h"

namespace kernsim::sim {

enum class Stall : std::uint8_t {
  MemoryDependency,     // waiting for a load / atomic result
  ExecutionDependency,  // waiting for an arithmetic result
  PipeBusy,             // the unit it needs is still busy (throughput)
  Barrier,              // waiting at a CTA barrier
  AsyncWait,            // cp.async.wait_group, an mbarrier or another asynchronous completion
  Idle,                 // no resident warps on this scheduler
  kCount
};

inline const char* to_string(Stall s) {
  switch (s) {
    case Stall::MemoryDependency:
      return "memory_dependency";
    case Stall::ExecutionDependency:
      return "execution_dependency";
    case Stall::PipeBusy:
      return "pipe_busy";
    case Stall::Barrier:
      return "barrier";
    case Stall::AsyncWait:
      return "async_wait";
    case Stall::Idle:
      return "idle";
    case Stall::kCount:
      break;
  }
  return "?";
}

inline constexpr std::uint32_t kNoPc = ~std::uint32_t{0};

// One warp (wave) instruction issued on scheduler `sub` (AMD: SIMD) of `sm` (AMD: CU).
struct IssueEvent {
  int sm = 0, sub = 0;
  int warp = 0;           // the warp's slot on its SM
  std::uint64_t cta = 0;  // linear CTA (workgroup) id
  std::uint32_t pc = 0;
  isa::Unit unit = isa::Unit::Nop;
  int lanes = 0;            // active threads
  double flops = 0;         // floating-point operations it performs (FMA = 2)
  double issue_cycles = 0;  // cycles its pipe is busy
  double cycle = 0;         // when it issued
};

// A scheduler issued nothing from `from` for `cycles` cycles because of `why`. `warp`/`pc`: the
// warp it waited for (the one that could issue first) and that warp's next instruction; -1 and
// kNoPc when no warp was resident or the model does not know.
struct StallEvent {
  int sm = 0, sub = 0;
  Stall why = Stall::Idle;
  double from = 0, cycles = 0;
  int warp = -1;
  std::uint32_t pc = kNoPc;
};

// One memory instruction's access as the memory model served it.
struct MemAccessEvent {
  int sm = 0, warp = 0;
  std::uint32_t pc = 0;
  mem::Level level = mem::Level::L1;  // where it was sent first: L1 (global/local) or Shared
  bool write = false, atomic = false;
  int lanes = 0;
  std::uint32_t bytes = 0;  // bytes the active lanes asked for
  std::uint32_t units = 0;  // what it took: sectors (NVIDIA global), L1 lines (AMD vector), wavefronts (shared/LDS)
  double issue = 0, done = 0;
};

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_issue(const IssueEvent&) {}
  virtual void on_stall(const StallEvent&) {}
  virtual void on_memory_access(const MemAccessEvent&) {}
  virtual void on_cta(int sm, std::uint64_t cta, double start, double end) {}
  // `warps` warps were resident on `sm` from `from` to `to` (for achieved occupancy).
  virtual void on_residency(int sm, int warps, double from, double to) {}
  // The memory system's counters for the whole kernel: in a sampled run the timed part's,
  // multiplied by `scale`, what the timed part stands for (a slice's 1/share of the chip, and the
  // work extrapolated over the work timed), so that they mean the same in every mode and on every
  // part; a view scales its own counts of memory accesses by the same factor. The busy cycles are
  // the timed part's (utilisations over the detailed window).
  virtual void on_memory(const mem::MemCounters& counters, double dram_busy_cycles, double l2_busy_cycles,
                         double scale) {}
  // The detailed window lasted `cycles` (models whose schedulers issue several instructions per
  // cycle report it, as stall and issue counts do not add up to it).
  virtual void on_window(double cycles) {}
};

// Several views on one run: forwards every event to each, in order.
class ListenerSet final : public Listener {
 public:
  void add(Listener& l) { all_.push_back(&l); }
  void on_issue(const IssueEvent& e) override {
    for (auto* l : all_) l->on_issue(e);
  }
  void on_stall(const StallEvent& e) override {
    for (auto* l : all_) l->on_stall(e);
  }
  void on_memory_access(const MemAccessEvent& e) override {
    for (auto* l : all_) l->on_memory_access(e);
  }
  void on_cta(int sm, std::uint64_t cta, double start, double end) override {
    for (auto* l : all_) l->on_cta(sm, cta, start, end);
  }
  void on_residency(int sm, int warps, double from, double to) override {
    for (auto* l : all_) l->on_residency(sm, warps, from, to);
  }
  void on_memory(const mem::MemCounters& c, double d, double l2, double scale) override {
    for (auto* l : all_) l->on_memory(c, d, l2, scale);
  }
  void on_window(double cycles) override {
    for (auto* l : all_) l->on_window(cycles);
  }

 private:
  std::vector<Listener*> all_;
};

}  // namespace kernsim::sim
