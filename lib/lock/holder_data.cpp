// Encoding and decoding of "host=..;pid=..;app=.." lock-node data.
#include "lock/holder_data.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include <unistd.h>

namespace zkcoord::detail {
namespace {

bool needs_escape(unsigned char c) {
  return c == '%' || c == ';' || c == '=' || c < 0x20 || c == 0x7f;
}

std::string escape(std::string_view value) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (needs_escape(c)) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::optional<int> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return std::nullopt;
}

// A malformed escape is kept literally: inspection should show what is there, not fail.
std::string unescape(std::string_view value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '%' && i + 2 < value.size()) {
      const auto hi = hex_digit(value[i + 1]);
      const auto lo = hex_digit(value[i + 2]);
      if (hi && lo) {
        out += static_cast<char>(*hi * 16 + *lo);
        i += 2;
        continue;
      }
    }
    out += value[i];
  }
  return out;
}

// Calls on_field(key, raw value) for each "key=value" of the ';'-separated list.
template <class OnField>
void for_each_field(std::string_view data, OnField on_field) {
  while (!data.empty()) {
    const auto end = std::min(data.find(';'), data.size());
    const std::string_view field = data.substr(0, end);
    const auto eq = field.find('=');
    if (eq != std::string_view::npos) on_field(field.substr(0, eq), field.substr(eq + 1));
    data.remove_prefix(std::min(end + 1, data.size()));
  }
}

}  // namespace

std::string encode_holder_data(const holder_info& holder) {
  return "host=" + escape(holder.host) + ";pid=" + std::to_string(holder.pid) +
         ";app=" + escape(holder.app_id);
}

holder_info decode_holder_data(std::string_view data) {
  holder_info holder;
  bool ours = false;
  for_each_field(data, [&](std::string_view key, std::string_view value) {
    if (key == "host") {
      holder.host = unescape(value);
      ours = true;
    } else if (key == "pid") {
      std::from_chars(value.data(), value.data() + value.size(), holder.pid);
      ours = true;
    } else if (key == "app") {
      holder.app_id = unescape(value);
      ours = true;
    }
  });
  if (!ours) return holder_info{.host = {}, .pid = 0, .app_id = std::string(data)};
  return holder;
}

holder_info this_process_holder(std::string app_id) {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
  return holder_info{
      .host = name, .pid = static_cast<int>(::getpid()), .app_id = std::move(app_id)};
}

}  // namespace zkcoord::detail
