// Parsing of "%010d" sequence suffixes behind a lock marker.
#include "lock/sequence.hpp"

#include <charconv>

namespace zkcoord::detail {
namespace {

// ZooKeeper's "%010d": exactly ten characters, or eleven for "-1000000000" .. "-2147483648".
std::optional<std::int32_t> parse_suffix(std::string_view suffix) {
  const bool negative = !suffix.empty() && suffix.front() == '-';
  if (suffix.size() != 10 && !(negative && suffix.size() == 11)) return std::nullopt;
  const std::string_view digits = negative ? suffix.substr(1) : suffix;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::int32_t value = 0;
  const auto [end, ec] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), value);
  if (ec != std::errc{} || end != suffix.data() + suffix.size()) return std::nullopt;
  // Only what "%010d" writes: "-000000000" and eleven characters with a leading zero
  // ("-0000000058", printed "-000000058") are never a sequence.
  if (negative && (value == 0 || (suffix.size() == 11 && suffix[1] == '0'))) return std::nullopt;
  return value;
}

std::optional<std::int32_t> parse_after(std::string_view name, std::string_view marker) {
  const auto at = name.rfind(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return parse_suffix(name.substr(at + marker.size()));
}

}  // namespace

std::optional<std::int32_t> parse_lock_sequence(std::string_view node_name) {
  // kazoo's marker ends in "lock__", never in "lock-", so the two cannot both match.
  if (auto seq = parse_after(node_name, kazoo_lock_marker)) return seq;
  return parse_after(node_name, curator_lock_marker);
}

}  // namespace zkcoord::detail
