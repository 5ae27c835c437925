// The order of a lock's contenders: which child of the lock path holds the lock and which one
// each waiter must watch.
#pragma once

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
  friend bool operator==(const queued_node&, const queued_node&) = default;
};

/// The contenders among a lock path's children, in grant order (holder first).
///
/// Children that do not end in a lock sequence are not contenders and are left out. The order
/// is by sequence, read as a point on the 32-bit ring: when the suffixes span more than half of
/// it (some near 2^31 - 1, some just past the overflow to -2^31), the negative ones were
/// created later and sort last. This holds as long as the live contenders' sequences span less
/// than 2^31, i.e. fewer than a billion contenders at once. After the parent is re-created the
/// counter restarts at 0; the old children are all gone by then (a node with children cannot
/// be deleted), so old and new numbers never meet in one listing.
class lock_queue {
 public:
  explicit lock_queue(const std::vector<std::string>& children);

  const std::vector<queued_node>& nodes() const noexcept { return nodes_; }
  bool empty() const noexcept { return nodes_.empty(); }

  /// Position of `name` in grant order (0 = holder), or nullopt if it is not a contender.
  /// A binary search on the sequence in `name`: O(log n), so that thousands of waiters can
  /// each find themselves in one shared listing.
  std::optional<std::size_t> position_of(std::string_view name) const;

  /// The contender immediately ahead of `name`: the only node a waiter watches (no herd).
  /// nullopt if `name` is the holder or not a contender.
  std::optional<std::string> predecessor_of(std::string_view name) const;

 private:
  // The sort key: the sequence on the ring, then the name (ties never depend on the server's
  // listing order).
  std::pair<std::int64_t, std::string_view> rank(std::int32_t sequence,
                                                 std::string_view name) const noexcept;

  std::vector<queued_node> nodes_;
  bool after_overflow_ = false;
};

}  // namespace zkcoord::detail
