// kernsim::cost::PcView — the listener that attributes a run to its instructions: per PC, the
// warp instructions issued and the threads active in them, the scheduler cycles lost waiting for
// it by stall reason (a StallEvent is charged to the instruction the waited-for warp was to issue
// next), and its memory accesses (bytes, sectors or wavefronts, latency). It becomes the report's
// `by_pc` table, which an agent reads to find the instruction a kernel waits on.
//
// The counts are what the model timed: for a sampled launch, the detailed window only, not
// scaled to the whole kernel (the report says which in `by_pc_covers`).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cost_model/listing.h"
#include "sim/timing/listener.h"
#include "sim/timing/timing.h"

namespace kernsim::cost {

// The report's `by_line` as text: the first `top` rows, each with the line's source text when the
// file is readable ("" when the report has no `by_line` rows).
std::string by_line_text(const nlohmann::json& report, int top = 10);

class PcView : public sim::Listener {
 public:
  // `listing` (may be null) labels each PC with its text and line; it must outlive the view.
  explicit PcView(const Listing* listing = nullptr) : listing_(listing) {}

  void on_issue(const sim::IssueEvent& e) override;
  void on_stall(const sim::StallEvent& e) override;
  void on_memory_access(const sim::MemAccessEvent& e) override;

  // [{"pc", "inst", "line", "issued", "threads", "stall_cycles": {reason: cycles},
  //   "stall_cycles_total", "memory": {"l1"|"shared": {...}}}], sorted by PC, only instructions
  // that issued, were waited for or accessed memory. Reasons with no cycles are left out.
  nlohmann::json by_pc() const;
  // The same counts summed over the PCs of each source line (debug line info: PTX `.loc`):
  // [{"file", "line", "pcs", "issued", "threads", "stall_cycles": {reason: cycles},
  //   "stall_cycles_total", "cycles", "memory": {"l1": {"requests", "bytes", "sectors"},
  //   "shared": {"requests", "bytes", "wavefronts"}}}], where `cycles` = issued + stall cycles
  // (one scheduler slot per warp instruction, plus the cycles lost waiting for the line), sorted
  // by `cycles`, highest first (ties by file and line). Empty without a listing or line info.
  nlohmann::json by_line() const;
  // Stall cycles no instruction was waited for (no resident warp, or the model did not know).
  nlohmann::json stall_cycles_without_pc() const;
  // Adds `by_pc`, `by_line`, `by_pc_covers` and `stall_cycles_without_pc` to a report.
  void add_to(nlohmann::json& report, const sim::TimingResult& t) const;

 private:
  static constexpr int kStalls = static_cast<int>(sim::Stall::kCount);
  struct Mem {
    std::uint64_t accesses = 0, bytes = 0, units = 0;
    double latency = 0;  // sum of done - issue
  };
  struct Pc {
    std::uint64_t issued = 0, threads = 0;
    std::array<double, kStalls> stall{};
    Mem l1, shared;
    bool seen = false;
  };
  // pc's counters (every event of a timed instruction comes here: the common case inline)
  Pc& at(std::uint32_t pc) {
    if (pc >= pcs_.size()) [[unlikely]] grow(pc);
    Pc& p = pcs_[pc];
    p.seen = true;
    return p;
  }
  void grow(std::uint32_t pc);

  const Listing* listing_;
  std::vector<Pc> pcs_;
  std::array<double, kStalls> unattributed_{};
};

}  // namespace kernsim::cost
