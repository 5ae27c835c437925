// SPDX-License-Identifier: Apache-2.0
// Helpers for tests that drive lock_holder_child (a real lock-holding process): a temporary
// directory for its file fence store, and the fields of the lines it prints.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>

namespace zkcoord::test {

/// The value of "key=" in a line of the child's output ("" if absent).
inline std::string field(const std::string& line, const std::string& key) {
  std::istringstream in(line);
  for (std::string word; in >> word;)
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  return "";
}

/// A fresh directory under the temp dir, removed with everything in it.
struct temp_dir {
  explicit temp_dir(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() /
             (prefix + "-" + std::to_string(::getpid()) + "-" +
              std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path);
  }
  ~temp_dir() { std::filesystem::remove_all(path); }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  std::filesystem::path path;
};

}  // namespace zkcoord::test
