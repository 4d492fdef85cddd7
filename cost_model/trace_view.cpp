// The Chrome/Perfetto trace view; see trace_view.h.
#include "cost_model/trace_view.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <set>
#include <tuple>
#include <utility>

#include "base/error.h"

namespace kernsim::cost {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kCtaTid0 = 1000;     // CTA slot k is thread kCtaTid0 + k, after the schedulers
constexpr int kCounterTid = -1;    // counters belong to the process; sorted first
constexpr double kEps = 1e-9;

// Perfetto reads a JSON timestamp in microseconds and rounds it to a nanosecond, so each time is
// written as a whole number of nanoseconds: the end of one slice and the start of the next are
// the same number, and rounding never makes a thread's slices overlap.
std::int64_t to_ns(double cycles, double mhz) { return std::llround(cycles / mhz * 1000.0); }

// Nanoseconds as microseconds, no trailing zeros: 12345 -> "12.345", 2000 -> "2", 0 -> "0".
std::string us(std::int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string json_string(const std::string& s) { return json(s).dump(); }

}  // namespace

TraceView::TraceView(TraceOptions o) : o_(std::move(o)) {
  if (!(o_.clock_mhz > 0) || !(o_.issue_slot_cycles > 0))
    throw Error(ErrorKind::Internal, "kernsim bug: TraceView needs the core clock and the issue slot (both > 0)");
}

TraceView::Run& TraceView::run(int sm, int sub) {
  if (static_cast<std::size_t>(sm) >= runs_.size()) runs_.resize(static_cast<std::size_t>(sm) + 1);
  auto& subs = runs_[static_cast<std::size_t>(sm)];
  if (static_cast<std::size_t>(sub) >= subs.size()) subs.resize(static_cast<std::size_t>(sub) + 1);
  return subs[static_cast<std::size_t>(sub)];
}

void TraceView::record(const Event& e) {
  if (events_.size() >= o_.max_events) {
    if (!dropped_ || e.from < dropped_from_) dropped_from_ = e.from;
    ++dropped_;
    return;
  }
  events_.push_back(e);
}

void TraceView::close_run(int sm, int sub) {
  Run& r = run(sm, sub);
  if (!r.open) return;
  r.open = false;
  record(r.e);
}

void TraceView::on_issue(const sim::IssueEvent& e) {
  const double slot = o_.issue_slot_cycles;
  Run& r = run(e.sm, e.sub);
  if (r.open && e.cycle <= r.e.from + r.e.cycles + kEps) {  // back to back: the run goes on
    r.e.cycles = std::max(r.e.cycles, e.cycle + slot - r.e.from);
    r.e.last_pc = e.pc;
    ++r.e.count;
    return;
  }
  close_run(e.sm, e.sub);
  r.open = true;
  r.e = Event{};
  r.e.kind = Kind::Issue;
  r.e.sm = e.sm;
  r.e.tid = e.sub;
  r.e.from = e.cycle;
  r.e.cycles = slot;
  r.e.pc = r.e.last_pc = e.pc;
  r.e.count = 1;
  r.e.warp = e.warp;
  r.e.cta = e.cta;
}

void TraceView::on_stall(const sim::StallEvent& e) {
  Run& r = run(e.sm, e.sub);
  if (r.open && r.e.from + r.e.cycles > e.from)  // the stall starts where the run's last slot ends
    r.e.cycles = std::max(0.0, e.from - r.e.from);
  close_run(e.sm, e.sub);
  if (!(e.cycles > 0)) return;
  Event s;
  s.kind = Kind::Stall;
  s.sm = e.sm;
  s.tid = e.sub;
  s.from = e.from;
  s.cycles = e.cycles;
  s.why = e.why;
  s.warp = e.warp;
  s.pc = e.pc;
  record(s);
}

void TraceView::on_cta(int sm, std::uint64_t cta, double start, double end) {
  Event c;
  c.kind = Kind::Cta;
  c.sm = sm;
  c.from = start;
  c.cycles = std::max(0.0, end - start);
  c.cta = cta;
  record(c);
}

void TraceView::on_residency(int sm, int warps, double from, double to) {
  if (static_cast<std::size_t>(sm) >= residency_.size()) residency_.resize(static_cast<std::size_t>(sm) + 1);
  Residency& r = residency_[static_cast<std::size_t>(sm)];
  auto sample = [&](double at, int n) {
    Event c;
    c.kind = Kind::Warps;
    c.sm = sm;
    c.tid = kCounterTid;
    c.from = at;
    c.count = static_cast<std::uint64_t>(n);
    record(c);
  };
  const bool gap = r.until < 0 || from > r.until + kEps;
  if (gap && r.until >= 0) sample(r.until, 0);  // nothing resident in between
  if (gap || warps != r.warps) sample(from, warps);
  r.until = to;
  r.warps = warps;
}

std::string TraceView::inst_op(std::uint32_t pc) const {
  if (o_.listing && pc < o_.listing->size() && !(*o_.listing)[pc].op.empty()) return (*o_.listing)[pc].op;
  return "pc " + std::to_string(pc);
}

std::string TraceView::inst_text(std::uint32_t pc) const {
  return o_.listing && pc < o_.listing->size() ? (*o_.listing)[pc].text : std::string();
}

void TraceView::write(std::ostream& out, const json& other) {
  for (std::size_t sm = 0; sm < runs_.size(); ++sm)
    for (std::size_t sub = 0; sub < runs_[sm].size(); ++sub) close_run(static_cast<int>(sm), static_cast<int>(sub));
  for (std::size_t sm = 0; sm < residency_.size(); ++sm) {
    Residency& r = residency_[sm];
    if (r.until < 0) continue;
    Event c;
    c.kind = Kind::Warps;
    c.sm = static_cast<int>(sm);
    c.tid = kCounterTid;
    c.from = r.until;
    record(c);
    r.until = -1;
  }

  // CTAs onto slots: in start order, each to the lowest slot free by then
  std::vector<std::size_t> ctas;
  for (std::size_t i = 0; i < events_.size(); ++i)
    if (events_[i].kind == Kind::Cta) ctas.push_back(i);
  std::stable_sort(ctas.begin(), ctas.end(), [&](std::size_t a, std::size_t b) {
    const Event &x = events_[a], &y = events_[b];
    return std::tie(x.sm, x.from, x.cta) < std::tie(y.sm, y.from, y.cta);
  });
  std::vector<double> slot_end;
  int slot_sm = -1;
  for (std::size_t i : ctas) {
    Event& c = events_[i];
    if (c.sm != slot_sm) {
      slot_sm = c.sm;
      slot_end.clear();
    }
    std::size_t k = 0;
    while (k < slot_end.size() && slot_end[k] > c.from + kEps) ++k;
    if (k == slot_end.size()) slot_end.push_back(0);
    slot_end[k] = c.from + c.cycles;
    c.tid = kCtaTid0 + static_cast<int>(k);
  }

  std::stable_sort(events_.begin(), events_.end(),
                   [](const Event& a, const Event& b) { return std::tie(a.sm, a.tid, a.from) < std::tie(b.sm, b.tid, b.from); });
  // a thread's slices never overlap (Perfetto would nest them): a slice ends where the next begins
  for (std::size_t i = 1; i < events_.size(); ++i) {
    Event &p = events_[i - 1], &e = events_[i];
    if (p.sm == e.sm && p.tid == e.tid && e.kind != Kind::Warps && p.from + p.cycles > e.from)
      p.cycles = std::max(0.0, e.from - p.from);
  }

  const double mhz = o_.clock_mhz;  // cycles per microsecond
  json od = other.is_object() ? other : json::object();
  od["clock_mhz"] = mhz;
  od["events"] = events_.size();
  od["max_events"] = o_.max_events;
  od["truncated"] = dropped_ > 0;
  if (dropped_) od["dropped_events"] = dropped_;
  if (o_.listing) {  // the instructions by PC, for the slices' `pc` arguments
    json insts = json::array();
    for (const InstText& t : *o_.listing) insts.push_back(t.text);
    od["instructions"] = std::move(insts);
  }
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << od.dump() << ",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& line) {
    out << (first ? "" : ",\n") << line;
    first = false;
  };

  // names: a process per SM, a thread per scheduler and per CTA slot
  std::set<int> sms;
  std::set<std::pair<int, int>> threads;
  for (const Event& e : events_) {
    sms.insert(e.sm);
    if (e.tid != kCounterTid) threads.insert({e.sm, e.tid});
  }
  for (int sm : sms) {
    const std::string p = "\"pid\":" + std::to_string(sm) + ",\"tid\":0";
    emit("{\"ph\":\"M\",\"name\":\"process_name\"," + p + ",\"args\":{\"name\":" + json_string(o_.unit + " " + std::to_string(sm)) + "}}");
    emit("{\"ph\":\"M\",\"name\":\"process_sort_index\"," + p + ",\"args\":{\"sort_index\":" + std::to_string(sm) + "}}");
  }
  for (const auto& [sm, tid] : threads) {
    const std::string name = tid >= kCtaTid0 ? o_.cta + " slot " + std::to_string(tid - kCtaTid0) : o_.scheduler + " " + std::to_string(tid);
    const std::string p = "\"pid\":" + std::to_string(sm) + ",\"tid\":" + std::to_string(tid);
    emit("{\"ph\":\"M\",\"name\":\"thread_name\"," + p + ",\"args\":{\"name\":" + json_string(name) + "}}");
    emit("{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + p + ",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}");
  }

  std::string line;
  for (const Event& e : events_) {
    const std::string ids = "\"pid\":" + std::to_string(e.sm) + ",\"tid\":" + std::to_string(e.tid == kCounterTid ? 0 : e.tid);
    const std::int64_t start = to_ns(e.from, mhz);
    const std::string ts = "\"ts\":" + us(start);
    const std::string slice = ts + ",\"dur\":" + us(to_ns(e.from + e.cycles, mhz) - start);
    switch (e.kind) {
      case Kind::Issue: {
        std::string name = inst_op(e.pc);
        if (e.count > 1) name += " +" + std::to_string(e.count - 1);
        line = "{\"ph\":\"X\",\"cat\":\"issue\",\"name\":" + json_string(name) + "," + ids + "," + slice +
               ",\"args\":{\"n\":" + std::to_string(e.count) + ",\"pc\":" + std::to_string(e.pc) +
               ",\"last_pc\":" + std::to_string(e.last_pc) + ",\"warp\":" + std::to_string(e.warp) +
               ",\"cta\":" + std::to_string(e.cta) + "}}";
        break;
      }
      case Kind::Stall:
        line = "{\"ph\":\"X\",\"cat\":\"stall\",\"name\":" + json_string(sim::to_string(e.why)) + "," + ids + "," + slice +
               ",\"args\":{";
        if (e.warp >= 0) line += "\"warp\":" + std::to_string(e.warp) + ",";
        if (e.pc != sim::kNoPc) {
          line += "\"pc\":" + std::to_string(e.pc) + ",";
          if (o_.listing) line += "\"op\":" + json_string(inst_op(e.pc)) + ",";
        }
        line += "\"cycles\":" + std::to_string(std::llround(e.cycles)) + "}}";
        break;
      case Kind::Cta:
        line = "{\"ph\":\"X\",\"cat\":\"cta\",\"name\":" + json_string(o_.cta + " " + std::to_string(e.cta)) + "," + ids + "," +
               slice + ",\"args\":{\"cta\":" + std::to_string(e.cta) + ",\"cycles\":" + std::to_string(std::llround(e.cycles)) + "}}";
        break;
      case Kind::Warps:
        line = "{\"ph\":\"C\",\"name\":\"resident\"," + ids + "," + ts + ",\"args\":{\"warps\":" + std::to_string(e.count) + "}}";
        break;
    }
    emit(line);
  }
  if (dropped_)
    emit("{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"note\",\"name\":" +
         json_string("trace truncated: the cap of " + std::to_string(o_.max_events) + " events was reached; " + std::to_string(dropped_) +
                " later events dropped") +
         ",\"pid\":0,\"tid\":0,\"ts\":" + us(to_ns(dropped_from_, mhz)) + "}");
  out << "\n]}\n";
}

void TraceView::write_file(const fs::path& path, const json& other) {
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorKind::Io, "cannot write the trace file " + path.string() + ": " + std::strerror(errno));
    write(out, other);
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error(ErrorKind::Io, "short write to the trace file " + path.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot write the trace file " + path.string() + ": " + ec.message());
}

}  // namespace kernsim::cost
