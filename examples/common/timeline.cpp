// SPDX-License-Identifier: Apache-2.0
#include "common/timeline.hpp"

#include <cstdio>

namespace examples {

void timeline::print(std::string_view who, std::string_view text) const {
  const double seconds = std::chrono::duration<double>(elapsed()).count();
  std::printf("[%7.3fs] %-13.*s %.*s\n", seconds, static_cast<int>(who.size()), who.data(),
              static_cast<int>(text.size()), text.data());
  std::fflush(stdout);
}

}  // namespace examples
