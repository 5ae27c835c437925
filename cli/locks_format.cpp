// SPDX-License-Identifier: Apache-2.0
#include "locks_format.hpp"

#include "duration.hpp"
#include "json.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace zkcoord::cli {

std::string hex_session(std::int64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

namespace {

// Control characters in holder data would break the table's lines.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  return out.empty() ? "-" : out;
}

constexpr std::size_t columns = 8;
using row = std::array<std::string, columns>;

row row_of(const contender& c) {
  return {c.holder ? "holder" : "waiter",
          std::to_string(c.token.value()),
          hex_session(c.session_id),
          format_duration(c.age),
          printable(c.host),
          c.pid ? std::to_string(c.pid) : "-",
          printable(c.app_id),
          c.node};
}

void append_table(std::string& out, const std::vector<row>& rows) {
  std::array<std::size_t, columns> width{};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < columns; ++i) width[i] = std::max(width[i], r[i].size());
  for (const auto& r : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < columns; ++i) {
      line += ' ';
      line += r[i];
      if (i + 1 < columns) line.append(width[i] - r[i].size(), ' ');
    }
    out += line + '\n';
  }
}

}  // namespace

std::string format_locks_text(const std::vector<lock_listing>& locks) {
  std::string out;
  for (const auto& lock : locks) {
    out += "LOCK " + lock.path + '\n';
    std::vector<row> rows{{"ROLE", "TOKEN", "SESSION", "AGE", "HOST", "PID", "APP", "NODE"}};
    for (const auto& c : lock.contenders) rows.push_back(row_of(c));
    append_table(out, rows);
  }
  return out;
}

std::string format_locks_json(const std::vector<lock_listing>& locks) {
  std::string out = "{\"locks\":[";
  for (std::size_t l = 0; l < locks.size(); ++l) {
    if (l) out += ',';
    out += "{\"path\":" + json_string(locks[l].path) + ",\"contenders\":[";
    const auto& contenders = locks[l].contenders;
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      const auto& c = contenders[i];
      if (i) out += ',';
      out += "{\"role\":" + json_string(c.holder ? "holder" : "waiter") +
             ",\"node\":" + json_string(c.node) + ",\"token\":" + std::to_string(c.token.value()) +
             ",\"session\":" + json_string(hex_session(c.session_id)) +
             ",\"host\":" + json_string(c.host) + ",\"pid\":" + std::to_string(c.pid) +
             ",\"app_id\":" + json_string(c.app_id) +
             ",\"age_ms\":" + std::to_string(c.age.count()) + "}";
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

}  // namespace zkcoord::cli
