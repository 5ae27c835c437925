// SPDX-License-Identifier: Apache-2.0
// The order of a recipe's contenders: the sequential children of its path, sorted as the
// server created them, each with the recipe its name marks (lock, latch, reader, ...).
#pragma once

#include "recipe/sequence.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkcoord::detail {

struct queued_node {
  std::string name;       ///< child name, without the lock path
  std::int32_t sequence;  ///< the parsed suffix, as ZooKeeper wrote it
  node_kind kind = node_kind::lock;
  friend bool operator==(const queued_node&, const queued_node&) = default;
};

/// The contenders among a recipe path's children, in creation order (first created first).
///
/// Children that do not end in a recipe marker and a sequence are not contenders and are left
/// out. The sequence comes from the parent's one counter, whatever the marker, so readers and
/// writers (or nodes of different recipes) interleave in creation order. The order
/// is by sequence, read as a point on the 32-bit ring: when the suffixes span more than half of
/// it (some near 2^31 - 1, some just past the overflow to -2^31), the negative ones were
/// created later and sort last. This holds as long as the live contenders' sequences span less
/// than 2^31, i.e. fewer than a billion contenders at once. After the parent is re-created the
/// counter restarts at 0; the old children are all gone by then (a node with children cannot
/// be deleted), so old and new numbers never meet in one listing.
class contender_queue {
 public:
  explicit contender_queue(const std::vector<std::string>& children);

  const std::vector<queued_node>& nodes() const noexcept { return nodes_; }
  bool empty() const noexcept { return nodes_.empty(); }
  /// How many children the listing had, contenders or not (a semaphore counts them all).
  std::size_t listed_count() const noexcept { return listed_count_; }
  /// Whether any contender is of `kind`. O(1).
  bool has_kind(node_kind kind) const noexcept {
    return (kinds_present_ & (1u << static_cast<unsigned>(kind))) != 0;
  }
  /// The position of the nearest writer before `position`, or nullopt if none is ahead of
  /// it. O(1): computed once per listing, which every reader of the session shares.
  std::optional<std::size_t> nearest_writer_before(std::size_t position) const;
  /// How many writers are before `position`. O(1), like nearest_writer_before.
  std::size_t writers_before(std::size_t position) const;
  /// Whether the sequences straddle the 32-bit overflow (ordered on the ring): a view of
  /// this listing is then not kept for a wake-up without a listing (contender_fsm).
  bool straddles_overflow() const noexcept { return after_overflow_; }

  /// Position of `name` in creation order (0 = first), or nullopt if it is not a contender.
  /// A binary search on the sequence in `name`: O(log n), so that thousands of waiters can
  /// each find themselves in one shared listing.
  std::optional<std::size_t> position_of(std::string_view name) const;

  /// The contender immediately ahead of `name` (an exclusive waiter watches it and nothing
  /// else: no herd). nullopt if `name` is first or not a contender.
  std::optional<std::string> predecessor_of(std::string_view name) const;

 private:
  // The sort key: the sequence on the ring, then the name (ties never depend on the server's
  // listing order).
  std::pair<std::int64_t, std::string_view> rank(std::int32_t sequence,
                                                 std::string_view name) const noexcept;

  std::vector<queued_node> nodes_;
  // For each position, 1 + the position of the nearest writer before it (0: none).
  std::vector<std::size_t> writer_before_;
  // For each position, how many writers are before it (empty when there is no writer).
  std::vector<std::size_t> writers_before_;
  std::size_t listed_count_ = 0;
  unsigned kinds_present_ = 0;
  bool after_overflow_ = false;
};

}  // namespace zkcoord::detail
