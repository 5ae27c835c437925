// SPDX-License-Identifier: Apache-2.0
// JSON text as Jackson (Curator's serializer) writes it: its string escapes, no whitespace; and
// the payload kept as its writer wrote it. Boost.JSON 1.81 parses doubles only approximately, so
// a payload goes through as text (located by a scan of the validated document), never as a
// parsed value written back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zkcoord::detail {

/// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF), which is what a Java reader can turn back into the same String.
bool is_valid_utf8(std::string_view text) noexcept;

/// Appends `text` as a JSON string literal: `"` `\` and control characters escaped (\b \t \n \f
/// \r, else \u00XX in upper-case hex, as Jackson does), everything else as it is.
void append_json_string(std::string& out, std::string_view text);

/// The text of the value of the last top-level member named `key` in the object `document`
/// (the one a reader keeps when a key repeats), as written; nullopt when there is none.
/// `document` must already be known to be valid JSON (it is scanned, not parsed).
std::optional<std::string_view> member_text(std::string_view document, std::string_view key);

/// Valid JSON `text` without the whitespace between its tokens, strings as written.
std::string without_whitespace(std::string_view text);

}  // namespace zkcoord::detail
