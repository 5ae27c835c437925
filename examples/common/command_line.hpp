// SPDX-License-Identifier: Apache-2.0
// A small parser for the examples' command lines: positional words and --name value options
// (--name=value works too; an option followed by another option or nothing is a flag).
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace examples {

class command_line {
 public:
  command_line(int argc, char** argv);

  const std::vector<std::string>& positional() const noexcept { return positional_; }
  bool has(std::string_view name) const;
  std::string get(std::string_view name, std::string fallback = {}) const;
  /// Throws std::invalid_argument naming the option when the value is not a number.
  long get_long(std::string_view name, long fallback) const;
  double get_double(std::string_view name, double fallback) const;
  /// Throws std::invalid_argument for an option not in `known`.
  void require_known(std::initializer_list<std::string_view> known) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string, std::less<>> options_;
};

/// This executable's own path (/proc/self/exe), to start workers of the same binary.
std::string self_executable();

}  // namespace examples
