// SPDX-License-Identifier: Apache-2.0
// The C client's return codes as error codes: the one place where its numbers enter zkcoord.
#pragma once

#include <zkcoord/error.hpp>

namespace zkcoord {

/// Maps a C client return code to an error_code (ZOK maps to success).
error_code from_zk_result(int rc) noexcept;

}  // namespace zkcoord
