// SPDX-License-Identifier: Apache-2.0
// What one case of container_lease_partition measured, printed as one machine-readable line
// that scripts/test-lease-matrix collects from the ctest log:
//   lease-case S=10 t=200 cut=follower recipe=lock run=1 lease_end-granted_ms=-812
//     lost-lease_end_ms=3 result=pass
// (one line). A figure the case did not reach (it failed before) is left out.
#pragma once

#include "container/lease_cases.hpp"

#include <chrono>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace zkcoord::test {

struct lease_figures {
  std::vector<std::pair<std::string, long long>> values;  ///< name, milliseconds
  void add(const std::string& name, std::chrono::steady_clock::duration d) {
    values.emplace_back(name, std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  }
  void add_ms(const std::string& name, long long ms) { values.emplace_back(name, ms); }
};

inline std::string lease_case_line(const lease_case& c, const lease_figures& f, bool passed) {
  std::string line = "lease-case " + case_name(c);
  for (const auto& [name, ms] : f.values) line += " " + name + "=" + std::to_string(ms);
  return line + (passed ? " result=pass" : " result=fail");
}

}  // namespace zkcoord::test
