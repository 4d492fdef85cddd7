// kernsim::api::fit_fast — fits the fast tier's coefficients (device file `fast.*`) to measured
// launches.
//
// Runs every launch of the given sets (a directory of launch specs and the CSV of their measured
// times, as `kernsim validate` reads them) through the fast tier once, keeps each sample's profile
// from its report, and solves for the three coefficients of cost_model/fast_model.h with the
// bounded Levenberg-Marquardt solver (bounded_lsq.h, Eigen) on the residuals
// log(predicted / measured), the model re-evaluated from the profiles (no new samples). Fit only
// to measured hardware data; keep the sets a table is quoted on out of the fit.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "device/device_spec.h"

namespace kernsim::api {

struct FastFitSet {
  std::filesystem::path specs, measured;
};

struct FastFitRow {
  std::string id;
  double measured_us = 0, start_us = 0, fitted_us = 0;
};

struct FastFitResult {
  device::FastTier start, fitted;
  std::vector<FastFitRow> rows;
  std::vector<std::string> skipped;  // "id: why" for launches the fast tier could not run
  double start_mape = 0, fitted_mape = 0;
  int iterations = 0;
  std::string stop_reason;
};

// `dev` is the part to fit for (its own fast.* are ignored: the fit starts from a fixed point).
FastFitResult fit_fast(const std::vector<FastFitSet>& sets, const device::DeviceSpec& dev, int threads);

std::string to_text(const FastFitResult& r);
// The device-file lines (`fast:` section) with their provenance.
std::string fitted_fast_yaml(const FastFitResult& r, const std::vector<FastFitSet>& sets);

}  // namespace kernsim::api
