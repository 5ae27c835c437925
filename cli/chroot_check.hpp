// SPDX-License-Identifier: Apache-2.0
// A connect string's chroot must exist: through a chroot that does not, every path is missing,
// so `lock` would fail to create its parents and `locks` would find nothing, each hiding the
// misconfiguration. Checked once connected, before anything is created.
#pragma once

#include "exit_code.hpp"

#include <zkcoord/error.hpp>
#include <zkcoord/types.hpp>

#include <optional>
#include <string_view>

namespace zkcoord::cli {

/// The error to end with, given the outcome of async_exists("/") on the session of `connect`
/// ("/" is the chroot itself): "the chroot /x of --connect does not exist" (exit_code::
/// bad_config), error_for a failed request, or nullopt when the chroot exists or there is none.
std::optional<cli_error> chroot_error(const error_code& ec, const std::optional<node_stat>& root,
                                      std::string_view connect);

}  // namespace zkcoord::cli
