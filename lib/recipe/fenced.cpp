// SPDX-License-Identifier: Apache-2.0
// Fenced writes: a multi whose first op checks our node, so the server applies the caller's
// ops only while the ownership holds, atomically with them, on the session it was granted on.
#include "recipe/contender_attempt.hpp"
#include "recipe/fenced_outcome.hpp"
#include "session/session_multi.hpp"

#include <zkcoord/fenced.hpp>

#include <boost/asio/system_executor.hpp>

namespace zkcoord::detail {
namespace {

// Runs the fenced multi and calls `finish(ec, results of the caller's ops)` once, on the
// session's executor (never inside the initiating call). `finish` completes the caller's
// handler through complete_via, so that handler runs on its own associated executor.
template <class Finish>
void run_fenced(const lock_fence& fence, std::vector<multi_op> ops, Finish finish) {
  if (!fence.owned || !fence.session) {
    const auto ec = make_error_code(fence.owned ? errc::closed : errc::not_held);
    return post_to(fence.executor, [finish = std::move(finish), ec]() mutable {
      finish(ec, std::vector<op_result>{});
    });
  }
  start_multi(
      fence.session,
      [finish = std::move(finish), checks = fence.nodes.size()](
          error_code ec, std::vector<op_result> results) mutable {
        ec = fenced_outcome(ec, results, checks);
        finish(ec, std::move(results));
      },
      fenced_ops(fence.nodes, std::move(ops)));
}

}  // namespace

lock_fence fence_of(const ownership& held) {
  const auto& state = ownership_access::state_of(held);
  if (!state) {
    return lock_fence{.owned = false,
                      .nodes = {},
                      .session = nullptr,
                      .executor = boost::asio::system_executor()};
  }
  auto session = state->attempt().session();
  auto executor = session ? session->tracked_executor() : state->attempt().executor();
  return lock_fence{.owned = state->attempt().owns(),
                    .nodes = {fenced_node{state->grant().path, state->grant().stat.version}},
                    .session = std::move(session),
                    .executor = std::move(executor)};
}

void start_fenced_multi(lock_fence fence, std::vector<multi_op> ops,
                        completion<std::vector<op_result>> handler) {
  run_fenced(fence, std::move(ops),
             [ex = fence.executor, h = std::move(handler)](error_code ec,
                                                           std::vector<op_result> results) mutable {
               complete_via(ex, std::move(h), ec, std::move(results));
             });
}

void start_fenced_set(lock_fence fence, op::set set, completion<node_stat> handler) {
  run_fenced(fence, {std::move(set)},
             [ex = fence.executor, h = std::move(handler)](error_code ec,
                                                           std::vector<op_result> r) mutable {
               complete_via(ex, std::move(h), ec, !ec && !r.empty() ? r.front().stat : node_stat{});
             });
}

void start_fenced_create(lock_fence fence, op::create create, completion<created_node> handler) {
  run_fenced(fence, {std::move(create)},
             [ex = fence.executor, h = std::move(handler)](error_code ec,
                                                           std::vector<op_result> r) mutable {
               created_node out;
               if (!ec && !r.empty()) out = created_node{r.front().path, r.front().stat};
               complete_via(ex, std::move(h), ec, std::move(out));
             });
}

void start_fenced_remove(lock_fence fence, op::remove remove, void_completion handler) {
  run_fenced(
      fence, {std::move(remove)},
      [ex = fence.executor, h = std::move(handler)](error_code ec, std::vector<op_result>) mutable {
        complete_via(ex, std::move(h), ec);
      });
}

}  // namespace zkcoord::detail
