// SPDX-License-Identifier: Apache-2.0
#include "chroot_check.hpp"

#include "argument_limits.hpp"
#include "zookeeper_errors.hpp"

#include <string>

namespace zkcoord::cli {

std::optional<cli_error> chroot_error(const error_code& ec, const std::optional<node_stat>& root,
                                      std::string_view connect) {
  const std::string chroot = chroot_of(connect);
  if (ec) return error_for(ec, "cannot read the root of " + std::string(connect));
  if (root || chroot.empty()) return std::nullopt;
  return cli_error(exit_code::bad_config, "the chroot " + chroot +
                                              " of --connect does not exist (create it, or fix "
                                              "the connect string)");
}

}  // namespace zkcoord::cli
