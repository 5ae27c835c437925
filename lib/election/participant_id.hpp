// SPDX-License-Identifier: Apache-2.0
// What a participant id may be: it is written as the latch node's data, which Curator decodes
// as UTF-8 and every listing shows.
#pragma once

#include <string>
#include <string_view>

namespace zkcoord::detail {

/// Why `id` cannot be a participant id ("" if it can): longer than max_participant_id_size,
/// a NUL byte or '/' in it, or not valid UTF-8. The empty id is allowed (Curator's default).
std::string participant_id_problem(std::string_view id);

}  // namespace zkcoord::detail
