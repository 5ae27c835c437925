// SPDX-License-Identifier: Apache-2.0
// Shared counters in Apache Curator's layouts, so Curator, kazoo and zkcoord clients count on
// the same path: shared_count (Curator's SharedCount, kazoo's Counter(support_curator=True): a
// 4-byte big-endian int with a versioned set) and distributed_atomic_long / _int (Curator's
// DistributedAtomicLong / DistributedAtomicInteger: 8 or 4 big-endian bytes, updated by an
// optimistic compare-and-set, optionally promoted to a lock). docs/counters.md says what each
// promises and which Curator bugs they avoid.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace zkcoord {

/// A shared_count's value with the Stat fields that order it.
struct versioned_count {
  std::int32_t value = 0;
  /// The node's data version, the one a try_set checks. It may be 0 (a node never written
  /// since its create) and it wraps around to negative numbers after 2^31 - 1 changes.
  std::int32_t version = 0;
  /// The zxid of the write that produced this value: what orders two reads (never the
  /// version, which wraps).
  zxid mzxid = 0;
  friend bool operator==(const versioned_count&, const versioned_count&) = default;
};

/// The outcome of shared_count::async_try_set. Test `succeeded`: a lost race is not an error.
struct [[nodiscard]] count_set_result {
  /// True when our value was written: nobody had changed the node since `expected`.
  bool succeeded = false;
  /// The value now: ours on success; otherwise the value that won, read again.
  versioned_count current;
  explicit operator bool() const noexcept { return succeeded; }
};

namespace detail {
class shared_count_state;
class atomic_counter_state;
}  // namespace detail

/// Curator's SharedCount on `path`: a persistent node holding a 4-byte big-endian int, created
/// with `seed` by whoever reads it first (an existing value is never overwritten).
///
/// The object caches the newest value it has seen (current()). The cache moves forward only:
/// a reply replaces it only when its mzxid is larger (CURATOR-688), so a slow read that
/// returns after a newer write does not roll it back. Version 0 is a real version, never
/// "nothing read yet" (CURATOR-329). After a reconnect or a new session the value is read
/// again (CURATOR-311).
///
/// Empty node data (kazoo's Counter creates its node empty) reads as `seed`; data of any
/// other length than 4 bytes fails with errc::bad_counter_data. Errors: errc::bad_path,
/// errc::bad_counter_data, errc::bad_argument (try_set at version -1, see below), session
/// and permanent errors. Not cancellable.
class ZKCOORD_EXPORT shared_count {
 public:
  /// Missing parents are created as CONTAINER nodes. Throws nothing; an invalid path is
  /// reported by the operations.
  shared_count(session& s, std::string path, std::int32_t seed);
  ~shared_count();
  shared_count(shared_count&&) noexcept;
  shared_count& operator=(shared_count&&) noexcept;

  const std::string& path() const noexcept;
  std::int32_t seed() const noexcept;

  /// The newest value seen so far; nullopt before the first successful read.
  std::optional<versioned_count> current() const;

  /// Reads the node now (creating it with the seed if missing). Completes with the newest
  /// value seen, which is this read's unless a newer one arrived meanwhile.
  /// Signature: void(error_code, versioned_count).
  template <class Token = boost::asio::deferred_t>
  auto async_get(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, versioned_count)>(
        [](auto handler, std::shared_ptr<detail::shared_count_state> state) {
          start_get(std::move(state), detail::completion<versioned_count>(std::move(handler)));
        },
        token, state_);
  }

  /// Writes `new_value` only if the node is still at `expected.version` (a versioned set).
  /// On a lost race the result has succeeded == false and the value that won. ZooKeeper
  /// cannot check version -1 (it means "any version"): at that version, reached once the
  /// version wraps around, the set is refused with errc::bad_argument instead of being made
  /// unconditional. Signature: void(error_code, count_set_result).
  template <class Token = boost::asio::deferred_t>
  auto async_try_set(versioned_count expected, std::int32_t new_value, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, count_set_result)>(
        [](auto handler, std::shared_ptr<detail::shared_count_state> state, versioned_count exp,
           std::int32_t value) {
          start_try_set(std::move(state), exp, value,
                        detail::completion<count_set_result>(std::move(handler)));
        },
        token, state_, expected, new_value);
  }

 private:
  static void start_get(std::shared_ptr<detail::shared_count_state> state,
                        detail::completion<versioned_count> handler);
  static void start_try_set(std::shared_ptr<detail::shared_count_state> state,
                            versioned_count expected, std::int32_t new_value,
                            detail::completion<count_set_result> handler);
  std::shared_ptr<detail::shared_count_state> state_;
};

/// How a distributed atomic counter retries, and whether it is promoted to a lock.
struct atomic_counter_options {
  /// Optimistic compare-and-set attempts before giving up (or before the lock, if promoted).
  /// At least 1.
  std::uint32_t max_tries = 10;
  /// Wait between two attempts: a random duration in [0, retry_delay] (0: retry at once).
  std::chrono::milliseconds retry_delay{0};
  /// When not empty: after the optimistic attempts fail, take the exclusive lock at this path
  /// (a separate path, Curator's InterProcessMutex layout) and try again inside it, still as
  /// a compare-and-set (Curator's PromotedToLock).
  std::string lock_path = {};
  /// Attempts inside the lock (0: max_tries). Only writers that do not take the lock can get
  /// in between there, and each failed attempt means one of them wrote: with as many attempts
  /// as there are other increments in flight, the attempt inside the lock cannot run out.
  std::uint32_t lock_max_tries = 0;
  /// How long to wait for that lock (errc::timeout after it).
  std::chrono::milliseconds lock_timeout{10000};
};

/// The outcome of an operation of a distributed atomic counter (Curator's AtomicValue). An
/// operation that ran but could not apply its change (the retries ran out; compare_and_set
/// found another value) completes without error and with succeeded == false: test it.
template <class T>
struct [[nodiscard]] atomic_result {
  /// True when the change was written (for a get: the value was read).
  bool succeeded = false;
  /// The value before the change (the last one read, when it failed).
  T pre_value = 0;
  /// The value after the change (== pre_value when it failed).
  T post_value = 0;
  /// How many compare-and-set attempts were made, optimistically and under the lock.
  std::uint32_t optimistic_tries = 0;
  std::uint32_t promoted_tries = 0;
  explicit operator bool() const noexcept { return succeeded; }
};

namespace detail {
/// What one operation of a distributed atomic counter does with the value it reads.
struct atomic_request {
  enum class kind { get, add, try_set, compare_and_set } what = kind::get;
  std::int64_t operand = 0;   ///< the delta (add) or the new value
  std::int64_t expected = 0;  ///< compare_and_set only
};
ZKCOORD_EXPORT std::shared_ptr<atomic_counter_state> make_atomic_counter_state(
    session& s, std::string path, int width, atomic_counter_options options);
ZKCOORD_EXPORT const std::string& path_of(const atomic_counter_state* state) noexcept;
ZKCOORD_EXPORT void start_atomic(std::shared_ptr<atomic_counter_state> state,
                                 atomic_request request,
                                 completion<atomic_result<std::int64_t>> handler);
ZKCOORD_EXPORT void start_atomic(std::shared_ptr<atomic_counter_state> state,
                                 atomic_request request,
                                 completion<atomic_result<std::int32_t>> handler);
}  // namespace detail

/// Curator's DistributedAtomicLong (T = std::int64_t, 8 bytes) or DistributedAtomicInteger
/// (T = std::int32_t, 4 bytes) on `path`: a persistent node holding the value big-endian;
/// a missing node or empty data reads as 0 (a missing node is created by the first change).
/// Every change is a read followed by a versioned set (or a create when the node is missing),
/// retried while another writer gets in between, up to options.max_tries; promoted, then
/// again under the lock. Arithmetic wraps around as in Java.
///
/// Operations of one object run one at a time, in the order they were started. A connection
/// loss during a write fails the operation (condition::connection_loss): its outcome is
/// unknown, and it is never retried blindly, which could count twice.
///
/// Errors: errc::bad_path, errc::bad_counter_data (the node holds another number of bytes),
/// errc::timeout (the lock, promoted), session and permanent errors. Not cancellable.
template <class T>
class basic_distributed_atomic {
  static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>);

 public:
  /// Missing parents are created as CONTAINER nodes. Throws nothing; an invalid path is
  /// reported by the operations.
  basic_distributed_atomic(session& s, std::string path, atomic_counter_options options = {})
      : state_(
            detail::make_atomic_counter_state(s, std::move(path), sizeof(T), std::move(options))) {}

  const std::string& path() const noexcept { return detail::path_of(state_.get()); }

  /// Reads the value (0 if the node is missing). Signature: void(error_code, atomic_result<T>).
  template <class Token = boost::asio::deferred_t>
  auto async_get(Token&& token = {}) {
    return initiate({.what = detail::atomic_request::kind::get}, token);
  }
  /// Adds `delta` (negative to subtract). Signature: void(error_code, atomic_result<T>).
  template <class Token = boost::asio::deferred_t>
  auto async_add(T delta, Token&& token = {}) {
    return initiate({.what = detail::atomic_request::kind::add, .operand = delta}, token);
  }
  template <class Token = boost::asio::deferred_t>
  auto async_increment(Token&& token = {}) {
    return async_add(T{1}, std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_decrement(Token&& token = {}) {
    return async_add(T{-1}, std::forward<Token>(token));
  }
  /// Sets `value` as a compare-and-set against the value just read, retried as add is
  /// (Curator's trySet). Signature: void(error_code, atomic_result<T>).
  template <class Token = boost::asio::deferred_t>
  auto async_try_set(T value, Token&& token = {}) {
    return initiate({.what = detail::atomic_request::kind::try_set, .operand = value}, token);
  }
  /// Sets `value` only if the counter holds `expected` now; one attempt, never retried
  /// (Curator's compareAndSet). Signature: void(error_code, atomic_result<T>).
  template <class Token = boost::asio::deferred_t>
  auto async_compare_and_set(T expected, T value, Token&& token = {}) {
    return initiate({.what = detail::atomic_request::kind::compare_and_set,
                     .operand = value,
                     .expected = expected},
                    token);
  }

 private:
  template <class Token>
  auto initiate(detail::atomic_request request, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, atomic_result<T>)>(
        [](auto handler, std::shared_ptr<detail::atomic_counter_state> state,
           detail::atomic_request req) {
          detail::start_atomic(std::move(state), req,
                               detail::completion<atomic_result<T>>(std::move(handler)));
        },
        token, state_, request);
  }
  std::shared_ptr<detail::atomic_counter_state> state_;
};

/// Curator's DistributedAtomicLong: 8 bytes.
using distributed_atomic_long = basic_distributed_atomic<std::int64_t>;
/// Curator's DistributedAtomicInteger: 4 bytes (the same bytes as a shared_count).
using distributed_atomic_int = basic_distributed_atomic<std::int32_t>;

}  // namespace zkcoord
