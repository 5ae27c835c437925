// Adapters that give every queue recipe the same shape for test/integration/test_recipe_suite:
// a `contender` (the recipe under test) and a `blocker` (what makes a contender wait: another
// lock holder, a writer for a reader, another participant), both constructed from a session and
// a path, with async_acquire(token) and async_acquire(timeout, token).
#pragma once

#include <zkcoord/election.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/rw_lock.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <tuple>
#include <utility>

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

struct lock_recipe {
  static constexpr const char* name = "lock";
  static constexpr bool exclusive = true;
  using contender = acquiring<lock>;
  using blocker = contender;
};

/// A writer waits for a reader that holds, and writers are granted one at a time.
struct write_lock_recipe {
  static constexpr const char* name = "write_lock";
  static constexpr bool exclusive = true;
  using contender = acquiring<write_lock>;
  using blocker = acquiring<read_lock>;
};

/// A reader waits for a writer that holds, and the readers behind it are granted together.
struct read_lock_recipe {
  static constexpr const char* name = "read_lock";
  static constexpr bool exclusive = false;
  using contender = acquiring<read_lock>;
  using blocker = acquiring<write_lock>;
};

struct election_recipe {
  static constexpr const char* name = "election";
  static constexpr bool exclusive = true;
  using contender = campaigning;
  using blocker = contender;
};

}  // namespace zkcoord::test
