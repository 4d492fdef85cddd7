// Measurement JSON, evidence formulas, and the parameter -> evidence table; see calibration_evidence.h.
#include "api/calibration_evidence.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <sstream>

#include "base/error.h"
#include "base/files.h"
#include "device/loader.h"

namespace kernsim::api {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr unsigned kNv = kEvidenceNvidia, kAmd = kEvidenceAmd, kBoth = kNv | kAmd;

// clang-format off
// Every parameter the calibrator fits, with its evidence. Names are the results of the runners
// (calibration/microbenchmarks/README.md lists what each measures). `launches` are the results
// whose spec replays the parameter moves, and the Jacobian's sparsity: a parameter is perturbed
// only for these launches ("*": for every launch, which costs a simulation of every launch per
// iteration). The clock and the launch overhead move every launch, but their direct evidence
// pins them (the clock is a measurement of the parameter itself), so they are tied to the launches
// that measure them alone; the other parameters then adapt to them from one iteration to the next.
// Limits are physical sense only (a pipe accepts at most one instruction per issue slot; a
// sustained fraction of peak bandwidth is at most 1); the calibrator adds +-range of the base.
const std::vector<EvidenceRow> kTable = {
  // param                               vendors  direct formula                                              launches moved                                     lower                    upper  why
  {"clocks.core_mhz",                      kBoth, {"clock.sm_mhz_measured"},                                   {},                                                {"1"}, {""}, "SM clock under load (d clock64 / d globaltimer)"},
  {"launch.overhead_us",                   kBoth, {"launch.empty_event_queued_us"},                            {"launch.empty_event_queued_us", "launch.one_block_event_queued_us"}, {""}, {""}, "event time of an empty launch queued behind work"},
  {"launch.cta_dispatch_cycles",           kBoth, {"launch.cta_ns_per_block * clock.sm_mhz_measured / 1000"},  {"launch.empty_grid_1056x32_us", "launch.empty_grid_8448x32_us"}, {""}, {""}, "slope of empty-grid time over CTAs, in SM cycles"},
  {"sm.block_launch_cycles",               kNv,   {"launch.cta_interval_cycles_per_sm"},                       {"launch.cta_interval_cycles_per_sm"},             {""}, {""}, "gap between CTA starts on one SM"},
  {"cu.block_launch_cycles",               kAmd,  {"launch.cta_interval_cycles_per_sm"},                       {"launch.cta_interval_cycles_per_sm"},             {""}, {""}, "gap between workgroup starts on one CU"},

  {"pipes.int_alu.issue_cycles",           kBoth, {"issue.lop3"},                                              {"issue.lop3", "issue.iadd_lop"},                  {"1 / $sm.issue_per_cycle"}, {""}, "independent LOP3 / v_xor chains, one full wave"},
  {"pipes.int_alu.latency_cycles",         kBoth, {"latency.lop3"},                                            {"latency.lop3", "latency.iadd_lop"},              {"1"}, {""}, "dependent LOP3 / v_xor chain"},
  {"pipes.int_mul.issue_cycles",           kBoth, {"issue.imad"},                                              {"issue.imad"},                                    {"1 / $sm.issue_per_cycle"}, {""}, "independent IMAD / v_mad_u32_u24 chains"},
  {"pipes.int_mul.latency_cycles",         kBoth, {"latency.imad"},                                            {"latency.imad"},                                  {"1"}, {""}, "dependent IMAD chain"},
  {"pipes.fp32.issue_cycles",              kBoth, {"issue.ffma"},                                              {"issue.ffma", "issue.fadd"},                      {"1 / $sm.issue_per_cycle"}, {""}, "independent FFMA chains"},
  {"pipes.fp32.latency_cycles",            kBoth, {"latency.ffma"},                                            {"latency.ffma", "latency.fadd"},                  {"1"}, {""}, "dependent FFMA chain"},
  {"pipes.fp16.issue_cycles",              kBoth, {"issue.hfma2"},                                             {"issue.hfma2"},                                   {"1 / $sm.issue_per_cycle"}, {""}, "independent packed-half FMA chains"},
  {"pipes.fp16.latency_cycles",            kBoth, {"latency.hfma2"},                                           {"latency.hfma2"},                                 {"1"}, {""}, "dependent packed-half FMA chain"},
  {"pipes.fp64.issue_cycles",              kBoth, {"issue.dfma"},                                              {"issue.dfma"},                                    {"1 / $sm.issue_per_cycle"}, {""}, "independent DFMA chains"},
  {"pipes.fp64.latency_cycles",            kBoth, {"latency.dfma"},                                            {"latency.dfma"},                                  {"1"}, {""}, "dependent DFMA chain"},
  {"pipes.sfu.issue_cycles",               kBoth, {"issue.mufu_ex2"},                                          {"issue.mufu_ex2", "issue.mufu_rsq"},              {"1 / $sm.issue_per_cycle"}, {""}, "independent ex2 chains (MUFU / v_exp_f32)"},
  {"pipes.sfu.latency_cycles",             kBoth, {"latency.mufu_ex2"},                                        {"latency.mufu_ex2", "latency.mufu_rsq"},          {"1"}, {""}, "dependent ex2 chain"},
  {"pipes.convert.issue_cycles",           kBoth, {"issue.cvt"},                                               {"issue.cvt"},                                     {"1 / $sm.issue_per_cycle"}, {""}, "independent f32<->s32 conversion chains"},
  {"pipes.convert.latency_cycles",         kBoth, {"latency.cvt"},                                             {"latency.cvt"},                                   {"1"}, {""}, "dependent f32->s32->f32 chain, per conversion"},
  {"pipes.tensor_f16.issue_cycles",        kBoth, {"issue.mma_f16"},                                           {"issue.mma_f16", "issue.mma_bf16"},               {"1 / $sm.issue_per_cycle"}, {""}, "independent f16 matrix instructions"},
  {"pipes.tensor_f16.latency_cycles",      kBoth, {"latency.mma_f16"},                                         {"latency.mma_f16", "latency.mma_bf16"},           {"1"}, {""}, "dependent f16 matrix chain (accumulator)"},
  {"pipes.tensor_tf32.issue_cycles",       kBoth, {"issue.mma_tf32"},                                          {"issue.mma_tf32"},                                {"1 / $sm.issue_per_cycle"}, {""}, "independent tf32/xf32 matrix instructions"},
  {"pipes.tensor_tf32.latency_cycles",     kBoth, {"latency.mma_tf32"},                                        {"latency.mma_tf32"},                              {"1"}, {""}, "dependent tf32/xf32 matrix chain"},
  {"pipes.tensor_i8.issue_cycles",         kBoth, {"issue.mma_s8"},                                            {"issue.mma_s8"},                                  {"1 / $sm.issue_per_cycle"}, {""}, "independent int8 matrix instructions"},
  {"pipes.tensor_i8.latency_cycles",       kBoth, {"latency.mma_s8"},                                          {"latency.mma_s8"},                                {"1"}, {""}, "dependent int8 matrix chain"},
  {"pipes.tensor_fp8.issue_cycles",        kBoth, {"issue.mma_e4m3"},                                          {"issue.mma_e4m3"},                                {"1 / $sm.issue_per_cycle"}, {""}, "independent fp8 matrix instructions (sm_90: emulated)"},
  {"pipes.tensor_fp8.latency_cycles",      kBoth, {"latency.mma_e4m3"},                                        {"latency.mma_e4m3"},                              {"1"}, {""}, "dependent fp8 matrix chain"},
  {"pipes.tensor_f64.issue_cycles",        kBoth, {"issue.dmma_f64"},                                          {"issue.dmma_f64"},                                {"1 / $sm.issue_per_cycle"}, {""}, "independent f64 matrix instructions"},
  {"pipes.tensor_f64.latency_cycles",      kBoth, {"latency.dmma_f64"},                                        {"latency.dmma_f64"},                              {"1"}, {""}, "dependent f64 matrix chain"},

  {"shared.latency_cycles",                kBoth, {"latency.smem"},                                            {"latency.smem", "smem.bank_lat_s1"},              {"1"}, {""}, "dependent shared/LDS load chain, one thread"},
  {"shared.conflict_latency_cycles",       kBoth, {"(smem.bank_lat_s32 - smem.bank_lat_s1) / (smem.bank_lat_s32:conflict_ways - 1)"},
                                                                                                              {"smem.bank_lat_s2", "smem.bank_lat_s4", "smem.bank_lat_s8", "smem.bank_lat_s16", "smem.bank_lat_s32"}, {""}, {""}, "extra latency per conflicting wavefront (one warp, strided)"},
  {"shared.bytes_per_cycle",               kBoth, {"smem.bank_tput_s1:bytes_per_clk_per_sm"},                  {"smem.bank_tput_s1", "smem.bank_tput_s2", "smem.bank_tput_s8", "smem.bank_tput_s32"}, {""}, {""}, "conflict-free shared/LDS loads, all warps"},
  {"l1.hit_latency_cycles",                kBoth, {"latency.l1_hit"},                                          {"latency.l1_hit", "latency.l1_idx"},              {"1"}, {""}, "pointer chase, 32 KiB footprint"},
  {"l1.bytes_per_cycle",                   kBoth, {"bandwidth.l1_read:bytes_per_clk_per_sm"},                  {"bandwidth.l1_read"},                             {""}, {""}, "every block re-reads an L1-resident footprint"},
  {"l2.hit_latency_cycles",                kBoth, {"latency.l2_hit"},                                          {"latency.l2_hit", "latency.chase_1m"},            {"1"}, {""}, "pointer chase, L2-resident footprint"},
  {"l2.far_hit_latency_cycles",            kNv,   {"latency.chase_56m"},                                       {"latency.l2_far"},                                {"1"}, {""}, "pointer chase beyond the near L2 partition"},
  {"l2.bytes_per_cycle",                   kBoth, {"bandwidth.l2_read * 1000 / clock.sm_mhz_measured"},        {"bandwidth.l2_read_2m"},                          {""}, {""}, "all SMs read an L2-resident footprint, L1 bypassed"},
  {"l2.atomic_latency_cycles",             kBoth, {"latency.atomic_global"},                                   {"latency.atomic_global"},                         {"1"}, {""}, "dependent atom.add chain, one thread"},
  {"l2.atomic_same_address_cycles",        kBoth, {"clock.sm_mhz_measured / 1000 / atomic.global_u32_1addr"},  {"atomic.global_u32_1addr"},                       {""}, {""}, "integer atomics, every thread on one address"},
  {"l2.atomic_float_same_address_cycles",  kBoth, {"clock.sm_mhz_measured / 1000 / atomic.global_f32_1addr"},  {"atomic.global_f32_1addr"},                       {""}, {""}, "float atomics, every thread on one address"},
  {"l2.atomic_ops_per_cycle",              kBoth, {""},                                                        {"atomic.global_u32_32addr", "atomic.global_u32_1024addr"}, {""}, {""}, "integer atomics spread over 32 / 1024 addresses"},
  {"mall.hit_latency_cycles",              kAmd,  {"latency.mall_hit"},                                        {"latency.mall_hit"},                              {"1"}, {""}, "pointer chase beyond L2, within the Infinity Cache"},
  {"dram.latency_cycles",                  kBoth, {"latency.hbm"},                                             {"latency.hbm_idx"},                               {"1"}, {""}, "pointer chase, 256 MiB footprint, cold"},
  {"dram.read_efficiency",                 kBoth, {"bandwidth.hbm_read / $dram.bandwidth_gbps"},               {"bandwidth.hbm_read"},                            {""}, {"1"}, "streaming read, fraction of peak"},
  {"dram.write_efficiency",                kBoth, {"bandwidth.hbm_write / $dram.bandwidth_gbps"},              {"bandwidth.hbm_write"},                           {""}, {"1"}, "streaming write, fraction of peak"},
  {"dram.copy_efficiency",                 kBoth, {"bandwidth.hbm_copy / $dram.bandwidth_gbps"},               {"bandwidth.hbm_copy"},                            {""}, {"1"}, "copy (read + write bytes), fraction of peak"},
};
// clang-format on

// ---- formulas ----

struct Parser {
  const std::string& s;
  std::size_t i = 0;
  const Measurement* m;
  const device::DeviceSpec* dev;
  std::string missing;
  std::vector<std::string>* names = nullptr;  // collect result names instead of evaluating

  [[noreturn]] void fail(const std::string& msg) const {
    throw Error(ErrorKind::Internal, "evidence formula `" + s + "` at " + std::to_string(i) + ": " + msg);
  }
  void ws() { while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i; }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) { ++i; return true; }
    return false;
  }
  std::optional<double> expr() {
    auto v = term();
    for (;;) {
      if (eat('+')) { auto w = term(); v = v && w ? std::optional(*v + *w) : std::nullopt; }
      else if (eat('-')) { auto w = term(); v = v && w ? std::optional(*v - *w) : std::nullopt; }
      else return v;
    }
  }
  std::optional<double> term() {
    auto v = factor();
    for (;;) {
      if (eat('*')) { auto w = factor(); v = v && w ? std::optional(*v * *w) : std::nullopt; }
      else if (eat('/')) {
        auto w = factor();
        v = v && w && *w != 0 ? std::optional(*v / *w) : std::nullopt;
        if (w && *w == 0 && missing.empty()) missing = "a nonzero divisor";
      } else return v;
    }
  }
  std::string ident() {
    std::size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.')) ++i;
    if (b == i) fail("expected a name");
    return s.substr(b, i - b);
  }
  std::optional<double> factor() {
    ws();
    if (i >= s.size()) fail("unexpected end");
    if (s[i] == '(') {
      ++i;
      auto v = expr();
      if (!eat(')')) fail("expected )");
      return v;
    }
    if (s[i] == '-') { ++i; auto v = factor(); return v ? std::optional(-*v) : std::nullopt; }
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::size_t used = 0;
      double v = std::stod(s.substr(i), &used);
      i += used;
      return v;
    }
    if (s[i] == '$') {
      ++i;
      std::string key = ident();
      if (names || !dev) return names ? std::optional(1.0) : std::nullopt;
      // The SM (NVIDIA) and CU (AMD) share one section: `$sm.x` reads `cu.x` on an AMD part.
      if (!device::is_schema_key(*dev, key) && (key.starts_with("sm.") || key.starts_with("cu.")))
        key = (key.starts_with("sm.") ? "cu." : "sm.") + key.substr(3);
      return device::get_number(*dev, key);
    }
    std::string name = ident();
    std::string param;
    if (i < s.size() && s[i] == ':') { ++i; param = ident(); }
    if (names) { names->push_back(name); return 1.0; }
    const MeasuredResult* r = nullptr;
    if (m) {
      auto it = m->results.find(name);
      if (it != m->results.end()) r = &it->second;
    }
    if (!r) {
      if (missing.empty()) missing = name;
      return std::nullopt;
    }
    if (param.empty()) return r->value;
    auto p = r->params.find(param);
    if (p == r->params.end()) {
      if (missing.empty()) missing = name + ":" + param;
      return std::nullopt;
    }
    return p->second;
  }
  std::optional<double> run() {
    auto v = expr();
    ws();
    if (i != s.size()) fail("unexpected `" + s.substr(i) + "`");
    return v;
  }
};

[[noreturn]] void bad(const fs::path& file, const std::string& where, const std::string& msg) {
  throw Error(ErrorKind::Io, file.string() + ": " + (where.empty() ? "" : "`" + where + "`: ") + msg);
}

}  // namespace

std::optional<double> Formula::eval(const Measurement* m, const device::DeviceSpec* dev, std::string* missing) const {
  if (text.empty()) return std::nullopt;
  Parser p{text, 0, m, dev, {}, nullptr};
  auto v = p.run();
  if (missing) *missing = p.missing;
  if (v && !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::vector<std::string> Formula::result_names() const {
  std::vector<std::string> out;
  if (text.empty()) return out;
  Parser p{text, 0, nullptr, nullptr, {}, &out};
  p.run();
  return out;
}

const std::vector<EvidenceRow>& evidence_table() { return kTable; }

const EvidenceRow* find_evidence(const std::string& param, device::Vendor v) {
  const unsigned bit = v == device::Vendor::Nvidia ? kNv : kAmd;
  for (const auto& r : kTable)
    if (r.param == param && (r.vendors & bit)) return &r;
  return nullptr;
}

std::vector<std::string> measured_results_of(const std::string& notes) {
  std::vector<std::string> out;
  auto p = notes.find("measures=");
  if (p == std::string::npos) return out;
  auto word = [&](std::size_t at) {
    std::size_t e = at;
    while (e < notes.size() && (std::isalnum(static_cast<unsigned char>(notes[e])) || notes[e] == '_' || notes[e] == '.')) ++e;
    return notes.substr(at, e - at);
  };
  std::string a = word(p + 9);
  if (!a.empty()) out.push_back(a);
  std::size_t q = p + 9 + a.size();
  if (notes.compare(q, 4, " (= ") == 0) {
    std::string b = word(q + 4);
    if (!b.empty()) out.push_back(b);
  }
  return out;
}

Measurement read_measurement(const fs::path& file) {
  std::string text = read_file(file, "measurement JSON");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(ErrorKind::Io, file.string() + ":" + line_column(text, e.byte) + ": malformed JSON: " + e.what());
  }
  Measurement m;
  m.file = file;
  if (!j.is_object()) bad(file, "", "a measurement must be a JSON object with a `results` list");
  if (!j.contains("results") || !j["results"].is_array())
    bad(file, "results", "missing or not a list (expected the format of calibration/microbenchmarks/run_cuda.py)");
  if (j.contains("device") && j["device"].is_object() && j["device"].contains("name") && j["device"]["name"].is_string())
    m.device_name = j["device"]["name"].get<std::string>();
  if (j.contains("specs") && j["specs"].is_object() && j["specs"].contains("dir") && j["specs"]["dir"].is_string())
    m.specs_dir = j["specs"]["dir"].get<std::string>();
  if (j.contains("created_utc") && j["created_utc"].is_string()) m.created = j["created_utc"].get<std::string>();
  const json& rs = j["results"];
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const std::string where = "results[" + std::to_string(i) + "]";
    const json& r = rs[i];
    if (!r.is_object()) bad(file, where, "expected an object {name, value, unit, params}");
    if (!r.contains("name") || !r["name"].is_string()) bad(file, where + ".name", "missing or not a string");
    const std::string name = r["name"].get<std::string>();
    if (!r.contains("value") || r["value"].is_null()) continue;  // a failed benchmark: no evidence
    if (!r["value"].is_number()) bad(file, where + ".value", "`" + name + "`: not a number");
    MeasuredResult mr;
    mr.value = r["value"].get<double>();
    if (r.contains("unit") && r["unit"].is_string()) mr.unit = r["unit"].get<std::string>();
    if (r.contains("params") && r["params"].is_object())
      for (const auto& [k, v] : r["params"].items())
        if (v.is_number()) mr.params[k] = v.get<double>();
    if (m.results.count(name)) bad(file, where + ".name", "`" + name + "` appears twice");
    m.results[name] = std::move(mr);
  }
  if (m.results.empty()) bad(file, "results", "no result has a value");
  return m;
}

}  // namespace kernsim::api
