// Adapters that give every queue recipe the same shape for test/integration/test_recipe_suite:
// a `contender` (the recipe under test) and a `blocker` (what makes a contender wait: another
// lock holder, a writer for a reader, another participant), both constructed from a session and
// a path, with async_acquire(token) and async_acquire(timeout, token).
#pragma once

#include <zkcoord/lock.hpp>
#include <zkcoord/ownership.hpp>

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

struct lock_recipe {
  static constexpr const char* name = "lock";
  static constexpr bool exclusive = true;
  using contender = acquiring<lock>;
  using blocker = contender;
};

}  // namespace zkcoord::test
