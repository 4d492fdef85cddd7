// kernsim::api devices — loading the device a launch runs on, for the drivers (the CLI, the
// Python package), which include only api/. The device file format and its loader are
// device/'s (device/loader.h gives the contract); this header re-exports the loader's public
// functions and adds load_device(), the CLI's --arch / --device rule with strings.
#pragma once

#include <string>

#include "device/device_spec.h"
#include "device/loader.h"

namespace kernsim::api {

using device::Confidence;
using device::DeviceSpec;
using device::SchemaRow;

using device::builtin_device_names;
using device::device_schema;
using device::load_builtin_device;
using device::load_device_file;
using device::resolve_device;
using device::value_as_yaml;

// The device named like the CLI's --arch (h200, sm_90a, ...) or --device FILE (when `file` is
// not empty).
DeviceSpec load_device(const std::string& arch, const std::string& file);

}  // namespace kernsim::api
