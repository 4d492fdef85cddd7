// kernsim::api files — the file helpers the drivers use (base/files.h), re-exported for the CLI,
// which includes only api/: atomic writes (write to a temporary, then rename) and kernsim's data
// directory (device files, calibration data; KERNSIM_DATA_DIR overrides).
#pragma once

#include "base/files.h"

namespace kernsim::api {

using kernsim::data_dir;
using kernsim::write_file_atomic;

}  // namespace kernsim::api
