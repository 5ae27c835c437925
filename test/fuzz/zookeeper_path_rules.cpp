// SPDX-License-Identifier: Apache-2.0
// PathUtils.validatePath over Java's UTF-16 view of the bytes.
#include "zookeeper_path_rules.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace zkcoord::fuzz {
namespace {

constexpr char16_t replacement_character = 0xfffd;

// One code point of well-formed UTF-8 at s[i] (advancing i), or nullopt for what Java's
// decoder replaces: bad lead or continuation bytes, overlong forms, surrogates, > U+10FFFF.
std::optional<std::uint32_t> next_code_point(std::string_view s, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(s[i++]);
  if (lead < 0x80) return lead;
  std::size_t continuation = 0;
  std::uint32_t cp = 0;
  std::uint32_t smallest = 0;
  if (lead >= 0xc0 && lead < 0xe0) {
    continuation = 1, cp = lead & 0x1fu, smallest = 0x80;
  } else if (lead >= 0xe0 && lead < 0xf0) {
    continuation = 2, cp = lead & 0x0fu, smallest = 0x800;
  } else if (lead >= 0xf0 && lead < 0xf8) {
    continuation = 3, cp = lead & 0x07u, smallest = 0x10000;
  } else {
    return std::nullopt;
  }
  for (std::size_t k = 0; k < continuation; ++k, ++i) {
    if (i >= s.size()) return std::nullopt;
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xc0u) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3fu);
  }
  if (cp < smallest || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return std::nullopt;
  return cp;
}

std::u16string java_string(std::string_view bytes) {
  std::u16string units;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto cp = next_code_point(bytes, i);
    if (!cp) {
      units += replacement_character;
    } else if (*cp < 0x10000) {
      units += static_cast<char16_t>(*cp);
    } else {  // a surrogate pair, as Java stores it
      units += static_cast<char16_t>(0xd800 + ((*cp - 0x10000) >> 10));
      units += static_cast<char16_t>(0xdc00 + ((*cp - 0x10000) & 0x3ff));
    }
  }
  return units;
}

bool in_range(char16_t c, char16_t low, char16_t high, character_ranges ranges) {
  return ranges == character_ranges::server ? (c > low && c < high) : (c >= low && c <= high);
}

bool invalid_character(char16_t c, character_ranges ranges) {
  return in_range(c, 0x0000, 0x001f, ranges) || in_range(c, 0x007f, 0x009f, ranges) ||
         in_range(c, 0xd800, 0xf8ff, ranges) || in_range(c, 0xfff0, 0xffff, ranges);
}

}  // namespace

bool zookeeper_accepts_path(std::string_view path, bool sequential, character_ranges ranges) {
  const std::u16string p = java_string(sequential ? std::string(path) + "1" : std::string(path));
  if (p.empty() || p[0] != u'/') return false;
  if (p.size() == 1) return true;
  if (p.back() == u'/') return false;
  char16_t last = u'/';
  for (std::size_t i = 1; i < p.size(); last = p[i], ++i) {
    const char16_t c = p[i];
    const bool name_ends_here = i + 1 == p.size() || p[i + 1] == u'/';
    if (c == 0) return false;
    if (c == u'/' && last == u'/') return false;                                        // "//"
    if (c == u'.' && last == u'.' && p[i - 2] == u'/' && name_ends_here) return false;  // ".."
    if (c == u'.' && last == u'/' && name_ends_here) return false;                      // "."
    if (invalid_character(c, ranges)) return false;
  }
  return true;
}

}  // namespace zkcoord::fuzz
