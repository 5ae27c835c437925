// The C client's completion callbacks for the session's requests: each takes back its
// pending op, notes the server's answer for the lease deadline, converts the reply and
// completes on the caller's executor.
#include "session_replies.hpp"

#include "c_types.hpp"

namespace zkcoord::detail {
namespace {

template <class T>
std::unique_ptr<pending_op<T>> take(const void* data) {
  return std::unique_ptr<pending_op<T>>(static_cast<pending_op<T>*>(const_cast<void*>(data)));
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

void on_children_reply(int rc, const String_vector* names, const Stat* stat, const void* data) {
  auto op = take<child_list>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, false);
  child_list out;
  if (rc == ZOK) {
    out.names.reserve(static_cast<std::size_t>(names->count));
    for (int i = 0; i < names->count; ++i) out.names.emplace_back(names->data[i]);
    out.stat = to_node_stat(*stat);
  }
  op->finish(op->outcome(rc), std::move(out));
}

void on_void_reply(int rc, const void* data) {
  auto op = take<void>(data);
  op->note_reply(rc);
  op->finish(op->outcome(rc));
}

void on_sync_reply(int rc, const char*, const void* data) {
  on_void_reply(rc, data);
}

}  // namespace zkcoord::detail
