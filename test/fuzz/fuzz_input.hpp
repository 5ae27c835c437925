// SPDX-License-Identifier: Apache-2.0
// Cuts a fuzz input into typed pieces: integers from the front, then text up to separators.
// Short inputs give zeros and empty strings, so every input is usable.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord::fuzz {

class fuzz_input {
 public:
  fuzz_input(const std::uint8_t* data, std::size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}

  template <class Integer>
  Integer take_integer() {
    unsigned char bytes[sizeof(Integer)] = {};
    const std::size_t n = std::min(sizeof bytes, rest_.size());
    std::memcpy(bytes, rest_.data(), n);
    rest_.remove_prefix(n);
    Integer value;
    std::memcpy(&value, bytes, sizeof value);
    return value;
  }

  /// The text before the next `separator` (or all that is left), consuming the separator.
  std::string take_until(char separator) {
    const auto at = rest_.find(separator);
    std::string piece(rest_.substr(0, at));
    rest_.remove_prefix(at == std::string_view::npos ? rest_.size() : at + 1);
    return piece;
  }

  /// The rest, cut at every `separator`.
  std::vector<std::string> split_rest(char separator) {
    std::vector<std::string> pieces;
    while (!rest_.empty()) pieces.push_back(take_until(separator));
    return pieces;
  }

  std::string_view rest() const noexcept { return rest_; }

 private:
  std::string_view rest_;
};

/// s with non-printable bytes as \xNN, for messages.
inline std::string printable(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    }
  }
  return out + "\"";
}

}  // namespace zkcoord::fuzz
