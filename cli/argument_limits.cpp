// SPDX-License-Identifier: Apache-2.0
#include "argument_limits.hpp"

#include <zkcoord/election.hpp>

#include "exit_code.hpp"

#include <algorithm>

namespace zkcoord::cli {
namespace {

// In the largest unit that says it exactly, as the user would write it ("24h", "1500ms").
std::string exact(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace

std::string chroot_of(std::string_view connect) {
  const auto slash = connect.find('/');
  if (slash == std::string_view::npos || connect.substr(slash) == "/") return {};
  return std::string(connect.substr(slash));
}

std::string lock_path_limit_problem(std::string_view path, std::string_view connect) {
  if (path.size() > max_lock_path_length)
    return "path is " + std::to_string(path.size()) + " bytes long; at most " +
           std::to_string(max_lock_path_length) + " are allowed";
  const auto depth = static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
  if (depth > max_lock_path_depth)
    return "path is " + std::to_string(depth) + " levels deep; at most " +
           std::to_string(max_lock_path_depth) + " are allowed";
  // What the server sees: the chroot, then the path.
  std::string on_server = chroot_of(connect);
  if (path != "/" || on_server.empty()) on_server.append(path);
  if (on_server == "/zookeeper" || on_server.starts_with("/zookeeper/"))
    return "/zookeeper is the server's own tree (quotas, configuration); choose another path";
  return {};
}

void check_at_most(std::string_view option, std::chrono::milliseconds value,
                   std::chrono::milliseconds max) {
  if (value > max)
    throw usage_error(std::string(option) + " " + exact(value) + " is too long (at most " +
                      exact(max) + ")");
}

std::string participant_id_problem(std::string_view id) {
  if (id.empty()) return "the participant id is empty";
  if (id.size() > max_participant_id_size)
    return "the participant id is longer than " + std::to_string(max_participant_id_size) +
           " bytes";
  for (unsigned char c : id) {
    if (c == '/') return "the participant id contains '/'";
    if (c < 0x20 || c == 0x7f) return "the participant id contains a control character";
  }
  return {};
}

}  // namespace zkcoord::cli
