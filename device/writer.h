// Writing a DeviceSpec back to a device file.
//
// Contract: the text is a complete device file (no `inherits:`) in the schema's key order, with
// every value's source, confidence, note and residual; `load_device_file` reads it back to the
// same values and provenance. Sources are written as the `sources:` table the spec carries
// (merged over any inheritance chain). The calibrator writes fitted devices with it.
#pragma once

#include <string>

#include "device/device_spec.h"

namespace kernsim::device {

// `header` becomes comment lines at the top of the file (one `# ` per line).
std::string to_device_yaml(const DeviceSpec& d, const std::string& header = "");

// A YAML double-quoted scalar for any text (escapes quotes, backslashes, control characters).
std::string yaml_quote(const std::string& s);

}  // namespace kernsim::device
