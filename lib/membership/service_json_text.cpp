// SPDX-License-Identifier: Apache-2.0
// Jackson-compatible JSON text: string escapes; payload text found and kept as written.
#include "membership/service_json_text.hpp"

#include <boost/json/parse.hpp>

namespace zkcoord::detail {
namespace {

// Length of the UTF-8 sequence starting at `lead`, 0 when it cannot start one.
int sequence_length(unsigned char lead) noexcept {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_space(std::string_view t, std::size_t i) noexcept {
  while (i < t.size() && is_json_space(t[i])) ++i;
  return i;
}

// From the opening quote to just past the closing one.
std::size_t skip_string(std::string_view t, std::size_t i) noexcept {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1;
    }
  }
  return t.size();
}

// Past one value; containers by counting brackets (no recursion, whatever the depth).
std::size_t skip_value(std::string_view t, std::size_t i) noexcept {
  if (i >= t.size()) return i;
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] != '{' && t[i] != '[') {
    while (i < t.size() && !is_json_space(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
    return i;
  }
  std::size_t depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      i = skip_string(t, i);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return i;
}

// A member name as text (escapes decoded), from its quoted form.
std::string key_of(std::string_view quoted) {
  const auto inner = quoted.substr(1, quoted.size() >= 2 ? quoted.size() - 2 : 0);
  if (inner.find('\\') == std::string_view::npos) return std::string(inner);
  boost::json::error_code ec;
  const auto value = boost::json::parse(boost::json::string_view(quoted.data(), quoted.size()), ec);
  return !ec && value.is_string() ? std::string(value.get_string()) : std::string();
}

}  // namespace

bool is_valid_utf8(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int length = sequence_length(lead);
    if (length == 0 || i + static_cast<std::size_t>(length) > text.size()) return false;
    for (int k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    if (length >= 3) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      if (lead == 0xE0 && second < 0xA0) return false;   // overlong
      if (lead == 0xED && second >= 0xA0) return false;  // UTF-16 surrogate
      if (lead == 0xF0 && second < 0x90) return false;   // overlong
      if (lead == 0xF4 && second >= 0x90) return false;  // past U+10FFFF
    }
    i += static_cast<std::size_t>(length);
  }
  return true;
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  out += '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out += hex[byte >> 4];
          out += hex[byte & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::optional<std::string_view> member_text(std::string_view document, std::string_view key) {
  std::optional<std::string_view> found;
  std::size_t i = skip_space(document, 0);
  if (i >= document.size() || document[i] != '{') return found;
  i = skip_space(document, i + 1);
  while (i < document.size() && document[i] == '"') {
    const std::size_t key_end = skip_string(document, i);
    const std::string name = key_of(document.substr(i, key_end - i));
    i = skip_space(document, key_end);
    if (i >= document.size() || document[i] != ':') break;
    const std::size_t start = skip_space(document, i + 1);
    const std::size_t end = skip_value(document, start);
    if (name == key) found = document.substr(start, end - start);
    i = skip_space(document, end);
    if (i >= document.size() || document[i] != ',') break;
    i = skip_space(document, i + 1);
  }
  return found;
}

std::string without_whitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '"') {
      const std::size_t end = skip_string(text, i);
      out.append(text.substr(i, end - i));
      i = end;
    } else {
      if (!is_json_space(text[i])) out += text[i];
      ++i;
    }
  }
  return out;
}

}  // namespace zkcoord::detail
