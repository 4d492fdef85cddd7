// What a measurement says about a device file's parameters: the measurement JSON, formulas over
// its results, and the one table that ties each parameter to its evidence.
//
// A measurement is the JSON the microbenchmark runners write (calibration/microbenchmarks/
// run_cuda.py, and the HIP runner): `results` is a list of {name, value, unit, params}. Two kinds
// of evidence come from it:
//  - direct: a formula over results gives the parameter's value (`latency.l1_hit` cycles is
//    l1.hit_latency_cycles);
//  - launch replays: `spec.<id>` is the measured time of the launch spec <id>; the calibrator
//    simulates that spec with the current parameters. The table lists, per parameter, the
//    results whose spec replays the parameter moves (a spec names its result in `notes` as
//    `measures=<result>`); that list is also the Jacobian's sparsity.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "device/device_spec.h"

namespace kernsim::api {

struct MeasuredResult {
  double value = 0;
  std::string unit;
  std::map<std::string, double> params;  // the numeric entries of `params`
};

struct Measurement {
  std::filesystem::path file;
  std::string device_name;   // `device.name`, when present
  std::string specs_dir;     // `specs.dir` (relative to calibration/microbenchmarks), when present
  std::string created;       // `created_utc`, when present
  std::map<std::string, MeasuredResult> results;  // by name; results without a value are left out
};

// Errors name the file and, for malformed JSON, line and column; for a bad entry, `results[i]`.
Measurement read_measurement(const std::filesystem::path& file);

// A formula over measured results and device values: numbers, + - * / ( ), `result.name`,
// `result.name:param` (a numeric entry of the result's `params`), `$device.key` (a value of the
// base device). Evaluation yields nullopt when a name is missing and says which in `missing`.
struct Formula {
  std::string text;
  std::optional<double> eval(const Measurement* m, const device::DeviceSpec* dev, std::string* missing = nullptr) const;
  std::vector<std::string> result_names() const;  // the measured results it reads
};

struct EvidenceRow {
  std::string param;                  // device key, e.g. l1.hit_latency_cycles
  unsigned vendors;                   // kEvidenceNvidia | kEvidenceAmd
  Formula direct;                     // the parameter's measured value ("" = none)
  std::vector<std::string> launches;  // results whose spec replays this parameter moves; "*" = all
  Formula lower, upper;               // physical limits ("" = none), may read $device values
  std::string why;                    // one line: what the evidence is
};
inline constexpr unsigned kEvidenceNvidia = 1, kEvidenceAmd = 2;

// The table, in the order the calibrator prints it.
const std::vector<EvidenceRow>& evidence_table();
const EvidenceRow* find_evidence(const std::string& param, device::Vendor v);

// The results a spec's `notes` names: `measures=A (= B)` -> {A, B}.
std::vector<std::string> measured_results_of(const std::string& notes);

}  // namespace kernsim::api
