// SPDX-License-Identifier: Apache-2.0
// The C client's completion callbacks for the session's requests: each takes back its
// pending op, notes the server's answer for the lease deadline, converts the reply and
// completes on the caller's executor.
#include "session_replies.hpp"

#include "c_types.hpp"
#include "session_requests.hpp"

namespace zkcoord::detail {
namespace {

template <class Op>
std::unique_ptr<Op> take_as(const void* data) {
  return std::unique_ptr<Op>(static_cast<Op*>(const_cast<void*>(data)));
}

template <class T>
std::unique_ptr<pending_op<T>> take(const void* data) {
  return take_as<pending_op<T>>(data);
}

// The watch registration outcome of a reply: the C client registers an exists watch on ZOK and
// ZNONODE, the others only on ZOK.
void settle_watch(const op_base& op, int rc, bool exists_watch) {
  if (!op.watch) return;
  if (rc == ZOK || (exists_watch && rc == ZNONODE)) return;
  op.impl->forget_watch(*op.watch);
  op.watch->finish(std::nullopt, op.outcome(rc));
}

}  // namespace

void on_create_reply(int rc, const char* path, const Stat* stat, const void* data) {
  auto op = take<created_node>(data);
  op->note_reply(rc);
  created_node out;
  if (rc == ZOK) {
    out.path = path;
    out.stat = to_node_stat(*stat);
  }
  op->finish(op->outcome(rc), std::move(out));
}

void on_create_ttl_reply(int rc, const char* path, const Stat* stat, const void* data) {
  if (rc != ZUNIMPLEMENTED) return on_create_reply(rc, path, stat, data);
  auto op = take<created_node>(data);
  op->note_reply(rc);
  op->finish(make_error_code(errc::ttl_nodes_disabled), created_node{});
}

void on_get_reply(int rc, const char* value, int len, const Stat* stat, const void* data) {
  auto op = take<node_data>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, false);
  node_data out;
  if (rc == ZOK) {
    if (value && len > 0) out.data.assign(value, static_cast<std::size_t>(len));
    out.stat = to_node_stat(*stat);
  }
  op->finish(op->outcome(rc), std::move(out));
}

void on_set_reply(int rc, const Stat* stat, const void* data) {
  auto op = take<node_stat>(data);
  op->note_reply(rc);
  op->finish(op->outcome(rc), rc == ZOK ? to_node_stat(*stat) : node_stat{});
}

void on_exists_reply(int rc, const Stat* stat, const void* data) {
  auto op = take<std::optional<node_stat>>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, true);
  if (rc == ZNONODE) return op->finish({}, std::nullopt);
  op->finish(op->outcome(rc), rc == ZOK ? std::optional(to_node_stat(*stat)) : std::nullopt);
}

namespace {

child_list to_child_list(int rc, const String_vector* names, const Stat* stat) {
  child_list out;
  if (rc == ZOK) {
    out.names.reserve(static_cast<std::size_t>(names->count));
    for (int i = 0; i < names->count; ++i) out.names.emplace_back(names->data[i]);
    out.stat = to_node_stat(*stat);
  }
  return out;
}

}  // namespace

void on_children_reply(int rc, const String_vector* names, const Stat* stat, const void* data) {
  auto op = take<child_list>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, false);
  op->finish(op->outcome(rc), to_child_list(rc, names, stat));
}

void on_stamped_children_reply(int rc, const String_vector* names, const Stat* stat,
                               const void* data) {
  auto op = take<stamped_listing>(data);
  op->note_reply(rc);
  // Before the reply is handed on: the proofs told so far all came before it.
  const std::uint64_t proofs = op->impl->deletion_proofs();
  op->finish(op->outcome(rc), stamped_listing{to_child_list(rc, names, stat), proofs});
}

void on_void_reply(int rc, const void* data) {
  auto op = take<void>(data);
  op->note_reply(rc);
  op->finish(op->outcome(rc));
}

void on_remove_reply(int rc, const void* data) {
  auto op = take_as<remove_op>(data);
  op->note_reply(rc);
  if (rc == ZOK && op->session != 0) op->impl->note_deleted(op->session, op->path);
  op->finish(op->outcome(rc));
}

void on_sync_reply(int rc, const char*, const void* data) {
  on_void_reply(rc, data);
}

}  // namespace zkcoord::detail
