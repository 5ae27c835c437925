// SPDX-License-Identifier: Apache-2.0
#include "common/worker_channel.hpp"

#include <iostream>

namespace examples {

void emit(std::string_view event) {
  std::cout << event << std::endl;
}

std::string await_command() {
  std::string line;
  if (!std::getline(std::cin, line)) return {};
  return line;
}

}  // namespace examples
