// kernsim::cost::TraceView — the listener that writes a run as a Chrome trace-event JSON file
// ({"traceEvents": [...], "displayTimeUnit": "ns"}), which ui.perfetto.dev and chrome://tracing
// open. One process per SM (CU), named "SM 12"; in it one thread per scheduler (SIMD) showing
// what it did over time — runs of issued instructions and the stalls between them, each stall
// named by its reason — and one thread per CTA slot showing the CTAs that ran there, plus a
// counter of resident warps. Timestamps are microseconds at the core clock the view is given,
// rounded to whole nanoseconds (Perfetto's resolution: a cycle of a 2 GHz part is 0 or 1 ns wide);
// each slice's arguments keep its PC, warp and CTA, and "otherData" the listing by PC.
//
// Consecutive issues of one scheduler, each starting by the time the last one's issue slot ends
// and with no stall between them, merge into one slice (named by
// the first instruction's mnemonic when a listing is given, "ld.global.f32 +5"), which keeps a
// trace a few times smaller than the instruction count. The trace is bounded: after
// `max_events` slices and counter samples the view records nothing more and the file ends with
// an instant event saying where it stopped. The output is deterministic: events are written
// sorted by SM, thread and time.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "cost_model/listing.h"
#include "sim/timing/listener.h"

namespace kernsim::cost {

struct TraceOptions {
  double clock_mhz = 0;                   // the core clock the events' cycles count (> 0)
  std::string unit = "SM";                // process names: "SM 3" (AMD: "CU")
  std::string scheduler = "scheduler";    // thread names: "scheduler 0" (AMD: "SIMD")
  std::string cta = "CTA";                // "CTA 17", "CTA slot 2" (AMD: "workgroup")
  double issue_slot_cycles = 1;           // how long one issue holds its scheduler (AMD: the SIMD's issue interval)
  std::size_t max_events = 2'000'000;     // slices and counter samples kept
  const Listing* listing = nullptr;       // names issue slices; must outlive the view
};

class TraceView : public sim::Listener {
 public:
  explicit TraceView(TraceOptions o);

  void on_issue(const sim::IssueEvent& e) override;
  void on_stall(const sim::StallEvent& e) override;
  void on_cta(int sm, std::uint64_t cta, double start, double end) override;
  void on_residency(int sm, int warps, double from, double to) override;

  // Ends the open issue runs and writes the trace; `other` goes to the file's "otherData"
  // (kernel, arch, what the window covers). Call once, after the run.
  void write(std::ostream& out, const nlohmann::json& other = nlohmann::json::object());
  // write() to `path` through a temporary file renamed into place; throws Error(Io) naming it.
  void write_file(const std::filesystem::path& path, const nlohmann::json& other = nlohmann::json::object());

  std::size_t events() const { return events_.size(); }  // slices and samples recorded so far
  bool truncated() const { return dropped_ > 0; }

 private:
  enum class Kind : std::uint8_t { Issue, Stall, Cta, Warps };
  struct Event {
    double from = 0, cycles = 0;   // core cycles
    int sm = 0, tid = 0;
    Kind kind = Kind::Issue;
    sim::Stall why = sim::Stall::Idle;
    std::uint32_t pc = sim::kNoPc, last_pc = sim::kNoPc;  // issue: first and last; stall: waited-for
    std::uint64_t count = 0;       // issue: instructions; warps: resident warps
    int warp = -1;
    std::uint64_t cta = 0;
  };
  struct Run {                     // a scheduler's open run of issues
    bool open = false;
    Event e;
  };

  void record(const Event& e);
  void close_run(int sm, int sub);
  Run& run(int sm, int sub);
  std::string inst_op(std::uint32_t pc) const;
  std::string inst_text(std::uint32_t pc) const;

  TraceOptions o_;
  std::vector<Event> events_;
  std::vector<std::vector<Run>> runs_;           // [sm][sub]
  struct Residency {
    double until = -1;             // end of the last interval reported; -1: none yet
    int warps = 0;                 // its resident warps
  };
  std::vector<Residency> residency_;             // [sm]
  std::uint64_t dropped_ = 0;
  double dropped_from_ = 0;                      // the earliest cycle of a dropped event
};

}  // namespace kernsim::cost
