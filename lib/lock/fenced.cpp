// Fenced writes: a multi whose first op checks our lock node, so the server applies the
// caller's ops only while the lock is held, atomically with them.
#include "lock/fenced_outcome.hpp"
#include "lock/lock_attempt.hpp"
#include "session/session_multi.hpp"

#include <zkcoord/fenced.hpp>

namespace zkcoord::detail {
namespace {

// Runs the fenced multi and calls `finish(ec, results of the caller's ops)` once, on the
// session's executor (never inside the initiating call). `finish` completes the caller's
// handler through complete_via, so that handler runs on its own associated executor.
template <class Finish>
void run_fenced(const std::shared_ptr<session_impl>& session, lock_fence fence,
                std::vector<multi_op> ops, Finish finish) {
  if (!fence.owned) {
    return post_to(session->tracked_executor(), [finish = std::move(finish)]() mutable {
      finish(make_error_code(errc::not_held), std::vector<op_result>{});
    });
  }
  start_multi(
      session,
      [finish = std::move(finish)](error_code ec, std::vector<op_result> results) mutable {
        ec = fenced_outcome(ec, results);
        finish(ec, std::move(results));
      },
      fenced_ops(fence.node_path, fence.node_version, std::move(ops)));
}

}  // namespace

lock_fence fence_of(const held_lock& held) {
  const auto& state = lock_access::state_of(held);
  if (!state) return {};
  return lock_fence{.owned = state->attempt().owns(),
                    .node_path = state->grant().path,
                    .node_version = state->grant().stat.version};
}

void start_fenced_multi(const std::shared_ptr<session_impl>& session, lock_fence fence,
                        std::vector<multi_op> ops, completion<std::vector<op_result>> handler) {
  run_fenced(session, std::move(fence), std::move(ops),
             [ex = session->tracked_executor(), h = std::move(handler)](
                 error_code ec, std::vector<op_result> results) mutable {
               complete_via(ex, std::move(h), ec, std::move(results));
             });
}

void start_fenced_set(const std::shared_ptr<session_impl>& session, lock_fence fence, op::set set,
                      completion<node_stat> handler) {
  run_fenced(session, std::move(fence), {std::move(set)},
             [ex = session->tracked_executor(), h = std::move(handler)](
                 error_code ec, std::vector<op_result> r) mutable {
               complete_via(ex, std::move(h), ec, !ec && !r.empty() ? r.front().stat : node_stat{});
             });
}

void start_fenced_create(const std::shared_ptr<session_impl>& session, lock_fence fence,
                         op::create create, completion<created_node> handler) {
  run_fenced(session, std::move(fence), {std::move(create)},
             [ex = session->tracked_executor(), h = std::move(handler)](
                 error_code ec, std::vector<op_result> r) mutable {
               created_node out;
               if (!ec && !r.empty()) out = created_node{r.front().path, r.front().stat};
               complete_via(ex, std::move(h), ec, std::move(out));
             });
}

void start_fenced_remove(const std::shared_ptr<session_impl>& session, lock_fence fence,
                         op::remove remove, void_completion handler) {
  run_fenced(
      session, std::move(fence), {std::move(remove)},
      [ex = session->tracked_executor(), h = std::move(handler)](
          error_code ec, std::vector<op_result>) mutable { complete_via(ex, std::move(h), ec); });
}

}  // namespace zkcoord::detail
