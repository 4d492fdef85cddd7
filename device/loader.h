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

}  // namespace kernsim::device
