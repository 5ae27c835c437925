// SPDX-License-Identifier: Apache-2.0
#include "common/run_directory.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <random>
#include <system_error>
#include <vector>

namespace examples {

run_directory::run_directory(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw std::system_error(errno, std::system_category(), "mkdtemp " + pattern);
  }
  path_ = buffer.data();
}

run_directory::~run_directory() {
  std::error_code ignored;
  if (!keep_) std::filesystem::remove_all(path_, ignored);
}

std::string run_directory::random_name() {
  std::random_device device;
  std::uniform_int_distribution<unsigned long long> digits(0, 0xffffffffffffULL);
  char text[16];
  std::snprintf(text, sizeof text, "%012llx", digits(device));
  return text;
}

}  // namespace examples
