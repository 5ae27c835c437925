// SPDX-License-Identifier: Apache-2.0
// The grant decisions of every recipe: who holds, and the one node each waiter watches.
#include "recipe/grant_policy.hpp"

namespace zkcoord::detail {
namespace {

using outcome = grant_policy::verdict::outcome;

grant_policy::verdict wait_for(const contender_queue& queue, std::size_t position,
                               std::size_t blocking_ahead) {
  return {outcome::wait, queue.nodes()[position].name, blocking_ahead - 1};
}

}  // namespace

const char* grant_policy::name() const noexcept {
  switch (creates_) {
    case node_kind::latch:
      return "election";
    case node_kind::write:
      return "write lock";
    case node_kind::read:
      return "read lock";
    case node_kind::lease:
      return "semaphore";
    case node_kind::lock:
      break;
  }
  return "lock";
}

std::uint32_t grant_policy::max_holders() const noexcept {
  switch (rule_) {
    case rule::exclusive:
      return 1;
    case rule::counted:
      return max_leases_;
    case rule::shared:
      break;
  }
  return 0;
}

bool grant_policy::understands(node_kind kind) const noexcept {
  if (creates_ == node_kind::read || creates_ == node_kind::write) {
    return kind == node_kind::read || kind == node_kind::write;
  }
  return kind == creates_;
}

grant_policy::verdict grant_policy::decide(const contender_queue& queue,
                                           std::string_view own_name) const {
  for (int k = 0; k < node_kind_count; ++k) {
    const auto kind = static_cast<node_kind>(k);
    if (queue.has_kind(kind) && !understands(kind)) return {outcome::recipe_mismatch, {}};
  }
  const auto position = queue.position_of(own_name);
  if (!position) return {outcome::not_listed, {}};
  switch (rule_) {
    case rule::exclusive:
      // Whoever is just ahead goes before us: watching it alone wakes us exactly once, when
      // it leaves, and a waiter that gives up ahead of us only moves our blocker forward.
      if (*position == 0) return {outcome::granted, {}};
      return wait_for(queue, *position - 1, *position);
    case rule::shared:
      // Readers ahead never block a reader; the nearest writer ahead does, and once it goes
      // the next one (if any) is found by the next listing. Curator watches the *first*
      // writer instead; both are correct, the nearest wakes fewer readers per release.
      if (const auto writer = queue.nearest_writer_before(*position)) {
        return wait_for(queue, *writer, queue.writers_before(*position));
      }
      return {outcome::granted, {}};
    case rule::counted:
      // Curator's count: every child of the leases path, ours included. Safe without any
      // order: of the holders at any moment, the one whose listing came last saw all of them
      // (each created its node before listing), so it saw at most N.
      if (queue.listed_count() <= max_leases_) return {outcome::granted, {}};
      return {outcome::wait_for_change, {}};
  }
  return {outcome::not_listed, {}};
}

}  // namespace zkcoord::detail
