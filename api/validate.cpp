// Validation against measured times; see validate.h.
#include "api/validate.h"

#include <nlohmann/json.hpp>

#include <ctime>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "api/calibration_evidence.h"
#include "api/launch_spec.h"
#include "api/run.h"
#include "base/error.h"
#include "base/files.h"

namespace kernsim::api {
namespace fs = std::filesystem;

namespace {

std::map<std::string, double> read_measured(const fs::path& csv) {
  if (csv.extension() == ".json") {  // a microbenchmark measurement: its `spec.<id>` launch replays
    std::map<std::string, double> out;
    for (const auto& [name, r] : read_measurement(csv).results)
      if (name.starts_with("spec.")) out[name.substr(5)] = r.value;
    return out;
  }
  std::string text = read_file(csv, "measured-times CSV");
  std::map<std::string, double> out;
  std::stringstream ss(text);
  std::string line;
  int id_col = -1, us_col = -1, lineno = 0;
  while (std::getline(ss, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ls(line);
    std::string c;
    while (std::getline(ls, c, ',')) cols.push_back(c);
    if (id_col < 0) {
      for (std::size_t i = 0; i < cols.size(); ++i) {
        if (cols[i] == "id") id_col = static_cast<int>(i);
        if (cols[i] == "median_us") us_col = static_cast<int>(i);
      }
      if (id_col < 0 || us_col < 0)
        throw Error(ErrorKind::Io, csv.string() + ":1: the header must name the columns `id` and `median_us`");
      continue;
    }
    if (static_cast<int>(cols.size()) <= std::max(id_col, us_col))
      throw Error(ErrorKind::Io, csv.string() + ":" + std::to_string(lineno) + ": too few columns");
    try {
      out[cols[static_cast<std::size_t>(id_col)]] = std::stod(cols[static_cast<std::size_t>(us_col)]);
    } catch (const std::exception&) {
      throw Error(ErrorKind::Io, csv.string() + ":" + std::to_string(lineno) + ": `median_us` is not a number");
    }
  }
  return out;
}

std::string ladder_of(const std::string& notes) {
  auto p = notes.find("ladder=");
  if (p == std::string::npos) return "";
  auto e = notes.find_first_of("; ", p);
  return notes.substr(p + 7, e == std::string::npos ? std::string::npos : e - p - 7);
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = (static_cast<double>(i + j) / 2.0) + 1;
    i = j + 1;
  }
  return r;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) { ma += a[i]; mb += b[i]; }
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace

ValidationSummary validate(const fs::path& dir, const fs::path& csv, const device::DeviceSpec& dev, int threads,
                           const std::string& only, Tier tier, double wall_time_limit_s) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ErrorKind::Io, "validation directory not found: " + dir.string());
  auto measured = read_measured(csv);
  std::vector<fs::path> specs;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".json") specs.push_back(e.path());
  std::sort(specs.begin(), specs.end());
  struct Job { LaunchSpec spec; double meas; };
  std::vector<Job> jobs;
  for (const auto& p : specs) {
    LaunchSpec s = parse_launch_spec(p);
    std::string id = s.id.empty() ? p.stem().string() : s.id;
    if (!only.empty() && id.find(only) == std::string::npos) continue;
    auto it = measured.find(id);
    if (it == measured.end()) continue;  // no measurement: not part of the validation set
    s.id = id;
    jobs.push_back({std::move(s), it->second});
  }
  if (jobs.empty()) throw Error(ErrorKind::Io, "no launch spec under " + dir.string() + " has a measured time in " + csv.string());
  ValidationSummary sum;
  sum.tier = tier;
  sum.rows.resize(jobs.size());
  tbb::task_arena arena(std::max(1, threads));
  arena.execute([&] {
    tbb::parallel_for(std::size_t{0}, jobs.size(), [&](std::size_t i) {
      ValidationRow& r = sum.rows[i];
      const Job& j = jobs[i];
      r.id = j.spec.id;
      r.family = j.spec.family;
      r.ladder = ladder_of(j.spec.notes);
      r.measured_us = j.meas;
      auto t0 = std::chrono::steady_clock::now();
      timespec c0{}, c1{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
      try {
        RunOptions ro;
        ro.tier = tier;
        if (wall_time_limit_s >= 0) ro.wall_time_limit_s = wall_time_limit_s;
        RunResult rr = run_launch(j.spec, dev, ro);
        r.predicted_us = rr.time_us;
        if (tier == Tier::Fast) r.fast_report = rr.report_json;
        if (const auto b = rr.report_json.find("\"bottleneck\": \""); b != std::string::npos) {
          const std::size_t from = b + 15;
          r.bottleneck = rr.report_json.substr(from, rr.report_json.find('"', from) - from);
        }
        r.error = (rr.time_us - j.meas) / j.meas;
        r.extrapolated = rr.report_json.find("\"extrapolated\": true") != std::string::npos;
      } catch (const Error& e) {
        r.failure = std::string(to_string(e.kind())) + ": " + e.what();
      }
      r.sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
      r.cpu_seconds = static_cast<double>(c1.tv_sec - c0.tv_sec) + 1e-9 * static_cast<double>(c1.tv_nsec - c0.tv_nsec);
    });
  });
  // statistics over the launches that ran
  std::vector<const ValidationRow*> ok;
  for (const auto& r : sum.rows)
    if (r.failure.empty()) ok.push_back(&r);
  if (!ok.empty()) {
    double ape = 0;
    std::map<std::string, std::pair<double, int>> fam;
    std::vector<double> m, p, secs;
    for (const auto* r : ok) {
      ape += std::fabs(r->error);
      auto& f = fam[r->family.empty() ? "(none)" : r->family];
      f.first += std::fabs(r->error);
      ++f.second;
      m.push_back(r->measured_us);
      p.push_back(r->predicted_us);
      secs.push_back(r->sim_seconds);
    }
    sum.mape = ape / static_cast<double>(ok.size());
    for (const auto& [k, v] : fam) sum.family_mape.push_back({k, v.first / v.second});
    sum.spearman = pearson(ranks(m), ranks(p));
    int pairs = 0, right = 0;
    for (std::size_t a = 0; a < ok.size(); ++a)
      for (std::size_t b = a + 1; b < ok.size(); ++b) {
        if (ok[a]->measured_us == ok[b]->measured_us) continue;
        ++pairs;
        right += (ok[a]->measured_us < ok[b]->measured_us) == (ok[a]->predicted_us < ok[b]->predicted_us);
        if (!ok[a]->ladder.empty() && ok[a]->ladder == ok[b]->ladder) {
          ++sum.ladder_pairs;
          bool good = (ok[a]->measured_us < ok[b]->measured_us) == (ok[a]->predicted_us < ok[b]->predicted_us);
          sum.ladder_pairs_right += good;
          if (!good) {
            const auto* fast = ok[a]->measured_us < ok[b]->measured_us ? ok[a] : ok[b];
            const auto* slow = fast == ok[a] ? ok[b] : ok[a];
            sum.ladder_misses.push_back(ok[a]->ladder + ": " + slow->id + " predicted faster than " + fast->id);
          }
        }
      }
    sum.pairwise = pairs ? static_cast<double>(right) / pairs : 1;
    sum.ladder_pairwise = sum.ladder_pairs ? static_cast<double>(sum.ladder_pairs_right) / sum.ladder_pairs : 1;
    std::sort(secs.begin(), secs.end());
    sum.median_sim_seconds = secs[secs.size() / 2];
    sum.max_sim_seconds = secs.back();
  }
  return sum;
}

std::string to_text(const ValidationSummary& s) {
  std::ostringstream o;
  char b[512];
  std::snprintf(b, sizeof b, "%-36s %-12s %12s %12s %8s %7s\n", "id", "family", "measured_us", "predicted_us", "error", "sim_s");
  o << b;
  for (const auto& r : s.rows) {
    if (!r.failure.empty()) {
      std::snprintf(b, sizeof b, "%-36s %-12s %12.2f %12s %8s %7.2f  FAILED: %.200s\n", r.id.c_str(), r.family.c_str(), r.measured_us,
                    "-", "-", r.sim_seconds, r.failure.c_str());
    } else {
      std::snprintf(b, sizeof b, "%-36s %-12s %12.2f %12.2f %+7.1f%% %7.2f%s\n", r.id.c_str(), r.family.c_str(), r.measured_us,
                    r.predicted_us, 100 * r.error, r.sim_seconds, r.extrapolated ? "" : "  (full)");
    }
    o << b;
  }
  o << "\nper family MAPE:\n";
  for (const auto& [f, m] : s.family_mape) {
    std::snprintf(b, sizeof b, "  %-14s %6.1f%%\n", f.c_str(), 100 * m);
    o << b;
  }
  std::snprintf(b, sizeof b,
                "\noverall: MAPE %.1f%%, Spearman %.3f, pairwise ordering %.1f%%, within ladders %d/%d (%.1f%%)\n"
                "simulation time per launch: median %.2f s, max %.2f s\n",
                100 * s.mape, s.spearman, 100 * s.pairwise, s.ladder_pairs_right, s.ladder_pairs, 100 * s.ladder_pairwise,
                s.median_sim_seconds, s.max_sim_seconds);
  o << b;
  for (const auto& m : s.ladder_misses) o << "  ladder miss: " << m << "\n";
  return o.str();
}

std::string to_json(const ValidationSummary& s, const std::string& arch) {
  nlohmann::json j;
  j["arch"] = arch;
  j["tier"] = to_string(s.tier);
  j["mape"] = s.mape;
  j["spearman"] = s.spearman;
  j["pairwise"] = s.pairwise;
  j["ladder_pairwise"] = s.ladder_pairwise;
  j["ladder_pairs"] = s.ladder_pairs;
  j["median_sim_seconds"] = s.median_sim_seconds;
  j["max_sim_seconds"] = s.max_sim_seconds;
  for (const auto& [f, m] : s.family_mape) j["family_mape"][f] = m;
  for (const auto& r : s.rows) {
    nlohmann::json x = {{"id", r.id}, {"family", r.family}, {"ladder", r.ladder}, {"measured_us", r.measured_us},
                        {"sim_seconds", r.sim_seconds}, {"cpu_seconds", r.cpu_seconds}};
    if (r.failure.empty()) {
      x["predicted_us"] = r.predicted_us;
      x["error"] = r.error;
      x["extrapolated"] = r.extrapolated;
      x["bottleneck"] = r.bottleneck;
    } else {
      x["failure"] = r.failure;
    }
    j["launches"].push_back(x);
  }
  j["ladder_misses"] = s.ladder_misses;
  return j.dump(1);
}

}  // namespace kernsim::api
