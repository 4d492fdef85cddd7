// kernsim::api::add_error_band — the expected error of a prediction, as a band around it.
//
// calibration/error_bands/<part>.json (written by calibration/validation/error_bands.py, never by
// hand) holds, per tier and per bottleneck class, two quantiles of measured / predicted over the
// part's validation launches. A report whose part, tier and bottleneck class have a band gets
// "error_band": [T * lo, T * hi] (T its time_us) and "error_band_source" (the class the band was
// learned from, how many launches, the quantiles, the file). Without a file for the part, or a
// tier in it, "error_band" is null and "error_band_source" says why: never an invented band.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kernsim::api {

// Adds the band to a launch report `report` (reads its time_us and bottleneck) for `part` (the
// device's name) and `tier` ("detailed" or "fast"). A band file that exists but is malformed
// throws Error(DeviceFile) naming the file and the key.
void add_error_band(nlohmann::json& report, const std::string& part, const std::string& tier);

// The one-line text form of a report's band ("" when it has none), for the text report.
std::string error_band_text(const nlohmann::json& report);

}  // namespace kernsim::api
