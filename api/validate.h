// kernsim::api::validate — predicted against measured times for a directory of launch specs.
//
// Reads every *.json launch spec under a directory, a CSV of measured times (`id,median_us`,
// more columns allowed; or a microbenchmark measurement JSON, whose `spec.<id>` results are the
// measured times of the launch specs), runs each launch on one device and reports per-launch error, MAPE per
// family and overall, Spearman rank correlation and pairwise ordering accuracy (overall and
// within ladders: specs whose `notes` say `ladder=NAME`). This is the command every accuracy
// figure in the docs is quoted from.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "api/run.h"
#include "device/device_spec.h"

namespace kernsim::api {

struct ValidationRow {
  std::string id, family, ladder;
  double measured_us = 0, predicted_us = 0, error = 0;  // error = (pred - meas) / meas
  std::string failure;                                  // non-empty when the launch could not run
  std::string bottleneck;                               // the report's
  std::string fast_report;  // the fast tier's whole report (its profile: `kernsim fit-fast`)
  double sim_seconds = 0;
  double cpu_seconds = 0;  // CPU time of the thread that ran the launch (in this process: no process start)
  bool extrapolated = false;
};

struct ValidationSummary {
  std::vector<ValidationRow> rows;
  double mape = 0, spearman = 0, pairwise = 0, ladder_pairwise = 0;
  int ladder_pairs = 0, ladder_pairs_right = 0;
  std::vector<std::pair<std::string, double>> family_mape;
  std::vector<std::string> ladder_misses;  // "ladder: a predicted faster than b"
  double median_sim_seconds = 0, max_sim_seconds = 0;
  Tier tier = Tier::Detailed;
};

// wall_time_limit_s: per launch, as `kernsim run --time-limit` (0: none; a negative value: the
// default, api::kDefaultWallTimeLimitS).
ValidationSummary validate(const std::filesystem::path& dir, const std::filesystem::path& measured_csv,
                           const device::DeviceSpec& dev, int threads, const std::string& only = "",
                           Tier tier = Tier::Detailed, double wall_time_limit_s = -1);

std::string to_text(const ValidationSummary& s);
std::string to_json(const ValidationSummary& s, const std::string& arch);

}  // namespace kernsim::api
