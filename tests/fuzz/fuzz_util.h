// The rule every fuzz target applies: a kernsim::Error of a user-facing kind (the input was
// refused with a named error, exit 3/4/5) is the right answer to a bad input; anything else that
// escapes — an Internal error (exit 70), another exception, a signal, a sanitizer report, a
// timeout — is a finding, and abort() hands it to libFuzzer with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "base/error.h"

namespace kernsim::fuzz {

template <class F>
void expect_named_error_or_success(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) {
      std::fprintf(stderr, "fuzz: internal error: %s\n", e.what());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: exception other than kernsim::Error escaped: %s\n", e.what());
    std::abort();
  }
}

}  // namespace kernsim::fuzz
