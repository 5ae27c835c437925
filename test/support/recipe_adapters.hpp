// SPDX-License-Identifier: Apache-2.0
// Adapters that give every queue recipe the same shape for test/integration/test_recipe_suite:
// a `contender` (the recipe under test) and a `blocker` (what makes a contender wait: another
// lock holder, a writer for a reader, another participant), both constructed from a session and
// a path, with async_acquire(token) and async_acquire(timeout, token).
#pragma once

#include <zkcoord/election.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/rw_lock.hpp>
#include <zkcoord/semaphore.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace zkcoord::test {

using ownership_result = std::tuple<error_code, ownership>;

/// Wraps a recipe object whose acquire operations are named like the lock's.
template <class Object>
struct acquiring {
  acquiring(session& s, const std::string& path) : object(s, path) {}
  template <class Token>
  auto async_acquire(Token&& token) {
    return object.async_acquire(std::forward<Token>(token));
  }
  template <class Token>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token) {
    return object.async_acquire(timeout, std::forward<Token>(token));
  }
  Object object;
};

/// An election participant with a fresh id, campaigning where the others acquire.
struct campaigning {
  campaigning(session& s, const std::string& path)
      : object(s, path, "participant-" + std::to_string(++last_id())) {}
  template <class Token>
  auto async_acquire(Token&& token) {
    return object.async_campaign(std::forward<Token>(token));
  }
  template <class Token>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token) {
    return object.async_campaign(timeout, std::forward<Token>(token));
  }
  static std::atomic<int>& last_id() {
    static std::atomic<int> id{0};
    return id;
  }
  election object;
};

/// Where a queue recipe's nodes are, and how many there are: one per holder and per waiter,
/// on the path itself.
struct queue_nodes {
  static std::size_t nodes(std::size_t holders, std::size_t waiters) { return holders + waiters; }
  static std::vector<std::string> node_parents(const std::string& path) { return {path}; }
};

struct lock_recipe : queue_nodes {
  static constexpr const char* name = "lock";
  static constexpr bool exclusive = true;
  using contender = acquiring<lock>;
  using blocker = contender;
};

/// A writer waits for a reader that holds, and writers are granted one at a time.
struct write_lock_recipe : queue_nodes {
  static constexpr const char* name = "write_lock";
  static constexpr bool exclusive = true;
  using contender = acquiring<write_lock>;
  using blocker = acquiring<read_lock>;
};

/// A reader waits for a writer that holds, and the readers behind it are granted together.
struct read_lock_recipe : queue_nodes {
  static constexpr const char* name = "read_lock";
  static constexpr bool exclusive = false;
  using contender = acquiring<read_lock>;
  using blocker = acquiring<write_lock>;
};

struct election_recipe : queue_nodes {
  static constexpr const char* name = "election";
  static constexpr bool exclusive = true;
  using contender = campaigning;
  using blocker = contender;
};

/// A semaphore with one lease, constructed like the other recipe objects.
struct one_lease_semaphore : semaphore {
  one_lease_semaphore(session& s, const std::string& path) : semaphore(s, path, 1) {}
};

/// With one lease the semaphore excludes, in the order of its internal lock. Its nodes: one
/// lease per holder, one internal-lock node per waiter, and the first waiter's lease (it
/// holds the internal lock while it waits for a lease).
struct semaphore_recipe {
  static constexpr const char* name = "semaphore";
  static constexpr bool exclusive = true;
  using contender = acquiring<one_lease_semaphore>;
  using blocker = contender;
  static std::size_t nodes(std::size_t holders, std::size_t waiters) {
    return holders + waiters + (waiters > 0 ? 1 : 0);
  }
  static std::vector<std::string> node_parents(const std::string& path) {
    return {path + "/locks", path + "/leases"};
  }
};

}  // namespace zkcoord::test
