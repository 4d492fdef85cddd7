// kernsim::api::calibrate — fit a device file's free parameters to a measurement.
//
// Evidence (see calibration_evidence.h): direct results that give one parameter's value, and
// launch-spec replays (`spec.<id>` measured times) that the calibrator simulates with the
// current parameters. Both become relative residuals, (value - measured) / measured, of one
// bounded least-squares problem over the chosen parameters (Levenberg-Marquardt with box
// constraints; the Jacobian of the launch residuals by forward finite differences, computed only
// for the launches the evidence table ties to each parameter). Bounds: the base value x
// (1 +- range), intersected with the table's physical limits.
//
// Deterministic: the same inputs give the same file, whatever the thread count (simulations are
// independent and deterministic; their results are gathered in a fixed order).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/calibration_evidence.h"
#include "device/device_spec.h"

namespace kernsim::api {

struct CalibrateOptions {
  std::vector<std::string> params;                 // empty: every parameter with evidence
  std::optional<std::filesystem::path> specs_dir;  // launch specs of the `spec.<id>` replays
  double range = 0.5;                              // bounds: base x (1 +- range)
  int max_iterations = 8;
  int threads = 1;
  bool launches = true;                            // false: direct evidence only, no simulation
  double step = 0.02;                              // finite-difference step, relative to the value
  std::string name;                                // `name:` of the fitted device (default: base-fitted)
  std::function<void(const std::string&)> progress;  // one line per stage and iteration (the CLI: stderr)
};

struct ParamFit {
  std::string key;
  double base = 0, fitted = 0, lower = 0, upper = 0;
  std::string direct_formula;
  std::optional<double> direct;            // the measured value the formula gives
  std::vector<std::string> launch_ids;     // the launches the parameter moves (explicitly tied)
  double residual_before = 0, residual_after = 0;  // RMS relative residual of its evidence
  bool at_bound = false;
  std::string base_source;                 // provenance of the base value ("MB_H200, measured")
};

struct LaunchFit {
  std::string id, result;                  // spec id and the result it measures
  double measured_us = 0, before_us = 0, after_us = 0;
};

struct CalibrationResult {
  std::string measurement_file, measurement_device, base_name;
  std::vector<ParamFit> params;
  std::vector<LaunchFit> launches;
  std::vector<std::string> notes;          // launches left out and why; warnings
  double rms_before = 0, rms_after = 0;    // over every residual
  int iterations = 0, simulations = 0;
  std::string stop_reason;
  device::DeviceSpec fitted;               // base with the fitted values and their provenance
};

CalibrationResult calibrate(const Measurement& m, const device::DeviceSpec& base, const CalibrateOptions& opts);

// The before/after tables.
std::string to_text(const CalibrationResult& r);
// The fitted device as a complete device file (inherits nothing).
std::string fitted_device_yaml(const CalibrationResult& r);

}  // namespace kernsim::api
