// SPDX-License-Identifier: Apache-2.0
// Participant id checks.
#include "election/participant_id.hpp"

#include <zkcoord/election.hpp>

#include <cstddef>
#include <string>

namespace zkcoord::detail {
namespace {

// Length of the UTF-8 sequence that starts with `lead`, 0 if no sequence starts with it.
std::size_t utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;  // a continuation byte, an overlong lead (c0, c1) or beyond U+10FFFF
}

// Whether the sequence of `length` bytes at `s[at]` is well-formed (no overlong forms, no
// surrogates, nothing past U+10FFFF: the Unicode standard's table 3-7).
bool well_formed(std::string_view s, std::size_t at, std::size_t length) {
  if (at + length > s.size()) return false;
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[at + i]); };
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return false;
  }
  if (length < 3) return true;
  const unsigned char lead = byte(0), second = byte(1);
  if (lead == 0xe0) return second >= 0xa0;
  if (lead == 0xed) return second <= 0x9f;
  if (lead == 0xf0) return second >= 0x90;
  if (lead == 0xf4) return second <= 0x8f;
  return true;
}

}  // namespace

std::string participant_id_problem(std::string_view id) {
  if (id.size() > max_participant_id_size) {
    return "participant id is " + std::to_string(id.size()) + " bytes, longer than " +
           std::to_string(max_participant_id_size);
  }
  for (std::size_t at = 0; at < id.size();) {
    if (id[at] == '\0') return "participant id holds a NUL byte at offset " + std::to_string(at);
    if (id[at] == '/') return "participant id holds '/' at offset " + std::to_string(at);
    const std::size_t length = utf8_length(static_cast<unsigned char>(id[at]));
    if (length == 0 || !well_formed(id, at, length)) {
      return "participant id is not valid UTF-8 at offset " + std::to_string(at);
    }
    at += length;
  }
  return {};
}

}  // namespace zkcoord::detail
