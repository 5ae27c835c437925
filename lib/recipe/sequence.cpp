// SPDX-License-Identifier: Apache-2.0
// Parsing of "%010d" sequence suffixes behind a recipe marker.
#include "recipe/sequence.hpp"

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

struct marker_entry {
  std::string_view marker;
  node_kind kind;
};
constexpr marker_entry markers[] = {
    {kazoo_lock_marker, node_kind::lock}, {curator_lock_marker, node_kind::lock},
    {latch_marker, node_kind::latch},     {read_marker, node_kind::read},
    {write_marker, node_kind::write},     {lease_marker, node_kind::lease},
};

}  // namespace

std::string_view marker_of(node_kind kind) noexcept {
  switch (kind) {
    case node_kind::lock:
      return curator_lock_marker;
    case node_kind::latch:
      return latch_marker;
    case node_kind::read:
      return read_marker;
    case node_kind::write:
      return write_marker;
    case node_kind::lease:
      return lease_marker;
  }
  return curator_lock_marker;
}

std::optional<sequenced_name> parse_sequenced_name(std::string_view node_name) {
  for (const auto& [marker, kind] : markers) {
    if (auto seq = parse_after(node_name, marker)) return sequenced_name{kind, *seq};
  }
  return std::nullopt;
}

std::optional<std::int32_t> parse_lock_sequence(std::string_view node_name) {
  const auto parsed = parse_sequenced_name(node_name);
  if (!parsed || parsed->kind != node_kind::lock) return std::nullopt;
  return parsed->sequence;
}

}  // namespace zkcoord::detail
