// SPDX-License-Identifier: Apache-2.0
// The read-write lock: readers share, a writer excludes everyone, in the order they asked.
// Contenders queue as ephemeral-sequential children of one path in Apache Curator's
// InterProcessReadWriteLock layout ("_c_<uuid>-__READ__<seq>", "_c_<uuid>-__WRIT__<seq>"), so
// Curator readers and writers contend correctly on the same path. docs/rw_lock.md says what
// differs from Curator and when not to use this lock.
#pragma once

#include <zkcoord/detail/contender_handle.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace zkcoord {

namespace detail {
class contender_slot;

/// Which half of a read-write lock a contender object is.
enum class rw_side : std::uint8_t { read, write };

/// What read_lock and write_lock share: one contender object on one path, with the API of
/// zkcoord::lock. Not used directly.
class ZKCOORD_EXPORT rw_lock_half : private contender_handle<contender_slot> {
 public:
  /// Destroying it or assigning over it aborts a pending acquire (operation_aborted).
  rw_lock_half(rw_lock_half&&) noexcept = default;
  rw_lock_half& operator=(rw_lock_half&&) noexcept = default;

  using contender_handle::path;

  /// Waits until granted. Signature: void(error_code, held_lock).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_acquire(Token&& token = {}) {
    return initiate_acquire(acquire_request{}, token);
  }
  /// Waits at most `timeout` (errc::timeout after it). Signature: void(error_code, held_lock).
  template <class Token = boost::asio::deferred_t>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate_acquire(acquire_request{.try_once = false, .timeout = timeout}, token);
  }
  /// Granted only if it would be granted now (read: no writer ahead; write: nobody ahead);
  /// otherwise errc::busy, and our node is deleted. Signature: void(error_code, held_lock).
  template <class Token = boost::asio::deferred_t>
  auto async_try_acquire(Token&& token = {}) {
    return initiate_acquire(acquire_request{.try_once = true, .timeout = {}}, token);
  }

 protected:
  rw_lock_half(session& s, std::string lock_path, lock_options options, rw_side side);

 private:
  template <class Token>
  auto initiate_acquire(acquire_request request, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, held_lock)>(
        [](auto handler, std::shared_ptr<contender_slot> state, lock_options options, rw_side side,
           acquire_request req) {
          start_acquire(std::move(state), options, side, req,
                        completion<held_lock>(std::move(handler)));
        },
        token, state_, options_, side_, request);
  }
  static void start_acquire(std::shared_ptr<contender_slot> state, const lock_options& options,
                            rw_side side, acquire_request request, completion<held_lock> handler);

  lock_options options_;
  rw_side side_;
};
}  // namespace detail

/// A reader of the read-write lock at `lock_path` on one session. Any number of readers hold
/// at once; a reader is granted once no writer is queued ahead of it, so a reader that comes
/// after a waiting writer waits for that writer (no writer starves behind a stream of
/// readers). It watches the nearest writer ahead only.
///
/// The held_lock of a reader is a shared grant: its token() orders it after every earlier
/// writer of the path (and before every later one), but other readers hold at the same time.
/// Do not fence writes with it (fenced.hpp would accept them: they only prove that this read
/// lock is still held, not that nobody else writes); writes belong to write_lock holders.
///
/// Everything else is as for zkcoord::lock: not re-entrant (a second acquire while the first
/// is pending or its grant still owned completes with errc::already_held), missing parents
/// are CONTAINER nodes, our node is deleted whenever an acquire does not end in a grant,
/// nothing is re-queued after session expiry, the same errors and the same cancellation.
/// A path holding nodes of another recipe (e.g. zkcoord::lock's "-lock-" nodes) fails the
/// acquire with errc::recipe_mismatch, our node deleted.
class ZKCOORD_EXPORT read_lock : public detail::rw_lock_half {
 public:
  /// Throws nothing; an invalid path is reported by the acquire.
  read_lock(session& s, std::string lock_path, lock_options options = {});
};

/// A writer of the read-write lock at `lock_path` on one session: granted when its node is
/// the first of the path's readers and writers, so it excludes every reader and writer. It
/// watches its immediate predecessor only. Its held_lock fences like zkcoord::lock's: the
/// token is larger than that of every earlier grant, read or write, of the path, and
/// fenced.hpp's writes commit only while it is held.
///
/// Semantics otherwise as zkcoord::lock and read_lock (not re-entrant, errc::already_held;
/// errc::busy for try-acquire when anyone, reader or writer, is ahead; errc::recipe_mismatch
/// on a path with nodes of another recipe). A write lock is never downgraded or upgraded: to
/// keep reading after writing, acquire the read lock after releasing (someone may write in
/// between).
class ZKCOORD_EXPORT write_lock : public detail::rw_lock_half {
 public:
  /// Throws nothing; an invalid path is reported by the acquire.
  write_lock(session& s, std::string lock_path, lock_options options = {});
};

/// Curator's InterProcessReadWriteLock shape: a reader and a writer on one path, for code that
/// needs both. They are two independent contenders, as if each were constructed on its own:
/// no re-entrancy, no downgrade. Acquiring one while holding the other queues a second node
/// behind our own, which waits until we release the first (for ever, if we wait for it).
class ZKCOORD_EXPORT read_write_lock {
 public:
  read_write_lock(session& s, std::string lock_path, lock_options options = {});

  const std::string& path() const noexcept { return read_.path(); }
  read_lock& read() noexcept { return read_; }
  write_lock& write() noexcept { return write_; }

 private:
  read_lock read_;
  write_lock write_;
};

}  // namespace zkcoord
