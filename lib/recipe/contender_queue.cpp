// SPDX-License-Identifier: Apache-2.0
// Sorting recipe contenders by sequence, tolerating the 32-bit overflow of ZooKeeper's counter.
#include "recipe/contender_queue.hpp"

#include "recipe/sequence.hpp"

#include <algorithm>
#include <utility>

namespace zkcoord::detail {
namespace {

constexpr std::int64_t half_ring = std::int64_t{1} << 31;
constexpr std::int64_t full_ring = std::int64_t{1} << 32;

// True when the sequences straddle the overflow point: both very high and negative ones.
bool wrapped(const std::vector<queued_node>& nodes) {
  const auto [lo, hi] = std::minmax_element(
      nodes.begin(), nodes.end(), [](auto& a, auto& b) { return a.sequence < b.sequence; });
  return std::int64_t{hi->sequence} - std::int64_t{lo->sequence} > half_ring;
}

}  // namespace

contender_queue::contender_queue(const std::vector<std::string>& children)
    : listed_count_(children.size()) {
  for (const auto& name : children) {
    if (auto parsed = parse_sequenced_name(name)) {
      nodes_.push_back({name, parsed->sequence, parsed->kind});
      kinds_present_ |= 1u << static_cast<unsigned>(parsed->kind);
    }
  }
  if (nodes_.empty()) return;
  after_overflow_ = wrapped(nodes_);
  std::sort(nodes_.begin(), nodes_.end(), [this](const queued_node& a, const queued_node& b) {
    return rank(a.sequence, a.name) < rank(b.sequence, b.name);
  });
  if (!has_kind(node_kind::write)) return;
  writer_before_.resize(nodes_.size());
  writers_before_.resize(nodes_.size());
  std::size_t last = 0;
  std::size_t writers = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    writer_before_[i] = last;
    writers_before_[i] = writers;
    if (nodes_[i].kind == node_kind::write) last = i + 1, ++writers;
  }
}

std::size_t contender_queue::writers_before(std::size_t position) const {
  return position < writers_before_.size() ? writers_before_[position] : 0;
}

std::optional<std::size_t> contender_queue::nearest_writer_before(std::size_t position) const {
  if (position >= writer_before_.size() || writer_before_[position] == 0) return std::nullopt;
  return writer_before_[position] - 1;
}

std::pair<std::int64_t, std::string_view> contender_queue::rank(
    std::int32_t sequence, std::string_view name) const noexcept {
  const std::int64_t seq = sequence;
  return {after_overflow_ && seq < 0 ? seq + full_ring : seq, name};
}

std::optional<std::size_t> contender_queue::position_of(std::string_view name) const {
  const auto parsed = parse_sequenced_name(name);
  if (!parsed) return std::nullopt;
  const auto key = rank(parsed->sequence, name);
  const auto it = std::lower_bound(
      nodes_.begin(), nodes_.end(), key,
      [this](const queued_node& n, const auto& k) { return rank(n.sequence, n.name) < k; });
  if (it == nodes_.end() || it->name != name) return std::nullopt;
  return static_cast<std::size_t>(it - nodes_.begin());
}

std::optional<std::string> contender_queue::predecessor_of(std::string_view name) const {
  const auto position = position_of(name);
  if (!position || *position == 0) return std::nullopt;
  return nodes_[*position - 1].name;
}

}  // namespace zkcoord::detail
