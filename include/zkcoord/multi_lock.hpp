// SPDX-License-Identifier: Apache-2.0
// Several exclusive locks taken as one (Apache Curator's InterProcessMultiLock): each lock is
// the ordinary fenced lock on its own path, so Curator, kazoo and zkcoord lock clients contend
// with it on every path. The locks are taken in sorted path order, so two callers that name the
// same locks in different orders cannot deadlock; all or nothing, within one timeout.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/async_result.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord {

namespace detail {
struct multi_grant;
struct multi_contenders;
}  // namespace detail

/// The grant of a multi_lock: one ownership per lock, in the order they were acquired (sorted
/// by path). Move-only. Destroying it releases every lock still held, the last acquired first
/// (best effort, as ownership's destructor). The fenced writes of fenced.hpp accept it and check
/// every lock's node in the same multi.
class ZKCOORD_EXPORT held_multi_lock {
 public:
  /// An empty handle: owns() is false, locks() is empty.
  held_multi_lock() noexcept = default;
  held_multi_lock(held_multi_lock&&) noexcept = default;
  held_multi_lock& operator=(held_multi_lock&&) noexcept = default;

  /// One handle per lock, in acquisition order (their tokens fence writes to other storage).
  const std::vector<ownership>& locks() const noexcept;
  /// True while every one of the locks is held.
  bool owns() const noexcept;
  explicit operator bool() const noexcept { return owns(); }

  /// Completes when the first of the locks is lost, with its reason (as
  /// ownership::async_wait_lost: errc::lock_lost, zk_errc::session_expired, errc::closed);
  /// with errc::not_held after a release or on an empty handle. Cancellable (any type;
  /// operation_aborted). Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_lost(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::multi_grant> grant) {
          start_wait_lost(std::move(grant), detail::void_completion(std::move(handler)));
        },
        token, grant_);
  }

  /// Releases every lock, the last acquired first, and completes once all are done: success
  /// if every node was deleted by us; otherwise the first error met (errc::lock_lost when a
  /// lock had already been lost), after the others were released all the same; errc::not_held
  /// on an empty or already released handle. Not cancellable. Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_release(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::multi_grant> grant) {
          start_release(std::move(grant), detail::void_completion(std::move(handler)));
        },
        token, grant_);
  }

 private:
  friend struct detail::multi_contenders;
  explicit held_multi_lock(std::shared_ptr<detail::multi_grant> grant) noexcept;
  static void start_wait_lost(std::shared_ptr<detail::multi_grant> grant,
                              detail::void_completion handler);
  static void start_release(std::shared_ptr<detail::multi_grant> grant,
                            detail::void_completion handler);

  std::shared_ptr<detail::multi_grant> grant_;
};

/// Contends for every lock in `lock_paths` on one session. Duplicate paths count once. Not
/// re-entrant: while an acquire is pending, or the held_multi_lock it produced still owns the
/// locks, another acquire completes with errc::already_held.
///
/// The acquire takes the locks one after another in sorted path order, each as lock's acquire
/// does (our node behind the immediate predecessor, no thread per waiter). If any of them
/// fails (error, timeout, cancellation, destruction of this object), the locks already taken
/// are released, the last first, and the acquire completes with that error: all or nothing.
///
/// Errors: those of lock's acquire (errc::bad_path when a path is invalid; the log names it),
/// and errc::bad_argument when `lock_paths` is empty.
class ZKCOORD_EXPORT multi_lock {
 public:
  /// Throws nothing; invalid paths are reported by the acquire.
  multi_lock(session& s, std::vector<std::string> lock_paths, lock_options options = {});
  multi_lock(multi_lock&&) noexcept = default;
  multi_lock& operator=(multi_lock&&) noexcept = default;
  ~multi_lock();

  /// The lock paths in the order they are taken (sorted, without duplicates).
  const std::vector<std::string>& paths() const noexcept;

  /// Waits until every lock is granted. Signature: void(error_code, held_multi_lock).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_acquire(Token&& token = {}) {
    return initiate_acquire(std::nullopt, token);
  }
  /// Waits at most `timeout` in all (errc::timeout after it, with nothing held).
  /// Signature: void(error_code, held_multi_lock).
  template <class Token = boost::asio::deferred_t>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate_acquire(timeout, token);
  }

 private:
  template <class Token>
  auto initiate_acquire(std::optional<std::chrono::steady_clock::duration> timeout, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, held_multi_lock)>(
        [](auto handler, std::shared_ptr<detail::multi_contenders> contenders,
           std::optional<std::chrono::steady_clock::duration> t) {
          start_acquire(std::move(contenders), t,
                        detail::completion<held_multi_lock>(std::move(handler)));
        },
        token, contenders_, timeout);
  }
  static void start_acquire(std::shared_ptr<detail::multi_contenders> contenders,
                            std::optional<std::chrono::steady_clock::duration> timeout,
                            detail::completion<held_multi_lock> handler);

  std::shared_ptr<detail::multi_contenders> contenders_;
};

}  // namespace zkcoord
