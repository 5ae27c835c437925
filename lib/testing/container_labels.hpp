// SPDX-License-Identifier: Apache-2.0
// Labels on what the container harness creates, and the removal of what a crashed run left
// behind. Internal.
#pragma once

#include <string>

namespace zkcoord::testing::detail {

/// Label key on every container and network the harness creates; its value names the
/// creating process as "<pid>:<start time in clock ticks>" (a reused pid does not match).
inline constexpr const char* owner_label = "zkcoord.testing.owner";

/// This process's owner label value.
std::string owner_label_value();

/// Removes containers, then networks, labelled owner_label whose creating process no longer
/// runs (a test that crashed or was killed before its destructor ran). Errors are logged,
/// not thrown: a leftover must not fail an unrelated test.
void remove_stale_containers(const std::string& docker);

}  // namespace zkcoord::testing::detail
