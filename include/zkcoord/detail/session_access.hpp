// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: how the recipes' templates reach the session's shared state. Not part
// of the API; may change in any release.
#pragma once

#include <zkcoord/session.hpp>

#include <memory>

namespace zkcoord::detail {

struct session_access {
  static const std::shared_ptr<session_impl>& impl(const session& s) noexcept { return s.impl_; }
};

}  // namespace zkcoord::detail
