// kernsim::cost — the fast tier's report: the detailed tier's JSON shape (report.h) filled from
// the analytical prediction, with "tier": "fast", the model's terms under "fast", and no
// per-instruction stall counts (the fast tier has no scheduler to stall).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cost_model/fast_model.h"
#include "cost_model/report.h"

namespace kernsim::cost {

nlohmann::json fast_report_json(const LaunchFacts& f, const FastPrediction& r, const KernelProfile& p,
                                const LaunchGeometry& g, const device::DeviceSpec& dev);
std::string fast_report_text(const nlohmann::json& j);

// The profile and geometry as the report's "fast"."profile" holds them, and back: the fitter
// (`kernsim fit-fast`) re-predicts from a report with other coefficients.
nlohmann::json profile_to_json(const KernelProfile& p, const LaunchGeometry& g);
void profile_from_json(const nlohmann::json& j, KernelProfile& p, LaunchGeometry& g);

}  // namespace kernsim::cost
