// SPDX-License-Identifier: Apache-2.0
#include "holder_description.hpp"

#include <string_view>

namespace zkcoord::cli {

std::string holder_description(const command_line& cl) {
  if (cl.describe) return *cl.describe;
  std::string_view name = cl.child_argv.empty() ? std::string_view() : cl.child_argv.front();
  // "dir/" has no last component: the whole word is what the user ran.
  if (const auto slash = name.rfind('/');
      slash != std::string_view::npos && slash + 1 < name.size())
    name.remove_prefix(slash + 1);
  return "zkcoord lock: " + std::string(name);
}

}  // namespace zkcoord::cli
