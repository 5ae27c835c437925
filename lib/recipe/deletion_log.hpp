// SPDX-License-Identifier: Apache-2.0
// What one session has seen deleted under the recipe paths its waiters count on: the hand-off
// without a listing for waiters with nodes still ahead (docs/lock.md, "Nodes still ahead:
// the session's deletion count").
//
// Why: a waiter that listed k nodes ahead of its own and sees its blocker go cannot tell from
// that alone whether the k-1 others are gone too; a listing tells it, at the price of a round
// trip and (with 10,000 waiters on one lock) every remaining name. But a session often has
// seen those deletions already: its other waiters on the path watched them, or its own
// holders deleted them. This log counts them, so that the waiter can know without a read.
//
// What is counted: for each (session, path) on which a waiter is registered, the distinct
// sequence numbers of the contender children whose deletion the session has proof of (see
// session/session_impl.hpp, deletion_observer: recorded on the C client's thread before the
// proving event or reply is handed on, each numbered in the order told). A waiter registers
// when it processes a listing and takes `before` = the deletions between the listing's lowest
// node and its own (the nodes ahead of it; the listing does not straddle the 2^31 overflow, so
// that range is the numbers ahead of it and no others) that were told before the listing's reply
// arrived (the reply is stamped with the number of the last proof told before it:
// session_impl::deletion_proofs); once its blocker's deletion is delivered, `now - before` counts
// the nodes of that listing seen deleted since. (Taken when the listing is processed instead,
// `before` could include deletions of nodes the listing shows, made while thousands of waiters
// worked through one shared listing: never wrong, but each such waiter would list again.)
//
// Why `now - before` never counts a node the listing did not have (the only way it could be
// wrong): every node ahead of ours that the listing lacks was deleted before the server read
// the children, so its deletion, if the session has proof of it at all, reached the session
// before the listing's reply, and was recorded before that reply was handed on: it is already
// in `before`. A node created after our own is behind it and outside the range (also a node
// whose number wrapped past 2^31), so it is never counted. The same
// deletion told twice is one sequence number. Anything the log misses or records late makes
// `now - before` smaller, which only costs the waiter a listing.
//
// The log of a path exists from the moment a waiter opens its interest, before it creates its
// node (handoff_count::start), until it holds or gives up: every proof told after any of its
// listings was stamped is then recorded. (A log made only when the listing is registered would
// miss a deletion told between the stamp and the registration, and stay one short for every
// waiter of the queue: each would list. A registration on a log younger than its stamp is
// refused for that reason.)
//
// Memory: a sorted vector of sequence numbers per registered (session, path), dropped with its
// last interest. The numbers below every registered listing's lowest node (the floor) are
// dropped: no registered range reaches them, and no node below the floor exists any more
// (nodes ahead only leave), so a later deletion below it is ignored. A waiter whose listing
// reaches below the floor cannot count (it lists as before). An open interest that has not
// registered a listing yet keeps the floor where it is.
#pragma once

#include "session/session_impl.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkcoord::detail {

class deletion_log final : public deletion_observer {
 public:
  /// One waiter's registration; unregisters when destroyed or reset.
  class interest {
   public:
    interest() = default;
    interest(interest&& other) noexcept { *this = std::move(other); }
    interest& operator=(interest&& other) noexcept;
    interest(const interest&) = delete;
    interest& operator=(const interest&) = delete;
    ~interest() { reset(); }
    void reset() noexcept;
    explicit operator bool() const noexcept { return id_ != 0; }

   private:
    friend class deletion_log;
    std::weak_ptr<deletion_log> log_;
    std::uint64_t id_ = 0;
    std::int64_t session_ = 0;
    std::string path_;
    std::int32_t lowest_ = 0;
  };

  /// Opens `slot` for a waiter of `session` on `path` that is about to create its node and
  /// list (if `slot` is not open yet): from now on the path's deletions are kept, so that a
  /// deletion told after the waiter's listing was stamped but before the listing is registered
  /// is not missed (missed, it would leave every later count one short: each waiter would
  /// list). While open and not registered, the floor stays where it is.
  void open(interest& slot, std::int64_t session, const std::string& path);
  /// Registers a waiter of `session` on `path` that just processed a listing whose lowest
  /// contender has sequence `lowest` (the listing must not straddle the 32-bit overflow), in
  /// place of its registration `slot` held before. `stamp`: the listing reply's stamp
  /// (nullopt: not stamped, take every proof told so far). Returns the deletions in
  /// [lowest, own) told up to the stamp, or nullopt when the log cannot count for this listing
  /// (`slot` is then empty). A path nobody had opened or registered on before the stamp kept
  /// nothing of the proofs told between the stamp and now: then nullopt too.
  std::optional<std::uint64_t> register_listing(interest& slot, std::int64_t session,
                                                const std::string& path, std::int32_t lowest,
                                                std::int32_t own,
                                                std::optional<std::uint64_t> stamp);
  /// The deletions in [the registered listing's lowest, own) seen so far on the path `slot` is
  /// registered on (0 if none).
  std::uint64_t deleted_ahead(const interest& slot, std::int32_t own) const;

  /// A waiter's own node (`path`, the full path): from now until forget_node, whether the
  /// session is told of its deletion is kept, whatever its parent (the waiter watches it; the
  /// proof is recorded on the C client's thread before the events after it are handed on, so
  /// a waiter fed its blocker's deletion knows whether its own node went first, whatever
  /// order the executor runs the two events in).
  void guard_node(std::int64_t session, const std::string& path);
  /// Whether the session was told that the guarded node `path` was deleted.
  bool node_told_deleted(std::int64_t session, std::string_view path) const;
  void forget_node(std::int64_t session, std::string_view path) noexcept;

  void node_deleted(std::int64_t session, std::string_view path,
                    std::uint64_t told) noexcept override;

  std::weak_ptr<deletion_log> weak() const noexcept { return self_; }
  /// A log of its own (the session's is deletion_log::of).
  static std::shared_ptr<deletion_log> make();
  /// The session's log, made and given to the session as a deletion observer on first use.
  static std::shared_ptr<deletion_log> of(session_impl& impl);

 private:
  struct path_log {
    std::vector<std::int32_t> deleted;  ///< sorted, distinct, from `head` on
    std::size_t head = 0;
    std::int32_t floor = 0;
    std::set<std::pair<std::int32_t, std::uint64_t>> interests;  ///< (listing's lowest, id)
    /// The latest numbers recorded, as (told, sequence) in the order told: every one told after
    /// `recent_after` is here (a bounded window: older ones are dropped from the front).
    std::deque<std::pair<std::uint64_t, std::int32_t>> recent;
    std::uint64_t recent_after = 0;
    /// The last proof number told when this log was made: later ones are all recorded here.
    std::uint64_t kept_since = 0;
    /// The distinct numbers kept in [lowest, own).
    std::uint64_t between(std::int32_t lowest, std::int32_t own) const;
    /// between(lowest, own) as it was once every proof up to `stamp` was told; nullopt if the
    /// window no longer reaches back to it.
    std::optional<std::uint64_t> between_as_of(std::int32_t lowest, std::int32_t own,
                                               std::uint64_t stamp) const;
    void record(std::int32_t sequence, std::uint64_t told);
    void raise_floor();
  };
  using session_logs = std::map<std::string, path_log, std::less<>>;
  /// The path's log, made (keeping what is told from now on) if there is none.
  path_log& logs_for(std::int64_t session, const std::string& path);
  void drop_if_unused(std::int64_t session, std::string_view path) noexcept;
  /// Puts `slot` (empty) on `log` as an interest whose listing's lowest node is `lowest`.
  void enlist(path_log& log, interest& slot, std::int64_t session, const std::string& path,
              std::int32_t lowest);
  void unregister(interest& slot) noexcept;
  void unregister_locked(const interest& slot) noexcept;
  path_log* find(std::int64_t session, std::string_view path);
  const path_log* find(std::int64_t session, std::string_view path) const;

  mutable std::mutex mutex_;
  std::map<std::int64_t, session_logs> logs_;
  /// guard_node: per session, each guarded node's path and whether it was told deleted.
  std::map<std::int64_t, std::map<std::string, bool, std::less<>>> guarded_;
  std::uint64_t last_id_ = 0;
  std::uint64_t last_told_ = 0;  ///< the highest proof number told (on any path)
  std::weak_ptr<deletion_log> self_;
};

}  // namespace zkcoord::detail
