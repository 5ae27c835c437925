// SPDX-License-Identifier: Apache-2.0
#include "common/command_line.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace examples {

command_line::command_line(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (!word.starts_with("--")) {
      positional_.push_back(std::move(word));
      continue;
    }
    word.erase(0, 2);
    if (auto eq = word.find('='); eq != std::string::npos) {
      options_[word.substr(0, eq)] = word.substr(eq + 1);
    } else if (i + 1 < argc && !std::string_view(argv[i + 1]).starts_with("--")) {
      options_[word] = argv[++i];
    } else {
      options_[word] = "";
    }
  }
}

bool command_line::has(std::string_view name) const {
  return options_.find(name) != options_.end();
}

std::string command_line::get(std::string_view name, std::string fallback) const {
  auto it = options_.find(name);
  return it == options_.end() ? fallback : it->second;
}

long command_line::get_long(std::string_view name, long fallback) const {
  if (!has(name)) return fallback;
  const std::string text = get(name);
  std::size_t used = 0;
  try {
    const long value = std::stol(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("--" + std::string(name) + " wants a whole number, got '" + text +
                              "'");
}

double command_line::get_double(std::string_view name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string text = get(name);
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("--" + std::string(name) + " wants a number, got '" + text + "'");
}

void command_line::require_known(std::initializer_list<std::string_view> known) const {
  for (const auto& [name, value] : options_) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw std::invalid_argument("unknown option --" + name);
    }
  }
}

std::string self_executable() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

}  // namespace examples
