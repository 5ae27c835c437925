// SPDX-License-Identifier: Apache-2.0
#include "members_format.hpp"

#include "json.hpp"
#include "locks_format.hpp"
#include "terminal_text.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>

namespace zkcoord::cli {
namespace {

constexpr std::size_t columns = 4;
using row = std::array<std::string, columns>;

row row_of(const member_info& m) {
  return {escape_control_bytes(m.id), hex_session(m.session_id), format_since(m.ctime_ms),
          escape_control_bytes(m.data)};
}

std::string table(const std::vector<member_info>& members) {
  std::vector<row> rows{{"ID", "SESSION", "SINCE", "DATA"}};
  for (const auto& m : members) rows.push_back(row_of(m));
  std::array<std::size_t, columns> width{};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < columns; ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < columns; ++i) {
      line += r[i];
      if (i + 1 < columns) line.append(width[i] - r[i].size() + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);  // an empty DATA leaves no trailing blanks
    out += line + '\n';
  }
  return out;
}

std::string change_line(const char* what, const member_info& m) {
  return std::string(what) + " " + escape_control_bytes(m.id) + " (session " +
         hex_session(m.session_id) + ", since " + format_since(m.ctime_ms) +
         "): " + escape_control_bytes(m.data) + "\n";
}

std::string json_of(const member_info& m) {
  return "{\"id\":" + json_string(m.id) + ",\"session\":" + json_string(hex_session(m.session_id)) +
         ",\"since\":" + json_string(format_since(m.ctime_ms)) +
         ",\"since_ms\":" + std::to_string(m.ctime_ms) + ",\"czxid\":" + std::to_string(m.czxid) +
         ",\"data\":" + json_string(m.data) + "}";
}

}  // namespace

std::string format_since(std::int64_t ms_since_epoch) {
  // Floor division, so that times before 1970 (a wrong server clock) still print correctly.
  std::int64_t seconds = ms_since_epoch / 1000, ms = ms_since_epoch % 1000;
  if (ms < 0) ms += 1000, --seconds;
  const auto t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  if (!::gmtime_r(&t, &utc)) return std::to_string(ms_since_epoch) + "ms";
  char buf[80];  // room for any int fields: -Wformat-truncation
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(ms));
  return buf;
}

std::string format_members_text(const std::string& path, const std::vector<member_info>& members) {
  if (members.empty()) return "no members of " + escape_control_bytes(path) + "\n";
  return std::to_string(members.size()) + (members.size() == 1 ? " member of " : " members of ") +
         escape_control_bytes(path) + "\n" + table(members);
}

std::string format_member_changes_text(const std::vector<member_info>& before,
                                       const std::vector<member_info>& after) {
  std::string out;
  auto b = before.begin(), a = after.begin();
  // A merge of two lists sorted by id.
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && b->id < a->id)) {
      out += "left " + escape_control_bytes(b->id) + "\n";
      ++b;
    } else if (b == before.end() || a->id < b->id) {
      out += change_line("joined", *a);
      ++a;
    } else {
      if (!(*a == *b)) out += change_line("updated", *a);
      ++a, ++b;
    }
  }
  return out;
}

std::string format_members_json(const std::string& path, const std::vector<member_info>& members) {
  std::string out = "{\"path\":" + json_string(path) + ",\"members\":[";
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i) out += ',';
    out += json_of(members[i]);
  }
  return out + "]}\n";
}

}  // namespace zkcoord::cli
