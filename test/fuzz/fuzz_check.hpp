// SPDX-License-Identifier: Apache-2.0
// How a fuzz target reports a broken property: an exception that names the property. Under
// libFuzzer it escapes LLVMFuzzerTestOneInput, so the process aborts and the input is saved as
// a crash; the corpus replay test (unit_fuzz_corpus_replay) catches it and fails on that file.
#pragma once

#include <stdexcept>
#include <string>

namespace zkcoord::fuzz {

struct property_violation : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] inline void violated(const char* file, int line, const std::string& what) {
  throw property_violation(std::string(file) + ":" + std::to_string(line) + ": " + what);
}

}  // namespace zkcoord::fuzz

/// Checks a property of the code under test; `what` is a std::string expression describing it.
#define ZKCOORD_FUZZ_CHECK(condition, what)                                  \
  do {                                                                       \
    if (!(condition)) ::zkcoord::fuzz::violated(__FILE__, __LINE__, (what)); \
  } while (false)
