// SPDX-License-Identifier: Apache-2.0
// The grant policies of the contender-queue engine: from the ordered contenders of a recipe
// path and our own node, decide whether we hold, or which node we wait for. No I/O; one call
// per listing (Curator's LockInternalsDriver.getsTheLock, with the blocker chosen so that a
// waiter watches one node and wakes only when it can be granted or must look again).
#pragma once

#include "recipe/contender_queue.hpp"
#include "recipe/sequence.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace zkcoord::detail {

class grant_policy {
 public:
  enum class rule : std::uint8_t {
    exclusive,  ///< first of the recipe's nodes holds (lock, write lock, election)
    shared,     ///< holds while no writer is ahead (read lock)
    counted,    ///< holds while the path has at most N children (semaphore lease)
  };
  // The semaphore does not rank: "the first N hold" would need a waiter to watch the N nodes
  // just ahead of it (with one watch, a holder ahead that leaves is missed until the watched
  // one goes). Like Curator's InterProcessSemaphoreV2 it counts the children of its leases
  // path, and a waiter waits for any change of that list (a child watch). Only the holder of
  // the semaphore's internal lock ever waits there, so the child watch is not a herd.

  /// The exclusive lock: "lock-" nodes (Curator, zkcoord) and "__lock__" nodes (kazoo).
  static grant_policy exclusive_lock() noexcept { return {rule::exclusive, node_kind::lock}; }
  /// The leader election: "latch-" nodes (Curator LeaderLatch), the first leads.
  static grant_policy election() noexcept { return {rule::exclusive, node_kind::latch}; }
  /// A read-write lock's writer: first among readers and writers.
  static grant_policy write_lock() noexcept { return {rule::exclusive, node_kind::write}; }
  /// A read-write lock's reader: granted once no writer is ahead of it.
  static grant_policy read_lock() noexcept { return {rule::shared, node_kind::read}; }
  /// A semaphore's lease: granted while the leases path has at most `max_leases` children,
  /// ours included. Every child counts (as in Curator), whatever its name: a node we do not
  /// understand takes a lease rather than letting one more holder in. `max_leases` >= 1.
  static grant_policy semaphore(std::uint32_t max_leases) noexcept {
    return {rule::counted, node_kind::lease, max_leases};
  }

  struct verdict {
    enum class outcome : std::uint8_t {
      granted,          ///< we hold
      wait,             ///< watch `blocker`; look again when it changes or goes
      wait_for_change,  ///< watch the path's children; look again when they change
      not_listed,       ///< our node is not among the contenders (deleted)
      recipe_mismatch,  ///< the path holds nodes another recipe wrote
    };
    outcome result;
    std::string blocker;  ///< for wait: the child name to watch
    /// For wait: how many nodes ahead of us block us besides `blocker` (exclusive: every
    /// node ahead; a reader: the writers ahead). None can be added later (nodes ahead of
    /// ours can only leave), so when this is 0 the blocker's deletion alone grants us.
    std::size_t others_ahead = 0;
  };

  /// The decision for our node `own_name` in `queue`. Nodes of other recipes on the path are a
  /// recipe_mismatch (a lock that ignored a latch holder would give two holders): the same
  /// answer for every contender, so no policy ever grants past a node it does not understand.
  verdict decide(const contender_queue& queue, std::string_view own_name) const;

  rule kind() const noexcept { return rule_; }
  /// The marker of the nodes this policy creates.
  node_kind creates() const noexcept { return creates_; }
  /// The recipe's name for log lines: "lock", "election", "write lock", "read lock".
  const char* name() const noexcept;
  /// Whether two contenders of this policy may hold at once (readers, leases).
  bool shares() const noexcept { return rule_ != rule::exclusive; }
  /// The most holders at once: 1 for the exclusive rule, N for a semaphore, 0 for readers
  /// (no bound).
  std::uint32_t max_holders() const noexcept;
  /// Whether `kind` belongs to this policy's recipe (a reader's path also holds writers).
  bool understands(node_kind kind) const noexcept;

 private:
  grant_policy(rule r, node_kind creates, std::uint32_t max_leases = 1) noexcept
      : rule_(r), creates_(creates), max_leases_(max_leases) {}

  rule rule_;
  node_kind creates_;
  std::uint32_t max_leases_;
};

}  // namespace zkcoord::detail
