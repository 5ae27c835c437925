// SPDX-License-Identifier: Apache-2.0
// The little JSON the tool writes: quoted strings.
#pragma once

#include <string>
#include <string_view>

namespace zkcoord::cli {

/// `text` as a JSON string literal, quotes included. Node data is arbitrary bytes: invalid
/// UTF-8 becomes U+FFFD so that the output always parses.
std::string json_string(std::string_view text);

}  // namespace zkcoord::cli
