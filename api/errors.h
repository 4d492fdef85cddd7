// kernsim::api errors — the error type every api/ call throws, re-exported for the drivers (the
// CLI, the Python package), which include only api/: kernsim::Error carries an ErrorKind, and
// exit_code() maps the kind to the CLI's exit status (2 usage, 3 bad input, 4 parse/compile,
// 5 unsupported, 6 kernel fault, 70 internal).
#pragma once

#include "base/error.h"

namespace kernsim::api {

using kernsim::Error;
using kernsim::ErrorKind;
using kernsim::exit_code;
using kernsim::to_string;

}  // namespace kernsim::api
