// Loading device files into DeviceSpec: one typed loader for every part.
//
// Contract:
//  - every leaf is a mapping {value, source, confidence[, note][, residual]}; a bare number is an
//    error (no number without provenance);
//  - a key the schema does not know, a missing required key, a wrong type, an unknown confidence
//    or an undefined source key is an Error(DeviceFile) naming the file, the dotted key and line;
//  - `inherits: NAME` (a built-in device) or `inherits: path/to/file.yaml` (relative to the
//    file) loads the parent first and lets the child override single values: a what-if file
//    can be three lines long.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/device_spec.h"

namespace kernsim::device {

DeviceSpec load_device_file(const std::filesystem::path& file);
DeviceSpec load_builtin_device(std::string_view name);
std::vector<std::string> builtin_device_names();
std::filesystem::path builtin_device_dir();

// The CLI's rule: exactly one of --arch NAME / --device FILE. `arch` also accepts a few
// aliases (sm_90a -> h200, gfx942 -> mi300x, ...).
DeviceSpec resolve_device(const std::optional<std::string>& arch, const std::optional<std::string>& file);

// One row per schema key, for docs and `kernsim devices --schema`.
struct SchemaRow {
  std::string key;
  std::string type;
  std::string unit;
  std::string vendors;   // "nvidia", "amd" or "both"
  bool required = true;
  std::string description;
};
std::vector<SchemaRow> device_schema();

// Typed access to one value of a DeviceSpec by its dotted schema key (`l1.hit_latency_cycles`,
// `pipes.fp32.issue_cycles`), for calibration and the device-file writer. A key the schema does
// not know, or one of the other vendor, is an Error(Usage) naming it (with a suggestion).
bool is_schema_key(const DeviceSpec& d, std::string_view key);
bool is_integer_key(const DeviceSpec& d, std::string_view key);
double get_number(const DeviceSpec& d, std::string_view key);       // int and number keys
void set_number(DeviceSpec& d, std::string_view key, double value);  // int keys take whole values
std::string value_as_yaml(const DeviceSpec& d, std::string_view key);  // any type, YAML flow text

}  // namespace kernsim::device
