// SPDX-License-Identifier: Apache-2.0
#include "terminal_text.hpp"

#include <cstdint>

namespace zkcoord::cli {
namespace {

void append_hex(std::string& out, unsigned char byte) {
  constexpr char digits[] = "0123456789abcdef";
  out += "\\x";
  out += digits[byte >> 4];
  out += digits[byte & 0xf];
}

// The length of the well-formed UTF-8 sequence at text[i] (shortest form, no surrogates), or 0.
std::size_t utf8_length(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  const std::size_t len = (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > text.size()) return 0;
  cp = len == 2 ? (b0 & 0x1f) : len == 3 ? (b0 & 0x0f) : (b0 & 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b >> 6) != 2) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

}  // namespace

std::string escape_control_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (byte < 0x20 || byte == 0x7f)
        append_hex(out, byte);
      else
        out += static_cast<char>(byte);
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t len = utf8_length(text, i, cp);
    if (len == 0 || cp <= 0x9f) {  // malformed, or a C1 control (U+0080-U+009F)
      for (std::size_t k = 0; k < (len ? len : 1); ++k)
        append_hex(out, static_cast<unsigned char>(text[i + k]));
      i += len ? len : 1;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace zkcoord::cli
