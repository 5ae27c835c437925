// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: how one acquire call of a recipe wants to wait. Not part of the API; may
// change in any release.
#pragma once

#include <chrono>
#include <optional>

namespace zkcoord::detail {

struct acquire_request {
  bool try_once = false;  ///< errc::busy instead of waiting behind another contender
  std::optional<std::chrono::steady_clock::duration> timeout;  ///< errc::timeout after this
};

}  // namespace zkcoord::detail
