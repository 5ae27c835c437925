// SPDX-License-Identifier: Apache-2.0
#include "duration.hpp"

#include "exit_code.hpp"

#include <charconv>
#include <cstdint>
#include <limits>

namespace zkcoord::cli {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  std::uint64_t count = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc{} || end == text.data()) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  std::uint64_t unit_ms = 0;
  if (unit == "ms")
    unit_ms = 1;
  else if (unit == "s")
    unit_ms = 1000;
  else if (unit == "m")
    unit_ms = 60'000;
  else if (unit == "h")
    unit_ms = 3'600'000;
  else
    return std::nullopt;
  // Refuse what would overflow steady_clock arithmetic later (a deadline = now + d).
  constexpr std::uint64_t max_ms = std::uint64_t{1} << 50;
  if (count > max_ms / unit_ms) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(count * unit_ms));
}

std::chrono::milliseconds parse_duration_option(std::string_view option, std::string_view text) {
  if (auto d = parse_duration(text)) return *d;
  throw usage_error("invalid duration '" + std::string(text) + "' for " + std::string(option) +
                    " (use e.g. 500ms, 5s, 2m, 1h)");
}

std::string format_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms < 1000) return std::to_string(ms) + "ms";
  if (ms < 60'000) {
    auto tenths = (ms % 1000) / 100;
    return std::to_string(ms / 1000) + (tenths ? "." + std::to_string(tenths) : "") + "s";
  }
  auto s = ms / 1000;
  if (s < 3600) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + std::to_string((s % 3600) / 60) + "m";
}

}  // namespace zkcoord::cli
