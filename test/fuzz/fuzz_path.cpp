// SPDX-License-Identifier: Apache-2.0
// Fuzz target: ZooKeeper path and connect-string validation (include/zkcoord/path.hpp).
//
// Properties: path_problem accepts exactly what the server model accepts with zkcoord's
// documented ranges, and never something the server itself refuses; its messages are
// "invalid path ..."; the path helpers keep accepted paths valid; connect_string_problem
// accepts exactly the "host:port[,host:port...][/chroot]" grammar with a valid chroot.
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"
#include "zookeeper_path_rules.hpp"

#include <zkcoord/path.hpp>

#include "recipe/node_name.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace zkcoord::fuzz {
namespace {

void check_path(std::string_view path, bool sequential) {
  const std::string why = path_problem(path, sequential);
  const bool accepted = why.empty();
  const std::string subject = printable(path) + (sequential ? " (sequential)" : "");
  ZKCOORD_FUZZ_CHECK(
      accepted == zookeeper_accepts_path(path, sequential, character_ranges::zkcoord),
      "path_problem " + std::string(accepted ? "accepts " : "refuses ") + subject +
          " against zkcoord's documented rules: '" + why + "'");
  ZKCOORD_FUZZ_CHECK(
      !accepted || zookeeper_accepts_path(path, sequential, character_ranges::server),
      "path_problem accepts " + subject + ", which the server refuses");
  ZKCOORD_FUZZ_CHECK(accepted || why.starts_with("invalid path \""),
                     "unexpected message for " + subject + ": " + why);
  // A sequential create is validated as the name with its sequence appended.
  ZKCOORD_FUZZ_CHECK(!sequential || accepted == path_problem(std::string(path) + "1").empty(),
                     "sequential rule differs from appending a digit for " + subject);
}

// For an accepted (non-sequential) path: its parent and its children are paths too, and
// parent + name rebuilds it.
void check_path_helpers(std::string_view path) {
  if (!path_problem(path).empty()) return;
  const std::string parent = parent_path(path);
  ZKCOORD_FUZZ_CHECK(path_problem(parent).empty(),
                     "parent_path of " + printable(path) + " is invalid: " + printable(parent));
  if (path != "/") {
    const std::string rebuilt = join_path(parent, detail::node_name_of(path));
    ZKCOORD_FUZZ_CHECK(rebuilt == path, "join_path(parent_path(p), node_name_of(p)) gives " +
                                            printable(rebuilt) + " for " + printable(path));
  }
  const std::string child = join_path(path, "c");
  ZKCOORD_FUZZ_CHECK(path_problem(child).empty() && parent_path(child) == path,
                     "child " + printable(child) + " of " + printable(path) + " is not valid");
}

// The connect grammar, written independently: hosts before the first '/', each entry
// "host:port" split at its last ':', host non-empty, port 1..65535 in decimal digits.
bool valid_port(std::string_view digits) {
  if (digits.empty()) return false;
  unsigned long value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    value = std::min(value * 10 + static_cast<unsigned long>(c - '0'), 100000ul);
  }
  return value >= 1 && value <= 65535;
}

bool connect_grammar_accepts(std::string_view connect) {
  const auto slash = connect.find('/');
  std::string_view hosts = connect.substr(0, slash);
  if (hosts.empty()) return false;
  for (;;) {
    const auto comma = hosts.find(',');
    const std::string_view entry = hosts.substr(0, comma);
    const auto colon = entry.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    if (!valid_port(entry.substr(colon + 1))) return false;
    if (comma == std::string_view::npos) break;
    hosts.remove_prefix(comma + 1);
  }
  return slash == std::string_view::npos ||
         zookeeper_accepts_path(connect.substr(slash), false, character_ranges::zkcoord);
}

void check_connect_string(std::string_view connect) {
  const std::string why = connect_string_problem(connect);
  ZKCOORD_FUZZ_CHECK(why.empty() == connect_grammar_accepts(connect),
                     "connect_string_problem " +
                         std::string(why.empty() ? "accepts " : "refuses ") + printable(connect) +
                         ": '" + why + "'");
}

}  // namespace

void fuzz_path(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_path(input, false);
  check_path(input, true);
  check_path_helpers(input);
  check_connect_string(input);
  // The same bytes as a chroot, so the path rules are reached through a valid host list.
  check_connect_string("127.0.0.1:2181" + std::string(input));
}

}  // namespace zkcoord::fuzz
