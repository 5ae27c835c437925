// SPDX-License-Identifier: Apache-2.0
// The orchestrator's readable timeline: one line per event, stamped with the time since the
// run started, naming who did it.
#pragma once

#include <chrono>
#include <string_view>

namespace examples {

class timeline {
 public:
  timeline() : start_(std::chrono::steady_clock::now()) {}
  /// "[  1.234s] worker 03  text"
  void print(std::string_view who, std::string_view text) const;
  std::chrono::steady_clock::duration elapsed() const {
    return std::chrono::steady_clock::now() - start_;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace examples
