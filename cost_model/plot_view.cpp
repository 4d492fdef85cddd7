// The roofline and timeline SVGs of plot_view.h. Plain SVG 1.1 text, no script, deterministic.
#include "cost_model/plot_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace kernsim::cost {
namespace {

// the plot area inside an 800 x 500 picture
constexpr double kW = 800, kH = 500, kX0 = 90, kX1 = 770, kY0 = 40, kY1 = 440;

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string si(double v, const char* unit) {  // 4.8e12, "B/s" -> "4.80 TB/s"
  const char* p[] = {"", "K", "M", "G", "T", "P"};
  int k = 0;
  while (std::fabs(v) >= 1000 && k < 5) {
    v /= 1000;
    ++k;
  }
  char b[48];
  std::snprintf(b, sizeof b, "%.2f %s%s", v, p[k], unit);
  return b;
}

// log10 axis from lo to hi (powers of ten) onto pixels [a, b]
struct LogAxis {
  double lo, hi, a, b;
  double at(double v) const {
    return a + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (b - a);
  }
};

std::string header(const char* kind, const std::string& attrs) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kW) + "\" height=\"" + num(kH) +
         "\" viewBox=\"0 0 " + num(kW) + " " + num(kH) + "\" font-family=\"sans-serif\" font-size=\"11\" data-kind=\"" +
         kind + "\" data-x0=\"" + num(kX0) + "\" data-x1=\"" + num(kX1) + "\" data-y0=\"" + num(kY0) + "\" data-y1=\"" +
         num(kY1) + "\"" + attrs + ">\n" + "<rect x=\"0\" y=\"0\" width=\"" + num(kW) + "\" height=\"" + num(kH) +
         "\" fill=\"white\"/>\n";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start", const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" + esc(s) +
         "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" " + attrs +
         "/>\n";
}

std::string titled_line(double x1, double y1, double x2, double y2, const std::string& attrs,
                        const std::string& title) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" " + attrs +
         "><title>" + esc(title) + "</title></line>\n";
}

// decade grid lines and labels of a log axis
std::string log_grid(const LogAxis& ax, bool horizontal_axis, const char* unit) {
  std::string o;
  for (double v = ax.lo; v <= ax.hi * 1.0001; v *= 10) {
    const double p = ax.at(v);
    if (horizontal_axis) {
      o += line(p, kY0, p, kY1, "stroke=\"#ddd\"");
      o += text(p, kY1 + 14, si(v, unit), "middle");
    } else {
      o += line(kX0, p, kX1, p, "stroke=\"#ddd\"");
      o += text(kX0 - 4, p + 4, si(v, unit), "end");
    }
  }
  return o;
}

double decade_floor(double v) {
  return std::pow(10.0, std::floor(std::log10(v)));
}
double decade_ceil(double v) {
  return std::pow(10.0, std::ceil(std::log10(v)));
}

double clock_hz(double mhz) {
  return mhz * 1e6;
}

}  // namespace

std::vector<Roof> memory_roofs(const device::DeviceSpec& dev) {
  std::vector<Roof> r;
  const double core = clock_hz(dev.clocks.core_mhz);
  const double l2_clock = clock_hz(dev.clocks.l2_mhz > 0 ? dev.clocks.l2_mhz : dev.clocks.core_mhz);
  if (dev.l1.bytes_per_cycle > 0)
    r.push_back({"L1", dev.l1.bytes_per_cycle * static_cast<double>(dev.sm.count) * core,
                 "l1.bytes_per_cycle " + num(dev.l1.bytes_per_cycle) + " x sm.count " + std::to_string(dev.sm.count) +
                     " x " + num(dev.clocks.core_mhz) + " MHz"});
  if (dev.l2.bytes_per_cycle > 0)
    r.push_back(
        {"L2", dev.l2.bytes_per_cycle * static_cast<double>(std::max<std::int64_t>(1, dev.l2.instances)) * l2_clock,
         "l2.bytes_per_cycle " + num(dev.l2.bytes_per_cycle) + " x l2.instances " +
             std::to_string(std::max<std::int64_t>(1, dev.l2.instances)) + " x " + num(l2_clock / 1e6) + " MHz"});
  if (dev.dram.bandwidth_gbps > 0)
    r.push_back({"HBM", dev.dram.bandwidth_gbps * 1e9, "dram.bandwidth_gbps " + num(dev.dram.bandwidth_gbps)});
  return r;
}

std::vector<Roof> compute_roofs(const device::DeviceSpec& dev) {
  std::vector<Roof> r;
  const double units = static_cast<double>(dev.sm.count * dev.sm.sub_partitions);
  const double core = clock_hz(dev.clocks.core_mhz);
  if (dev.pipes.fp32.issue_cycles > 0)  // an FMA per lane per issue: 2 FLOP
    r.push_back({"FP32", units * static_cast<double>(dev.sm.warp_size) / dev.pipes.fp32.issue_cycles * 2 * core,
                 "sm.count x sm.sub_partitions x warp_size / pipes.fp32.issue_cycles " +
                     num(dev.pipes.fp32.issue_cycles) + " x 2 x " + num(dev.clocks.core_mhz) + " MHz"});
  // one dense f16 matrix instruction per pipes.tensor_f16.issue_cycles: mma.sync m16n8k16 (2*16*8*16
  // FLOP) on NVIDIA, v_mfma 16x16x16 (2*16*16*16) on AMD; wgmma's engine where the part has one
  double tensor = 0;
  std::string how;
  if (dev.pipes.tensor_f16.issue_cycles > 0) {
    const double flop = dev.vendor == device::Vendor::Amd ? 2.0 * 16 * 16 * 16 : 2.0 * 16 * 8 * 16;
    tensor = units * flop / dev.pipes.tensor_f16.issue_cycles * core;
    how = "pipes.tensor_f16.issue_cycles " + num(dev.pipes.tensor_f16.issue_cycles);
  }
  const double wg_clock = clock_hz(dev.clocks.wgmma_mhz > 0 ? dev.clocks.wgmma_mhz : dev.clocks.core_mhz);
  if (dev.sm.wgmma_flops_per_cycle_f16 * static_cast<double>(dev.sm.count) * wg_clock > tensor) {
    tensor = dev.sm.wgmma_flops_per_cycle_f16 * static_cast<double>(dev.sm.count) * wg_clock;
    how = "sm.wgmma_flops_per_cycle_f16 " + num(dev.sm.wgmma_flops_per_cycle_f16) + " x sm.count x " +
          num(wg_clock / 1e6) + " MHz";
  }
  if (dev.tcgen05.mma_flops_per_cycle_f16 * static_cast<double>(dev.sm.count) * core > tensor) {
    tensor = dev.tcgen05.mma_flops_per_cycle_f16 * static_cast<double>(dev.sm.count) * core;
    how = "tcgen05.mma_flops_per_cycle_f16 " + num(dev.tcgen05.mma_flops_per_cycle_f16) + " x sm.count";
  }
  if (tensor > 0) r.push_back({"tensor f16", tensor, how});
  return r;
}

std::string roofline_svg(const nlohmann::json& report, const device::DeviceSpec& dev) {
  const auto mem = memory_roofs(dev);
  const auto comp = compute_roofs(dev);
  const nlohmann::json& sol = report.at("speed_of_light");
  const double flops = sol.value("flops_per_s", 0.0), bytes = sol.value("dram_bytes_per_s", 0.0);
  const double top =
      comp.empty() ? 1e15
                   : std::max_element(comp.begin(), comp.end(), [](auto& a, auto& b) { return a.peak < b.peak; })->peak;
  const double intensity = bytes > 0 ? flops / bytes : 0;
  double xlo = 1e-2, xhi = 1e4, yhi = decade_ceil(top * 1.5), ylo = yhi / 1e6;
  if (intensity > 0) xlo = std::min(xlo, decade_floor(intensity)), xhi = std::max(xhi, decade_ceil(intensity * 1.01));
  if (flops > 0) ylo = std::min(ylo, decade_floor(flops));
  const LogAxis X{xlo, xhi, kX0, kX1}, Y{ylo, yhi, kY1, kY0};
  std::string o = header("roofline", " data-xmin=\"" + num(xlo) + "\" data-xmax=\"" + num(xhi) + "\" data-ymin=\"" +
                                         num(ylo) + "\" data-ymax=\"" + num(yhi) + "\"");
  o += text(kW / 2, 20, report.value("kernel", "") + " on " + report.value("arch", "") + ": roofline", "middle",
            " font-size=\"13\"");
  o += log_grid(X, true, "") + log_grid(Y, false, "FLOP/s");
  o += text((kX0 + kX1) / 2, kH - 18, "arithmetic intensity (FLOP per DRAM byte)", "middle");
  o += "<rect x=\"" + num(kX0) + "\" y=\"" + num(kY0) + "\" width=\"" + num(kX1 - kX0) + "\" height=\"" +
       num(kY1 - kY0) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  const char* colours[] = {"#1f77b4", "#2ca02c", "#d62728"};
  for (std::size_t i = 0; i < mem.size(); ++i) {  // slanted: B x I, up to the highest compute roof
    const Roof& m = mem[i];
    const double xa = std::max(xlo, ylo / m.peak), xb = std::min(xhi, top / m.peak);
    if (xa >= xb) continue;
    o += titled_line(X.at(xa), Y.at(m.peak * xa), X.at(xb), Y.at(m.peak * xb),
                     "class=\"roof memory\" data-name=\"" + m.name + "\" data-peak=\"" + num(m.peak) + "\" stroke=\"" +
                         colours[i % 3] + "\" stroke-width=\"1.5\"",
                     m.derivation);
    o += text(X.at(xa) + 4, Y.at(m.peak * xa) - 4, m.name + " " + si(m.peak, "B/s"), "start",
              (" fill=\"" + std::string(colours[i % 3]) + "\"").c_str());
  }
  for (const Roof& c : comp) {
    o += titled_line(kX0, Y.at(c.peak), kX1, Y.at(c.peak),
                     "class=\"roof compute\" data-name=\"" + c.name + "\" data-peak=\"" + num(c.peak) +
                         "\" stroke=\"#555\" stroke-dasharray=\"6 3\"",
                     c.derivation);
    o += text(kX1 - 4, Y.at(c.peak) - 4, c.name + " " + si(c.peak, "FLOP/s"), "end");
  }
  if (flops > 0 && intensity > 0) {
    const double cx = X.at(intensity), cy = Y.at(flops);
    o += "<circle id=\"launch\" cx=\"" + num(cx) + "\" cy=\"" + num(cy) +
         "\" r=\"5\" fill=\"#ff7f0e\" stroke=\"black\" data-intensity=\"" + num(intensity) + "\" data-flops-per-s=\"" +
         num(flops) + "\"/>\n";
    o += text(cx + 8, cy + 4, si(flops, "FLOP/s") + " at " + num(intensity) + " FLOP/B");
  } else {
    o += text(kX0 + 10, kY1 - 10,
              flops <= 0 ? "no floating-point operations counted: the launch has no point on the roofline"
                         : "no DRAM traffic: the launch's intensity is unbounded",
              "start", " id=\"launch-missing\"");
  }
  return o + "</svg>\n";
}

void TimelineView::on_cta(int sm, std::uint64_t cta, double start, double end) {
  ctas_.push_back({sm, cta, start, end});
}

std::string TimelineView::svg(const nlohmann::json& report, int slots_per_sm) const {
  std::set<int> sms;
  double t_end = 0;
  for (const Cta& c : ctas_) {
    sms.insert(c.sm);
    t_end = std::max(t_end, c.end);
  }
  const double us = clock_mhz_ > 0 ? 1.0 / clock_mhz_ : 1.0;  // microseconds per cycle
  const double span = std::max(t_end, 1.0);
  std::map<int, int> row;
  for (int s : sms) row.emplace(s, static_cast<int>(row.size()));
  const int capacity = static_cast<int>(sms.size()) * std::max(1, slots_per_sm);
  // resident CTAs over time: +1 at each start, -1 at each end (ends first at a tie)
  std::vector<std::pair<double, int>> ev;
  for (const Cta& c : ctas_) ev.push_back({c.start, +1}), ev.push_back({c.end, -1});
  std::sort(ev.begin(), ev.end());
  int level = 0, peak = 0;
  const double top0 = kY0, top1 = 300, bot0 = 330, bot1 = kY1;  // the two panels
  auto tx = [&](double cyc) { return kX0 + cyc / span * (kX1 - kX0); };
  auto ly = [&](int n) { return bot1 - static_cast<double>(n) / std::max(1, std::max(capacity, 1)) * (bot1 - bot0); };
  std::string steps = num(tx(0)) + "," + num(ly(0));
  for (const auto& [t, d] : ev) {
    steps += " " + num(tx(t)) + "," + num(ly(level));
    level += d;
    peak = std::max(peak, level);
    steps += " " + num(tx(t)) + "," + num(ly(level));
  }
  std::string o = header("timeline", " data-ctas=\"" + std::to_string(ctas_.size()) + "\" data-sms=\"" +
                                         std::to_string(sms.size()) + "\" data-capacity=\"" + std::to_string(capacity) +
                                         "\" data-max-resident=\"" + std::to_string(peak) + "\" data-t-end-us=\"" +
                                         num(t_end * us) + "\"");
  const nlohmann::json samp = report.value("sampling", nlohmann::json::object());
  o += text(kW / 2, 20,
            report.value("kernel", "") + " on " + report.value("arch", "") + ": CTAs over time (" +
                std::to_string(sms.size()) + " SMs modelled, " + std::to_string(ctas_.size()) + " CTAs timed of " +
                std::to_string(samp.value("ctas", 0)) + ")",
            "middle", " font-size=\"13\"");
  const double h = (top1 - top0) / std::max<std::size_t>(1, sms.size());
  std::size_t drawn = 0;
  for (const Cta& c : ctas_) {
    if (drawn++ >= 20000) break;  // a bounded picture; data-ctas still counts them all
    o += "<rect class=\"cta\" x=\"" + num(tx(c.start)) + "\" y=\"" + num(top0 + row[c.sm] * h) + "\" width=\"" +
         num(std::max(0.5, tx(c.end) - tx(c.start))) + "\" height=\"" + num(std::max(0.5, h * 0.9)) + "\" fill=\"" +
         (c.id % 2 ? "#1f77b4" : "#6baed6") + "\"><title>CTA " + std::to_string(c.id) + " on SM " +
         std::to_string(c.sm) + ": " + num(c.start * us) + "-" + num(c.end * us) + " us</title></rect>\n";
  }
  o += text(kX0 - 4, (top0 + top1) / 2, "SM", "end");
  o += line(kX0, ly(capacity), kX1, ly(capacity), "class=\"capacity\" stroke=\"#d62728\" stroke-dasharray=\"6 3\"");
  o += text(kX1, ly(capacity) - 4,
            "slots: " + std::to_string(capacity) + " (" + std::to_string(slots_per_sm) + " per SM)", "end");
  o += "<polyline class=\"resident\" fill=\"none\" stroke=\"black\" points=\"" + steps + "\"/>\n";
  o += text(kX0 - 4, (bot0 + bot1) / 2, "resident", "end");
  for (int k = 0; k <= 4; ++k) {
    const double t = span * k / 4;
    o += text(tx(t), kY1 + 14, num(t * us) + " us", "middle");
  }
  o += text((kX0 + kX1) / 2, kH - 18, "time in the timed window (us at " + num(clock_mhz_) + " MHz)", "middle");
  return o + "</svg>\n";
}

}  // namespace kernsim::cost
