// SPDX-License-Identifier: Apache-2.0
// Encoding and decoding of "host=..;pid=..;session=..;start=..;app=.." lock-node data.
#include "recipe/holder_data.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

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

// The session id as ZooKeeper prints it; the bit pattern, so that negative ids round-trip.
std::string hex_session(std::int64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

std::int64_t parse_hex_session(std::string_view value) {
  if (value.starts_with("0x")) value.remove_prefix(2);
  std::uint64_t bits = 0;
  std::from_chars(value.data(), value.data() + value.size(), bits, 16);
  return static_cast<std::int64_t>(bits);
}

// Field 22 of /proc/self/stat (clock ticks since boot) plus the boot time of /proc/stat.
std::optional<std::int64_t> read_process_start() {
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  const auto after_name = stat.rfind(')');  // the name may hold spaces and parentheses
  if (after_name == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(after_name + 1));
  std::string field;
  // After the name come state (field 3) ... starttime (field 22).
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long ticks = 0;
  if (!(fields >> ticks)) return std::nullopt;
  std::ifstream boot_file("/proc/stat");
  for (std::string key; boot_file >> key;) {
    if (key != "btime") continue;
    long long boot = 0;
    const long per_second = ::sysconf(_SC_CLK_TCK);
    if (!(boot_file >> boot) || per_second <= 0) return std::nullopt;
    return boot + static_cast<std::int64_t>(ticks / static_cast<unsigned long long>(per_second));
  }
  return std::nullopt;
}

}  // namespace

std::string encode_holder_data(const holder_info& holder) {
  return "host=" + escape(holder.host) + ";pid=" + std::to_string(holder.pid) +
         ";session=" + hex_session(holder.session_id) +
         ";start=" + std::to_string(holder.process_start) + ";app=" + escape(holder.app_id);
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
    } else if (key == "session") {
      holder.session_id = parse_hex_session(value);
      ours = true;
    } else if (key == "start") {
      std::from_chars(value.data(), value.data() + value.size(), holder.process_start);
      ours = true;
    } else if (key == "app") {
      holder.app_id = unescape(value);
      ours = true;
    }
  });
  if (!ours) return holder_info{.app_id = std::string(data)};
  return holder;
}

std::int64_t this_process_start_time() {
  static const std::int64_t start = read_process_start().value_or(0);
  return start;
}

holder_info this_process_holder(std::string app_id, std::int64_t session_id) {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
  return holder_info{.host = name,
                     .pid = static_cast<int>(::getpid()),
                     .session_id = session_id,
                     .process_start = this_process_start_time(),
                     .app_id = std::move(app_id)};
}

}  // namespace zkcoord::detail
