// SPDX-License-Identifier: Apache-2.0
// Helpers for tests that drive the lock state machine: naming its actions and picking them.
#pragma once

#include "recipe/contender_fsm.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <typeindex>
#include <vector>

namespace zkcoord::detail {
inline std::ostream& operator<<(std::ostream& os, contender_fsm::state s) {
  return os << to_string(s);
}
}  // namespace zkcoord::detail

namespace zkcoord::detail::testing {

/// A listing of the lock path as the driver feeds it to the machine.
inline std::shared_ptr<const contender_queue> listing(const std::vector<std::string>& names) {
  return std::make_shared<const contender_queue>(names);
}

inline const char* action_name(const contender_action_t& action) {
  using namespace contender_action;
  return std::visit(
      [](const auto& a) -> const char* {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, create_node>) return "create_node";
        if constexpr (std::is_same_v<A, create_parents>) return "create_parents";
        if constexpr (std::is_same_v<A, list_children>) return "list_children";
        if constexpr (std::is_same_v<A, read_node>) return "read_node";
        if constexpr (std::is_same_v<A, watch_node>) return "watch_node";
        if constexpr (std::is_same_v<A, watch_own_node>) return "watch_own_node";
        if constexpr (std::is_same_v<A, watch_children>) return "watch_children";
        if constexpr (std::is_same_v<A, delete_node>) return "delete_node";
        if constexpr (std::is_same_v<A, drop_watch>) return "drop_watch";
        if constexpr (std::is_same_v<A, complete_acquire>) return "complete_acquire";
        if constexpr (std::is_same_v<A, set_in_doubt>) return "set_in_doubt";
        if constexpr (std::is_same_v<A, report_lost>) return "report_lost";
        if constexpr (std::is_same_v<A, complete_release>) return "complete_release";
        if constexpr (std::is_same_v<A, finished>) return "finished";
      },
      action);
}

/// "create_node list_children": the kinds of the actions, in order.
inline std::string kinds(const contender_actions& actions) {
  std::string out;
  for (const auto& a : actions) {
    if (!out.empty()) out += ' ';
    out += action_name(a);
  }
  return out;
}

/// The one action of type A among `actions` (fails the test if there is not exactly one).
template <class A>
const A& the(const contender_actions& actions) {
  const A* found = nullptr;
  int count = 0;
  for (const auto& a : actions) {
    if (const A* p = std::get_if<A>(&a)) {
      found = p;
      ++count;
    }
  }
  BOOST_REQUIRE_MESSAGE(count == 1, "expected one " << typeid(A).name() << " in [" << kinds(actions)
                                                    << "], found " << count);
  return *found;
}

/// Formats a sequence as ZooKeeper does ("%010d" in Java, sign inside the width).
inline std::string sequence_suffix(std::int32_t seq) {
  if (seq >= 0) {
    std::string digits = std::to_string(seq);
    return std::string(10 - digits.size(), '0') + digits;
  }
  std::string digits = std::to_string(-static_cast<std::int64_t>(seq));
  if (digits.size() < 9) digits = std::string(9 - digits.size(), '0') + digits;
  return "-" + digits;
}

}  // namespace zkcoord::detail::testing

namespace zkcoord::detail::testing {

/// What a grant policy must answer, written here again without lib/recipe/grant_policy.cpp
/// (mutants patch that file; the property test must not judge it by itself). The order is
/// contender_queue's (the 32-bit ring); the rules are the recipes' own:
/// - lock and latch: the first of the recipe's nodes holds, a waiter watches the node just
///   ahead; a writer: the same over readers and writers;
/// - a reader holds while no writer is ahead, and watches the nearest writer ahead;
/// - a node of another recipe anywhere on the path: recipe_mismatch, for every contender;
/// - a semaphore's lease (Curator's InterProcessSemaphoreV2): granted while the path has at
///   most N children, every child counting (ours, later leases, children that are no
///   contender at all); otherwise wait for the children to change. No blocker, no order.
struct reference_verdict {
  enum class outcome { granted, wait, wait_for_change, not_listed, recipe_mismatch };
  outcome result;
  std::string blocker;  ///< for wait
};

inline const char* to_string(reference_verdict::outcome o) {
  using outcome = reference_verdict::outcome;
  switch (o) {
    case outcome::granted:
      return "granted";
    case outcome::wait:
      return "wait";
    case outcome::wait_for_change:
      return "wait_for_change";
    case outcome::not_listed:
      return "not_listed";
    case outcome::recipe_mismatch:
      return "recipe_mismatch";
  }
  return "?";
}

/// Whether a node of `kind` belongs on the path of a contender that creates `own` nodes.
inline bool same_recipe(node_kind own, node_kind kind) {
  const auto rw = [](node_kind k) { return k == node_kind::read || k == node_kind::write; };
  return rw(own) ? rw(kind) : kind == own;
}

/// A lease among `queue`, the contenders of a listing of `child_count` children in all (the
/// count comes from the caller's own list of names, not from the code under test).
inline reference_verdict reference_lease_decision(const contender_queue& queue,
                                                  std::size_t child_count,
                                                  std::string_view own_name,
                                                  std::uint32_t max_leases,
                                                  bool other_recipes_ignored) {
  using outcome = reference_verdict::outcome;
  bool found = false;
  for (const auto& node : queue.nodes()) {
    if (!same_recipe(node_kind::lease, node.kind) && !other_recipes_ignored) {
      return {outcome::recipe_mismatch, {}};
    }
    found = found || node.name == own_name;
  }
  if (!found) return {outcome::not_listed, {}};
  if (child_count <= max_leases) return {outcome::granted, {}};
  return {outcome::wait_for_change, {}};
}

/// The verdict for `own_name` (of kind `own_kind`) among `children`. With
/// `other_recipes_ignored`, nodes of other recipes are left out instead of failing the path:
/// who holds among this recipe's nodes (a holder granted before such a node came stays one).
/// A lease (own_kind lease) needs `max_leases` (N >= 1); other recipes ignore it.
inline reference_verdict reference_decision(const contender_queue& queue, node_kind own_kind,
                                            std::string_view own_name,
                                            bool other_recipes_ignored = false,
                                            std::uint32_t max_leases = 0) {
  using outcome = reference_verdict::outcome;
  if (own_kind == node_kind::lease) {
    return reference_lease_decision(queue, queue.listed_count(), own_name, max_leases,
                                    other_recipes_ignored);
  }
  const queued_node* nearest_writer = nullptr;
  const queued_node* just_ahead = nullptr;
  bool found = false;
  for (const auto& node : queue.nodes()) {
    if (!same_recipe(own_kind, node.kind)) {
      if (other_recipes_ignored) continue;
      return {outcome::recipe_mismatch, {}};
    }
    if (found) continue;  // behind us: blocks nothing (but may be another recipe's)
    if (node.name == own_name) {
      found = true;
      continue;
    }
    just_ahead = &node;
    if (node.kind == node_kind::write) nearest_writer = &node;
  }
  if (!found) return {outcome::not_listed, {}};
  const queued_node* blocker = own_kind == node_kind::read ? nearest_writer : just_ahead;
  if (!blocker) return {outcome::granted, {}};
  return {outcome::wait, blocker->name};
}

/// The same on a list of names; a lease counts the names itself (every child).
inline reference_verdict reference_decision(const std::vector<std::string>& children,
                                            node_kind own_kind, std::string_view own_name,
                                            bool other_recipes_ignored = false,
                                            std::uint32_t max_leases = 0) {
  if (own_kind == node_kind::lease) {
    return reference_lease_decision(contender_queue(children), children.size(), own_name,
                                    max_leases, other_recipes_ignored);
  }
  return reference_decision(contender_queue(children), own_kind, own_name, other_recipes_ignored);
}

}  // namespace zkcoord::detail::testing
